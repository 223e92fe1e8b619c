// SGM path aggregation (lib/stereo/sgm.h step 4), one or several directions per launch.
//
// A warp (or, for the vertical and diagonal lines of a big enough launch with the symmetric
// census, 16 or 8 lanes of it: path_lanes) walks one path line, holding the D disparities of the current pixel in
// its lanes' registers (pairs of 16-bit values, interleaved across the lanes: see
// sgm_path_kernel.cuh).  A step needs the neighbours k-1 and k+1 of the previous pixel
// (shuffles) and the previous minimum, which the previous step reduced over the line's
// lanes.  Costs come straight from the census codes (no
// cost volume), the next pixel's loaded one step ahead.  The result goes either to the
// direction's own u8 volume (gvis_cu_sgm_path, for the per-direction parity checks) or
// is added into one u16 sum volume shared by all directions (gvis_cu_sgm_path_sum: see
// the SUM comment in path_kernel_il).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sgm_cuda.h"
#include "sgm_path_kernel.cuh"

template <int NB, int SV, bool NARROW, bool ADC, bool SUM>
static void launch_k(int D, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (D == 64 * NB)
        path_kernel_il<NB, 32, SV, NARROW, true, ADC, SUM, false><<<grid, block, 0, s>>>(a);
    else
        path_kernel_il<NB, 32, SV, NARROW, false, ADC, SUM, false><<<grid, block, 0, s>>>(a);
}

// NB blocks of 64 disparities (D <= 64 NB), sv lanes a line of the vertical and diagonal
// directions (path_lanes: 32 or NARROW_LANES(NB); the horizontal ones: 32).
template <int NB, bool NARROW, bool ADC, bool SUM>
static void launch_lanes(int D, int sv, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (sv < 32)
        launch_k<NB, NARROW_LANES(NB), NARROW, ADC, SUM>(D, grid, block, s, a);
    else
        launch_k<NB, 32, NARROW, ADC, SUM>(D, grid, block, s, a);
}

template <bool NARROW, bool ADC, bool SUM>
static void launch_pairs(int D, int sv, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (D <= 64)
        launch_lanes<1, NARROW, ADC, SUM>(D, sv, grid, block, s, a);
    else if (D <= 128)
        launch_lanes<2, NARROW, ADC, SUM>(D, sv, grid, block, s, a);
    else if (D <= 256)
        launch_lanes<4, NARROW, ADC, SUM>(D, sv, grid, block, s, a);
    else
        launch_lanes<8, NARROW, ADC, SUM>(D, sv, grid, block, s, a);
}

template <bool SUM>
static void launch_cost(int census, bool adc, int D, int sv, dim3 grid, dim3 block, cudaStream_t s,
                        const path_args &a)
{
    if (census == 1)
        adc ? launch_pairs<true, true, SUM>(D, sv, grid, block, s, a)
            : launch_pairs<true, false, SUM>(D, sv, grid, block, s, a);
    else
        adc ? launch_pairs<false, true, SUM>(D, sv, grid, block, s, a)
            : launch_pairs<false, false, SUM>(D, sv, grid, block, s, a);
}

extern "C" int gvis_cu_sgm_path(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, int width,
                                int height, int D, int min_disp, int census, int p1, int p2, int p2_adapt, int dir,
                                int ndirs, uint8_t *d_lr, void *stream)
{
    return gvis_cu_sgm_path_cost(d_cl, d_cr, d_guide, NULL, NULL, width, height, D, min_disp, census, p1, p2, p2_adapt,
                                 dir, ndirs, d_lr, stream);
}

static int path_launch(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, const uint8_t *d_guide_r,
                       const uint8_t *luts, int width, int height, int D, int min_disp, int census, int p1, int p2,
                       int p2_adapt, int dir, int ndirs, uint8_t *d_lr, uint32_t *d_sum, int stride, int store,
                       void *stream)
{
    if (width <= 0 || height <= 0 || D < 16 || D > 512 || D % 16 || dir < 0 || ndirs < 1 || dir + ndirs > 8 ||
        (census != 0 && census != 1) || (luts && !d_guide_r && census != 1))
        return (int)cudaErrorInvalidValue;
    path_args a = path_args_common(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, p1, p2, p2_adapt);
    a.vol = (size_t)width * height * D;
    a.lr = d_lr;
    a.sum = d_sum;
    a.sw = stride / 2;
    a.store = store;
    int sv;
    const dim3 grid = path_grid(width, height, D, dir, ndirs, census == 1, sv), block(WARPS * 32);
    a.dir0 = dir;
    for (int i = 0; i < ndirs; i++)
        a.dirs[i] = dir + i;
    cudaStream_t s = (cudaStream_t)stream;
    if (d_sum)
        launch_cost<true>(census, luts != nullptr, D, sv, grid, block, s, a);
    else
        launch_cost<false>(census, luts != nullptr, D, sv, grid, block, s, a);
    return (int)cudaGetLastError();
}

extern "C" int gvis_cu_sgm_path_cost(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                     const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D,
                                     int min_disp, int census, int p1, int p2, int p2_adapt, int dir, int ndirs,
                                     uint8_t *d_lr, void *stream)
{
    if (!d_lr)
        return (int)cudaErrorInvalidValue;
    return path_launch(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2, p2_adapt, dir,
                       ndirs, d_lr, nullptr, 0, 0, stream);
}

extern "C" int gvis_cu_sgm_path_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                    const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D,
                                    int min_disp, int census, int p1, int p2, int p2_adapt, int dir, int ndirs, int add,
                                    uint16_t *d_sum, int stride, void *stream)
{
    // the kernel's words: pair j of lane l at word 32 j + l, j < ceil(D / 64)
    if (!d_sum || stride % 64 || stride < (D + 63) / 64 * 64 || width <= 0 || height <= 0)
        return (int)cudaErrorInvalidValue;
    uint32_t *sum = reinterpret_cast<uint32_t *>(d_sum);
    if (!add && stride == (D + 63) / 64 * 64) {
        // The last direction of the range alone first, stored: its lines cover every
        // pixel once and it writes every word of each (halves k >= D as 0), which is
        // the memset's work done by a direction that had to write anyway (2 bytes a
        // value instead of a 2-byte memset plus a 4-byte read-modify-write).  Then the
        // others add; the stream orders the two launches.  The last direction is a
        // diagonal with 8 paths (W + H - 1 lines of at most min(W, H) steps: the most
        // parallel of the walks) and the vertical (0, -1) with 4.
        const int last = dir + ndirs - 1;
        int e = path_launch(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2,
                            p2_adapt, last, 1, nullptr, sum, stride, 1, stream);
        if (e || ndirs == 1)
            return e;
        return path_launch(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2, p2_adapt,
                           dir, ndirs - 1, nullptr, sum, stride, 0, stream);
    }
    if (!add) {
        cudaError_t e = cudaMemsetAsync(d_sum, 0, (size_t)width * height * stride * sizeof(uint16_t),
                                        (cudaStream_t)stream);
        if (e != cudaSuccess)
            return (int)e;
    }
    return path_launch(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2, p2_adapt, dir,
                       ndirs, nullptr, sum, stride, 0, stream);
}
