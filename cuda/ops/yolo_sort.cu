// Sort of the YOLO candidates by (descending score, ascending row), on the device with
// the count read on the device.  Keys are unique (they hold the row), so the order is
// total and a key's place is the number of smaller keys.
//
// Few candidates (up to RANK_MAX, the usual case: ~1,200 of 25,200 rows at conf 0.25):
// rank_count compares every key with every other in tiles of 256 x 256 (each block a
// tile, the column keys in shared memory, one atomic add a key and tile), and
// merge_gather puts each box at its count.  The bitonic sort of one 2,048-key chunk in one
// block took 23.6 us of the 59 us pipeline on an H200 (66 dependent stages); the tiles
// spread the m^2 comparisons over (m / 256)^2 blocks.
//
// More: chunks of 2048 keys are sorted by one block each (bitonic, in registers, warp
// shuffles and shared memory), then every key finds its final rank as its place in its
// chunk plus the number of smaller keys in each other chunk (binary search).
//
// Both ways are in the graph; each kernel returns at once when the count is not its own.
#include <cuda_runtime.h>
#include <stdint.h>

#include "yolo.h"

namespace {

constexpr int CHUNK = 2048;
constexpr int SORT_THREADS = 1024;
constexpr uint32_t RANK_MAX = 4096; // candidates counted by rank_count (16 x 16 tiles)
constexpr int RT = 256;             // rank_count's tile: keys a block compares, each with RT others
constexpr unsigned RANK_BLOCKS = 128;

// The rank of every key (m <= RANK_MAX): tile t = (ti, tj) counts, for each key of row
// tile ti, the keys of column tile tj below it, and adds that to rank[] (zeroed by the
// decode stage as it writes the key).
__global__ void __launch_bounds__(RT) rank_count(const uint64_t *keys, uint32_t *rank, const gvis_cu_yolo_hdr *hdr)
{
    __shared__ uint64_t col[RT];
    const uint32_t m = hdr->candidates;
    if (m > RANK_MAX || m < 2)
        return;
    const uint32_t nt = (m + RT - 1) / RT;
    for (uint32_t t = blockIdx.x; t < nt * nt; t += gridDim.x) {
        const uint32_t i = t / nt * RT + threadIdx.x, j0 = t % nt * RT, nj = min((uint32_t)RT, m - j0);
        __syncthreads(); // the previous tile's column is read
        if (threadIdx.x < nj)
            col[threadIdx.x] = keys[j0 + threadIdx.x];
        __syncthreads();
        if (i < m) {
            const uint64_t k = keys[i];
            uint32_t below = 0;
            if (nj == RT) {
#pragma unroll 16
                for (int j = 0; j < RT; j++)
                    below += col[j] < k;
            } else {
                for (uint32_t j = 0; j < nj; j++)
                    below += col[j] < k;
            }
            if (below)
                atomicAdd(rank + i, below);
        }
    }
}

// One compare-exchange of a bitonic network: x at position i meets its partner y at
// i ^ j; the lower position keeps the smaller key when its k-block ascends.
__device__ __forceinline__ uint64_t exchange(uint64_t x, uint64_t y, uint32_t i, uint32_t j, uint32_t k)
{
    bool lower = (i & j) == 0, up = (i & k) == 0;
    return (lower == up) ? min(x, y) : max(x, y);
}

// Each thread holds positions 2t and 2t+1: distance 1 is inside the thread, distances
// 2..32 inside the warp (shuffles), longer ones go through shared memory.
__global__ void __launch_bounds__(SORT_THREADS) sort_chunks(uint64_t *keys, const gvis_cu_yolo_hdr *hdr)
{
    __shared__ uint64_t s[CHUNK];
    uint32_t m = hdr->candidates;
    uint32_t base = blockIdx.x * CHUNK;
    if (base >= m || m <= RANK_MAX)
        return;
    uint32_t len = min((uint32_t)CHUNK, m - base);
    uint32_t size = 2;
    while (size < len)
        size <<= 1;
    uint32_t i0 = 2 * threadIdx.x, i1 = i0 + 1;
    uint64_t a = i0 < len ? keys[base + i0] : UINT64_MAX;
    uint64_t b = i1 < len ? keys[base + i1] : UINT64_MAX;
    for (uint32_t k = 2; k <= size; k <<= 1)
        for (uint32_t j = k >> 1; j > 0; j >>= 1) {
            if (j == 1) {
                bool up = (i0 & k) == 0;
                uint64_t lo = min(a, b), hi = max(a, b);
                a = up ? lo : hi;
                b = up ? hi : lo;
            } else if (j <= 32) {
                uint64_t pa = __shfl_xor_sync(0xffffffffu, a, j >> 1);
                uint64_t pb = __shfl_xor_sync(0xffffffffu, b, j >> 1);
                a = exchange(a, pa, i0, j, k);
                b = exchange(b, pb, i1, j, k);
            } else {
                s[i0] = a;
                s[i1] = b;
                __syncthreads();
                uint64_t pa = s[i0 ^ j], pb = s[i1 ^ j];
                __syncthreads();
                a = exchange(a, pa, i0, j, k);
                b = exchange(b, pb, i1, j, k);
            }
        }
    if (i0 < len)
        keys[base + i0] = a;
    if (i1 < len)
        keys[base + i1] = b;
}

__global__ void merge_gather(gvis_cu_yolo_scratch s, const gvis_cu_yolo_hdr *hdr)
{
    uint32_t m = hdr->candidates;
    uint32_t chunks = (m + CHUNK - 1) / CHUNK;
    const bool counted = m <= RANK_MAX;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
        uint64_t key = s.keys[i];
        uint32_t mine = i / CHUNK;
        uint32_t rank = counted ? s.rank[i] : i % CHUNK;
        for (uint32_t c = 0; c < (counted ? 0 : chunks); c++) {
            if (c == mine)
                continue;
            uint32_t lo = c * CHUNK, hi = min(m, lo + CHUNK), first = lo;
            while (lo < hi) { // first key >= key in chunk c
                uint32_t mid = (lo + hi) >> 1;
                if (s.keys[mid] < key)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            rank += lo - first;
        }
        uint32_t row = (uint32_t)key;
        reinterpret_cast<float4 *>(s.sbox)[rank] = reinterpret_cast<const float4 *>(s.box_by_row)[row];
        reinterpret_cast<int2 *>(s.srec)[rank] = reinterpret_cast<const int2 *>(s.rec_by_row)[row];
        s.srow[rank] = (int32_t)row;
    }
}

} // namespace

extern "C" int gvis_cu_yolo_sort(size_t rows, const gvis_cu_yolo_scratch *s, void *d_out, void *stream)
{
    if (rows == 0)
        return 0;
    cudaStream_t st = (cudaStream_t)stream;
    const gvis_cu_yolo_hdr *hdr = (const gvis_cu_yolo_hdr *)d_out;
    unsigned chunks = (unsigned)((rows + CHUNK - 1) / CHUNK);
    if (rows >= 2) {
        const size_t tiles = (rows < RANK_MAX ? (rows + RT - 1) / RT : RANK_MAX / RT);
        const unsigned nb = (unsigned)(tiles * tiles < RANK_BLOCKS ? tiles * tiles : RANK_BLOCKS);
        rank_count<<<nb, RT, 0, st>>>(s->keys, s->rank, hdr);
    }
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return (int)err;
    if (rows > RANK_MAX) {
        sort_chunks<<<chunks, SORT_THREADS, 0, st>>>(s->keys, hdr);
        err = cudaGetLastError();
        if (err != cudaSuccess)
            return (int)err;
    }
    size_t blocks = (rows + 255) / 256;
    merge_gather<<<(unsigned)(blocks < 1024 ? blocks : 1024), 256, 0, st>>>(*s, hdr);
    return (int)cudaGetLastError();
}
