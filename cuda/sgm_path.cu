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

extern "C" int gvis_cu_sgm_path(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, int width,
                                int height, int D, int min_disp, int p1, int p2, int p2_adapt, int dir, int ndirs,
                                uint8_t *d_lr, void *stream)
{
    if (width <= 0 || height <= 0 || D < 16 || D > 512 || D % 16 || dir < 0 || ndirs < 1 || dir + ndirs > 8)
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
    else if (D <= 64)
        path_kernel<2><<<grid, block, 0, s>>>(a);
    else if (D <= 128)
        path_kernel<4><<<grid, block, 0, s>>>(a);
    else if (D <= 256)
        path_kernel<8><<<grid, block, 0, s>>>(a);
    else
        path_kernel<16><<<grid, block, 0, s>>>(a);
    return (int)cudaGetLastError();
}
