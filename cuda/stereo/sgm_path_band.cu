// SGM path aggregation into the u16 sum volume in bands of rows (issue 18's 4K row).
//
// The whole-image walk (gvis_cu_sgm_path_sum) adds each direction into the 2 GB volume of
// a 4K image at times unrelated to the other directions', so every 32-bit reduction misses
// L2 and is a DRAM read-modify-write (ncu: 31.7 GB for 7 directions, 16.2 ms on an H100).
// Here the horizontal directions still walk whole rows (a line is a row: 2 launches,
// the first stores), and the vertical and diagonal directions walk bands of `band` rows,
// top to bottom for the three downward directions, then bottom to top for the three
// upward ones, one launch a band.  A band of the sum volume (rows x W x stride x 2 bytes)
// that fits in L2 is read from DRAM once and written back once for its 3 directions
// instead of 3 times each.  A line that leaves a band through its last row keeps its
// path costs (the lane registers prev[] of path_kernel_il) in d_state, one slot a line
// (band_slot: its column, or the diagonal's x - y or x + y), and the next band's launch
// takes them up; lines that enter a band through the left or right image edge start
// afresh, as in the whole image.  The same path costs Lr are added as in the whole-image
// walk, so S is the same integer (sgm_path.cu's SUM comment), bit for bit.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sgm_cuda.h"
#include "sgm_path_kernel.cuh"

template <int K, bool NARROW, bool ADC>
static void band_k(int D, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (D == 32 * K)
        path_kernel_il<K, NARROW, true, ADC, true, true><<<grid, block, 0, s>>>(a);
    else
        path_kernel_il<K, NARROW, false, ADC, true, true><<<grid, block, 0, s>>>(a);
}

template <bool NARROW, bool ADC>
static void band_pairs(int D, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (D <= 64)
        band_k<2, NARROW, ADC>(D, grid, block, s, a);
    else if (D <= 128)
        band_k<4, NARROW, ADC>(D, grid, block, s, a);
    else if (D <= 256)
        band_k<8, NARROW, ADC>(D, grid, block, s, a);
    else
        band_k<16, NARROW, ADC>(D, grid, block, s, a);
}

extern "C" size_t gvis_cu_sgm_band_state_bytes(int width, int height, int stride)
{
    if (width <= 0 || height <= 0 || stride <= 0)
        return 0;
    return 3 * ((size_t)width + height - 1) * (size_t)stride * sizeof(uint16_t);
}

// One launch of the band kernel over a.ndirs directions of `lines` lines each.
static int band_launch(const path_args &a, int lines, int census, bool adc, cudaStream_t s)
{
    const dim3 grid((lines + WARPS - 1) / WARPS * a.ndirs), block(WARPS * 32);
    if (census == 1)
        adc ? band_pairs<true, true>(a.D, grid, block, s, a) : band_pairs<true, false>(a.D, grid, block, s, a);
    else
        adc ? band_pairs<false, true>(a.D, grid, block, s, a) : band_pairs<false, false>(a.D, grid, block, s, a);
    return (int)cudaGetLastError();
}

extern "C" int gvis_cu_sgm_path_sum_band(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                         const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D,
                                         int min_disp, int census, int p1, int p2, int p2_adapt, int paths, int band,
                                         uint16_t *d_sum, int stride, uint32_t *d_state, void *stream)
{
    if (!d_sum || !d_state || stride % 64 || stride < (D + 63) / 64 * 64 || width <= 0 || height <= 0 || band < 1 ||
        (paths != 4 && paths != 8) || D < 16 || D > 512 || D % 16 || (census != 0 && census != 1) ||
        (luts && !d_guide_r) || (long long)width + height > 0x7fffffffLL - 64)
        return (int)cudaErrorInvalidValue;
    path_args a;
    memset(&a, 0, sizeof a);
    a.cl = d_cl;
    a.cr = d_cr;
    a.guide = d_guide;
    a.guide_r = d_guide_r;
    if (luts)
        memcpy(a.luts, luts, sizeof a.luts);
    a.width = width;
    a.height = height;
    a.D = D;
    a.min_disp = min_disp;
    a.p1 = p1;
    a.p2 = p2;
    a.p2_adapt = p2_adapt;
    a.sum = reinterpret_cast<uint32_t *>(d_sum);
    a.sw = stride / 2;
    a.store = 0;
    a.state = d_state;
    cudaStream_t s = (cudaStream_t)stream, s2 = s;
    // Every direction adds into a zeroed volume (the memset writes 2 bytes a cell at full
    // bandwidth).  The horizontal directions walk whole rows, both in one launch (2 H
    // warps: one alone, H = 2,160 warps at 4K, filled a third of an H100's warp slots and
    // took 3.1 ms, bound by each warp's step latency).
    // GVIS_SGM_BAND_OVERLAP (being measured): 1 runs them on a second stream beside the
    // bands, 2 the same with their reductions marked to leave L2 first.
    const char *ov = getenv("GVIS_SGM_BAND_OVERLAP");
    const int overlap = ov && *ov ? atoi(ov) : 0;
    cudaEvent_t fork = nullptr, join = nullptr;
    cudaError_t ce = cudaMemsetAsync(d_sum, 0, (size_t)width * height * stride * sizeof(uint16_t), s);
    if (ce == cudaSuccess && overlap > 0) {
        ce = cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
        if (ce == cudaSuccess)
            ce = cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
        if (ce == cudaSuccess)
            ce = cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
        if (ce == cudaSuccess)
            ce = cudaEventRecord(fork, s);
        if (ce == cudaSuccess)
            ce = cudaStreamWaitEvent(s2, fork, 0);
    }
    int e = (int)ce;
    if (!e) {
        a.dirs[0] = 0;
        a.dirs[1] = 1;
        a.ndirs = 2;
        a.y0 = 0;
        a.y1 = height;
        a.evict_first = overlap == 2;
        e = band_launch(a, height, census, luts != nullptr, s2);
        a.evict_first = 0;
    }
    if (!e && overlap > 0)
        e = (int)cudaEventRecord(join, s2);
    const int nv = paths == 8 ? 3 : 1; // (0, 1) (1, 1) (-1, 1) down, (0, -1) (-1, -1) (1, -1) up
    const int nb = (height + band - 1) / band;
    a.ndirs = nv;
    for (int pass = 0; pass < 2 && !e; pass++) {
        static const int down[3] = {2, 4, 6}, up[3] = {3, 5, 7};
        for (int i = 0; i < nv; i++)
            a.dirs[i] = pass ? up[i] : down[i];
        for (int i = 0; i < nb && !e; i++) {
            const int b = pass ? nb - 1 - i : i;
            a.y0 = b * band;
            a.y1 = a.y0 + band < height ? a.y0 + band : height;
            e = band_launch(a, width + (nv > 1 ? a.y1 - a.y0 - 1 : 0), census, luts != nullptr, s);
        }
    }
    if (overlap > 0) {
        if (!e && join)
            e = (int)cudaStreamWaitEvent(s, join, 0);
        if (join)
            cudaEventDestroy(join);
        if (fork)
            cudaEventDestroy(fork);
        if (s2 != s)
            cudaStreamDestroy(s2);
    }
    return e;
}
