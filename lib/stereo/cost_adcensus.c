/* SGM step 3 with --cost ad-census: census and absolute-difference costs, each put
 * through a robust curve (Mei et al. 2011, rho(c, lambda) = 1 - exp(-c / lambda)) and
 * summed, in 8 bits (the rule: sgm.h step 3).  The curves are integer tables made once
 * on the host; the CUDA path kernel receives the same tables, so both devices compute
 * the same integers.
 *
 * CPU: one image row at a time, 32 disparities per AVX2 instruction.  The right row's
 * census bytes and grey values are laid out in reverse order (as in sgm_aggregate.c), so
 * that the candidates k = 0.. of a left pixel are one contiguous load per plane; table
 * lookups with 64 entries are four 16-entry shuffles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h" /* gvis_count_u8 */
#include "sgm.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define COST_X86 1
#endif

/* The tables.  Census part: the Hamming distance itself (today's census cost, so that P1 and
 * P2 keep their meaning).  AD part: Mei et al.'s curve with lambda 10 grey levels, but with
 * a ceiling of 1/8 of the census range (4 for sym, 8 for 9x7) instead of an equal share:
 * with equal shares the AD term dominated on pairs whose views differ in gain, offset or
 * noise (synthetic scenes: mean bad-2 60 % against 31 % for census alone), while a small
 * AD term still breaks the census's ties in fine, clean texture (Middlebury's cones 15.5 ->
 * 14.6 %).  docs/notes-sgm.md has the measurements. */
#define LAMBDA_AD 10.0

void gvis_sgm_cost_luts(int census, uint8_t lut_census[64], uint8_t lut_ad[64])
{
    const int bits = census == GVIS_CENSUS_9X7 ? 62 : 31, ceiling = census == GVIS_CENSUS_9X7 ? 8 : 4;
    for (int i = 0; i < 64; i++) {
        lut_census[i] = (uint8_t)(i > bits ? bits : i);
        lut_ad[i] = (uint8_t)floor(ceiling * (1.0 - exp(-i / LAMBDA_AD)) + 0.5);
    }
}

int gvis_sgm_cost_luts_max(const uint8_t lut_census[64], const uint8_t lut_ad[64])
{
    int mc = 0, ma = 0;
    for (int i = 0; i < 64; i++) {
        mc = lut_census[i] > mc ? lut_census[i] : mc;
        ma = lut_ad[i] > ma ? lut_ad[i] : ma;
    }
    return mc + ma;
}

/* The right view's guide mapped so that its mean and standard deviation match the left's:
 * a global gain and offset between the cameras (exposure) would otherwise make every true
 * match's AD large.  From the 256-bin histograms of both guides, so that the table is exact
 * integers for both devices. */
void gvis_sgm_guide_hist(const gvis_image *gray, uint64_t hist[256])
{
    memset(hist, 0, 256 * sizeof hist[0]);
    if (gray->type == GVIS_U8) {
        /* hist's counter (gvis_count_u8: eight replicas, no two increments of a step on
         * one counter), folded into 64 bits before a replica could wrap; part of every
         * GPU pair's preparation on the CPU (a 1242x375 pair: ~1 ms a view counted one
         * pixel after another, the same counter often incremented back to back) */
        uint32_t rep[8 * 256];
        size_t since = 0;
        memset(rep, 0, sizeof rep);
        for (int y = 0; y < gray->height; y++) {
            gvis_count_u8(GVIS_ROW(gray, y), (size_t)gray->width, rep);
            since += (size_t)gray->width;
            if (since >= ((size_t)1 << 31) || y == gray->height - 1) {
                for (int v = 0; v < 256; v++)
                    for (int k = 0; k < 8; k++)
                        hist[v] += rep[k * 256 + v];
                memset(rep, 0, sizeof rep);
                since = 0;
            }
        }
        return;
    }
    for (int y = 0; y < gray->height; y++) {
        const uint16_t *r = GVIS_ROW(gray, y);
        for (int x = 0; x < gray->width; x++)
            hist[r[x] >> 8]++;
    }
}

void gvis_sgm_ad_remap_lut(const uint64_t hl[256], const uint64_t hr[256], uint8_t lut[256])
{
    uint64_t n = 0;
    for (int v = 0; v < 256; v++)
        n += hl[v];
    uint64_t sl = 0, ql = 0, sr = 0, qr = 0;
    for (uint64_t v = 0; v < 256; v++) {
        sl += v * hl[v], ql += v * v * hl[v];
        sr += v * hr[v], qr += v * v * hr[v];
    }
    const double N = n ? (double)n : 1.0, ml = sl / N, mr = sr / N;
    const double vl = ql / N - ml * ml, vr = qr / N - mr * mr;
    const double g = vr > 0.25 && vl > 0.0 ? sqrt(vl / vr) : 1.0;
    for (int i = 0; i < 256; i++) {
        const double v = floor((i - mr) * g + ml + 0.5);
        lut[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

void gvis_sgm_ad_remap(uint8_t *img, size_t n, const uint8_t lut[256])
{
    for (size_t i = 0; i < n; i++)
        img[i] = lut[img[i]];
}

uint8_t gvis_sgm_cost_adcensus_ref(uint64_t cl, uint64_t cr, int gl, int gr, const uint8_t lut_census[64],
                                   const uint8_t lut_ad[64])
{
    int h = __builtin_popcountll(cl ^ cr), a = abs(gl - gr);
    return (uint8_t)(lut_census[h > 63 ? 63 : h] + lut_ad[a > 63 ? 63 : a]);
}

static void row_scalar(const uint64_t *cl, const uint64_t *cr, const uint8_t *gl, const uint8_t *gr, int width,
                       int D, int M, const uint8_t *lc, const uint8_t *la, uint8_t *out)
{
    for (int x = 0; x < width; x++) {
        uint8_t *o = out + (size_t)x * D;
        for (int k = 0; k < D; k++) {
            int xr = x - M - k;
            xr = xr < 0 ? 0 : xr >= width ? width - 1 : xr;
            o[k] = gvis_sgm_cost_adcensus_ref(cl[x], cr[xr], gl[x], gr[xr], lc, la);
        }
    }
}

#ifdef COST_X86
/* t[v] for v in 0..63 (bytes): table quarter q answers where v ^ 16 q < 16; the saturating
 * add of 0x70 sets bit 7 (shuffle gives 0) for every other quarter. */
static inline __attribute__((always_inline, target("avx2"))) __m256i lut64(const __m256i q[4], __m256i v)
{
    const __m256i s = _mm256_set1_epi8(0x70);
    __m256i r = _mm256_shuffle_epi8(q[0], _mm256_adds_epu8(v, s));
    r = _mm256_or_si256(r, _mm256_shuffle_epi8(q[1], _mm256_adds_epu8(_mm256_xor_si256(v, _mm256_set1_epi8(16)), s)));
    r = _mm256_or_si256(r, _mm256_shuffle_epi8(q[2], _mm256_adds_epu8(_mm256_xor_si256(v, _mm256_set1_epi8(32)), s)));
    r = _mm256_or_si256(r, _mm256_shuffle_epi8(q[3], _mm256_adds_epu8(_mm256_xor_si256(v, _mm256_set1_epi8(48)), s)));
    return r;
}

/* t[v] for v in 0..31 (two quarters). */
static inline __attribute__((always_inline, target("avx2"))) __m256i lut32(const __m256i q[4], __m256i v)
{
    const __m256i s = _mm256_set1_epi8(0x70);
    __m256i r = _mm256_shuffle_epi8(q[0], _mm256_adds_epu8(v, s));
    return _mm256_or_si256(r, _mm256_shuffle_epi8(q[1], _mm256_adds_epu8(_mm256_xor_si256(v, _mm256_set1_epi8(16)), s)));
}

/* FAST: the census table is the identity and the AD table is flat from 31 on (the
 * default tables): no census lookup, AD clamped to 31 and looked up in two quarters. */
static inline __attribute__((always_inline, target("avx2"))) void
row_avx2_n(const uint64_t *cl, const uint8_t *gl, int width, int D, uint8_t *out, const uint8_t *planes, size_t L,
           const __m256i qc[4], const __m256i qa[4], const int NPLANES, const int FAST)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f), cap = _mm256_set1_epi8(FAST ? 31 : 63);
    const uint8_t *grey = planes + (size_t)NPLANES * L;
    for (int x = 0; x < width; x++) {
        const uint64_t l = cl[x];
        uint8_t *o = out + (size_t)x * D;
        const size_t t0 = (size_t)(width - 1 - x);
        __m256i lb[8];
        for (int b = 0; b < NPLANES; b++)
            lb[b] = _mm256_set1_epi8((char)(l >> (8 * b)));
        const __m256i g = _mm256_set1_epi8((char)gl[x]);
        for (int k = 0; k < D; k += 32) {
            __m256i h = _mm256_setzero_si256();
            for (int b = 0; b < NPLANES; b++) {
                const __m256i v = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(planes + b * L + t0 + k)), lb[b]);
                h = _mm256_add_epi8(h, _mm256_shuffle_epi8(lut, _mm256_and_si256(v, low)));
                h = _mm256_add_epi8(h, _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), low)));
            }
            const __m256i r = _mm256_loadu_si256((const __m256i *)(grey + t0 + k));
            const __m256i a = _mm256_min_epu8(_mm256_or_si256(_mm256_subs_epu8(g, r), _mm256_subs_epu8(r, g)), cap);
            const __m256i c = FAST ? _mm256_add_epi8(h, lut32(qa, a)) : _mm256_add_epi8(lut64(qc, h), lut64(qa, a));
            if (k + 32 <= D)
                _mm256_storeu_si256((__m256i *)(o + k), c);
            else
                _mm_storeu_si128((__m128i *)(o + k), _mm256_castsi256_si128(c));
        }
    }
}

__attribute__((target("avx2"))) static void row_avx2(const uint64_t *cl, const uint64_t *cr, const uint8_t *gl,
                                                     const uint8_t *gr, int width, int D, int M, int census,
                                                     const uint8_t *lc, const uint8_t *la, uint8_t *out,
                                                     uint8_t *planes)
{
    const int np = census == GVIS_CENSUS_SYM ? 4 : 8;
    const size_t L = (size_t)width + D - 1 + 32;
    for (size_t t = 0; t < L; t++) {
        long i = (long)width - 1 - M - (long)t;
        i = i < 0 ? 0 : i >= width ? width - 1 : i;
        const uint64_t c = cr[i];
        for (int b = 0; b < np; b++)
            planes[(size_t)b * L + t] = (uint8_t)(c >> (8 * b));
        planes[(size_t)np * L + t] = gr[i];
    }
    __m256i qc[4], qa[4];
    for (int q = 0; q < 4; q++) {
        qc[q] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(lc + 16 * q)));
        qa[q] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(la + 16 * q)));
    }
    int fast = la[31] == la[63];
    for (int i = 0; i < 64; i++)
        fast &= lc[i] == (i > 62 ? 62 : i) || i > (np == 4 ? 31 : 62);
    if (np == 4)
        fast ? row_avx2_n(cl, gl, width, D, out, planes, L, qc, qa, 4, 1)
             : row_avx2_n(cl, gl, width, D, out, planes, L, qc, qa, 4, 0);
    else
        fast ? row_avx2_n(cl, gl, width, D, out, planes, L, qc, qa, 8, 1)
             : row_avx2_n(cl, gl, width, D, out, planes, L, qc, qa, 8, 0);
}
#endif

size_t gvis_sgm_cost_row_scratch(int width, int D) { return (size_t)9 * ((size_t)width + D - 1 + 32); }

void gvis_sgm_cost_row_adcensus(const uint64_t *cl, const uint64_t *cr, const uint8_t *gl, const uint8_t *gr,
                                int width, int D, int M, int census, const uint8_t lut_census[64],
                                const uint8_t lut_ad[64], uint8_t *out, uint8_t *scratch)
{
#ifdef COST_X86
    if (scratch && D % 16 == 0 && __builtin_cpu_supports("avx2")) {
        row_avx2(cl, cr, gl, gr, width, D, M, census, lut_census, lut_ad, out, scratch);
        return;
    }
#endif
    (void)census;
    (void)scratch;
    row_scalar(cl, cr, gl, gr, width, D, M, lut_census, lut_ad, out);
}
