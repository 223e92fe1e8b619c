// Separable Gaussian blur, both passes fused in one kernel.
//
// A block owns a tile of TH rows by TWS samples (interleaved channels are samples; the
// horizontal taps step by C).  Phase 1 runs the vertical pass straight from global
// memory for the tile's columns and the horizontal halo (each thread one column, TH
// outputs in registers, the taps in chunks of KC so that TH + KC - 1 loads feed TH * KC
// multiply-adds) and leaves the column sums in shared memory.  Phase 2 runs the
// horizontal pass from shared memory: each thread RX consecutive outputs, RX odd so that
// the lanes of a warp, RX words apart, fall on distinct banks.  Phase 3 writes the output
// tile with 16-byte stores.  The vertical halo is never stored (L1/L2 serve the rows
// neighbouring tiles share) and the horizontal one costs (TWS + taps) / TWS column sums.
//
// Measured on an H200 (docs/notes-gauss.md): staging the source tile in shared memory
// with 16-byte loads first was 10-35 % slower than these direct loads for 3 to 31 taps,
// and the kernel is bound by instruction issue, not by memory, below 31 taps.
//
// Arithmetic: u8 in float, u16 in double; every product and partial sum is then an
// integer below 2^24 (2^53), so the sums are exact whatever the order, and equal to the
// CPU's and to OpenCV's fixed-point ones.  f32 sums in float, vertical then horizontal.
#include <cuda_runtime.h>
#include <stdint.h>

#include "gauss.h"
#include "gauss_rows.h"
#include "gauss_vtile.h"
#include "gvis_cuda.h"

#define GAUSS_THREADS 256
#define GAUSS_WARPS (GAUSS_THREADS / 32)
#ifndef GAUSS_RX
#define GAUSS_RX 7 // outputs per thread in phase 2; odd (banks)
#endif
#ifndef GAUSS_TH_FLOAT
#define GAUSS_TH_FLOAT 16 // rows per tile, float arithmetic
#endif
#ifndef GAUSS_MIN_BLOCKS
#define GAUSS_MIN_BLOCKS 3 // blocks per multiprocessor the registers must allow
#endif
#ifndef GAUSS_TH_DOUBLE
#define GAUSS_TH_DOUBLE 8 // rows per tile, double arithmetic
#endif
#define GAUSS_SMEM_LIMIT (100 * 1024)

#ifndef GAUSS_HD
#define GAUSS_HD __host__ __device__
#endif
// The phases are host-callable too (an emulation of the kernel checks its indexing on a
// machine without a GPU); only the device pass unrolls.
#ifdef __CUDA_ARCH__
#define GAUSS_UNROLL _Pragma("unroll")
#else
#define GAUSS_UNROLL
#endif

struct gauss_params {
    const unsigned char *src;
    size_t spitch;
    unsigned char *dst;
    size_t dpitch;
    int width, height, ws; // ws: samples per row
    int nx, ny;            // taps
    int nxp, nyp;          // taps padded to a multiple of KC (zero weights)
    int rx, ry;
    int border;
    int wpr;               // warps per row segment in phase 2
    int tws;               // tile width in samples: 32 * RX * wpr
    int ext;               // column sums per row: tws + (nxp - 1) * C
    int tiles_x;
    int bytes;             // sample size
    double bval;
    float wx[GVIS_GAUSS_TILE_TAPS + 1], wy[GVIS_GAUSS_TILE_TAPS + 1];
};

template <typename T> struct gauss_acc;
template <> struct gauss_acc<uint8_t> { typedef float type; };
template <> struct gauss_acc<uint16_t> { typedef double type; };
template <> struct gauss_acc<float> { typedef float type; };
// Float samples may be infinite or NaN (a disparity map marks invalid pixels with inf):
// a padded tap's zero weight times inf would make NaN where the CPU, which has no padded
// taps, keeps inf, so float tiles skip the padded taps; integer samples are always finite.
template <typename T> struct gauss_skip_pad { enum { value = 0 }; };
template <> struct gauss_skip_pad<float> { enum { value = 1 }; };

template <typename T> GAUSS_HD static inline T gauss_ldg(const T *p)
{
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

GAUSS_HD static inline float gauss_cvt(uint8_t b)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(0x4B000000u | b) - 8388608.0f;
#else
    return (float)b;
#endif
}
GAUSS_HD static inline double gauss_cvt(uint16_t v) { return (double)v; }
GAUSS_HD static inline float gauss_cvt(float v) { return v; }

GAUSS_HD static inline void gauss_store(uint8_t *p, float s)
{
#ifdef __CUDA_ARCH__
    // s is an exact integer in [0, 255 * 2^16]: s * 2^-16 + 0.5 is exact, and adding 2^23
    // rounding down leaves floor(s / 2^16 + 0.5) = (s + 2^15) >> 16 in the low byte
    *p = (uint8_t)__float_as_uint(__fadd_rd(__fmaf_rn(s, 1.0f / 65536.0f, 0.5f), 8388608.0f));
#else
    int v = ((int)s + 32768) >> 16; // s is an exact integer
    *p = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
#endif
}
GAUSS_HD static inline void gauss_store(uint16_t *p, double s)
{
    unsigned long long v = ((unsigned long long)s + 2147483648ull) >> 32;
    *p = (uint16_t)(v > 65535 ? 65535 : v);
}
GAUSS_HD static inline void gauss_store(float *p, float s) { *p = s; }

GAUSS_HD static inline int gauss_floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

template <typename A> struct gauss_smem {
    A *v;                // [TH][ext] column sums
    A *wx;               // [nxp]
    A *wy;               // [nyp]
    int *row;            // [TH + nyp - 1] source row of each needed row, -1 = constant border
    unsigned char *out;  // [TH][tws] samples of the output tile, stored out coalesced
};

// Byte offsets of the shared arrays; the output tile 16-byte aligned for vector copies.
template <typename A, int TH> GAUSS_HD static inline size_t gauss_off_out(const gauss_params &p)
{
    size_t rows = sizeof(A) * ((size_t)TH * p.ext + p.nxp + p.nyp);
    return (rows + sizeof(int) * (size_t)(TH + p.nyp - 1) + 15) / 16 * 16;
}

template <typename A, int TH>
GAUSS_HD static inline gauss_smem<A> gauss_layout(void *base, const gauss_params &p)
{
    gauss_smem<A> s;
    s.v = (A *)base;
    s.wx = s.v + (size_t)TH * p.ext;
    s.wy = s.wx + p.nxp;
    s.row = (int *)(s.wy + p.nyp);
    s.out = (unsigned char *)base + gauss_off_out<A, TH>(p);
    return s;
}

template <typename A, int TH> static size_t gauss_smem_bytes(const gauss_params &p)
{
    return gauss_off_out<A, TH>(p) + ((size_t)TH * p.tws * p.bytes + 15) / 16 * 16;
}

// Phase 0: taps and the row map into shared memory.
template <typename A, int TH>
GAUSS_HD static inline void gauss_phase0(const gauss_params &p, const gauss_smem<A> &s, int by, int tid)
{
    for (int i = tid; i < p.nxp; i += GAUSS_THREADS)
        s.wx[i] = (A)p.wx[i];
    for (int i = tid; i < p.nyp; i += GAUSS_THREADS)
        s.wy[i] = (A)p.wy[i];
    const int y0 = by * TH - p.ry;
    for (int i = tid; i < TH + p.nyp - 1; i += GAUSS_THREADS)
        s.row[i] = gvis_gauss_border_index(y0 + i, p.height, p.border);
}

// Phase 1: vertical sums of the tile's rows for every column of the extended tile.
template <typename T, typename A, int C, int TH, int KC>
GAUSS_HD static inline void gauss_phase1(const gauss_params &p, const gauss_smem<A> &s, int bx, int by, int tid)
{
    const int x0 = bx * p.tws - p.rx * C;
    const A bval = (A)p.bval;
    // every row the tile reads (padded taps included) inside the image: a running row
    // pointer replaces the row map, its select and the multiply per load
    const int ytop = by * TH - p.ry;
    const bool rows_inside = ytop >= 0 && ytop + TH + p.nyp - 2 < p.height;
    for (int c = tid; c < p.ext; c += GAUSS_THREADS) {
        const int sidx = x0 + c;
        const int px = gauss_floor_div(sidx, C);
        const int mp = gvis_gauss_border_index(px, p.width, p.border);
        const int col = mp < 0 ? -1 : mp * C + (sidx - px * C);
        const T *base = (const T *)p.src + (col < 0 ? 0 : col);
        A acc[TH];
GAUSS_UNROLL
        for (int j = 0; j < TH; j++)
            acc[j] = 0;
        for (int k0 = 0; k0 < p.nyp; k0 += KC) {
            A v[TH + KC - 1];
            // loads first, unconditionally (a border row reads row 0), so that they all fly at once
            T raw[TH + KC - 1];
            if (rows_inside && col >= 0) {
                const unsigned char *q = (const unsigned char *)base + (size_t)(ytop + k0) * p.spitch;
GAUSS_UNROLL
                for (int t = 0; t < TH + KC - 1; t++, q += p.spitch)
                    raw[t] = gauss_ldg((const T *)q);
GAUSS_UNROLL
                for (int t = 0; t < TH + KC - 1; t++)
                    v[t] = gauss_cvt(raw[t]);
            } else {
GAUSS_UNROLL
                for (int t = 0; t < TH + KC - 1; t++) {
                    const int r = s.row[k0 + t];
                    raw[t] = gauss_ldg((const T *)((const unsigned char *)base + (size_t)(r < 0 ? 0 : r) * p.spitch));
                }
GAUSS_UNROLL
                for (int t = 0; t < TH + KC - 1; t++)
                    v[t] = (s.row[k0 + t] < 0 || col < 0) ? bval : gauss_cvt(raw[t]);
            }
GAUSS_UNROLL
            for (int kk = 0; kk < KC; kk++) {
                if (gauss_skip_pad<T>::value && k0 + kk >= p.ny)
                    continue;
                const A w = s.wy[k0 + kk];
GAUSS_UNROLL
                for (int j = 0; j < TH; j++)
                    acc[j] += w * v[j + kk];
            }
        }
GAUSS_UNROLL
        for (int j = 0; j < TH; j++)
            s.v[(size_t)j * p.ext + c] = acc[j];
    }
}

// Phase 2: horizontal sums from shared memory into the output.
template <typename T, typename A, int C, int TH, int KC>
GAUSS_HD static inline void gauss_phase2(const gauss_params &p, const gauss_smem<A> &s, int tid)
{
    const int warp = tid >> 5, lane = tid & 31;
    const int rows_per_pass = GAUSS_WARPS / p.wpr;
    const int sbase = ((warp % p.wpr) * 32 + lane) * GAUSS_RX;
    for (int j = warp / p.wpr; j < TH; j += rows_per_pass) {
        const A *in = s.v + (size_t)j * p.ext + sbase;
        A acc[GAUSS_RX];
GAUSS_UNROLL
        for (int i = 0; i < GAUSS_RX; i++)
            acc[i] = 0;
        for (int k0 = 0; k0 < p.nxp; k0 += KC) {
            A v[GAUSS_RX + (KC - 1) * C];
GAUSS_UNROLL
            for (int t = 0; t < GAUSS_RX + (KC - 1) * C; t++)
                v[t] = in[k0 * C + t];
GAUSS_UNROLL
            for (int kk = 0; kk < KC; kk++) {
                if (gauss_skip_pad<T>::value && k0 + kk >= p.nx)
                    continue;
                const A w = s.wx[k0 + kk];
GAUSS_UNROLL
                for (int i = 0; i < GAUSS_RX; i++)
                    acc[i] += w * v[i + kk * C];
            }
        }
        T *out = (T *)s.out + (size_t)j * p.tws + sbase;
GAUSS_UNROLL
        for (int i = 0; i < GAUSS_RX; i++)
            gauss_store(out + i, acc[i]);
    }
}

// Phase 3: the output tile to global memory, 16 bytes per store where the tile is whole.
template <typename T, int TH>
GAUSS_HD static inline void gauss_phase3(const gauss_params &p, const unsigned char *tile, int bx, int by, int tid)
{
    const int x0 = bx * p.tws, rows = p.height - by * TH < TH ? p.height - by * TH : TH;
    const int n = p.ws - x0 < p.tws ? p.ws - x0 : p.tws;
    const size_t rowbytes = (size_t)n * sizeof(T);
    unsigned char *dst = p.dst + (size_t)by * TH * p.dpitch + (size_t)x0 * sizeof(T);
    if (rowbytes % 16 == 0 && ((size_t)dst | p.dpitch) % 16 == 0) {
        const int per_row = (int)(rowbytes / 16), tile_row = p.tws * (int)sizeof(T) / 16;
        for (int i = tid; i < rows * per_row; i += GAUSS_THREADS) {
            const int r = i / per_row, q = i - r * per_row;
            ((uint4 *)(dst + (size_t)r * p.dpitch))[q] = ((const uint4 *)tile)[(size_t)r * tile_row + q];
        }
    } else {
        for (int i = tid; i < rows * n; i += GAUSS_THREADS) {
            const int r = i / n, q = i - r * n;
            ((T *)(dst + (size_t)r * p.dpitch))[q] = ((const T *)tile)[(size_t)r * p.tws + q];
        }
    }
}

#ifndef GAUSS_NO_KERNELS
template <typename T, typename A, int C, int TH, int KC>
__global__ void __launch_bounds__(GAUSS_THREADS, GAUSS_MIN_BLOCKS) gauss_fused(const gauss_params p)
{
    extern __shared__ __align__(16) unsigned char gauss_shared[];
    const gauss_smem<A> s = gauss_layout<A, TH>(gauss_shared, p);
    const int b = blockIdx.x, by = b / p.tiles_x, bx = b - by * p.tiles_x;
    gauss_phase0<A, TH>(p, s, by, threadIdx.x);
    __syncthreads();
    gauss_phase1<T, A, C, TH, KC>(p, s, bx, by, threadIdx.x);
    __syncthreads();
    gauss_phase2<T, A, C, TH, KC>(p, s, threadIdx.x);
    __syncthreads();
    gauss_phase3<T, TH>(p, s.out, bx, by, threadIdx.x);
}
#endif

// Rows per tile: the register block of phase 1.
template <typename A> struct gauss_th { enum { value = sizeof(A) == 8 ? GAUSS_TH_DOUBLE : GAUSS_TH_FLOAT }; };

// Fills the geometry of p for KC taps per chunk and C channels; returns the shared bytes.
template <typename A>
static size_t gauss_plan(gauss_params &p, const gvis_gauss_desc *d, int kc)
{
    const int C = d->channels, TH = gauss_th<A>::value;
    p.width = d->width;
    p.height = d->height;
    p.ws = d->width * C;
    p.nx = d->kx;
    p.ny = d->ky;
    p.nxp = (d->kx + kc - 1) / kc * kc;
    p.nyp = (d->ky + kc - 1) / kc * kc;
    p.rx = d->kx / 2;
    p.ry = d->ky / 2;
    p.border = d->border;
    p.bytes = d->bytes;
    p.bval = d->border_value;
    for (int i = 0; i <= GVIS_GAUSS_TILE_TAPS; i++) {
        p.wx[i] = i < d->kx ? d->wx[i] : 0.0f;
        p.wy[i] = i < d->ky ? d->wy[i] : 0.0f;
    }
    // Wider tiles for wider kernels (the halo's share of the column sums), within the
    // shared-memory budget and no wider than the image needs.
    size_t bytes = 0;
    for (p.wpr = 1;; p.wpr *= 2) {
        p.tws = 32 * GAUSS_RX * p.wpr;
        p.ext = p.tws + (p.nxp - 1) * C;
        bytes = gauss_smem_bytes<A, TH>(p);
        if (p.wpr == GAUSS_WARPS || p.tws >= 4 * (p.nxp - 1) * C || p.tws >= p.ws)
            break;
        gauss_params q = p;
        q.tws = 2 * p.tws;
        q.ext = q.tws + (q.nxp - 1) * C;
        if (gauss_smem_bytes<A, TH>(q) > GAUSS_SMEM_LIMIT)
            break;
    }
    p.tiles_x = (p.ws + p.tws - 1) / p.tws;
    return bytes;
}

// Taps per chunk: the fewest padded taps, weighed against the loads a short chunk costs
// (TH + KC - 1 loads feed TH * KC multiply-adds).  u8, the fast path, has five chunk
// sizes; u16 and f32 two.
static int gauss_pick_kc(int kx, int ky, int all)
{
    static const int choices[] = {8, 7, 5, 4, 3};
    int best = 8;
    double best_cost = 1e30;
    for (int i = 0; i < 5; i++) {
        int kc = choices[i];
        if (!all && kc != 8 && kc != 4)
            continue;
        double cost = (double)((kx + kc - 1) / kc * kc + (ky + kc - 1) / kc * kc) * (1.0 + 2.0 / kc);
        if (cost < best_cost)
            best = kc, best_cost = cost;
    }
    return best;
}

#ifndef GAUSS_NO_KERNELS
template <typename T, int C, int KC>
static cudaError_t gauss_launch_kc(gauss_params &p, const gvis_gauss_desc *d, cudaStream_t st)
{
    typedef typename gauss_acc<T>::type A;
    const int TH = gauss_th<A>::value;
    size_t bytes = gauss_plan<A>(p, d, KC);
    long long tiles_y = (d->height + TH - 1) / TH, blocks = tiles_y * p.tiles_x;
    if (blocks > 0x7fffffffLL)
        return cudaErrorInvalidConfiguration;
    cudaError_t e;
    if (bytes > 48 * 1024 &&
        (e = cudaFuncSetAttribute(gauss_fused<T, A, C, TH, KC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)bytes)) != cudaSuccess)
        return e;
    gauss_fused<T, A, C, TH, KC><<<(unsigned)blocks, GAUSS_THREADS, bytes, st>>>(p);
    return cudaGetLastError();
}

template <typename T, int C>
static cudaError_t gauss_launch_c(gauss_params &p, const gvis_gauss_desc *d, cudaStream_t st)
{
    switch (gauss_pick_kc(d->kx, d->ky, sizeof(T) == 1)) {
    case 3:
        return gauss_launch_kc<T, C, sizeof(T) == 1 ? 3 : 4>(p, d, st);
    case 5:
        return gauss_launch_kc<T, C, sizeof(T) == 1 ? 5 : 4>(p, d, st);
    case 7:
        return gauss_launch_kc<T, C, sizeof(T) == 1 ? 7 : 8>(p, d, st);
    case 4:
        return gauss_launch_kc<T, C, 4>(p, d, st);
    }
    return gauss_launch_kc<T, C, 8>(p, d, st);
}

template <typename T>
static cudaError_t gauss_launch_t(gauss_params &p, const gvis_gauss_desc *d, cudaStream_t st)
{
    switch (d->channels) {
    case 1:
        return gauss_launch_c<T, 1>(p, d, st);
    case 3:
        return gauss_launch_c<T, 3>(p, d, st);
    case 4:
        return gauss_launch_c<T, 4>(p, d, st);
    }
    return cudaErrorInvalidValue;
}

#ifndef GAUSS_NO_ENTRY
extern "C" int gvis_cu_gauss(const void *d_src, size_t spitch, void *d_dst, size_t dpitch, const gvis_gauss_desc *d,
                             void *stream)
{
    if (d->width <= 0 || d->height <= 0 || d->kx < 1 || d->ky < 1 || d->kx > GVIS_GAUSS_TILE_TAPS ||
        d->ky > GVIS_GAUSS_TILE_TAPS || !(d->kx & 1) || !(d->ky & 1))
        return cudaErrorInvalidValue;
    // 8-bit gray from the sizes gauss_vtile.cu and gauss_rows.h give: the shared-memory
    // sums of gauss_vtile.cu (13 to 63 taps), then the register-ring kernel of gauss_rows.cu
    // (3 to 15 taps); what they decline (any other case, a horizontal tap of 256, an image
    // lower than the kernel, a misaligned buffer) runs in the tile kernel below, which
    // takes every case
    const int vt = gvis_cu_gauss_vtile(d_src, spitch, d_dst, dpitch, d, stream);
    if (vt != GVIS_VT_DECLINED)
        return vt;
    const int rows = gvis_cu_gauss_rows(d_src, spitch, d_dst, dpitch, d, stream);
    if (rows != GAUSS_ROWS_DECLINED)
        return rows;
    gauss_params q;
    q.src = (const unsigned char *)d_src;
    q.spitch = spitch;
    q.dst = (unsigned char *)d_dst;
    q.dpitch = dpitch;
    cudaStream_t st = (cudaStream_t)stream;
    switch (d->bytes) {
    case 1:
        return gauss_launch_t<uint8_t>(q, d, st);
    case 2:
        return gauss_launch_t<uint16_t>(q, d, st);
    case 4:
        return gauss_launch_t<float>(q, d, st);
    }
    return cudaErrorInvalidValue;
}
#endif
#endif
