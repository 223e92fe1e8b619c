/* Separable Gaussian blur: OpenCV's kernels, its border rules, and its fixed-point
 * arithmetic for 8- and 16-bit images.
 *
 * OpenCV 4.6 blurs u8 with 8-bit fixed-point taps (u8 * tap summed in 16 bits, then the
 * rows times the taps in 32 bits, rounded (S + 2^15) >> 16) and u16 with 16-bit taps (32
 * and 64 bits, (S + 2^31) >> 32).  Every product and sum there is exact, so the result is
 * the exact integer S = sum wy[j] * wx[i] * src rounded once, whatever order the sums take.
 * gvis computes that same S: the vertical pass first (u8: 16-bit integer lanes, exact
 * because S / 256 <= 255 * 256), then the horizontal pass in float (u8: all values are
 * integers below 2^24, exact) or double (u16: below 2^53, exact).  f32 sums in float.
 *
 * CPU: rows split over the worker pool; per output row, the vertical sums of the row's
 * window into a padded buffer, the border columns copied into the padding, then the
 * horizontal pass out of it.  AVX2 + FMA where the CPU has them. */
#include "gauss.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/ops/gauss.h"
#include "internal.h"
#include "gauss_cpu.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(GVIS_NO_SIMD)
#include <immintrin.h>
#define GAUSS_X86 1
#endif

_Static_assert((int)GVIS_BORDER_REFLECT101 == (int)GVIS_GAUSS_REFLECT101 &&
                   (int)GVIS_BORDER_REPLICATE == (int)GVIS_GAUSS_REPLICATE &&
                   (int)GVIS_BORDER_CONSTANT == (int)GVIS_GAUSS_CONSTANT &&
                   (int)GVIS_BORDER_REFLECT == (int)GVIS_GAUSS_REFLECT && (int)GVIS_BORDER_WRAP == (int)GVIS_GAUSS_WRAP,
               "border enums of lib/ops/gauss.h and cuda/ops/gauss.h differ");
_Static_assert(GVIS_GAUSS_TILE_TAPS < GVIS_GAUSS_MAX_KSIZE, "the tile kernel takes more than any kernel");

/* ---- the description the launchers take --------------------------------- */

/* d's taps are allocated in *taps (one block, free() it) */
int gvis_gauss_desc_make(const gvis_image *src, const gvis_gauss_params *p, gvis_gauss_desc *d, float **taps)
{
    *taps = NULL;
    if (src->channels != 1 && src->channels != 3 && src->channels != 4)
        return gvis_error(GVIS_E_FORMAT, "images of %d channels are not supported (1, 3 or 4)", src->channels);
    if ((size_t)src->width * src->channels > INT32_MAX / 2)
        return gvis_error(GVIS_E_LIMIT, "rows of %d pixels are too long", src->width);
    gvis_gauss_kernel k;
    int rc = gvis_gauss_make_kernel(p, src->width, src->height, src->type, &k);
    if (rc)
        return rc;
    memset(d, 0, sizeof *d);
    float *w = malloc(sizeof(float) * (size_t)(k.kx + k.ky));
    int32_t *fx = src->type == GVIS_F32 ? NULL : malloc(sizeof(int32_t) * (size_t)(k.kx > k.ky ? k.kx : k.ky));
    if (!w || (src->type != GVIS_F32 && !fx)) {
        free(w);
        free(fx);
        gvis_gauss_kernel_free(&k);
        return gvis_error(GVIS_E_NOMEM, "out of memory for a kernel of %d + %d taps", k.kx, k.ky);
    }
    float *wx = w, *wy = w + k.kx;
    d->wx = wx;
    d->wy = wy;
    d->width = src->width;
    d->height = src->height;
    d->channels = src->channels;
    d->bytes = (int)src->type;
    d->kx = k.kx;
    d->ky = k.ky;
    d->border = p->border;
    double v = p->border_value;
    if (src->type == GVIS_F32) {
        for (int i = 0; i < k.kx; i++)
            wx[i] = (float)k.wx[i];
        for (int i = 0; i < k.ky; i++)
            wy[i] = (float)k.wy[i];
        d->border_value = (double)(float)v;
    } else {
        int bits = src->type == GVIS_U8 ? 8 : 16;
        double hi = src->type == GVIS_U8 ? 255 : 65535;
        gvis_gauss_taps_fixed(k.wx, k.kx, bits, fx);
        for (int i = 0; i < k.kx; i++)
            wx[i] = (float)fx[i];
        gvis_gauss_taps_fixed(k.wy, k.ky, bits, fx);
        for (int i = 0; i < k.ky; i++)
            wy[i] = (float)fx[i];
        d->border_value = v <= 0 ? 0 : v >= hi ? hi : nearbyint(v);
    }
    free(fx);
    gvis_gauss_kernel_free(&k);
    *taps = w;
    return GVIS_OK;
}

/* ---- AVX2 + FMA ------------------------------------------------------------ */

#ifdef GAUSS_X86
__attribute__((target("avx2"))) static void vert_u8_avx2(const uint8_t *const *rows, const int16_t *w, int nr,
                                                             int cst, int n, float *out, int symmetric)
{
    int i = 0;
    const __m256i c0 = _mm256_set1_epi16((short)cst);
    /* symmetric taps (every row of the window inside, so the taps are the kernel's): rows k
     * and nr-1-k added first;
     * 510 * tap still fits the 16-bit lanes, whose final sums are exact */
    const int fold = symmetric && nr > 1 ? nr / 2 : 0;
    for (; fold && i + 64 <= n; i += 64) {
        __m256i a0 = c0, a1 = c0, a2 = c0, a3 = c0;
        for (int k = 0; k < fold; k++) {
            const __m256i wk = _mm256_set1_epi16(w[k]);
            const uint8_t *r = rows[k] + i, *q = rows[nr - 1 - k] + i;
#define GAUSS_PAIR(o) _mm256_mullo_epi16(_mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r + (o)))), \
                                                          _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(q + (o))))), wk)
            a0 = _mm256_add_epi16(a0, GAUSS_PAIR(0));
            a1 = _mm256_add_epi16(a1, GAUSS_PAIR(16));
            a2 = _mm256_add_epi16(a2, GAUSS_PAIR(32));
            a3 = _mm256_add_epi16(a3, GAUSS_PAIR(48));
#undef GAUSS_PAIR
        }
        const __m256i wc = _mm256_set1_epi16(w[fold]);
        const uint8_t *r = rows[fold] + i;
        a0 = _mm256_add_epi16(a0, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)r)), wc));
        a1 = _mm256_add_epi16(a1, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r + 16))), wc));
        a2 = _mm256_add_epi16(a2, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r + 32))), wc));
        a3 = _mm256_add_epi16(a3, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r + 48))), wc));
        __m256i a[4] = {a0, a1, a2, a3};
        for (int q = 0; q < 4; q++) {
            _mm256_storeu_ps(out + i + 16 * q, _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(a[q]))));
            _mm256_storeu_ps(out + i + 16 * q + 8,
                             _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(a[q], 1))));
        }
    }
    for (; i + 64 <= n; i += 64) {
        __m256i a0 = c0, a1 = c0, a2 = c0, a3 = c0;
        for (int k = 0; k < nr; k++) {
            const __m256i wk = _mm256_set1_epi16(w[k]);
            const uint8_t *r = rows[k] + i;
            a0 = _mm256_add_epi16(a0, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)r)), wk));
            a1 = _mm256_add_epi16(a1, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r + 16))), wk));
            a2 = _mm256_add_epi16(a2, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r + 32))), wk));
            a3 = _mm256_add_epi16(a3, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(r + 48))), wk));
        }
        __m256i a[4] = {a0, a1, a2, a3};
        for (int q = 0; q < 4; q++) {
            _mm256_storeu_ps(out + i + 16 * q, _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(a[q]))));
            _mm256_storeu_ps(out + i + 16 * q + 8,
                             _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(a[q], 1))));
        }
    }
    for (; i + 16 <= n; i += 16) {
        __m256i a0 = c0;
        for (int k = 0; k < nr; k++)
            a0 = _mm256_add_epi16(a0, _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(rows[k] + i))),
                                                         _mm256_set1_epi16(w[k])));
        _mm256_storeu_ps(out + i, _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(a0))));
        _mm256_storeu_ps(out + i + 8, _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(a0, 1))));
    }
    for (; i < n; i++) {
        uint32_t s = (uint32_t)cst;
        for (int k = 0; k < nr; k++)
            s += (uint32_t)w[k] * rows[k][i];
        out[i] = (float)s;
    }
}

__attribute__((target("avx2,fma"))) static void vert_f32_avx2(const float *const *rows, const float *w, int nr,
                                                                  float cst, int n, float *out)
{
    int i = 0;
    const __m256 c0 = _mm256_set1_ps(cst);
    for (; i + 32 <= n; i += 32) {
        __m256 a0 = c0, a1 = c0, a2 = c0, a3 = c0;
        for (int k = 0; k < nr; k++) {
            const __m256 wk = _mm256_set1_ps(w[k]);
            const float *r = rows[k] + i;
            a0 = _mm256_fmadd_ps(wk, _mm256_loadu_ps(r), a0);
            a1 = _mm256_fmadd_ps(wk, _mm256_loadu_ps(r + 8), a1);
            a2 = _mm256_fmadd_ps(wk, _mm256_loadu_ps(r + 16), a2);
            a3 = _mm256_fmadd_ps(wk, _mm256_loadu_ps(r + 24), a3);
        }
        _mm256_storeu_ps(out + i, a0);
        _mm256_storeu_ps(out + i + 8, a1);
        _mm256_storeu_ps(out + i + 16, a2);
        _mm256_storeu_ps(out + i + 24, a3);
    }
    for (; i < n; i++) {
        float s = cst;
        for (int k = 0; k < nr; k++)
            s = fmaf(w[k], rows[k][i], s);
        out[i] = s;
    }
}

__attribute__((target("avx2,fma"))) static inline void store_u8x8(uint8_t *o, __m256 s)
{
    __m256i v = _mm256_srli_epi32(_mm256_add_epi32(_mm256_cvttps_epi32(s), _mm256_set1_epi32(32768)), 16);
    __m128i w16 = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64((__m128i *)o, _mm_packus_epi16(w16, w16));
}

__attribute__((target("avx2,fma"))) static void horiz_avx2(const float *in, const float *w, int nk, int c, int n,
                                                          void *out, int to_u8)
{
    uint8_t *o8 = out;
    float *of = out;
    int i = 0;
    /* eight accumulators: enough independent FMAs to cover their latency */
    for (; i + 64 <= n; i += 64) {
        __m256 a[8];
        for (int q = 0; q < 8; q++)
            a[q] = _mm256_setzero_ps();
        const float *r = in + i;
        for (int k = 0; k < nk; k++, r += c) {
            const __m256 wk = _mm256_set1_ps(w[k]);
            for (int q = 0; q < 8; q++)
                a[q] = _mm256_fmadd_ps(wk, _mm256_loadu_ps(r + 8 * q), a[q]);
        }
        for (int q = 0; q < 8; q++) {
            if (to_u8)
                store_u8x8(o8 + i + 8 * q, a[q]);
            else
                _mm256_storeu_ps(of + i + 8 * q, a[q]);
        }
    }
    for (; i + 8 <= n; i += 8) {
        __m256 a0 = _mm256_setzero_ps();
        const float *r = in + i;
        for (int k = 0; k < nk; k++, r += c)
            a0 = _mm256_fmadd_ps(_mm256_set1_ps(w[k]), _mm256_loadu_ps(r), a0);
        if (to_u8)
            store_u8x8(o8 + i, a0);
        else
            _mm256_storeu_ps(of + i, a0);
    }
    for (; i < n; i++) {
        float s = 0;
        for (int k = 0; k < nk; k++)
            s = fmaf(w[k], in[i + (size_t)k * c], s);
        if (to_u8) {
            int v = ((int)s + 32768) >> 16;
            o8[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        } else {
            of[i] = s;
        }
    }
}
#endif

/* ---- CPU: vertical pass -------------------------------------------------- */

/* u8: out[i] = cst + sum w[k] * rows[k][i] in 16-bit lanes (exact: the sum is at most
 * 255 * 256), written as float. */
static void vert_u8(const uint8_t *const *rows, const int16_t *w, int nr, int cst, int n, float *out, int symmetric)
{
    int i = 0;
#ifdef GAUSS_X86
    if (__builtin_cpu_supports("avx2")) {
        vert_u8_avx2(rows, w, nr, cst, n, out, symmetric);
        return;
    }
#endif
    for (; i < n; i++) {
        uint32_t s = (uint32_t)cst;
        for (int k = 0; k < nr; k++)
            s += (uint32_t)w[k] * rows[k][i];
        out[i] = (float)s;
    }
}

static void vert_f32(const float *const *rows, const float *w, int nr, float cst, int n, float *out)
{
#ifdef GAUSS_X86
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        vert_f32_avx2(rows, w, nr, cst, n, out);
        return;
    }
#endif
    for (int i = 0; i < n; i++)
        out[i] = cst;
    for (int k = 0; k < nr; k++) {
        const float *r = rows[k];
        float wk = w[k];
        for (int i = 0; i < n; i++)
            out[i] += wk * r[i];
    }
}

/* u16: 32-bit integer sums (exact: at most 65535 * 65536), written as double. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
static void vert_u16(const uint16_t *const *rows, const uint32_t *w, int nr, uint32_t cst, int n, uint32_t *acc,
                     double *out)
{
    for (int i = 0; i < n; i++)
        acc[i] = cst;
    for (int k = 0; k < nr; k++) {
        const uint16_t *r = rows[k];
        uint32_t wk = w[k];
        for (int i = 0; i < n; i++)
            acc[i] += wk * r[i];
    }
    for (int i = 0; i < n; i++)
        out[i] = (double)acc[i];
}

/* ---- CPU: horizontal pass ------------------------------------------------ */

/* out[i] = sum w[k] * in[i + k * c], u8 rounded (S + 2^15) >> 16, or f32. */
static void horiz_f(const float *in, const float *w, int nk, int c, int n, float *acc, void *out, int to_u8)
{
#ifdef GAUSS_X86
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        horiz_avx2(in, w, nk, c, n, out, to_u8);
        return;
    }
#endif
    for (int i = 0; i < n; i++)
        acc[i] = 0;
    for (int k = 0; k < nk; k++) {
        const float *r = in + (size_t)k * c;
        float wk = w[k];
        for (int i = 0; i < n; i++)
            acc[i] += wk * r[i];
    }
    if (to_u8) {
        uint8_t *o = out;
        for (int i = 0; i < n; i++) {
            int v = ((int)acc[i] + 32768) >> 16;
            o[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    } else {
        memcpy(out, acc, sizeof(float) * (size_t)n);
    }
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
static void horiz_u16(const double *in, const double *w, int nk, int c, int n, double *acc, uint16_t *out)
{
    for (int i = 0; i < n; i++)
        acc[i] = 0;
    for (int k = 0; k < nk; k++) {
        const double *r = in + (size_t)k * c;
        double wk = w[k];
        for (int i = 0; i < n; i++)
            acc[i] += wk * r[i];
    }
    for (int i = 0; i < n; i++) {
        uint64_t v = ((uint64_t)acc[i] + 2147483648u) >> 32;
        out[i] = (uint16_t)(v > 65535 ? 65535 : v);
    }
}

/* ---- CPU: the row loop --------------------------------------------------- */

struct gauss_cpu {
    const gvis_image *src;
    gvis_image *dst;
    const gvis_gauss_desc *d;
    int *padmap;   /* per padding sample: index into the padded row, or -1 (constant) */
    int npad_left; /* rx * C */
    atomic_int failed;
    /* in place (dst's pixels are src's): per task, copies of the ry rows above and below
     * its band (other tasks overwrite them), taken before any task runs */
    uint8_t *halo;
    size_t rb; /* bytes of a row's samples */
};

/* In place, row r of the source as it was, for output row y of band [y0, y1) of task
 * index: rows still ahead in the band are in the image, the ry rows behind in the task's
 * ring (ry + 1 slots: row y goes in before the vertical pass of y has read its slot's
 * row), rows of other bands in the halo.  The borders allowed in place (inplace_tasks)
 * keep every row read within ry of y. */
static const void *source_row(const struct gauss_cpu *j, int r, size_t y, size_t y0, size_t y1, const uint8_t *ring,
                              int index)
{
    const size_t ry = (size_t)(j->d->ky / 2), ur = (size_t)r;
    if (!j->halo || (ur >= y && ur < y1))
        return GVIS_ROW(j->src, r);
    if (ur >= y0 && ur < y)
        return ring + ur % (ry + 1) * j->rb;
    if (ur < y0)
        return j->halo + ((size_t)index * 2 * ry + (ur - (y0 - ry))) * j->rb;
    return j->halo + ((size_t)index * 2 * ry + ry + (ur - y1)) * j->rb;
}

/* Tasks for a blur in place, 0 when it cannot be done in place: wrap and images no taller
 * than the kernel read rows far from the output row, and halos beyond a quarter of the
 * image would cost what in place saves. */
int gvis_gauss_inplace_tasks(const gvis_gauss_desc *d, size_t rb)
{
    if (d->border == GVIS_BORDER_WRAP || d->height <= d->ky)
        return 0;
    size_t ry = (size_t)(d->ky / 2), h = (size_t)d->height;
    int tasks = gvis_threads() * 4;
    if (tasks > d->height)
        tasks = d->height;
    if ((size_t)tasks * 2 * ry > h / 4)
        tasks = gvis_threads() < d->height ? gvis_threads() : d->height;
    if ((size_t)tasks * 2 * ry > h / 4)
        return 0;
    (void)rb;
    return tasks;
}

static void gauss_task(void *arg, int index, int count)
{
    struct gauss_cpu *j = arg;
    const gvis_gauss_desc *d = j->d;
    const gvis_image *src = j->src;
    const int C = d->channels, ws = d->width * C, rx = d->kx / 2, ry = d->ky / 2;
    const int left = rx * C, plen = ws + 2 * left;
    size_t y0, y1;
    gvis_split((size_t)d->height, index, count, &y0, &y1);
    if (y0 >= y1)
        return;
    int is_double = src->type == GVIS_U16;
    size_t esz = is_double ? sizeof(double) : sizeof(float);
    /* padded row, an accumulator row, and the row pointers */
    /* each part starts on a 64-byte boundary (the row pointers need 8-byte alignment) */
    size_t pad_bytes = (esz * ((size_t)plen + 64) + 63) / 64 * 64, acc_bytes = (8 * ((size_t)ws + 64) + 63) / 64 * 64;
    /* and the row pointers and taps of the window: per row wf, w32, w16, row pointer; per
     * column wxd, wxf (the taps of a wide kernel do not fit a stack) */
    size_t taps_bytes = (size_t)d->ky * (sizeof(float) + sizeof(uint32_t) + sizeof(int16_t) + sizeof(void *)) +
                        (size_t)d->kx * (sizeof(double) + sizeof(float)) + 64;
    taps_bytes = (taps_bytes + 63) / 64 * 64; /* the ring's rows aligned */
    const size_t ring_bytes = j->halo ? (size_t)(ry + 1) * j->rb : 0;
    size_t bytes = pad_bytes + acc_bytes + taps_bytes + ring_bytes;
    unsigned char *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!mem) {
        atomic_store(&j->failed, 1);
        return;
    }
    void *pad = mem;
    void *acc = mem + pad_bytes;
    const void **rows = (const void **)(mem + pad_bytes + acc_bytes);
    double *wxd = (double *)(rows + d->ky);
    float *wf = (float *)(wxd + d->kx), *wxf = wf + d->ky;
    uint32_t *w32 = (uint32_t *)(wxf + d->kx);
    int16_t *w16 = (int16_t *)(w32 + d->ky);
    uint8_t *ring = mem + (bytes - ring_bytes); /* in place: the band's last ry source rows */
    for (int k = 0; k < d->kx; k++) {
        wxf[k] = d->wx[k];
        wxd[k] = d->wx[k];
    }
    const double bv = d->border_value;
    /* a column entirely outside (constant border): the vertical sum of the constant */
    const double full_u = gvis_gauss_outside_column(d);
    const float full_f = (float)full_u;
    for (size_t y = y0; y < y1; y++) {
        int nr = 0;
        double cw = 0; /* the weight of rows outside (constant border) */
        float cst_f = 0;
        for (int k = 0; k < d->ky; k++) {
            int r = gvis_gauss_border_index((int)y - ry + k, d->height, d->border);
            if (r < 0) {
                cw += d->wy[k];
                cst_f += d->wy[k] * (float)bv;
                continue;
            }
            rows[nr] = source_row(j, r, y, y0, y1, ring, index);
            wf[nr] = d->wy[k];
            w16[nr] = src->type == GVIS_U8 ? (int16_t)d->wy[k] : 0; /* 8-bit weights fit; others reach 65536 */
            w32[nr] = (uint32_t)d->wy[k];
            nr++;
        }
        void *out = GVIS_ROW(j->dst, y);
        if (ring_bytes) /* the source row about to be overwritten, for the rows below (its
                         * slot's row, y - ry - 1, is read by none from here on) */
            memcpy(ring + y % (size_t)(ry + 1) * j->rb, out, j->rb);
        if (src->type == GVIS_U8) {
            float *p = (float *)pad;
            vert_u8((const uint8_t *const *)rows, w16, nr, (int)(cw * bv), ws, p + left, nr == d->ky);
            for (int i = 0; i < 2 * left; i++) {
                int at = i < left ? i : ws + i;
                p[at] = j->padmap[i] >= 0 ? p[j->padmap[i]] : (float)full_u;
            }
            horiz_f(p, wxf, d->kx, C, ws, (float *)acc, out, 1);
        } else if (src->type == GVIS_F32) {
            float *p = (float *)pad;
            vert_f32((const float *const *)rows, wf, nr, cst_f, ws, p + left);
            for (int i = 0; i < 2 * left; i++) {
                int at = i < left ? i : ws + i;
                p[at] = j->padmap[i] >= 0 ? p[j->padmap[i]] : full_f;
            }
            horiz_f(p, wxf, d->kx, C, ws, (float *)acc, out, 0);
        } else {
            double *p = (double *)pad;
            vert_u16((const uint16_t *const *)rows, w32, nr, (uint32_t)(cw * bv), ws, (uint32_t *)acc, p + left);
            for (int i = 0; i < 2 * left; i++) {
                int at = i < left ? i : ws + i;
                p[at] = j->padmap[i] >= 0 ? p[j->padmap[i]] : full_u;
            }
            horiz_u16(p, wxd, d->kx, C, ws, (double *)acc, out);
        }
    }
    free(mem);
}

int gvis_gauss_cpu_desc(const gvis_image *src, const gvis_gauss_desc *d, gvis_image *dst)
{
    const int C = d->channels, left = d->kx / 2 * C;
    struct gauss_cpu j = {src, dst, d, NULL, left, 0, NULL, (size_t)d->width * (size_t)C * (size_t)src->type};
    int tasks = gvis_threads() * 4; /* handed out dynamically: balances a busy core */
    if (tasks > d->height)
        tasks = d->height;
    const size_t ry = (size_t)(d->ky / 2);
    if (dst->data == src->data && ry > 0) {
        if (dst->stride != src->stride || !(tasks = gvis_gauss_inplace_tasks(d, j.rb)))
            return gvis_error(GVIS_E_ARG, "this blur cannot be done in place");
        if (!(j.halo = malloc((size_t)tasks * 2 * ry * j.rb)))
            return gvis_error(GVIS_E_NOMEM, "out of memory");
        for (int b = 0; b < tasks; b++) {
            size_t y0, y1;
            gvis_split((size_t)d->height, b, tasks, &y0, &y1);
            for (size_t i = 0; i < ry; i++) {
                uint8_t *above = j.halo + ((size_t)b * 2 * ry + i) * j.rb, *below = above + ry * j.rb;
                if (y0 + i >= ry)
                    memcpy(above, GVIS_ROW(src, y0 - ry + i), j.rb);
                if (y1 + i < (size_t)d->height)
                    memcpy(below, GVIS_ROW(src, y1 + i), j.rb);
            }
        }
    }
    if (left > 0) {
        j.padmap = malloc(sizeof(int) * 2 * (size_t)left);
        if (!j.padmap) {
            free(j.halo);
            return gvis_error(GVIS_E_NOMEM, "out of memory");
        }
        const int ws = d->width * C;
        for (int i = 0; i < 2 * left; i++) {
            int s = i < left ? i - left : ws + (i - left); /* sample index in the row */
            int px = s >= 0 ? s / C : -((-s + C - 1) / C);
            int m = gvis_gauss_border_index(px, d->width, d->border);
            j.padmap[i] = m < 0 ? -1 : left + m * C + (s - px * C);
        }
    }
    gvis_parallel(tasks, gauss_task, &j);
    free(j.padmap);
    free(j.halo);
    if (atomic_load(&j.failed))
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    return GVIS_OK;
}
