/* Phase matching on the CPU (lib/stereo/phase.h rules 1-8): rows over the worker
 * threads; per row the lit rows (unlit = -inf, padded with -inf either side), their
 * running maxima for the ordered search, and per pixel the candidates, the window costs
 * and the sub-pixel position.  The ordered search with the default window of 3 (the
 * common case) tests its candidates eight at a time with SSE2 (ordered3); every other
 * case goes one candidate at a time.  Both compute the rule's float operations in its
 * order, so the maps are the same bit for bit (and the same as the GPU's). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phase.h"

typedef struct {
    const float *own, *other; /* lit rows: unlit = -inf */
    const float *smax;        /* other's running maximum within its runs (ordered search) */
    const int *rstart;        /* the start of the run holding each position */
    int W, M, D, h, ordered, subpixel;
    float T;
} row_ctx;

static inline float window_cost(const float *A, const float *B, int W, int x, int xb, int h)
{
    if (h == 1 && x >= 1 && x + 1 < W && xb >= 1 && xb + 1 < W) {
        /* the common case, the same sum in the same order: 0 + t0 is t0 exactly */
        const float a0 = A[x - 1], a1 = A[x], a2 = A[x + 1], b0 = B[xb - 1], b1 = B[xb], b2 = B[xb + 1];
        if (a0 != -INFINITY && a2 != -INFINITY && b0 != -INFINITY && b2 != -INFINITY && a1 != -INFINITY &&
            b1 != -INFINITY)
            return (fabsf(a0 - b0) + fabsf(a1 - b1) + fabsf(a2 - b2)) / 3.0f;
    }
    float s = 0.0f;
    int n = 0;
    for (int j = -h; j <= h; j++) {
        const int xa = x + j, xc = xb + j;
        if (xa < 0 || xa >= W || xc < 0 || xc >= W)
            continue;
        const float a = A[xa], b = B[xc];
        if (a == -INFINITY || b == -INFINITY)
            continue;
        s += fabsf(a - b);
        n++;
    }
    return s / (float)n;
}

/* The first k in [lo, hi + 1) with fl(S(k) - p) >= -T (S nondecreasing), starting
 * from a guess: a few steps either way, else a binary search. */
static inline int first_at_least(const float *S, int lo, int hi, float p, float T, int guess)
{
    int k = guess < lo ? lo : guess > hi + 1 ? hi + 1 : guess;
    int steps = 0;
    if (k > hi || S[k] - p >= -T) { /* the answer is at or before k (hi + 1 stands for "none") */
        while (k > lo && S[k - 1] - p >= -T && steps++ < 8)
            k--;
        if (!(k > lo && S[k - 1] - p >= -T))
            return k;
        int a = lo, b = k; /* the answer is in [a, b) */
        while (a < b) {
            int m = a + (b - a) / 2;
            if (S[m] - p >= -T)
                b = m;
            else
                a = m + 1;
        }
        return a;
    }
    while (k <= hi && !(S[k] - p >= -T) && steps++ < 8)
        k++;
    if (k > hi || S[k] - p >= -T)
        return k;
    int a = k, b = hi + 1;
    while (a < b) {
        int m = a + (b - a) / 2;
        if (S[m] - p >= -T)
            b = m;
        else
            a = m + 1;
    }
    return a;
}

/* Rule 4 for the winner bx of pixel x (phase p) without a branch on the side, which the
 * data decide: the padding of the row is -inf, so a neighbour outside the row fails as
 * an unlit one.  The disparity (rule 6 for the right view, s > 0). */
static inline float subpixel_disp(const float *B, int x, int s, int bx, float p, int subpixel)
{
    float off = 0.0f;
    if (subpixel) {
        const float r0 = B[bx], e = p - r0;
        const int up = e >= 0.0f;
        const float r1 = B[up ? bx + 1 : bx - 1];
        const float t = (up ? e : -e) / (up ? r1 - r0 : r0 - r1), t1 = t > 1.0f ? 1.0f : t;
        const int use = r1 != -INFINITY && (up ? r1 > r0 : r1 < r0);
        off = use ? (up ? t1 : -t1) : 0.0f;
    }
    return s < 0 ? (float)(x - bx) - off : (float)(bx - x) + off;
}

#ifdef __SSE2__
#include <emmintrin.h>
#define PHASE_GROUPS 1

/* The first k in [lo, hi + 1) where fl(S(k) - p) < q (le 0) or <= q (le 1) fails (hi + 1
 * when none does); S does not fall, so the k that pass are a prefix.  From a guess:
 * eight at a time forwards, else a binary search. */
static inline __attribute__((always_inline)) int first_fail(const float *S, int lo, int hi, float p, float q, int le,
                                                            int guess)
{
#define PASS(v) (le ? (v) - p <= q : (v) - p < q)
    int k = guess < lo ? lo : guess > hi + 1 ? hi + 1 : guess, a = lo;
    if (k > lo && !PASS(S[k - 1])) { /* the answer is before k */
        hi = k - 1;
    } else {
        const __m128 vp = _mm_set1_ps(p), vq = _mm_set1_ps(q);
        for (int step = 0; step < 2 && k <= hi; step++, k += 8) {
            const __m128 d0 = _mm_sub_ps(_mm_loadu_ps(S + k), vp), d1 = _mm_sub_ps(_mm_loadu_ps(S + k + 4), vp);
            const int pass = le ? _mm_movemask_ps(_mm_cmple_ps(d0, vq)) | _mm_movemask_ps(_mm_cmple_ps(d1, vq)) << 4
                                : _mm_movemask_ps(_mm_cmplt_ps(d0, vq)) | _mm_movemask_ps(_mm_cmplt_ps(d1, vq)) << 4;
            if (pass != 0xff) { /* lanes past hi may pass or fail: the answer is at most hi + 1 */
                const int f = k + __builtin_ctz(~pass);
                return f > hi + 1 ? hi + 1 : f;
            }
        }
        if (k > hi)
            return hi + 1;
        a = k;
    }
    int b = hi + 1; /* the answer is in [a, b] */
    while (a < b) {
        const int m = a + (b - a) / 2;
        if (PASS(S[m]))
            a = m + 1;
        else
            b = m;
    }
    return a;
#undef PASS
}

/* Pixels x .. x + 3 of the own row at once, one per lane, for the ordered search with
 * window 3, when the four and their neighbours x - 1 and x + 4 are lit and the union of
 * their ranges lies in one run of the other row (rule 5); returns 0 otherwise.
 *
 * The candidates of every lane lie in [kf, ke), kf the first k with
 * fl(S(k) - pmin) >= -T and ke the first with fl(S(k) - pmax) > T over the union (pmin,
 * pmax: the least and largest of the four phases; fl(S - p) does not rise with p), so the
 * lanes walk the disparities d that reach [kf, ke) from any of them, ascending.  At each
 * d, lane i tests k = x + i -/+ d by rule 1 (|e| <= T, e = fl(B(k) - p_i); k outside the
 * row reads the -inf padding and fails) and, for a candidate, the cost of rule 2,
 * ((|a- - B(k-1)| + |e|) + |a+ - B(k+1)|) / 3: the rule's sum in its order (0 + t0 = t0,
 * |p - B(k)| = |e| exactly) when both neighbours of k are lit and in the row; where one
 * is not, the lane's sum is +inf and it is summed again pair by pair.  The least cost
 * wins and, d ascending, a tie keeps the smaller d (rule 3).  hf, he: where the previous
 * group's kf and ke were. */
static inline __attribute__((always_inline)) int group4(const row_ctx *r, int x, const int s, float *out, int *hf,
                                                         int *he)
{
    const float *A = r->own, *B = r->other, *S = r->smax;
    const int W = r->W, M = r->M, D = r->D;
    const float T = r->T;
    const __m128 ninf = _mm_set1_ps(-INFINITY);
    const __m128 am = _mm_loadu_ps(A + x - 1), vp = _mm_loadu_ps(A + x), ap = _mm_loadu_ps(A + x + 1);
    if (_mm_movemask_ps(_mm_or_ps(_mm_cmpeq_ps(am, ninf), _mm_cmpeq_ps(ap, ninf))))
        return 0;
    int lo = s < 0 ? x - (M + D - 1) : x + M, hi0 = s < 0 ? x - M : x + M + D - 1;
    int lo3 = lo + 3, hi = hi0 + 3;
    lo = lo < 0 ? 0 : lo, lo3 = lo3 < 0 ? 0 : lo3;
    hi0 = hi0 > W - 1 ? W - 1 : hi0, hi = hi > W - 1 ? W - 1 : hi;
    if (lo > hi0 || lo3 > hi || r->rstart[hi] > lo)
        return 0;
    __m128 mn = _mm_min_ps(vp, _mm_shuffle_ps(vp, vp, _MM_SHUFFLE(2, 3, 0, 1)));
    __m128 mx = _mm_max_ps(vp, _mm_shuffle_ps(vp, vp, _MM_SHUFFLE(2, 3, 0, 1)));
    mn = _mm_min_ps(mn, _mm_shuffle_ps(mn, mn, _MM_SHUFFLE(1, 0, 3, 2)));
    mx = _mm_max_ps(mx, _mm_shuffle_ps(mx, mx, _MM_SHUFFLE(1, 0, 3, 2)));
    const int kf = first_fail(S, lo, hi, _mm_cvtss_f32(mn), -T, 0, *hf);
    *hf = kf;
    const int ke = kf > hi ? kf : first_fail(S, kf, hi, _mm_cvtss_f32(mx), T, 1, *he > kf ? *he : kf);
    *he = ke;
    int dlo = s < 0 ? x - ke + 1 : kf - x - 3, dhi = s < 0 ? x + 3 - kf : ke - 1 - x;
    dlo = dlo < M ? M : dlo;
    dhi = dhi > M + D - 1 ? M + D - 1 : dhi;
    const __m128 sign = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), inf = _mm_set1_ps(INFINITY);
    const __m128 vT = _mm_set1_ps(T), three = _mm_set1_ps(3.0f);
    __m128 best = inf;
    __m128i bd = _mm_set1_epi32(INT_MIN), dv = _mm_set1_epi32(dlo);
    const __m128i one = _mm_set1_epi32(1);
    /* lane 0's k: x - d (left view) or x + d; lane i's is kb + i */
    for (int kb = x + s * dlo, kend = x + s * (dhi + 1); kb != kend; kb += s, dv = _mm_add_epi32(dv, one)) {
        const __m128 ae = _mm_and_ps(_mm_sub_ps(_mm_loadu_ps(B + kb), vp), sign);
        const __m128 ok = _mm_cmple_ps(ae, vT);
        const __m128 t0 = _mm_and_ps(_mm_sub_ps(am, _mm_loadu_ps(B + kb - 1)), sign);
        const __m128 t2 = _mm_and_ps(_mm_sub_ps(ap, _mm_loadu_ps(B + kb + 1)), sign);
        __m128 c = _mm_div_ps(_mm_add_ps(_mm_add_ps(t0, ae), t2), three);
        const int redo = _mm_movemask_ps(_mm_andnot_ps(_mm_cmplt_ps(c, inf), ok));
        if (__builtin_expect(redo, 0)) {
            float cs[4];
            _mm_storeu_ps(cs, c);
            for (int i = 0; i < 4; i++)
                if (redo >> i & 1)
                    cs[i] = window_cost(A, B, W, x + i, kb + i, 1);
            c = _mm_loadu_ps(cs);
        }
        const __m128 upd = _mm_and_ps(ok, _mm_cmplt_ps(c, best));
        best = _mm_or_ps(_mm_and_ps(upd, c), _mm_andnot_ps(upd, best));
        bd = _mm_or_si128(_mm_and_si128(_mm_castps_si128(upd), dv), _mm_andnot_si128(_mm_castps_si128(upd), bd));
    }
    /* rule 4 on the lanes, the operations of subpixel_disp: r0 = B(bx), e = p - r0, the
     * neighbour r1 on the side of p, t = e / (r1 - r0) or -e / (r0 - r1), at most 1 (t is
     * no NaN where it is used: r1 - r0 or r0 - r1 is then > 0); lanes without a match
     * look at bx = x + i and are NaN in the end */
    const __m128 found = _mm_cmplt_ps(best, inf);
    bd = _mm_and_si128(bd, _mm_castps_si128(found));
    const __m128i xi = _mm_add_epi32(_mm_set1_epi32(x), _mm_setr_epi32(0, 1, 2, 3));
    int bx[4];
    _mm_storeu_si128((__m128i *)bx, s < 0 ? _mm_sub_epi32(xi, bd) : _mm_add_epi32(xi, bd));
    __m128 disp = _mm_cvtepi32_ps(bd); /* (float)(x - bx) or (float)(bx - x) */
    if (r->subpixel) {
        const __m128 neg = _mm_set1_ps(-0.0f);
        const __m128 r0 = _mm_setr_ps(B[bx[0]], B[bx[1]], B[bx[2]], B[bx[3]]);
        const __m128 rp = _mm_setr_ps(B[bx[0] + 1], B[bx[1] + 1], B[bx[2] + 1], B[bx[3] + 1]);
        const __m128 rm = _mm_setr_ps(B[bx[0] - 1], B[bx[1] - 1], B[bx[2] - 1], B[bx[3] - 1]);
        const __m128 e = _mm_sub_ps(vp, r0), up = _mm_cmpge_ps(e, _mm_setzero_ps());
#define SEL(m, a, b) _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b))
        const __m128 r1 = SEL(up, rp, rm);
        const __m128 t = _mm_div_ps(SEL(up, e, _mm_xor_ps(e, neg)), SEL(up, _mm_sub_ps(r1, r0), _mm_sub_ps(r0, r1)));
        const __m128 t1 = _mm_min_ps(t, _mm_set1_ps(1.0f));
        const __m128 use = _mm_andnot_ps(_mm_cmpeq_ps(r1, ninf), SEL(up, _mm_cmpgt_ps(r1, r0), _mm_cmplt_ps(r1, r0)));
        const __m128 off = _mm_and_ps(use, SEL(up, t1, _mm_xor_ps(t1, neg)));
        disp = s < 0 ? _mm_sub_ps(disp, off) : _mm_add_ps(disp, off);
    }
    _mm_storeu_ps(out, SEL(found, disp, _mm_set1_ps(NAN)));
#undef SEL
    return 1;
}

/* The two views, each with its s fixed. */
static int group4_left(const row_ctx *r, int x, float *out, int *hf, int *he) { return group4(r, x, -1, out, hf, he); }
static int group4_right(const row_ctx *r, int x, float *out, int *hf, int *he) { return group4(r, x, 1, out, hf, he); }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PHASE_AVX2 1
#define AVX2 __attribute__((target("avx2")))

/* group4 with eight pixels x .. x + 7 in the lanes of AVX2 (where the processor has it):
 * the same tests and float operations, lane for lane; the padding of eight either side
 * of the rows covers the reads (k from kf - 7 to ke - 1, each with its neighbours). */
static inline AVX2 __attribute__((always_inline)) int group8(const row_ctx *r, int x, const int s, float *out,
                                                             int *hf, int *he)
{
    const float *A = r->own, *B = r->other, *S = r->smax;
    const int W = r->W, M = r->M, D = r->D;
    const float T = r->T;
    const __m256 ninf = _mm256_set1_ps(-INFINITY);
    const __m256 am = _mm256_loadu_ps(A + x - 1), vp = _mm256_loadu_ps(A + x), ap = _mm256_loadu_ps(A + x + 1);
    if (_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(am, ninf, _CMP_EQ_OQ), _mm256_cmp_ps(ap, ninf, _CMP_EQ_OQ))))
        return 0;
    int lo = s < 0 ? x - (M + D - 1) : x + M, hi0 = s < 0 ? x - M : x + M + D - 1;
    int lo7 = lo + 7, hi = hi0 + 7;
    lo = lo < 0 ? 0 : lo, lo7 = lo7 < 0 ? 0 : lo7;
    hi0 = hi0 > W - 1 ? W - 1 : hi0, hi = hi > W - 1 ? W - 1 : hi;
    if (lo > hi0 || lo7 > hi || r->rstart[hi] > lo)
        return 0;
    __m128 mn = _mm_min_ps(_mm256_castps256_ps128(vp), _mm256_extractf128_ps(vp, 1));
    __m128 mx = _mm_max_ps(_mm256_castps256_ps128(vp), _mm256_extractf128_ps(vp, 1));
    mn = _mm_min_ps(mn, _mm_shuffle_ps(mn, mn, _MM_SHUFFLE(2, 3, 0, 1)));
    mx = _mm_max_ps(mx, _mm_shuffle_ps(mx, mx, _MM_SHUFFLE(2, 3, 0, 1)));
    mn = _mm_min_ps(mn, _mm_shuffle_ps(mn, mn, _MM_SHUFFLE(1, 0, 3, 2)));
    mx = _mm_max_ps(mx, _mm_shuffle_ps(mx, mx, _MM_SHUFFLE(1, 0, 3, 2)));
    const int kf = first_fail(S, lo, hi, _mm_cvtss_f32(mn), -T, 0, *hf);
    *hf = kf;
    const int ke = kf > hi ? kf : first_fail(S, kf, hi, _mm_cvtss_f32(mx), T, 1, *he > kf ? *he : kf);
    *he = ke;
    int dlo = s < 0 ? x - ke + 1 : kf - x - 7, dhi = s < 0 ? x + 7 - kf : ke - 1 - x;
    dlo = dlo < M ? M : dlo;
    dhi = dhi > M + D - 1 ? M + D - 1 : dhi;
    const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)), inf = _mm256_set1_ps(INFINITY);
    const __m256 vT = _mm256_set1_ps(T), three = _mm256_set1_ps(3.0f);
    __m256 best = inf;
    __m256i bd = _mm256_set1_epi32(INT_MIN), dv = _mm256_set1_epi32(dlo);
    const __m256i one = _mm256_set1_epi32(1);
    for (int kb = x + s * dlo, kend = x + s * (dhi + 1); kb != kend; kb += s, dv = _mm256_add_epi32(dv, one)) {
        const __m256 ae = _mm256_and_ps(_mm256_sub_ps(_mm256_loadu_ps(B + kb), vp), sign);
        const __m256 ok = _mm256_cmp_ps(ae, vT, _CMP_LE_OQ);
        const __m256 t0 = _mm256_and_ps(_mm256_sub_ps(am, _mm256_loadu_ps(B + kb - 1)), sign);
        const __m256 t2 = _mm256_and_ps(_mm256_sub_ps(ap, _mm256_loadu_ps(B + kb + 1)), sign);
        __m256 c = _mm256_div_ps(_mm256_add_ps(_mm256_add_ps(t0, ae), t2), three);
        const int redo = _mm256_movemask_ps(_mm256_andnot_ps(_mm256_cmp_ps(c, inf, _CMP_LT_OQ), ok));
        if (__builtin_expect(redo, 0)) {
            float cs[8];
            _mm256_storeu_ps(cs, c);
            for (int i = 0; i < 8; i++)
                if (redo >> i & 1)
                    cs[i] = window_cost(A, B, W, x + i, kb + i, 1);
            c = _mm256_loadu_ps(cs);
        }
        const __m256 upd = _mm256_and_ps(ok, _mm256_cmp_ps(c, best, _CMP_LT_OQ));
        best = _mm256_blendv_ps(best, c, upd);
        bd = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(bd), _mm256_castsi256_ps(dv), upd));
    }
    const __m256 found = _mm256_cmp_ps(best, inf, _CMP_LT_OQ);
    bd = _mm256_and_si256(bd, _mm256_castps_si256(found));
    const __m256i xi = _mm256_add_epi32(_mm256_set1_epi32(x), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i bx = s < 0 ? _mm256_sub_epi32(xi, bd) : _mm256_add_epi32(xi, bd);
    __m256 disp = _mm256_cvtepi32_ps(bd);
    if (r->subpixel) {
        const __m256 neg = _mm256_set1_ps(-0.0f);
        const __m256 r0 = _mm256_i32gather_ps(B, bx, 4), rp = _mm256_i32gather_ps(B + 1, bx, 4);
        const __m256 rm = _mm256_i32gather_ps(B - 1, bx, 4);
        const __m256 e = _mm256_sub_ps(vp, r0), up = _mm256_cmp_ps(e, _mm256_setzero_ps(), _CMP_GE_OQ);
        const __m256 r1 = _mm256_blendv_ps(rm, rp, up);
        const __m256 t = _mm256_div_ps(_mm256_blendv_ps(_mm256_xor_ps(e, neg), e, up),
                                       _mm256_blendv_ps(_mm256_sub_ps(r0, r1), _mm256_sub_ps(r1, r0), up));
        const __m256 t1 = _mm256_min_ps(t, _mm256_set1_ps(1.0f));
        const __m256 use = _mm256_andnot_ps(_mm256_cmp_ps(r1, ninf, _CMP_EQ_OQ),
                                            _mm256_blendv_ps(_mm256_cmp_ps(r1, r0, _CMP_LT_OQ),
                                                             _mm256_cmp_ps(r1, r0, _CMP_GT_OQ), up));
        const __m256 off = _mm256_and_ps(use, _mm256_blendv_ps(_mm256_xor_ps(t1, neg), t1, up));
        disp = s < 0 ? _mm256_sub_ps(disp, off) : _mm256_add_ps(disp, off);
    }
    _mm256_storeu_ps(out, _mm256_blendv_ps(_mm256_set1_ps(NAN), disp, found));
    return 1;
}

static AVX2 int group8_left(const row_ctx *r, int x, float *out, int *hf, int *he) { return group8(r, x, -1, out, hf, he); }
static AVX2 int group8_right(const row_ctx *r, int x, float *out, int *hf, int *he) { return group8(r, x, 1, out, hf, he); }
#endif
#endif

/* Rules 1-6 for pixel x of the own row; s = -1: left view (match x - d), +1: right view
 * (match x + d).  *hint carries the ordered search's position from pixel to pixel. */
static float match_px(const row_ctx *r, int x, int s, int *hint)
{
    const float *A = r->own, *B = r->other;
    const int W = r->W, M = r->M, D = r->D;
    const float p = A[x], T = r->T;
    if (p == -INFINITY)
        return NAN;
    int lo = s < 0 ? x - (M + D - 1) : x + M, hi = s < 0 ? x - M : x + M + D - 1;
    if (lo < 0)
        lo = 0;
    if (hi > W - 1)
        hi = W - 1;
    if (lo > hi)
        return NAN;
    float best = INFINITY;
    int bx = -1, bd = 0;
    /* A candidate's cost is at least fl(|e| / window): its sum holds |e| and adds only
     * terms >= 0, and the divisor is at most the window.  A candidate whose bound
     * exceeds the best cost cannot win nor tie, so its window is not summed.  Ties go
     * to the smaller d whatever the order of the visits. */
    const float nmax = (float)(2 * r->h + 1);
#define VISIT(k)                                                                                   \
    do {                                                                                           \
        const float e_ = B[k] - p;                                                                 \
        if (e_ >= -T && e_ <= T && !(fabsf(e_) / nmax > best)) {                                   \
            const float c_ = window_cost(A, B, W, x, (k), r->h);                                   \
            const int d_ = s < 0 ? x - (k) : (k) - x;                                              \
            if (c_ < best || (c_ == best && d_ < bd)) {                                            \
                best = c_;                                                                         \
                bx = (k);                                                                          \
                bd = d_;                                                                           \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    if (r->ordered) {
        /* the runs of the row (rule 5) from the right end of the range leftwards; in each
         * the lit phases do not fall, so the candidates form one stretch */
        const float *S = r->smax;
        for (int re = hi; re >= lo;) {
            const int rs = r->rstart[re], a = rs > lo ? rs : lo;
            if (S[re] - p >= -T) {
                const int kf = first_at_least(S, a, re, p, T, re == hi ? *hint : a);
                if (re == hi)
                    *hint = kf;
                /* the candidates lie in [kf, kend); the ones either side of where the
                 * phase crosses p go first, so that the bound prunes most of the others */
                int kc = kf;
                while (kc <= re && S[kc] - p < 0.0f && !(S[kc] - p > T))
                    kc++;
                int kend = kc;
                while (kend <= re && !(S[kend] - p > T))
                    kend++;
                if (kc < kend)
                    VISIT(kc);
                if (kc - 1 >= kf)
                    VISIT(kc - 1);
                for (int k = kf; k < kend; k++)
                    if (k != kc && k != kc - 1)
                        VISIT(k);
            }
            re = rs - 1;
        }
    } else {
        /* every d from M up: xb = x + s d */
        const int d0 = s < 0 ? x - hi : lo - x, d1 = s < 0 ? x - lo : hi - x;
        for (int d = d0; d <= d1; d++) {
            const int xb = x + s * d;
            VISIT(xb);
        }
    }
#undef VISIT
    if (bx < 0)
        return NAN;
    return subpixel_disp(B, x, s, bx, p, r->subpixel);
}

typedef struct {
    const float *a, *b;
    size_t pitch;
    int width, height;
    const gvis_phase_params *p;
    int right_view;
    float *out;
    float *scratch; /* per task: 2 padded float rows, 2 float rows, 2 int rows */
    int simd;       /* the grouped search: 0 none, 1 SSE2 (four pixels), 2 AVX2 (eight) */
} match_job;

/* -inf either side of a lit row (ordered3 reads one pixel before it and up to eight
 * after, the sub-pixel step one either side); the running maxima have room for eight
 * after. */
#define ROW_PAD 8
static size_t task_floats(int W) { return 2 * ((size_t)W + 2 * ROW_PAD) + 2 * ((size_t)W + ROW_PAD) + 2 * (size_t)W; }

/* The lit row (unlit = -inf). */
static void lit_row(const float *src, int W, float V, float *dst)
{
    for (int x = 0; x < W; x++)
        dst[x] = src[x] > V ? src[x] : -INFINITY;
}

/* The runs of a lit row (a run starts at a lit pixel whose phase is below the previous
 * lit one's) and the running maximum within each run. */
static void row_runs(const float *lit, int W, float *smax, int *rstart)
{
    float m = -INFINITY, last = -INFINITY;
    int rs = 0;
    for (int x = 0; x < W; x++) {
        const float v = lit[x];
        if (v != -INFINITY) {
            if (v < last) {
                rs = x;
                m = -INFINITY;
            }
            last = v;
            m = v > m ? v : m;
        }
        smax[x] = m;
        rstart[x] = rs;
    }
}

static void match_task(void *arg, int index, int count)
{
    const match_job *j = arg;
    const gvis_phase_params *p = j->p;
    const int W = j->width;
    int x0 = 0, y0 = 0, x1 = W, y1 = j->height;
    if (p->have_roi)
        x0 = p->roi[0], y0 = p->roi[1], x1 = p->roi[2], y1 = p->roi[3];
    size_t r0, r1;
    gvis_split((size_t)(y1 - y0), index, count, &r0, &r1);
    if (r0 == r1)
        return;
    float *buf = j->scratch + (size_t)index * task_floats(W);
    float *la = buf + ROW_PAD, *ra = la + W + 2 * ROW_PAD, *sl = ra + W + ROW_PAD, *sr = sl + W + ROW_PAD;
    int *rsl = (int *)(sr + W + ROW_PAD), *rsr = rsl + W;
    for (int i = 0; i < ROW_PAD; i++) {
        la[-1 - i] = la[W + i] = ra[-1 - i] = ra[W + i] = -INFINITY;
        sl[W + i] = sr[W + i] = INFINITY; /* read past the range, never used */
    }
    row_ctx L = {la, ra, sr, rsr, W, p->min_disp, p->num_disp, (p->window - 1) / 2,
                 p->search == GVIS_PHASE_ORDERED, p->subpixel, p->tol};
    row_ctx R = {ra, la, sl, rsl, W, p->min_disp, p->num_disp, (p->window - 1) / 2,
                 p->search == GVIS_PHASE_ORDERED, p->subpixel, p->tol};
    const row_ctx *own = j->right_view ? &R : &L, *oth = j->right_view ? &L : &R;
    const int s = j->right_view ? 1 : -1;
    const int groups = p->search == GVIS_PHASE_ORDERED && p->window == 3 ? j->simd : 0;
    (void)groups; /* no SIMD groups on a processor without SSE2 */
    for (size_t r = r0; r < r1; r++) {
        const size_t y = (size_t)y0 + r;
        lit_row(j->a + y * j->pitch, W, p->valid_min, la);
        lit_row(j->b + y * j->pitch, W, p->valid_min, ra);
        /* the ordered search of a view needs the other row's runs; the check searches both */
        if (p->search == GVIS_PHASE_ORDERED) {
            if (j->right_view || p->lr_check >= 0)
                row_runs(la, W, sl, rsl);
            if (!j->right_view || p->lr_check >= 0)
                row_runs(ra, W, sr, rsr);
        }
        float *o = j->out + r * (size_t)(x1 - x0);
        /* pixel x starts its search where pixel x - 4 found its first candidate, not
         * x - 1: the pixels' searches then do not wait one for another */
        int hint[4] = {0, 0, 0, 0}, hint2[4] = {0, 0, 0, 0}, hf = 0, he = 0;
        for (int x = x0; x < x1;) {
            float v[8];
            int n = 1;
#ifdef PHASE_AVX2
            if (groups >= 2 && x + 8 <= x1 &&
                (s < 0 ? group8_left(own, x, v, &hf, &he) : group8_right(own, x, v, &hf, &he)))
                n = 8;
            else
#endif
#ifdef PHASE_GROUPS
                if (groups >= 1 && x + 4 <= x1 &&
                    (s < 0 ? group4_left(own, x, v, &hf, &he) : group4_right(own, x, v, &hf, &he)))
                n = 4;
            else
#endif
                v[0] = match_px(own, x, s, &hint[x & 3]);
            for (int i = 0; i < n; i++, x++) {
                if (p->lr_check >= 0 && !isnan(v[i])) {
                    const int xo = x + s * (int)floorf(v[i] + 0.5f);
                    if (xo < 0 || xo >= W) {
                        v[i] = NAN;
                    } else {
                        const float w = match_px(oth, xo, -s, &hint2[xo & 3]);
                        if (isnan(w) || fabsf(v[i] - w) > (float)p->lr_check)
                            v[i] = NAN;
                    }
                }
                o[x - x0] = v[i];
            }
        }
    }
}

static int simd_cap = 2;
void gvis_phase_cpu_simd(int level) { simd_cap = level; }

int gvis_phase_match_cpu(const float *a, const float *b, size_t pitch, int width, int height,
                         const gvis_phase_params *p, int right_view, float *out)
{
    const int rows = p->have_roi ? p->roi[3] - p->roi[1] : height;
    int tasks = gvis_threads() * 4;
    if (tasks > rows)
        tasks = rows;
    float *scratch = malloc(sizeof(float) * task_floats(width) * (size_t)tasks);
    if (!scratch)
        return gvis_error(GVIS_E_NOMEM, "out of memory for phase matching rows");
    int simd = 0;
#ifdef PHASE_GROUPS
    simd = 1;
#endif
#ifdef PHASE_AVX2
    if (__builtin_cpu_supports("avx2"))
        simd = 2;
#endif
    match_job j = {a, b, pitch, width, height, p, right_view, out, scratch, simd < simd_cap ? simd : simd_cap};
    gvis_parallel(tasks, match_task, &j);
    free(scratch);
    return GVIS_OK;
}
