// Separable Gaussian blur of large 8-bit gray images, kernels up to GAUSS_ROWS_MAX_TAPS
// taps: one warp per column segment, walking down a band of rows, everything in registers.
//
// Each lane owns COLS = 4 adjacent columns (one 4-byte load per row).  Per input row it
// converts its bytes to float, takes the R = KT / 2 neighbouring columns on each side
// from the neighbouring lanes (warp shuffles) and forms the horizontal sums; the last KT
// rows of horizontal sums stay in a register ring (the loop is unrolled by a multiple of
// KT, so the ring's slots are fixed registers) and each new row completes one output
// row, the vertical sum of the ring.  The P = ceil(R / COLS) lanes at each end of a warp
// only feed their neighbours; a warp writes (32 - 2P) * COLS columns.  Rows are loaded 8
// ahead of the one being summed.  Warps whose lanes all lie inside the image load words;
// the few at the image's edges load bytes through the column map.  No shared memory, no
// barrier.
//
// Arithmetic: the taps are OpenCV's 8-bit fixed-point integers (sum 256, each >= 0) and
// the samples integers <= 255, so every horizontal sum is an integer <= 255 * 256 and
// every vertical sum of those an integer <= 255 * 2^16 < 2^24: exact in float whatever
// the order, so the result is the exact 2-D sum rounded once, as gauss.cu and the CPU
// compute it.  Taps are zero-padded about the centre to the template's KT (a padded
// tap's zero times a finite sample adds nothing).
//
// docs/notes-gauss.md ("Issue 18") has the budget and the measurements.
#ifndef GAUSS_ROWS_EMU // a host emulation includes this file with its own definitions
#include <cuda_runtime.h>
#endif
#include <stdint.h>
#include <stdlib.h>

#include "gauss.h"
#include "gauss_rows.h"

#define ROWS_FULL 0xffffffffu

struct gauss_rows_params {
    const uint8_t *src;
    size_t spitch;
    uint8_t *dst;
    size_t dpitch;
    int width, height, border;
    int bh;        // output rows per warp (band height)
    int segs;      // column segments (warps) across a band
    uint32_t bval4; // the constant border's byte, in all four bytes
    float wx[15], wy[15]; // centred, zero-padded to KT (room for templates to 15 taps)
};

// Byte k of word w as a float: 0x4B0000bb is 2^23 + b.
__device__ __forceinline__ float rows_byte(uint32_t w, int k)
{
    return __uint_as_float(__byte_perm(w, 0x4B000000u, 0x7440 | k)) - 8388608.0f;
}

// Rows outside the image, out of line (the loop maps rows in many places).
__device__ __noinline__ int rows_map(int p, int n, int mode) { return gvis_gauss_border_index(p, n, mode); }

__device__ __forceinline__ int rows_row(const gauss_rows_params &p, int iy)
{
    return (unsigned)iy < (unsigned)p.height ? iy : rows_map(iy, p.height, p.border);
}

// Rows unrolled per loop step: a multiple of KT (the ring's slots stay fixed registers)
// and at least ROWS_AHEAD (every prefetched row has its own slot).
#define ROWS_AHEAD 8      // rows in flight ahead of the one being summed, inner warps
#define ROWS_AHEAD_EDGE 4 // edge warps (byte loads: COLS registers a row)
template <int KT> struct rows_unroll { enum { value = KT * ((ROWS_AHEAD + KT - 1) / KT) }; };

// A warp's walk down its band.  Inner warps (EDGE false: every lane's COLS columns inside
// the image) load one 4- or 8-byte word a row; edge warps load bytes through the column
// map.  Loads are unconditional at valid addresses (a constant-border row or column
// reads row or column 0) and the constant is put in when the row is used, D rows later:
// no branch sits between a load and its register, so nothing waits for it early.
template <int KT, int COLS, bool EDGE>
__device__ __forceinline__ void rows_walk(const gauss_rows_params &p, int lane, int cx, const int *col, int y0)
{
    constexpr int R = KT / 2, P = (R + COLS - 1) / COLS, U = rows_unroll<KT>::value;
    constexpr int D = EDGE ? ROWS_AHEAD_EDGE : ROWS_AHEAD;
    constexpr int NW = COLS / 4;           // words a row
    constexpr int NR = EDGE ? COLS : NW;   // registers a loaded row
    const bool writer = lane >= P && lane < 32 - P && cx < p.width;
    const bool wvec = writer && cx + COLS <= p.width;
    // edge lanes: byte offsets (>= 0) and which bytes are the constant border
    int off[EDGE ? COLS : 1];
    uint32_t cmask[NW];
#pragma unroll
    for (int q = 0; q < NW; q++)
        cmask[q] = 0;
#pragma unroll
    for (int c = 0; c < (EDGE ? COLS : 1); c++) {
        off[c] = EDGE ? (col[c] < 0 ? 0 : col[c]) : cx;
        if (EDGE && col[c] < 0)
            cmask[c >> 2] |= 0xffu << (8 * (c & 3));
    }
    const int first = y0 - R, n = p.bh + KT - 1; // source row of input 0; inputs
    uint32_t raw[U][NR];
    uint32_t crow = 0; // bit s: slot s holds a constant-border row
    // ld(i, s): input i into slot s
#define ROWS_LD(i, s)                                                                                                  \
    do {                                                                                                               \
        const int ry_ = rows_row(p, first + (i));                                                                      \
        crow = (crow & ~(1u << (s))) | ((uint32_t)(ry_ < 0) << (s));                                                   \
        const uint8_t *row_ = p.src + (size_t)(ry_ < 0 ? 0 : ry_) * p.spitch;                                          \
        if (EDGE) {                                                                                                    \
            _Pragma("unroll") for (int c_ = 0; c_ < NR; c_++) raw[s][c_] = __ldg(row_ + off[c_]);                     \
        } else if (COLS == 4) {                                                                                        \
            raw[s][0] = __ldg((const uint32_t *)(row_ + off[0]));                                                     \
        } else {                                                                                                       \
            const uint2 q_ = __ldg((const uint2 *)(row_ + off[0]));                                                   \
            raw[s][0] = q_.x;                                                                                          \
            raw[s][NR - 1] = q_.y;                                                                                     \
        }                                                                                                              \
    } while (0)
#pragma unroll
    for (int t = 0; t < D; t++)
        if (t < n)
            ROWS_LD(t, t);
    float ring[KT][COLS];
    const int groups = (n + U - 1) / U;
    for (int g = 0; g < groups; g++) {
#pragma unroll
        for (int t = 0; t < U; t++) {
            const int i = g * U + t; // input index
            // the row's words, constants put in
            uint32_t w[NW];
#pragma unroll
            for (int q = 0; q < NW; q++) {
                uint32_t v;
                if (EDGE)
                    v = __byte_perm(__byte_perm(raw[t][4 * q], raw[t][4 * q + 1], 0x0040),
                                    __byte_perm(raw[t][4 * q + 2], raw[t][4 * q + 3], 0x0040), 0x5410);
                else
                    v = raw[t][q];
                v = (v & ~cmask[q]) | (p.bval4 & cmask[q]);
                w[q] = (crow >> t & 1) ? p.bval4 : v;
            }
            // input i + D into the slot just read
            if (i + D < n)
                ROWS_LD(i + D, (t + D) % U);
            float f[COLS];
#pragma unroll
            for (int c = 0; c < COLS; c++)
                f[c] = rows_byte(w[c >> 2], c & 3);
            // columns -R .. COLS + R - 1 of this lane, the outer ones from its neighbours
            float F[COLS + 2 * R];
#pragma unroll
            for (int c = 0; c < COLS; c++)
                F[R + c] = f[c];
#pragma unroll
            for (int j = -R; j < 0; j++) {
                const int d = (-j + COLS - 1) / COLS; // lanes to the left
                F[R + j] = __shfl_up_sync(ROWS_FULL, f[j + d * COLS], d);
            }
#pragma unroll
            for (int j = COLS; j < COLS + R; j++)
                F[R + j] = __shfl_down_sync(ROWS_FULL, f[j % COLS], j / COLS);
            const int slot = t % KT;
#pragma unroll
            for (int c = 0; c < COLS; c++) {
                float h = p.wx[0] * F[c];
#pragma unroll
                for (int k = 1; k < KT; k++)
                    h = __fmaf_rn(p.wx[k], F[c + k], h);
                ring[slot][c] = h;
            }
            // input i completes output row i - (KT - 1): inputs i - KT + 1 .. i
            if (g > 0 || t >= KT - 1) {
                const int o = i - (KT - 1), y = y0 + o;
                float s[COLS];
#pragma unroll
                for (int c = 0; c < COLS; c++) {
                    float v = p.wy[0] * ring[(slot + 1) % KT][c];
#pragma unroll
                    for (int k = 1; k < KT; k++)
                        v = __fmaf_rn(p.wy[k], ring[(slot + 1 + k) % KT][c], v);
                    s[c] = v;
                }
                if (writer && o < p.bh && y < p.height) {
                    // s is an exact integer in [0, 255 * 2^16]: s * 2^-16 + 0.5 is exact,
                    // and adding 2^23 rounding down leaves (s + 2^15) >> 16 in the low byte
                    uint32_t u[COLS];
#pragma unroll
                    for (int c = 0; c < COLS; c++)
                        u[c] = __float_as_uint(__fadd_rd(__fmaf_rn(s[c], 1.0f / 65536.0f, 0.5f), 8388608.0f));
                    uint8_t *out = p.dst + (size_t)y * p.dpitch + cx;
                    if (wvec) {
                        uint32_t o4[NW];
#pragma unroll
                        for (int q = 0; q < NW; q++)
                            o4[q] = __byte_perm(__byte_perm(u[4 * q], u[4 * q + 1], 0x0040),
                                                __byte_perm(u[4 * q + 2], u[4 * q + 3], 0x0040), 0x5410);
                        if (COLS == 4)
                            *(uint32_t *)out = o4[0];
                        else
                            *(uint2 *)out = make_uint2(o4[0], o4[NW - 1]);
                    } else {
#pragma unroll
                        for (int c = 0; c < COLS; c++)
                            if (cx + c < p.width)
                                out[c] = (uint8_t)u[c];
                    }
                }
            }
        }
    }
#undef ROWS_LD
}

// CAP: registers capped (for 5 taps or fewer at 64, four 256-thread blocks a
// multiprocessor) at about what the inner warps' walk needs (ptxas -v: 44 for 3 taps, 52
// for 5); the edge walk, which would take ~105, spills a little in the few edge warps
// instead of halving every warp's occupancy.  Measured on an H100 (docs/notes-gauss.md):
// capped is 6 % faster at 5 taps.  Only CAP = 1 is launched.
template <int KT, int COLS, int CAP> struct rows_minb {
    enum { value = !CAP ? 1 : COLS == 4 ? (KT <= 5 ? 4 : KT <= 9 ? 3 : 2) : (KT <= 5 ? 3 : 2) };
};

template <int KT, int COLS, int CAP>
__global__ void __launch_bounds__(256, (rows_minb<KT, COLS, CAP>::value)) gauss_rows_u8(const gauss_rows_params p)
{
    constexpr int R = KT / 2, P = (R + COLS - 1) / COLS, OUTW = (32 - 2 * P) * COLS;
    const int lane = threadIdx.x & 31;
    const int seg = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (seg >= p.segs)
        return; // the whole warp
    const int y0 = blockIdx.y * p.bh;
    const int cx = seg * OUTW - P * COLS + lane * COLS;
    const bool vec = cx >= 0 && cx + COLS <= p.width;
    int col[COLS];
#pragma unroll
    for (int c = 0; c < COLS; c++)
        col[c] = gvis_gauss_border_index(cx + c, p.width, p.border);
    if (__all_sync(ROWS_FULL, vec))
        rows_walk<KT, COLS, false>(p, lane, cx, col, y0);
    else
        rows_walk<KT, COLS, true>(p, lane, cx, col, y0);
}

// The taps centred in KT, the segments and the band height; the grid in gx, gy and the
// block's threads in threads.  resident: blocks the whole GPU holds at once.
template <int KT, int COLS>
static void rows_plan(gauss_rows_params &p, const gvis_gauss_desc *d, long long resident, int bh, int *gx, int *gy,
                      int *threads)
{
    constexpr int R = KT / 2, P = (R + COLS - 1) / COLS, OUTW = (32 - 2 * P) * COLS;
    for (int k = 0; k < KT; k++) {
        const int ix = k - (R - d->kx / 2), iy = k - (R - d->ky / 2);
        p.wx[k] = ix >= 0 && ix < d->kx ? d->wx[ix] : 0.0f;
        p.wy[k] = iy >= 0 && iy < d->ky ? d->wy[iy] : 0.0f;
    }
    p.segs = (d->width + OUTW - 1) / OUTW;
    const int most = 8, wpb = p.segs < most ? p.segs : most;
    *gx = (p.segs + wpb - 1) / wpb;
    // Band height: bands enough for 0.7 of the blocks the GPU holds at once, so the grid
    // is one wave with no second, partial one (the sweep in docs/notes-gauss.md: 4K,
    // 5 taps, 0.68 waves 0.0243 ms, 1.02 waves 0.0261, 1.49 waves 0.0308, 0.52 waves
    // 0.0311), and at least 2 KT rows (a band's KT - 1 rows of halo are summed again).
    if (bh <= 0) {
        long long target = (7 * resident + 9) / 10;
        long long bands = (target + *gx - 1) / *gx;
        bh = (int)(((long long)d->height + bands - 1) / bands);
        if (bh < 2 * KT)
            bh = 2 * KT;
    }
    p.bh = bh;
    *gy = (d->height + bh - 1) / bh;
    *threads = 32 * wpb;
}

#ifndef GAUSS_ROWS_EMU
// Knobs, read once (docs/notes-gauss.md): GVIS_GAUSS_ROWS_MAXK (largest kernel this path
// takes, at most GAUSS_ROWS_MAX_TAPS; 0 = never), GVIS_GAUSS_ROWS_MIN_PIXELS (smallest
// image it takes), GVIS_GAUSS_ROWS_BH (rows a warp walks; 0 = the rule above).
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
                           rows_env("GVIS_GAUSS_ROWS_MIN_PIXELS", GAUSS_ROWS_MIN_PIXELS),
                           rows_env("GVIS_GAUSS_ROWS_BH", 0)};
    return k;
}

// Blocks of gauss_rows_u8<KT, 4> the device holds at once (multiprocessors x blocks each).
template <int KT> static long long rows_resident()
{
    static long long n;
    if (!n) {
        int dev = 0, sms = 0, per = 0;
        cudaGetDevice(&dev);
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)
            sms = 80;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, gauss_rows_u8<KT, 4, 1>, 256, 0) != cudaSuccess ||
            per <= 0)
            per = 4;
        n = (long long)sms * per;
    }
    return n;
}

template <int KT> static int rows_launch(gauss_rows_params &p, const gvis_gauss_desc *d, cudaStream_t st)
{
    int gx, gy, threads;
    rows_plan<KT, 4>(p, d, rows_resident<KT>(), rows_tuning().bh, &gx, &gy, &threads);
    if (gy > 65535)
        return GAUSS_ROWS_DECLINED; // the tile kernel's 1-D grid takes it
    gauss_rows_u8<KT, 4, 1><<<dim3(gx, gy), threads, 0, st>>>(p);
    return (int)cudaGetLastError();
}

extern "C" int gvis_cu_gauss_rows(const void *d_src, size_t spitch, void *d_dst, size_t dpitch,
                                  const gvis_gauss_desc *d, void *stream)
{
    const rows_knobs &kn = rows_tuning();
    const int kt = d->kx > d->ky ? d->kx : d->ky;
    if (d->bytes != 1 || d->channels != 1 || kt > kn.maxk || kt > GAUSS_ROWS_MAX_TAPS ||
        (long long)d->width * d->height < kn.min_pixels)
        return GAUSS_ROWS_DECLINED;
    if (((uintptr_t)d_src | spitch | (uintptr_t)d_dst | dpitch) % 8)
        return GAUSS_ROWS_DECLINED;
    gauss_rows_params p;
    p.src = (const uint8_t *)d_src;
    p.spitch = spitch;
    p.dst = (uint8_t *)d_dst;
    p.dpitch = dpitch;
    p.width = d->width;
    p.height = d->height;
    p.border = d->border;
    p.bval4 = 0x01010101u * (uint32_t)d->border_value;
    cudaStream_t st = (cudaStream_t)stream;
    // the smallest template at least as wide as the kernel
    if (kt <= 3)
        return rows_launch<3>(p, d, st);
    return rows_launch<5>(p, d, st);
}
#endif
