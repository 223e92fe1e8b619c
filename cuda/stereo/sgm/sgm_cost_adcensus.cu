// The ad-census cost volume (lib/stereo/sgm.h step 3): for D % 4 == 0, four disparities a
// thread (adc_cost4_kernel); otherwise one thread per (pixel, disparity) of a row, a block
// striding over a row's W x D cells (consecutive threads: consecutive disparities of a
// pixel, so the stores and the right codes they read are contiguous).
// (It was one block per pixel: 466k blocks of 128 threads at 1242x375, 5.3 ms on an H100
// for 60 MB of output; the --aggregate cross pipeline stores this volume.)  The census
// pipeline does not store it (the path kernel computes the same costs on the fly through
// sgm_cost_adcensus.cuh); this stage defines them on the device for the parity test
// against the CPU and for the cross pipeline.
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "sgm_cuda.h"
#include "sgm_cost_adcensus.cuh"

union adc_tab {
    uint8_t v[128];
    uint32_t w[32];
};

#define ADC_THREADS 256
#define ADC_BLOCKS_ROW 64 /* at most, a row */

__global__ void __launch_bounds__(ADC_THREADS) adc_cost_kernel(const uint64_t *cl, const uint64_t *cr,
                                                               const uint8_t *gl, const uint8_t *gr, int W, int H,
                                                               int D, int M, adc_tab t, uint8_t *cost)
{
    __shared__ uint32_t tabw[32];
    // constant indices into the parameter (a loop index made every thread copy the table
    // to its local memory first: 128 bytes a thread, 0.65 ms at 1242x375 D 128 on an H100)
#pragma unroll
    for (int i = 0; i < 32; i++)
        if (threadIdx.x == i)
            tabw[i] = t.w[i];
    __syncthreads();
    const uint8_t *tab = reinterpret_cast<const uint8_t *>(tabw);
    const int y = blockIdx.y;
    const size_t row_cells = (size_t)W * D, row = (size_t)y * W;
    uint8_t *out = cost + (size_t)y * row_cells;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < row_cells; i += gridDim.x * blockDim.x) {
        const int x = (int)(i / (unsigned)D), k = (int)(i - (unsigned)x * D);
        const int xr = min(max(x - M - k, 0), W - 1);
        out[i] = (uint8_t)gvis_adc_cost((uint32_t)__popcll(__ldg(cl + row + x) ^ __ldg(cr + row + xr)),
                                        __ldg(gl + row + x), __ldg(gr + row + xr), tab);
    }
}

// D % 4 == 0 (the pipeline's D is a multiple of 16): a thread makes 4 consecutive
// disparities of one pixel (one 32-bit store), D / 4 threads a pixel, the block's pixels
// of a row in turn: no division, 4 cells a thread and pass.
__global__ void __launch_bounds__(ADC_THREADS) adc_cost4_kernel(const uint64_t *cl, const uint64_t *cr,
                                                                const uint8_t *gl, const uint8_t *gr, int W, int D,
                                                                int M, int px_per_block, adc_tab t, uint8_t *cost)
{
    __shared__ uint32_t tabw[32];
#pragma unroll
    for (int i = 0; i < 32; i++)
        if (threadIdx.x == i)
            tabw[i] = t.w[i];
    __syncthreads();
    const uint8_t *tab = reinterpret_cast<const uint8_t *>(tabw);
    const int tp = D / 4, ppi = ADC_THREADS / tp; /* threads a pixel, pixels a pass */
    const int sub = threadIdx.x / tp, k = (threadIdx.x - sub * tp) * 4;
    if (sub >= ppi)
        return;
    const int y = blockIdx.y, xa = blockIdx.x * px_per_block, xb = min(xa + px_per_block, W);
    const size_t row = (size_t)y * W;
    for (int x = xa + sub; x < xb; x += ppi) {
        const uint64_t l = __ldg(cl + row + x);
        const int g = __ldg(gl + row + x);
        uint32_t v = 0;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int xr = min(max(x - M - k - j, 0), W - 1);
            v |= gvis_adc_cost((uint32_t)__popcll(l ^ __ldg(cr + row + xr)), g, __ldg(gr + row + xr), tab) << (8 * j);
        }
        *reinterpret_cast<uint32_t *>(cost + (row + x) * D + k) = v;
    }
}

extern "C" int gvis_cu_sgm_cost_adcensus(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_gl,
                                         const uint8_t *d_gr, int width, int height, int D, int min_disp,
                                         const uint8_t luts[128], uint8_t *d_cost, void *stream)
{
    if (width <= 0 || height <= 0 || height > 65535 || D < 1 || D > 512 || !luts ||
        (size_t)width * D > 0x7fffffffu) /* a row's cells: 32-bit indices */
        return (int)cudaErrorInvalidValue;
    adc_tab t;
    memcpy(t.v, luts, sizeof t.v);
    if (D % 4 == 0 && ((uintptr_t)d_cost & 3) == 0) {
        const int ppi = ADC_THREADS / (D / 4), per_block = ppi * 8;
        const unsigned bx = (unsigned)((width + per_block - 1) / per_block);
        adc_cost4_kernel<<<dim3(bx, (unsigned)height), ADC_THREADS, 0, (cudaStream_t)stream>>>(
            d_cl, d_cr, d_gl, d_gr, width, D, min_disp, per_block, t, d_cost);
        return (int)cudaGetLastError();
    }
    const size_t row_cells = (size_t)width * D, want = (row_cells + ADC_THREADS - 1) / ADC_THREADS;
    const unsigned bx = (unsigned)(want < ADC_BLOCKS_ROW ? want : ADC_BLOCKS_ROW);
    adc_cost_kernel<<<dim3(bx, (unsigned)height), ADC_THREADS, 0, (cudaStream_t)stream>>>(
        d_cl, d_cr, d_gl, d_gr, width, height, D, min_disp, t, d_cost);
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
