// SGM left-right consistency check (lib/stereo/sgm.h step 7), out of place.
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"

__device__ __forceinline__ int round16(int v)
{
    v += 8;
    return v >= 0 ? v / 16 : -((-v + 15) / 16);
}

__global__ void lrcheck_kernel(const int16_t *left, const int16_t *right, int16_t *left_out, int16_t *right_out,
                               int width, int height, int16_t inv, int tol)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= width)
        return;
    const size_t row = (size_t)y * width;
    const int v = left[row + x];
    int keep = 0;
    if (v != inv) {
        const int xr = x - round16(v);
        if (xr >= 0 && xr < width && right[row + xr] != inv)
            keep = abs(v - right[row + xr]) <= tol;
    }
    left_out[row + x] = keep ? (int16_t)v : inv;
    if (right_out) {
        const int w = right[row + x];
        keep = 0;
        if (w != inv) {
            const int xl = x + round16(w);
            if (xl >= 0 && xl < width && left[row + xl] != inv)
                keep = abs(w - left[row + xl]) <= tol;
        }
        right_out[row + x] = keep ? (int16_t)w : inv;
    }
}

extern "C" int gvis_cu_sgm_lrcheck(const int16_t *d_left, const int16_t *d_right, int16_t *d_left_out,
                                   int16_t *d_right_out, int width, int height, int min_disp, int tolerance,
                                   void *stream)
{
    if (width <= 0 || height <= 0 || tolerance < 0)
        return (int)cudaErrorInvalidValue;
    dim3 block(256), grid((width + 255) / 256, height);
    lrcheck_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(d_left, d_right, d_left_out, d_right_out, width, height,
                                                             (int16_t)(16 * (min_disp - 1)), 16 * tolerance);
    return (int)cudaGetLastError();
}
