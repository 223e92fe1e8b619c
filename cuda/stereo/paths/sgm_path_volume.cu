// SGM step 4 over a given cost volume (the --aggregate cross pipeline: the costs are the
// cross-aggregated volume, not computed from the censuses as in sgm_path.cu): the same
// recurrence (lib/stereo/sgm.h, exactly), with the structure of the tuned census path
// (sgm_path.cu's path_kernel_il, whose comments say why): one warp walks one path line,
// WARPS lines a block, all directions of a range in one launch; a lane holds the
// disparities k = 64 j + lane and k + 32 of pair j in one register (two 16-bit halves,
// DPX instructions), the neighbours k - 1 and k + 1 come by shuffles, the minimum by one
// __reduce_min_sync a step: no block barriers.  The costs are read from the u8 volume,
// PF steps ahead (a horizontal line is 1 to 4K steps long and its reads go to DRAM: one
// step ahead left each step waiting on the load).  The result is added into the u16 sum
// volume (gvis_cu_sgm_path_volume) or stored as the direction's own u8 volume
// (gvis_cu_sgm_path_volume_lr, for gvis_cu_sgm_wta).
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "quality_cuda.h"
#include "sgm_cuda.h"
#include "sgm_path_kernel.cuh" /* line_start, the recurrence (path_step), put_step */

#define PF 4 /* steps of costs in flight ahead of the current one */

struct pv_args {
    const uint8_t *cost, *guide;
    uint8_t p2lut[256];
    int width, height, D, p1;
    int dir0;   // blockIdx.y = i runs direction dir0 + i
    size_t vol; // LR: d_lr + i * vol is direction i's volume
    uint8_t *lr;
    uint32_t *sum; // SUM: sw 32-bit words (pairs of u16) a pixel
    int sw;
    int store; // SUM: 1 stores (the first direction written), 0 adds
};

// The costs of pixel (px, py) for this lane's pairs: k = 64 j + lane low, k + 32 high;
// halves with k >= D read nothing (0).
template <int NP, bool FULL>
__device__ __forceinline__ void pv_load(const uint8_t *cost, int W, int D, int lane, int px, int py, uint32_t (&cc)[NP])
{
    const uint8_t *c = cost + ((size_t)py * W + px) * D + lane;
#pragma unroll
    for (int j = 0; j < NP; j++) {
        uint32_t lo = 0, hi = 0;
        if (FULL || lane + 64 * j < D)
            lo = __ldg(c + 64 * j);
        if (FULL || lane + 64 * j + 32 < D)
            hi = __ldg(c + 64 * j + 32);
        cc[j] = lo | hi << 16;
    }
}

template <int K, bool FULL, bool SUM>
__global__ void __launch_bounds__(WARPS * 32) pv_kernel(pv_args a)
{
    constexpr int NP = K / 2;
    __shared__ uint8_t p2lut[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        p2lut[i] = a.p2lut[i];
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int dir = a.dir0 + blockIdx.y;
    const int rx = c_dirs[dir][0], ry = c_dirs[dir][1];
    const int W = a.width, H = a.height, D = a.D;
    int x, y;
    if (!line_start(blockIdx.x * WARPS + (threadIdx.x >> 5), rx, ry, W, H, x, y))
        return;
    uint8_t *lr = SUM ? nullptr : a.lr + blockIdx.y * a.vol;
    const uint32_t BIG2 = BIG * 0x10001u;
    uint32_t vmask[NP];
    valid_halves<NP, FULL>(D, lane, vmask);
    // the line's length: steps until (x, y) leaves the image
    int steps;
    {
        const int sx = rx > 0 ? W - x : rx < 0 ? x + 1 : 1 << 30;
        const int sy = ry > 0 ? H - y : ry < 0 ? y + 1 : 1 << 30;
        steps = min(sx, sy);
    }
    // ring of the next PF steps' costs and guide values (fully unrolled: registers)
    uint32_t c[PF][NP];
    int g[PF];
#pragma unroll
    for (int s = 0; s < PF; s++) {
        if (s < steps) {
            pv_load<NP, FULL>(a.cost, W, D, lane, x + s * rx, y + s * ry, c[s]);
            g[s] = __ldg(a.guide + (size_t)(y + s * ry) * W + x + s * rx);
        } else {
#pragma unroll
            for (int j = 0; j < NP; j++)
                c[s][j] = 0;
            g[s] = 0;
        }
    }
    uint32_t prev[NP];
#pragma unroll
    for (int j = 0; j < NP; j++)
        prev[j] = BIG2;
    int m = 0, gprev = 0;
    for (int i = 0; i < steps; i++, x += rx, y += ry) {
        const size_t pix = (size_t)y * W + x;
        uint32_t cur[NP];
        if (i == 0)
            first_step<NP, FULL>(c[0], vmask, cur);
        else
            path_step<NP, FULL>(prev, m, c[0], a.p1, p2lut[abs(g[0] - gprev)], vmask, lane, cur);
        gprev = g[0];
        // shift the ring and start the load PF steps ahead
#pragma unroll
        for (int s = 0; s < PF - 1; s++) {
#pragma unroll
            for (int j = 0; j < NP; j++)
                c[s][j] = c[s + 1][j];
            g[s] = g[s + 1];
        }
        if (i + PF < steps) {
            pv_load<NP, FULL>(a.cost, W, D, lane, x + PF * rx, y + PF * ry, c[PF - 1]);
            g[PF - 1] = __ldg(a.guide + (size_t)(y + PF * ry) * W + x + PF * rx);
        }
        const int mn = keep_step<NP>(cur, prev);
        put_step<NP, FULL, SUM>(cur, vmask, a.sum, a.sw, a.store, lr, pix, D, lane);
        m = (int)__reduce_min_sync(0xffffffffu, (unsigned)mn);
    }
}

template <int K, bool SUM>
static void pv_launch_k(int D, dim3 grid, dim3 block, cudaStream_t s, const pv_args &a)
{
    if (D == 32 * K)
        pv_kernel<K, true, SUM><<<grid, block, 0, s>>>(a);
    else
        pv_kernel<K, false, SUM><<<grid, block, 0, s>>>(a);
}

// One launch of directions dir .. dir + ndirs - 1 (K = disparities a lane: D <= 32 K).
template <bool SUM>
static int pv_launch(const uint8_t *d_cost, const uint8_t *d_guide, int W, int H, int D, int p1,
                     const uint8_t p2lut[256], int dir, int ndirs, uint8_t *d_lr, uint32_t *d_sum, int stride,
                     int store, cudaStream_t s)
{
    pv_args a;
    memset(&a, 0, sizeof a);
    a.cost = d_cost;
    a.guide = d_guide;
    memcpy(a.p2lut, p2lut, 256);
    a.width = W;
    a.height = H;
    a.D = D;
    a.p1 = p1;
    a.dir0 = dir;
    a.vol = (size_t)W * H * D;
    a.lr = d_lr;
    a.sum = d_sum;
    a.sw = stride / 2;
    a.store = store;
    const long long max_lines = dir + ndirs > 4 ? (long long)W + H - 1 : (W > H ? W : H);
    const long long bx = (max_lines + WARPS - 1) / WARPS;
    if (bx > 0x7fffffffLL)
        return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)bx, (unsigned)ndirs), block(WARPS * 32);
    if (D <= 64)
        pv_launch_k<2, SUM>(D, grid, block, s, a);
    else if (D <= 128)
        pv_launch_k<4, SUM>(D, grid, block, s, a);
    else if (D <= 256)
        pv_launch_k<8, SUM>(D, grid, block, s, a);
    else
        pv_launch_k<16, SUM>(D, grid, block, s, a);
    return (int)cudaGetLastError();
}

static int pv_check(const uint8_t *d_cost, const uint8_t *d_guide, int width, int height, int D, int p1,
                    const uint8_t *p2lut)
{
    if (width <= 0 || height <= 0 || D < 1 || D > 512 || p1 < 0 || p1 > 255 || !d_cost || !d_guide || !p2lut)
        return (int)cudaErrorInvalidValue;
    return (int)cudaSuccess;
}

extern "C" int gvis_cu_sgm_path_volume(const uint8_t *d_cost, const uint8_t *d_guide, int width, int height, int D,
                                       int p1, const uint8_t p2lut[256], int paths, uint16_t *d_sum, int stride,
                                       void *stream)
{
    int e = pv_check(d_cost, d_guide, width, height, D, p1, p2lut);
    if (e || (paths != 4 && paths != 8) || stride < (D + 63) / 64 * 64 || stride % 64 || !d_sum)
        return e ? e : (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    uint32_t *sum = reinterpret_cast<uint32_t *>(d_sum);
    if (stride == (D + 63) / 64 * 64) {
        // the last direction stores every word of every pixel (no memset), the others add
        // in one launch; the stream orders the two (sgm_path.cu's gvis_cu_sgm_path_sum)
        e = pv_launch<true>(d_cost, d_guide, width, height, D, p1, p2lut, paths - 1, 1, nullptr, sum, stride, 1, s);
        if (e)
            return e;
        return pv_launch<true>(d_cost, d_guide, width, height, D, p1, p2lut, 0, paths - 1, nullptr, sum, stride, 0, s);
    }
    cudaError_t ce = cudaMemsetAsync(d_sum, 0, (size_t)width * height * stride * sizeof(uint16_t), s);
    if (ce != cudaSuccess)
        return (int)ce;
    return pv_launch<true>(d_cost, d_guide, width, height, D, p1, p2lut, 0, paths, nullptr, sum, stride, 0, s);
}

extern "C" int gvis_cu_sgm_path_volume_lr(const uint8_t *d_cost, const uint8_t *d_guide, int width, int height, int D,
                                          int p1, const uint8_t p2lut[256], int dir, int ndirs, uint8_t *d_lr,
                                          void *stream)
{
    int e = pv_check(d_cost, d_guide, width, height, D, p1, p2lut);
    if (e || dir < 0 || ndirs < 1 || dir + ndirs > 8 || !d_lr)
        return e ? e : (int)cudaErrorInvalidValue;
    return pv_launch<false>(d_cost, d_guide, width, height, D, p1, p2lut, dir, ndirs, d_lr, nullptr, 0, 0,
                            (cudaStream_t)stream);
}
