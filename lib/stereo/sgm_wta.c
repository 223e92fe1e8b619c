/* SGM step 5: winner takes all with uniqueness and subpixel, left and right views, CPU. */
#include <math.h>
#include <stdlib.h>
#include "sgm.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SGM_X86 1
#endif

int gvis_sgm_uniqueness_fixed(double uniqueness)
{
    int u = (int)lround(uniqueness * 256.0);
    return u < 0 ? 0 : u > 256 ? 256 : u;
}

static int16_t wta_finish(const uint16_t *s, int klo, int khi, int k0, uint32_t best, uint32_t second, int U,
                          int subpixel, int M)
{
    if (second != 0xffffffffu && 256u * best > (uint32_t)U * second)
        return GVIS_SGM_INVALID(M);
    int off = 0;
    if (subpixel && k0 - 1 >= klo && k0 + 1 <= khi) {
        const int a = s[k0 - 1], b = s[k0 + 1], c = (int)best;
        const int num = a - b, den = a + b - 2 * c;
        if (den > 0)
            off = num >= 0 ? (16 * num + den) / (2 * den) : -((16 * -num + den) / (2 * den));
    }
    return (int16_t)(16 * (M + k0) + off);
}

/* The rule of sgm.h step 5 for costs s[0..D) restricted to [klo, khi]. */
static int16_t wta_one_scalar(const uint16_t *s, int D, int klo, int khi, int U, int subpixel, int M)
{
    (void)D;
    if (klo > khi)
        return GVIS_SGM_INVALID(M);
    uint32_t best = 0xffffffffu, second = 0xffffffffu;
    int k0 = klo;
    for (int k = klo; k <= khi; k++)
        if (s[k] < best) {
            best = s[k];
            k0 = k;
        }
    for (int k = klo; k <= khi; k++)
        if ((k < k0 - 1 || k > k0 + 1) && s[k] < second)
            second = s[k];
    return wta_finish(s, klo, khi, k0, best, second, U, subpixel, M);
}

#ifdef SGM_X86
/* The same, 16 disparities per instruction (D a multiple of 16; costs < 0xffff). */
__attribute__((target("avx2")))
static int16_t wta_one_avx2(const uint16_t *s, int D, int klo, int khi, int U, int subpixel, int M)
{
    if (klo > khi)
        return GVIS_SGM_INVALID(M);
    const __m256i lane = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m256i ones = _mm256_set1_epi16(-1);
    const __m256i lo = _mm256_set1_epi16((short)(klo - 1)), hi = _mm256_set1_epi16((short)(khi + 1));
    const int full = klo == 0 && khi == D - 1;
    __m256i mn = ones;
    for (int k = 0; k < D; k += 16) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + k));
        if (!full) {
            __m256i idx = _mm256_add_epi16(lane, _mm256_set1_epi16((short)k));
            __m256i in = _mm256_and_si256(_mm256_cmpgt_epi16(idx, lo), _mm256_cmpgt_epi16(hi, idx));
            v = _mm256_blendv_epi8(ones, v, in);
        }
        mn = _mm256_min_epu16(mn, v);
    }
    __m128i m = _mm_min_epu16(_mm256_castsi256_si128(mn), _mm256_extracti128_si256(mn, 1));
    const uint32_t best = (uint32_t)_mm_cvtsi128_si32(_mm_minpos_epu16(m)) & 0xffff;
    int k0 = klo;
    const __m256i bv = _mm256_set1_epi16((short)best);
    for (int k = klo & ~15; k < D; k += 16) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + k));
        unsigned bits = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi16(v, bv));
        if (k < klo)
            bits &= ~0u << (2 * (klo - k));
        if (bits) {
            k0 = k + __builtin_ctz(bits) / 2;
            break;
        }
    }
    /* excluded: k0 - 1 <= k <= k0 + 1 */
    const __m256i xlo = _mm256_set1_epi16((short)(k0 - 2)), xhi = _mm256_set1_epi16((short)(k0 + 2));
    mn = ones;
    for (int k = 0; k < D; k += 16) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + k));
        __m256i idx = _mm256_add_epi16(lane, _mm256_set1_epi16((short)k));
        __m256i out = _mm256_and_si256(_mm256_cmpgt_epi16(idx, xlo), _mm256_cmpgt_epi16(xhi, idx));
        __m256i ok = _mm256_andnot_si256(out, ones);
        if (!full)
            ok = _mm256_and_si256(ok, _mm256_and_si256(_mm256_cmpgt_epi16(idx, lo), _mm256_cmpgt_epi16(hi, idx)));
        mn = _mm256_min_epu16(mn, _mm256_blendv_epi8(ones, v, ok));
    }
    m = _mm_min_epu16(_mm256_castsi256_si128(mn), _mm256_extracti128_si256(mn, 1));
    uint32_t second = (uint32_t)_mm_cvtsi128_si32(_mm_minpos_epu16(m)) & 0xffff;
    if (second == 0xffff)
        second = 0xffffffffu;
    return wta_finish(s, klo, khi, k0, best, second, U, subpixel, M);
}
#endif

#ifdef SGM_X86
/* Lane-parallel WTA of one row: the row's costs are transposed to T[k][x] (16-bit,
 * 8x8 blocks), with PADX columns of 0x7fff on both sides, and 0x7fff in the cells
 * whose match lies outside the right image.  Then 16 pixels go at
 * once, one per lane: for the left view lane x reads T[k][x], for the right view
 * lane x reads T[k][x + M + k] (a plain load: the diagonal of the volume becomes a
 * shifted row), and the padding stands for the left pixels outside the image.
 * Costs are at most 8 x 255 < 0x7fff, so signed 16-bit compares are exact. */
#define WPAD_SENT 0x7fff

__attribute__((target("avx2")))
static void transpose_row(const uint16_t *row, const uint16_t *row2, int W, int D, uint16_t *T, size_t Lp,
                          int padx)
{
    int x0 = 0;
    /* 8 pixels x 16 disparities per step: the 8x8 transposition runs in both 128-bit
     * lanes at once (disparities k0..k0+7 in the low lane, k0+8..k0+15 in the high one) */
    for (; x0 + 8 <= W; x0 += 8)
        for (int k0 = 0; k0 < D; k0 += 16) {
            __m256i r[8];
            for (int i = 0; i < 8; i++) {
                r[i] = _mm256_loadu_si256((const __m256i *)(row + (size_t)(x0 + i) * D + k0));
                if (row2)
                    r[i] = _mm256_add_epi16(r[i], _mm256_loadu_si256((const __m256i *)(row2 + (size_t)(x0 + i) * D + k0)));
            }
            __m256i a0 = _mm256_unpacklo_epi16(r[0], r[1]), a1 = _mm256_unpackhi_epi16(r[0], r[1]);
            __m256i a2 = _mm256_unpacklo_epi16(r[2], r[3]), a3 = _mm256_unpackhi_epi16(r[2], r[3]);
            __m256i a4 = _mm256_unpacklo_epi16(r[4], r[5]), a5 = _mm256_unpackhi_epi16(r[4], r[5]);
            __m256i a6 = _mm256_unpacklo_epi16(r[6], r[7]), a7 = _mm256_unpackhi_epi16(r[6], r[7]);
            __m256i b0 = _mm256_unpacklo_epi32(a0, a2), b1 = _mm256_unpackhi_epi32(a0, a2);
            __m256i b2 = _mm256_unpacklo_epi32(a1, a3), b3 = _mm256_unpackhi_epi32(a1, a3);
            __m256i b4 = _mm256_unpacklo_epi32(a4, a6), b5 = _mm256_unpackhi_epi32(a4, a6);
            __m256i b6 = _mm256_unpacklo_epi32(a5, a7), b7 = _mm256_unpackhi_epi32(a5, a7);
            __m256i c[8] = {_mm256_unpacklo_epi64(b0, b4), _mm256_unpackhi_epi64(b0, b4),
                            _mm256_unpacklo_epi64(b1, b5), _mm256_unpackhi_epi64(b1, b5),
                            _mm256_unpacklo_epi64(b2, b6), _mm256_unpackhi_epi64(b2, b6),
                            _mm256_unpacklo_epi64(b3, b7), _mm256_unpackhi_epi64(b3, b7)};
            for (int j = 0; j < 8; j++) {
                _mm_storeu_si128((__m128i *)(T + (size_t)(k0 + j) * Lp + padx + x0), _mm256_castsi256_si128(c[j]));
                _mm_storeu_si128((__m128i *)(T + (size_t)(k0 + 8 + j) * Lp + padx + x0),
                                 _mm256_extracti128_si256(c[j], 1));
            }
        }
    for (; x0 < W; x0++)
        for (int k = 0; k < D; k++)
            T[(size_t)k * Lp + padx + x0] =
                (uint16_t)(row[(size_t)x0 * D + k] + (row2 ? row2[(size_t)x0 * D + k] : 0));
}

/* wta_finish_ab() for the 16 pixels x0.. of a lane group, in two halves of 8 32-bit
 * lanes: the winner's neighbours by masked gathers from T (a 32-bit read whose high
 * half is dropped; T's padding keeps it inside), the parabola's division in float:
 * 16 |num| + den < 2^18 and 2 den < 2^15, so the quotient is never within float
 * rounding of the next integer and truncation gives the integer division's result. */
__attribute__((target("avx2")))
static void wta_finish16(const uint16_t *T, size_t Lp, int padx, int W, int D, int M, int U, int subpixel,
                         int right, int x0, __m256i best, __m256i k0v, __m256i second, int16_t *out)
{
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), zero = _mm256_setzero_si256();
    const __m256i one = _mm256_set1_epi32(1), Dm1 = _mm256_set1_epi32(D - 1), Mv = _mm256_set1_epi32(M);
    const __m256i Wv = _mm256_set1_epi32(W), Uv = _mm256_set1_epi32(U), sent = _mm256_set1_epi32(WPAD_SENT);
    const __m256i invalid = _mm256_set1_epi32(GVIS_SGM_INVALID(M)), lowmask = _mm256_set1_epi32(0xffff);
    const __m256i Lpv = _mm256_set1_epi32((int)Lp), base = _mm256_set1_epi32(padx + (right ? M : 0));
    __m256i res[2];
    for (int h = 0; h < 2; h++) {
        const __m256i b = _mm256_cvtepu16_epi32(h ? _mm256_extracti128_si256(best, 1) : _mm256_castsi256_si128(best));
        const __m256i k0 = _mm256_cvtepu16_epi32(h ? _mm256_extracti128_si256(k0v, 1) : _mm256_castsi256_si128(k0v));
        const __m256i sec =
            _mm256_cvtepu16_epi32(h ? _mm256_extracti128_si256(second, 1) : _mm256_castsi256_si128(second));
        const __m256i x = _mm256_add_epi32(_mm256_set1_epi32(x0 + 8 * h), iota);
        __m256i klo, khi;
        if (!right) {
            klo = _mm256_max_epi32(zero, _mm256_sub_epi32(_mm256_sub_epi32(x, _mm256_sub_epi32(Wv, one)), Mv));
            khi = _mm256_min_epi32(Dm1, _mm256_sub_epi32(x, Mv));
        } else {
            klo = _mm256_max_epi32(zero, _mm256_sub_epi32(_mm256_sub_epi32(zero, x), Mv));
            khi = _mm256_min_epi32(Dm1, _mm256_sub_epi32(_mm256_sub_epi32(_mm256_sub_epi32(Wv, one), x), Mv));
        }
        const __m256i bad_range = _mm256_cmpgt_epi32(klo, khi);
        /* second == WPAD_SENT: no second candidate, the uniqueness test passes */
        const __m256i bad_unique = _mm256_andnot_si256(
            _mm256_cmpeq_epi32(sec, sent), _mm256_cmpgt_epi32(_mm256_slli_epi32(b, 8), _mm256_mullo_epi32(Uv, sec)));
        __m256i off = zero;
        if (subpixel) {
            const __m256i km1 = _mm256_sub_epi32(k0, one), kp1 = _mm256_add_epi32(k0, one);
            const __m256i par = _mm256_andnot_si256(
                _mm256_or_si256(_mm256_cmpgt_epi32(klo, km1), _mm256_cmpgt_epi32(kp1, khi)), _mm256_cmpgt_epi32(Wv, x));
            /* T[k][padx + x (+ M + k for the right view)] for k = k0 -+ 1 */
            __m256i ia = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(km1, Lpv), base), x);
            __m256i ib = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(kp1, Lpv), base), x);
            if (right) {
                ia = _mm256_add_epi32(ia, km1);
                ib = _mm256_add_epi32(ib, kp1);
            }
            const __m256i a = _mm256_and_si256(
                _mm256_mask_i32gather_epi32(zero, (const int *)(const void *)T, ia, par, 2), lowmask);
            const __m256i c = _mm256_and_si256(
                _mm256_mask_i32gather_epi32(zero, (const int *)(const void *)T, ib, par, 2), lowmask);
            const __m256i num = _mm256_sub_epi32(a, c);
            const __m256i den = _mm256_sub_epi32(_mm256_add_epi32(a, c), _mm256_slli_epi32(b, 1));
            const __m256i use = _mm256_and_si256(par, _mm256_cmpgt_epi32(den, zero));
            const __m256 q = _mm256_div_ps(
                _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_slli_epi32(_mm256_abs_epi32(num), 4), den)),
                _mm256_cvtepi32_ps(_mm256_slli_epi32(_mm256_max_epi32(den, one), 1)));
            off = _mm256_and_si256(use, _mm256_sign_epi32(_mm256_cvttps_epi32(q), num));
        }
        const __m256i d = _mm256_add_epi32(_mm256_slli_epi32(_mm256_add_epi32(Mv, k0), 4), off);
        res[h] = _mm256_blendv_epi8(d, invalid, _mm256_or_si256(bad_range, bad_unique));
    }
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(res[0], res[1]), 0xd8);
    if (x0 + 16 <= W) {
        _mm256_storeu_si256((__m256i *)(out + x0), packed);
    } else {
        int16_t tmp[16];
        _mm256_storeu_si256((__m256i *)tmp, packed);
        for (int l = 0; x0 + l < W; l++)
            out[x0 + l] = tmp[l];
    }
}

/* One view of a row, 16 pixels per step; right = 0: left view, 1: right view. */
__attribute__((target("avx2")))
static void wta_lanes(const uint16_t *T, size_t Lp, int padx, int W, int D, int M, int U, int subpixel, int right,
                      int16_t *out)
{
    const __m256i sent = _mm256_set1_epi16(WPAD_SENT);
    const __m256i one = _mm256_set1_epi16(1), two = _mm256_set1_epi16(2);
    /* k runs down the rows of T; the right view's rows are shifted by one more each */
    const size_t step = Lp + (right ? 1 : 0);
    for (int x0 = 0; x0 < W; x0 += 16) {
        const uint16_t *src0 = T + padx + x0 + (right ? M : 0);
        __m256i best = sent, k0 = _mm256_setzero_si256(), kv = _mm256_setzero_si256();
        const uint16_t *src = src0;
        for (int k = 0; k < D; k++, src += step) {
            __m256i v = _mm256_loadu_si256((const __m256i *)src);
            __m256i lt = _mm256_cmpgt_epi16(best, v);
            best = _mm256_min_epi16(best, v);
            k0 = _mm256_blendv_epi8(k0, kv, lt);
            kv = _mm256_add_epi16(kv, one);
        }
        /* the second minimum away from the winner: k - (k0 - 1) in 0..2 (unsigned) marks
         * k0 - 1, k0, k0 + 1, which or-ing with all ones takes out of the unsigned minimum
         * (every sum, and the padding, is below 0x8000) */
        const __m256i k0m1 = _mm256_sub_epi16(k0, one);
        __m256i second = sent;
        kv = _mm256_setzero_si256();
        src = src0;
        for (int k = 0; k < D; k++, src += step) {
            __m256i v = _mm256_loadu_si256((const __m256i *)src);
            const __m256i t = _mm256_sub_epi16(kv, k0m1);
            const __m256i near = _mm256_cmpeq_epi16(_mm256_max_epu16(t, two), two);
            second = _mm256_min_epu16(second, _mm256_or_si256(v, near));
            kv = _mm256_add_epi16(kv, one);
        }
        wta_finish16(T, Lp, padx, W, D, M, U, subpixel, right, x0, best, k0, second, out);
    }
}
#endif

typedef int16_t (*wta_fn)(const uint16_t *, int, int, int, int, int, int);

static wta_fn pick_wta(int D)
{
#ifdef SGM_X86
    if (D % 16 == 0 && __builtin_cpu_supports("avx2"))
        return wta_one_avx2;
#endif
    (void)D;
    return wta_one_scalar;
}

__attribute__((target_clones("arch=x86-64-v3", "default")))
static void add_row(uint16_t *dst, const uint16_t *a, const uint16_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (uint16_t)(a[i] + b[i]);
}

typedef struct {
    const uint16_t *sum, *sum2;
    int width, height, D, M, U, subpixel;
    int16_t *left, *right;
    int failed;
} wta_job;

static void wta_task(void *arg, int index, int count)
{
    wta_job *j = arg;
    const int W = j->width, D = j->D, M = j->M;
    size_t y0, y1;
    gvis_split((size_t)j->height, index, count, &y0, &y1);
    uint16_t tmp[GVIS_SGM_MAX_D];
    const wta_fn wta_one = pick_wta(D);
#ifdef SGM_X86
    /* the lane-parallel path when 16-bit lane arithmetic holds the coordinates */
    const int padx = ((D + (M < 0 ? -M : M) + 32) + 15) / 16 * 16;
    const size_t Lp = (size_t)W + 2 * padx + 16;
    if (__builtin_cpu_supports("avx2") && Lp + D < 32000) {
        uint16_t *T = malloc(sizeof(uint16_t) * Lp * D);
        if (!T) {
            j->failed = 1;
            return;
        }
        for (size_t i = 0; i < Lp * D; i++)
            T[i] = WPAD_SENT;
        for (size_t y = y0; y < y1; y++) {
            const size_t off = y * (size_t)W * D;
            transpose_row(j->sum + off, j->sum2 ? j->sum2 + off : NULL, W, D, T, Lp, padx);
            /* Cells whose match x - M - k lies outside the right image are never valid in
             * either view: the sentinel there spares the left view its range masks (the
             * right view reads the same cells).  Cells outside [0, W) already hold it. */
            for (int k = 0; k < D; k++) {
                uint16_t *t = T + (size_t)k * Lp + padx;
                const int a = M + k < W ? M + k : W;       /* x < M + k */
                const int b = W - 1 + M + k >= 0 ? W + M + k : 0; /* x > W - 1 + M + k */
                for (int x = 0; x < a; x++)
                    t[x] = WPAD_SENT;
                for (int x = b < 0 ? 0 : b; x < W; x++)
                    t[x] = WPAD_SENT;
            }
            if (j->left)
                wta_lanes(T, Lp, padx, W, D, M, j->U, j->subpixel, 0, j->left + y * W);
            if (j->right)
                wta_lanes(T, Lp, padx, W, D, M, j->U, j->subpixel, 1, j->right + y * W);
        }
        free(T);
        return;
    }
#endif
    uint16_t *rowbuf = j->sum2 ? malloc(sizeof(uint16_t) * (size_t)W * D) : NULL;
    if (j->sum2 && !rowbuf) {
        j->failed = 1;
        return;
    }
    for (size_t y = y0; y < y1; y++) {
        const uint16_t *row = j->sum + y * (size_t)W * D;
        if (rowbuf) {
            add_row(rowbuf, row, j->sum2 + y * (size_t)W * D, (size_t)W * D);
            row = rowbuf;
        }
        if (j->left)
            for (int x = 0; x < W; x++) {
                int klo = x - (W - 1) - M, khi = x - M;
                klo = klo < 0 ? 0 : klo;
                khi = khi > D - 1 ? D - 1 : khi;
                j->left[y * W + x] = wta_one(row + (size_t)x * D, D, klo, khi, j->U, j->subpixel, M);
            }
        if (j->right)
            for (int x = 0; x < W; x++) {
                /* left pixel x + M + k must lie in [0, W) */
                int klo = -x - M, khi = W - 1 - x - M;
                klo = klo < 0 ? 0 : klo;
                khi = khi > D - 1 ? D - 1 : khi;
                if (klo > khi) {
                    j->right[y * W + x] = GVIS_SGM_INVALID(M);
                    continue;
                }
                for (int k = klo; k <= khi; k++)
                    tmp[k] = row[(size_t)(x + M + k) * D + k];
                for (int k = 0; k < klo; k++)
                    tmp[k] = 0;
                for (int k = khi + 1; k < D; k++)
                    tmp[k] = 0;
                j->right[y * W + x] = wta_one(tmp, D, klo, khi, j->U, j->subpixel, M);
            }
    }
    free(rowbuf);
}

int gvis_sgm_wta(const uint16_t *sum, const uint16_t *sum2, int width, int height, int D, int min_disp,
                 double uniqueness, int subpixel, int16_t *left, int16_t *right)
{
    wta_job j = {sum, sum2, width, height, D, min_disp, gvis_sgm_uniqueness_fixed(uniqueness), subpixel,
                 left, right, 0};
    int tasks = gvis_threads() * 2;
    gvis_parallel(tasks < height ? tasks : height, wta_task, &j);
    return j.failed ? gvis_error(GVIS_E_NOMEM, "out of memory in winner-takes-all") : GVIS_OK;
}
