/* SGM step 4: path aggregation, CPU.
 *
 * The cost volume C[y][x][k] (u8, lib/stereo/sgm_cost.c) is computed once.  Then
 * two tasks sweep the image at the same time: the forward task (top to bottom,
 * left to right) runs the directions whose predecessor lies above or to the left,
 * the backward task the four opposite ones.  Each keeps only the previous row of
 * path costs per direction, updates 16 or 32 disparities per instruction with
 * saturating u8 arithmetic (exact, see sgm.h), and writes its own u16 partial sum;
 * the two partial sums are added here.
 */
#include <stdlib.h>
#include <string.h>
#include "sgm.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SGM_X86 1
#endif

const int gvis_sgm_dirs[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {-1, 1}, {1, -1}};

/* A slot holds one pixel's D path costs at offset PAD, with 255 just before and
 * after (the left-out k-1 and k+1 terms: 255 - m + P1 >= P2 since m <= Cmax). */
#define PAD 32

typedef struct {
    const uint8_t *guide;
    int width, height, D, min_disp, p1, paths;
    uint8_t p2lut[256];
    uint8_t *cost;
    uint16_t *sum[2];
    int failed;
} agg_job;

/* ---- one pixel, ndir directions ------------------------------------------- */

typedef struct {
    const uint8_t *prev[4];
    int m[4];
    uint8_t *out[4];
    int newm[4];
    int p2[4];
} pix_io;

#ifndef SGM_X86
static void pixel_scalar(const uint8_t *c, pix_io *io, int ndir, uint16_t *sum, int D, int p1)
{
    for (int k = 0; k < D; k++)
        sum[k] = 0;
    for (int d = 0; d < ndir; d++) {
        const uint8_t *p = io->prev[d];
        const int m = io->m[d], p2 = io->p2[d];
        int mn = 255;
        for (int k = 0; k < D; k++) {
            int t = p[k] - m;
            int a = p[k - 1] - m + p1, b = p[k + 1] - m + p1;
            if (a < t) t = a;
            if (b < t) t = b;
            if (p2 < t) t = p2;
            int v = c[k] + t;
            io->out[d][k] = (uint8_t)v;
            sum[k] = (uint16_t)(sum[k] + v);
            if (v < mn) mn = v;
        }
        io->newm[d] = mn;
    }
}

#endif

#ifdef SGM_X86
static inline __attribute__((always_inline)) void pixel_sse2(const uint8_t *c, pix_io *io, int ndir, uint16_t *sum, int D, int p1)
{
    const __m128i P1 = _mm_set1_epi8((char)p1), z = _mm_setzero_si128();
    __m128i mv[4], mn[4], P2[4];
    for (int d = 0; d < ndir; d++) {
        mv[d] = _mm_set1_epi8((char)io->m[d]);
        P2[d] = _mm_set1_epi8((char)io->p2[d]);
        mn[d] = _mm_set1_epi8((char)255);
    }
    for (int k = 0; k < D; k += 16) {
        const __m128i cv = _mm_loadu_si128((const __m128i *)(c + k));
        __m128i s0 = z, s1 = z;
        for (int d = 0; d < ndir; d++) {
            const uint8_t *p = io->prev[d] + k;
            __m128i t = _mm_subs_epu8(_mm_loadu_si128((const __m128i *)p), mv[d]);
            __m128i a = _mm_adds_epu8(_mm_subs_epu8(_mm_loadu_si128((const __m128i *)(p - 1)), mv[d]), P1);
            __m128i b = _mm_adds_epu8(_mm_subs_epu8(_mm_loadu_si128((const __m128i *)(p + 1)), mv[d]), P1);
            t = _mm_min_epu8(_mm_min_epu8(t, a), _mm_min_epu8(b, P2[d]));
            __m128i v = _mm_adds_epu8(cv, t);
            _mm_storeu_si128((__m128i *)(io->out[d] + k), v);
            mn[d] = _mm_min_epu8(mn[d], v);
            s0 = _mm_add_epi16(s0, _mm_unpacklo_epi8(v, z));
            s1 = _mm_add_epi16(s1, _mm_unpackhi_epi8(v, z));
        }
        _mm_storeu_si128((__m128i *)(sum + k), s0);
        _mm_storeu_si128((__m128i *)(sum + k + 8), s1);
    }
    for (int d = 0; d < ndir; d++) {
        __m128i x = mn[d];
        x = _mm_min_epu8(x, _mm_srli_si128(x, 8));
        x = _mm_min_epu8(x, _mm_srli_si128(x, 4));
        x = _mm_min_epu8(x, _mm_srli_si128(x, 2));
        x = _mm_min_epu8(x, _mm_srli_si128(x, 1));
        io->newm[d] = _mm_cvtsi128_si32(x) & 0xff;
    }
}

static inline __attribute__((always_inline, target("avx2")))
void pixel_avx2(const uint8_t *c, pix_io *io, int ndir, uint16_t *sum, int D, int p1)
{
    const __m256i P1 = _mm256_set1_epi8((char)p1), ones = _mm256_set1_epi8(1);
    __m256i mv[4], mn[4], P2m[4];
    for (int d = 0; d < ndir; d++) {
        mv[d] = _mm256_set1_epi8((char)io->m[d]);
        /* P2 + m <= (255 - Cmax) + Cmax: no saturation (sgm.h step 4) */
        P2m[d] = _mm256_set1_epi8((char)(io->p2[d] + io->m[d]));
        mn[d] = _mm256_set1_epi8((char)255);
    }
    for (int k = 0; k < D; k += 32) {
        const __m256i cv = _mm256_loadu_si256((const __m256i *)(c + k));
        __m256i v[4];
        for (int d = 0; d < ndir; d++) {
            /* min(p, min(p-1, p+1) + P1, P2 + m) - m: saturating u8 adds and subtractions are
             * monotone, so taking the minimum first gives the rule's value exactly */
            const uint8_t *p = io->prev[d] + k;
            __m256i nb = _mm256_min_epu8(_mm256_loadu_si256((const __m256i *)(p - 1)),
                                         _mm256_loadu_si256((const __m256i *)(p + 1)));
            __m256i t = _mm256_min_epu8(_mm256_loadu_si256((const __m256i *)p), _mm256_adds_epu8(nb, P1));
            t = _mm256_subs_epu8(_mm256_min_epu8(t, P2m[d]), mv[d]);
            v[d] = _mm256_adds_epu8(cv, t);
            _mm256_storeu_si256((__m256i *)(io->out[d] + k), v[d]);
            mn[d] = _mm256_min_epu8(mn[d], v[d]);
        }
        /* sums of pairs of directions by maddubs on interleaved bytes (lanes k 0-7,16-23 and
         * 8-15,24-31), back in order by one cross-lane permute each */
        __m256i lo = _mm256_maddubs_epi16(_mm256_unpacklo_epi8(v[0], v[1]), ones);
        __m256i hi = _mm256_maddubs_epi16(_mm256_unpackhi_epi8(v[0], v[1]), ones);
        if (ndir == 4) {
            lo = _mm256_add_epi16(lo, _mm256_maddubs_epi16(_mm256_unpacklo_epi8(v[2], v[3]), ones));
            hi = _mm256_add_epi16(hi, _mm256_maddubs_epi16(_mm256_unpackhi_epi8(v[2], v[3]), ones));
        }
        _mm256_storeu_si256((__m256i *)(sum + k), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(sum + k + 16), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    for (int d = 0; d < ndir; d++) {
        /* 32 bytes -> 16 -> 8 u16 (pairwise byte minima) -> phminposuw */
        __m128i x = _mm_min_epu8(_mm256_castsi256_si128(mn[d]), _mm256_extracti128_si256(mn[d], 1));
        x = _mm_min_epu8(x, _mm_srli_epi16(x, 8));
        x = _mm_minpos_epu16(_mm_and_si128(x, _mm_set1_epi16(0xff)));
        io->newm[d] = _mm_cvtsi128_si32(x) & 0xffff;
    }
}
#endif

typedef void (*pixel_fn)(const uint8_t *, pix_io *, int, uint16_t *, int, int);

/* ---- one sweep -------------------------------------------------------------- */

/* The x offset of the vertical, diagonal and anti-diagonal predecessors (in sweep
 * coordinates; their row is the previous one). */
static const int ddx[3] = {0, -1, 1};

/* One pixel of a sweep, any position: predecessors outside the image read the zero
 * slot (path costs 0, minimum 0, no P2 step). */
static inline __attribute__((always_inline)) void sweep_pixel(agg_job *j, int s, pixel_fn fn, const int ndir,
                                                              size_t slot, uint8_t *zero, uint8_t *hz[2],
                                                              uint8_t *rows[3][2], int *mins, uint16_t *sum, int *hm,
                                                              int xi, int yi, int y, int cur, int prv)
{
    const int W = j->width, D = j->D;
    const int x = s > 0 ? xi : W - 1 - xi;
    pix_io io;
    /* horizontal */
    const int g = j->guide[(size_t)y * W + x];
    const uint8_t *grow = yi > 0 ? j->guide + (size_t)(y - s) * W : NULL; /* the predecessors' row */
    io.prev[0] = xi > 0 ? hz[(xi - 1) & 1] + PAD : zero + PAD;
    io.m[0] = xi > 0 ? *hm : 0;
    io.out[0] = hz[xi & 1] + PAD;
    io.p2[0] = xi > 0 ? j->p2lut[abs(g - j->guide[(size_t)y * W + x - s])] : 0;
    /* vertical, diagonal, anti-diagonal: row buffers indexed by xi */
    for (int d = 0; d < 3; d++) {
        int px = xi + ddx[d];
        int ok = yi > 0 && px >= 0 && px < W;
        io.prev[d + 1] = ok ? rows[d][prv] + (size_t)px * slot + PAD : zero + PAD;
        io.m[d + 1] = ok ? mins[((size_t)d * 2 + prv) * W + px] : 0;
        io.out[d + 1] = rows[d][cur] + (size_t)xi * slot + PAD;
        io.p2[d + 1] = ok ? j->p2lut[abs(g - grow[x + s * ddx[d]])] : 0;
    }
    const size_t off = ((size_t)y * W + x) * D;
    fn(j->cost + off, &io, ndir, sum + off, D, j->p1);
    *hm = io.newm[0];
    for (int d = 0; d < ndir - 1; d++)
        mins[((size_t)d * 2 + cur) * W + xi] = io.newm[d + 1];
}

/* The forward sweep (s = 1) runs directions 0, 2, 4, 6 of gvis_sgm_dirs; the
 * backward one (s = -1) directions 1, 3, 5, 7, mirrored.  In sweep coordinates the
 * predecessors are: horizontal (x-1, y), vertical (x, y-1), diagonal (x-1, y-1),
 * anti-diagonal (x+1, y-1). */
static inline __attribute__((always_inline)) void sweep_impl(agg_job *j, int s, uint8_t *scratch, pixel_fn fn,
                                                             const int ndir)
{
    const int W = j->width, H = j->height, D = j->D;
    const size_t slot = (size_t)D + 2 * PAD;
    /* Layout: zero slot, 2 horizontal slots, then per vertical/diagonal direction
     * two rows of W slots (previous, current); mins after. */
    uint8_t *zero = scratch;
    uint8_t *hz[2] = {scratch + slot, scratch + 2 * slot};
    uint8_t *rows[3][2];
    for (int d = 0; d < 3; d++)
        for (int r = 0; r < 2; r++)
            rows[d][r] = scratch + (3 + (size_t)(2 * d + r) * W) * slot;
    int *mins = (int *)(scratch + (3 + (size_t)6 * W) * slot); /* [3][2][W] */
    memset(zero, 0, slot);
    zero[PAD - 1] = zero[PAD + D] = 255;
    for (int i = 0; i < 2; i++) {
        hz[i][PAD - 1] = hz[i][PAD + D] = 255;
    }
    for (int d = 0; d < 3; d++)
        for (int r = 0; r < 2; r++)
            for (int x = 0; x < W; x++) {
                uint8_t *q = rows[d][r] + (size_t)x * slot;
                q[PAD - 1] = q[PAD + D] = 255;
            }
    uint16_t *sum = j->sum[s > 0 ? 0 : 1];
    int hm = 0;
    for (int yi = 0; yi < H; yi++) {
        const int y = s > 0 ? yi : H - 1 - yi;
        const int cur = yi & 1, prv = cur ^ 1;
        if (yi > 0 && W > 2) {
            /* Below the first row, the pixels with both neighbours in the row have every
             * predecessor inside the image: no bounds to test, pointers that step by one
             * slot; the two edge pixels take the general path. */
            sweep_pixel(j, s, fn, ndir, slot, zero, hz, rows, mins, sum, &hm, 0, yi, y, cur, prv);
            const uint8_t *grow_c = j->guide + (size_t)y * W, *grow_p = j->guide + (size_t)(y - s) * W;
            const uint8_t *pr[3];
            uint8_t *oc[3];
            const int *mins_p[3];
            int *mins_c[3];
            for (int d = 0; d < 3; d++) {
                pr[d] = rows[d][prv] + (size_t)(1 + ddx[d]) * slot + PAD;
                oc[d] = rows[d][cur] + slot + PAD;
                mins_p[d] = mins + ((size_t)d * 2 + prv) * W;
                mins_c[d] = mins + ((size_t)d * 2 + cur) * W;
            }
            int x = s > 0 ? 1 : W - 2;
            const ptrdiff_t dc = (ptrdiff_t)s * D;
            const uint8_t *c = j->cost + ((size_t)y * W + x) * D;
            uint16_t *sm = sum + ((size_t)y * W + x) * D;
            for (int xi = 1; xi < W - 1; xi++, x += s, c += dc, sm += dc) {
                pix_io io;
                const int g = grow_c[x];
                io.prev[0] = hz[(xi - 1) & 1] + PAD;
                io.m[0] = hm;
                io.out[0] = hz[xi & 1] + PAD;
                io.p2[0] = j->p2lut[abs(g - grow_c[x - s])];
                for (int d = 0; d < 3; d++) {
                    io.prev[d + 1] = pr[d];
                    io.m[d + 1] = mins_p[d][xi + ddx[d]];
                    io.out[d + 1] = oc[d];
                    io.p2[d + 1] = j->p2lut[abs(g - grow_p[x + s * ddx[d]])];
                    pr[d] += slot;
                    oc[d] += slot;
                }
                fn(c, &io, ndir, sm, D, j->p1);
                hm = io.newm[0];
                for (int d = 0; d < ndir - 1; d++)
                    mins_c[d][xi] = io.newm[d + 1];
            }
            sweep_pixel(j, s, fn, ndir, slot, zero, hz, rows, mins, sum, &hm, W - 1, yi, y, cur, prv);
            continue;
        }
        for (int xi = 0; xi < W; xi++)
            sweep_pixel(j, s, fn, ndir, slot, zero, hz, rows, mins, sum, &hm, xi, yi, y, cur, prv);
    }
}

/* The sweep with the pixel update inlined, per instruction set. */
#ifdef SGM_X86
/* ndir is a constant in each copy, so that the per-direction arrays stay in registers. */
__attribute__((target("avx2"))) static void sweep_avx2(agg_job *j, int s, uint8_t *scratch)
{
    if (j->paths == 8)
        sweep_impl(j, s, scratch, pixel_avx2, 4);
    else
        sweep_impl(j, s, scratch, pixel_avx2, 2);
}

static void sweep_sse2(agg_job *j, int s, uint8_t *scratch)
{
    if (j->paths == 8)
        sweep_impl(j, s, scratch, pixel_sse2, 4);
    else
        sweep_impl(j, s, scratch, pixel_sse2, 2);
}
#else
static void sweep_scalar(agg_job *j, int s, uint8_t *scratch)
{
    sweep_impl(j, s, scratch, pixel_scalar, j->paths == 8 ? 4 : 2);
}
#endif

static void sweep(agg_job *j, int s, uint8_t *scratch)
{
#ifdef SGM_X86
    if (j->D % 32 == 0 && __builtin_cpu_supports("avx2"))
        sweep_avx2(j, s, scratch);
    else
        sweep_sse2(j, s, scratch);
#else
    sweep_scalar(j, s, scratch);
#endif
}

static size_t sweep_scratch_bytes(int W, int D)
{
    const size_t slot = (size_t)D + 2 * PAD;
    return (3 + (size_t)6 * W) * slot + sizeof(int) * 6 * (size_t)W;
}

static void sweep_task(void *arg, int index, int count)
{
    agg_job *j = arg;
    (void)count;
    uint8_t *scratch = malloc(sweep_scratch_bytes(j->width, j->D));
    if (!scratch) {
        j->failed = 1;
        return;
    }
    sweep(j, index == 0 ? 1 : -1, scratch);
    free(scratch);
}

__attribute__((target_clones("arch=x86-64-v3", "default")))
static void add_sums(uint16_t *a, const uint16_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = (uint16_t)(a[i] + b[i]);
}

typedef struct {
    uint16_t *a;
    const uint16_t *b;
    size_t n;
} add_job;

static void add_task(void *arg, int index, int count)
{
    add_job *j = arg;
    size_t b0, b1;
    gvis_split(j->n, index, count, &b0, &b1);
    add_sums(j->a + b0, j->b + b0, b1 - b0);
}

void gvis_sgm_p2_table(const gvis_sgm_params *p, uint8_t lut[256])
{
    for (int d = 0; d < 256; d++) {
        int v = p->p2_adapt > 0 ? p->p2 * p->p2_adapt / (p->p2_adapt + d) : p->p2;
        lut[d] = (uint8_t)(v < p->p1 ? p->p1 : v);
    }
}

static void job_init(agg_job *j, const uint8_t *guide, int width, int height, const gvis_sgm_params *p)
{
    memset(j, 0, sizeof *j);
    j->guide = guide;
    j->width = width;
    j->height = height;
    j->D = p->max_disp;
    j->min_disp = p->min_disp;
    j->p1 = p->p1;
    j->paths = p->paths;
    gvis_sgm_p2_table(p, j->p2lut);
}

/* Paths over the volume in j->cost (sum2 as for gvis_sgm_aggregate). */
static int sweep_volume(agg_job *j, size_t cells, uint16_t *sum, uint16_t *sum2)
{
    j->sum[0] = sum;
    j->sum[1] = sum2 ? sum2 : gvis_sgm_scratch_take(cells * sizeof(uint16_t));
    if (!j->sum[1])
        return gvis_error(GVIS_E_NOMEM, "out of memory for a %dx%dx%d cost volume", j->width, j->height, j->D);
    gvis_parallel(2, sweep_task, j);
    if (!j->failed && !sum2) {
        add_job a = {sum, j->sum[1], cells};
        gvis_parallel(gvis_threads(), add_task, &a);
    }
    if (!sum2)
        gvis_sgm_scratch_give(j->sum[1], cells * sizeof(uint16_t));
    if (j->failed)
        return gvis_error(GVIS_E_NOMEM, "out of memory for path aggregation");
    return GVIS_OK;
}

int gvis_sgm_aggregate_volume(const uint8_t *cost, const uint8_t *guide, int width, int height,
                              const gvis_sgm_params *p, uint16_t *sum, uint16_t *sum2)
{
    size_t cells;
    if (gvis_image_bytes((size_t)width, (size_t)height, (size_t)p->max_disp, 1, &cells))
        return gvis_error(GVIS_E_LIMIT, "cost volume of %dx%dx%d is too large", width, height, p->max_disp);
    agg_job j;
    job_init(&j, guide, width, height, p);
    j.cost = (uint8_t *)cost; /* read only by the sweeps */
    return sweep_volume(&j, cells, sum, sum2);
}

int gvis_sgm_aggregate(const uint64_t *cl, const uint64_t *cr, const uint8_t *guide, const uint8_t *ad_l,
                       const uint8_t *ad_r, int width, int height, const gvis_sgm_params *p, uint16_t *sum,
                       uint16_t *sum2)
{
    const int D = p->max_disp;
    size_t cells;
    if (gvis_image_bytes((size_t)width, (size_t)height, (size_t)D, 1, &cells))
        return gvis_error(GVIS_E_LIMIT, "cost volume of %dx%dx%d is too large", width, height, D);
    agg_job j;
    job_init(&j, guide, width, height, p);
    j.cost = gvis_sgm_scratch_take(cells);
    if (!j.cost)
        return gvis_error(GVIS_E_NOMEM, "out of memory for a %dx%dx%d cost volume", width, height, D);
    gvis_sgm_cost_volume(cl, cr, ad_l, ad_r, width, height, p, j.cost);
    int rc = sweep_volume(&j, cells, sum, sum2);
    gvis_sgm_scratch_give(j.cost, cells);
    return rc;
}

