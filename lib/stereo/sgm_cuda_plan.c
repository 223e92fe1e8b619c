/* The CUDA SGM pipeline's plan, without CUDA: how much device memory it takes and which
 * of its ways it goes (per-path volumes or the one sum volume, bands, the cost volume),
 * from the size and parameters and the environment's overrides (man gvis).  The CUDA calls
 * are in sgm.c (here only gvis_cu_sgm_up_ok, which asks no device, so that the rule for the
 * fused passes is theirs); the measurements behind each rule in docs/notes-sgm-gpu.md. */
#include <stdlib.h>
#include <string.h>

#include "sgm.h"
#ifdef GVIS_HAVE_CUDA
#include "sgm_cuda.h"
#endif

size_t gvis_sgm_cuda_bytes(int width, int height, const gvis_sgm_params *p, int per_path)
{
    size_t n = (size_t)width * height;
    /* censuses, guide, the costs (per path: one byte a path, pixel and disparity, as
     * libSGM; else one u16 sum a pixel and disparity, D padded to 64), four disparity
     * maps, the two grey images (16-bit at most, pitch aside) */
    const size_t vol = per_path ? (size_t)p->paths * n * p->max_disp : n * GVIS_SGM_SUM_STRIDE(p->max_disp) * 2;
    const size_t quality = (p->aggregate == GVIS_AGGREGATE_CROSS ? n * p->max_disp * 3 : 0) /* costs, u16 sums */
                           + (p->aggregate == GVIS_AGGREGATE_CROSS || p->refine
                                  ? n * 9 + 3 * (size_t)((width + 7) / 8) * ((height + 7) / 8) + 352
                                  : 0); /* arms, the vote's list and flags, labels, counts */
    /* the banded sum's line states: 3 directions x (W + H - 1) lines x the stride */
    const size_t state = !per_path && gvis_sgm_cuda_band(width, height, p) > 0
                             ? 3 * ((size_t)width + height - 1) * GVIS_SGM_SUM_STRIDE(p->max_disp) * 2
                             : 0;
    const size_t strips = per_path ? 0 : gvis_sgm_cuda_strip_bytes(width, height, p);
    const size_t costvol = gvis_sgm_cuda_costvol(width, height, p, per_path) ? n * GVIS_SGM_SUM_STRIDE(p->max_disp) : 0;
    return 2 * n * 8 + n + vol + 4 * n * sizeof(int16_t) + 2 * n * 2 +
           (p->cost == GVIS_COST_ADCENSUS ? n : 0) /* the right guide */ + quality + state + strips + costvol;
}

int gvis_sgm_cuda_costvol(int width, int height, const gvis_sgm_params *p, int per_path)
{
    if (!per_path || p->aggregate != GVIS_AGGREGATE_NONE)
        return 0;
    const char *e = getenv("GVIS_SGM_COSTVOL");
    if (e && *e)
        return strcmp(e, "0") != 0;
    /* measured on an H100 (docs/notes-sgm-gpu.md, "The costs once"): 1920x1080 ad-census
     * 3.75 ms against 4.03 from the codes at D = 128, 2.56 against 2.62 at D = 64, the 9x7
     * census 3.83 against 4.75; the census cost alone ties (3.71 against 3.70); the small
     * images (1242x375 and 1024x440 at D = 128: 60 M cells), whose walks are bound by their
     * steps' latency rather than their instructions, lose (1.00 against 0.99 with the L2
     * prefetch, 1.15 without; 0.85 against 0.78) */
    /* With 64 < D <= 128 the walk over the volume holds a run of 16 disparities a lane
     * (cuda/stereo/paths/sgm_path_run.cuh), and the census cost wins too: 1920x1080 3.00 ms against
     * 3.54 from the codes (H100, "A lane a run").  Since its rows prefetch their costs
     * (sgm_path_run.cuh, run_walk) it wins at every size measured: 1242x375 0.70 ms against
     * 0.93 from the codes, 1024x440 with 4 paths 0.52 against 0.69, 640x480 0.50 against
     * 0.85, 320x240 0.18 against 0.34 (H100, docs/notes-sgm-gpu.md, "The rows' costs
     * prefetched") */
    if (p->max_disp > 64 && p->max_disp <= 128)
        return 1;
    return (p->cost == GVIS_COST_ADCENSUS || p->census == GVIS_CENSUS_9X7) &&
           (size_t)width * height * p->max_disp >= GVIS_SGM_COSTVOL_MIN;
}

int gvis_sgm_cuda_band(int width, int height, const gvis_sgm_params *p)
{
    if (p->aggregate != GVIS_AGGREGATE_NONE || width <= 0 || height <= 0)
        return 0; /* the cross pipeline's paths (cuda/stereo/paths/sgm_path_volume.cu) walk whole lines */
    const char *e = getenv("GVIS_SGM_BAND");
    if (e && *e) {
        char *end;
        long v = strtol(e, &end, 10);
        if (*end == 0 && v >= 0)
            return v > height ? height : (int)v;
    }
    const size_t row = (size_t)width * GVIS_SGM_SUM_STRIDE(p->max_disp) * 2;
    size_t rows = GVIS_SGM_BAND_BYTES / row;
    rows = rows < 1 ? 1 : rows;
    return rows > (size_t)height ? height : (int)rows;
}

/* Whether the rows and both fused vertical passes take the sum whole (cuda/stereo/paths:
 * sgm_rows.cu, sgm_down.cu's gvis_cu_sgm_updown_sum): 8 paths where gvis_cu_sgm_up_ok says
 * they run (the symmetric census, 65 to 128 disparities, none of their knobs off), and the
 * downward pass not asked for in strips.  Then no strips: 3840x2160 11.2 ms against 12.2 to
 * 12.5 with the upward strips (H100, docs/notes-sgm-gpu.md, "Both vertical passes fused at
 * once"). */
static int fused_pair(const gvis_sgm_params *p)
{
#ifdef GVIS_HAVE_CUDA
    const char *e = getenv("GVIS_SGM_STRIP_DOWN");
    return p->paths == 8 && gvis_cu_sgm_up_ok(p->max_disp, p->census, GVIS_SGM_SUM_STRIDE(p->max_disp)) &&
           !(e && *e == '1');
#else
    (void)p;
    return 0;
#endif
}

int gvis_sgm_cuda_strips(int width, int height, const gvis_sgm_params *p, int *rows)
{
    const int band = gvis_sgm_cuda_band(width, height, p), D = p->max_disp;
    *rows = 0;
    const char *e = getenv("GVIS_SGM_STRIPS");
    /* D = 128 (the run layout's walk and the thread-a-pixel winner both exist only there):
     * 3840x2160 15.8 ms against 16.9 in bands; D = 64 9.6 against 8.4 and 256 39.2 against
     * 33.6 walked from the codes (H100, docs/notes-sgm-gpu.md, "The sum volume in strips,
     * the winner fused") */
    const int on = e && *e ? strcmp(e, "0") != 0 : D == 128 && !fused_pair(p);
    if (band <= 0 || !on || (D != 64 && D != 128 && D != 256))
        return 0;
    const size_t row = (size_t)width * GVIS_SGM_SUM_STRIDE(D) * 2;
    *rows = (int)(GVIS_SGM_STRIP_BYTES / row > 0 ? GVIS_SGM_STRIP_BYTES / row : 1);
    *rows = *rows > height ? height : *rows;
    if ((e = getenv("GVIS_SGM_STRIP")) && *e) {
        const long v = strtol(e, NULL, 10);
        *rows = v < 1 ? 1 : v > height ? height : (int)v;
    }
    int sets = GVIS_SGM_STRIP_SETS_DEF;
    if ((e = getenv("GVIS_SGM_STRIP_SETS")) && *e) {
        const long v = strtol(e, NULL, 10);
        sets = v < 1 ? 1 : v > 8 ? 8 : (int)v;
    }
    return sets;
}

size_t gvis_sgm_cuda_strip_bytes(int width, int height, const gvis_sgm_params *p)
{
    int rows = 0;
    const int sets = gvis_sgm_cuda_strips(width, height, p, &rows);
    /* and a strip's costs for the run layout: 64 u16 words a pixel, 64 < D <= 128 */
    return (size_t)sets * (p->paths == 8 ? 3 : 1) * rows * width * p->max_disp +
           (sets && p->max_disp > 64 && p->max_disp <= 128 ? (size_t)rows * width * 128 : 0);
}

int gvis_sgm_cuda_per_path(int width, int height, const gvis_sgm_params *p)
{
    const char *e = getenv("GVIS_SGM_PER_PATH");
    if (e && *e)
        return strcmp(e, "0") != 0;
    /* measured on an H100 (BENCHMARKS, 2026-11-25): the per-path volumes are faster at
     * every size (1242x375 1.07 against 1.37 ms, 1920x1080 4.30 against 6.28, 4K 16.0
     * against 22.0), the sum volume takes a quarter of the memory: per path while the
     * whole call stays under GVIS_SGM_PER_PATH_MAX, the sum volume beyond.  The sum in
     * bands (gvis_sgm_cuda_band; H100, 2026-11-26) did not change that: 1920x1080 5.6-5.8 ms
     * against 4.3 per path, 4K 18.9 against 16.0 (22.0 for the whole walks) */
    return gvis_sgm_cuda_bytes(width, height, p, 1) <= GVIS_SGM_PER_PATH_MAX;
}
