// The run layout of the SGM path walk (lib/stereo/sgm.h step 4) over a cost volume in the
// pair layout (gvis_cu_sgm_cost_pairs), for 64 < D <= 128: sgm_path_pairs.cu's kernel where
// it is taken (gvis_cu_sgm_path_pairs), and with STRIP sgm_path_strip.cu's over a strip's
// costs.
//
// path_kernel_il (sgm_path_kernel.cuh) interleaves a line's disparities across its lanes
// (pair t of lane l packs k = S t + l and k + 32), so that a warp reads the census codes of
// consecutive disparities in one instruction; every pair then takes its neighbours k - 1 and
// k + 1 from the adjacent lanes (two shuffles a pair), and over a cost volume each pair is a
// load of its own.  With the costs in a volume the codes are not read, and a lane can hold a
// run: lane ln of a line of 8 lanes holds words 8 ln .. 8 ln + 7 of the pixel, i.e. block
// b = ln / 4, r = 8 (ln % 4) + i for pair i (k = 64 b + r low, k + 32 high: the cost volume's
// and the sum volume's pairs, sgm_cuda.h).  A step loads its 16 costs with one 16-byte load,
// finds k - 1 and k + 1 of pairs 1 .. 6 in its own registers, takes the run's two ends from
// its neighbours (three shuffles a step instead of sixteen) and writes its 16 path costs with
// two 8-byte stores; the line's minimum takes three rounds.  Four lines share a warp.  The
// rows may instead take 4 pairs a lane, 16 lanes a line (the same layout with runs of 8), or
// 2 pairs a lane, 32 lanes a row (runs of 4) for wide images of few rows (sgm_path_pairs.cu,
// pp_row_pairs); those rows also prefetch their costs a few steps ahead into L2
// (pp_run_prefetch), since they are the walks that finish last and their load one step
// ahead still left each step waiting on DRAM.
//
// The same recurrence, term by term, as path_step: the same Lr integers.
//
// Editing this file does not make ninja rebuild sgm_path_pairs.cu (README, "Building by
// hand"): touch it.
#ifndef GVIS_SGM_PATH_RUN_CUH
#define GVIS_SGM_PATH_RUN_CUH

#include "sgm_path_kernel.cuh"

namespace {

// A lane holds P pairs: a run of 2 P disparities (P = 8: 8 lanes a line of 128, four lines
// a warp; P = 4: 16 lanes a line, two lines a warp, for the rows: see run_kernel).
template <int P>
struct run_shape {
    static constexpr int Q = 32 / P; // lanes a block of 64 disparities
    static constexpr int L = 2 * Q;  // lanes a line (two blocks)
};

// A lane's place: ln in its line, q = ln % Q (the run's place in its block of 64
// disparities), kb its first disparity, the line's lane mask, and its valid halves.
template <int P, bool FULL>
struct run_lane {
    int ln, q, kb;
    unsigned gmask;
    uint32_t vm[P];
    __device__ __forceinline__ explicit run_lane(int D)
    {
        constexpr int Q = run_shape<P>::Q, L = run_shape<P>::L;
        const int wl = threadIdx.x & 31;
        ln = wl & (L - 1);
        q = ln & (Q - 1);
        kb = 64 * (ln / Q) + P * q; // pair i: k = kb + i (low half), kb + i + 32 (high)
        gmask = line_mask<L>(wl);
#pragma unroll
        for (int i = 0; i < P; i++)
            vm[i] = FULL ? 0xffffffffu : (kb + i < D ? 0xffffu : 0u) | (kb + i + 32 < D ? 0xffff0000u : 0u);
    }
};

// One step of the recurrence for a lane's run of P pairs (path_step's rule):
//   Lr(k) = C(k) + min(Lr'(k), min(Lr'(k-1), Lr'(k+1)) + P1, m + P2) - m
template <int P, bool FULL>
__device__ __forceinline__ void run_step(const uint32_t (&prev)[P], int m, const uint32_t (&c)[P], int p1, int p2,
                                         const run_lane<P, FULL> &r, uint32_t (&cur)[P])
{
    constexpr int Q = run_shape<P>::Q, L = run_shape<P>::L;
    const uint32_t BIG2 = BIG * 0x10001u, P1x2 = (uint32_t)p1 * 0x10001u;
    const int ln = r.ln, q = r.q;
    // the run's ends: k - 1 of pair 0 and k + 1 of pair P - 1.  Inside a block (0 < q < Q - 1)
    // they are the neighbouring lanes' last and first pairs.  At q = 0 the low half's
    // k - 1 = 64 b - 1 is the high half of the lane before's last pair (BIG for the first
    // block) and the high half's k + 31 the low half of lane + Q - 1's last pair; at q = Q - 1
    // the low half's k + 1 = 64 b + 32 is the high half of lane - (Q - 1)'s first pair and the
    // high half's 64 (b + 1) the low half of the next lane's first pair (BIG past the last
    // block).
    const uint32_t A = __shfl_sync(r.gmask, prev[P - 1], (ln + L - 1) & (L - 1), L);
    const uint32_t B = __shfl_sync(r.gmask, prev[0], (ln + 1) & (L - 1), L);
    const uint32_t C = __shfl_sync(r.gmask, q == Q - 1 ? prev[P - 1] : prev[0],
                                   q == 0 ? ln + Q - 1 : q == Q - 1 ? ln - (Q - 1) : ln, L);
    const uint32_t left = q > 0 ? A : __byte_perm(ln == 0 ? BIG2 : A, C, 0x5432);
    const uint32_t right = q < Q - 1 ? B : __byte_perm(C, ln == L - 1 ? BIG2 : B, 0x5432);
    const uint32_t m2 = (uint32_t)m * 0x10001u, mp2 = (uint32_t)(m + p2) * 0x10001u;
#pragma unroll
    for (int i = 0; i < P; i++) {
        const uint32_t lo = i > 0 ? prev[i - 1] : left, hi = i < P - 1 ? prev[i + 1] : right;
        const uint32_t v = lr_pair(c[i], prev[i], lo, hi, P1x2, mp2, m2);
        cur[i] = FULL ? v : (v & r.vm[i]) | (BIG2 & ~r.vm[i]);
    }
}

// A pixel's path costs out to its direction's u8 volume at dst (the pixel's byte 0): the
// lane's pairs are two runs of P bytes, k = kb .. kb + P - 1 and kb + 32 .., each wholly
// below D or wholly past it (D % 16 = 0).
template <int P, bool FULL>
__device__ __forceinline__ void run_put(const uint32_t (&cur)[P], const run_lane<P, FULL> &r, uint8_t *dst, int D)
{
    uint32_t t[P / 2];
#pragma unroll
    for (int j = 0; j < P / 2; j++)
        t[j] = __byte_perm(cur[2 * j], cur[2 * j + 1], 0x6240); // the low bytes of k, k + 1, k + 32, k + 33
    if constexpr (P == 2) {
        if (FULL || r.kb < D)
            *reinterpret_cast<uint16_t *>(dst + r.kb) = (uint16_t)t[0];
        if (FULL || r.kb + 32 < D)
            *reinterpret_cast<uint16_t *>(dst + r.kb + 32) = (uint16_t)(t[0] >> 16);
    } else if constexpr (P == 8) {
        if (FULL || r.kb < D)
            *reinterpret_cast<uint2 *>(dst + r.kb) =
                make_uint2(__byte_perm(t[0], t[1], 0x5410), __byte_perm(t[P / 2 - 2], t[P / 2 - 1], 0x5410));
        if (FULL || r.kb + 32 < D)
            *reinterpret_cast<uint2 *>(dst + r.kb + 32) =
                make_uint2(__byte_perm(t[0], t[1], 0x7632), __byte_perm(t[P / 2 - 2], t[P / 2 - 1], 0x7632));
    } else {
        if (FULL || r.kb < D)
            *reinterpret_cast<uint32_t *>(dst + r.kb) = __byte_perm(t[0], t[1], 0x5410);
        if (FULL || r.kb + 32 < D)
            *reinterpret_cast<uint32_t *>(dst + r.kb + 32) = __byte_perm(t[0], t[1], 0x7632);
    }
}

// A lane's P words of the pixel at p, as loaded (u16 word: the cost of k in its low byte,
// of k + 32 in its high byte), and its P cost pairs from them.  The two are apart so that
// the load is issued a step ahead and the words are first read a step later (unpacked at
// the load, the warp waited for it there: ncu put 63 % of the stall samples on the first
// unpacking byte permute).
template <int P>
struct run_words {
    uint32_t w[P / 2];
};

template <int P>
__device__ __forceinline__ run_words<P> run_fetch(const uint16_t *p)
{
    run_words<P> r;
    if constexpr (P == 2) {
        r.w[0] = __ldg(reinterpret_cast<const uint32_t *>(p));
    } else if constexpr (P == 8) {
        const uint4 v = __ldg(reinterpret_cast<const uint4 *>(p));
        r.w[0] = v.x, r.w[1] = v.y, r.w[P / 2 - 2] = v.z, r.w[P / 2 - 1] = v.w;
    } else {
        const uint2 v = __ldg(reinterpret_cast<const uint2 *>(p));
        r.w[0] = v.x, r.w[P / 2 - 1] = v.y;
    }
    return r;
}

template <int P>
__device__ __forceinline__ void run_unpack(const run_words<P> &r, uint32_t (&cc)[P])
{
#pragma unroll
    for (int j = 0; j < P / 2; j++) {
        cc[2 * j] = __byte_perm(r.w[j], 0u, 0x4140);
        cc[2 * j + 1] = __byte_perm(r.w[j], 0u, 0x4342);
    }
}

struct run_args {
    const uint16_t *cost; // the costs of rows y0 .. in the pair layout, 64 u16 words a pixel
    const uint8_t *guide;
    int width, height, D, p1, p2, p2_adapt;
    int dir0;    // blockIdx.y = i walks direction dir0 + i (STRIP: dir0 + 2 i) into lr + i vol
    uint8_t *lr; // u8 volumes [y - y0][x][k], D a pixel
    size_t vol;
    int pf;    // P <= 4 (the rows of fewer pairs a lane): each step prefetches the costs pf steps
               // ahead into L2
    // 0 and height, or with STRIP (run_kernel) a strip y0 .. y1 - 1 of the vertical and
    // diagonal directions, whose lines carry their path costs from the strip before in
    // state (band_slot's slot of direction i at state + (i (W + H - 1) + slot) 64 words,
    // a lane's P pairs at P ln) and leave them there for the next one
    int y0, y1;
    uint32_t *state;
};

// A lane's P words of a line's state slot (STRIP), 64 words a slot.
template <int P>
__device__ __forceinline__ uint32_t *run_slot(const run_args &a, int x, int y, int rx, int ry, int ln)
{
    return a.state + ((size_t)blockIdx.y * (a.width + a.height - 1) + band_slot(x, y, rx, ry, a.height)) * 64 + P * ln;
}

// Line `line` of direction (rx, ry), P pairs a lane; STRIP: of the strip a.y0 .. a.y1 - 1.
template <int P, bool FULL, bool STRIP>
__device__ __forceinline__ void run_walk(const run_args &a, const uint8_t *p2lut, int line, int rx, int ry)
{
    const int W = a.width, H = a.height, D = a.D;
    int x, y;
    bool cont = false;
    if (STRIP ? !band_line_start(line, rx, ry, W, H, a.y0, a.y1, x, y, cont) : !line_start(line, rx, ry, W, H, x, y))
        return; // the line's lanes together
    const run_lane<P, FULL> r(D);
    // the line's pixels, and pointers at its first one that move a pixel a step
    const int y0 = STRIP ? a.y0 : 0, y1 = STRIP ? a.y1 : H;
    const int n = min(rx > 0 ? W - x : rx < 0 ? x + 1 : 0x7fffffff, ry > 0 ? y1 - y : ry < 0 ? y - y0 + 1 : 0x7fffffff);
    const long long pix = (long long)y * W + x, rel = pix - (long long)y0 * W, step = (long long)ry * W + rx;
    const uint16_t *cp = a.cost + rel * 64 + P * r.ln;
    const uint8_t *gp = a.guide + pix;
    uint8_t *op = a.lr + blockIdx.y * a.vol + rel * D;
    const uint32_t BIG2 = BIG * 0x10001u;
    uint32_t prev[P];
    run_words<P> w = run_fetch<P>(cp);
    int g = __ldg(gp), gprev = 0, m = 0;
    bool first = true;
    if (STRIP && cont) {
        // the path so far, as the strip before left it: prev[], its minimum (the same
        // reduction as after a step) and the previous pixel's guide value
        const uint32_t *slot = run_slot<P>(a, x, y, rx, ry, r.ln);
#pragma unroll
        for (int j = 0; j < P; j++)
            prev[j] = slot[j];
        uint32_t mm = prev[0];
#pragma unroll
        for (int j = 1; j < P; j++)
            mm = __vmins2(mm, prev[j]);
        m = line_min<run_shape<P>::L>(min((int)(mm & 0xffffu), (int)(mm >> 16)), r.gmask);
        gprev = __ldg(gp - step);
        first = false;
    }
    for (int i = 0; i < n; i++) {
        uint32_t c[P];
        run_unpack<P>(w, c);
        // the next pixel's loads (one step ahead: read at the next step)
        int gn = 0;
        if (i + 1 < n) {
            w = run_fetch<P>(cp + step * 64);
            gn = __ldg(gp + step);
        }
        // the rows' walks are the last to finish where they take 4 or 2 pairs a lane, and
        // a step's load a step ahead is not early enough for them (run_kernel)
        if (P <= 4 && a.pf > 0 && i + a.pf < n)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(cp + a.pf * step * 64));
        uint32_t cur[P];
        if (i == 0 && first) {
#pragma unroll
            for (int j = 0; j < P; j++)
                cur[j] = FULL ? c[j] : (c[j] & r.vm[j]) | (BIG2 & ~r.vm[j]);
        } else {
            run_step<P, FULL>(prev, m, c, a.p1, p2lut[abs(g - gprev)], r, cur);
        }
        uint32_t mm = cur[0];
#pragma unroll
        for (int j = 0; j < P; j++) {
            prev[j] = cur[j];
            mm = __vmins2(mm, cur[j]);
        }
        run_put<P, FULL>(cur, r, op, D);
        m = line_min<run_shape<P>::L>(min((int)(mm & 0xffffu), (int)(mm >> 16)), r.gmask);
        gprev = g;
        g = gn;
        cp += step * 64;
        gp += step;
        op += step * D;
    }
    if (STRIP) {
        // a line that goes on past the strip leaves its path costs for the next one
        const int lx = x + (n - 1) * rx, ly = y + (n - 1) * ry, nx = lx + rx, ny = ly + ry;
        if (nx >= 0 && nx < W && ny >= 0 && ny < H) {
            uint32_t *slot = run_slot<P>(a, lx, ly, rx, ry, r.ln);
#pragma unroll
            for (int j = 0; j < P; j++)
                slot[j] = prev[j];
        }
    }
}

// A block walks WARPS x 4 lines of direction dir0 + blockIdx.y; the rows (directions 0
// and 1) with RP pairs a lane (8, 4 or 2: WARPS x RP / 2 rows a block).  STRIP: the lines
// of directions dir0 + 2 blockIdx.y (no rows: dir0 2 the downward ones, 3 the upward) in the strip
// y0 .. y1 - 1.
template <bool FULL, int RP, bool STRIP = false>
__global__ void __launch_bounds__(WARPS * 32) run_kernel(run_args a)
{
    __shared__ uint8_t p2lut[256];
    fill_p2lut(p2lut, a.p1, a.p2, a.p2_adapt);
    __syncthreads();
    const int dir = a.dir0 + (int)blockIdx.y * (STRIP ? 2 : 1);
    const int rx = c_dirs[dir][0], ry = c_dirs[dir][1], warp = (int)(blockIdx.x * WARPS + (threadIdx.x >> 5));
    constexpr int RL = 32 / run_shape<RP>::L; // rows a warp
    if (!STRIP && RP != 8 && ry == 0)
        run_walk<RP, FULL, false>(a, p2lut, warp * RL + (threadIdx.x & 31) / run_shape<RP>::L, rx, ry);
    else
        run_walk<8, FULL, STRIP>(a, p2lut, warp * 4 + (threadIdx.x & 31) / 8, rx, ry);
}

// Helpers of the walks from the symmetric census codes into the sum volume in the run layout
// (sgm_rows.cu, sgm_down.cu).

// Their arguments: sgm_rows.cu's (its own, not path_args: with path_args the same kernel ran
// the 4K row 0.37 ms slower, call 99), and the first part of sgm_down.cu's.
struct codes_sum_args {
    const uint64_t *cl, *cr; // the censuses (cr: the right guide in bits 32-39 with ADC)
    const uint8_t *guide;    // the left guide (P2 and ad-census)
    uint8_t luts[128];       // ad-census tables (census 0..63, AD 0..63)
    int width, height, D, min_disp, p1, p2, p2_adapt;
    uint32_t *sum; // sw 32-bit words a pixel
    int sw, pf;    // pf: sgm_rows.cu's L2 prefetch distance of the second visits' words
};

__device__ __forceinline__ int clampx(int x, int W)
{
    return min(max(x, 0), W - 1);
}

// A disparity's cost: the census distance, plus with ADC the AD table at |gl - gr| (ad:
// widened to 256 entries, as sgm_cost_pairs.cu's).
template <bool ADC>
__device__ __forceinline__ uint32_t rcost(uint32_t l, int gl, uint32_t c, int gr, const uint8_t *ad)
{
    const uint32_t h = (uint32_t)__popc(l ^ c);
    return ADC ? h + ad[abs(gl - gr)] : h;
}

// A lane's P words of a pixel of the sum (P ln .. P ln + P - 1: 4 P contiguous bytes).
template <int P>
__device__ __forceinline__ void words_load(const uint32_t *p, uint32_t (&v)[P])
{
    if constexpr (P == 2) {
        const uint2 u = *reinterpret_cast<const uint2 *>(p);
        v[0] = u.x, v[1] = u.y;
    } else {
#pragma unroll
        for (int j = 0; j < P; j += 4) {
            const uint4 u = *reinterpret_cast<const uint4 *>(p + j);
            v[j] = u.x, v[j + 1] = u.y, v[j + 2] = u.z, v[j + 3] = u.w;
        }
    }
}

// The same from L2 (ld.global.cg: words another multiprocessor may have stored).
template <int P>
__device__ __forceinline__ void words_load_cg(const uint32_t *p, uint32_t (&v)[P])
{
#pragma unroll
    for (int j = 0; j < P; j += 4) {
        const uint4 u = __ldcg(reinterpret_cast<const uint4 *>(p + j));
        v[j] = u.x, v[j + 1] = u.y, v[j + 2] = u.z, v[j + 3] = u.w;
    }
}

template <int P>
__device__ __forceinline__ void words_store(uint32_t *p, const uint32_t (&v)[P])
{
    if constexpr (P == 2) {
        *reinterpret_cast<uint2 *>(p) = make_uint2(v[0], v[1]);
    } else {
#pragma unroll
        for (int j = 0; j < P; j += 4)
            *reinterpret_cast<uint4 *>(p + j) = make_uint4(v[j], v[j + 1], v[j + 2], v[j + 3]);
    }
}

// A lane's P words of path costs (each half at most 255) as P / 2 words of bytes, byte 2 j
// + h the half h of word j, and back (sgm_rows.cu: rows_half's first visits).
template <int P>
__device__ __forceinline__ void bytes_store(uint32_t *p, const uint32_t (&v)[P])
{
    if constexpr (P == 4)
        *reinterpret_cast<uint2 *>(p) = make_uint2(__byte_perm(v[0], v[1], 0x6420), __byte_perm(v[2], v[3], 0x6420));
    else
#pragma unroll
        for (int j = 0; j < P / 2; j += 4)
            *reinterpret_cast<uint4 *>(p + j) =
                make_uint4(__byte_perm(v[2 * j], v[2 * j + 1], 0x6420), __byte_perm(v[2 * j + 2], v[2 * j + 3], 0x6420),
                           __byte_perm(v[2 * j + 4], v[2 * j + 5], 0x6420), __byte_perm(v[2 * j + 6], v[2 * j + 7], 0x6420));
}

template <int P>
__device__ __forceinline__ void bytes_load(const uint32_t *p, uint32_t (&b)[P / 2])
{
    if constexpr (P == 4) {
        const uint2 u = *reinterpret_cast<const uint2 *>(p);
        b[0] = u.x, b[1] = u.y;
    } else {
#pragma unroll
        for (int j = 0; j < P / 2; j += 4) {
            const uint4 u = *reinterpret_cast<const uint4 *>(p + j);
            b[j] = u.x, b[j + 1] = u.y, b[j + 2] = u.z, b[j + 3] = u.w;
        }
    }
}

template <int P>
__device__ __forceinline__ void bytes_unpack(const uint32_t (&b)[P / 2], uint32_t (&v)[P])
{
#pragma unroll
    for (int j = 0; j < P / 2; j++)
        v[2 * j] = __byte_perm(b[j], 0, 0x4140), v[2 * j + 1] = __byte_perm(b[j], 0, 0x4342);
}

} // namespace

#endif
