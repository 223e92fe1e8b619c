/* The quality stages on CUDA (cuda/stereo/quality_cuda.h) against the CPU rules
 * (lib/stereo/cross_aggregate.c, refine.c, sgm.h step 4), exactly, on random inputs of
 * awkward sizes (1x1, 1xN, Nx1, odd widths, 631x479, lines longer than the kernels'
 * tiles), a pitched guide (pitch != width), D from 1 to 512 and not a multiple of 32,
 * min-disp of every sign, a long-armed guide with costs over the whole u8 range (the
 * largest sums), outputs poisoned first; then the whole pipeline with --preset quality's
 * stages on both devices, maps byte-identical.  Naive references here: the arms' rule,
 * and each path direction over a volume (the per-direction u8 volumes).
 * Exits 77 (skipped) without a usable GPU. */
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
#include "quality_cuda.h"
#include "sgm_cuda.h"
#include "cuda_testlib.h"

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* flat patches with noise and rare spikes: arms of every length */
static void make_guide(uint8_t *g, int W, int H)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int patch = ((x / 9) * 7 + (y / 6) * 13) % 5;
            g[(size_t)y * W + x] =
                (uint8_t)clampi(40 * patch + (int)(t_rand() % 7) - 3 + (t_rand() % 50 == 0 ? 60 : 0), 0, 255);
        }
}

static size_t diff8(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += a[i] != b[i];
    return bad;
}

static size_t diff16(const int16_t *a, const int16_t *b, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += a[i] != b[i];
    return bad;
}

/* A guide of faint noise: every arm at or near its longest (34). */
static void make_flat_guide(uint8_t *g, int W, int H)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            g[(size_t)y * W + x] = (uint8_t)(100 + t_rand() % 2);
}

/* Arms (with a guide of pitch W + 13 on the device) and cross aggregation, 1 and 2 passes;
 * flat: the long-armed guide, with costs over the whole u8 range (the largest sums). */
static void check_cross_guide(int W, int H, int D, int flat)
{
    const size_t n = (size_t)W * H, cells = n * D, pitch = (size_t)W + 13;
    uint8_t *g = calloc(n, 1), *gp = calloc(pitch * H, 1), *arms = malloc(n * 4), *garms = malloc(n * 4);
    uint8_t *cost = malloc(cells), *cpu = malloc(cells), *gpu = malloc(cells);
    if (flat)
        make_flat_guide(g, W, H);
    else
        make_guide(g, W, H);
    for (int y = 0; y < H; y++)
        memcpy(gp + y * pitch, g + (size_t)y * W, (size_t)W);
    for (size_t i = 0; i < cells; i++)
        cost[i] = (uint8_t)(flat ? t_rand() % 256 : t_rand() % 36);
    gvis_cross_arms(g, W, H, arms);
    /* the rule itself at every pixel's right arm */
    size_t badref = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int len = 0;
            const int c = g[(size_t)y * W + x];
            for (int i = 1; i <= 34 && x + i < W; i++) {
                const int v = g[(size_t)y * W + x + i], pv = g[(size_t)y * W + x + i - 1];
                if (abs(v - c) >= 10 || abs(v - pv) >= 10 || (i > 17 && abs(v - c) >= 4))
                    break;
                len = i;
            }
            badref += arms[((size_t)y * W + x) * 4 + 1] != len;
        }
    CHECKF(badref == 0, "%dx%d: CPU right arms differ from the rule at %zu pixels", W, H, badref);
    if (flat && W > 80 && H > 80) { /* the guide did what it is for */
        size_t longest = 0;
        for (size_t i = 0; i < n * 4; i++)
            longest += arms[i] == 34;
        CHECKF(longest * 2 > n * 4, "%dx%d flat guide: only %zu of %zu arms are 34 long", W, H, longest, n * 4);
    }
    uint8_t *d_g = dev(0, pitch * H), *d_arms = dev(1, n * 4), *d_cost = dev(2, cells);
    uint32_t *d_sum = dev(3, cells * 2), *d_cnt = NULL; /* u16 scratch: the kernels' need */
    up(d_g, gp, pitch * H);
    CHECK(gvis_cu_cross_arms(d_g, pitch, W, H, d_arms, gvis_cu_job_stream(job)) == 0);
    down(garms, d_arms, n * 4);
    CHECKF(diff8(arms, garms, n * 4) == 0, "%dx%d: %zu arms differ between CPU and CUDA", W, H,
           diff8(arms, garms, n * 4));
    for (int passes = 1; passes <= 2; passes++) {
        memcpy(cpu, cost, cells);
        CHECK_OK(gvis_cross_aggregate(cpu, arms, W, H, D, passes));
        up(d_cost, cost, cells);
        CHECK(gvis_cu_cross_aggregate(d_cost, d_arms, W, H, D, passes, d_sum, d_cnt, gvis_cu_job_stream(job)) == 0);
        down(gpu, d_cost, cells);
        const size_t bad = diff8(cpu, gpu, cells);
        CHECKF(bad == 0, "cross aggregation %dx%d D %d flat %d, %d passes: %zu of %zu differ", W, H, D, flat, passes,
               bad, cells);
    }
    /* the output is written everywhere, not left from the input: poison, 1 pass */
    memcpy(cpu, cost, cells);
    CHECK_OK(gvis_cross_aggregate(cpu, arms, W, H, D, 3));
    up(d_cost, cost, cells);
    CHECK(gvis_cu_memset(job, d_sum, 0xa5, cells * 2) == 0);
    CHECK(gvis_cu_cross_aggregate(d_cost, d_arms, W, H, D, 3, d_sum, d_cnt, gvis_cu_job_stream(job)) == 0);
    down(gpu, d_cost, cells);
    CHECKF(diff8(cpu, gpu, cells) == 0, "cross aggregation %dx%d D %d flat %d, 3 passes: %zu differ", W, H, D, flat,
           diff8(cpu, gpu, cells));
    /* bad arguments are refused */
    CHECK(gvis_cu_cross_aggregate(d_cost, d_arms, W, H, 513, 1, d_sum, d_cnt, gvis_cu_job_stream(job)) != 0);
    CHECK(gvis_cu_cross_aggregate(d_cost, d_arms, 0, H, D, 1, d_sum, d_cnt, gvis_cu_job_stream(job)) != 0);
    free(g), free(gp), free(arms), free(garms), free(cost), free(cpu), free(gpu);
}

static void check_cross(int W, int H, int D)
{
    check_cross_guide(W, H, D, 0);
    check_cross_guide(W, H, D, 1);
}

/* The naive rule of one path direction over a given volume (sgm.h step 4), for the
 * per-direction volumes. */
static void ref_path_volume(const uint8_t *cost, const uint8_t *g, int W, int H, int D, int p1,
                            const uint8_t p2lut[256], int dir, uint8_t *lr)
{
    const int rx = gvis_sgm_dirs[dir][0], ry = gvis_sgm_dirs[dir][1];
    const int ys = ry >= 0 ? 0 : H - 1, ye = ry >= 0 ? H : -1, yst = ry >= 0 ? 1 : -1;
    const int xs = rx >= 0 ? 0 : W - 1, xe = rx >= 0 ? W : -1, xst = rx >= 0 ? 1 : -1;
    for (int y = ys; y != ye; y += yst)
        for (int x = xs; x != xe; x += xst) {
            const size_t pix = (size_t)y * W + x;
            const int px = x - rx, py = y - ry;
            const int has = px >= 0 && px < W && py >= 0 && py < H;
            const uint8_t *pv = has ? lr + ((size_t)py * W + px) * D : NULL;
            int m = 1 << 30;
            const int p2 = has ? p2lut[abs(g[pix] - g[(size_t)py * W + px])] : 0;
            if (has)
                for (int k = 0; k < D; k++)
                    m = pv[k] < m ? pv[k] : m;
            for (int k = 0; k < D; k++) {
                int v = cost[pix * D + k];
                if (has) {
                    int t = pv[k] - m;
                    if (k > 0 && pv[k - 1] - m + p1 < t)
                        t = pv[k - 1] - m + p1;
                    if (k + 1 < D && pv[k + 1] - m + p1 < t)
                        t = pv[k + 1] - m + p1;
                    v += p2 < t ? p2 : t;
                }
                lr[pix * D + k] = (uint8_t)v;
            }
        }
}

/* Per-direction u8 volumes (gvis_cu_sgm_path_volume_lr, all 8 in one launch and one
 * alone) against the naive rule; costs up to cmax with P2 = 255 - cmax (the bound). */
static void check_paths_lr(int W, int H, int D, int cmax)
{
    const size_t n = (size_t)W * H, cells = n * D;
    uint8_t *g = malloc(n), *cost = malloc(cells), *ref = malloc(cells), *gl = malloc(cells * 8);
    make_guide(g, W, H);
    for (size_t i = 0; i < cells; i++)
        cost[i] = (uint8_t)(t_rand() % (cmax + 1));
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    p.max_disp = D;
    p.p2 = 255 - cmax;
    uint8_t p2lut[256];
    gvis_sgm_p2_table(&p, p2lut);
    uint8_t *d_cost = dev(2, cells), *d_g = dev(0, n), *d_lr = dev(10, cells * 8);
    up(d_cost, cost, cells);
    up(d_g, g, n);
    CHECK(gvis_cu_memset(job, d_lr, 0xa5, cells * 8) == 0);
    void *st = gvis_cu_job_stream(job);
    CHECK(gvis_cu_sgm_path_volume_lr(d_cost, d_g, W, H, D, p.p1, p2lut, 0, 8, d_lr, st) == 0);
    down(gl, d_lr, cells * 8);
    for (int dir = 0; dir < 8; dir++) {
        ref_path_volume(cost, g, W, H, D, p.p1, p2lut, dir, ref);
        const size_t bad = diff8(ref, gl + cells * dir, cells);
        CHECKF(bad == 0, "per-direction volume %dx%d D %d cmax %d dir %d: %zu of %zu differ", W, H, D, cmax, dir, bad,
               cells);
    }
    /* one direction alone, from the middle of the range */
    CHECK(gvis_cu_sgm_path_volume_lr(d_cost, d_g, W, H, D, p.p1, p2lut, 5, 1, d_lr, st) == 0);
    down(gl, d_lr, cells);
    ref_path_volume(cost, g, W, H, D, p.p1, p2lut, 5, ref);
    CHECKF(diff8(ref, gl, cells) == 0, "direction 5 alone %dx%d D %d: %zu differ", W, H, D, diff8(ref, gl, cells));
    CHECK(gvis_cu_sgm_path_volume_lr(d_cost, d_g, W, H, D, p.p1, p2lut, 7, 2, d_lr, st) != 0);
    CHECK(gvis_cu_sgm_path_volume_lr(d_cost, d_g, W, H, 513, p.p1, p2lut, 0, 1, d_lr, st) != 0);
    free(g), free(cost), free(ref), free(gl);
}

/* Paths over a given volume: the GPU's sum volume against the CPU's S (sum + sum2). */
static void check_paths(int W, int H, int D, int paths)
{
    const size_t n = (size_t)W * H, cells = n * D;
    const int stride = GVIS_SGM_SUM_STRIDE(D);
    uint8_t *g = malloc(n), *cost = malloc(cells);
    uint16_t *s1 = malloc(cells * 2), *s2 = malloc(cells * 2), *gs = malloc(n * stride * 2);
    make_guide(g, W, H);
    for (size_t i = 0; i < cells; i++)
        cost[i] = (uint8_t)(t_rand() % 36);
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    p.max_disp = D;
    p.paths = paths;
    CHECK_OK(gvis_sgm_aggregate_volume(cost, g, W, H, &p, s1, s2));
    uint8_t p2lut[256];
    gvis_sgm_p2_table(&p, p2lut);
    uint8_t *d_cost = dev(2, cells), *d_g = dev(0, n);
    uint16_t *d_sum = dev(5, n * stride * 2);
    up(d_cost, cost, cells);
    up(d_g, g, n);
    CHECK(gvis_cu_memset(job, d_sum, 0xa5, n * stride * 2) == 0); /* every word must be written */
    CHECK(gvis_cu_sgm_path_volume(d_cost, d_g, W, H, D, p.p1, p2lut, paths, d_sum, stride,
                                  gvis_cu_job_stream(job)) == 0);
    down(gs, d_sum, n * stride * 2);
    size_t bad = 0;
    for (size_t px = 0; px < n; px++)
        for (int k = 0; k < D; k++)
            bad += gs[px * stride + 64 * (k / 64) + 2 * (k % 32) + (k / 32) % 2] !=
                   (uint16_t)(s1[px * D + k] + s2[px * D + k]);
    for (size_t px = 0; px < n; px++) /* the halves of k >= D hold 0 (the WTA's padding) */
        for (int k = D; k < stride; k++)
            bad += gs[px * stride + 64 * (k / 64) + 2 * (k % 32) + (k / 32) % 2] != 0;
    CHECKF(bad == 0, "paths over a volume %dx%d D %d, %d paths: %zu of %zu sums differ", W, H, D, paths, bad, cells);
    /* a wider stride than needed: zeroed first, then every direction adds */
    if (W * H < 5000) {
        const int wide = stride + 64;
        uint16_t *d_wide = dev(11, n * wide * 2), *gw = malloc(n * wide * 2);
        CHECK(gvis_cu_memset(job, d_wide, 0xa5, n * wide * 2) == 0);
        CHECK(gvis_cu_sgm_path_volume(d_cost, d_g, W, H, D, p.p1, p2lut, paths, d_wide, wide,
                                      gvis_cu_job_stream(job)) == 0);
        down(gw, d_wide, n * wide * 2);
        size_t badw = 0;
        for (size_t px = 0; px < n; px++)
            for (int k = 0; k < D; k++)
                badw += gw[px * wide + 64 * (k / 64) + 2 * (k % 32) + (k / 32) % 2] !=
                        (uint16_t)(s1[px * D + k] + s2[px * D + k]);
        CHECKF(badw == 0, "paths over a volume, stride %d: %zu differ", wide, badw);
        free(gw);
    }
    free(g), free(cost), free(s1), free(s2), free(gs);
}

/* The refinement stages one by one and chained, with and without a right map. */
static void check_refine(int W, int H, int M, int with_right)
{
    const int D = 32;
    const size_t n = (size_t)W * H;
    uint8_t *g = malloc(n), *arms = malloc(n * 4), *lab = malloc(n), *glab = malloc(n);
    int16_t *a = malloc(n * 2), *r = malloc(n * 2), *cpu = malloc(n * 2), *gpu = malloc(n * 2), *tmp = malloc(n * 2);
    make_guide(g, W, H);
    gvis_cross_arms(g, W, H, arms);
    for (size_t i = 0; i < n; i++) {
        const int k = (int)(g[i] / 40) * 5 % D;
        a[i] = t_rand() % 3 == 0 ? GVIS_SGM_INVALID(M) : (int16_t)(16 * (M + k) + (int)(t_rand() % 15) - 7);
        r[i] = t_rand() % 4 == 0 ? GVIS_SGM_INVALID(M)
                                 : (int16_t)(16 * (M + (int)(t_rand() % D)) + (int)(t_rand() % 15) - 7);
    }
    const int16_t *rr = with_right ? r : NULL;
    void *st = gvis_cu_job_stream(job);
    uint8_t *d_g = dev(0, n), *d_arms = dev(1, n * 4), *d_lab = dev(2, n);
    int16_t *d_a = dev(6, n * 2), *d_r = dev(7, n * 2), *d_t = dev(8, n * 2);
    int *d_counts = dev(9, sizeof(int) * GVIS_REFINE_ROUNDS_MAX);
    up(d_g, g, n);
    up(d_arms, arms, n * 4);
    up(d_a, a, n * 2);
    up(d_r, r, n * 2);
    const int16_t *d_rr = with_right ? d_r : NULL;
    /* classes */
    gvis_refine_classify(a, rr, W, H, M, D, lab);
    CHECK(gvis_cu_refine_classify(d_a, d_rr, W, H, M, D, d_lab, st) == 0);
    down(glab, d_lab, n);
    CHECKF(diff8(lab, glab, n) == 0, "classes %dx%d M %d right %d: %zu differ", W, H, M, with_right, diff8(lab, glab, n));
    /* voting rounds until no change */
    memcpy(cpu, a, n * 2);
    for (int round = 0; round < GVIS_REFINE_ROUNDS_MAX; round++) {
        const int changed = gvis_refine_vote(cpu, rr, lab, tmp, arms, W, H, M, D);
        memcpy(cpu, tmp, n * 2);
        if (!changed)
            break;
    }
    uint8_t *d_flags = dev(12, gvis_cu_refine_vote_scratch(W, H));
    CHECK(gvis_cu_refine_vote(d_a, d_t, d_rr, d_lab, d_arms, W, H, M, D, GVIS_REFINE_ROUNDS_MAX, d_counts, d_flags,
                              st) == 0);
    down(gpu, d_a, n * 2);
    CHECKF(diff16(cpu, gpu, n) == 0, "voting %dx%d M %d right %d: %zu differ", W, H, M, with_right, diff16(cpu, gpu, n));
    /* interpolation, from the CPU's voted map on both */
    gvis_refine_interp(cpu, rr, lab, g, tmp, W, H, M);
    up(d_a, cpu, n * 2);
    CHECK(gvis_cu_refine_interp(d_a, d_rr, d_lab, d_g, d_t, W, H, M, st) == 0);
    down(gpu, d_t, n * 2);
    CHECKF(diff16(tmp, gpu, n) == 0, "interpolation %dx%d M %d right %d: %zu differ", W, H, M, with_right,
           diff16(tmp, gpu, n));
    /* bad arguments are refused, not run */
    CHECK(gvis_cu_refine_interp(d_a, d_rr, d_lab, d_g, d_a, W, H, M, st) != 0);
    CHECK(gvis_cu_refine_classify(d_a, d_rr, 0, H, M, D, d_lab, st) != 0);
    free(g), free(arms), free(lab), free(glab), free(a), free(r), free(cpu), free(gpu), free(tmp);
}

/* The whole pipeline with the quality stages on both devices: maps byte-identical. */
static void check_pipeline(gvis_ctx *cpu_ctx, gvis_ctx *gpu_ctx, int W, int H, int D, int M, int cost, int aggregate,
                           int refine, int want_right)
{
    gvis_image L, R;
    CHECK_OK(gvis_image_alloc(&L, W, H, 1, GVIS_U8, 0));
    CHECK_OK(gvis_image_alloc(&R, W, H, 1, GVIS_U8, 0));
    uint8_t *g = malloc((size_t)W * H);
    make_guide(g, W, H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            ((uint8_t *)GVIS_ROW(&L, y))[x] = (uint8_t)clampi(g[(size_t)y * W + x] + (int)(t_rand() % 31) - 15, 0, 255);
        }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int s = x + 5 + (y / 16) % 3 < W ? x + 5 + (y / 16) % 3 : W - 1;
            ((uint8_t *)GVIS_ROW(&R, y))[x] = (uint8_t)clampi(((uint8_t *)GVIS_ROW(&L, y))[s] + (int)(t_rand() % 5) - 2, 0, 255);
        }
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    p.max_disp = D;
    p.min_disp = M;
    p.cost = cost;
    p.aggregate = aggregate;
    p.refine = refine;
    gvis_disp a, b, ar, br;
    CHECK_OK(gvis_sgm(cpu_ctx, &L, &R, &p, &a, want_right ? &ar : NULL));
    CHECK_OK(gvis_sgm(gpu_ctx, &L, &R, &p, &b, want_right ? &br : NULL));
    const size_t n = (size_t)W * H;
    CHECKF(diff16(a.data, b.data, n) == 0, "pipeline %dx%d D %d M %d cost %d aggregate %d refine %d: %zu of %zu differ",
           W, H, D, M, cost, aggregate, refine, diff16(a.data, b.data, n), n);
    if (want_right) {
        CHECKF(diff16(ar.data, br.data, n) == 0, "pipeline %dx%d right map: %zu differ", W, H,
               diff16(ar.data, br.data, n));
        gvis_disp_free(&ar);
        gvis_disp_free(&br);
    }
    gvis_disp_free(&a);
    gvis_disp_free(&b);
    gvis_image_free(&L);
    gvis_image_free(&R);
    free(g);
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    gvis_ctx *cpu = t_cpu_ctx();
    job = gpu->job;
    t_seed(1913);
    const int sizes[][2] = {{1, 1}, {1, 9}, {23, 1}, {37, 11}, {101, 29}, {631, 479}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int W = sizes[s][0], H = sizes[s][1];
        check_cross(W, H, W * H > 100000 ? 64 : 48);
        check_paths(W, H, W * H > 100000 ? 64 : 48, 8);
        check_paths(W, H, 16, 4);
        for (int M = -8; M <= 5; M += 13)
            for (int rr = 0; rr < 2; rr++)
                check_refine(W, H, M, rr);
    }
    check_paths(97, 31, 128, 8);
    check_paths(61, 17, 512, 4);
    check_paths(45, 70, 16, 8);
    check_paths(300, 7, 208, 8);
    check_paths(5, 300, 96, 8);
    /* per-direction volumes: D of every kernel width, full and partial */
    const int lrd[][4] = {{1, 1, 1, 35},   {23, 1, 64, 35},  {1, 19, 48, 35},  {37, 11, 128, 200},
                          {101, 29, 33, 100}, {61, 17, 512, 35}, {130, 9, 256, 35}, {9, 140, 200, 35},
                          {631, 47, 96, 127}};
    for (size_t i = 0; i < sizeof lrd / sizeof lrd[0]; i++)
        check_paths_lr(lrd[i][0], lrd[i][1], lrd[i][2], lrd[i][3]);
    /* cross aggregation: D = 1, 33, 512, tiles of the longest lines (widths, heights > 256) */
    check_cross(1, 1, 1);
    check_cross(300, 5, 33);
    check_cross(7, 600, 17);
    check_cross(45, 38, 512);
    check_cross(1100, 130, 32);
    const int psizes[][2] = {{64, 48}, {131, 57}, {631, 479}};
    for (size_t s = 0; s < sizeof psizes / sizeof psizes[0]; s++) {
        const int W = psizes[s][0], H = psizes[s][1];
        check_pipeline(cpu, gpu, W, H, 32, 0, GVIS_COST_ADCENSUS, GVIS_AGGREGATE_CROSS, 1, 0);
        check_pipeline(cpu, gpu, W, H, 16, -3, GVIS_COST_CENSUS, GVIS_AGGREGATE_CROSS, 0, 1);
        check_pipeline(cpu, gpu, W, H, 48, 2, GVIS_COST_ADCENSUS, GVIS_AGGREGATE_NONE, 1, 1);
    }
    gvis_ctx_free(cpu);
    gvis_ctx_free(gpu);
    return t_done("test_cuda_quality");
}
#endif
