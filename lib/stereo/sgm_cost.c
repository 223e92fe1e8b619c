/* SGM step 3 on the CPU: the matching cost volume C[y][x][k] (u8), in parallel over
 * rows (census costs by AVX2 byte planes, or the ad-census rows of cost_adcensus.c), the
 * 8-bit guide, and the cost of one cell by the rule (the reference). */
#include <stdlib.h>
#include <string.h>
#include "sgm.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SGM_X86 1
#endif

typedef struct {
    const uint64_t *cl, *cr;
    const uint8_t *ad_l, *ad_r;
    int width, height, D, min_disp, nplanes, cost_kind, census;
    uint8_t lut_census[64], lut_ad[64];
    uint8_t *cost;
} cost_job;

/* ---- costs ---------------------------------------------------------------- */

static void cost_row_scalar(const uint64_t *cl, const uint64_t *cr, int width, int D, int M, uint8_t *out,
                            uint8_t *planes)
{
    (void)planes;
    for (int x = 0; x < width; x++) {
        const uint64_t l = cl[x];
        uint8_t *o = out + (size_t)x * D;
        for (int k = 0; k < D; k++) {
            int xr = x - M - k;
            xr = xr < 0 ? 0 : xr >= width ? width - 1 : xr;
            o[k] = (uint8_t)__builtin_popcountll(l ^ cr[xr]);
        }
    }
}

#ifdef SGM_X86
/* 32 costs at a time: the right census of the row is laid out as byte planes in
 * reverse order (t = W-1-M - xr, clamped), so that for left x the costs of
 * k = 0.. read planes from t = W-1-x upwards; bytes are counted by nibble lookup.
 * nplanes: 8 for 9x7, 4 for the 31-bit symmetric census. */
/* The costs of a row's pixels from the planes; NPLANES a constant at each call, so that
 * the plane loop unrolls and the left code's bytes are broadcast once a pixel. */
static inline __attribute__((always_inline, target("avx2"))) void
cost_pixels_avx2(const uint64_t *cl, int width, int D, uint8_t *out, const uint8_t *planes, size_t L,
                 const int NPLANES)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f);
    for (int x = 0; x < width; x++) {
        const uint64_t l = cl[x];
        uint8_t *o = out + (size_t)x * D;
        const uint8_t *p = planes + (size_t)(width - 1 - x);
        __m256i lb[8];
        for (int b = 0; b < NPLANES; b++)
            lb[b] = _mm256_set1_epi8((char)(l >> (8 * b)));
        for (int k = 0; k < D; k += 32) {
            __m256i acc = _mm256_setzero_si256();
            for (int b = 0; b < NPLANES; b++) {
                const __m256i v = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(p + (size_t)b * L + k)), lb[b]);
                acc = _mm256_add_epi8(acc, _mm256_shuffle_epi8(lut, _mm256_and_si256(v, low)));
                acc = _mm256_add_epi8(acc, _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), low)));
            }
            if (k + 32 <= D)
                _mm256_storeu_si256((__m256i *)(o + k), acc);
            else
                _mm_storeu_si128((__m128i *)(o + k), _mm256_castsi256_si128(acc));
        }
    }
}

static inline __attribute__((always_inline)) void cost_planes(const uint64_t *cr, int width, int M, uint8_t *planes,
                                                               size_t L, const int NPLANES)
{
    for (size_t t = 0; t < L; t++) {
        long i = (long)width - 1 - M - (long)t;
        i = i < 0 ? 0 : i >= width ? width - 1 : i;
        const uint64_t c = cr[i];
        for (int b = 0; b < NPLANES; b++)
            planes[(size_t)b * L + t] = (uint8_t)(c >> (8 * b));
    }
}

__attribute__((target("avx2")))
static void cost_row_avx2(const uint64_t *cl, const uint64_t *cr, int width, int D, int M, uint8_t *out,
                          uint8_t *planes, int nplanes)
{
    const size_t L = (size_t)width + D - 1 + 32;
    if (nplanes == 4) {
        cost_planes(cr, width, M, planes, L, 4);
        cost_pixels_avx2(cl, width, D, out, planes, L, 4);
    } else {
        cost_planes(cr, width, M, planes, L, 8);
        cost_pixels_avx2(cl, width, D, out, planes, L, 8);
    }
}
#endif

static void cost_task(void *arg, int index, int count)
{
    cost_job *j = arg;
    size_t y0, y1;
    gvis_split((size_t)j->height, index, count, &y0, &y1);
    uint8_t *planes = NULL;
    if (j->cost_kind == GVIS_COST_ADCENSUS) {
        planes = malloc(gvis_sgm_cost_row_scratch(j->width, j->D));
        for (size_t y = y0; y < y1; y++) {
            const size_t r = y * j->width;
            gvis_sgm_cost_row_adcensus(j->cl + r, j->cr + r, j->ad_l + r, j->ad_r + r, j->width, j->D,
                                       j->min_disp, j->census, j->lut_census, j->lut_ad, j->cost + r * j->D, planes);
        }
        free(planes);
        return;
    }
#ifdef SGM_X86
    const int use_avx2 = __builtin_cpu_supports("avx2");
    if (use_avx2)
        planes = malloc((size_t)8 * ((size_t)j->width + j->D - 1 + 32));
#endif
    for (size_t y = y0; y < y1; y++) {
        const uint64_t *cl = j->cl + y * j->width, *cr = j->cr + y * j->width;
        uint8_t *o = j->cost + y * (size_t)j->width * j->D;
#ifdef SGM_X86
        if (planes) {
            cost_row_avx2(cl, cr, j->width, j->D, j->min_disp, o, planes, j->nplanes);
            continue;
        }
#endif
        cost_row_scalar(cl, cr, j->width, j->D, j->min_disp, o, planes);
    }
    free(planes);
}

void gvis_sgm_cost_volume(const uint64_t *cl, const uint64_t *cr, const uint8_t *ad_l, const uint8_t *ad_r, int width,
                          int height, const gvis_sgm_params *p, uint8_t *cost)
{
    cost_job j;
    memset(&j, 0, sizeof j);
    j.cl = cl;
    j.cr = cr;
    j.ad_l = ad_l;
    j.ad_r = ad_r;
    j.cost_kind = p->cost;
    j.census = p->census;
    if (p->cost == GVIS_COST_ADCENSUS)
        gvis_sgm_cost_luts(p->census, j.lut_census, j.lut_ad);
    j.width = width;
    j.height = height;
    j.D = p->max_disp;
    j.min_disp = p->min_disp;
    /* The symmetric census leaves the upper 33 bits zero: four byte planes suffice. */
    j.nplanes = p->census == GVIS_CENSUS_SYM ? 4 : 8;
    j.cost = cost;
    gvis_parallel(gvis_threads() * 2 < height ? gvis_threads() * 2 : height, cost_task, &j);
}

void gvis_sgm_guide(const gvis_image *gray, uint8_t *guide)
{
    for (int y = 0; y < gray->height; y++) {
        uint8_t *o = guide + (size_t)y * gray->width;
        if (gray->type == GVIS_U8) {
            memcpy(o, GVIS_ROW(gray, y), (size_t)gray->width);
        } else {
            const uint16_t *r = GVIS_ROW(gray, y);
            for (int x = 0; x < gray->width; x++)
                o[x] = (uint8_t)(r[x] >> 8);
        }
    }
}

int gvis_sgm_cost_ref(const uint64_t *cl, const uint64_t *cr, const uint8_t *ad_l, const uint8_t *ad_r, int width, const gvis_sgm_params *p, int x, int y, int k)
{
    int xr = x - p->min_disp - k;
    xr = xr < 0 ? 0 : xr >= width ? width - 1 : xr;
    const size_t l = (size_t)y * width + x, r = (size_t)y * width + xr;
    if (p->cost != GVIS_COST_ADCENSUS)
        return __builtin_popcountll(cl[l] ^ cr[r]);
    uint8_t lc[64], la[64];
    gvis_sgm_cost_luts(p->census, lc, la);
    return gvis_sgm_cost_adcensus_ref(cl[l], cr[r], ad_l[l], ad_r[r], lc, la);
}
