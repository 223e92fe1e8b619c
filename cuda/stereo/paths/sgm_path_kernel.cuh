// The SGM path kernel (lib/stereo/sgm.h step 4), shared by sgm_path.cu (whole-image walks:
// per-direction u8 volumes or the u16 sum volume), sgm_path_band.cu (the sum volume in
// bands of rows, each line's state carried from band to band) and sgm_path_strip.cu (a
// band's directions into u8 volumes of its rows), the last two through sgm_path_band.cuh;
// sgm_path_volume.cu uses its step helpers (a warp a line) over a cost volume.  Everything
// here has internal linkage: each .cu instantiates the kernels it launches.  Editing this
// file does not make ninja rebuild those four (README, "Building by hand"): touch them.
#ifndef GVIS_SGM_PATH_KERNEL_CUH
#define GVIS_SGM_PATH_KERNEL_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sgm_cost_adcensus.cuh"

namespace {

#define WARPS 4
#define BIG 0x3fff

struct path_args {
    const uint64_t *cl, *cr;
    const uint8_t *guide, *guide_r; // guide_r: the right view's, ad-census with the 9x7 census only
    uint8_t luts[128];              // ad-census tables (census 0..63, AD 0..63)
    int width, height, D, min_disp, p1, p2, p2_adapt;
    int dirs[8];     // blockIdx.y = i runs direction dirs[i] (into lr + (dirs[i] - dir0) * vol)
    int dir0;        // the launch's first direction (its volume at lr)
    size_t vol;
    uint8_t *lr;
    uint32_t *sum; // SUM: the sum volume, sw 32-bit words (pairs of u16) a pixel
    int sw;
    int store; // SUM: 1 stores (the first direction to write the volume), 0 adds
    // BAND: the rows y0 .. y1 - 1 only (vertical and diagonal directions); a line that
    // crosses the band's edge carries its path costs (the lane registers prev[]) in
    // state: slot band_slot() of direction i at state + (i * (W + H - 1) + slot) * sw
    int y0, y1;
    uint32_t *state;
    // VOL: the costs come from a cost volume of rows cy0 .. cy1 - 1 in the pair layout
    // (gvis_cu_sgm_cost_pairs: u16 word w = 32 b + r of a pixel holds the costs of
    // k = 64 b + r, low byte, and k + 32, high byte; cw words a pixel) instead of the
    // censuses; pf > 0: each step also prefetches into L2 the costs pf steps ahead
    const uint16_t *cost;
    int cw, cy0, cy1, pf;
};

// The inputs every walk's arguments take the same way (path_args here, sgm_rows.cu's own
// rows_args), into a zeroed a: the censuses, the left guide and ad-census tables, the size
// and penalties.
template <class A>
static inline void args_inputs(A &a, const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                               const uint8_t *luts, int width, int height, int D, int min_disp, int p1, int p2,
                               int p2_adapt)
{
    memset(&a, 0, sizeof a);
    a.cl = d_cl;
    a.cr = d_cr;
    a.guide = d_guide;
    if (luts)
        memcpy(a.luts, luts, sizeof a.luts);
    a.width = width;
    a.height = height;
    a.D = D;
    a.min_disp = min_disp;
    a.p1 = p1;
    a.p2 = p2;
    a.p2_adapt = p2_adapt;
}

// The arguments every path launch takes the same way (the directions, volumes and band
// are the caller's): args_inputs and the right guide.
static inline path_args path_args_common(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                         const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D,
                                         int min_disp, int p1, int p2, int p2_adapt)
{
    path_args a;
    args_inputs(a, d_cl, d_cr, d_guide, luts, width, height, D, min_disp, p1, p2, p2_adapt);
    a.guide_r = d_guide_r;
    return a;
}

__constant__ int c_dirs[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {-1, 1}, {1, -1}};

// The first pixel of line `line` of direction (rx, ry); false past the last line.
__device__ __forceinline__ bool line_start(int line, int rx, int ry, int W, int H, int &x, int &y)
{
    const int lines = ry == 0 ? H : rx == 0 ? W : W + H - 1;
    if (line >= lines)
        return false;
    const int x0 = rx > 0 ? 0 : W - 1, y0 = ry > 0 ? 0 : H - 1;
    if (ry == 0) {
        x = x0;
        y = line;
    } else if (line < W) {
        x = line;
        y = y0;
    } else {
        x = x0;
        y = ry > 0 ? line - W + 1 : H - 2 - (line - W);
    }
    return true;
}

// BAND: the first pixel of line `line` of direction (rx, ry != 0) inside rows y0 .. y1 - 1,
// walked downwards (ry > 0) or upwards; false past the last line.  Lines 0 .. W - 1 enter
// through the band's first row (top for ry > 0, bottom otherwise) at x = line, and continue
// the path of the band before when their previous pixel is inside the image (*cont); the
// diagonals' other lines enter through the left or right image edge inside the band and
// start afresh there, as in the whole image (line_start's numbering for y0 = 0, y1 = H).
__device__ __forceinline__ bool band_line_start(int line, int rx, int ry, int W, int H, int y0, int y1, int &x, int &y,
                                                bool &cont)
{
    const int lines = rx == 0 ? W : W + y1 - y0 - 1;
    if (line >= lines)
        return false;
    if (line < W) {
        x = line;
        y = ry > 0 ? y0 : y1 - 1;
        const int px = x - rx, py = y - ry;
        cont = px >= 0 && px < W && py >= 0 && py < H;
    } else {
        x = rx > 0 ? 0 : W - 1;
        y = ry > 0 ? y0 + 1 + (line - W) : y1 - 2 - (line - W);
        cont = false;
    }
    return true;
}

// BAND: a line's state slot, the same for all its pixels: x for a vertical line, the
// constant x - y or x + y of a diagonal (0 .. W + H - 2).
__device__ __forceinline__ int band_slot(int x, int y, int rx, int ry, int H)
{
    return rx == 0 ? x : rx == ry ? x - y + H - 1 : x + y;
}

// The disparities of a lane are packed as pairs of 16-bit values in one
// register, so that the recurrence runs on Hopper's DPX instructions (add.s16x2,
// min.s16x2: two disparities an instruction; emulated, still exact, before sm_90):
//   Lr(k) = C(k) + min(Lr'(k), min(Lr'(k-1), Lr'(k+1)) + P1, m + P2) - m
// which equals lib/stereo/sgm.h's rule term by term (every term is >= m, so no half borrows;
// every value stays below 2^15).
//
// A line is walked by S lanes of a warp (S = 32: the warp; S = 8: four lines a warp), and
// the disparities are interleaved across them: pair j = T b + t (T = 32 / S) of lane l
// packs k = 64 b + S t + l (low half) and k + 32 (high half).  Then the codes of one pair
// are consecutive for consecutive lanes (a warp reads S contiguous codes a line an
// instruction), and the pair is word 32 b + S t + l of the sum volume's pixel: the same
// layout for every S (sgm_cuda.h).  (With k = l K + i, contiguous in a lane, a warp touched
// a 32-byte sector per lane: ncu showed that kernel waiting on L1 most of the time, Mem
// Busy 87 %; interleaving cut its L1 traffic from 52.6 to 21.2 GB at 1080p and its time by
// 6 %.)  The neighbours k - 1 and k + 1 come from the adjacent lanes (two rotating shuffles a
// pair); the line's first and last lane take them from the pair before or after, or from
// the other halves at the 32 and 64 boundaries.  Fewer lanes a line share a step's fixed
// work (the address, the guide and P2, the loop, the store's address) among more
// disparities, at the price of a minimum over S lanes in shuffles (log2 S of them) instead
// of one __reduce_min_sync.

// Pair j's first disparity less the lane (k = kofs + lane) and its word in a pixel of the
// sum volume (word = wofs + lane).
template <int S>
__device__ __forceinline__ int kofs(int j)
{
    return 64 * (j / (32 / S)) + S * (j % (32 / S));
}
template <int S>
__device__ __forceinline__ int wofs(int j)
{
    return 32 * (j / (32 / S)) + S * (j % (32 / S));
}

// The lanes of this lane's line (all 32 for S = 32).
template <int S>
__device__ __forceinline__ unsigned line_mask(int lane)
{
    return S == 32 ? 0xffffffffu : ((1u << S) - 1u) << (lane & ~(S - 1));
}

// The smallest of v over the line's S lanes.
template <int S>
__device__ __forceinline__ int line_min(int v, unsigned gmask)
{
    if (S < 32) {
#pragma unroll
        for (int o = S / 2; o > 0; o >>= 1)
            v = min(v, __shfl_xor_sync(gmask, v, o, S));
    } else {
        v = (int)__reduce_min_sync(0xffffffffu, (unsigned)v);
    }
    return v;
}

template <bool NARROW>
__device__ __forceinline__ uint32_t hamming(uint64_t l, uint64_t r)
{
    // NARROW: the centre-symmetric census, whose 31 bits sit in the low word
    return NARROW ? __popc((uint32_t)l ^ (uint32_t)r) : __popcll(l ^ r);
}

// The matching cost of step 3: census (ADC false) or ad-census from the tables in shared
// memory, the right guide value at grp or, with the symmetric census (NARROW), in bits 32-39
// of the right code (gvis_cu_sgm_pack_guide): one load a disparity for both.
template <bool NARROW, bool ADC>
__device__ __forceinline__ uint32_t match_cost(uint64_t l, uint64_t r, int gl, const uint8_t *grp, const uint8_t *tab)
{
    if (!ADC)
        return hamming<NARROW>(l, r);
    return gvis_adc_cost(hamming<NARROW>(l, r), gl, NARROW ? (int)(r >> 32) : (int)__ldg(grp), tab);
}

// A 32-bit add into global memory whose old value is not needed (a reduction: no
// round trip to the SM), spelt out rather than left to ptxas's choice for atomicAdd.
__device__ __forceinline__ void red_add(uint32_t *p, uint32_t v)
{
    asm volatile("red.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// The halves of a lane's pairs that hold a disparity < D (FULL: all of them); lane: the
// lane's place in its line (0 .. S - 1).
template <int NP, bool FULL, int S = 32>
__device__ __forceinline__ void valid_halves(int D, int lane, uint32_t (&vmask)[NP])
{
#pragma unroll
    for (int j = 0; j < NP; j++)
        vmask[j] = FULL ? 0xffffffffu
                        : (lane + kofs<S>(j) < D ? 0xffffu : 0u) | (lane + kofs<S>(j) + 32 < D ? 0xffff0000u : 0u);
}

// A line's first pixel: its path costs are its matching costs c[] (BIG past D).
template <int NP, bool FULL>
__device__ __forceinline__ void first_step(const uint32_t (&c)[NP], const uint32_t (&vmask)[NP], uint32_t (&cur)[NP])
{
    const uint32_t BIG2 = BIG * 0x10001u;
#pragma unroll
    for (int j = 0; j < NP; j++)
        cur[j] = FULL ? c[j] : (c[j] & vmask[j]) | (BIG2 & ~vmask[j]);
}

// One pair's step of the recurrence (path_step's rule, two disparities a register): the
// pair's cost c, its previous path costs prev, the previous costs of k - 1 (lo) and k + 1
// (hi), P1 and m + P2 in both halves (p1x2, mp2) and m in both halves (m2).
__device__ __forceinline__ uint32_t lr_pair(uint32_t c, uint32_t prev, uint32_t lo, uint32_t hi, uint32_t p1x2,
                                            uint32_t mp2, uint32_t m2)
{
    return c + __vmins2(__viaddmin_s16x2(__vmins2(lo, hi), p1x2, prev), mp2) - m2;
}

// P2 of step 4 for every guide difference 0 .. 255 (adapted when p2_adapt > 0, never below
// P1) into the block's shared table; the caller syncs.
__device__ __forceinline__ void fill_p2lut(uint8_t *p2lut, int p1, int p2, int p2_adapt)
{
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        const int v = p2_adapt > 0 ? p2 * p2_adapt / (p2_adapt + i) : p2;
        p2lut[i] = (uint8_t)(v < p1 ? p1 : v);
    }
}

// One step of the recurrence for a lane's pairs: prev[] the path costs at the previous
// pixel of the line, m their minimum over every disparity, c[] this pixel's matching
// costs, p2 this step's P2 (from the guides); cur[] this pixel's path costs.  lane: the
// lane's place in its line, gmask: the line's lanes (line_mask).
template <int NP, bool FULL, int S = 32>
__device__ __forceinline__ void path_step(const uint32_t (&prev)[NP], int m, const uint32_t (&c)[NP], int p1, int p2,
                                          const uint32_t (&vmask)[NP], int lane, uint32_t (&cur)[NP],
                                          unsigned gmask = 0xffffffffu)
{
    constexpr int T = 32 / S;
    const uint32_t BIG2 = BIG * 0x10001u, P1x2 = (uint32_t)p1 * 0x10001u;
    uint32_t from_left[NP], from_right[NP];
#pragma unroll
    for (int j = 0; j < NP; j++) {
        from_left[j] = __shfl_sync(gmask, prev[j], (lane + S - 1) & (S - 1), S);
        from_right[j] = __shfl_sync(gmask, prev[j], (lane + 1) & (S - 1), S);
    }
    const uint32_t m2 = (uint32_t)m * 0x10001u;
    const uint32_t mp2 = (uint32_t)(m + p2) * 0x10001u;
#pragma unroll
    for (int j = 0; j < NP; j++) {
        const int t = j % T;
        // k - 1 of both halves: lane - 1's pair.  The line's lane 0 takes it from lane
        // S - 1: pair j - 1 inside a block of 64 (t > 0); at t = 0 the low half
        // k - 1 = 64 b - 1 is the high half of pair j - 1 (block b - 1's last) and the high
        // half k + 31 the low half of pair j + T - 1 (block b's last)
        const uint32_t fl0 =
            t > 0 ? from_left[j > 0 ? j - 1 : 0]
                  : __byte_perm(j > 0 ? from_left[j > 0 ? j - 1 : 0] : BIG2, from_left[j + T - 1], 0x5432);
        const uint32_t lo = lane > 0 ? from_left[j] : fl0;
        // k + 1: lane + 1's pair.  Lane S - 1 takes it from lane 0: pair j + 1 inside a
        // block (t < T - 1); at t = T - 1 the low half k + 1 = 64 b + 32 is the high half of
        // pair j - T + 1 (block b's first) and the high half k + 33 = 64 (b + 1) the low
        // half of pair j + 1 (block b + 1's first)
        const uint32_t fr0 =
            t < T - 1 ? from_right[j + 1 < NP ? j + 1 : NP - 1]
                      : __byte_perm(from_right[j - (T - 1)], j < NP - 1 ? from_right[j + 1 < NP ? j + 1 : NP - 1] : BIG2,
                                    0x5432);
        const uint32_t hi = lane < S - 1 ? from_right[j] : fr0;
        const uint32_t v = lr_pair(c[j], prev[j], lo, hi, P1x2, mp2, m2);
        cur[j] = FULL ? v : (v & vmask[j]) | (BIG2 & ~vmask[j]);
    }
}

// cur[] becomes prev[]; the lane's smallest path cost.
template <int NP>
__device__ __forceinline__ int keep_step(const uint32_t (&cur)[NP], uint32_t (&prev)[NP])
{
    uint32_t mm = cur[0];
#pragma unroll
    for (int j = 0; j < NP; j++) {
        prev[j] = cur[j];
        mm = __vmins2(mm, cur[j]);
    }
    return min((int)(mm & 0xffffu), (int)(mm >> 16));
}

// A pixel's path costs out: SUM added into (or, store, written to) the pixel's words of
// the u16 sum volume (sum, sw words a pixel), else written to the direction's u8 volume lr.
//
// SUM: the pair register cur[j] (k = kofs + lane low, k + 32 high) is added as it is into
// word wofs + lane of the pixel (the layout of sgm_cuda.h): one 32-bit reduction a pair,
// 4 S contiguous bytes a line.  Exact in any order and under any overlap of the
// directions: every Lr <= 255 (sgm.h step 4), so a half's total over 8 paths is <= 2040
// and never carries into the other half.  Halves with k >= D are masked: they add 0, and
// pairs of a block of 64 past D (all k >= D, outside the pixel's words) are skipped.  With store
// (the first direction of a sum, alone in its launch) the same words are stored instead:
// every word of every pixel once.
template <int NP, bool FULL, bool SUM, int S = 32>
__device__ __forceinline__ void put_step(const uint32_t (&cur)[NP], const uint32_t (&vmask)[NP], uint32_t *sum, int sw,
                                         int store, uint8_t *lr, size_t pix, int D, int lane)
{
    if (SUM) {
        uint32_t *dst = sum + pix * (size_t)sw + lane;
#pragma unroll
        for (int j = 0; j < NP; j++)
            if (FULL || 64 * (j / (32 / S)) < D) {
                const uint32_t v = FULL ? cur[j] : cur[j] & vmask[j];
                if (store)
                    dst[wofs<S>(j)] = v;
                else
                    red_add(dst + wofs<S>(j), v);
            }
    } else {
        uint8_t *dst = lr + pix * D + lane;
#pragma unroll
        for (int j = 0; j < NP; j++) {
            if (FULL || lane + kofs<S>(j) < D)
                dst[kofs<S>(j)] = (uint8_t)cur[j];
            if (FULL || lane + kofs<S>(j) + 32 < D)
                dst[kofs<S>(j) + 32] = (uint8_t)(cur[j] >> 16);
        }
    }
}

// One line's walk: NB blocks of 64 disparities (D <= 64 NB; FULL: D = 64 NB), S lanes a
// line; p2lut and tab: the block's tables in shared memory.
template <int NB, int S, bool NARROW, bool FULL, bool ADC, bool SUM, bool BAND, bool VOL>
__device__ __forceinline__ void path_walk(const path_args &a, const uint8_t *p2lut, const uint8_t *tab, int dir)
{
    constexpr int NP = NB * (32 / S);
    const int wl = threadIdx.x & 31;
    const int lane = wl & (S - 1); // the lane's place in its line
    const unsigned gmask = line_mask<S>(wl);
    const int rx = c_dirs[dir][0], ry = c_dirs[dir][1];
    const int W = a.width, H = a.height, D = a.D;
    // BAND: the rows of the walk; the whole image otherwise
    int x, y;
    bool cont = false;
    const int line = (blockIdx.x * WARPS + (threadIdx.x >> 5)) * (32 / S) + wl / S;
    if (BAND ? !band_line_start(line, rx, ry, W, H, a.y0, a.y1, x, y, cont) : !line_start(line, rx, ry, W, H, x, y))
        return; // the line's S lanes together
    // BAND without SUM: direction blockIdx.y of the launch into strip volume blockIdx.y, whose
    // pixel 0 is (0, y0) (gvis_cu_sgm_path_strip)
    uint8_t *lr = SUM ? nullptr : a.lr + (BAND ? (int)blockIdx.y : dir - a.dir0) * a.vol;
    const uint32_t BIG2 = BIG * 0x10001u;
    uint32_t vmask[NP];
    valid_halves<NP, FULL, S>(D, lane, vmask);
    uint32_t prev[NP];
#pragma unroll
    for (int j = 0; j < NP; j++)
        prev[j] = BIG2;
    int m = 0, gprev = 0;
    bool first = true;
    uint32_t c[NP];
    int g;
    // the largest kofs + 32: the matches of the lane's pairs lie xr0 - KMAX .. xr0
    constexpr int KMAX = 64 * (NB - 1) + S * (32 / S - 1) + 32;
    auto load_step = [&](int px, int py, uint32_t (&cc)[NP], int &gg) {
        const size_t pix = (size_t)py * W + px;
        if (VOL) {
            // the lane's pairs are words wofs + lane of the pixel, kept packed here and
            // unpacked (byte 0 -> the low half, byte 1 -> the high half) at the step that
            // uses them, a step after the load: unpacked where loaded, the load's latency
            // stalled the unpack (the run kernel's finding, notes-sgm-gpu "A lane a run")
            const uint16_t *cp = a.cost + ((size_t)(py - a.cy0) * W + px) * a.cw + lane;
            gg = __ldg(a.guide + pix);
#pragma unroll
            for (int j = 0; j < NP; j++)
                cc[j] = (uint32_t)__ldg(cp + wofs<S>(j));
            return;
        }
        const uint64_t l = __ldg(a.cl + pix);
        const uint64_t *crow = a.cr + (size_t)py * W;
        // (NARROW: the guide is in the codes; grow stands in, never read)
        const uint8_t *grow = ADC ? (NARROW ? a.guide : a.guide_r) + (size_t)py * W : nullptr;
        gg = __ldg(a.guide + pix);
        // pair j's low half matches right pixel xr0 - kofs, its high half xr0 - kofs - 32
        const int xr0 = px - a.min_disp - lane;
        if (xr0 - KMAX >= 0 && xr0 <= W - 1) {
            const uint64_t *base = crow + xr0;
            const uint8_t *gb = grow + xr0;
#pragma unroll
            for (int j = 0; j < NP; j++)
                cc[j] = match_cost<NARROW, ADC>(l, __ldg(base - kofs<S>(j)), gg, gb - kofs<S>(j), tab) |
                        match_cost<NARROW, ADC>(l, __ldg(base - kofs<S>(j) - 32), gg, gb - kofs<S>(j) - 32, tab)
                            << 16;
        } else {
#pragma unroll
            for (int j = 0; j < NP; j++) {
                const int xa = min(max(xr0 - kofs<S>(j), 0), W - 1), xb = min(max(xr0 - kofs<S>(j) - 32, 0), W - 1);
                cc[j] = match_cost<NARROW, ADC>(l, __ldg(crow + xa), gg, grow + xa, tab) |
                        match_cost<NARROW, ADC>(l, __ldg(crow + xb), gg, grow + xb, tab) << 16;
            }
        }
    };
    load_step(x, y, c, g);
    if (BAND) {
        const uint32_t *slot =
            a.state + ((size_t)blockIdx.y * (W + H - 1) + band_slot(x, y, rx, ry, H)) * a.sw + lane;
        if (cont) {
            // the path so far, as the band before left it: prev[], its minimum m (the
            // same reduction as after a step) and the previous pixel's guide value
#pragma unroll
            for (int j = 0; j < NP; j++)
                prev[j] = FULL || 64 * (j / (32 / S)) < D ? slot[wofs<S>(j)] : BIG2;
            uint32_t mm = prev[0];
#pragma unroll
            for (int j = 0; j < NP; j++)
                mm = __vmins2(mm, prev[j]);
            m = line_min<S>(min((int)(mm & 0xffffu), (int)(mm >> 16)), gmask);
            gprev = __ldg(a.guide + (size_t)(y - ry) * W + x - rx);
            first = false;
        }
    }
    while (true) {
        const int nx = x + rx, ny = y + ry;
        const bool more = nx >= 0 && nx < W && (BAND ? ny >= a.y0 && ny < a.y1 : ny >= 0 && ny < H);
        uint32_t cn[NP];
        int gn = 0;
        if (more)
            load_step(nx, ny, cn, gn);
        if (VOL && a.pf > 0) {
            // the costs pf steps ahead into L2 (a vertical line's next pixels are rows
            // apart; one step of load ahead leaves a step waiting on DRAM)
            const int qx = x + a.pf * rx, qy = y + a.pf * ry;
            if (qx >= 0 && qx < W && qy >= a.cy0 && qy < a.cy1)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(a.cost + ((size_t)(qy - a.cy0) * W + qx) * a.cw + lane));
        }
        const size_t pix = (size_t)y * W + x, opix = BAND && !SUM ? (size_t)(y - a.y0) * W + x : pix;
        if (VOL) {
#pragma unroll
            for (int j = 0; j < NP; j++)
                c[j] = __byte_perm(c[j], 0u, 0x4140);
        }
        uint32_t cur[NP];
        if (first)
            first_step<NP, FULL>(c, vmask, cur);
        else
            path_step<NP, FULL, S>(prev, m, c, a.p1, p2lut[abs(g - gprev)], vmask, lane, cur, gmask);
        const int mn = keep_step<NP>(cur, prev);
        put_step<NP, FULL, SUM, S>(cur, vmask, a.sum, a.sw, a.store, lr, opix, D, lane);
        m = line_min<S>(mn, gmask);
        gprev = g;
        first = false;
        if (!more) {
            // BAND: the line goes on in the next band: keep its path costs for it
            if (BAND && nx >= 0 && nx < W && ny >= 0 && ny < H) {
                // (the slot from the line's last pixel: no register held over the walk)
                uint32_t *slot =
                    a.state + ((size_t)blockIdx.y * (W + H - 1) + band_slot(x, y, rx, ry, H)) * a.sw + lane;
#pragma unroll
                for (int j = 0; j < NP; j++)
                    if (FULL || 64 * (j / (32 / S)) < D)
                        slot[wofs<S>(j)] = prev[j];
            }
            break;
        }
        x = nx;
        y = ny;
        g = gn;
#pragma unroll
        for (int j = 0; j < NP; j++)
            c[j] = cn[j];
    }
}

// The kernel: a block runs WARPS x 32 / S lines of direction dirs[blockIdx.y], S = SH lanes
// a line for the horizontal directions and SV for the others.  A horizontal line is the
// longest walk of an image wider than tall and its direction has the fewest lines, so
// its warps are the last ones running: with 8 lanes a line for every direction a 1080p
// launch (D = 128) took 5.73 ms against 3.56 with 32 (ncu, 35 % occupancy), with the
// horizontal lines kept at 32 lanes 4.52 ms, and with 16 lanes for the others 3.27.
template <int NB, int SH, int SV, bool NARROW, bool FULL, bool ADC, bool SUM, bool BAND, bool VOL = false>
__global__ void __launch_bounds__(WARPS * 32) path_kernel_il(path_args a)
{
    __shared__ uint8_t p2lut[256];
    __shared__ uint8_t tab[128];
    fill_p2lut(p2lut, a.p1, a.p2, a.p2_adapt);
    if (ADC && !VOL)
        for (int i = threadIdx.x; i < 128; i += blockDim.x)
            tab[i] = a.luts[i];
    __syncthreads();
    const int dir = a.dirs[blockIdx.y];
    if (SH == SV || c_dirs[dir][1] != 0)
        path_walk<NB, SV, NARROW, FULL, ADC, SUM, BAND, VOL>(a, p2lut, tab, dir);
    else
        path_walk<NB, SH, NARROW, FULL, ADC, SUM, BAND, VOL>(a, p2lut, tab, dir);
}

// The narrow layout for NB blocks of 64 disparities: 8 lanes a line for D <= 64, 16 for
// D <= 128 (8 pairs a lane at most); none above (32).
#define NARROW_LANES(nb) ((nb) == 1 ? 8 : (nb) == 2 ? 16 : 32)

// The lanes a line of the vertical and diagonal directions (the horizontal ones: 32) for
// D disparities and `lines` such lines in the launch: 32 or NARROW_LANES.  Fewer lanes a
// line cut the instructions a disparity (a step's fixed work is shared by more
// disparities: at 1080p, D = 128, 2.70 G -> 2.06 G instructions with 16 lanes and the
// guide in the codes) but leave fewer warps to hide each step's latency.  The narrow layout
// is taken where `narrow` (the caller's: the whole-image walks of the symmetric census)
// and the launch still has 16 warps a multiprocessor or more (1024x440 with 4 paths: 1,024
// warps of 16 lanes ran 13 % slower than 2,048 of 32).  The 9x7 census (two words a code)
// ran 16 % slower narrow at 1080p, and the short launches of the banded sum at D = 128 5-7 %
// slower on one H100 (3-6 % faster on another): both keep 32 (the bands take 8 lanes at
// D <= 64: sgm_path_band.cu).  Measured in docs/notes-sgm-gpu.md.
// GVIS_SGM_LANES overrides the rule: 32 keeps a warp a line, a value below 32 takes the
// narrow layout wherever D has one (a tuning and test knob, read at each launch).
static inline int path_lanes(int D, long long lines, bool narrow_ok)
{
    const int nb = D <= 64 ? 1 : D <= 128 ? 2 : D <= 256 ? 4 : 8;
    const int narrow = NARROW_LANES(nb);
    int s = narrow_ok ? narrow : 32;
    int dev = 0, sms = 0;
    if (s < 32 && (cudaGetDevice(&dev) != cudaSuccess ||
                   cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
                   lines * s / 32 < 16LL * sms))
        s = 32;
    const char *e = getenv("GVIS_SGM_LANES");
    if (e && *e)
        s = atoi(e) >= 32 ? 32 : narrow;
    return s;
}

// The grid of one launch of directions dir .. dir + ndirs - 1 (all in one launch: many more
// warps in flight to hide the latency of each line's serial walk; a block walks WARPS
// horizontal lines or WARPS x 32 / sv of the others) and sv, the lanes a line of its
// vertical and diagonal directions (path_lanes; the horizontal ones: 32).
static inline dim3 path_grid(int width, int height, int D, int dir, int ndirs, bool narrow_ok, int &sv)
{
    long long hl = 0, vl = 0, vsum = 0; // horizontal lines, the most and all of the others
    for (int i = dir; i < dir + ndirs; i++) {
        // directions 0, 1: H rows; 2, 3: W columns; 4 .. 7: W + H - 1 diagonals
        const long long lines = i < 2 ? height : i < 4 ? width : (long long)width + height - 1;
        if (i < 2) {
            hl = lines;
        } else {
            vl = lines > vl ? lines : vl;
            vsum += lines;
        }
    }
    sv = path_lanes(D, vsum, narrow_ok);
    const long long per = (long long)WARPS * (32 / sv), bh = (hl + WARPS - 1) / WARPS, bv = (vl + per - 1) / per;
    return dim3((unsigned)(bh > bv ? bh : bv), ndirs);
}

} // namespace

#endif
