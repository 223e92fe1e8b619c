// SGM path aggregation into the u16 sum volume in bands of rows (issue 18's 4K row).
//
// The whole-image walk (gvis_cu_sgm_path_sum) adds each direction into the 2 GB volume of
// a 4K image at times unrelated to the other directions', so every 32-bit reduction misses
// L2 and is a DRAM read-modify-write (ncu: 31.7 GB for 7 directions, 16.2 ms on an H100).
// Here the horizontal directions still walk whole rows (a line is a row: 2 launches,
// the first stores; the second runs on a second stream beside the bands), and the vertical and diagonal directions walk bands of `band` rows,
// top to bottom for the three downward directions, then bottom to top for the three
// upward ones, one launch a band.  The warps of a launch walk its band nearly in step, so
// the 3 directions mostly add into rows still in L2: a row of the volume is read from DRAM
// and written back about once for the 3 (ncu, 4K D = 128: 7.9 GB for the 6 directions of
// the bands against 4 x 6 x 2.1 GB).  A line that leaves a band through its last row keeps its
// path costs (the lane registers prev[] of path_kernel_il) in d_state, one slot a line
// (band_slot: its column, or the diagonal's x - y or x + y), and the next band's launch
// takes them up; lines that enter a band through the left or right image edge start
// afresh, as in the whole image.  The same path costs Lr are added as in the whole-image
// walk, so S is the same integer (sgm_path.cu's SUM comment), bit for bit.  With passes = 1
// the upward directions are left out (sgm_strips.cu walks them in strips).  Where the rows
// walk both ways in one launch (sgm_rows.cu), the downward directions are one fused pass
// instead (sgm_down.cu) wherever its tiles fit on the device at once; d_state then holds its
// ring.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sgm_cuda.h"
#include "sgm_path_band.cuh"

extern "C" size_t gvis_cu_sgm_band_state_bytes(int width, int height, int stride)
{
    if (width <= 0 || height <= 0 || stride <= 0)
        return 0;
    return 3 * ((size_t)width + height - 1) * (size_t)stride * sizeof(uint16_t);
}

static int band_walks(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, const uint8_t *d_guide_r,
                      const uint8_t *luts, int width, int height, int D, int min_disp, int census, int p1, int p2,
                      int p2_adapt, int paths, int band, int pass0, int passes, uint16_t *d_sum, int stride,
                      uint32_t *d_state, cudaStream_t s);

// Whether the (1, 0) rows run on a second stream beside the bands; GVIS_SGM_OVERLAP=0 keeps
// them before the bands on the caller's stream (to time the two).
static bool band_overlap(void)
{
    const char *e = getenv("GVIS_SGM_OVERLAP");
    return !(e && *e == '0');
}

extern "C" int gvis_cu_sgm_path_sum_band(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                         const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D,
                                         int min_disp, int census, int p1, int p2, int p2_adapt, int paths, int band,
                                         int passes, uint16_t *d_sum, int stride, uint32_t *d_state, void *stream)
{
    if (!d_sum || !d_state || stride % 64 || stride < (D + 63) / 64 * 64 || width <= 0 || height <= 0 || band < 1 ||
        (paths != 4 && paths != 8) || (passes != 1 && passes != 2) || D < 16 || D > 512 || D % 16 ||
        (census != 0 && census != 1) ||
        (luts && !d_guide_r && census != 1) || (long long)width + height > 0x7fffffffLL - 64)
        return (int)cudaErrorInvalidValue;
    // the horizontal directions over whole rows, both ways in one launch that stores every
    // word (sgm_rows.cu), then the bands
    if (gvis_cu_sgm_rows_ok(D, census, stride)) {
        int e = gvis_cu_sgm_rows_sum(d_cl, d_cr, d_guide, luts, width, height, D, min_disp, census, p1, p2, p2_adapt,
                                     d_sum, stride, stream);
        if (e)
            return e;
        // the downward directions fused with their sum (sgm_down.cu) where its tiles can
        // all be resident, its ring in d_state; else in bands
        int pass0 = 0;
        // both fused passes at once where they run (8 paths), else in turn
        if (passes == 2 && gvis_cu_sgm_up_ok(D, census, stride)) {
            e = gvis_cu_sgm_updown_sum(d_cl, d_cr, d_guide, luts, width, height, D, min_disp, census, p1, p2, p2_adapt,
                                       paths, d_sum, stride, d_state,
                                       gvis_cu_sgm_band_state_bytes(width, height, stride), stream);
            if (e >= 0)
                return e;
        }
        if (gvis_cu_sgm_down_ok(D, census, stride)) {
            e = gvis_cu_sgm_down_sum(d_cl, d_cr, d_guide, luts, width, height, D, min_disp, census, p1, p2, p2_adapt,
                                     paths, d_sum, stride, d_state, gvis_cu_sgm_band_state_bytes(width, height, stride),
                                     stream);
            if (e > 0)
                return e;
            pass0 = e == 0;
        }
        // and the upward ones the same way
        if (pass0 == 1 && passes == 2 && gvis_cu_sgm_up_ok(D, census, stride)) {
            e = gvis_cu_sgm_up_sum(d_cl, d_cr, d_guide, luts, width, height, D, min_disp, census, p1, p2, p2_adapt,
                                   paths, d_sum, stride, d_state, gvis_cu_sgm_band_state_bytes(width, height, stride),
                                   stream);
            if (e > 0)
                return e;
            pass0 += e == 0;
        }
        return band_walks(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2, p2_adapt,
                          paths, band, pass0, passes, d_sum, stride, d_state, (cudaStream_t)stream);
    }
    // else: (-1, 0) stores every word, then (1, 0) adds,
    // on a second stream beside the band launches where band_overlap() (its 2,160 warps at
    // 4K walk rows of 3,840 steps each, a quarter of the warp slots: alone they leave most
    // of the issue slots idle)
    int e = gvis_cu_sgm_path_sum(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2,
                                 p2_adapt, 1, 1, 0, d_sum, stride, stream);
    if (e)
        return e;
    cudaStream_t s = (cudaStream_t)stream, s2 = nullptr;
    cudaEvent_t ev[2] = {nullptr, nullptr};
    const bool ov = band_overlap() && cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking) == cudaSuccess &&
                    cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming) == cudaSuccess &&
                    cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming) == cudaSuccess &&
                    cudaEventRecord(ev[0], s) == cudaSuccess && cudaStreamWaitEvent(s2, ev[0], 0) == cudaSuccess;
    (void)cudaGetLastError(); // a failed stream or event only means no overlap
    e = gvis_cu_sgm_path_sum(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2,
                             p2_adapt, 0, 1, 1, d_sum, stride, ov ? s2 : s);
    if (!e)
        e = band_walks(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2, p2_adapt,
                       paths, band, 0, passes, d_sum, stride, d_state, s);
    if (ov) {
        // the caller's stream goes on after both (the sums are whole once both are done)
        const cudaError_t j = cudaEventRecord(ev[1], s2);
        const cudaError_t w = j == cudaSuccess ? cudaStreamWaitEvent(s, ev[1], 0) : j;
        if (!e && w != cudaSuccess)
            e = (int)w;
        if (w != cudaSuccess)
            cudaStreamSynchronize(s2); // no join in the stream: wait here instead
    }
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (s2)
        cudaStreamDestroy(s2);
    return e;
}

// The vertical and diagonal directions in bands, on stream s: passes pass0 .. passes - 1 (0
// downwards, 1 upwards).
static int band_walks(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, const uint8_t *d_guide_r,
                      const uint8_t *luts, int width, int height, int D, int min_disp, int census, int p1, int p2,
                      int p2_adapt, int paths, int band, int pass0, int passes, uint16_t *d_sum, int stride,
                      uint32_t *d_state, cudaStream_t s)
{
    int e;
    path_args a = path_args_common(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, p1, p2, p2_adapt);
    a.sum = reinterpret_cast<uint32_t *>(d_sum);
    a.sw = stride / 2;
    a.store = 0;
    a.state = d_state;
    const int nv = paths == 8 ? 3 : 1; // (0, 1) (1, 1) (-1, 1) down, (0, -1) (-1, -1) (1, -1) up
    const int nb = (height + band - 1) / band;
    for (int pass = pass0; pass < passes; pass++) {
        static const int down[3] = {2, 4, 6}, up[3] = {3, 5, 7};
        for (int i = 0; i < nv; i++)
            a.dirs[i] = pass ? up[i] : down[i];
        for (int i = 0; i < nb; i++) {
            const int b = pass ? nb - 1 - i : i;
            a.y0 = b * band;
            a.y1 = a.y0 + band < height ? a.y0 + band : height;
            if ((e = band_launch<true>(a, nv, census, luts != nullptr, s)))
                return e;
        }
    }
    return 0;
}
