// One strip of the downward or upward SGM directions into u8 volumes of its rows
// (gvis_cu_sgm_sum_strips' walk; issue 18's 4K row).
//
// The banded sum (sgm_path_band.cu) adds every direction into the u16 sum volume with
// 32-bit reductions, and the L2 reduces about 1 TB/s whatever their width: the six band
// directions' 12.7 GB are most of the 4K row's time (docs/notes-sgm-gpu.md, "16-byte f16
// reductions").  Here the three downward (or upward) directions of rows y0 .. y1 - 1 are
// walked as a band is (lines continuing from the states the strip before left in d_state)
// but each stores its path costs Lr as they are, one byte a disparity, into its own volume
// of the strip's rows: plain stores; gvis_cu_sgm_strip_sum adds the three into the sum with
// one reduction a word, and the winner adds the upward ones as it reads the sum
// (gvis_cu_sgm_wta_strip).
//
// Without reductions the band kernel is bound by its instructions (~158 warp instructions a
// pixel and direction at D = 128: notes-sgm-gpu, "fifteenth session"), so for 64 < D <= 128
// with a cost buffer the strip's costs are made once (gvis_cu_sgm_cost_pairs of its rows)
// and its directions walked over them in the run layout (sgm_path_run.cuh: 8 lanes a line,
// 16 disparities a lane, ~41 instructions a pixel and direction at 1080p).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "sgm_cuda.h"
#include "sgm_path_band.cuh"
#include "sgm_path_run.cuh"

// Whether the strips of 64 < D <= 128 take the run layout; GVIS_SGM_STRIP_RUN=0 walks them
// from the codes (to time the two side by side).
static bool strip_run(void)
{
    const char *e = getenv("GVIS_SGM_STRIP_RUN");
    return !(e && *e == '0');
}

extern "C" size_t gvis_cu_sgm_strip_cost_bytes(int width, int rows, int D)
{
    return D > 64 && D <= 128 && width > 0 && rows > 0 ? (size_t)rows * width * 64 * sizeof(uint16_t) : 0;
}

extern "C" int gvis_cu_sgm_path_strip(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                      const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D,
                                      int min_disp, int census, int p1, int p2, int p2_adapt, int paths, int down,
                                      int y0, int y1, uint8_t *d_strip, size_t vol, uint16_t *d_cost,
                                      uint32_t *d_state, void *stream)
{
    if (!d_strip || !d_state || width <= 0 || height <= 0 || y0 < 0 || y1 > height || y0 >= y1 ||
        (paths != 4 && paths != 8) || D < 16 || D > 256 || D % 16 || (census != 0 && census != 1) ||
        (luts && !d_guide_r && census != 1) || (long long)width + height > 0x7fffffffLL - 64 ||
        vol < (size_t)(y1 - y0) * width * D)
        return (int)cudaErrorInvalidValue;
    const int nv = paths == 8 ? 3 : 1;
    cudaStream_t s = (cudaStream_t)stream;
    if (d_cost && D > 64 && D <= 128 && strip_run()) {
        int e = gvis_cu_sgm_cost_pairs(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, census, y0, y1,
                                       d_cost, stream);
        if (e)
            return e;
        // directions dir0, dir0 + 2, dir0 + 4: (0, 1) (1, 1) (-1, 1) down, (0, -1) (-1, -1) (1, -1) up
        run_args r = {d_cost, d_guide, width, height, D, p1, p2, p2_adapt, down ? 2 : 3, d_strip, vol, 0, y0, y1,
                      d_state};
        // a warp walks 4 lines; the vertical's W, each diagonal's W + rows - 1
        const int lines = width + (nv > 1 ? y1 - y0 - 1 : 0);
        const dim3 grid((lines + 4 * WARPS - 1) / (4 * WARPS), nv);
        if (D == 128)
            run_kernel<true, 8, true><<<grid, WARPS * 32, 0, s>>>(r);
        else
            run_kernel<false, 8, true><<<grid, WARPS * 32, 0, s>>>(r);
        return (int)cudaGetLastError();
    }
    path_args a = path_args_common(d_cl, d_cr, d_guide, d_guide_r, luts, width, height, D, min_disp, p1, p2, p2_adapt);
    a.lr = d_strip;
    a.vol = vol;
    a.state = d_state;
    a.sw = (D + 63) / 64 * 32; // the state slots' words, as the bands' (the sum's stride / 2)
    a.y0 = y0;
    a.y1 = y1;
    for (int i = 0; i < nv; i++)
        a.dirs[i] = (down ? 2 : 3) + 2 * i; // the bands' order
    return band_launch<false>(a, nv, census, luts != nullptr, s);
}
