// SGM path aggregation (lib/sgm.h step 4), one or several directions per launch.
//
// One warp walks one path line; its 32 lanes hold the D disparities of the
// current pixel, K consecutive ones per lane (k = lane * K + i), in registers.  A
// step needs the neighbours k-1 and k+1 of the previous pixel (two shuffles at
// the lane edges) and the previous minimum, which the previous step reduced with
// one warp-wide __reduce_min_sync.  Costs come straight from the census codes (no cost volume);
// the result goes to the direction's own u8 volume, K contiguous bytes per lane.
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"

#define WARPS 4
#define BIG 0x3fff

struct path_args {
    const uint64_t *cl, *cr;
    const uint8_t *guide;
    int width, height, D, min_disp, p1, p2, p2_adapt;
    int dir0;        // blockIdx.y = i runs direction dir0 + i into lr + i * vol
    size_t vol;
    uint8_t *lr;
};

__constant__ int c_dirs[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {-1, 1}, {1, -1}};

template <int K>
__device__ __forceinline__ void store_k(uint8_t *dst, const int (&v)[K])
{
    if (K % 4 == 0) {
#pragma unroll
        for (int i = 0; i < K; i += 4) {
            uint32_t w = (uint32_t)v[i] | (uint32_t)v[i + 1] << 8 | (uint32_t)v[i + 2] << 16 | (uint32_t)v[i + 3] << 24;
            *reinterpret_cast<uint32_t *>(dst + i) = w;
        }
    } else {
#pragma unroll
        for (int i = 0; i < K; i++)
            dst[i] = (uint8_t)v[i];
    }
}

// One disparity a lane (D <= 32).
template <int K>
__global__ void __launch_bounds__(WARPS * 32) path_kernel(path_args a)
{
    __shared__ uint8_t p2lut[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        int v = a.p2_adapt > 0 ? a.p2 * a.p2_adapt / (a.p2_adapt + i) : a.p2;
        p2lut[i] = (uint8_t)(v < a.p1 ? a.p1 : v);
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int line = blockIdx.x * WARPS + (threadIdx.x >> 5);
    const int dir = a.dir0 + blockIdx.y;
    const int rx = c_dirs[dir][0], ry = c_dirs[dir][1];
    const int W = a.width, H = a.height, D = a.D;
    const int lines = ry == 0 ? H : rx == 0 ? W : W + H - 1;
    if (line >= lines)
        return;
    uint8_t *lr = a.lr + blockIdx.y * a.vol;
    // The line's first pixel: its predecessor p - r lies outside the image.
    const int x0 = rx > 0 ? 0 : W - 1, y0 = ry > 0 ? 0 : H - 1;
    int x, y;
    if (ry == 0) {
        x = x0;
        y = line;
    } else if (line < W) {
        x = line;
        y = y0;
    } else {
        x = x0;
        y = ry > 0 ? line - W + 1 : H - 2 - (line - W);
    }
    const bool valid_k0 = lane * K < D; // D is a multiple of 16: a lane's slots are all in or all out
    int prev[K];
#pragma unroll
    for (int i = 0; i < K; i++)
        prev[i] = BIG;
    int m = 0;
    bool first = true;
    int gprev = 0;
    // The costs and guide of the next pixel are loaded one step ahead, so that
    // their memory latency overlaps the current step's arithmetic.
    int c[K], g;
    auto load_step = [&](int px, int py, int (&cc)[K], int &gg) {
        const size_t pix = (size_t)py * W + px;
        const uint64_t l = __ldg(a.cl + pix);
        const uint64_t *crow = a.cr + (size_t)py * W;
        gg = __ldg(a.guide + pix);
#pragma unroll
        for (int i = 0; i < K; i++) {
            int xr = px - a.min_disp - (lane * K + i);
            xr = min(max(xr, 0), W - 1);
            cc[i] = valid_k0 ? __popcll(l ^ __ldg(crow + xr)) : 0;
        }
    };
    load_step(x, y, c, g);
    const int P1 = a.p1;
    while (true) {
        const int nx = x + rx, ny = y + ry;
        const bool more = nx >= 0 && nx < W && ny >= 0 && ny < H;
        int cn[K], gn = 0;
        if (more)
            load_step(nx, ny, cn, gn);
        const size_t pix = (size_t)y * W + x;
        // neighbours of the previous step across lanes
        const int left_nb = __shfl_up_sync(0xffffffffu, prev[K - 1], 1);
        const int right_nb = __shfl_down_sync(0xffffffffu, prev[0], 1);
        const int P2 = first ? 0 : p2lut[abs(g - gprev)];
        int cur[K];
#pragma unroll
        for (int i = 0; i < K; i++) {
            if (first) {
                cur[i] = valid_k0 ? c[i] : BIG;
            } else {
                int lo = i > 0 ? prev[i - 1] : (lane > 0 ? left_nb : BIG);
                int hi = i < K - 1 ? prev[i + 1] : (lane < 31 ? right_nb : BIG);
                int t = min(prev[i] - m, min(min(lo, hi) - m + P1, P2));
                cur[i] = valid_k0 ? c[i] + t : BIG;
            }
        }
        int mn = BIG;
#pragma unroll
        for (int i = 0; i < K; i++) {
            prev[i] = cur[i];
            mn = min(mn, cur[i]);
        }
        if (valid_k0)
            store_k<K>(lr + pix * D + lane * K, cur);
        m = (int)__reduce_min_sync(0xffffffffu, (unsigned)mn); // one instruction on sm_80 and newer
        gprev = g;
        first = false;
        if (!more)
            break;
        x = nx;
        y = ny;
        g = gn;
#pragma unroll
        for (int i = 0; i < K; i++)
            c[i] = cn[i];
    }
}

// The first pixel of line `line` of direction (rx, ry); false past the last line.
__device__ __forceinline__ bool line_start(int line, int rx, int ry, int W, int H, int &x, int &y)
{
    const int lines = ry == 0 ? H : rx == 0 ? W : W + H - 1;
    if (line >= lines)
        return false;
    const int x0 = rx > 0 ? 0 : W - 1, y0 = ry > 0 ? 0 : H - 1;
    if (ry == 0) {
        x = x0;
        y = line;
    } else if (line < W) {
        x = line;
        y = y0;
    } else {
        x = x0;
        y = ry > 0 ? line - W + 1 : H - 2 - (line - W);
    }
    return true;
}

// Two or more disparities a lane (D > 32), packed as pairs of 16-bit values in one
// register, so that the recurrence runs on Hopper's DPX instructions (add.s16x2,
// min.s16x2: two disparities an instruction; emulated, still exact, before sm_90):
//   Lr(k) = C(k) + min(Lr'(k), min(Lr'(k-1), Lr'(k+1)) + P1, m + P2) - m
// which equals lib/sgm.h's rule term by term (every term is >= m, so no half borrows;
// every value stays below 2^15).  Pair j of a lane holds k = lane * K + 2j (low half)
// and k + 1 (high half); the neighbours k - 1 and k + 1 are pairs shifted by one half,
// put together with byte permutes from the adjacent pairs (or the adjacent lanes').
// The Hamming distance of two census codes; NARROW: the centre-symmetric census, whose
// 31 bits sit in the low word.
template <bool NARROW>
__device__ __forceinline__ uint32_t hamming(uint64_t l, uint64_t r)
{
    return NARROW ? __popc((uint32_t)l ^ (uint32_t)r) : __popcll(l ^ r);
}

template <int K, bool NARROW, bool FULL>
__global__ void __launch_bounds__(WARPS * 32) path_kernel_pairs(path_args a)
{
    constexpr int NP = K / 2;
    __shared__ uint8_t p2lut[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        int v = a.p2_adapt > 0 ? a.p2 * a.p2_adapt / (a.p2_adapt + i) : a.p2;
        p2lut[i] = (uint8_t)(v < a.p1 ? a.p1 : v);
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int dir = a.dir0 + blockIdx.y;
    const int rx = c_dirs[dir][0], ry = c_dirs[dir][1];
    const int W = a.width, H = a.height, D = a.D;
    int x, y;
    if (!line_start(blockIdx.x * WARPS + (threadIdx.x >> 5), rx, ry, W, H, x, y))
        return;
    uint8_t *lr = a.lr + blockIdx.y * a.vol;
    // D is a multiple of 16: a lane's slots are all in or all out; FULL: D = 32 K, all in
    const bool valid = FULL || lane * K < D;
    const uint32_t BIG2 = BIG * 0x10001u, P1x2 = (uint32_t)a.p1 * 0x10001u;
    uint32_t prev[NP];
#pragma unroll
    for (int j = 0; j < NP; j++)
        prev[j] = BIG2;
    int m = 0, gprev = 0;
    bool first = true;
    uint32_t c[NP];
    int g;
    auto load_step = [&](int px, int py, uint32_t (&cc)[NP], int &gg) {
        const size_t pix = (size_t)py * W + px;
        const uint64_t l = __ldg(a.cl + pix);
        const uint64_t *crow = a.cr + (size_t)py * W;
        gg = __ldg(a.guide + pix);
        // disparity lane * K + i matches right pixel xr0 - i
        const int xr0 = px - a.min_disp - lane * K;
        if (xr0 - (K - 1) >= 0 && xr0 <= W - 1) {
            // all K inside the row: K contiguous codes, in 16-byte loads when aligned
            // (the same for every lane of the warp: lanes are K codes apart, K even)
            const uint64_t *base = crow + (xr0 - (K - 1));
            uint64_t w[K];
            if ((reinterpret_cast<uintptr_t>(base) & 15) == 0) {
#pragma unroll
                for (int t = 0; t < K / 2; t++) {
                    const ulonglong2 q = __ldg(reinterpret_cast<const ulonglong2 *>(base) + t);
                    w[2 * t] = q.x;
                    w[2 * t + 1] = q.y;
                }
            } else {
#pragma unroll
                for (int t = 0; t < K; t++)
                    w[t] = __ldg(base + t);
            }
#pragma unroll
            for (int j = 0; j < NP; j++)
                cc[j] = hamming<NARROW>(l, w[K - 1 - 2 * j]) | hamming<NARROW>(l, w[K - 2 - 2 * j]) << 16;
        } else {
#pragma unroll
            for (int j = 0; j < NP; j++) {
                const int xa = min(max(xr0 - 2 * j, 0), W - 1), xb = min(max(xr0 - 2 * j - 1, 0), W - 1);
                cc[j] = hamming<NARROW>(l, __ldg(crow + xa)) | hamming<NARROW>(l, __ldg(crow + xb)) << 16;
            }
        }
    };
    if (valid)
        load_step(x, y, c, g);
    else
        g = __ldg(a.guide + (size_t)y * W + x);
    while (true) {
        const int nx = x + rx, ny = y + ry;
        const bool more = nx >= 0 && nx < W && ny >= 0 && ny < H;
        uint32_t cn[NP];
        int gn = 0;
        if (more) {
            if (valid)
                load_step(nx, ny, cn, gn);
            else
                gn = __ldg(a.guide + (size_t)ny * W + nx);
        }
        const size_t pix = (size_t)y * W + x;
        const uint32_t left_nb = __shfl_up_sync(0xffffffffu, prev[NP - 1], 1);
        const uint32_t right_nb = __shfl_down_sync(0xffffffffu, prev[0], 1);
        uint32_t cur[NP];
        if (first) {
#pragma unroll
            for (int j = 0; j < NP; j++)
                cur[j] = valid ? c[j] : BIG2;
        } else {
            const uint32_t m2 = (uint32_t)m * 0x10001u;
            const uint32_t mp2 = (uint32_t)(m + p2lut[abs(g - gprev)]) * 0x10001u;
            const uint32_t before0 = lane > 0 ? left_nb : BIG2, after_last = lane < 31 ? right_nb : BIG2;
#pragma unroll
            for (int j = 0; j < NP; j++) {
                const uint32_t before = j > 0 ? prev[j - 1] : before0;
                const uint32_t after = j < NP - 1 ? prev[j + 1] : after_last;
                const uint32_t lo = __byte_perm(before, prev[j], 0x5432); // (k-1, k)
                const uint32_t hi = __byte_perm(prev[j], after, 0x5432);  // (k+1, k+2)
                const uint32_t t = __vmins2(__viaddmin_s16x2(__vmins2(lo, hi), P1x2, prev[j]), mp2);
                cur[j] = valid ? c[j] + t - m2 : BIG2;
            }
        }
        uint32_t mm = cur[0];
#pragma unroll
        for (int j = 0; j < NP; j++) {
            prev[j] = cur[j];
            mm = __vmins2(mm, cur[j]);
        }
        const int mn = min((int)(mm & 0xffffu), (int)(mm >> 16));
        if (valid) {
            uint8_t *dst = lr + pix * D + lane * K;
            if (NP == 1) {
                *reinterpret_cast<uint16_t *>(dst) = (uint16_t)__byte_perm(cur[0], 0, 0x0020);
            } else {
#pragma unroll
                for (int j = 0; j + 1 < NP; j += 2)
                    *reinterpret_cast<uint32_t *>(dst + 2 * j) = __byte_perm(cur[j], cur[j + 1], 0x6420);
            }
        }
        m = (int)__reduce_min_sync(0xffffffffu, (unsigned)mn);
        gprev = g;
        first = false;
        if (!more)
            break;
        x = nx;
        y = ny;
        g = gn;
#pragma unroll
        for (int j = 0; j < NP; j++)
            c[j] = cn[j];
    }
}

template <int K, bool NARROW>
static void launch_k(int D, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (D == 32 * K)
        path_kernel_pairs<K, NARROW, true><<<grid, block, 0, s>>>(a);
    else
        path_kernel_pairs<K, NARROW, false><<<grid, block, 0, s>>>(a);
}

template <bool NARROW>
static void launch_pairs(int D, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (D <= 64)
        launch_k<2, NARROW>(D, grid, block, s, a);
    else if (D <= 128)
        launch_k<4, NARROW>(D, grid, block, s, a);
    else if (D <= 256)
        launch_k<8, NARROW>(D, grid, block, s, a);
    else
        launch_k<16, NARROW>(D, grid, block, s, a);
}

extern "C" int gvis_cu_sgm_path(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, int width,
                                int height, int D, int min_disp, int census, int p1, int p2, int p2_adapt, int dir,
                                int ndirs, uint8_t *d_lr, void *stream)
{
    if (width <= 0 || height <= 0 || D < 16 || D > 512 || D % 16 || dir < 0 || ndirs < 1 || dir + ndirs > 8 ||
        (census != 0 && census != 1))
        return (int)cudaErrorInvalidValue;
    path_args a;
    a.cl = d_cl;
    a.cr = d_cr;
    a.guide = d_guide;
    a.width = width;
    a.height = height;
    a.D = D;
    a.min_disp = min_disp;
    a.p1 = p1;
    a.p2 = p2;
    a.p2_adapt = p2_adapt;
    a.dir0 = dir;
    a.vol = (size_t)width * height * D;
    a.lr = d_lr;
    // All directions in one launch: many more warps in flight to hide the latency
    // of each line's serial walk.
    const int max_lines = dir + ndirs > 4 ? width + height - 1 : (width > height ? width : height);
    dim3 grid((max_lines + WARPS - 1) / WARPS, ndirs), block(WARPS * 32);
    cudaStream_t s = (cudaStream_t)stream;
    // K = disparities per lane: D <= 32 K (D is a multiple of 16, so a lane's slots are all used or none)
    if (D <= 32)
        path_kernel<1><<<grid, block, 0, s>>>(a);
    else if (census == 1)
        launch_pairs<true>(D, grid, block, s, a);
    else
        launch_pairs<false>(D, grid, block, s, a);
    return (int)cudaGetLastError();
}
