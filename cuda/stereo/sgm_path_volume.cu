// SGM step 4 over a given cost volume (the --aggregate cross pipeline: the costs are the
// cross-aggregated volume, not computed from the censuses as in sgm_path.cu): the same
// recurrence (lib/stereo/sgm.h, exactly), one block per path line, one thread per
// disparity, every direction added into the u16 sum volume of gvis_cu_sgm_path_sum's
// layout (zeroed first), one launch per direction.  Simple, not tuned.
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"
#include "quality_cuda.h"

struct p2_tab {
    uint8_t v[256];
};

__constant__ int pv_dirs[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {-1, 1}, {1, -1}};

__global__ void path_volume_kernel(const uint8_t *cost, const uint8_t *guide, int W, int H, int D, int p1, p2_tab t,
                                   int dir, uint16_t *sum, int stride)
{
    __shared__ uint8_t p2[256];
    __shared__ int prev[512 + 2];
    __shared__ int wmin[16];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        p2[i] = t.v[i];
    const int rx = pv_dirs[dir][0], ry = pv_dirs[dir][1];
    const int line = blockIdx.x;
    int x, y;
    if (ry == 0) {
        x = rx > 0 ? 0 : W - 1;
        y = line;
    } else if (rx == 0) {
        x = line;
        y = ry > 0 ? 0 : H - 1;
    } else if (line < W) {
        x = line;
        y = ry > 0 ? 0 : H - 1;
    } else {
        x = rx > 0 ? 0 : W - 1;
        y = ry > 0 ? line - W + 1 : H - 1 - (line - W + 1);
    }
    const int k = threadIdx.x, lane = k & 31, warp = k >> 5, nw = (blockDim.x + 31) >> 5;
    const int on = k < D;
    const int slot = 64 * (k / 64) + 2 * (k % 32) + (k / 32) % 2;
    int m = 0, first = 1, gprev = 0;
    __syncthreads();
    for (; x >= 0 && x < W && y >= 0 && y < H; x += rx, y += ry) {
        const size_t pix = (size_t)y * W + x;
        const int g = guide[pix];
        int L = 0;
        if (on) {
            const int c = cost[pix * D + k];
            if (first) {
                L = c;
            } else {
                const int P2 = p2[abs(g - gprev)];
                int v = prev[k + 1] - m;
                if (k > 0)
                    v = min(v, prev[k] - m + p1);
                if (k + 1 < D)
                    v = min(v, prev[k + 2] - m + p1);
                L = c + min(v, P2);
            }
        }
        __syncthreads(); /* every thread has read prev */
        if (on) {
            prev[k + 1] = L;
            sum[pix * stride + slot] = (uint16_t)(sum[pix * stride + slot] + L);
        }
        int v = on ? L : 1 << 20;
        for (int o = 16; o > 0; o >>= 1)
            v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
        if (lane == 0)
            wmin[warp] = v;
        __syncthreads();
        m = wmin[0];
        for (int w = 1; w < nw; w++)
            m = min(m, wmin[w]);
        first = 0;
        gprev = g;
    }
}

extern "C" int gvis_cu_sgm_path_volume(const uint8_t *d_cost, const uint8_t *d_guide, int width, int height, int D,
                                       int p1, const uint8_t p2lut[256], int paths, uint16_t *d_sum, int stride,
                                       void *stream)
{
    if (width <= 0 || height <= 0 || D < 1 || D > 512 || (paths != 4 && paths != 8) || stride < D ||
        stride % 64 || !d_cost || !d_guide || !d_sum || !p2lut)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e = cudaMemsetAsync(d_sum, 0, (size_t)width * height * stride * sizeof(uint16_t), s);
    if (e != cudaSuccess)
        return (int)e;
    p2_tab t;
    for (int i = 0; i < 256; i++)
        t.v[i] = p2lut[i];
    const int threads = (D + 31) / 32 * 32;
    for (int dir = 0; dir < paths; dir++) {
        /* lines of gvis_sgm_dirs[dir]: rows, columns, or a diagonal's W + H - 1 */
        const int lines = dir < 2 ? height : dir < 4 ? width : width + height - 1;
        path_volume_kernel<<<(unsigned)lines, threads, 0, s>>>(d_cost, d_guide, width, height, D, p1, t, dir, d_sum,
                                                               stride);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return (int)e;
    }
    return (int)cudaSuccess;
}
