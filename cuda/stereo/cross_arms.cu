// Cross arms of --aggregate cross / --refine (lib/stereo/cross_aggregate.c's rule, exactly):
// one thread per pixel and direction.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality_cuda.h"

#define L1 34
#define L2 17
#define T1 10
#define T2 4

__global__ void cross_arms_kernel(const uint8_t *g, size_t pitch, int W, int H, uint8_t *arms)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, a = threadIdx.y;
    if (x >= W || y >= H)
        return;
    const int dx = a == 0 ? -1 : a == 1 ? 1 : 0, dy = a == 2 ? -1 : a == 3 ? 1 : 0;
    const int c = g[(size_t)y * pitch + x];
    int i = 1, prev = c;
    for (; i <= L1; i++) {
        const int qx = x + i * dx, qy = y + i * dy;
        if (qx < 0 || qx >= W || qy < 0 || qy >= H)
            break;
        const int v = g[(size_t)qy * pitch + qx], d = abs(v - c);
        if (d >= T1 || abs(v - prev) >= T1 || (i > L2 && d >= T2))
            break;
        prev = v;
    }
    arms[((size_t)y * W + x) * 4 + a] = (uint8_t)(i - 1);
}

extern "C" int gvis_cu_cross_arms(const uint8_t *d_guide, size_t pitch, int width, int height, uint8_t *d_arms,
                                  void *stream)
{
    if (width <= 0 || height <= 0 || height > 65535 || pitch < (size_t)width || !d_guide || !d_arms)
        return (int)cudaErrorInvalidValue;
    const dim3 block(64, 4), grid((unsigned)((width + 63) / 64), (unsigned)height);
    cross_arms_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(d_guide, pitch, width, height, d_arms);
    return (int)cudaGetLastError();
}
