// Gaussian blur for kernels wider than the tile kernel of gauss.cu holds (more than
// GVIS_GAUSS_TILE_TAPS taps, up to the 1048575 lib/ allows): two passes through a scratch
// image of vertical sums.  The vertical pass gives each thread one sample column and
// GVIS_GAUSS_WIDE_ROWS rows (their window shares the loads; a warp reads 32 neighbouring
// samples of one row at a time), the horizontal pass one output sample per thread (a
// warp's loads of one tap are neighbouring words).  The taps are the same for all lanes of
// a warp at each step: one broadcast load.  The arithmetic lives in gauss_wide.h, shared
// with the host emulation test, and is the CPU's, so u8 and u16 are bit-identical to it.
#include <cuda_runtime.h>
#include <stdint.h>

#include "gauss.h"
#include "gauss_wide.h"
#include "gvis_cuda.h"

#define WIDE_THREADS 256
#define WIDE_MAX_GRID_Y 65535

#define WIDE_KERNELS(SUFFIX)                                                                                  \
    __global__ void __launch_bounds__(WIDE_THREADS) gauss_wide_vert_##SUFFIX(const gvis_gauss_wide_args a)   \
    {                                                                                                          \
        const int xs = blockIdx.x * WIDE_THREADS + threadIdx.x;                                                \
        if (xs >= a.ws)                                                                                        \
            return;                                                                                            \
        for (int y0 = blockIdx.y * GVIS_GAUSS_WIDE_ROWS; y0 < a.height; y0 += gridDim.y * GVIS_GAUSS_WIDE_ROWS) \
            gvis_gauss_wide_vert_##SUFFIX(&a, xs, y0);                                                         \
    }                                                                                                          \
    __global__ void __launch_bounds__(WIDE_THREADS) gauss_wide_horiz_##SUFFIX(const gvis_gauss_wide_args a)  \
    {                                                                                                          \
        const int xs = blockIdx.x * WIDE_THREADS + threadIdx.x;                                                \
        if (xs >= a.ws)                                                                                        \
            return;                                                                                            \
        for (int y = blockIdx.y; y < a.height; y += gridDim.y)                                                 \
            gvis_gauss_wide_horiz_##SUFFIX(&a, xs, y);                                                         \
    }

WIDE_KERNELS(u8)
WIDE_KERNELS(u16)
WIDE_KERNELS(f32)

extern "C" int gvis_cu_gauss_wide(const void *d_src, size_t spitch, void *d_dst, size_t dpitch, void *d_scratch,
                                  const gvis_gauss_desc *d, void *stream)
{
    if (d->width <= 0 || d->height <= 0 || d->kx < 1 || d->ky < 1 || !(d->kx & 1) || !(d->ky & 1) ||
        (d->channels != 1 && d->channels != 3 && d->channels != 4) || (size_t)d->width * d->channels > 0x7fffffff)
        return cudaErrorInvalidValue;
    cudaStream_t st = (cudaStream_t)stream;
    gvis_gauss_wide_args a;
    a.src = (const unsigned char *)d_src;
    a.spitch = spitch;
    a.dst = (unsigned char *)d_dst;
    a.dpitch = dpitch;
    float *d_taps = (float *)d_scratch;
    size_t taps;
    gvis_gauss_wide_layout(d, &taps, &a.tpitch);
    a.tmp = (unsigned char *)d_scratch + taps;
    a.wx = d_taps;
    a.wy = d_taps + d->kx;
    a.width = d->width;
    a.height = d->height;
    a.channels = d->channels;
    a.ws = d->width * d->channels;
    a.kx = d->kx;
    a.ky = d->ky;
    a.rx = d->kx / 2;
    a.ry = d->ky / 2;
    a.border = d->border;
    a.bval = d->border_value;
    a.outside = gvis_gauss_outside_column(d);
    // pageable sources: the copies are staged before they return, and ordered on the stream
    cudaError_t e = cudaMemcpyAsync(d_taps, d->wx, sizeof(float) * (size_t)d->kx, cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(d_taps + d->kx, d->wy, sizeof(float) * (size_t)d->ky, cudaMemcpyHostToDevice, st);
    if (e != cudaSuccess)
        return e;
    const unsigned gx = (unsigned)((a.ws + WIDE_THREADS - 1) / WIDE_THREADS);
    const int vrows = (d->height + GVIS_GAUSS_WIDE_ROWS - 1) / GVIS_GAUSS_WIDE_ROWS;
    const dim3 gv(gx, (unsigned)(vrows < WIDE_MAX_GRID_Y ? vrows : WIDE_MAX_GRID_Y));
    const dim3 gh(gx, (unsigned)(d->height < WIDE_MAX_GRID_Y ? d->height : WIDE_MAX_GRID_Y));
    switch (d->bytes) {
    case 1:
        gauss_wide_vert_u8<<<gv, WIDE_THREADS, 0, st>>>(a);
        gauss_wide_horiz_u8<<<gh, WIDE_THREADS, 0, st>>>(a);
        break;
    case 2:
        gauss_wide_vert_u16<<<gv, WIDE_THREADS, 0, st>>>(a);
        gauss_wide_horiz_u16<<<gh, WIDE_THREADS, 0, st>>>(a);
        break;
    case 4:
        gauss_wide_vert_f32<<<gv, WIDE_THREADS, 0, st>>>(a);
        gauss_wide_horiz_f32<<<gh, WIDE_THREADS, 0, st>>>(a);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
