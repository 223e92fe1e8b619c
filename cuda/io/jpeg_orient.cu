/* EXIF orientation on the device: one thread per output pixel, gathering from the stored
 * image through the map of jpeg_orient.h.  A 6 MP RGB image moves 36 MB (read + write);
 * the reads of turned orientations are strided, which the L2 absorbs at these sizes. */
#include <cuda_runtime.h>

#include "jpeg_orient.h"

template <int C>
__global__ void orient_kernel(const unsigned char *__restrict__ src, size_t spitch, int sw, int sh, int orient,
                              unsigned char *__restrict__ dst, size_t dpitch, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    int sx, sy;
    gvis_orient_source(orient, x, y, sw, sh, &sx, &sy);
    const unsigned char *s = src + (size_t)sy * spitch + (size_t)sx * C;
    unsigned char *d = dst + (size_t)y * dpitch + (size_t)x * C;
#pragma unroll
    for (int c = 0; c < C; c++)
        d[c] = s[c];
}

extern "C" int gvis_cu_orient(const unsigned char *d_src, size_t spitch, int sw, int sh, int channels, int orient,
                              unsigned char *d_dst, size_t dpitch, void *stream)
{
    if (sw <= 0 || sh <= 0)
        return (int)cudaSuccess;
    int w, h;
    gvis_orient_size(orient, sw, sh, &w, &h);
    dim3 block(32, 8), grid((unsigned)(w + 31) / 32, (unsigned)(h + 7) / 8);
    cudaStream_t s = (cudaStream_t)stream;
    switch (channels) {
    case 1: orient_kernel<1><<<grid, block, 0, s>>>(d_src, spitch, sw, sh, orient, d_dst, dpitch, w, h); break;
    case 2: orient_kernel<2><<<grid, block, 0, s>>>(d_src, spitch, sw, sh, orient, d_dst, dpitch, w, h); break;
    case 3: orient_kernel<3><<<grid, block, 0, s>>>(d_src, spitch, sw, sh, orient, d_dst, dpitch, w, h); break;
    case 4: orient_kernel<4><<<grid, block, 0, s>>>(d_src, spitch, sw, sh, orient, d_dst, dpitch, w, h); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
