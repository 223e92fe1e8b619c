// The ad-census cost volume (lib/stereo/sgm.h step 3): one thread per (pixel, disparity).
// The pipeline does not store this volume (the path kernel computes the same costs on the
// fly through sgm_cost_adcensus.cuh); this stage defines them on the device for the parity
// test against the CPU and for callers that want the volume.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "sgm_cuda.h"
#include "sgm_cost_adcensus.cuh"

struct adc_tab {
    uint8_t v[128];
};

__global__ void adc_cost_kernel(const uint64_t *cl, const uint64_t *cr, const uint8_t *gl, const uint8_t *gr, int W,
                                int H, int D, int M, adc_tab t, uint8_t *cost)
{
    __shared__ uint8_t tab[128];
    for (int i = threadIdx.x; i < 128; i += blockDim.x)
        tab[i] = t.v[i];
    __syncthreads();
    const int k = threadIdx.x, x = blockIdx.x, y = blockIdx.y;
    const size_t pix = (size_t)y * W + x;
    const uint64_t l = cl[pix];
    const int g = gl[pix];
    for (int kk = k; kk < D; kk += blockDim.x) {
        const int xr = min(max(x - M - kk, 0), W - 1);
        const size_t r = (size_t)y * W + xr;
        cost[pix * D + kk] = (uint8_t)gvis_adc_cost((uint32_t)__popcll(l ^ cr[r]), g, gr[r], tab);
    }
}

extern "C" int gvis_cu_sgm_cost_adcensus(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_gl,
                                         const uint8_t *d_gr, int width, int height, int D, int min_disp,
                                         const uint8_t luts[128], uint8_t *d_cost, void *stream)
{
    if (width <= 0 || height <= 0 || height > 65535 || D < 1 || D > 512 || !luts)
        return (int)cudaErrorInvalidValue;
    adc_tab t;
    memcpy(t.v, luts, sizeof t.v);
    const int threads = D < 128 ? (D + 31) / 32 * 32 : 128;
    adc_cost_kernel<<<dim3(width, height), threads, 0, (cudaStream_t)stream>>>(d_cl, d_cr, d_gl, d_gr, width, height,
                                                                              D, min_disp, t, d_cost);
    return (int)cudaGetLastError();
}

// R of step 3: the right guide mapped through a 256-entry table, in place.
struct remap_tab {
    uint8_t v[256];
};

__global__ void remap_kernel(uint8_t *img, size_t n, remap_tab t)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        img[i] = t.v[img[i]];
}

extern "C" int gvis_cu_sgm_remap_u8(uint8_t *d_img, size_t n, const uint8_t lut[256], void *stream)
{
    if (!lut)
        return (int)cudaErrorInvalidValue;
    if (n == 0)
        return (int)cudaSuccess;
    remap_tab t;
    memcpy(t.v, lut, sizeof t.v);
    const size_t blocks = (n + 255) / 256;
    remap_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, (cudaStream_t)stream>>>(d_img, n, t);
    return (int)cudaGetLastError();
}
