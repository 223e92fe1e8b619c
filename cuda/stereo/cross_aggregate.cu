// Cross-based cost aggregation (lib/stereo/cross_aggregate.c's rule, exactly): each pass
// sums along the first direction's arms (one thread per pixel and disparity, u32 sums and
// the segment lengths), then along the other direction's arms, and rounds the mean.
// Direct sums over at most 69 cells a step, no prefix sums: simple and exact, not yet tuned.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality_cuda.h"

__global__ void cross_first_kernel(const uint8_t *cost, const uint8_t *arms, int W, int H, int D, int vf,
                                   uint32_t *sum, uint32_t *cnt)
{
    const size_t cells = (size_t)W * H * D;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < cells; i += (size_t)gridDim.x * blockDim.x) {
        const size_t pix = i / D;
        const int k = (int)(i % D), x = (int)(pix % W), y = (int)(pix / W);
        const uint8_t *a = arms + pix * 4;
        uint32_t s = 0;
        if (vf) {
            for (int qy = y - a[2]; qy <= y + a[3]; qy++)
                s += cost[((size_t)qy * W + x) * D + k];
            if (k == 0)
                cnt[pix] = (uint32_t)a[2] + a[3] + 1;
        } else {
            const uint8_t *c = cost + ((size_t)y * W) * D + k;
            for (int qx = x - a[0]; qx <= x + a[1]; qx++)
                s += c[(size_t)qx * D];
            if (k == 0)
                cnt[pix] = (uint32_t)a[0] + a[1] + 1;
        }
        sum[i] = s;
    }
}

__global__ void cross_second_kernel(const uint32_t *sum, const uint32_t *cnt, const uint8_t *arms, int W, int H, int D,
                                    int vf, uint8_t *cost)
{
    const size_t cells = (size_t)W * H * D;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < cells; i += (size_t)gridDim.x * blockDim.x) {
        const size_t pix = i / D;
        const int k = (int)(i % D), x = (int)(pix % W), y = (int)(pix / W);
        const uint8_t *a = arms + pix * 4;
        uint64_t s = 0, n = 0;
        if (vf) { /* first direction was vertical: now along the row */
            for (int qx = x - a[0]; qx <= x + a[1]; qx++) {
                const size_t q = (size_t)y * W + qx;
                s += sum[q * D + k];
                n += cnt[q];
            }
        } else {
            for (int qy = y - a[2]; qy <= y + a[3]; qy++) {
                const size_t q = (size_t)qy * W + x;
                s += sum[q * D + k];
                n += cnt[q];
            }
        }
        cost[i] = (uint8_t)((s + n / 2) / n);
    }
}

extern "C" int gvis_cu_cross_aggregate(uint8_t *d_cost, const uint8_t *d_arms, int width, int height, int D, int passes,
                                       uint32_t *d_sum, uint32_t *d_cnt, void *stream)
{
    if (width <= 0 || height <= 0 || D < 1 || D > 512 || passes < 0 || !d_cost || !d_arms || !d_sum || !d_cnt)
        return (int)cudaErrorInvalidValue;
    const size_t cells = (size_t)width * height * D;
    const size_t want = (cells + 255) / 256;
    const unsigned blocks = (unsigned)(want < (1u << 20) ? want : (1u << 20));
    cudaStream_t s = (cudaStream_t)stream;
    for (int p = 0; p < passes; p++) {
        const int vf = p & 1;
        cross_first_kernel<<<blocks, 256, 0, s>>>(d_cost, d_arms, width, height, D, vf, d_sum, d_cnt);
        cross_second_kernel<<<blocks, 256, 0, s>>>(d_sum, d_cnt, d_arms, width, height, D, vf, d_cost);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
    }
    return (int)cudaSuccess;
}
