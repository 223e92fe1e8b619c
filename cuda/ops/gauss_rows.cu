// Separable Gaussian blur of large 8-bit gray images, kernels of 3 to GAUSS_ROWS_MAX_TAPS
// taps, in integers and registers; gvis_cu_gauss (gauss.cu) tries it first and runs its
// tile kernel on whatever this declines (gvis_cu_gauss_rows at the end: not 8-bit gray, a
// wider kernel, a smaller image, buffers not 4-byte aligned, an image lower than the
// kernel, a horizontal tap of 256).
//
// gauss_rowsi_u8<KT>, KT = 3, 5, 7, 9, 11, 13, 15 (a kernel runs in the smallest template
// at least as wide, its taps zero-padded about the centre; the sizes each takes are in
// gauss_rows.h): a warp per segment of 120 columns (112 from 11 taps)
// walks down a band of rows, 4 columns a lane (one 4-byte load a row), no shared memory,
// no barrier.  Vertical first:
// - Vertical: a loaded word (4 columns) is split once into two registers of two 16-bit
//   lanes, columns 0 and 2, 1 and 3 (a __byte_perm each); the last KT rows of those stay
//   in a register ring (the loop is unrolled by a multiple of KT, so the ring's slots are
//   fixed registers), and an output row's vertical sums are KT multiply-adds a register.
//   The taps are OpenCV's 8-bit fixed-point integers (>= 0, sum 256), so a lane's sum is
//   at most 255 * 256 < 2^16 and no carry crosses into the other lane.
// - Horizontal: the sums regrouped as column pairs (0,1) and (2,3) (two more
//   __byte_perm), the neighbours' pairs by shuffles (the first and last lane of a warp,
//   two each side from 11 taps, only feed their neighbours), and per output one dp2a
//   (two 16-bit lanes times two 8-bit taps, added to a 32-bit accumulator) for each pair
//   its taps touch.  The
//   accumulator starts at 2^15, so it ends as S + 2^15 < 2^24, the exact 2-D sum plus
//   half: its byte 2 is the result (S + 2^15) >> 16, as gauss.cu and the CPU compute it;
//   four of those are packed into one word and stored.  dp2a takes 8-bit taps: a
//   horizontal tap of 256 (the identity kernel) is declined.
// - Warps whose input rows all lie inside the image walk a plain row pointer; the bands
//   at the top and bottom map every row (border modes, constant rows).  Warps whose
//   lanes' columns all lie inside load one word a row; the segments at the image's left
//   and right edges load two aligned words a row and pick their 4 bytes with a per-lane
//   __byte_perm selector (rowsi_colmap), the constant border's bytes masked in.
// For 5 taps a row step of an inner warp is ~37 warp instructions.  docs/notes-gauss.md
// ("Issue 18") has the budget, the measurements and the host emulation that checked it.
#ifndef GAUSS_ROWS_EMU // a host emulation includes this file with its own definitions
#include <cuda_runtime.h>
#endif
#include <stdint.h>
#include <stdlib.h>

#include "gauss.h"
#include "gauss_rows.h"

#define ROWS_FULL 0xffffffffu
#define ROWSI_AHEAD 4 // rows loaded ahead of the one being used (2, 6 and 8 measured no better: notes)

// Halo lanes each side of a warp (R <= 4: one, R <= 8: two) and output columns of a warp:
// 30 lanes x 4 = 120 up to 9 taps, 28 x 4 = 112 for 11-15.
template <int KT> struct rowsi_halo { enum { lanes = (KT / 2 + 3) / 4, outw = 4 * (32 - 2 * lanes) }; };

struct gauss_rowsi_geom {
    const uint8_t *src;
    size_t spitch;
    uint8_t *dst;
    size_t dpitch;
    int width, height, border;
    int bh, segs;
    uint32_t bval4; // the constant border's byte, in all four bytes
};
// The kernel's parameters, taps for up to NT: 9 for KT <= 9 (ptxas spilled 50-60 % more
// in the edge walks of the 3- and 5-tap kernels with room for 15 taps), 15 above.
template <int NT> struct gauss_rowsi_params : gauss_rowsi_geom {
    uint32_t ty[NT];            // vertical taps, centred, zero-padded to KT
    uint32_t txp[(NT + 1) / 2]; // horizontal: txp[r] = bytes t[2r-1], t[2r], t[2r], t[2r+1]
};
template <int KT> using rowsi_params = gauss_rowsi_params<KT <= 9 ? 9 : 15>;

// An edge lane's columns: two aligned words (byte offsets in a row) and the
// __byte_perm selector that picks its 4 columns from them; cmask: the bytes that are
// the constant border.  The 4 mapped columns of a lane that feeds an output lie in at
// most two words: the lane's cx is a multiple of 4 in [-8, width + 7] (two halo lanes
// from 11 taps), so for an image wider than 8 the reflecting modes and replicate fold 4
// adjacent columns at most once, onto a run of at most 4 (2 words), wrap maps them onto
// a run ending at width - 1 in the lane's own word and a run from 0 in word 0 (or one
// run of 4), and an image up to 8 wide has only 2 words.  (Lanes further out feed
// nothing; their loads only need to be valid, which the offsets always are.)
struct rowsi_cols {
    uint32_t o0, o1, sel, cmask;
};
__device__ __forceinline__ rowsi_cols rowsi_colmap(int cx, int width, int border)
{
    rowsi_cols c = {0, 0, 0, 0};
    int w0 = -1, w1 = -1;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int m = gvis_gauss_border_index(cx + k, width, border);
        uint32_t nib = 0;
        if (m < 0) {
            c.cmask |= 0xffu << 8 * k;
        } else if (w0 < 0 || m >> 2 == w0) {
            w0 = m >> 2;
            nib = m & 3;
        } else {
            w1 = m >> 2;
            nib = 4 | (m & 3);
        }
        c.sel |= nib << 4 * k;
    }
    c.o0 = w0 < 0 ? 0 : 4 * w0;
    c.o1 = w1 < 0 ? c.o0 : 4 * w1;
    return c;
}

// Row p of an image of h rows, for p in [-R, h - 1 + R] with h > R (a band's rows; the
// kernel takes no image lower than its taps): gvis_gauss_border_index without division.
__device__ __forceinline__ int rowsi_row(int p, int h, int mode)
{
    if ((unsigned)p < (unsigned)h)
        return p;
    const bool top = p < 0;
    switch (mode) {
    case GVIS_GAUSS_REPLICATE:
        return top ? 0 : h - 1;
    case GVIS_GAUSS_CONSTANT:
        return -1;
    case GVIS_GAUSS_WRAP:
        return top ? p + h : p - h;
    case GVIS_GAUSS_REFLECT:
        return top ? -1 - p : 2 * h - 1 - p;
    default: // reflect101
        return top ? -p : 2 * h - 2 - p;
    }
}

// ptr += step, opaque to the compiler's strength reduction (which would otherwise keep a
// 64-bit multiple of the pitch in registers for every row of the unrolled loop)
template <typename T> __device__ __forceinline__ void rowsi_advance(T *&ptr, size_t step)
{
#ifdef GAUSS_ROWS_EMU
    ptr = (T *)((const char *)ptr + step);
#else
    asm("add.s64 %0, %0, %1;" : "+l"(ptr) : "l"(step));
#endif
}

// A word's bytes 0, 2 (lo) and 1, 3 (hi) in 16-bit lanes.  In asm so that the compiler
// keeps the two halves in the ring instead of splitting each ring word again at every
// use (4 more PRMT a row step in the 5-tap loop).
__device__ __forceinline__ void rowsi_split(uint32_t w, uint32_t &lo, uint32_t &hi)
{
#ifdef GAUSS_ROWS_EMU
    lo = __byte_perm(w, 0, 0x4240);
    hi = __byte_perm(w, 0, 0x4341);
#else
    asm("prmt.b32 %0, %2, 0, 0x4240;\n\tprmt.b32 %1, %2, 0, 0x4341;" : "=r"(lo), "=r"(hi) : "r"(w));
#endif
}

// acc + the two 16-bit lanes of a times taps t[a], t[a + 1] (bytes 0-1 of tp, HI: 2-3)
template <int HI> __device__ __forceinline__ uint32_t rowsi_dp2(uint32_t a, uint32_t tp, uint32_t acc)
{
    return HI ? __dp2a_hi(a, tp, acc) : __dp2a_lo(a, tp, acc);
}

// Rows unrolled a loop step: a multiple of KT (the ring's slots stay fixed registers)
// and at least D, the rows loaded ahead (every row in flight has its own slot).
template <int KT, int D> struct rowsi_unroll { enum { value = KT * ((D + KT - 1) / KT) }; };

// A warp's walk down its band: inputs i = 0 .. n - 1 are rows y0 - R + i, and input i
// completes output row y0 + i - (KT - 1).  ECOL: the warp has lanes at the image's left
// or right edge (two words a row through rowsi_colmap); EROW: the band has rows outside
// the image (each row mapped).  Group 0 and the last groups test each row (loads past
// the band, outputs before the ring is full); the groups between test nothing.
template <int KT, int D, bool ECOL, bool EROW>
__device__ __forceinline__ void rowsi_walk(const rowsi_params<KT> &p, int lane, int cx, int y0)
{
    constexpr int R = KT / 2, U = rowsi_unroll<KT, D>::value, NW = ECOL ? 2 : 1, HL = rowsi_halo<KT>::lanes;
    const int bh = p.height - y0 < p.bh ? p.height - y0 : p.bh, n = bh + KT - 1;
    const bool writer = lane >= HL && lane < 32 - HL && cx < p.width;
    const bool wvec = writer && (!ECOL || cx + 4 <= p.width);
    rowsi_cols cm = {0, 0, 0, 0};
    if (ECOL)
        cm = rowsi_colmap(cx, p.width, p.border);
    // the row of the next load (ECOL: its first word, the second d1 bytes further: an
    // offset rather than a second running pointer: a register fewer, as many adds)
    const uint8_t *row = p.src + (ECOL ? cm.o0 : cx) + (EROW ? 0 : (ptrdiff_t)(y0 - R) * (ptrdiff_t)p.spitch);
    const int d1 = (int)cm.o1 - (int)cm.o0;
    uint8_t *out = p.dst + (size_t)y0 * p.dpitch + cx;
    uint32_t raw[U][NW], rlo[KT], rhi[KT];
    uint32_t crow = 0; // EROW: bit s, slot s holds a constant-border row
    // input i into slot s
    auto load = [&](int i, int s) {
        const uint8_t *r = row;
        if (EROW) {
            const int ry = rowsi_row(y0 - R + i, p.height, p.border);
            crow = (crow & ~(1u << s)) | (uint32_t)(ry < 0) << s;
            r = p.src + (ECOL ? cm.o0 : cx) + (size_t)(ry < 0 ? 0 : ry) * p.spitch;
        } else {
            rowsi_advance(row, p.spitch);
        }
        raw[s][0] = __ldg((const uint32_t *)r);
        if (ECOL)
            raw[s][NW - 1] = __ldg((const uint32_t *)(r + d1));
    };
    // input i = g U + t from slot t; GUARD: test the row
    auto step = [&](int i, int t, bool guard) {
        uint32_t w = raw[t][0];
        if (ECOL) {
            w = __byte_perm(w, raw[t][NW - 1], cm.sel);
            w = (w & ~cm.cmask) | (p.bval4 & cm.cmask);
        }
        if (EROW && (crow >> t & 1))
            w = p.bval4;
        if (!guard || i + D < n)
            load(i + D, (t + D) % U);
        const int s = t % KT;
        rowsi_split(w, rlo[s], rhi[s]); // columns 0, 2 and 1, 3
        if (guard && i < KT - 1)
            return;
        uint32_t vlo = 0, vhi = 0;
#pragma unroll
        for (int j = 0; j < KT; j++) {
            vlo += p.ty[j] * rlo[(s + 1 + j) % KT];
            vhi += p.ty[j] * rhi[(s + 1 + j) % KT];
        }
        // column pairs k = -2 HL .. 2 HL + 1 of this lane (pair k: columns 2k, 2k + 1; pair
        // k is pair k mod 2 of lane + floor(k / 2)), those the taps touch: k in
        // [-(R + 1) / 2, (R + 3) / 2]
        constexpr int K0 = -2 * HL;
        uint32_t P[4 * HL + 2];
        P[-K0] = __byte_perm(vlo, vhi, 0x5410);
        P[1 - K0] = __byte_perm(vlo, vhi, 0x7632);
#pragma unroll
        for (int k = K0; k <= 2 * HL + 1; k++) {
            if ((k >= 0 && k <= 1) || 2 * k < -R - 1 || 2 * k > R + 3)
                continue;
            P[k - K0] = k < 0 ? __shfl_up_sync(ROWS_FULL, P[(k & 1) - K0], (-k + 1) / 2)
                              : __shfl_down_sync(ROWS_FULL, P[(k & 1) - K0], k / 2);
        }
        uint32_t S[4];
#pragma unroll
        for (int c = 0; c < 4; c++) {
            S[c] = 0x8000u;
#pragma unroll
            for (int k = K0; k <= 2 * HL + 1; k++) {
                const int a = 2 * k - c + R; // taps t[a], t[a + 1] on columns 2k, 2k + 1
                if (a >= -1 && a <= 2 * R)
                    S[c] = (a + 1) & 1 ? rowsi_dp2<1>(P[k - K0], p.txp[(a + 1) >> 1], S[c])
                                       : rowsi_dp2<0>(P[k - K0], p.txp[(a + 1) >> 1], S[c]);
            }
        }
        if (wvec) {
            __stwb((uint32_t *)out,
                   __byte_perm(__byte_perm(S[0], S[1], 0x0062), __byte_perm(S[2], S[3], 0x6200), 0x7610));
        } else if (ECOL && writer) {
#pragma unroll
            for (int c = 0; c < 4; c++)
                if (cx + c < p.width)
                    __stwb(out + c, (uint8_t)(S[c] >> 16));
        }
        rowsi_advance(out, p.dpitch);
    };
#pragma unroll
    for (int t = 0; t < D; t++)
        if (t < n)
            load(t, t);
    const int groups = (n + U - 1) / U, plain = (n - D) / U; // groups 1 .. plain - 1 test nothing
#pragma unroll
    for (int t = 0; t < U; t++)
        if (t < n)
            step(t, t, true);
    int g = 1;
    for (; g < plain; g++) {
#pragma unroll
        for (int t = 0; t < U; t++)
            step(g * U + t, t, false);
    }
    for (; g < groups; g++) {
#pragma unroll
        for (int t = 0; t < U; t++)
            if (g * U + t < n)
                step(g * U + t, t, true);
    }
}

// Registers capped at 40 (6 blocks of 8 warps a multiprocessor) up to 5 taps, 48 (5
// blocks) for 7 and 9, 64 (4 blocks) for 11-15: at 48 the inner walk of 13 and 15 taps
// spills (136 / 244 bytes; 15 taps uncapped: 96 registers), at 64 no inner or top/bottom
// walk does.  ptxas -v (sm_90, CUDA 13.0), each walk compiled alone: the inner
// walk and the top and bottom bands' walk fit with no spill; the walk of the left and
// right segments (two words a row, the selector, the mask) would take 52-72 registers
// uncapped and spills 32-152 bytes instead (a few of 32 warps at 4K): the whole kernel
// 3 / 5 / 7 / 9 taps: stack 8 / 24 / 24 / 56 bytes, spill stores 24 / 92 / 80 / 268.
// Calling those walks __noinline__ spilled more (200-340 bytes of stack, the call ABI).
template <int KT> struct rowsi_minb { enum { value = KT <= 5 ? 6 : KT <= 9 ? 5 : 4 }; };

template <int KT>
__global__ void __launch_bounds__(256, rowsi_minb<KT>::value) gauss_rowsi_u8(const rowsi_params<KT> p)
{
    constexpr int R = KT / 2, HL = rowsi_halo<KT>::lanes;
    const int lane = threadIdx.x & 31;
    const int seg = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (seg >= p.segs)
        return; // the whole warp
    const int y0 = blockIdx.y * p.bh;
    const int cx = seg * rowsi_halo<KT>::outw + (lane - HL) * 4;
    const bool ecol = !__all_sync(ROWS_FULL, cx >= 0 && cx + 4 <= p.width);
    const bool erow = y0 < R || y0 + p.bh + R > p.height;
    if (ecol) {
        if (erow)
            rowsi_walk<KT, ROWSI_AHEAD, true, true>(p, lane, cx, y0);
        else
            rowsi_walk<KT, ROWSI_AHEAD, true, false>(p, lane, cx, y0);
    } else {
        if (erow)
            rowsi_walk<KT, ROWSI_AHEAD, false, true>(p, lane, cx, y0);
        else
            rowsi_walk<KT, ROWSI_AHEAD, false, false>(p, lane, cx, y0);
    }
}

// The grid for segs segments of a warp each across and bands of rows down: blocks of up
// to 8 warps in gx, bands in gy, threads a block; returns the band height.  Bands enough
// for 0.7 of the blocks the GPU holds at once (resident), so the grid is one wave with no
// second, partial one: gy <= bands, so at most target + gx - 1 blocks (< resident while
// gx < 0.3 resident), and the 2 KT floor (a band's KT - 1 rows of halo are read again)
// only lowers gy.  On an H100 (132 multiprocessors x 6 blocks for 3 and 5 taps, x 5 for 7
// and 9): 1920x1080 10 rows (5 taps) 216 blocks; 3840x2160 16 rows, 540 blocks (0.68 of
// 792); 4096x2160 20 rows, 540; 7680x4320 62 rows, 560; 7 and 9 taps 19, 24 and 75 rows,
// 450-464 blocks of 660; 11-15 taps (4 blocks, 528; 112 columns a warp) 3840x2160 30
// rows, 360 blocks.  Measured (4K, 5 taps, docs/notes-gauss.md): the rule 0.0164 ms,
// bands of 8 / 12 / 24 / 32 / 48 rows 0.0162 / 0.0159 / 0.0168 / 0.0175 / 0.0225; that
// sweep's 16 rows, 0.0398, is the rule's own grid, so no wave cliff (to be timed again).
// bh > 0 is taken as it is.
static int rows_grid(int segs, int height, int kt, long long resident, int bh, int *gx, int *gy, int *threads)
{
    const int most = 8, wpb = segs < most ? segs : most;
    *gx = (segs + wpb - 1) / wpb;
    if (bh <= 0) {
        long long target = (7 * resident + 9) / 10;
        long long bands = (target + *gx - 1) / *gx;
        bh = (int)(((long long)height + bands - 1) / bands);
        if (bh < 2 * kt)
            bh = 2 * kt;
    }
    *gy = (height + bh - 1) / bh;
    *threads = 32 * wpb;
    return bh;
}

// Whether the kernel takes d: an image at least as high as the kernel (rowsi_row)
// and horizontal taps of at most 255 (dp2a's 8-bit operand), that is every kernel but a
// horizontal identity (one tap of 256).
static bool rowsi_takes(const gvis_gauss_desc *d)
{
    if (d->height < (d->kx > d->ky ? d->kx : d->ky))
        return false;
    for (int k = 0; k < d->kx; k++)
        if (!(d->wx[k] >= 0.0f && d->wx[k] <= 255.0f))
            return false;
    return true;
}

// The taps centred in KT and packed, the segments and the band height.
template <int KT>
static void rowsi_plan(rowsi_params<KT> &p, const gauss_rowsi_geom &g, const gvis_gauss_desc *d, long long resident,
                       int bh, int *gx, int *gy, int *threads)
{
    constexpr int R = KT / 2;
    static_cast<gauss_rowsi_geom &>(p) = g;
    uint32_t tx[KT + 2] = {0}; // tx[a + 1] = t[a], a = -1 .. KT
    for (int k = 0; k < KT; k++) {
        const int ix = k - (R - d->kx / 2), iy = k - (R - d->ky / 2);
        tx[k + 1] = ix >= 0 && ix < d->kx ? (uint32_t)d->wx[ix] : 0;
        p.ty[k] = iy >= 0 && iy < d->ky ? (uint32_t)d->wy[iy] : 0;
    }
    for (int r = 0; r <= R; r++)
        p.txp[r] = tx[2 * r] | tx[2 * r + 1] << 8 | tx[2 * r + 1] << 16 | tx[2 * r + 2] << 24;
    p.segs = (d->width + rowsi_halo<KT>::outw - 1) / rowsi_halo<KT>::outw;
    p.bh = rows_grid(p.segs, d->height, KT, resident, bh, gx, gy, threads);
}

#ifndef GAUSS_ROWS_EMU
// Knobs for measuring, read once a process (docs/notes-gauss.md): GVIS_GAUSS_ROWS_MAXK
// (largest kernel taken, at most and by default GAUSS_ROWS_MAX_TAPS;
// 0: never, the tile kernel only), GVIS_GAUSS_ROWS_MIN_PIXELS (smallest image taken, every
// kernel; unset: the limits of gauss_rows.h), GVIS_GAUSS_ROWS_BH (rows a warp walks; 0: the
// rule in rows_grid).
static int rows_env(const char *name, int dflt)
{
    const char *e = getenv(name);
    return e && *e ? atoi(e) : dflt;
}

struct rows_knobs {
    int maxk, min_pixels, bh;
};
static const rows_knobs &rows_tuning()
{
    static rows_knobs k = {rows_env("GVIS_GAUSS_ROWS_MAXK", GAUSS_ROWS_MAX_TAPS),
                           rows_env("GVIS_GAUSS_ROWS_MIN_PIXELS", -1),
                           rows_env("GVIS_GAUSS_ROWS_BH", 0)};
    return k;
}

// Blocks of 256 threads of kernel the device holds at once (multiprocessors x blocks
// each), found once a kernel (n: its cache).
static long long rows_resident(const void *kernel, long long *n)
{
    if (!*n) {
        int dev = 0, sms = 0, per = 0;
        cudaGetDevice(&dev);
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)
            sms = 80;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, 256, 0) != cudaSuccess || per <= 0)
            per = 4;
        *n = (long long)sms * per;
    }
    return *n;
}

template <int KT>
static int rowsi_launch(const gauss_rowsi_geom &g, const gvis_gauss_desc *d, cudaStream_t st)
{
    static long long resident;
    int gx, gy, threads;
    rowsi_params<KT> p;
    rowsi_plan<KT>(p, g, d, rows_resident((const void *)gauss_rowsi_u8<KT>, &resident), rows_tuning().bh, &gx, &gy,
                   &threads);
    if (gy > 65535)
        return GAUSS_ROWS_DECLINED; // the tile kernel's 1-D grid takes it
    gauss_rowsi_u8<KT><<<dim3(gx, gy), threads, 0, st>>>(p);
    return (int)cudaGetLastError();
}

extern "C" int gvis_cu_gauss_rows(const void *d_src, size_t spitch, void *d_dst, size_t dpitch,
                                  const gvis_gauss_desc *d, void *stream)
{
    const rows_knobs &kn = rows_tuning();
    const int kt = d->kx > d->ky ? d->kx : d->ky;
    const long long min_pixels = kn.min_pixels >= 0 ? kn.min_pixels
                                 : kt > 9            ? GAUSS_ROWS_MIN_PIXELS_WIDE
                                 : kt > 7            ? GAUSS_ROWS_MIN_PIXELS_9
                                                     : GAUSS_ROWS_MIN_PIXELS;
    if (d->bytes != 1 || d->channels != 1 || kt > kn.maxk || kt > GAUSS_ROWS_MAX_TAPS ||
        (long long)d->width * d->height < min_pixels || !rowsi_takes(d))
        return GAUSS_ROWS_DECLINED;
    if (((uintptr_t)d_src | spitch | (uintptr_t)d_dst | dpitch) % 4)
        return GAUSS_ROWS_DECLINED; // 4-byte loads and stores
    gauss_rowsi_geom q;
    q.src = (const uint8_t *)d_src;
    q.spitch = spitch;
    q.dst = (uint8_t *)d_dst;
    q.dpitch = dpitch;
    q.width = d->width;
    q.height = d->height;
    q.border = d->border;
    q.bval4 = 0x01010101u * (uint32_t)d->border_value;
    cudaStream_t st = (cudaStream_t)stream;
    // the smallest template at least as wide as the kernel
    if (kt <= 3)
        return rowsi_launch<3>(q, d, st);
    if (kt <= 5)
        return rowsi_launch<5>(q, d, st);
    if (kt <= 7)
        return rowsi_launch<7>(q, d, st);
    if (kt <= 9)
        return rowsi_launch<9>(q, d, st);
    if (kt <= 11)
        return rowsi_launch<11>(q, d, st);
    if (kt <= 13)
        return rowsi_launch<13>(q, d, st);
    return rowsi_launch<15>(q, d, st);
}
#endif
