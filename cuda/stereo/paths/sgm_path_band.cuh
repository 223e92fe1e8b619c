// One launch of the vertical and diagonal SGM directions over a band of rows (path_kernel_il
// with BAND), shared by sgm_path_band.cu (SUM: added into the u16 sum volume) and
// sgm_path_strip.cu (not SUM: a u8 volume a direction of the band's rows, the strips the
// winner reads beside the sum).  Internal linkage: each .cu instantiates what it launches.
// Editing this file does not make ninja rebuild those two (README, "Building by hand"):
// touch them.
#ifndef GVIS_SGM_PATH_BAND_CUH
#define GVIS_SGM_PATH_BAND_CUH

#include "sgm_path_kernel.cuh"

namespace {

template <int NB, int S, bool NARROW, bool ADC, bool SUM>
static void band_k(int D, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    grid.x = (grid.x + 32 / S - 1) / (32 / S); // 32 / S lines a warp (no horizontal direction here)
    if (D == 64 * NB)
        path_kernel_il<NB, S, S, NARROW, true, ADC, SUM, true><<<grid, block, 0, s>>>(a);
    else
        path_kernel_il<NB, S, S, NARROW, false, ADC, SUM, true><<<grid, block, 0, s>>>(a);
}

// NB blocks of 64 disparities (D <= 64 NB): 8 lanes a line for D <= 64 with the symmetric
// census (NARROW; path_lanes keeps 32 where the launch would have too few warps), 32
// otherwise, or as GVIS_SGM_LANES asks (path_lanes).  At 3840x2160, D = 64, the 8 lanes
// made the banded sum 22 % faster (8.58 ms against 10.96 on an H100), while at D = 128 16
// lanes made it 7 % slower (18.20 against 17.07; docs/notes-sgm-gpu.md).
template <int NB, bool NARROW, bool ADC, bool SUM>
static void band_lanes(int D, long long lines, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (path_lanes(D, lines, NB == 1 && NARROW) < 32)
        band_k<NB, NARROW_LANES(NB), NARROW, ADC, SUM>(D, grid, block, s, a);
    else
        band_k<NB, 32, NARROW, ADC, SUM>(D, grid, block, s, a);
}

// SUM: any D <= 512; not SUM (the strips): D <= 256, the winner's limit (sgm_wta_tile.cu).
template <bool NARROW, bool ADC, bool SUM>
static void band_pairs(int D, long long lines, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (D <= 64)
        band_lanes<1, NARROW, ADC, SUM>(D, lines, grid, block, s, a);
    else if (D <= 128)
        band_lanes<2, NARROW, ADC, SUM>(D, lines, grid, block, s, a);
    else if (SUM ? D <= 256 : true)
        band_lanes<4, NARROW, ADC, SUM>(D, lines, grid, block, s, a);
    else
        band_lanes<SUM ? 8 : 4, NARROW, ADC, SUM>(D, lines, grid, block, s, a);
}

// The launch of a.dirs[0 .. nv - 1] (nv 1 or 3) over rows a.y0 .. a.y1 - 1 on stream s:
// census 1 the symmetric census (NARROW), luts the ad-census tables (ADC).
template <bool SUM>
static int band_launch(const path_args &a, int nv, int census, bool luts, cudaStream_t s)
{
    const int lines = a.width + (nv > 1 ? a.y1 - a.y0 - 1 : 0);
    const long long all = a.width + (nv > 1 ? 2LL * lines : 0); // the vertical's and the diagonals'
    const dim3 grid((lines + WARPS - 1) / WARPS, nv), block(WARPS * 32);
    if (census == 1)
        luts ? band_pairs<true, true, SUM>(a.D, all, grid, block, s, a)
             : band_pairs<true, false, SUM>(a.D, all, grid, block, s, a);
    else
        luts ? band_pairs<false, true, SUM>(a.D, all, grid, block, s, a)
             : band_pairs<false, false, SUM>(a.D, all, grid, block, s, a);
    return (int)cudaGetLastError();
}

} // namespace

#endif
