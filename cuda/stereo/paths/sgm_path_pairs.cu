// SGM path aggregation (lib/stereo/sgm.h step 4) over the costs of gvis_cu_sgm_cost_pairs,
// into one u8 volume a direction (for gvis_cu_sgm_wta): sgm_path.cu's kernel with the
// costs read (one 16-bit load a pair of disparities) instead of computed from the census
// codes at every step of every direction, i.e. 8 times a cost with 8 paths.  For
// 64 < D <= 128 the lanes hold runs of 16 disparities (sgm_path_run.cuh, pp_run); otherwise
// the walk, the lanes a line (path_lanes; the narrow layout for any census: the codes are
// not read) and the launch are sgm_path.cu's.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sgm_cuda.h"
#include "sgm_path_run.cuh"

template <int NB, int SV>
static void pp_launch_k(int D, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (D == 64 * NB)
        path_kernel_il<NB, 32, SV, false, true, false, false, false, true><<<grid, block, 0, s>>>(a);
    else
        path_kernel_il<NB, 32, SV, false, false, false, false, false, true><<<grid, block, 0, s>>>(a);
}

template <int NB>
static void pp_launch_lanes(int D, int sv, dim3 grid, dim3 block, cudaStream_t s, const path_args &a)
{
    if (sv < 32)
        pp_launch_k<NB, NARROW_LANES(NB)>(D, grid, block, s, a);
    else
        pp_launch_k<NB, 32>(D, grid, block, s, a);
}

// The L2 prefetch distance in steps (0: none); GVIS_SGM_PF overrides it (a tuning knob).
// On an H100 4 steps ahead made the small images 10-13 % faster (1242x375: 1.00-1.03 against
// 1.15-1.18 ms) and the large ones 1-2 % slower (1080p 3.81 against 3.75, 4K per path 13.89
// against 13.78); the pipeline takes this stage at the
// large sizes only (gvis_sgm_cuda_costvol).
static int pp_prefetch(void)
{
    const char *e = getenv("GVIS_SGM_PF");
    return e && *e ? atoi(e) : 0;
}

// The run layout for 64 < D <= 128 (sgm_path_run.cuh) unless GVIS_SGM_PAIRS_RUN=0, which
// keeps path_kernel_il's interleaved lanes (to time the two).  On an H100 at 1920x1080,
// D = 128, 8 paths, the run layout took 3.06 ms against 3.59 (the path kernel 2.06 against
// 2.92 ms, 0.62 G instructions against 1.48); at D = 64 (4 lanes a line, 8 lines a warp) it
// lost (2.56 against 2.31) and at D = 256 (16 lanes) it tied (docs/notes-sgm-gpu.md, "A lane
// a run").
static bool pp_run(void)
{
    const char *e = getenv("GVIS_SGM_PAIRS_RUN");
    return !(e && *e == '0');
}

// The pairs a lane of the rows in the run layout (sgm_path_run.cuh): 8 as the other
// directions (8 lanes a row), 4 (16 lanes) or 2 (32 lanes).  The rows of an image wider than
// tall are its longest walks and finish last, so shortening a row's step shortens the launch
// where that tail is most of it, and costs instructions where the launch has work enough to
// fill the GPU without it.  On an H100 (132 multiprocessors): 4 pairs made 1920x1080 D 128
// 2.96 ms against 3.06, 1242x375 and 1024x440 6-9 % faster, and 3840x2160 per path slower
// (11.25 against 10.73): taken up to 12 rows a multiprocessor (1,584 on an H100).  2 pairs,
// with the prefetch (call 32): 1242x375 0.645 ms against 0.700, 1024x440 with 4 paths 0.481
// against 0.511, 1280x720 1.22 against 1.26; slower at 1920x1080 (2.78 against 2.55),
// 1920x800 (1.94 against 1.93) and 640x480 (0.57 against 0.49, whose rows are short): taken
// up to 6 rows a multiprocessor (792) where the image is at least 1.5 times as wide as tall.
// GVIS_SGM_RUN_ROWS4=0, 1 or 2 forces 8, 4 or 2.
static int pp_row_pairs(int width, int height)
{
    const char *e = getenv("GVIS_SGM_RUN_ROWS4");
    if (e && *e)
        return *e == '2' ? 2 : *e == '1' ? 4 : 8;
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || height > 12 * sms)
        return 8;
    return height <= 6 * sms && 2LL * width >= 3LL * height ? 2 : 4;
}

// How many steps ahead the rows of fewer pairs a lane prefetch their costs into L2
// (sgm_path_run.cuh, run_walk); GVIS_SGM_RUN_PF overrides it (0: none).  Their load a step
// ahead was not early enough: on an H100 3 steps made 1920x1080 D 128 2.54 ms against 2.77,
// 1242x375 0.70 against 0.91 (4 pairs, both through the cost volume; 2 steps 0.74, 4-8
// within 2 % of 3); with 2 pairs 5 steps, 1242x375 0.645 against 0.678 with 3.  The other
// directions prefetching too made 1080p slower again (2.75), and 4K per path (rows of 8
// pairs) lost with any prefetch (docs/notes-sgm-gpu.md, "The rows' costs prefetched").
static int pp_run_prefetch(int row_pairs)
{
    const char *e = getenv("GVIS_SGM_RUN_PF");
    return e && *e ? atoi(e) : row_pairs == 2 ? 5 : 3;
}

template <bool FULL>
static void pp_run_launch(int rp, dim3 grid, cudaStream_t s, const run_args &r)
{
    if (rp == 2)
        run_kernel<FULL, 2><<<grid, WARPS * 32, 0, s>>>(r);
    else if (rp == 4)
        run_kernel<FULL, 4><<<grid, WARPS * 32, 0, s>>>(r);
    else
        run_kernel<FULL, 8><<<grid, WARPS * 32, 0, s>>>(r);
}

extern "C" int gvis_cu_sgm_path_pairs(const uint16_t *d_cost, const uint8_t *d_guide, int width, int height, int D,
                                      int p1, int p2, int p2_adapt, int dir, int ndirs, uint8_t *d_lr, void *stream)
{
    if (width <= 0 || height <= 0 || D < 16 || D > 512 || D % 16 || dir < 0 || ndirs < 1 || dir + ndirs > 8 ||
        !d_cost || !d_guide || !d_lr)
        return (int)cudaErrorInvalidValue;
    path_args a = path_args_common(nullptr, nullptr, d_guide, nullptr, nullptr, width, height, D, 0, p1, p2, p2_adapt);
    a.vol = (size_t)width * height * D;
    a.lr = d_lr;
    a.cost = d_cost;
    a.cw = (D + 63) / 64 * 32;
    a.cy0 = 0;
    a.cy1 = height;
    a.pf = pp_prefetch();
    cudaStream_t s = (cudaStream_t)stream;
    if (D > 64 && D <= 128 && pp_run()) {
        // the run layout (sgm_path_run.cuh): 8 lanes a line, 16 disparities a lane
        const int rp = pp_row_pairs(width, height);
        const run_args r = {a.cost, a.guide, width, height, D, p1, p2, p2_adapt, dir, a.lr, a.vol,
                            pp_run_prefetch(rp), 0, height, nullptr}; // (y0, y1, state: STRIP only)
        long long blocks = 0; // the most of the launch's directions
        for (int i = dir; i < dir + ndirs; i++) {
            const long long k = i < 2 ? height : i < 4 ? width : (long long)width + height - 1;
            // a warp walks P / 2 lines of P pairs a lane (64 / P lanes a line)
            const long long per = (long long)WARPS * (i < 2 ? rp : 8) / 2, b = (k + per - 1) / per;
            blocks = b > blocks ? b : blocks;
        }
        const dim3 grid((unsigned)blocks, ndirs);
        if (D == 128)
            pp_run_launch<true>(rp, grid, s, r);
        else
            pp_run_launch<false>(rp, grid, s, r);
        return (int)cudaGetLastError();
    }
    int sv;
    const dim3 grid = path_grid(width, height, D, dir, ndirs, true, sv), block(WARPS * 32);
    a.dir0 = dir;
    for (int i = 0; i < ndirs; i++)
        a.dirs[i] = dir + i;
    if (D <= 64)
        pp_launch_lanes<1>(D, sv, grid, block, s, a);
    else if (D <= 128)
        pp_launch_lanes<2>(D, sv, grid, block, s, a);
    else if (D <= 256)
        pp_launch_lanes<4>(D, sv, grid, block, s, a);
    else
        pp_launch_lanes<8>(D, sv, grid, block, s, a);
    return (int)cudaGetLastError();
}
