// SGM census transform (lib/stereo/sgm.h step 2), 9x7 or centre-symmetric, on u8 or u16.
// A block stages its tile plus the 4x3 apron in shared memory (clamped at the
// image edges), then each thread builds its pixel's code in the order of sgm.h.
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"

#define TX 32
#define TY 8
#define RX 4
#define RY 3

template <typename T>
__global__ void __launch_bounds__(TX *TY) census_kernel(const uint8_t *img, size_t pitch, int width, int height,
                                                         int sym, uint64_t *out, uint8_t *guide)
{
    __shared__ uint16_t tile[TY + 2 * RY][TX + 2 * RX];
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    for (int i = threadIdx.y * TX + threadIdx.x; i < (TY + 2 * RY) * (TX + 2 * RX); i += TX * TY) {
        int ty = i / (TX + 2 * RX), tx = i % (TX + 2 * RX);
        int sy = min(max(y0 + ty - RY, 0), height - 1), sx = min(max(x0 + tx - RX, 0), width - 1);
        tile[ty][tx] = reinterpret_cast<const T *>(img + (size_t)sy * pitch)[sx];
    }
    __syncthreads();
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int cx = threadIdx.x + RX, cy = threadIdx.y + RY;
    const unsigned c = tile[cy][cx];
    uint64_t code = 0;
    if (!sym) {
#pragma unroll
        for (int dy = -RY; dy <= RY; dy++)
#pragma unroll
            for (int dx = -RX; dx <= RX; dx++)
                if (dy != 0 || dx != 0)
                    code = (code << 1) | (uint64_t)(tile[cy + dy][cx + dx] < c);
    } else {
#pragma unroll
        for (int dy = -RY; dy <= 0; dy++)
#pragma unroll
            for (int dx = -RX; dx <= RX; dx++)
                if (dy < 0 || dx < 0)
                    code = (code << 1) | (uint64_t)(tile[cy + dy][cx + dx] >= tile[cy - dy][cx - dx]);
    }
    out[(size_t)y * width + x] = code;
    if (guide)
        guide[(size_t)y * width + x] = (uint8_t)(sizeof(T) == 1 ? c : c >> 8);
}

extern "C" int gvis_cu_sgm_census(const void *d_img, size_t pitch, int bytes, int width, int height, int census,
                                  uint64_t *d_out, uint8_t *d_guide, void *stream)
{
    if (width <= 0 || height <= 0 || (bytes != 1 && bytes != 2))
        return (int)cudaErrorInvalidValue;
    dim3 block(TX, TY), grid((width + TX - 1) / TX, (height + TY - 1) / TY);
    cudaStream_t s = (cudaStream_t)stream;
    if (bytes == 1)
        census_kernel<uint8_t><<<grid, block, 0, s>>>((const uint8_t *)d_img, pitch, width, height, census != 0,
                                                      d_out, d_guide);
    else
        census_kernel<uint16_t><<<grid, block, 0, s>>>((const uint8_t *)d_img, pitch, width, height, census != 0,
                                                       d_out, d_guide);
    return (int)cudaGetLastError();
}
