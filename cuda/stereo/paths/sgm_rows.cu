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
// chain of shuffles and minimum with 3.6 warps a scheduler.  Since call 122 the default
// gives each way of a row its own 16 lanes (rows_half): 3.90 ms under ncu, 1.91 G
// instructions, 3.34 ms at the running clock.  Its shuffles name the whole warp (call 134)
// and its codes come in chunks a step a lane (rows_half, STAGE; call 137): 2.95 ms at the
// running clock, 1.45 G instructions, DRAM 67 % busy (the sum's 6.4 GB of stores and loads).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include <type_traits>

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

// One row's walk, a way a line of L = 64 / P lanes (GVIS_SGM_ROWS_P=h: P = 4, a row a warp,
// lanes 0-15 forwards and 16-31 backwards; h8: P = 8, two rows a warp).  The backward line
// walks the mirrored row: its step t is at x = W - 1 - t and its lane ln holds the mirrored
// disparities j = kb + i, kb + i + 32 (k = 127 - j), so the right code of j at step t is at
// cb + s (t - j) in both lines (s = 1, cb = -md forwards; s = -1, cb = W - 128 - md
// backwards) and both run the forward walk's instructions: the same windows, shuffles and
// ends, no divergence.  Mirrored word w = P ln + i is the sum's word 63 - w with its halves
// swapped, so the backward lanes store and load words 64 - P (ln + 1) .. 63 - P ln in
// reverse order, swapped by one byte permute a word.  The first visit of a pixel is the
// other line's, so a second visit's words are loaded after a __syncwarp (the row's stores
// before it are seen by its lanes after it).
// STAGE (the default): the left codes and guides and the right codes that enter the window
// come in chunks of L steps, a step a lane, loaded a chunk ahead (two sets of registers), and
// each step takes its own from lane t mod L by a shuffle.  Loaded a step ahead, a step's codes
// were still outstanding at its end: 42 % of the warps' stall samples waited on them (long
// scoreboard, call 135), with the sum's stores and loads keeping DRAM ~60 % busy.  In chunks
// the rows took 2.95 ms against 3.16 (1.45 G instructions against 1.68 G), the 4K command
// 10.71-10.72 ms against 10.94-10.95 (call 137, docs/notes-sgm-gpu.md).
// U8 (the default; GVIS_SGM_ROWS_U8=0: u16 words): a first visit stores its path costs as
// bytes (each fits in 8 bits, lib/stereo/sgm.h step 4) in the first half of the pixel's
// words, byte 2 w + h the half h of word w, and the second visit loads those bytes at the
// step before, widens them only where it adds (widened where loaded, the step waited on the
// load at its top: call 138), and stores the u16 sum over them: 512 bytes a pixel and D 128
// of stores and loads against 768.  A second visit's stores overwrite bytes that other
// lanes of its line loaded, so a __syncwarp comes before them.  At 3840x2160, D = 128 on an
// H100: the rows 2.60 ms against 2.92 under ncu (DRAM 51 % busy against 67 %), the command
// 10.34-10.42 ms against 10.68-10.73 (call 139, docs/notes-sgm-gpu.md).
template <int P, bool FULL, bool ADC, bool STAGE = false, bool U8 = false>
struct rows_half {
    static constexpr int L = run_shape<P>::L, Q = run_shape<P>::Q;
    const rows_args &a;
    run_lane<P, FULL> r;
    const uint8_t *p2lut, *ad;
    const uint64_t *cl, *cr;
    const uint8_t *gd;
    uint32_t *srow, *srow8; // the lane's words of the row's first pixel; U8: its bytes
    int W, s, x0, cb;
    uint32_t perm;  // the store's byte permute: identity forwards, reversed and swapped backwards
    unsigned rmask; // the row's lanes (both halves)
    // the window: [run][slot], run 0 j = kb + i, run 1 j + 32; element i in slot (i - t) mod P
    uint32_t wc[2][P];
    int wg[2][P];
    uint32_t pv[P], old[P];
    uint32_t ob[P / 2]; // U8: the bytes of the next second visit
    uint64_t lc, nc; // nc: the code that enters the window after this step (j = 0)
    int g, gp, m;
    // STAGE: chunk c holds, in lane ln, what step u = L c + ln reads: the left code (low
    // word) and guide at x0 + s u and the right code at cb + s (u + 1) that enters the window
    // after it (clamped, as the loads a step ahead); cur: the chunk of this step, nxt: the next
    struct chunk {
        uint32_t l, n, nh;
        int g;
    } cur, nxt;

    __device__ __forceinline__ void chunk_load(int u, chunk &c) const
    {
        const int xu = clampx(x0 + s * u, W), nu = clampx(cb + s * (u + 1), W);
        c.l = __ldg(reinterpret_cast<const uint32_t *>(cl + xu));
        c.g = __ldg(gd + xu);
        if (ADC) {
            const uint64_t v = __ldg(cr + nu);
            c.n = (uint32_t)v, c.nh = (uint32_t)(v >> 32);
        } else {
            c.n = __ldg(reinterpret_cast<const uint32_t *>(cr + nu)), c.nh = 0;
        }
    }

    __device__ __forceinline__ rows_half(const rows_args &a_, int y, const uint8_t *p2lut_, const uint8_t *ad_)
        : a(a_), r(a_.D), p2lut(p2lut_), ad(ad_)
    {
        W = a.width;
        const bool bw = (threadIdx.x & L) != 0;
        s = bw ? -1 : 1, x0 = bw ? W - 1 : 0, cb = bw ? W - 128 - a.min_disp : -a.min_disp;
        perm = bw ? 0x5476u : 0x3210u;
        rmask = line_mask<2 * L>((int)(threadIdx.x & 31));
        if constexpr (2 * L == 32) {
            // a row a warp: the whole warp walks together (the kernel's exit and every branch
            // of a step are the row's), so its shuffles and syncs name the whole warp, a
            // constant: with the line's mask each one was checked for convergence at run time
            // (MATCH, REDUX, VOTE and a branch, twice a step)
            r.gmask = 0xffffffffu;
            rmask = 0xffffffffu;
        }
        if (!FULL && bw) // the mirrored halves' validity: k = 127 - j below D
#pragma unroll
            for (int i = 0; i < P; i++)
                r.vm[i] = (127 - (r.kb + i) < a.D ? 0xffffu : 0u) | (95 - (r.kb + i) < a.D ? 0xffff0000u : 0u);
        const size_t row = (size_t)y * W;
        cl = a.cl + row, cr = a.cr + row, gd = a.guide + row;
        srow = a.sum + row * a.sw + (bw ? 64 - P * (r.ln + 1) : P * r.ln);
        srow8 = a.sum + row * a.sw + (bw ? 32 - P * (r.ln + 1) / 2 : P * r.ln / 2);
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int i = 0; i < P; i++) {
                const uint64_t c = __ldg(cr + clampx(cb - s * (r.kb + i + 32 * h), W));
                wc[h][i] = (uint32_t)c, wg[h][i] = (int)(c >> 32);
            }
        lc = __ldg(cl + x0), g = __ldg(gd + x0), gp = 0, m = 0;
#pragma unroll
        for (int j = 0; j < P; j++)
            pv[j] = old[j] = 0;
#pragma unroll
        for (int j = 0; j < P / 2; j++)
            ob[j] = 0;
        nc = __ldg(cr + clampx(cb + s, W));
        if (STAGE) { // (lc, g and nc above are then taken from the chunk at step 0: unused)
            chunk_load(r.ln, cur);
            chunk_load(L + r.ln, nxt);
        }
    }

    template <int PH>
    __device__ __forceinline__ void step(int t)
    {
        const uint32_t BIG2 = BIG * 0x10001u;
        const int ln = r.ln, q = r.q, x = x0 + s * t;
        uint64_t l1 = 0, n1 = 0;
        int g1 = 0;
        if (STAGE) {
            // this step's code, guide and entering code from lane t mod L of the chunk
            const int j = t & (L - 1);
            lc = __shfl_sync(r.gmask, cur.l, j, L);
            g = __shfl_sync(r.gmask, cur.g, j, L);
            const uint32_t n = __shfl_sync(r.gmask, cur.n, j, L);
            nc = ADC ? (uint64_t)__shfl_sync(r.gmask, cur.nh, j, L) << 32 | n : n;
        } else {
            // the next step's code and guide, and the code that enters the window after the
            // next step (j = 0 at step t + 2): a step ahead of their use
            const int x1 = clampx(x + s, W);
            l1 = __ldg(cl + x1), n1 = __ldg(cr + clampx(cb + s * (t + 2), W));
            g1 = __ldg(gd + x1);
        }
        uint32_t c[P], u[P];
#pragma unroll
        for (int i = 0; i < P; i++) {
            const int k = (i - PH) & (P - 1);
            c[i] = rcost<ADC>((uint32_t)lc, g, wc[0][k], wg[0][k], ad) |
                   rcost<ADC>((uint32_t)lc, g, wc[1][k], wg[1][k], ad) << 16;
        }
        if (t == 0) {
#pragma unroll
            for (int j = 0; j < P; j++)
                u[j] = FULL ? c[j] : (c[j] & r.vm[j]) | (BIG2 & ~r.vm[j]);
        } else {
            run_step<P, FULL>(pv, m, c, a.p1, p2lut[abs(g - gp)], r, u);
        }
        uint32_t mm = u[0];
#pragma unroll
        for (int j = 0; j < P; j++) {
            pv[j] = u[j];
            mm = __vmins2(mm, u[j]);
            if (!FULL) // the halves past D add 0
                u[j] &= r.vm[j];
        }
        // the sum's words in memory order: first visits store, second visits add to what the
        // other half stored
        uint32_t v[P];
#pragma unroll
        for (int j = 0; j < P; j++)
            v[j] = __byte_perm(u[j], u[P - 1 - j], perm);
        uint32_t *d = srow + (size_t)x * a.sw, *d8 = srow8 + (size_t)x * a.sw;
        if (2 * t < W - 1) {
            if (U8)
                bytes_store<P>(d8, v);
            else
                words_store<P>(d, v);
        } else if (2 * t > W - 1) {
            if constexpr (U8) { // (the bytes under these words were loaded by the line)
                __syncwarp(rmask);
                bytes_unpack<P>(ob, old);
            }
#pragma unroll
            for (int j = 0; j < P; j++)
                v[j] += old[j];
            words_store<P>(d, v);
        } else { // W odd, the middle pixel: the forward half stores, the backward one adds
            if (s > 0)
                words_store<P>(d, v);
            __syncwarp(rmask);
            if (s < 0) {
                words_load<P>(d, old);
#pragma unroll
                for (int j = 0; j < P; j++)
                    v[j] += old[j];
                words_store<P>(d, v);
            }
        }
        // the next second visit's words (U8: bytes), stored at step W - 2 - t <= t by the other
        // half, and those pf steps on into L2
        if (2 * (t + 1) > W - 1 && t + 1 < W) {
            // (U8: past the crossing the __syncwarp before the stores orders the first visits)
            if (!U8 || 2 * t <= W - 1)
                __syncwarp(rmask);
            if constexpr (U8)
                bytes_load<P>(d8 + s * a.sw, ob);
            else
                words_load<P>(d + s * a.sw, old);
        }
        if (a.pf > 0 && 2 * (t + a.pf) > W - 1 && t + a.pf < W)
            asm volatile("prefetch.global.L2 [%0];" ::"l"((U8 ? d8 : d) + (ptrdiff_t)s * a.pf * a.sw));
        m = line_min<L>(min((int)(mm & 0xffffu), (int)(mm >> 16)), r.gmask);
        // the window moves: element P - 1's slot takes the new element 0 (the run below's
        // element P - 1: lane ln - 1's run, or at q = 0 the other block's last lane; j = 0
        // loaded)
        const unsigned gm = r.gmask;
        const int k = (P - 1 - PH) & (P - 1);
        const int s0 = (ln + L - 1) & (L - 1), s1 = q > 0 ? ln - 1 : ln + Q - 1;
        const uint32_t c0 = __shfl_sync(gm, q < Q - 1 ? wc[0][k] : wc[1][k], s0, L);
        const uint32_t c1 = __shfl_sync(gm, q < Q - 1 ? wc[1][k] : wc[0][k], s1, L);
        wc[0][k] = ln == 0 ? (uint32_t)nc : c0;
        wc[1][k] = c1;
        if (ADC) {
            const int g0 = __shfl_sync(gm, q < Q - 1 ? wg[0][k] : wg[1][k], s0, L);
            const int g1 = __shfl_sync(gm, q < Q - 1 ? wg[1][k] : wg[0][k], s1, L);
            wg[0][k] = ln == 0 ? (int)(nc >> 32) : g0, wg[1][k] = g1;
        }
        gp = g;
        if (STAGE) {
            if ((t & (L - 1)) == L - 1) { // the chunk's last step: the next one, and load the one after
                cur = nxt;
                chunk_load(t + 1 + L + ln, nxt);
            }
        } else {
            lc = l1, g = g1, nc = n1;
        }
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

// A block walks WARPS x 32 / L rows (L = 2 * 32 / P lanes a row), both ways; HALF: WARPS x
// 16 / L rows, a way a line of L lanes (rows_half).
template <int P, bool FULL, bool ADC, bool HALF, bool STAGE = false, bool U8 = false>
__global__ void __launch_bounds__(WARPS * 32) rows_kernel(rows_args a)
{
    __shared__ uint8_t p2lut[256];
    __shared__ uint8_t ad[256];
    fill_p2lut(p2lut, a.p1, a.p2, a.p2_adapt);
    if (ADC)
        for (int i = threadIdx.x; i < 256; i += blockDim.x)
            ad[i] = a.luts[64 + min(i, 63)];
    __syncthreads();
    constexpr int L = run_shape<P>::L, LR = HALF ? 2 * L : L; // lanes a row
    const int y = (int)(blockIdx.x * WARPS + (threadIdx.x >> 5)) * (32 / LR) + (int)(threadIdx.x & 31) / LR;
    if (y >= a.height)
        return; // the row's lanes together
    std::conditional_t<HALF, rows_half<P, FULL, ADC, STAGE, U8>, rows_walk<P, FULL, ADC>> rw(a, y, p2lut, ad);
    for (int t = 0; t < a.width; t += P)
        steps_from<0, P>(rw, t, a.width);
}

// The lanes' layout: a way a line of 4 pairs a lane, a row a warp (rows_half: -4, the
// default), or GVIS_SGM_ROWS_P=h8 a way a line of 8 pairs, two rows a warp (-8); both ways
// in each lane with 2 pairs (=2: a warp a row) or 4 (=4: two rows a warp).  At 3840x2160,
// D = 128 on an H100 under ncu: both ways with 2 pairs 4.00 ms (2.11 G instructions, 14.6
// warps a multiprocessor), a way a line 3.90 (1.91 G, 15.2 warps) and with 8 pairs 3.88
// (1.29 G, 8.1 warps); the command 12.22-12.24 ms against 12.25-12.26, and at D 96 14.02
// against 14.53 (calls 121-122).  Before: 4 pairs both ways 4.28, 8 pairs 7.15
// (docs/notes-sgm-gpu.md).
int rows_pairs(void)
{
    const char *e = getenv("GVIS_SGM_ROWS_P");
    if (!e || !*e)
        return -4;
    return *e == '4' ? 4 : *e == '2' ? 2 : *e == 'h' && e[1] == '8' ? -8 : -4;
}

// The L2 prefetch distance of the second visits' words, in steps (GVIS_SGM_ROWS_PF; 0:
// none): 4K 14.19 ms with 4 (P = 4), 14.62 with none, 14.33 with 8.
int rows_prefetch(void)
{
    const char *e = getenv("GVIS_SGM_ROWS_PF");
    return e && *e ? atoi(e) : 4;
}

template <int P, bool HALF, bool STAGE = false, bool U8 = false>
void rows_launch(bool full, bool adc, dim3 grid, cudaStream_t s, const rows_args &a)
{
    if (full)
        adc ? rows_kernel<P, true, true, HALF, STAGE, U8><<<grid, WARPS * 32, 0, s>>>(a)
            : rows_kernel<P, true, false, HALF, STAGE, U8><<<grid, WARPS * 32, 0, s>>>(a);
    else
        adc ? rows_kernel<P, false, true, HALF, STAGE, U8><<<grid, WARPS * 32, 0, s>>>(a)
            : rows_kernel<P, false, false, HALF, STAGE, U8><<<grid, WARPS * 32, 0, s>>>(a);
}

// A way a line, the layout and the staging chosen: the first visits in bytes or words.
template <int P, bool STAGE>
void half_launch(bool u8, bool full, bool adc, dim3 grid, cudaStream_t s, const rows_args &a)
{
    u8 ? rows_launch<P, true, STAGE, true>(full, adc, grid, s, a) : rows_launch<P, true, STAGE>(full, adc, grid, s, a);
}

// A way a line: the codes in chunks a step a lane (GVIS_SGM_ROWS_STAGE=0: each step loads
// the next step's).
bool rows_stage(void)
{
    const char *e = getenv("GVIS_SGM_ROWS_STAGE");
    return !(e && *e == '0');
}

// A way a line: the first visits' path costs stored as bytes (GVIS_SGM_ROWS_U8=0: as the
// sum's u16 words).  Loaded 2 or 4 steps ahead instead of 1 they took 10.50-10.57 and
// 10.97-11.03 ms at 4K against 10.34-10.42 (call 139): the extra branches of each step cost
// more than the load's latency.
bool rows_u8(void)
{
    const char *e = getenv("GVIS_SGM_ROWS_U8");
    return !(e && *e == '0');
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
    const int P = rows_pairs(), per = P < 0 ? WARPS * -P / 4 : WARPS * P / 2; // rows a block
    const dim3 grid((unsigned)((height + per - 1) / per));
    cudaStream_t s = (cudaStream_t)stream;
    const bool full = D == 128, adc = luts != nullptr;
    const bool stage = rows_stage(), u8 = rows_u8();
    if (P == -4)
        stage ? half_launch<4, true>(u8, full, adc, grid, s, a) : half_launch<4, false>(u8, full, adc, grid, s, a);
    else if (P == -8)
        stage ? half_launch<8, true>(u8, full, adc, grid, s, a) : half_launch<8, false>(u8, full, adc, grid, s, a);
    else if (P == 4)
        rows_launch<4, false>(full, adc, grid, s, a);
    else
        rows_launch<2, false>(full, adc, grid, s, a);
    return (int)cudaGetLastError();
}
