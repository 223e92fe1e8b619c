/* gvis disparity: the SGM pipeline's entry point, parameters, grey conversion,
 * and the CPU and CUDA pipelines (the rule is in sgm.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "trace.h"
#include "sgm.h"
#ifdef GVIS_HAVE_CUDA
#include "quality_cuda.h"
#include "sgm_cuda.h"
#endif

/* Passes of cross aggregation (lib/stereo/cross_aggregate.c), both devices. */
#define CROSS_PASSES 2

void gvis_sgm_defaults(gvis_sgm_params *p)
{
    p->max_disp = 128;
    p->min_disp = 0;
    p->paths = 8;
    p->p1 = 10;
    p->p2 = 120;
    p->p2_adapt = 8;
    p->census = GVIS_CENSUS_SYM;
    p->cost = GVIS_COST_ADCENSUS;
    p->aggregate = GVIS_AGGREGATE_NONE;
    p->refine = 0;
    p->uniqueness = 0.95;
    p->subpixel = 1;
    p->lr_check = 1;
    p->median = 1;
    p->fill = GVIS_FILL_NONE;
}

int gvis_sgm_cost_max(const gvis_sgm_params *p)
{
    if (p->cost == GVIS_COST_ADCENSUS) {
        uint8_t lc[64], la[64];
        gvis_sgm_cost_luts(p->census, lc, la);
        return gvis_sgm_cost_luts_max(lc, la);
    }
    return p->census == GVIS_CENSUS_9X7 ? 62 : 31;
}

int gvis_sgm_check(const gvis_sgm_params *p, int width, int height)
{
    if (p->max_disp < 16 || p->max_disp > GVIS_SGM_MAX_D || p->max_disp % 16)
        return gvis_error(GVIS_E_ARG, "max-disp %d is not a multiple of 16 in 16..%d", p->max_disp, GVIS_SGM_MAX_D);
    if (p->min_disp < -GVIS_SGM_MAX_ABS_MIN || p->min_disp > GVIS_SGM_MAX_ABS_MIN)
        return gvis_error(GVIS_E_ARG, "min-disp %d is outside -%d..%d", p->min_disp, GVIS_SGM_MAX_ABS_MIN,
                          GVIS_SGM_MAX_ABS_MIN);
    if (p->paths != 4 && p->paths != 8)
        return gvis_error(GVIS_E_ARG, "paths must be 4 or 8, not %d", p->paths);
    if (p->census != GVIS_CENSUS_9X7 && p->census != GVIS_CENSUS_SYM)
        return gvis_error(GVIS_E_ARG, "unknown census kind %d", p->census);
    if (p->cost != GVIS_COST_CENSUS && p->cost != GVIS_COST_ADCENSUS)
        return gvis_error(GVIS_E_ARG, "unknown cost kind %d", p->cost);
    const int p2max = 255 - gvis_sgm_cost_max(p);
    if (p->p2 < 0 || p->p2 > p2max)
        return gvis_error(GVIS_E_ARG, "p2 %d is outside 0..%d (8-bit path costs with %s cost, census %s)", p->p2,
                          p2max, p->cost == GVIS_COST_ADCENSUS ? "ad-census" : "census",
                          p->census == GVIS_CENSUS_9X7 ? "9x7" : "sym");
    if (p->p2_adapt < 0 || p->p2_adapt > 255)
        return gvis_error(GVIS_E_ARG, "p2-adapt %d is outside 0..255", p->p2_adapt);
    if (p->p1 < 0 || p->p1 > p->p2)
        return gvis_error(GVIS_E_ARG, "p1 %d is outside 0..p2 (%d)", p->p1, p->p2);
    if (!(p->uniqueness > 0.0 && p->uniqueness <= 1.0))
        return gvis_error(GVIS_E_ARG, "uniqueness %g is outside (0, 1]", p->uniqueness);
    if (p->lr_check > 1000)
        return gvis_error(GVIS_E_ARG, "lr-check tolerance %d is too large", p->lr_check);
    if (p->aggregate != GVIS_AGGREGATE_NONE && p->aggregate != GVIS_AGGREGATE_CROSS)
        return gvis_error(GVIS_E_ARG, "unknown aggregation kind %d", p->aggregate);
    if (p->refine != 0 && p->refine != 1)
        return gvis_error(GVIS_E_ARG, "refine must be 0 or 1, not %d", p->refine);
    if (p->fill != GVIS_FILL_NONE && p->fill != GVIS_FILL_BACKGROUND)
        return gvis_error(GVIS_E_ARG, "unknown fill kind %d", p->fill);
    if (width > 0 && height > 0) {
        /* Some disparity of the range must put a match inside the right image. */
        if (p->min_disp > width - 1 || p->min_disp + p->max_disp - 1 < -(width - 1))
            return gvis_error(GVIS_E_ARG, "disparity range %d..%d does not fit an image %d pixels wide",
                              p->min_disp, p->min_disp + p->max_disp - 1, width);
        if (p->max_disp > width)
            return gvis_error(GVIS_E_ARG, "disparity range of %d is wider than the image (%d pixels)",
                              p->max_disp, width);
    }
    return GVIS_OK;
}

int gvis_disp_alloc(gvis_disp *d, int width, int height, int min_disp)
{
    size_t n;
    memset(d, 0, sizeof *d);
    if (width <= 0 || height <= 0)
        return gvis_error(GVIS_E_ARG, "empty disparity map");
    if (gvis_image_bytes((size_t)width, (size_t)height, 1, sizeof(int16_t), &n))
        return gvis_error(GVIS_E_LIMIT, "disparity map of %dx%d is too large", width, height);
    d->data = malloc(n);
    if (!d->data)
        return gvis_error(GVIS_E_NOMEM, "out of memory for a %dx%d disparity map", width, height);
    d->width = width;
    d->height = height;
    d->min_disp = min_disp;
    return GVIS_OK;
}

void gvis_disp_free(gvis_disp *d)
{
    free(d->data);
    free(d->fdata);
    memset(d, 0, sizeof *d);
}

typedef struct {
    const gvis_image *src;
    gvis_image *gray;
} gray_job;

static void gray_task(void *arg, int index, int count)
{
    gray_job *j = arg;
    const gvis_image *src = j->src;
    const int c = src->channels;
    size_t y0, y1;
    gvis_split((size_t)src->height, index, count, &y0, &y1);
    for (size_t y = y0; y < y1; y++) {
        if (src->type == GVIS_U8) {
            const uint8_t *s = GVIS_ROW(src, y);
            uint8_t *d = GVIS_ROW(j->gray, y);
            if (c == 1)
                memcpy(d, s, (size_t)src->width);
            else
                for (int x = 0; x < src->width; x++, s += c)
                    d[x] = (uint8_t)((4899u * s[0] + 9617u * s[1] + 1868u * s[2] + 8192u) >> 14);
        } else {
            const uint16_t *s = GVIS_ROW(src, y);
            uint16_t *d = GVIS_ROW(j->gray, y);
            if (c == 1)
                memcpy(d, s, sizeof(uint16_t) * (size_t)src->width);
            else
                for (int x = 0; x < src->width; x++, s += c)
                    d[x] = (uint16_t)((4899u * s[0] + 9617u * s[1] + 1868u * s[2] + 8192u) >> 14);
        }
    }
}

int gvis_sgm_gray(const gvis_image *src, gvis_image *gray)
{
    if (src->type != GVIS_U8 && src->type != GVIS_U16)
        return gvis_error(GVIS_E_FORMAT, "disparity takes 8- or 16-bit images, not %s", gvis_type_name(src->type));
    int rc = gvis_image_alloc(gray, src->width, src->height, 1, src->type, 0);
    if (rc)
        return rc;
    gray_job j = {src, gray};
    /* under a megapixel the conversion takes less than waking the pool's threads */
    int tasks = (size_t)src->width * (size_t)src->height < ((size_t)1 << 20) ? 1 : gvis_threads() * 2;
    gvis_parallel(tasks < src->height ? tasks : src->height, gray_task, &j);
    return GVIS_OK;
}

/* ---- the pipelines ---------------------------------------------------------- */

typedef struct {
    const gvis_image *gl, *gr;
    const gvis_sgm_params *p;
    gvis_disp *out_l, *out_r;
    int need_right;
    /* CPU scratch */
    uint64_t *cl, *cr;
    uint8_t *guide, *guide_r, *arms; /* arms: W x H x 4 with --aggregate cross or --refine */
    uint8_t remap[256]; /* ad-census: R of sgm.h step 3 */
    uint16_t *sum, *sum2;
    int16_t *tl, *tr, *ml, *mr;
} sgm_call;

static void post_swap(int16_t **a, int16_t **b)
{
    int16_t *t = *a;
    *a = *b;
    *b = t;
}

static int sgm_cpu_once(void *arg)
{
    sgm_call *c = arg;
    const gvis_sgm_params *p = c->p;
    const int W = c->gl->width, H = c->gl->height, D = p->max_disp, M = p->min_disp;
    const size_t n = (size_t)W * H;
    gvis_sgm_census(c->gl->data, c->gl->stride, (int)c->gl->type, W, H, p->census, c->cl);
    gvis_sgm_census(c->gr->data, c->gr->stride, (int)c->gr->type, W, H, p->census, c->cr);
    gvis_sgm_guide(c->gl, c->guide);
    if (p->cost == GVIS_COST_ADCENSUS) {
        gvis_sgm_guide(c->gr, c->guide_r);
        gvis_sgm_ad_remap(c->guide_r, n, c->remap);
    }
    const uint8_t *adl = c->guide, *adr = p->cost == GVIS_COST_ADCENSUS ? c->guide_r : NULL;
    int rc;
    if (c->arms)
        gvis_cross_arms(c->guide, W, H, c->arms);
    if (p->aggregate == GVIS_AGGREGATE_CROSS) {
        const size_t cells = n * D;
        uint8_t *cost = gvis_sgm_scratch_take(cells);
        if (!cost)
            return gvis_error(GVIS_E_NOMEM, "out of memory for a %dx%dx%d cost volume", W, H, D);
        gvis_sgm_cost_volume(c->cl, c->cr, adl, adr, W, H, p, cost);
        rc = gvis_cross_aggregate(cost, c->arms, W, H, D, CROSS_PASSES);
        if (!rc)
            rc = gvis_sgm_aggregate_volume(cost, c->guide, W, H, p, c->sum, c->sum2);
        gvis_sgm_scratch_give(cost, cells);
    } else {
        rc = gvis_sgm_aggregate(c->cl, c->cr, c->guide, adl, adr, W, H, p, c->sum, c->sum2);
    }
    if (rc)
        return rc;
    int16_t *l = c->tl, *r = c->need_right ? c->tr : NULL, *l2 = c->ml, *r2 = c->mr;
    if ((rc = gvis_sgm_wta(c->sum, c->sum2, W, H, D, M, p->uniqueness, p->subpixel, l, r)))
        return rc;
    if (p->median) {
        gvis_sgm_median(l, l2, W, H);
        post_swap(&l, &l2);
        if (r) {
            gvis_sgm_median(r, r2, W, H);
            post_swap(&r, &r2);
        }
    }
    const int16_t *r_pre = r; /* the right map before the check (refinement's classes) */
    if (p->lr_check >= 0) {
        gvis_sgm_lrcheck(l, r, l2, c->out_r ? r2 : NULL, W, H, M, p->lr_check);
        post_swap(&l, &l2);
        if (c->out_r)
            post_swap(&r, &r2);
    }
    if (p->refine && (rc = gvis_refine(l, r_pre, l2, c->arms, c->guide, W, H, M, D)))
        return rc;
    if (p->fill == GVIS_FILL_BACKGROUND) {
        gvis_sgm_fill(l, W, H, GVIS_SGM_INVALID(M));
        if (c->out_r)
            gvis_sgm_fill(r, W, H, GVIS_SGM_INVALID(M));
    }
    memcpy(c->out_l->data, l, n * sizeof(int16_t));
    if (c->out_r)
        memcpy(c->out_r->data, r, n * sizeof(int16_t));
    return GVIS_OK;
}

static int sgm_cpu(gvis_ctx *ctx, void *arg)
{
    sgm_call *c = arg;
    const int W = c->gl->width, H = c->gl->height, D = c->p->max_disp;
    size_t n = (size_t)W * H, cells;
    if (gvis_image_bytes((size_t)W, (size_t)H, (size_t)D, sizeof(uint16_t), &cells))
        return gvis_error(GVIS_E_LIMIT, "cost volume of %dx%dx%d is too large", W, H, D);
    /* one block: censuses, partial sums, guide, four maps (kept between calls) */
    const int need_arms = c->p->aggregate == GVIS_AGGREGATE_CROSS || c->p->refine;
    const size_t bytes = 2 * n * sizeof(uint64_t) + 2 * cells + 4 * n * sizeof(int16_t) + 2 * n + (need_arms ? 4 * n : 0);
    uint8_t *block = gvis_sgm_scratch_take(bytes);
    int rc = GVIS_OK;
    if (!block) {
        rc = gvis_error(GVIS_E_NOMEM, "out of memory for SGM on %dx%d with %d disparities", W, H, D);
    } else {
        c->cl = (uint64_t *)block;
        c->cr = c->cl + n;
        c->sum = (uint16_t *)(c->cr + n);
        c->sum2 = (uint16_t *)((uint8_t *)c->sum + cells);
        c->tl = (int16_t *)((uint8_t *)c->sum2 + cells);
        c->tr = c->tl + n;
        c->ml = c->tl + 2 * n;
        c->mr = c->tl + 3 * n;
        c->guide = (uint8_t *)(c->tl + 4 * n);
        c->guide_r = c->guide + n;
        c->arms = need_arms ? c->guide_r + n : NULL;
        rc = gvis_time_cpu(ctx, sgm_cpu_once, c);
    }
    gvis_sgm_scratch_give(block, bytes);
    return rc;
}

#ifdef GVIS_HAVE_CUDA
typedef struct {
    sgm_call *c;
    const void *d_gl, *d_gr;
    size_t pl, pr;
    uint64_t *d_cl, *d_cr;
    uint8_t *d_guide, *d_guide_r, *d_lr; /* d_lr: the per-path volumes, or the u16 sum volume */
    uint32_t *d_state;                   /* the banded sum's line states */
    int band;                            /* rows a band of the sum's vertical and diagonal paths; 0 whole */
    uint8_t *d_strips;                   /* the upward pass's strip volumes (gvis_sgm_cuda_strips) */
    uint16_t *d_strip_cost;              /* and a strip's costs for the run layout */
    int strip_rows, strip_sets;
    uint8_t luts[128];                   /* ad-census tables */
    int per_path;
    int16_t *d_t[4];
    int16_t *d_outl, *d_outr;
    /* quality stages */
    uint16_t *d_pairs; /* the costs in the lanes' pair layout (gvis_sgm_cuda_costvol) */
    uint8_t *d_cost, *d_arms, *d_label;
    uint32_t *d_sum32, *d_cnt;
    int *d_counts;
} sgm_launch_t;

static int sgm_launch(void *arg, void *stream)
{
    sgm_launch_t *g = arg;
    sgm_call *c = g->c;
    const gvis_sgm_params *p = c->p;
    const int W = c->gl->width, H = c->gl->height, D = p->max_disp, M = p->min_disp;
    /* both views in one launch; with ad-census the right guide mapped through R of step 3,
     * and the path kernels read it from the symmetric codes (sgm_cuda.h); the cross
     * pipeline's cost volume reads the codes whole */
    const int adc = p->cost == GVIS_COST_ADCENSUS;
    int err = gvis_cu_sgm_census_pair(g->d_gl, g->pl, g->d_gr, g->pr, (int)c->gl->type, W, H, p->census, g->d_cl,
                                      g->d_guide, g->d_cr, g->d_guide_r, adc ? c->remap : NULL,
                                      adc && p->census == GVIS_CENSUS_SYM && p->aggregate != GVIS_AGGREGATE_CROSS,
                                      stream);
    const uint8_t *luts = p->cost == GVIS_COST_ADCENSUS ? g->luts : NULL;
    int16_t *l = g->d_t[0], *r = c->need_right ? g->d_t[1] : NULL, *l2 = g->d_t[2], *r2 = g->d_t[3];
    const int U = gvis_sgm_uniqueness_fixed(p->uniqueness);
    if (!err && g->d_arms)
        err = gvis_cu_cross_arms(g->d_guide, (size_t)W, W, H, g->d_arms, stream);
    if (p->aggregate == GVIS_AGGREGATE_CROSS) {
        /* the cost volume (census: identity table, no AD term), cross aggregation, paths over it */
        uint8_t vl[128] = {0}, p2lut[256];
        if (!luts)
            for (int i = 0; i < 64; i++)
                vl[i] = (uint8_t)i;
        uint16_t *sum = (uint16_t *)(void *)g->d_lr;
        gvis_sgm_p2_table(p, p2lut);
        if (!err)
            err = gvis_cu_sgm_cost_adcensus(g->d_cl, g->d_cr, g->d_guide, luts ? g->d_guide_r : g->d_guide, W, H, D, M,
                                            luts ? luts : vl, g->d_cost, stream);
        if (!err)
            err = gvis_cu_cross_aggregate(g->d_cost, g->d_arms, W, H, D, CROSS_PASSES, g->d_sum32, g->d_cnt, stream);
        if (g->per_path) { /* as the census path: one u8 volume a direction, the tuned WTA over them */
            if (!err)
                err = gvis_cu_sgm_path_volume_lr(g->d_cost, g->d_guide, W, H, D, p->p1, p2lut, 0, p->paths, g->d_lr,
                                                 stream);
            if (!err)
                err = gvis_cu_sgm_wta(g->d_lr, p->paths, W, H, D, M, U, p->subpixel, l, r, stream);
        } else {
            if (!err)
                err = gvis_cu_sgm_path_volume(g->d_cost, g->d_guide, W, H, D, p->p1, p2lut, p->paths, sum,
                                              GVIS_SGM_SUM_STRIDE(D), stream);
            if (!err)
                err = gvis_cu_sgm_wta_sum(sum, GVIS_SGM_SUM_STRIDE(D), W, H, D, M, U, p->subpixel, l, r, stream);
        }
    } else if (g->per_path && g->d_pairs) {
        /* the costs once, in the lanes' pair layout, then every direction reads them */
        if (!err)
            err = gvis_cu_sgm_cost_pairs(g->d_cl, g->d_cr, g->d_guide, g->d_guide_r, luts, W, H, D, M, p->census, 0, H,
                                         g->d_pairs, stream);
        if (!err)
            err = gvis_cu_sgm_path_pairs(g->d_pairs, g->d_guide, W, H, D, p->p1, p->p2, p->p2_adapt, 0, p->paths,
                                         g->d_lr, stream);
        if (!err)
            err = gvis_cu_sgm_wta(g->d_lr, p->paths, W, H, D, M, U, p->subpixel, l, r, stream);
    } else if (g->per_path) {
        if (!err)
            err = gvis_cu_sgm_path_cost(g->d_cl, g->d_cr, g->d_guide, g->d_guide_r, luts, W, H, D, M, p->census, p->p1,
                                        p->p2, p->p2_adapt, 0, p->paths, g->d_lr, stream);
        if (!err)
            err = gvis_cu_sgm_wta(g->d_lr, p->paths, W, H, D, M, U, p->subpixel, l, r, stream);
    } else {
        /* all paths added into one u16 volume: a third of the memory (sgm_cuda.h) */
        uint16_t *sum = (uint16_t *)(void *)g->d_lr;
        if (!err && g->d_strips) /* in strips, the winner fused with the upward pass */
            err = gvis_cu_sgm_sum_strips(g->d_cl, g->d_cr, g->d_guide, g->d_guide_r, luts, W, H, D, M, p->census,
                                         p->p1, p->p2, p->p2_adapt, p->paths, g->strip_rows, sum,
                                         GVIS_SGM_SUM_STRIDE(D), g->d_state, g->d_strips, g->strip_sets,
                                         g->d_strip_cost, U, p->subpixel, l, r, stream);
        else if (!err && g->band > 0)
            err = gvis_cu_sgm_path_sum_band(g->d_cl, g->d_cr, g->d_guide, g->d_guide_r, luts, W, H, D, M, p->census,
                                            p->p1, p->p2, p->p2_adapt, p->paths, g->band, 2, sum,
                                            GVIS_SGM_SUM_STRIDE(D), g->d_state, stream);
        else if (!err)
            err = gvis_cu_sgm_path_sum(g->d_cl, g->d_cr, g->d_guide, g->d_guide_r, luts, W, H, D, M, p->census, p->p1,
                                       p->p2, p->p2_adapt, 0, p->paths, 0, sum, GVIS_SGM_SUM_STRIDE(D), stream);
        if (!err && !g->d_strips)
            err = gvis_cu_sgm_wta_sum(sum, GVIS_SGM_SUM_STRIDE(D), W, H, D, M, U, p->subpixel, l, r, stream);
    }
    if (!err && p->median) { /* both maps in one launch */
        err = gvis_cu_sgm_median2(l, l2, r, r ? r2 : NULL, W, H, stream);
        post_swap(&l, &l2);
        if (r)
            post_swap(&r, &r2);
    }
    const int16_t *r_pre = r; /* the right map before the check (refinement's classes) */
    if (!err && p->lr_check >= 0) {
        err = gvis_cu_sgm_lrcheck(l, r, l2, c->out_r ? r2 : NULL, W, H, M, p->lr_check, stream);
        post_swap(&l, &l2);
        if (c->out_r)
            post_swap(&r, &r2);
    }
    if (!err && p->refine) { /* lib/stereo/refine.c's stages */
        err = gvis_cu_refine_classify(l, r_pre, W, H, M, D, g->d_label, stream);
        if (!err)
            err = gvis_cu_refine_vote(l, l2, r_pre, g->d_label, g->d_arms, W, H, M, D, GVIS_REFINE_ROUNDS_MAX,
                                      g->d_counts, (uint8_t *)(void *)g->d_cnt, stream);
        if (!err)
            err = gvis_cu_refine_interp(l, r_pre, g->d_label, g->d_guide, l2, W, H, M, stream);
        post_swap(&l, &l2);
        if (!err)
            err = gvis_cu_sgm_fill(l, W, H, GVIS_SGM_INVALID(M), stream);
        if (!err)
            err = gvis_cu_sgm_median(l, l2, W, H, stream);
        post_swap(&l, &l2);
    }
    if (!err && p->fill == GVIS_FILL_BACKGROUND) {
        err = gvis_cu_sgm_fill(l, W, H, GVIS_SGM_INVALID(M), stream);
        if (!err && c->out_r)
            err = gvis_cu_sgm_fill(r, W, H, GVIS_SGM_INVALID(M), stream);
    }
    g->d_outl = l;
    g->d_outr = r;
    return err;
}

static int sgm_cuda(gvis_ctx *ctx, void *arg)
{
    sgm_call *c = arg;
    const int W = c->gl->width, H = c->gl->height, D = c->p->max_disp;
    const size_t n = (size_t)W * H;
    const int per_path = gvis_sgm_cuda_per_path(W, H, c->p);
    size_t vol;
    if (per_path ? gvis_image_bytes(n, (size_t)D, (size_t)c->p->paths, 1, &vol)
                 : gvis_image_bytes(n, (size_t)GVIS_SGM_SUM_STRIDE(D), 1, sizeof(uint16_t), &vol))
        return gvis_error(GVIS_E_LIMIT, "path cost volumes of %dx%dx%d are too large", W, H, D);
    if (W > gvis_cu_sgm_wta_max_width(D))
        return gvis_error(GVIS_E_DEVICE, "images wider than %d pixels are not supported on the GPU with D = %d",
                          gvis_cu_sgm_wta_max_width(D), D);
    sgm_launch_t g;
    memset(&g, 0, sizeof g);
    g.c = c;
    g.per_path = per_path;
    g.band = per_path ? 0 : gvis_sgm_cuda_band(W, H, c->p);
    double t0 = gvis_now_ms();
    int rc = gvis_cuda_upload_image(ctx, 0, c->gl, (void **)&g.d_gl, &g.pl);
    if (!rc)
        rc = gvis_cuda_upload_image(ctx, 1, c->gr, (void **)&g.d_gr, &g.pr);
    gvis_trace_span("sgm: upload", t0, gvis_now_ms(), ctx->cuda_index);
    if (rc)
        return rc;
    int err = gvis_cu_buffer(ctx->job, 2, n * sizeof(uint64_t), (void **)&g.d_cl);
    if (!err)
        err = gvis_cu_buffer(ctx->job, 3, n * sizeof(uint64_t), (void **)&g.d_cr);
    if (!err)
        err = gvis_cu_buffer(ctx->job, 4, vol, (void **)&g.d_lr);
    for (int i = 0; i < 4 && !err; i++)
        err = gvis_cu_buffer(ctx->job, 5 + i, n * sizeof(int16_t), (void **)&g.d_t[i]);
    if (!err && g.band > 0)
        err = gvis_cu_buffer(ctx->job, 14, gvis_cu_sgm_band_state_bytes(W, H, GVIS_SGM_SUM_STRIDE(D)),
                             (void **)&g.d_state);
    if (!err && g.band > 0 && (g.strip_sets = gvis_sgm_cuda_strips(W, H, c->p, &g.strip_rows)) > 0 &&
        gvis_cu_sgm_wta_strip_ok(D))
        err = gvis_cu_buffer(ctx->job, 15,
                             g.strip_sets * gvis_cu_sgm_strip_bytes(W, g.strip_rows, D, c->p->paths),
                             (void **)&g.d_strips);
    /* the strips' costs for the run layout (in the per-path cost volume's slot: unused here) */
    if (!err && g.d_strips && gvis_cu_sgm_strip_cost_bytes(W, g.strip_rows, D))
        err = gvis_cu_buffer(ctx->job, 11, gvis_cu_sgm_strip_cost_bytes(W, g.strip_rows, D),
                             (void **)&g.d_strip_cost);
    if (!err)
        err = gvis_cu_buffer(ctx->job, 9, n, (void **)&g.d_guide);
    if (!err && c->p->cost == GVIS_COST_ADCENSUS) {
        err = gvis_cu_buffer(ctx->job, 10, n, (void **)&g.d_guide_r);
        gvis_sgm_cost_luts(c->p->census, g.luts, g.luts + 64);
    }
    const int cross = c->p->aggregate == GVIS_AGGREGATE_CROSS;
    if (!err && cross)
        err = gvis_cu_buffer(ctx->job, 11, n * D, (void **)&g.d_cost);
    if (!err && gvis_sgm_cuda_costvol(W, H, c->p, per_path))
        err = gvis_cu_buffer(ctx->job, 11, n * GVIS_SGM_SUM_STRIDE(D), (void **)&g.d_pairs);
    if (!err && cross)
        err = gvis_cu_buffer(ctx->job, 12, n * D * sizeof(uint16_t), (void **)&g.d_sum32);
    if (!err && (cross || c->p->refine)) {
        /* arms (4 n), the voting rounds' scratch (gvis_cu_refine_vote_scratch: a list of the
         * invalid pixels and tile flags), labels (n), the voting rounds' counts */
        uint8_t *q = NULL;
        const size_t vs = (gvis_cu_refine_vote_scratch(W, H) + 15) / 16 * 16;
        const size_t lab = 4 * n + vs, cnt_off = (lab + n + 15) / 16 * 16;
        err = gvis_cu_buffer(ctx->job, 13, cnt_off + sizeof(int) * GVIS_REFINE_ROUNDS_MAX, (void **)&q);
        if (!err) {
            g.d_arms = q;
            g.d_cnt = (uint32_t *)(void *)(q + 4 * n); /* the vote's scratch */
            g.d_label = q + lab;
            g.d_counts = (int *)(void *)(q + cnt_off);
        }
    }
    if (err == GVIS_CUDA_ERR_NOMEM)
        return gvis_error(GVIS_E_DEVICE_NOMEM, "out of device memory allocating %zu bytes for SGM on %dx%d, D=%d",
                          gvis_sgm_cuda_bytes(W, H, c->p, per_path), W, H, D);
    if ((rc = gvis_cuda_status(err, "SGM buffers")))
        return rc;
    gvis_log(ctx, GVIS_LOG_INFO, "SGM device buffers: %.1f MiB for %dx%d, %d disparities, %d paths (%s)",
             gvis_sgm_cuda_bytes(W, H, c->p, per_path) / 1048576.0, W, H, D, c->p->paths,
             per_path ? (g.d_pairs ? "per-path u8 volumes, one cost volume" : "per-path u8 volumes") : g.band > 0 ? "one u16 sum volume, bands" : "one u16 sum volume");
    if (g.band > 0)
        gvis_log(ctx, GVIS_LOG_INFO, "SGM sum volume: vertical and diagonal paths in bands of %d rows (%.1f MiB)",
                 g.band, (double)W * g.band * GVIS_SGM_SUM_STRIDE(D) * 2 / 1048576.0);
    if (g.d_strips)
        gvis_log(ctx, GVIS_LOG_INFO,
                 "SGM upward pass: strips of %d rows, %d sets of u8 volumes (%.1f MiB) summed by the winner",
                 g.strip_rows, g.strip_sets,
                 g.strip_sets * (double)gvis_cu_sgm_strip_bytes(W, g.strip_rows, D, c->p->paths) / 1048576.0);
    t0 = gvis_now_ms();
    rc = gvis_time_cuda(ctx, sgm_launch, &g);
    gvis_trace_span("sgm: kernels", t0, gvis_now_ms(), ctx->cuda_index);
    if (rc)
        return rc;
    t0 = gvis_now_ms();
    rc = gvis_cuda_download(ctx, c->out_l->data, g.d_outl, n * sizeof(int16_t));
    if (!rc && c->out_r)
        rc = gvis_cuda_download(ctx, c->out_r->data, g.d_outr, n * sizeof(int16_t));
    gvis_trace_span("sgm: download", t0, gvis_now_ms(), ctx->cuda_index);
    return rc;
}
#else
#define sgm_cuda NULL
#endif

int gvis_sgm(gvis_ctx *ctx, const gvis_image *left, const gvis_image *right, const gvis_sgm_params *p,
             gvis_disp *out_left, gvis_disp *out_right)
{
    if (left->width != right->width || left->height != right->height)
        return gvis_error(GVIS_E_FORMAT, "left is %dx%d but right is %dx%d", left->width, left->height,
                          right->width, right->height);
    if (left->type != right->type)
        return gvis_error(GVIS_E_FORMAT, "left is %s but right is %s", gvis_type_name(left->type),
                          gvis_type_name(right->type));
    int rc = gvis_sgm_check(p, left->width, left->height);
    if (rc)
        return rc;
    gvis_image gl = {0}, gr = {0};
    double t0 = gvis_now_ms();
    memset(out_left, 0, sizeof *out_left);
    if (out_right)
        memset(out_right, 0, sizeof *out_right);
    const gvis_image *vl = left, *vr = right; /* one channel: the inputs themselves, read only */
    if ((left->channels != 1 && (rc = gvis_sgm_gray(left, &gl))) ||
        (right->channels != 1 && (rc = gvis_sgm_gray(right, &gr))))
        goto done;
    if (left->channels != 1)
        vl = &gl;
    if (right->channels != 1)
        vr = &gr;
    if (vl->type != GVIS_U8 && vl->type != GVIS_U16) {
        rc = gvis_error(GVIS_E_FORMAT, "disparity takes 8- or 16-bit images, not %s", gvis_type_name(vl->type));
        goto done;
    }
    if ((rc = gvis_disp_alloc(out_left, left->width, left->height, p->min_disp)))
        goto done;
    if (out_right && (rc = gvis_disp_alloc(out_right, left->width, left->height, p->min_disp)))
        goto done;
    sgm_call c;
    memset(&c, 0, sizeof c);
    c.gl = vl;
    c.gr = vr;
    c.p = p;
    c.out_l = out_left;
    c.out_r = out_right;
    c.need_right = out_right != NULL || p->lr_check >= 0;
    if (p->cost == GVIS_COST_ADCENSUS) {
        uint64_t hl[256], hr[256];
        gvis_sgm_guide_hist(vl, hl);
        gvis_sgm_guide_hist(vr, hr);
        gvis_sgm_ad_remap_lut(hl, hr, c.remap);
    }
    gvis_trace_span("sgm: prepare", t0, gvis_now_ms(), 0);
    rc = gvis_dispatch(ctx, "disparity", sgm_cpu, sgm_cuda, &c);
done:
    gvis_image_free(&gl);
    gvis_image_free(&gr);
    if (rc) {
        gvis_disp_free(out_left);
        if (out_right)
            gvis_disp_free(out_right);
    }
    return rc;
}
