// The SGM vertical directions fused with their sum: (0, 1), (1, 1) and (-1, 1) of
// lib/stereo/sgm.h step 4 added into the u16 sum volume in one pass, the upward (0, -1),
// (-1, -1) and (1, -1) the same way over the image flipped, or both passes at once (issue
// 18's 4K row).
//
// The bands (sgm_path_band.cu) walk each direction in its own warps, each recomputing the
// costs from the codes, and add every path cost with a 32-bit reduction through the L2: at
// 3840x2160, D = 128 the downward pass took 23 x ~277 us = 6.4 ms under ncu.  Here a block
// owns a tile of TW columns and walks it from the top row to the bottom, and a pixel's three
// directions are made by the same lanes at the same step: its costs once, the three
// recurrences in the run layout of sgm_path_run.cuh (8 lanes a column, lane ln holding
// words 8 ln .. 8 ln + 7 of the pixel), their sum on the chip, then one plain load-add-store
// of the pixel's words (which the rows stored first: gvis_cu_sgm_rows_sum).
//
// The vertical path of a column stays in its lanes' registers.  The diagonals move a column
// a row: after each row a line leaves its (1, 1) and (-1, 1) path costs in shared memory,
// double-buffered by the row's parity (one barrier a row), and at the next row column c
// takes the (1, 1) costs of column c - 1 and the (-1, 1) costs of column c + 1.  At the tile's
// edges those come from the neighbouring tiles: column TW - 1 publishes its (1, 1) costs and
// column 0 its (-1, 1) costs each row, and at the next row column 0 of the tile to the right
// (column TW - 1 of the tile to the left) takes them instead of its slot, by a select.  (A
// halo warp that walked columns -1 and TW itself, calls 106-123, took 12.22-12.25 ms at 4K
// against 12.16-12.19 without, and made the block 5 warps and 137 registers.)  Slots that no
// column writes (past the image's edges, and before the first row) hold BIG: a step from path
// costs all BIG with m = BIG is a path's first step (C + min(BIG, BIG + P1, BIG + P2) - BIG =
// C), so the paths start at the edges without a branch, and the three recurrences of a line
// are straight code that the compiler interleaves: the ring's stores are predicated too
// (with branches around the steps the pass took 0.8 ms more: docs/notes-sgm-gpu.md).
//
// The published path costs go through global memory without a flag or a fence, tagged with
// their row (sgm_ring.cuh); the tiles wait on each other, so all of them must be resident at
// once: the launch is cooperative (refused, with the bands taking over, where the grid does
// not fit), and a poll that never ends traps rather than hang.
//
// Both passes at once (gvis_cu_sgm_updown_sum): the downward tiles and the upward ones in
// one cooperative launch, 4 blocks of 4 warps a multiprocessor (480 blocks at 4K, 128
// registers).  A row's words are added to by both walks: above the middle row the downward
// walk visits first, below it the upward one.  Each warp walks its first visits, publishes
// (a fence, then its step in a progress word), and waits for the other walk's warp of the
// same columns to have published too (a poll, then a fence) before it loads the words of its
// first second visit; the walks meet once, at the middle, and later loads bypass L1.  At
// 3840x2160, D = 128 on an H100 the pair took 6.3 ms against 2 x 3.7 in turn, the command
// 11.17 ms against 12.20 (call 127, docs/notes-sgm-gpu.md "Both vertical passes fused at
// once").
//
// The same Lr integers as path_step (run_step's rule), the same clamped right pixels as
// step 3: the sum is bit-identical to the bands'.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "sgm_cuda.h"
#include "sgm_path_run.cuh"
#include "sgm_ring.cuh"

namespace {

struct down_args : codes_sum_args { // (pf unused)
    // tile t's published path costs: ring + ((2 t + i) RING + y % RING) 64, i = 0 the (1, 1)
    // costs of its column TW - 1, i = 1 the (-1, 1) costs of its column 0; the upward walk's
    // tiles from ring + upring on
    uint32_t *ring;
    size_t upring;
    int ntiles, off; // tile t: columns TW t - off .. (off 1 where W % TW = 1)
    // blocks up0 .. walk upwards (the image flipped: step y is row H - 1 - y), tile
    // blockIdx.x - up0: ntiles (none) for the downward pass, 0 for the upward one, ntiles
    // for both at once
    int up0;
};

// A column's path costs in shared memory, 64 words: 16-byte pieces j of the line's lanes
// side by side (a quarter-warp's 16-byte accesses touch 128 contiguous bytes).
template <int P>
__device__ __forceinline__ void slot_put(uint32_t *s, int ln, const uint32_t (&v)[P])
{
#pragma unroll
    for (int j = 0; j < P; j += 4)
        *reinterpret_cast<uint4 *>(s + j * (64 / P) + 4 * ln) = make_uint4(v[j], v[j + 1], v[j + 2], v[j + 3]);
}

template <int P>
__device__ __forceinline__ void slot_get(const uint32_t *s, int ln, uint32_t (&v)[P])
{
#pragma unroll
    for (int j = 0; j < P; j += 4) {
        const uint4 a = *reinterpret_cast<const uint4 *>(s + j * (64 / P) + 4 * ln);
        v[j] = a.x, v[j + 1] = a.y, v[j + 2] = a.z, v[j + 3] = a.w;
    }
}

// A lane's words of a row of the sum; BOTH from L2 (maybe the other walk's, stored on
// another multiprocessor).
template <bool BOTH, int P>
__device__ __forceinline__ void row_words(const uint32_t *sp, uint32_t (&old)[P])
{
    if (BOTH)
        words_load_cg<P>(sp, old);
    else
        words_load<P>(sp, old);
}

// A right code: with ADC the whole 64 bits (the right guide in bits 32-39), else its low
// word.
template <bool ADC>
__device__ __forceinline__ uint64_t code_at(const uint64_t *p)
{
    if (ADC)
        return __ldg(p);
    return __ldg(reinterpret_cast<const uint32_t *>(p));
}

// What a lane reads to make a pixel's costs, loaded a row ahead of their use: the left code
// and guide value, and the right codes of pair i (k = kb + i, k + 32).
template <int P, bool ADC>
struct pixel_codes {
    uint32_t l;
    int g;
    uint64_t lo[P], hi[P];

    __device__ __forceinline__ void load(const down_args &a, ptrdiff_t base, ptrdiff_t pitch, int kb, int x, int y)
    {
        const int W = a.width;
        const ptrdiff_t row = base + (ptrdiff_t)y * pitch;
        l = (uint32_t)__ldg(a.cl + row + x);
        g = __ldg(a.guide + row + x);
        const uint64_t *cr = a.cr + row;
        const int xr = x - a.min_disp - kb;
        if (xr - (P - 1) - 32 >= 0 && xr <= W - 1) {
            // inside the row: constant offsets from one address
            const uint64_t *b = cr + xr;
#pragma unroll
            for (int i = 0; i < P; i++)
                lo[i] = code_at<ADC>(b - i), hi[i] = code_at<ADC>(b - i - 32);
        } else {
#pragma unroll
            for (int i = 0; i < P; i++)
                lo[i] = code_at<ADC>(cr + clampx(xr - i, W)), hi[i] = code_at<ADC>(cr + clampx(xr - i - 32, W));
        }
    }

    // pair i: k = kb + i in the low half, k + 32 in the high half
    __device__ __forceinline__ void costs(const uint8_t *ad, uint32_t (&c)[P]) const
    {
#pragma unroll
        for (int i = 0; i < P; i++)
            c[i] = rcost<ADC>(l, g, (uint32_t)lo[i], (int)(lo[i] >> 32), ad) |
                   rcost<ADC>(l, g, (uint32_t)hi[i], (int)(hi[i] >> 32), ad) << 16;
    }
};

// The step of a line whose previous pixel is (has: exists) path costs prev, minimum m,
// guide value gp: run_step, or the first pixel's costs.  Both are made and one is taken
// (no branch, so that the three directions' steps interleave).
template <int P, bool FULL>
__device__ __forceinline__ void step_sel(bool has, const uint32_t (&prev)[P], int m, int gp, int g,
                                         const uint32_t (&c)[P], const down_args &a, const uint8_t *p2lut,
                                         const run_lane<P, FULL> &r, uint32_t (&cur)[P])
{
    const uint32_t BIG2 = BIG * 0x10001u;
    run_step<P, FULL>(prev, m, c, a.p1, p2lut[abs(g - gp)], r, cur);
#pragma unroll
    for (int j = 0; j < P; j++)
        cur[j] = has ? cur[j] : FULL ? c[j] : (c[j] & r.vm[j]) | (BIG2 & ~r.vm[j]);
}

// The line's smallest path cost.
template <int P, bool FULL>
__device__ __forceinline__ int run_min(const uint32_t (&v)[P], const run_lane<P, FULL> &r)
{
    uint32_t mm = v[0];
#pragma unroll
    for (int j = 1; j < P; j++)
        mm = __vmins2(mm, v[j]);
    return line_min<run_shape<P>::L>(min((int)(mm & 0xffffu), (int)(mm >> 16)), r.gmask);
}

// Pairs a lane (8 lanes a column, 4 columns a warp) and columns a tile.  Tiles of 32
// columns and 4 pairs a lane (16 lanes a column) measured slower at 4K (calls 107-112,
// docs/notes-sgm-gpu.md).
constexpr int DP = 8, TW = 16, TWW = TW / 4;

// A block walks the tile of TW columns from x0 = TW blockIdx.x - off down every row: warps
// 0 .. TWW - 1 four columns each.  With DIAG (8 paths) column 0's (1, 1) step takes the left
// tile's column TW - 1 of the row before from the ring, column TW - 1's (-1, 1) step the
// right tile's column 0.  BOTH (with DIAG and PF): blocks ntiles .. 2 ntiles - 1 walk the same
// tiles upwards at the same time (the image flipped) with a ring of their own, and a row's
// two visits add into its words in turn (down first above the middle row, up first below).
template <bool FULL, bool ADC, bool DIAG, bool PF, bool BOTH = false>
__global__ void __launch_bounds__(TWW * 32, BOTH ? 4 : 1) down_kernel(down_args a)
{
    constexpr int P = DP, NS = DIAG ? TW + 2 : 1;
    __shared__ uint8_t p2lut[256];
    __shared__ uint8_t ad[256];
    // by the row's parity: sR[.][c + 1] column c's (1, 1) path costs (c = -1 .. TW - 1),
    // sL[.][c + 1] column c's (-1, 1) (c = 0 .. TW), and their minima.  Slots no column
    // writes (past the image's edges) keep BIG: a step from BIG path costs with m = BIG is the
    // first step of a path (C + min(BIG, BIG + P1, BIG + P2) - BIG = C), so no branch or
    // select starts the paths at the edges or the first row.
    __shared__ __align__(16) uint32_t sR[2][NS][64], sL[2][NS][64];
    __shared__ int mR[2][NS], mL[2][NS];
    const uint32_t BIG2 = BIG * 0x10001u;
    fill_p2lut(p2lut, a.p1, a.p2, a.p2_adapt);
    if (ADC)
        for (int i = threadIdx.x; i < 256; i += blockDim.x)
            ad[i] = a.luts[64 + min(i, 63)];
    if (DIAG) {
        for (int i = threadIdx.x; i < 2 * NS * 64; i += blockDim.x)
            (&sR[0][0][0])[i] = (&sL[0][0][0])[i] = BIG2;
        for (int i = threadIdx.x; i < 2 * NS; i += blockDim.x)
            (&mR[0][0])[i] = (&mL[0][0])[i] = BIG;
    }
    __syncthreads();
    const bool upb = (int)blockIdx.x >= a.up0;
    const int W = a.width, H = a.height, tile = (int)blockIdx.x - (upb ? a.up0 : 0), x0 = tile * TW - a.off;
    // the walk's rows: step y at base + y pitch of the image (upwards: flipped)
    const ptrdiff_t base = upb ? (ptrdiff_t)(H - 1) * W : 0, pitch = upb ? -(ptrdiff_t)W : W;
    uint32_t *const ring = a.ring + (upb ? a.upring : 0);
    const int warp = (int)(threadIdx.x >> 5), li = (int)(threadIdx.x & 31) >> 3;
    const run_lane<P, FULL> r(a.D);
    const int ln = r.ln;
    const int c = 4 * warp + li, x = x0 + c;
    const bool live = x >= 0 && x < W;
    // the neighbours' path costs: column 0 reads the left tile's (1, 1) costs of its column
    // TW - 1, column TW - 1 the right tile's (-1, 1) costs of its column 0
    const bool fromL = DIAG && c == 0 && tile > 0 && live && x > 0;
    const bool fromR = DIAG && c == TW - 1 && tile + 1 < a.ntiles && live && x + 1 < W;
    const uint32_t *nbe = fromL   ? ring + (size_t)(2 * (tile - 1)) * RING * 64 + P * ln
                          : fromR ? ring + (size_t)(2 * (tile + 1) + 1) * RING * 64 + P * ln
                                  : nullptr;
    // and publish their own: column TW - 1's (1, 1) where a tile follows, column 0's (-1, 1)
    // where one precedes
    uint32_t *pubR =
        DIAG && c == TW - 1 && tile + 1 < a.ntiles ? ring + (size_t)(2 * tile) * RING * 64 + P * ln : nullptr;
    uint32_t *pubL = DIAG && c == 0 && tile > 0 ? ring + (size_t)(2 * tile + 1) * RING * 64 + P * ln : nullptr;
    uint32_t pv[P], old[P], pre[P]; // pre: the neighbour's ring words
#pragma unroll
    for (int j = 0; j < P; j++)
        pv[j] = BIG2, old[j] = 0, pre[j] = 0;
    int mv = BIG;
    uint32_t *sp = a.sum + (base + (live ? x : 0)) * a.sw + P * ln;
    pixel_codes<P, ADC> pc; // (zeros until loaded: the costs of a line outside the image read
                            // the tables in range)
    pc.l = 0, pc.g = 0;
#pragma unroll
    for (int i = 0; i < P; i++)
        pc.lo[i] = pc.hi[i] = 0;
    // the guide at the line's previous pixel of each path: (x - 1, y - 1), (x + 1, y - 1),
    // (x, y - 1)
    int gl = 0, gr = 0, gv = 0;
    // where the row's words of the sum are loaded: at the row's top (TOP), or at the end of
    // the row before, beside the next row's codes.  At the top they have the row's work to
    // come before the add: 4K 10.18-10.21 ms against 10.34-10.36, the pair 6.14 ms against
    // 6.29 under ncu, 3.17 G instructions against 3.27 G, barrier stalls 25 % of the samples
    // against 28.5 % (call 143).  With the validity masks (D < 128) that left the pair 40
    // bytes of spills and D 96 12.84-12.87 ms against 12.51-12.54
    constexpr bool TOP = FULL;
    if (live) {
        pc.load(a, base, pitch, r.kb, x, 0);
        if (!TOP)
            words_load<P>(sp, old);
    }
    for (int y = 0; y < H; y++) {
        const int p = y & 1, q = p ^ 1;
        // the neighbour's ring words of the row before, loaded first (the costs are made while
        // they come; loaded at the end of the row before, they were more often not there yet
        // and polled again: calls 115-116)
        if (nbe && y >= 1)
            ring_load<P>(nbe + ((y - 1) & (RING - 1)) * 64, pre);
        if (TOP && live)
            row_words<BOTH, P>(sp, old);
        uint32_t cst[P];
        const int g = pc.g;
        pc.costs(ad, cst); // (a line out of the image: garbage, never kept)
        if (live) {
            // the diagonals first (the edge columns' path costs go out to the neighbours early
            // in the row), then the vertical; acc: the three path costs, then the row's words
            // of the sum, added last (added first, the row's first add waited on them)
            uint32_t cur[P], acc[P];
#pragma unroll
            for (int j = 0; j < P; j++)
                acc[j] = 0;
            if (DIAG) {
                // (1, 1) from column c - 1 of the row before, (-1, 1) from column c + 1
                uint32_t prev[P], cl_[P];
                // at the tile's edges from the neighbour's ring words (polled again only where
                // not yet all there), selected without a branch
                if (nbe && y >= 1) {
                    const uint32_t tag = row_tag(y - 1);
                    if (!__all_sync(r.gmask, ring_tagged<P>(pre, tag)))
                        ring_get<P>(nbe + ((y - 1) & (RING - 1)) * 64, pre, tag, r.gmask);
                }
#pragma unroll
                for (int j = 0; j < P; j++)
                    pre[j] &= 0x3fff3fffu;
                const int me = run_min<P, FULL>(pre, r); // the neighbour's column's minimum
                const bool eL = fromL && y >= 1, eR = fromR && y >= 1;
                slot_get<P>(sR[q][c], ln, prev);
#pragma unroll
                for (int j = 0; j < P; j++)
                    prev[j] = eL ? pre[j] : prev[j];
                run_step<P, FULL>(prev, eL ? me : mR[q][c], cst, a.p1, p2lut[abs(g - gl)], r, cur);
                ring_put<P>(pubR != nullptr, pubR + (y & (RING - 1)) * 64, cur, row_tag(y));
                slot_put<P>(sR[p][c + 1], ln, cur);
                mR[p][c + 1] = run_min<P, FULL>(cur, r); // (the line's lanes, one value)
                slot_get<P>(sL[q][c + 2], ln, prev);
#pragma unroll
                for (int j = 0; j < P; j++)
                    prev[j] = eR ? pre[j] : prev[j];
                run_step<P, FULL>(prev, eR ? me : mL[q][c + 2], cst, a.p1, p2lut[abs(g - gr)], r, cl_);
                ring_put<P>(pubL != nullptr, pubL + (y & (RING - 1)) * 64, cl_, row_tag(y));
                slot_put<P>(sL[p][c + 1], ln, cl_);
                mL[p][c + 1] = run_min<P, FULL>(cl_, r);
#pragma unroll
                for (int j = 0; j < P; j++)
                    acc[j] += FULL ? cur[j] + cl_[j] : (cur[j] + cl_[j]) & r.vm[j];
            }
            // (0, 1)
            run_step<P, FULL>(pv, mv, cst, a.p1, p2lut[abs(g - gv)], r, cur);
#pragma unroll
            for (int j = 0; j < P; j++) {
                pv[j] = cur[j];
                acc[j] += (FULL ? cur[j] : cur[j] & r.vm[j]) + old[j];
            }
            mv = run_min<P, FULL>(cur, r);
            words_store<P>(sp, acc);
            sp += pitch * a.sw;
        }
        if (BOTH) {
            // steps 0 .. lastf are the first visits of their rows (down: y <= (H - 1) / 2; up:
            // H - 1 - y > (H - 1) / 2) and steps after it the second ones.  At step lastf a
            // warp publishes, then waits for the other walk's warp of the same columns to have
            // published its lastf (H - 2 - lastf, the other walk's step at the next row):
            // the walks meet there once, and one fence a side orders every row
            const int lastf = upb ? H / 2 - 1 : (H - 1) / 2;
            if (y == lastf) {
                int *const prog = reinterpret_cast<int *>(a.ring + 2 * a.upring); // (after both rings)
                __syncwarp();
                if ((threadIdx.x & 31) == 0) {
                    prog_put(prog + ((upb ? a.ntiles : 0) + tile) * TWW + warp, y);
                    prog_wait(prog + ((upb ? 0 : a.ntiles) + tile) * TWW + warp, H - 2 - y);
                }
                __syncwarp();
            }
        }
        // the next row's codes and guides, a row ahead of their use (and, where not TOP, its words)
        if (live && y + 1 < H) {
            gv = g;
            const uint8_t *gd = a.guide + base + (ptrdiff_t)y * pitch + x;
            if (DIAG && x > 0)
                gl = __ldg(gd - 1);
            if (DIAG && x + 1 < W)
                gr = __ldg(gd + 1);
            pc.load(a, base, pitch, r.kb, x, y + 1);
            if (!TOP)
                row_words<BOTH, P>(sp, old);
            if (PF && y + 2 < H) {
                // two rows ahead: the right codes into L1 (both ends of the lane's two runs of
                // 8), the sum's words into L2.  Loaded a row ahead only, the codes' first
                // touch of a row came from DRAM after the barrier: long-scoreboard stalls 34 %
                // of the warps' cycles, 8 % with the prefetch, 5.01 -> 4.66 ms (call 115)
                const uint64_t *cr2 = a.cr + base + (ptrdiff_t)(y + 2) * pitch;
                const int xr = x - a.min_disp - r.kb;
                asm volatile("prefetch.global.L1 [%0];" ::"l"(cr2 + clampx(xr, W)));
                asm volatile("prefetch.global.L1 [%0];" ::"l"(cr2 + clampx(xr - (P - 1), W)));
                asm volatile("prefetch.global.L1 [%0];" ::"l"(cr2 + clampx(xr - 32, W)));
                asm volatile("prefetch.global.L1 [%0];" ::"l"(cr2 + clampx(xr - 32 - (P - 1), W)));
                asm volatile("prefetch.global.L2 [%0];" ::"l"(sp + pitch * a.sw));
            }
        }
        if (DIAG)
            __syncthreads();
    }
}

// The prefetch two rows ahead (GVIS_SGM_DOWN_PF=0: none).
bool down_pf(void)
{
    const char *e = getenv("GVIS_SGM_DOWN_PF");
    return !(e && *e == '0');
}

template <bool DIAG, bool PF, bool BOTH = false>
const void *down_fn(bool full, bool adc)
{
    return full ? (adc ? (const void *)down_kernel<true, true, DIAG, PF, BOTH>
                       : (const void *)down_kernel<true, false, DIAG, PF, BOTH>)
                : (adc ? (const void *)down_kernel<false, true, DIAG, PF, BOTH>
                       : (const void *)down_kernel<false, false, DIAG, PF, BOTH>);
}

// The tiles of a row of width W, and the columns the first one leaves out (off): where
// W % TW = 1 the tiles start a column left of the image, so that the last one has two
// columns (needed by the halo warp of calls 106-123, whose tile of one column published
// nothing; kept, as tested).
int down_tiles(int W, int &off)
{
    off = W > TW && W % TW == 1 ? 1 : 0;
    return (W + off + TW - 1) / TW;
}

} // namespace

extern "C" int gvis_cu_sgm_down_ok(int D, int census, int stride)
{
    const char *e = getenv("GVIS_SGM_DOWN");
    return !(e && *e == '0') && gvis_cu_sgm_rows_ok(D, census, stride);
}

extern "C" int gvis_cu_sgm_up_ok(int D, int census, int stride)
{
    const char *e = getenv("GVIS_SGM_UP");
    return !(e && *e == '0') && gvis_cu_sgm_down_ok(D, census, stride);
}

extern "C" size_t gvis_cu_sgm_down_ring_bytes(int width)
{
    if (width <= 0)
        return 0;
    int off;
    const int n = down_tiles(width, off);
    return n > 1 ? (size_t)n * 2 * RING * 64 * sizeof(uint32_t) : 0; // (one tile: no neighbours)
}

// The ring and progress words of both walks at once (BOTH).
static size_t both_bytes(int width)
{
    int off;
    const int n = down_tiles(width, off);
    return 2 * gvis_cu_sgm_down_ring_bytes(width) + (size_t)2 * n * TWW * sizeof(int);
}

// The pass downwards (mode 0), upwards (1: the image flipped, its rows walked from the
// bottom), or both at once (2: -1 where not taken).
static int fused_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, const uint8_t *luts,
                     int width, int height, int D, int min_disp, int census, int p1, int p2, int p2_adapt, int paths,
                     uint16_t *d_sum, int stride, uint32_t *d_ring, size_t ring_bytes, int mode, void *stream)
{
    const bool up = mode == 1, both = mode == 2;
    if (!d_cl || !d_cr || !d_guide || !d_sum || width <= 0 || height <= 0 || D <= 64 || D > 128 || D % 16 ||
        census != 1 || stride != 128 || (paths != 4 && paths != 8) || (long long)width * height > (1LL << 40))
        return (int)cudaErrorInvalidValue;
    int off;
    const int ntiles = down_tiles(width, off);
    const bool diag = paths == 8;
    if (diag && ntiles > 1 && (!d_ring || ring_bytes < gvis_cu_sgm_down_ring_bytes(width)))
        return (int)cudaErrorInvalidValue;
    if (both && (!diag || ntiles < 2 || height < 2 || ring_bytes < both_bytes(width) || !down_pf()))
        return -1;
    down_args a;
    args_inputs(a, d_cl, d_cr, d_guide, luts, width, height, D, min_disp, p1, p2, p2_adapt);
    a.sum = reinterpret_cast<uint32_t *>(d_sum);
    a.sw = stride / 2;
    a.ring = d_ring;
    a.ntiles = ntiles;
    a.off = off;
    a.up0 = up ? 0 : ntiles;
    a.upring = both ? gvis_cu_sgm_down_ring_bytes(width) / sizeof(uint32_t) : 0;
    const bool full = D == 128, adc = luts != nullptr;
    const bool pf = down_pf();
    const void *fn = both   ? down_fn<true, true, true>(full, adc)
                     : diag ? (pf ? down_fn<true, true>(full, adc) : down_fn<true, false>(full, adc))
                            : (pf ? down_fn<false, true>(full, adc) : down_fn<false, false>(full, adc));
    const dim3 grid((unsigned)(both ? 2 * ntiles : ntiles)), block((unsigned)(TWW * 32));
    cudaStream_t s = (cudaStream_t)stream;
    void *args[] = {&a};
    if (!diag)
        return (int)cudaLaunchKernel(fn, grid, block, args, 0, s);
    // the tiles wait on each other: all resident at once, or not taken (-1: the caller walks
    // the bands instead)
    int dev = 0, sms = 0, per = 0, coop = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, fn, (int)block.x, 0) != cudaSuccess || !coop ||
        (long long)per * sms < (long long)grid.x) {
        (void)cudaGetLastError();
        return -1;
    }
    if (ntiles > 1) {
        const cudaError_t e =
            cudaMemsetAsync(d_ring, 0xff, both ? both_bytes(width) : gvis_cu_sgm_down_ring_bytes(width), s);
        if (e != cudaSuccess)
            return (int)e;
    }
    const cudaError_t e = cudaLaunchCooperativeKernel(fn, grid, block, args, 0, s);
    if (e == cudaErrorCooperativeLaunchTooLarge) {
        (void)cudaGetLastError();
        return -1;
    }
    return (int)e;
}

extern "C" int gvis_cu_sgm_down_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                    const uint8_t *luts, int width, int height, int D, int min_disp, int census,
                                    int p1, int p2, int p2_adapt, int paths, uint16_t *d_sum, int stride,
                                    uint32_t *d_ring, size_t ring_bytes, void *stream)
{
    return fused_sum(d_cl, d_cr, d_guide, luts, width, height, D, min_disp, census, p1, p2, p2_adapt, paths, d_sum,
                     stride, d_ring, ring_bytes, 0, stream);
}

extern "C" int gvis_cu_sgm_up_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                  const uint8_t *luts, int width, int height, int D, int min_disp, int census, int p1,
                                  int p2, int p2_adapt, int paths, uint16_t *d_sum, int stride, uint32_t *d_ring,
                                  size_t ring_bytes, void *stream)
{
    return fused_sum(d_cl, d_cr, d_guide, luts, width, height, D, min_disp, census, p1, p2, p2_adapt, paths, d_sum,
                     stride, d_ring, ring_bytes, 1, stream);
}

extern "C" int gvis_cu_sgm_updown_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                      const uint8_t *luts, int width, int height, int D, int min_disp, int census,
                                      int p1, int p2, int p2_adapt, int paths, uint16_t *d_sum, int stride,
                                      uint32_t *d_ring, size_t ring_bytes, void *stream)
{
    const char *e = getenv("GVIS_SGM_UPDOWN");
    if (e && *e == '0')
        return -1;
    return fused_sum(d_cl, d_cr, d_guide, luts, width, height, D, min_disp, census, p1, p2, p2_adapt, paths, d_sum,
                     stride, d_ring, ring_bytes, 2, stream);
}
