// Refinement step 1 (lib/stereo/refine.c, exactly): each invalid pixel of the left map is
// occluded, or mismatched when some right pixel of its row maps back onto it.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality_cuda.h"
#include "refine.cuh"

__global__ void refine_classify_kernel(const int16_t *left, const int16_t *right, int W, int H, int M, int D,
                                       uint8_t *label)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= W || y >= H)
        return;
    const int16_t inval = (int16_t)(16 * (M - 1));
    const size_t p = (size_t)y * W + x;
    if (left[p] != inval) {
        label[p] = RF_VALID;
        return;
    }
    int cls = RF_OCCLUDED;
    if (right)
        for (int k = 0; k < D; k++) {
            const int d = M + k, xr = x - d;
            if (xr < 0 || xr >= W)
                continue;
            const int w = right[(size_t)y * W + xr];
            if (w != inval && rf_round16(w) == d) {
                cls = RF_MISMATCH;
                break;
            }
        }
    label[p] = (uint8_t)cls;
}

extern "C" int gvis_cu_refine_classify(const int16_t *d_left, const int16_t *d_right, int width, int height,
                                       int min_disp, int D, uint8_t *d_label, void *stream)
{
    if (width <= 0 || height <= 0 || height > 65535 || D < 1 || D > 512 || !d_left || !d_label)
        return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)((width + 127) / 128), (unsigned)height);
    refine_classify_kernel<<<grid, 128, 0, (cudaStream_t)stream>>>(d_left, d_right, width, height, min_disp, D,
                                                                    d_label);
    return (int)cudaGetLastError();
}
