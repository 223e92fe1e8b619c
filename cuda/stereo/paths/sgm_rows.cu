// The SGM rows, both directions in one walk: (1, 0) and (-1, 0) of lib/stereo/sgm.h step 4
// into the u16 sum volume, for the banded sum and the strips (issue 18's 4K row).
//
// Before, the rows were two launches from the census codes (path_kernel_il, a warp a row):
// (-1, 0) stored every word, then (1, 0) added with 32-bit reductions beside the bands.  At
// 3840x2160, D = 128, each took ~2.7 ms (ncu): 2,160 walks of 3,840 steps at ~170 warp
// instructions a pixel, a quarter of the warp slots, and the reductions at the L2's ~1 TB/s.
//
// Here one line of lanes walks its row both ways at once, in the run layout of
// sgm_path_run.cuh (lane ln of a line holds words P ln .. P ln + P - 1 of the pixel, the
// costs of a run of P disparities and of the run 32 above), the two walks interleaved in
// each lane (two independent recurrences a step).  Step t visits x = t forwards and
// x = W - 1 - t backwards; the lane that visits a pixel second holds the same words of it
// as the one that visited it first (itself), so the first visit stores its path costs and
// the second loads them, adds its own and stores the sum: plain loads and stores, no
// reductions, and no other thread touches the words.  Steps t < (W - 1) / 2 are first
// visits, steps t > (W - 1) / 2 second ones, and with W odd the middle pixel is visited by
// both walks at the same step (its sum stored once).  A second visit's words are loaded at
// the step before (its first visit was at least a step earlier: W - 1 - t <= t - 1), and
// prefetched into L2 `pf` steps ahead.
//
// The costs come from the symmetric census codes (census 1; with ad-census the right
// guide in bits 32-39 of the right code, gvis_cu_sgm_pack_guide) through a sliding window:
// a lane keeps the right codes of its 2 P disparities in registers, and from one step to
// the next each run's window moves by one code, which comes from the neighbouring run
// (a shuffle a run) or, at the ends (k = 0 forwards, k = 127 backwards), from one load.
// The window is indexed modulo P with the step's phase, so the step loop is unrolled P
// times and no register moves.  The same Lr integers as path_step (run_step's rule), the
// same clamped right pixels as step 3, so the sum is bit-identical to the two launches'.
//
// At 3840x2160, D = 128 on an H100: 3.97-4.19 ms under ncu for both ways (2.1 G warp
// instructions, 6.6 GB), the command 13.84 ms against 15.07 with the two launches (call 98;
// docs/notes-sgm-gpu.md, "The rows both ways in one walk").  Latency bounds it: a step's
// chain of shuffles and minimum with 3.6 warps a scheduler.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "sgm_cuda.h"
#include "sgm_path_run.cuh"

namespace {

using rows_args = codes_sum_args;

// One row's walk both ways, by the L = 64 / P lanes of its line.  The windows are indexed
// with the step's phase PH = t mod P, so that the step loop unrolled P times moves no
// register (moving them, 2 (P - 1) moves a run and way, made the P = 4 launch 4.96 ms
// against 4.28 under ncu, docs/notes-sgm-gpu.md).
template <int P, bool FULL, bool ADC>
struct rows_walk {
    static constexpr int L = run_shape<P>::L, Q = run_shape<P>::Q, KTOP = 127;
    const rows_args &a;
    const run_lane<P, FULL> r;
    const uint8_t *p2lut, *ad;
    const uint64_t *cl, *cr;
    const uint8_t *gd;
    uint32_t *srow;
    int W, md;
    // the windows: [way][run][slot], way 0 forwards, 1 backwards; run 0 k = kb + i, run 1
    // k + 32.  Forwards element i sits in slot (i - t) mod P, backwards in (i + t) mod P
    uint32_t wc[2][2][P];
    int wg[2][2][P];
    uint32_t pv[2][P], old[2][P];
    uint64_t lc[2], nc[2]; // nc: the codes that enter the windows after this step
    int g[2], gp[2], m[2];

    __device__ __forceinline__ rows_walk(const rows_args &a_, int y, const uint8_t *p2lut_, const uint8_t *ad_)
        : a(a_), r(a_.D), p2lut(p2lut_), ad(ad_)
    {
        W = a.width, md = a.min_disp;
        const size_t row = (size_t)y * W;
        cl = a.cl + row, cr = a.cr + row, gd = a.guide + row;
        srow = a.sum + row * a.sw + P * r.ln;
        const int x[2] = {0, W - 1};
#pragma unroll
        for (int w = 0; w < 2; w++) {
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int i = 0; i < P; i++) {
                    const uint64_t c = __ldg(cr + clampx(x[w] - md - (r.kb + i + 32 * h), W));
                    wc[w][h][i] = (uint32_t)c, wg[w][h][i] = (int)(c >> 32);
                }
            lc[w] = __ldg(cl + x[w]);
            g[w] = __ldg(gd + x[w]);
            gp[w] = 0, m[w] = 0;
#pragma unroll
            for (int j = 0; j < P; j++)
                pv[w][j] = old[w][j] = 0;
        }
        // k = 0 at x = 1 forwards, k = 127 at W - 2 backwards
        nc[0] = __ldg(cr + clampx(1 - md, W)), nc[1] = __ldg(cr + clampx(W - 2 - md - KTOP, W));
    }

    template <int PH>
    __device__ __forceinline__ void step(int t)
    {
        const uint32_t BIG2 = BIG * 0x10001u;
        const int ln = r.ln, q = r.q, xf = t, xb = W - 1 - t;
        // the next step's codes and guides, and the codes that enter the windows after the
        // next step (k = 0 at xf + 2, k = 127 at xb - 2): a step ahead of their use
        const int xf1 = min(xf + 1, W - 1), xb1 = max(xb - 1, 0);
        const uint64_t lf1 = __ldg(cl + xf1), lb1 = __ldg(cl + xb1);
        const int gf1 = __ldg(gd + xf1), gb1 = __ldg(gd + xb1);
        const uint64_t nf1 = __ldg(cr + clampx(xf + 2 - md, W)), nb1 = __ldg(cr + clampx(xb - 2 - md - KTOP, W));
        uint32_t u[2][P];
#pragma unroll
        for (int w = 0; w < 2; w++) {
            uint32_t c[P];
#pragma unroll
            for (int i = 0; i < P; i++) {
                const int s = w == 0 ? (i - PH) & (P - 1) : (i + PH) & (P - 1);
                c[i] = rcost<ADC>((uint32_t)lc[w], g[w], wc[w][0][s], wg[w][0][s], ad) |
                       rcost<ADC>((uint32_t)lc[w], g[w], wc[w][1][s], wg[w][1][s], ad) << 16;
            }
            if (t == 0) {
#pragma unroll
                for (int j = 0; j < P; j++)
                    u[w][j] = FULL ? c[j] : (c[j] & r.vm[j]) | (BIG2 & ~r.vm[j]);
            } else {
                run_step<P, FULL>(pv[w], m[w], c, a.p1, p2lut[abs(g[w] - gp[w])], r, u[w]);
            }
        }
        uint32_t mm[2] = {u[0][0], u[1][0]};
#pragma unroll
        for (int w = 0; w < 2; w++)
#pragma unroll
            for (int j = 0; j < P; j++) {
                pv[w][j] = u[w][j];
                mm[w] = __vmins2(mm[w], u[w][j]);
                if (!FULL) // the halves past D add 0
                    u[w][j] &= r.vm[j];
            }
        // the sum: first visits store, second visits add to what the first stored
        uint32_t *df = srow + (size_t)xf * a.sw, *db = srow + (size_t)xb * a.sw;
        if (2 * t < W - 1) {
            words_store<P>(df, u[0]);
            words_store<P>(db, u[1]);
        } else if (2 * t > W - 1) {
#pragma unroll
            for (int j = 0; j < P; j++)
                u[0][j] += old[0][j], u[1][j] += old[1][j];
            words_store<P>(df, u[0]);
            words_store<P>(db, u[1]);
        } else {
#pragma unroll
            for (int j = 0; j < P; j++)
                u[0][j] += u[1][j];
            words_store<P>(df, u[0]);
        }
        // the next second visit's words (stored at step W - 2 - t <= t), and those pf steps
        // on into L2
        if (2 * (t + 1) > W - 1 && t + 1 < W) {
            words_load<P>(df + a.sw, old[0]);
            words_load<P>(db - a.sw, old[1]);
        }
        if (a.pf > 0 && 2 * (t + a.pf) > W - 1 && t + a.pf < W) {
            asm volatile("prefetch.global.L2 [%0];" ::"l"(df + (size_t)a.pf * a.sw));
            asm volatile("prefetch.global.L2 [%0];" ::"l"(db - (size_t)a.pf * a.sw));
        }
#pragma unroll
        for (int w = 0; w < 2; w++)
            m[w] = line_min<L>(min((int)(mm[w] & 0xffffu), (int)(mm[w] >> 16)), r.gmask);
        // the windows move: forwards element P - 1's slot takes the new element 0 (the run
        // below's element P - 1: lane ln - 1's run, or at q = 0 the other half of the block's
        // last lane; k = 0 loaded); backwards element 0's slot takes the new element P - 1
        // (the run above's element 0; k = 127 loaded)
        const unsigned gm = r.gmask;
        {
            const int s = (P - 1 - PH) & (P - 1);
            const int s0 = (ln + L - 1) & (L - 1), s1 = q > 0 ? ln - 1 : ln + Q - 1;
            const uint32_t c0 = __shfl_sync(gm, q < Q - 1 ? wc[0][0][s] : wc[0][1][s], s0, L);
            const uint32_t c1 = __shfl_sync(gm, q < Q - 1 ? wc[0][1][s] : wc[0][0][s], s1, L);
            wc[0][0][s] = ln == 0 ? (uint32_t)nc[0] : c0;
            wc[0][1][s] = c1;
            if (ADC) {
                const int g0 = __shfl_sync(gm, q < Q - 1 ? wg[0][0][s] : wg[0][1][s], s0, L);
                const int g1 = __shfl_sync(gm, q < Q - 1 ? wg[0][1][s] : wg[0][0][s], s1, L);
                wg[0][0][s] = ln == 0 ? (int)(nc[0] >> 32) : g0, wg[0][1][s] = g1;
            }
        }
        {
            const int s = PH & (P - 1);
            const int s0 = q < Q - 1 ? ln + 1 : ln - (Q - 1), s1 = (ln + 1) & (L - 1);
            const uint32_t c0 = __shfl_sync(gm, q == 0 ? wc[1][1][s] : wc[1][0][s], s0, L);
            const uint32_t c1 = __shfl_sync(gm, q == 0 ? wc[1][0][s] : wc[1][1][s], s1, L);
            wc[1][0][s] = c0;
            wc[1][1][s] = ln == L - 1 ? (uint32_t)nc[1] : c1;
            if (ADC) {
                const int g0 = __shfl_sync(gm, q == 0 ? wg[1][1][s] : wg[1][0][s], s0, L);
                const int g1 = __shfl_sync(gm, q == 0 ? wg[1][0][s] : wg[1][1][s], s1, L);
                wg[1][0][s] = g0, wg[1][1][s] = ln == L - 1 ? (int)(nc[1] >> 32) : g1;
            }
        }
        gp[0] = g[0], gp[1] = g[1];
        lc[0] = lf1, lc[1] = lb1, g[0] = gf1, g[1] = gb1, nc[0] = nf1, nc[1] = nb1;
    }
};

// Steps t + PH .. t + P - 1 (below W), each with its phase.
template <int PH, int P, class RW>
__device__ __forceinline__ void steps_from(RW &rw, int t, int W)
{
    if constexpr (PH < P) {
        if (t + PH < W) {
            rw.template step<PH>(t + PH);
            steps_from<PH + 1, P>(rw, t, W);
        }
    }
}

// A block walks WARPS x 32 / L rows (L = 2 * 32 / P lanes a row), both ways.
template <int P, bool FULL, bool ADC>
__global__ void __launch_bounds__(WARPS * 32) rows_kernel(rows_args a)
{
    __shared__ uint8_t p2lut[256];
    __shared__ uint8_t ad[256];
    fill_p2lut(p2lut, a.p1, a.p2, a.p2_adapt);
    if (ADC)
        for (int i = threadIdx.x; i < 256; i += blockDim.x)
            ad[i] = a.luts[64 + min(i, 63)];
    __syncthreads();
    constexpr int L = run_shape<P>::L;
    const int y = (int)(blockIdx.x * WARPS + (threadIdx.x >> 5)) * (32 / L) + (int)(threadIdx.x & 31) / L;
    if (y >= a.height)
        return; // the row's lanes together
    rows_walk<P, FULL, ADC> rw(a, y, p2lut, ad);
    for (int t = 0; t < a.width; t += P)
        steps_from<0, P>(rw, t, a.width);
}

// Pairs a lane: 2 (a warp a row: 2,160 warps at 4K) unless GVIS_SGM_ROWS_P=4 (16 lanes, two
// rows a warp).  At 3840x2160, D = 128 on an H100, 2 pairs took 4.19 ms under ncu (2.19 G
// instructions, 3.6 warps a scheduler issuing 0.72 a cycle) and 4 pairs 4.28 (1.65 G, 2.0
// warps issuing 0.55); 8 pairs (1.0 warp a scheduler) 7.15 (docs/notes-sgm-gpu.md).
int rows_pairs(void)
{
    const char *e = getenv("GVIS_SGM_ROWS_P");
    return e && *e == '4' ? 4 : 2;
}

// The L2 prefetch distance of the second visits' words, in steps (GVIS_SGM_ROWS_PF; 0:
// none): 4K 14.19 ms with 4 (P = 4), 14.62 with none, 14.33 with 8.
int rows_prefetch(void)
{
    const char *e = getenv("GVIS_SGM_ROWS_PF");
    return e && *e ? atoi(e) : 4;
}

template <int P>
void rows_launch(bool full, bool adc, dim3 grid, cudaStream_t s, const rows_args &a)
{
    if (full)
        adc ? rows_kernel<P, true, true><<<grid, WARPS * 32, 0, s>>>(a)
            : rows_kernel<P, true, false><<<grid, WARPS * 32, 0, s>>>(a);
    else
        adc ? rows_kernel<P, false, true><<<grid, WARPS * 32, 0, s>>>(a)
            : rows_kernel<P, false, false><<<grid, WARPS * 32, 0, s>>>(a);
}

} // namespace

extern "C" int gvis_cu_sgm_rows_ok(int D, int census, int stride)
{
    const char *e = getenv("GVIS_SGM_ROWS2");
    return !(e && *e == '0') && D > 64 && D <= 128 && D % 16 == 0 && census == 1 && stride == 128;
}

extern "C" int gvis_cu_sgm_rows_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                    const uint8_t *luts, int width, int height, int D, int min_disp, int census,
                                    int p1, int p2, int p2_adapt, uint16_t *d_sum, int stride, void *stream)
{
    if (!d_cl || !d_cr || !d_guide || !d_sum || width <= 0 || height <= 0 || D <= 64 || D > 128 || D % 16 ||
        census != 1 || stride != 128 || (long long)width * height > (1LL << 40))
        return (int)cudaErrorInvalidValue;
    rows_args a;
    args_inputs(a, d_cl, d_cr, d_guide, luts, width, height, D, min_disp, p1, p2, p2_adapt);
    a.sum = reinterpret_cast<uint32_t *>(d_sum);
    a.sw = stride / 2;
    a.pf = rows_prefetch();
    const int P = rows_pairs(), per = WARPS * P / 2; // rows a block
    const dim3 grid((unsigned)((height + per - 1) / per));
    cudaStream_t s = (cudaStream_t)stream;
    if (P == 4)
        rows_launch<4>(D == 128, luts != nullptr, grid, s, a);
    else
        rows_launch<2>(D == 128, luts != nullptr, grid, s, a);
    return (int)cudaGetLastError();
}
