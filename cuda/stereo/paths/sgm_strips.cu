// The SGM sum volume in strips, the upward pass fused with the winner (issue 18's 4K row).
//
// The banded sum (sgm_path_band.cu) adds every direction into the u16 sum volume through the
// L2's 32-bit reductions, about 1 TB/s whatever their width, and its band kernel walks from
// the census codes at ~158 warp instructions a pixel and direction: at 3840x2160, D = 128,
// its six band directions took 6.2 ms a pass (ncu) and the command 16.9 ms.  Here, strip by
// strip of `band` rows:
//   - the rows as for the bands: both ways in one launch first (gvis_cu_sgm_rows_sum, where
//     it applies), else (-1, 0) stores every word first, then (1, 0) adds on a third stream
//     beside everything below;
//   - the downward pass from the top: each strip's costs once (gvis_cu_sgm_cost_pairs),
//     its three directions walked over them in the run layout into u8 volumes of the
//     strip (gvis_cu_sgm_path_strip: plain stores, ~41 instructions a pixel and direction),
//     then added into the sum with one reduction a word (gvis_cu_sgm_strip_sum) on a second
//     stream beside the next strip's walk;
//   - the upward pass from the bottom the same way, but never added into the sum: the
//     winner of each strip's rows reads the sum and the strip's volumes together
//     (gvis_cu_sgm_wta_strip), beside the next strip's walk.
// nsets sets of strip volumes rotate; a set's next walk waits for the kernel that read it.
// The sums are the same integers in another order, so the maps are bit-identical to the
// bands' and gvis_cu_sgm_wta_sum's.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "sgm_cuda.h"

#define SETS_MAX 8

extern "C" size_t gvis_cu_sgm_strip_bytes(int width, int band, int D, int paths)
{
    if (width <= 0 || band <= 0 || D <= 0)
        return 0;
    return (size_t)(paths == 8 ? 3 : 1) * band * (size_t)width * D;
}

namespace {

// Whether the downward pass runs in strips too (GVIS_SGM_STRIP_DOWN=1) or in bands (=0, the
// default: measured faster, docs/notes-sgm-gpu.md, "The sum volume in strips, the winner
// fused").
bool strip_down(void)
{
    const char *e = getenv("GVIS_SGM_STRIP_DOWN");
    return e && *e == '1';
}

struct strips {
    cudaStream_t s, s2;
    cudaEvent_t walked[SETS_MAX], read[SETS_MAX];
    int nsets;
    bool two; // a second stream (else everything in turn on s)
};

// One pass of strips: down from the top (reader: the sum) or up from the bottom (reader:
// the winner); walk(down, set, y0, y1, stream) fills the set's volumes of rows y0 .. y1 - 1
// and reader(set, y0, y1, stream) consumes them.
template <class Walk, class Reader>
int pass(strips &st, int height, int band, bool down, int &used, Walk walk, Reader reader)
{
    const int nb = (height + band - 1) / band;
    int e = 0;
    for (int i = 0; i < nb && !e; i++) {
        const int b = down ? i : nb - 1 - i, k = used++ % st.nsets;
        const int y0 = b * band, y1 = y0 + band < height ? y0 + band : height;
        // the set's previous reader is done with it
        if (st.two && used > st.nsets && (e = (int)cudaStreamWaitEvent(st.s, st.read[k], 0)))
            break;
        if ((e = walk(down, k, y0, y1, st.s)))
            break;
        if (st.two &&
            ((e = (int)cudaEventRecord(st.walked[k], st.s)) || (e = (int)cudaStreamWaitEvent(st.s2, st.walked[k], 0))))
            break;
        if ((e = reader(k, y0, y1, st.two ? st.s2 : st.s)))
            break;
        if (st.two && (e = (int)cudaEventRecord(st.read[k], st.s2)))
            break;
    }
    return e;
}

// s waits for what is queued on o (j: an event of its own).
int join(cudaStream_t s, cudaStream_t o, cudaEvent_t j)
{
    cudaError_t e = cudaEventRecord(j, o);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(s, j, 0);
    if (e != cudaSuccess)
        cudaStreamSynchronize(o); // no join in the stream: wait here instead
    return (int)e;
}

} // namespace

extern "C" int gvis_cu_sgm_sum_strips(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                      const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D,
                                      int min_disp, int census, int p1, int p2, int p2_adapt, int paths, int band,
                                      uint16_t *d_sum, int stride, uint32_t *d_state, uint8_t *d_strips, int nsets,
                                      uint16_t *d_cost, int U, int subpixel, int16_t *d_left, int16_t *d_right,
                                      void *stream)
{
    if (!d_sum || !d_state || !d_strips || nsets < 1 || nsets > SETS_MAX || band < 1 || width <= 0 || height <= 0 ||
        (paths != 4 && paths != 8) || stride % 64 || stride < (D + 63) / 64 * 64 || !gvis_cu_sgm_wta_strip_ok(D))
        return (int)cudaErrorInvalidValue;
    if (band > height)
        band = height;
    const size_t vol = (size_t)band * width * D, set = gvis_cu_sgm_strip_bytes(width, band, D, paths);
    const int nv = paths == 8 ? 3 : 1;
    strips st = {};
    st.s = (cudaStream_t)stream;
    st.nsets = nsets;
    cudaStream_t s3 = nullptr;
    cudaEvent_t j2 = nullptr, j3 = nullptr;
    // the sums and winners on a second stream, the (1, 0) rows on a third; without them
    // (a failed create) everything in turn on the caller's
    st.two = cudaStreamCreateWithFlags(&st.s2, cudaStreamNonBlocking) == cudaSuccess &&
             cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking) == cudaSuccess &&
             cudaEventCreateWithFlags(&j2, cudaEventDisableTiming) == cudaSuccess &&
             cudaEventCreateWithFlags(&j3, cudaEventDisableTiming) == cudaSuccess;
    for (int i = 0; i < nsets && st.two; i++)
        st.two = cudaEventCreateWithFlags(&st.walked[i], cudaEventDisableTiming) == cudaSuccess &&
                 cudaEventCreateWithFlags(&st.read[i], cudaEventDisableTiming) == cudaSuccess;
    (void)cudaGetLastError();
    int used = 0, e = 0;
    const bool down = strip_down();
    // the rows and, without the downward strips, the downward pass in bands
    if (!down)
        e = gvis_cu_sgm_path_sum_band(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2,
                                      p2_adapt, paths, band, 1, d_sum, stride, d_state, stream);
    // the rows: both ways in one launch first (sgm_rows.cu), then the downward sums add with
    // plain loads and stores; else (-1, 0) stores every word, then (1, 0) adds (on s3 beside
    // the downward pass, whose sums also add by reductions)
    const bool rows2 = down && gvis_cu_sgm_rows_ok(D, census, stride);
    if (rows2)
        e = gvis_cu_sgm_rows_sum(d_cl, d_cr, d_guide, luts, width, height, D, min_disp, census, p1, p2, p2_adapt, d_sum,
                                 stride, stream);
    if (down && !rows2)
        e = gvis_cu_sgm_path_sum(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2,
                                 p2_adapt, 1, 1, 0, d_sum, stride, stream);
    if (!e && down && st.two && !(e = (int)cudaEventRecord(j3, st.s)) && !(e = (int)cudaStreamWaitEvent(s3, j3, 0)))
        e = (int)cudaStreamWaitEvent(st.s2, j3, 0);
    if (!e && down && !rows2)
        e = gvis_cu_sgm_path_sum(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2,
                                 p2_adapt, 0, 1, 1, d_sum, stride, st.two ? s3 : st.s);
    auto walk = [&](bool dn, int k, int y0, int y1, cudaStream_t s) {
        return gvis_cu_sgm_path_strip(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, p1, p2,
                                      p2_adapt, paths, dn, y0, y1, d_strips + (size_t)k * set, vol, d_cost, d_state, s);
    };
    if (!e && down)
        e = pass(st, height, band, true, used, walk, [&](int k, int y0, int y1, cudaStream_t s) {
            return gvis_cu_sgm_strip_sum(d_sum, stride, d_strips + (size_t)k * set, vol, nv, width, y0, y1, D, rows2,
                                         s);
        });
    // the winner reads whole sums: the downward sums (s2) and the rows (s3) first
    if (!e && st.two && !(e = join(st.s, st.s2, j2)))
        e = join(st.s, s3, j3);
    if (!e && st.two && !(e = (int)cudaEventRecord(j2, st.s)))
        e = (int)cudaStreamWaitEvent(st.s2, j2, 0);
    if (!e)
        e = pass(st, height, band, false, used, walk, [&](int k, int y0, int y1, cudaStream_t s) {
            return gvis_cu_sgm_wta_strip(d_sum, stride, d_strips + (size_t)k * set, vol, nv, width, height, D,
                                         min_disp, U, subpixel, y0, y1, d_left, d_right, s);
        });
    if (st.two) {
        // the caller's stream goes on once every kernel is done, even after an error
        const int j = join(st.s, st.s2, j2), k = join(st.s, s3, j3);
        if (!e)
            e = j ? j : k;
    }
    for (int i = 0; i < SETS_MAX; i++) {
        if (st.walked[i])
            cudaEventDestroy(st.walked[i]);
        if (st.read[i])
            cudaEventDestroy(st.read[i]);
    }
    if (j2)
        cudaEventDestroy(j2);
    if (j3)
        cudaEventDestroy(j3);
    if (st.s2)
        cudaStreamDestroy(st.s2);
    if (s3)
        cudaStreamDestroy(s3);
    return e;
}
