// The SGM fused vertical passes' exchanges through global memory (sgm_down.cu): the path
// costs a tile publishes for its neighbours each row, and the two walks' progress words.
//
// The published path costs go through global memory without a flag or a fence: every u16
// path cost is at most BIG (0x3fff), so the two top bits of each half carry a tag, the row
// over 8 (mod 4), and a slot of a ring of 8 a column and direction holds row y at y % 8.
// The reader polls its words (volatile loads: L2) until every half carries row y's tag;
// 32-bit stores and loads are single-copy atomic, so a word with the right tag is row y's
// word.  A tile is never more than a row ahead of its neighbours (each needs the other's
// row before), so a slot is read before it is written again.  A poll that never ends traps
// rather than hang.
//
// Both walks at once (BOTH): each warp publishes its last first visit in a progress word
// after a fence, and the other walk's warp of the same columns polls it, then fences.
#ifndef GVIS_SGM_RING_CUH
#define GVIS_SGM_RING_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

constexpr int RING = 8; // ring slots a published column and direction

// The tag of row y in both halves of a word (bits 14-15 of each).
__device__ __forceinline__ uint32_t row_tag(int y)
{
    return (uint32_t)((y >> 3) & 3) * 0x40004000u;
}

// Where on: a lane's P words of a column's path costs into its ring slot p (4 P contiguous
// bytes), tagged.  A predicated store, not a branch: the line's three recurrences stay one
// block of straight code that the compiler interleaves.
template <int P>
__device__ __forceinline__ void ring_put(bool on, uint32_t *p, const uint32_t (&v)[P], uint32_t tag)
{
#pragma unroll
    for (int j = 0; j < P; j += 4)
        asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %5, 0;\n\t"
                     "@q st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};\n\t}" ::"l"(p + j),
                     "r"(v[j] | tag), "r"(v[j + 1] | tag), "r"(v[j + 2] | tag), "r"(v[j + 3] | tag), "r"((uint32_t)on));
}

// A lane's P words of a ring slot (volatile: from L2), as they are.
template <int P>
__device__ __forceinline__ void ring_load(const uint32_t *p, uint32_t (&v)[P])
{
#pragma unroll
    for (int j = 0; j < P; j += 4)
        asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v[j]), "=r"(v[j + 1]), "=r"(v[j + 2]), "=r"(v[j + 3])
                     : "l"(p + j));
}

// Whether every half of a lane's words carries tag.
template <int P>
__device__ __forceinline__ bool ring_tagged(const uint32_t (&v)[P], uint32_t tag)
{
    uint32_t bad = 0;
#pragma unroll
    for (int j = 0; j < P; j++)
        bad |= (v[j] & 0xc000c000u) ^ tag;
    return bad == 0;
}

// The same words back once every half of the line's 64 words carries tag.
template <int P>
__device__ __forceinline__ void ring_get(const uint32_t *p, uint32_t (&v)[P], uint32_t tag, unsigned gmask)
{
    for (long long spins = 0;; spins++) {
        uint32_t bad = 0;
#pragma unroll
        for (int j = 0; j < P; j += 4) {
            asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(v[j]), "=r"(v[j + 1]), "=r"(v[j + 2]), "=r"(v[j + 3])
                         : "l"(p + j)
                         : "memory");
#pragma unroll
            for (int i = 0; i < 4; i++)
                bad |= (v[j + i] & 0xc000c000u) ^ tag;
        }
        if (__all_sync(gmask, bad == 0))
            break;
        if (spins > (1LL << 22))
            __trap(); // a neighbour that never publishes: a bug, not a wait
    }
#pragma unroll
    for (int j = 0; j < P; j++)
        v[j] &= 0x3fff3fffu;
}

// BOTH: a walk's progress, a warp each: its last row published (-1: none).  Published after
// a fence (the warp's stores before it), read with a fence after (the words after it).

__device__ __forceinline__ void prog_put(int *p, int v)
{
    __threadfence();
    asm volatile("st.volatile.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ void prog_wait(const int *p, int need)
{
    for (long long spins = 0;; spins++) {
        int v;
        asm volatile("ld.volatile.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        if (v >= need)
            break;
        if (spins > (1LL << 24))
            __trap(); // a walk that never gets there: a bug, not a wait
    }
    __threadfence();
}

} // namespace

#endif
