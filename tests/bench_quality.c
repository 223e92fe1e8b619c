/* Times each CUDA stage of `gvis disparity --preset quality` (and the whole pipeline of
 * the default and quality presets) on one pair, for docs/notes-sgm.md:
 *   bench_quality [-r RUNS] [-d D] [LEFT RIGHT]
 * Without files: a synthetic 1242x375 street-like pair (a ground plane whose disparity
 * grows downwards, boxes in front at 20..100, textured with smoothed noise and flat
 * patches: long and short arms, occlusions).  Each stage: 3 warm-up runs, then RUNS
 * (default 50) timed with CUDA events on the job's stream, median and min printed; the
 * inputs a stage changes in place are restored before each run, outside the timing.
 * The whole pipeline: gvis_sgm on a context with --repeat RUNS (the CLI's --timing
 * compute figure), on the sum volume and on the per-path volumes.  Exit 77 without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sgm.h"
#include "testlib.h"

#ifndef GVIS_HAVE_CUDA
int main(void)
{
    printf("skipped: built without CUDA\n");
    return 77;
}
#else
#include "gvis_cuda.h"
#include "quality_cuda.h"
#include "sgm_cuda.h"

static gvis_cu_job *job;
static int runs = 50;

static void *dev(int slot, size_t bytes)
{
    void *p = NULL;
    if (gvis_cu_buffer(job, slot, bytes ? bytes : 1, &p)) {
        fprintf(stderr, "device buffer of %zu bytes failed\n", bytes);
        exit(1);
    }
    return p;
}

static void must(int err, const char *what)
{
    if (err) {
        fprintf(stderr, "%s failed: CUDA error %d\n", what, err);
        exit(1);
    }
}

static int cmpd(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    int W, H, D, M;
    gvis_sgm_params p;
    uint8_t luts[128], p2lut[256];
    void *s;
    uint8_t *gl, *gr, *guide, *guide_r, *cost, *arms, *lr, *label;
    uint8_t *h_cost;  /* the cost volume before aggregation (host) */
    int16_t *h_left; /* the left map after the LR check (host) */
    uint64_t *cl, *cr;
    uint16_t *h, *sum;
    int16_t *t[6]; /* left, right, scratch x2, saved left, saved right */
    int *counts;
    uint8_t *flags;
} bench;

typedef int (*stage_fn)(bench *b);

/* median of runs timed launches of fn, prep (untimed) before each */
static double time_stage(const char *name, bench *b, stage_fn fn, stage_fn prep, double *total)
{
    double *t = malloc(sizeof(double) * (size_t)runs);
    for (int i = 0; i < 3; i++) {
        if (prep)
            must(prep(b), name);
        must(fn(b), name);
    }
    must(gvis_cu_sync(job), name);
    for (int i = 0; i < runs; i++) {
        float ms = 0;
        if (prep)
            must(prep(b), name);
        must(gvis_cu_timer_start(job), name);
        must(fn(b), name);
        must(gvis_cu_timer_stop(job, &ms), name);
        t[i] = ms;
    }
    qsort(t, (size_t)runs, sizeof *t, cmpd);
    const double med = t[runs / 2];
    printf("  %-34s %8.3f ms  (min %.3f)\n", name, med, t[0]);
    if (total)
        *total += med;
    free(t);
    return med;
}

static int st_census(bench *b)
{
    int e = gvis_cu_sgm_census(b->gl, (size_t)b->W, 1, b->W, b->H, b->p.census, b->cl, b->guide, b->s);
    return e ? e : gvis_cu_sgm_census(b->gr, (size_t)b->W, 1, b->W, b->H, b->p.census, b->cr, b->guide_r, b->s);
}
static int st_cost(bench *b)
{
    return gvis_cu_sgm_cost_adcensus(b->cl, b->cr, b->guide, b->guide_r, b->W, b->H, b->D, b->M, b->luts, b->cost,
                                     b->s);
}
static int st_arms(bench *b) { return gvis_cu_cross_arms(b->guide, (size_t)b->W, b->W, b->H, b->arms, b->s); }
static int restore_cost(bench *b)
{
    const size_t bytes = (size_t)b->W * b->H * b->D;
    return gvis_cu_upload2d(job, b->cost, bytes, b->h_cost, bytes, bytes, 1);
}
static int st_cross(bench *b)
{
    return gvis_cu_cross_aggregate(b->cost, b->arms, b->W, b->H, b->D, 2, (uint32_t *)(void *)b->h, NULL, b->s);
}
static int st_paths_sum(bench *b)
{
    return gvis_cu_sgm_path_volume(b->cost, b->guide, b->W, b->H, b->D, b->p.p1, b->p2lut, b->p.paths, b->sum,
                                   GVIS_SGM_SUM_STRIDE(b->D), b->s);
}
static int st_wta_sum(bench *b)
{
    return gvis_cu_sgm_wta_sum(b->sum, GVIS_SGM_SUM_STRIDE(b->D), b->W, b->H, b->D, b->M,
                               gvis_sgm_uniqueness_fixed(b->p.uniqueness), b->p.subpixel, b->t[0], b->t[1], b->s);
}
static int st_paths_lr(bench *b)
{
    return gvis_cu_sgm_path_volume_lr(b->cost, b->guide, b->W, b->H, b->D, b->p.p1, b->p2lut, 0, b->p.paths, b->lr,
                                      b->s);
}
static int st_wta_lr(bench *b)
{
    return gvis_cu_sgm_wta(b->lr, b->p.paths, b->W, b->H, b->D, b->M, gvis_sgm_uniqueness_fixed(b->p.uniqueness),
                           b->p.subpixel, b->t[0], b->t[1], b->s);
}
static int st_median(bench *b)
{
    int e = gvis_cu_sgm_median(b->t[0], b->t[2], b->W, b->H, b->s);
    return e ? e : gvis_cu_sgm_median(b->t[1], b->t[3], b->W, b->H, b->s);
}
static int st_lrcheck(bench *b)
{
    /* medians in t2, t3 -> checked left in t4 (kept for the refinement), right in t5 */
    return gvis_cu_sgm_lrcheck(b->t[2], b->t[3], b->t[4], b->t[5], b->W, b->H, b->M, b->p.lr_check, b->s);
}
static int st_classify(bench *b)
{
    return gvis_cu_refine_classify(b->t[4], b->t[3], b->W, b->H, b->M, b->D, b->label, b->s);
}
static int restore_left(bench *b)
{
    const size_t bytes = (size_t)b->W * b->H * sizeof(int16_t);
    return gvis_cu_upload2d(job, b->t[0], bytes, b->h_left, bytes, bytes, 1);
}
static int st_vote(bench *b)
{
    return gvis_cu_refine_vote(b->t[0], b->t[1], b->t[3], b->label, b->arms, b->W, b->H, b->M, b->D,
                               GVIS_REFINE_ROUNDS_MAX, b->counts, b->flags, b->s);
}
static int st_interp(bench *b)
{
    return gvis_cu_refine_interp(b->t[0], b->t[3], b->label, b->guide, b->t[1], b->W, b->H, b->M, b->s);
}
static int st_fill_median(bench *b)
{
    /* in place on the interpolated map: the second run fills nothing new, as the pipeline's second fill */
    int e = gvis_cu_sgm_fill(b->t[1], b->W, b->H, GVIS_SGM_INVALID(b->M), b->s);
    return e ? e : gvis_cu_sgm_median(b->t[1], b->t[2], b->W, b->H, b->s);
}

/* value noise, smoothed: texture of a surface at (u, v) with its own seed */
static double tex(double u, double v, unsigned seed)
{
    const int iu = (int)u, iv = (int)v;
    const double fu = u - iu, fv = v - iv;
    double c[4];
    for (int i = 0; i < 4; i++) {
        unsigned h = (unsigned)(iu + (i & 1)) * 73856093u ^ (unsigned)(iv + (i >> 1)) * 19349663u ^ seed * 83492791u;
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        h ^= h >> 15;
        c[i] = (h & 0xffff) / 65535.0;
    }
    return (c[0] * (1 - fu) + c[1] * fu) * (1 - fv) + (c[2] * (1 - fu) + c[3] * fu) * fv;
}

static uint8_t shade(double x, int y, unsigned seed)
{
    /* coarse and fine noise; every third surface nearly flat (long arms) */
    const double a = seed % 3 == 0 ? 6 : 60;
    double v = 60 + 40 * (seed % 4) + a * tex(x / 9.0, y / 9.0, seed) + a / 3 * tex(x / 2.0, y / 2.0, seed + 7);
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static void make_pair(gvis_image *L, gvis_image *R, int W, int H, int D)
{
    int boxes[12][5];
    for (int i = 0; i < 12; i++) {
        boxes[i][0] = (int)(t_rand() % (unsigned)W);
        boxes[i][1] = (int)(t_rand() % (unsigned)H);
        boxes[i][2] = boxes[i][0] + 30 + (int)(t_rand() % (unsigned)(W / 5 + 1));
        boxes[i][3] = boxes[i][1] + 20 + (int)(t_rand() % (unsigned)(H / 3 + 1));
        boxes[i][4] = 20 + (int)(t_rand() % (unsigned)(D * 3 / 4 > 21 ? D * 3 / 4 - 20 : 1)); /* disparity */
    }
    for (int view = 0; view < 2; view++) {
        gvis_image *img = view ? R : L;
        for (int y = 0; y < H; y++) {
            uint8_t *row = GVIS_ROW(img, y);
            const int dbg = 4 + (D / 2) * y / H; /* the ground plane */
            for (int x = 0; x < W; x++)
                row[x] = shade(x + (view ? dbg : 0), y, 1);
            for (int d = 0; d < D; d++) /* boxes far to near: the nearer painted last */
                for (int i = 0; i < 12; i++) {
                    if (boxes[i][4] != d || y < boxes[i][1] || y >= boxes[i][3])
                        continue;
                    const int sh = view ? d : 0;
                    for (int x = boxes[i][0] - sh; x < boxes[i][2] - sh; x++)
                        if (x >= 0 && x < W)
                            row[x] = shade(x + sh, y, 11 + (unsigned)i);
                }
        }
    }
}

static double pipeline_ms(const gvis_image *L, const gvis_image *R, const gvis_sgm_params *p, const char *per_path)
{
    setenv("GVIS_SGM_PER_PATH", per_path, 1);
    gvis_ctx *ctx = NULL;
    if (gvis_ctx_create(&ctx, "cuda", runs, NULL, NULL, NULL)) {
        fprintf(stderr, "cuda context: %s\n", gvis_errmsg());
        exit(1);
    }
    gvis_disp a;
    if (gvis_sgm(ctx, L, R, p, &a, NULL)) {
        fprintf(stderr, "gvis_sgm: %s\n", gvis_errmsg());
        exit(1);
    }
    const double ms = gvis_ctx_timing(ctx)->compute_ms;
    gvis_disp_free(&a);
    gvis_ctx_free(ctx);
    unsetenv("GVIS_SGM_PER_PATH");
    return ms;
}

int main(int argc, char **argv)
{
    int D = 128, ai = 1;
    for (; ai < argc && argv[ai][0] == '-'; ai += 2) {
        if (ai + 1 >= argc)
            break;
        if (!strcmp(argv[ai], "-r"))
            runs = atoi(argv[ai + 1]);
        else if (!strcmp(argv[ai], "-d"))
            D = atoi(argv[ai + 1]);
    }
    if (runs < 1 || D < 16 || D > 512 || D % 16 || (argc - ai != 0 && argc - ai != 2)) {
        fprintf(stderr, "usage: bench_quality [-r RUNS] [-d D] [LEFT RIGHT]\n");
        return 2;
    }
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    job = gpu->job;
    gvis_image L, R;
    if (argc - ai == 2) {
        gvis_image l0, r0;
        if (gvis_load(gpu, argv[ai], &l0) || gvis_load(gpu, argv[ai + 1], &r0)) {
            fprintf(stderr, "%s\n", gvis_errmsg());
            return 1;
        }
        if (gvis_sgm_gray(&l0, &L) || gvis_sgm_gray(&r0, &R) || L.type != GVIS_U8) {
            fprintf(stderr, "the pair must be 8-bit and of one size\n");
            return 1;
        }
        gvis_image_free(&l0);
        gvis_image_free(&r0);
    } else {
        t_seed(1919);
        if (gvis_image_alloc(&L, 1242, 375, 1, GVIS_U8, 0) || gvis_image_alloc(&R, 1242, 375, 1, GVIS_U8, 0))
            return 1;
        make_pair(&L, &R, 1242, 375, D);
    }
    if (L.width != R.width || L.height != R.height) {
        fprintf(stderr, "the views differ in size\n");
        return 1;
    }
    bench b;
    memset(&b, 0, sizeof b);
    b.W = L.width;
    b.H = L.height;
    b.D = D;
    gvis_sgm_defaults(&b.p);
    b.p.max_disp = D;
    b.p.aggregate = GVIS_AGGREGATE_CROSS;
    b.p.refine = 1;
    b.M = b.p.min_disp;
    gvis_sgm_cost_luts(b.p.census, b.luts, b.luts + 64);
    gvis_sgm_p2_table(&b.p, b.p2lut);
    b.s = gvis_cu_job_stream(job);
    const size_t n = (size_t)b.W * b.H, cells = n * D;
    b.gl = dev(0, n);
    b.gr = dev(1, n);
    b.cl = dev(2, n * 8);
    b.cr = dev(3, n * 8);
    b.guide = dev(4, n);
    b.guide_r = dev(5, n);
    b.cost = dev(6, cells);
    b.h = dev(8, cells * 2);
    b.arms = dev(9, n * 4);
    b.sum = dev(10, n * GVIS_SGM_SUM_STRIDE(D) * 2);
    b.lr = dev(11, cells * (size_t)b.p.paths);
    int16_t *maps = dev(12, n * 2 * 6 + n + 64 * sizeof(int) + 256);
    for (int i = 0; i < 6; i++)
        b.t[i] = maps + n * i;
    b.label = (uint8_t *)(maps + 6 * n);
    b.counts = (int *)(void *)((uintptr_t)(b.label + n + 255) / 256 * 256);
    b.flags = dev(13, gvis_cu_refine_vote_scratch(b.W, b.H));
    must(gvis_cu_upload2d(job, b.gl, (size_t)b.W, L.data, L.stride, (size_t)b.W, (size_t)b.H), "upload");
    must(gvis_cu_upload2d(job, b.gr, (size_t)b.W, R.data, R.stride, (size_t)b.W, (size_t)b.H), "upload");
    must(gvis_cu_sync(job), "upload");
    printf("bench_quality: %dx%d D %d, %d runs, %s\n", b.W, b.H, D, runs, gvis_ctx_device_name(gpu));
    double total = 0, sum_route = 0, lr_route = 0;
    time_stage("census L+R", &b, st_census, NULL, &total);
    time_stage("cost volume (ad-census)", &b, st_cost, NULL, &total);
    b.h_cost = malloc(cells);
    b.h_left = malloc(n * sizeof(int16_t));
    if (!b.h_cost || !b.h_left)
        return 1;
    must(gvis_cu_download2d(job, b.h_cost, cells, b.cost, cells, cells, 1), "download");
    must(gvis_cu_sync(job), "download");
    time_stage("cross arms", &b, st_arms, NULL, &total);
    time_stage("cross aggregation (2 passes)", &b, st_cross, restore_cost, &total);
    sum_route += time_stage("paths, sum volume (8 dirs)", &b, st_paths_sum, NULL, NULL);
    sum_route += time_stage("WTA over the sum volume", &b, st_wta_sum, NULL, NULL);
    lr_route += time_stage("paths, per-path volumes (8 dirs)", &b, st_paths_lr, NULL, NULL);
    lr_route += time_stage("WTA over the per-path volumes", &b, st_wta_lr, NULL, NULL);
    time_stage("median L+R", &b, st_median, NULL, &total);
    time_stage("LR check", &b, st_lrcheck, NULL, &total);
    must(gvis_cu_download2d(job, b.h_left, n * 2, b.t[4], n * 2, n * 2, 1), "download");
    must(gvis_cu_sync(job), "download");
    time_stage("refine: classes", &b, st_classify, NULL, &total);
    time_stage("refine: voting rounds", &b, st_vote, restore_left, &total);
    time_stage("refine: interpolation", &b, st_interp, NULL, &total);
    time_stage("refine: fill + median", &b, st_fill_median, NULL, &total);
    int counts[GVIS_REFINE_ROUNDS_MAX];
    must(gvis_cu_download2d(job, counts, sizeof counts, b.counts, sizeof counts, sizeof counts, 1), "download");
    must(gvis_cu_sync(job), "download");
    printf("  voting rounds' changes:");
    for (int i = 0; i < GVIS_REFINE_ROUNDS_MAX && (i == 0 || counts[i - 1]); i++)
        printf(" %d", counts[i]);
    printf("\n  stages: %.3f ms + paths/WTA %.3f (sum volume) or %.3f (per path)\n", total, sum_route, lr_route);
    gvis_sgm_params q = b.p, d;
    gvis_sgm_defaults(&d);
    d.max_disp = D;
    printf("  whole pipeline (gvis_sgm, median of %d):\n", runs);
    printf("    default preset  sum volume %.3f ms, per path %.3f ms\n", pipeline_ms(&L, &R, &d, "0"),
           pipeline_ms(&L, &R, &d, "1"));
    printf("    quality preset  sum volume %.3f ms, per path %.3f ms\n", pipeline_ms(&L, &R, &q, "0"),
           pipeline_ms(&L, &R, &q, "1"));
    free(b.h_cost);
    free(b.h_left);
    gvis_image_free(&L);
    gvis_image_free(&R);
    gvis_ctx_free(gpu);
    return 0;
}
#endif
