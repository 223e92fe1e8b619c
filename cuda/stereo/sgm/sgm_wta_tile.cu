// SGM winner takes all, a thread a pixel (D = 64, 128 and 256; lib/stereo/sgm.h step 5).
//
// The ring kernel (sgm_wta.cu) gives a pixel to a warp: each lane holds D / 32 sums, and
// every pick ends in warp-wide reductions and a shared-memory state that another pass
// finishes.  At 4K (D = 128) it ran 3.39 ms under ncu for 1.06 G sums, bound by its
// instructions (~280 a pixel, SM 81 %), not by its 2.1 GB.  Here a thread scans one
// pixel's D sums serially from shared memory (the minimum with its k, then the second
// minimum away from it), keeping everything in registers, and finishes the pixel itself:
// ~65 warp instructions a pixel, 1.40 ms (docs/notes-sgm-gpu.md).
//
// A block walks one row in chunks of TC pixels.  Its buffer holds TC + D - 1 rows of
// D / 2 + 1 words (the sums of one pixel in disparity order, two a word, then a word of
// padding: with an odd pitch a warp reading one k of 32 consecutive rows hits 32 banks,
// for the left view (row x, k) and for the right view (row xr + M + k, k) alike).  Rows
// 0 .. D - 2 are the previous chunk's last D - 1 pixels (copied forward), rows D - 1 ..
// the chunk's own.  Warps 0-3 take the chunk's left pixels; warps 4-7 take every right
// pixel whose diagonal (xr + M .. xr + M + D - 1) ends in the chunk, and at the row's end
// all that remain.  The picks are exactly the ring kernel's (and the CPU's): the least
// (S << 16 | k) over k in [klo, khi] (ties to the smaller k), the least S away from the
// winner by more than one, and the winner's neighbours.
//
// STRIPV (gvis_cu_sgm_wta_strip): the rows y0 .. y1 - 1 of a strip, from the sum volume
// plus the strip's u8 volumes of the upward directions (put_strip adds them as the chunk
// is filled), and a block a segment of seg chunks of a row: a strip's rows alone are too
// few blocks for the GPU.  A segment starts a halo of whole chunks (D - 1 pixels) early,
// not picked, so that its first right pixels find their cells in the buffer, and takes the
// right pixels the whole row's walk would take in its chunks.  A whole chunk's loads go in
// batches of 2 uint4s a thread, issued together (strip_batches).
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_wta.cuh"

#define TT 256 // threads a block: warps 0-3 left pixels, 4-7 right ones
#define TC 128 // pixels a chunk (one a left thread)

template <int D>
struct tile {
    static constexpr int P = D / 2 + 1; // words a buffer row (odd)
    static constexpr int ROWS = TC + D - 1;
    static constexpr size_t BYTES = (size_t)ROWS * P * 4;
};

// The least S over k in [lo, hi] at p[k * STEP] (u16), from m.
template <int STEP>
__device__ __forceinline__ uint32_t min16(const uint16_t *p, int lo, int hi, uint32_t m)
{
#pragma unroll 8
    for (int k = lo; k <= hi; k++)
        m = min(m, (uint32_t)p[k * STEP]);
    return m;
}

// The state of a pixel from its winner key: the second minimum away from it, the
// neighbours (S(k) at p[k * STEP], k in [klo, khi]).
template <int STEP>
__device__ __forceinline__ px_state second16(const uint16_t *p, int klo, int khi, uint32_t best)
{
    px_state st;
    st.best = best;
    st.second = NONE;
    st.lo = st.hi = 0;
    if (best == NONE)
        return st;
    const int k0 = (int)(best & 0xffff);
    st.second = min16<STEP>(p, max(klo, k0 + 2), khi, min16<STEP>(p, klo, min(khi, k0 - 2), NONE));
    if (k0 - 1 >= klo)
        st.lo = p[(k0 - 1) * STEP];
    if (k0 + 1 <= khi)
        st.hi = p[(k0 + 1) * STEP];
    return st;
}

// A pick over u16 sums at p[k * STEP]: the right view (STEP = 2P + 1: one buffer row
// and one k on), and the left view's border pixels (STEP = 1).  FULL: klo = 0, khi = D - 1.
template <int D, int STEP, bool FULL>
__device__ __forceinline__ px_state pick16(const uint16_t *p, int klo, int khi)
{
    // four running minima: four chains of D / 4 dependent steps instead of one of D
    uint32_t b[4] = {NONE, NONE, NONE, NONE};
#pragma unroll
    for (int k = 0; k < D; k++)
        if (FULL || (k >= klo && k <= khi))
            b[k & 3] = min(b[k & 3], (uint32_t)p[k * STEP] << 16 | (uint32_t)k);
    return second16<STEP>(p, klo, khi, min(min(b[0], b[1]), min(b[2], b[3])));
}

// The left view of an interior pixel (every k counts) from its row's words w (k = 2 j in
// the low half of w[j], 2 j + 1 in the high half): the winner from whole words; the
// second minimum from the words wholly away from it (both halves at once with
// __vminu2; S <= 8 x 255, so 0xffff means none) and the one cell beside the excluded
// three that shares a word with them.
template <int D>
__device__ __forceinline__ px_state pick_left_full(const uint32_t *w)
{
    uint32_t b[4] = {NONE, NONE, NONE, NONE};
#pragma unroll
    for (int j = 0; j < D / 2; j++) {
        const uint32_t v = w[j];
        b[2 * (j & 1)] = min(b[2 * (j & 1)], v << 16 | (uint32_t)(2 * j));
        b[2 * (j & 1) + 1] = min(b[2 * (j & 1) + 1], (v & 0xffff0000u) | (uint32_t)(2 * j + 1));
    }
    const uint32_t best = min(min(b[0], b[1]), min(b[2], b[3]));
    px_state st;
    st.best = best;
    const int k0 = (int)(best & 0xffff);
    // the excluded k0 - 1 .. k0 + 1 lie in words ja = (k0 - 1) >> 1 and ja + 1
    const int ja = (k0 - 1) >> 1;
    uint32_t acc = 0xffffffffu;
#pragma unroll 8
    for (int j = 0; j < ja; j++)
        acc = __vminu2(acc, w[j]);
#pragma unroll 8
    for (int j = ja + 2; j < D / 2; j++)
        acc = __vminu2(acc, w[j]);
    uint32_t sec = min(acc & 0xffff, acc >> 16);
    const uint16_t *s = reinterpret_cast<const uint16_t *>(w);
    // k0 even: k0 - 2 is the low half of word ja; k0 odd: k0 + 2 the high half of ja + 1
    if (!(k0 & 1) && k0 >= 2)
        sec = min(sec, (uint32_t)s[k0 - 2]);
    if ((k0 & 1) && k0 + 2 < D)
        sec = min(sec, (uint32_t)s[k0 + 2]);
    st.second = sec == 0xffff ? NONE : sec;
    st.lo = k0 >= 1 ? s[k0 - 1] : 0;
    st.hi = k0 + 1 < D ? s[k0 + 1] : 0;
    return st;
}

// The sum volume: uint4 q = 8 b + g of a pixel is words 32 b + 4 g .. + 3, whose low
// halves are k = 64 b + 4 g .. + 3 and high halves k + 32 .. (sgm_cuda.h); into buffer
// row D - 1 + xo in disparity order.
template <int D>
__device__ __forceinline__ void put_sum(uint32_t *buf, int i, uint4 v)
{
    constexpr int P = tile<D>::P, Q = D / 8;
    const int xo = i / Q, q = i % Q;
    uint32_t *d = buf + (xo + D - 1) * P + 32 * (q >> 3) + 2 * (q & 7);
    d[0] = __byte_perm(v.x, v.y, 0x5410);
    d[1] = __byte_perm(v.z, v.w, 0x5410);
    d[16] = __byte_perm(v.x, v.y, 0x7632);
    d[17] = __byte_perm(v.z, v.w, 0x7632);
}

template <int D>
__device__ __forceinline__ const uint4 *sum_row(const wta_args &a, int y, int x0)
{
    return reinterpret_cast<const uint4 *>(a.sum + ((size_t)y * a.width + x0) * a.sw);
}

// A whole chunk of the sum volume: this thread's PER loads (issued together, and for the
// next chunk before the picks of this one), then their stores.
template <int D>
struct sum_chunk {
    static constexpr int Q = D / 8, PER = TC * Q / TT;
    uint4 v[PER];
    __device__ __forceinline__ void load(const wta_args &a, int y, int x0)
    {
        const uint4 *src = sum_row<D>(a, y, x0);
        const int q4 = a.sw / 4;
#pragma unroll
        for (int j = 0; j < PER; j++) {
            const int i = threadIdx.x + j * TT;
            v[j] = __ldg(src + (size_t)(i / Q) * q4 + i % Q);
        }
    }
    __device__ __forceinline__ void put(uint32_t *buf) const
    {
#pragma unroll
        for (int j = 0; j < PER; j++)
            put_sum<D>(buf, threadIdx.x + j * TT, v[j]);
    }
};

// The u8 strip volumes' part of uint4 i of a chunk (STRIPV): the sums over the volumes of
// k = 64 b + 4 g .. + 3 (lo) and k + 32 .. + 3 (hi) for q = i % Q = 8 b + g, each as two
// u16 pairs in disparity order ({k, k + 1}, {k + 2, k + 3}), added to put_sum's words.
template <int D>
__device__ __forceinline__ void put_strip(const wta_args &a, uint32_t *buf, int i, uint4 v, int y, int x0)
{
    constexpr int P = tile<D>::P, Q = D / 8;
    const int xo = i / Q, q = i % Q;
    const uint8_t *c = a.strip + ((size_t)(y - a.y0) * a.width + x0 + xo) * D + 64 * (q >> 3) + 4 * (q & 7);
    // bytes k, k + 2 (e) and k + 1, k + 3 (o) as u16 halves: 3 x 255 fits
    uint32_t el = 0, ol = 0, eh = 0, oh = 0;
    for (int s = 0; s < a.nstrip; s++) {
        const uint32_t lo = __ldg(reinterpret_cast<const uint32_t *>(c + s * a.svol));
        const uint32_t hi = __ldg(reinterpret_cast<const uint32_t *>(c + s * a.svol + 32));
        el += lo & 0x00ff00ffu;
        ol += (lo >> 8) & 0x00ff00ffu;
        eh += hi & 0x00ff00ffu;
        oh += (hi >> 8) & 0x00ff00ffu;
    }
    // every S <= 8 x 255: no half carries into the other
    uint32_t *d = buf + (xo + D - 1) * P + 32 * (q >> 3) + 2 * (q & 7);
    d[0] = __byte_perm(v.x, v.y, 0x5410) + __byte_perm(el, ol, 0x5410);
    d[1] = __byte_perm(v.z, v.w, 0x5410) + __byte_perm(el, ol, 0x7632);
    d[16] = __byte_perm(v.x, v.y, 0x7632) + __byte_perm(eh, oh, 0x5410);
    d[17] = __byte_perm(v.z, v.w, 0x7632) + __byte_perm(eh, oh, 0x7632);
}

// put_strip's loads for uint4 i of a chunk, apart from its sums: the sum volume's uint4 and
// each strip volume's words of k .. k + 3 and k + 32 .. k + 35.
struct strip_words {
    uint4 v;
    uint32_t lo[3], hi[3];
};

template <int D>
__device__ __forceinline__ void strip_load(const wta_args &a, const uint4 *src, int q4, int i, int y, int x0,
                                           strip_words &w)
{
    constexpr int Q = D / 8;
    const int xo = i / Q, q = i % Q;
    w.v = __ldg(src + (size_t)xo * q4 + q);
    const uint8_t *c = a.strip + ((size_t)(y - a.y0) * a.width + x0 + xo) * D + 64 * (q >> 3) + 4 * (q & 7);
#pragma unroll
    for (int s = 0; s < 3; s++) {
        w.lo[s] = s < a.nstrip ? __ldg(reinterpret_cast<const uint32_t *>(c + s * a.svol)) : 0u;
        w.hi[s] = s < a.nstrip ? __ldg(reinterpret_cast<const uint32_t *>(c + s * a.svol + 32)) : 0u;
    }
}

// put_strip's sums and stores from strip_load's words.
template <int D>
__device__ __forceinline__ void strip_put(uint32_t *buf, int i, const strip_words &w)
{
    constexpr int P = tile<D>::P, Q = D / 8;
    const int xo = i / Q, q = i % Q;
    uint32_t el = 0, ol = 0, eh = 0, oh = 0;
#pragma unroll
    for (int s = 0; s < 3; s++) {
        el += w.lo[s] & 0x00ff00ffu;
        ol += (w.lo[s] >> 8) & 0x00ff00ffu;
        eh += w.hi[s] & 0x00ff00ffu;
        oh += (w.hi[s] >> 8) & 0x00ff00ffu;
    }
    uint32_t *d = buf + (xo + D - 1) * P + 32 * (q >> 3) + 2 * (q & 7);
    d[0] = __byte_perm(w.v.x, w.v.y, 0x5410) + __byte_perm(el, ol, 0x5410);
    d[1] = __byte_perm(w.v.z, w.v.w, 0x5410) + __byte_perm(el, ol, 0x7632);
    d[16] = __byte_perm(w.v.x, w.v.y, 0x7632) + __byte_perm(eh, oh, 0x5410);
    d[17] = __byte_perm(w.v.z, w.v.w, 0x7632) + __byte_perm(eh, oh, 0x7632);
}

// A whole chunk of STRIPV: batches of B uint4s a thread, the loads of a batch together.
template <int D, int B0>
__device__ __forceinline__ void strip_batches(const wta_args &a, uint32_t *buf, const uint4 *src, int q4, int y,
                                              int x0)
{
    constexpr int PER = TC * (D / 8) / TT, B = PER < B0 ? PER : B0;
#pragma unroll
    for (int j0 = 0; j0 < PER; j0 += B) {
        strip_words w[B];
#pragma unroll
        for (int j = 0; j < B; j++)
            strip_load<D>(a, src, q4, threadIdx.x + (j0 + j) * TT, y, x0, w[j]);
#pragma unroll
        for (int j = 0; j < B; j++)
            strip_put<D>(buf, threadIdx.x + (j0 + j) * TT, w[j]);
    }
}

// A chunk of n < TC pixels of the sum volume, any chunk of the sum volume and the strips,
// or any chunk of the per-path volumes, into buffer rows D - 1 .. D - 1 + n - 1.
template <int D, int NP>
__device__ __forceinline__ void fill(const wta_args &a, uint32_t *buf, int y, int x0, int n)
{
    constexpr int P = tile<D>::P;
    if (NP == STRIPV) {
        constexpr int Q = D / 8;
        const uint4 *src = sum_row<D>(a, y, x0);
        const int q4 = a.sw / 4;
        if (a.batch && n == TC) {
            // a whole chunk: the loads of 2 uint4s issued together, then their sums (one at a
            // time, each waited on its loads: ncu 211-215 us a strip of 128 rows at 4K, about
            // half the DRAM roof for its bytes).  Batches of 4 tied, and compiled in beside
            // them they left the kernel 48 bytes of spills at its 80 registers (4 with 2
            // only): 4K D 128 13.66-13.74 ms with 2 only against 13.80-13.87 (call 103)
            strip_batches<D, 2>(a, buf, src, q4, y, x0);
            return;
        }
        for (int i = threadIdx.x; i < n * Q; i += TT)
            put_strip<D>(a, buf, i, __ldg(src + (size_t)(i / Q) * q4 + i % Q), y, x0);
    } else if (NP == SUMV) {
        constexpr int Q = D / 8;
        const uint4 *src = sum_row<D>(a, y, x0);
        const int q4 = a.sw / 4;
        for (int i = threadIdx.x; i < n * Q; i += TT)
            put_sum<D>(buf, i, __ldg(src + (size_t)(i / Q) * q4 + i % Q));
    } else {
        constexpr int G = D / 8; // groups of 8 sums a pixel
        const size_t cell0 = ((size_t)y * a.width + x0) * D;
        for (int i = threadIdx.x; i < n * G; i += TT) {
            const uint4 v = sum8<NP>(a, cell0 + (size_t)i * 8);
            uint32_t *d = buf + (i / G + D - 1) * P + (i % G) * 4;
            d[0] = v.x;
            d[1] = v.y;
            d[2] = v.z;
            d[3] = v.w;
        }
    }
}

template <int D, int NP>
__global__ void __launch_bounds__(TT, 3) wta_tile_kernel(wta_args a)
{
    extern __shared__ uint32_t buf[]; // [ROWS][P]
    constexpr int P = tile<D>::P;
    const int W = a.width, M = a.M, y = a.y0 + (int)blockIdx.x;
    const bool left = threadIdx.x < TC;
    const int t = left ? threadIdx.x : threadIdx.x - TC;
    // the row's pixels xs .. xe - 1 (blockIdx.y: a segment of a.seg chunks; the whole row
    // where a.seg is 0), after the D - 1 before them (whole chunks, not picked) that the
    // right view's first cells lie in; the right pixels whose last cell lies in the
    // segment (the whole row's walk takes them chunk by chunk: so does each segment's)
    const int xs = a.seg ? (int)blockIdx.y * a.seg * TC : 0, xe = a.seg ? min(W, xs + a.seg * TC) : W;
    const int halo = (D - 1 + TC - 1) / TC * TC;
    int next_r = xs > 0 ? max(0, min(W, xs - M - (D - 1))) : 0; // the first right pixel not yet taken
    // the sum volume's next whole chunk, loaded during the picks (D <= 128: at 256 its
    // 64 registers would spill)
    constexpr bool PRE = NP == SUMV && D <= 128;
    sum_chunk<D <= 128 ? D : 128> pre;
    if (PRE && W >= TC)
        pre.load(a, y, 0);
    const int xfirst = max(0, xs - halo);
    for (int x0 = xfirst; x0 < xe; x0 += TC) {
        const int n = min(TC, W - x0);
        if (x0 > xfirst) {
            // the previous chunk's last D - 1 pixels to rows 0 .. D - 2, TC rows at a time
            // (rows s .. from rows TC + s ..: apart within a round; with D - 1 > TC the
            // next round reads what this one overwrites, hence a barrier each); the
            // previous picks are done (the barrier at the loop's end)
            for (int s = 0; s < D - 1; s += TC) {
                const int words = min(TC, D - 1 - s) * P;
                for (int i = threadIdx.x; i < words; i += TT)
                    buf[s * P + i] = buf[(TC + s) * P + i];
                __syncthreads();
            }
        }
        if (PRE && n == TC)
            pre.put(buf);
        else
            fill<D, NP>(a, buf, y, x0, n);
        __syncthreads();
        if (PRE && W - x0 >= 2 * TC)
            pre.load(a, y, x0 + TC);
        if (x0 < xs) { // the halo: in the buffer for the next chunk's right pixels only
            __syncthreads();
            continue;
        }
        if (left) {
            if (a.left && t < n) {
                const int x = x0 + t, klo = max(0, x - (W - 1) - M), khi = min(D - 1, x - M);
                const uint32_t *w = buf + (t + D - 1) * P;
                px_state st;
                if (klo == 0 && khi == D - 1)
                    st = pick_left_full<D>(w);
                else
                    st = pick16<D, 1, false>(reinterpret_cast<const uint16_t *>(w), klo, khi);
                a.left[(size_t)y * W + x] = finish(st, klo, khi, a.U, a.subpixel, M);
            }
        } else if (a.right) {
            // right pixels whose cells (x = xr + M + k <= W - 1) are all in by now
            const int last = x0 + n == W ? W - 1 : min(W - 1, x0 + n - 1 - M - (D - 1));
            for (int xr = next_r + t; xr <= last; xr += TC) {
                const int klo = max(0, -xr - M), khi = min(D - 1, W - 1 - xr - M);
                // cell k at buffer row xr + M + k - x0 + D - 1, u16 k of it
                const uint16_t *p = reinterpret_cast<const uint16_t *>(buf) + (xr + M - x0 + D - 1) * (2 * P);
                px_state st;
                if (klo == 0 && khi == D - 1)
                    st = pick16<D, 2 * P + 1, true>(p, 0, D - 1);
                else
                    st = pick16<D, 2 * P + 1, false>(p, klo, khi);
                a.right[(size_t)y * W + xr] = finish(st, klo, khi, a.U, a.subpixel, M);
            }
            next_r = max(next_r, last + 1);
        }
        __syncthreads();
    }
}

size_t wta_tile_bytes(int D)
{
    return D == 64 ? tile<64>::BYTES : D == 128 ? tile<128>::BYTES : D == 256 ? tile<256>::BYTES : 0;
}

template <int D, int NP>
static int launch_np(const wta_args &a, void *stream)
{
    const size_t bytes = tile<D>::BYTES;
    cudaError_t e = cudaFuncSetAttribute(wta_tile_kernel<D, NP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)bytes);
    if (e != cudaSuccess)
        return (int)e;
    const dim3 grid(a.y1 - a.y0, a.seg ? (a.width + a.seg * TC - 1) / (a.seg * TC) : 1);
    wta_tile_kernel<D, NP><<<grid, TT, bytes, (cudaStream_t)stream>>>(a);
    return (int)cudaGetLastError();
}

template <int D>
static int launch_d(const wta_args &a, void *stream)
{
    return a.strip         ? launch_np<D, STRIPV>(a, stream)
           : a.sum         ? launch_np<D, SUMV>(a, stream)
           : a.npaths == 8 ? launch_np<D, 8>(a, stream)
           : a.npaths == 4 ? launch_np<D, 4>(a, stream)
                           : launch_np<D, 0>(a, stream);
}

int wta_tile_launch(const wta_args &a, void *stream)
{
    return a.D == 64    ? launch_d<64>(a, stream)
           : a.D == 128 ? launch_d<128>(a, stream)
           : a.D == 256 ? launch_d<256>(a, stream)
                        : (int)cudaErrorInvalidValue;
}
