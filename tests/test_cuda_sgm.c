/* SGM on CUDA against the CPU, stage by stage and whole: census (u8, u16, both
 * kinds), every path direction, winner takes all (left and right, uniqueness,
 * subpixel), median, left-right check and fill must agree exactly on random
 * images of 631x479 and 311x239 for D in 64, 128, 256, 512 and min-disp 0, -16,
 * 16, and on tiny and pitched images.  Exits 77 (skipped) without a usable GPU. */
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
#include "sgm_cuda.h"
#include "cuda_testlib.h"
#include "sgm_cuda_testlib.h"

static void *stream;

/* Census and guide of an image uploaded with a pitch other than its width. */
/* The path kernels' lanes a line of the vertical and diagonal directions
 * (GVIS_SGM_LANES, read at each launch): i even the narrow layout (8 lanes for D <= 64, 16
 * for D <= 128, none above), i odd 32, a warp a line.  Unset, the rule picks 32 for the
 * small images here (fewer than 16 warps a multiprocessor in the narrow layout). */
static void set_lanes(int i)
{
    setenv("GVIS_SGM_LANES", i % 2 ? "32" : "8", 1);
}

static void check_census(const gvis_image *g, int census, uint64_t *h_c, uint8_t *h_guide, uint64_t *d_c,
                         uint8_t *d_guide)
{
    const size_t n = (size_t)g->width * g->height;
    gvis_sgm_census(g->data, g->stride, (int)g->type, g->width, g->height, census, h_c);
    size_t pitch = ((size_t)g->width * g->type + 255) / 256 * 256 + 256;
    void *d_img = dev(0, pitch * g->height);
    CHECK(gvis_cu_upload2d(job, d_img, pitch, g->data, g->stride, (size_t)g->width * g->type, (size_t)g->height) == 0);
    CHECK(gvis_cu_sgm_census(d_img, pitch, (int)g->type, g->width, g->height, census, d_c, d_guide, stream) == 0);
    uint64_t *c = malloc(n * 8);
    down(c, d_c, n * 8);
    size_t bad = count_diff(c, h_c, n, 8);
    CHECKF(bad == 0, "census %s %dx%d u%d: %zu codes differ", census ? "sym" : "9x7", g->width, g->height,
           8 * (int)g->type, bad);
    free(c);
    if (h_guide) {
        gvis_sgm_guide(g, h_guide);
        uint8_t *gd = malloc(n);
        down(gd, d_guide, n);
        CHECKF(count_diff(gd, h_guide, n, 1) == 0, "guide %dx%d differs", g->width, g->height);
        free(gd);
    }
}

/* Both views in one launch (gvis_cu_sgm_census_pair), pitches other than the width and
 * different from each other: the left codes and guide as check_census's, the right guide
 * through a random table and, with pack (symmetric census), in bits 32-39 of the codes. */
static void check_census_pair(const gvis_image *l, const gvis_image *r, int census, int pack)
{
    const int W = l->width, H = l->height, b = (int)l->type;
    const size_t n = (size_t)W * H, lp = ((size_t)W * b + 255) / 256 * 256 + 256, rp = lp + 512;
    uint64_t *hl = malloc(n * 8), *hr = malloc(n * 8), *cl = malloc(n * 8), *cr = malloc(n * 8);
    uint8_t *gl = malloc(n), *gr = malloc(n), *dgl = malloc(n), *dgr = malloc(n), lut[256];
    for (int i = 0; i < 256; i++)
        lut[i] = (uint8_t)t_rand();
    gvis_sgm_census(l->data, l->stride, b, W, H, census, hl);
    gvis_sgm_census(r->data, r->stride, b, W, H, census, hr);
    gvis_sgm_guide(l, gl);
    gvis_sgm_guide(r, gr);
    void *d_l = dev(0, lp * H), *d_r = dev(4, rp * H);
    uint64_t *d_cl = dev(1, n * 8), *d_cr = dev(2, n * 8);
    uint8_t *d_gl = dev(3, n), *d_gr = dev(5, n);
    CHECK(gvis_cu_upload2d(job, d_l, lp, l->data, l->stride, (size_t)W * b, (size_t)H) == 0);
    CHECK(gvis_cu_upload2d(job, d_r, rp, r->data, r->stride, (size_t)W * b, (size_t)H) == 0);
    CHECK(gvis_cu_sgm_census_pair(d_l, lp, d_r, rp, b, W, H, census, d_cl, d_gl, d_cr, d_gr, lut, pack, stream) == 0);
    down(cl, d_cl, n * 8);
    down(cr, d_cr, n * 8);
    down(dgl, d_gl, n);
    down(dgr, d_gr, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += cl[i] != hl[i] || dgl[i] != gl[i] || dgr[i] != lut[gr[i]] ||
               cr[i] != (hr[i] | (pack ? (uint64_t)lut[gr[i]] << 32 : 0));
    CHECKF(bad == 0, "census pair %s %dx%d u%d pack %d: %zu pixels differ", census ? "sym" : "9x7", W, H, 8 * b, pack,
           bad);
    if (census == 0)
        CHECK(gvis_cu_sgm_census_pair(d_l, lp, d_r, rp, b, W, H, census, d_cl, d_gl, d_cr, d_gr, lut, 1, stream) != 0);
    free(hl), free(hr), free(cl), free(cr), free(gl), free(gr), free(dgl), free(dgr);
}

static uint16_t *d_sumvol; /* the sum volume of the last check_sum_volume */

/* The paths added into one u16 volume (gvis_cu_sgm_path_sum): all directions in one
 * launch, split over two launches (add = 1), and one direction alone against the CPU's
 * naive path; leaves S of all paths in d_sumvol. */
static void check_sum_volume(int W, int H, const gvis_sgm_params *p, const uint64_t *cl, const uint64_t *cr,
                             const uint8_t *guide, const uint8_t *guide_r, const uint64_t *d_cl, const uint64_t *d_cr,
                             const uint8_t *d_guide, const uint8_t *d_guide_r, const uint8_t *tab,
                             const uint16_t *cpu_sum, const char *what)
{
    const int D = p->max_disp, M = p->min_disp, stride = GVIS_SGM_SUM_STRIDE(D);
    const size_t n = (size_t)W * H, bytes = n * stride * 2;
    uint16_t *vol = malloc(bytes);
    d_sumvol = dev(11, bytes);
    /* garbage first: add = 0 must clear every word, padding included */
    CHECK(gvis_cu_memset(job, d_sumvol, 0xa7, bytes) == 0);
#define PATH_SUM(dir, nd, add)                                                                                         \
    gvis_cu_sgm_path_sum(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, p->p1, p->p2, p->p2_adapt, dir, \
                         nd, add, d_sumvol, stride, stream)
    /* one direction alone (the last: a diagonal with 8 paths) against the naive path */
    const int solo = p->paths - 1;
    CHECK(PATH_SUM(solo, 1, 0) == 0);
    down(vol, d_sumvol, bytes);
    if (n * D <= 20u * 1000 * 1000) {
        uint8_t *ref = malloc(n * D);
        gvis_sgm_path_ref(cl, cr, guide, guide, guide_r, W, H, p, solo, ref);
        size_t bad = sum_diff(vol, stride, n, D, NULL, ref);
        CHECKF(bad == 0, "%s: sum volume of direction %d alone: %zu values differ", what, solo, bad);
        free(ref);
    }
    /* split over two launches, a line a warp */
    set_lanes(1);
    CHECK(PATH_SUM(0, p->paths / 2, 0) == 0);
    CHECK(PATH_SUM(p->paths / 2, p->paths - p->paths / 2, 1) == 0);
    unsetenv("GVIS_SGM_LANES");
    down(vol, d_sumvol, bytes);
    size_t bad = sum_diff(vol, stride, n, D, cpu_sum, NULL);
    CHECKF(bad == 0, "%s: sum volume from two launches: %zu of %zu values differ", what, bad, n * stride);
    /* all in one launch, as the pipeline runs them */
    CHECK(gvis_cu_memset(job, d_sumvol, 0xa7, bytes) == 0);
    CHECK(PATH_SUM(0, p->paths, 0) == 0);
#undef PATH_SUM
    down(vol, d_sumvol, bytes);
    bad = sum_diff(vol, stride, n, D, cpu_sum, NULL);
    CHECKF(bad == 0, "%s: sum volume: %zu of %zu values differ", what, bad, n * stride);
    /* in bands of rows (gvis_cu_sgm_path_sum_band, the pipeline's way for the sum volume):
     * one row a band, heights that divide H or not, the whole height and more; garbage in
     * the volume and the line states first */
    const size_t sbytes = gvis_cu_sgm_band_state_bytes(W, H, stride);
    uint32_t *d_state = dev(12, sbytes);
    const int bands[] = {1, 2, 7, H / 2 + 1, H, H + 5, 24};
    for (size_t i = 0; i < sizeof bands / sizeof bands[0]; i++) {
        if (bytes > (64u << 20) && (i == 0 || i == 2 || i == 5))
            continue; /* the big volumes: fewer heights (each check reads the whole volume) */
        CHECK(gvis_cu_memset(job, d_sumvol, 0xa7, bytes) == 0 && gvis_cu_memset(job, d_state, 0x5c, sbytes) == 0);
        set_lanes((int)i);
        CHECK(gvis_cu_sgm_path_sum_band(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, p->p1, p->p2,
                                        p->p2_adapt, p->paths, bands[i], 2, d_sumvol, stride, d_state, stream) == 0);
        unsetenv("GVIS_SGM_LANES");
        down(vol, d_sumvol, bytes);
        bad = sum_diff(vol, stride, n, D, cpu_sum, NULL);
        CHECKF(bad == 0, "%s: sum volume in bands of %d rows: %zu of %zu values differ", what, bands[i], bad,
               n * stride);
    }
    CHECK(gvis_cu_sgm_path_sum_band(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, p->p1, p->p2,
                                    p->p2_adapt, p->paths, 0, 2, d_sumvol, stride, d_state, stream) != 0);
    CHECK(gvis_cu_sgm_path_sum_band(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, p->p1, p->p2,
                                    p->p2_adapt, 6, 4, 2, d_sumvol, stride, d_state, stream) != 0);
    /* bad arguments are refused */
    CHECK(gvis_cu_sgm_path_sum(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, p->p1, p->p2, p->p2_adapt, 0,
                               1, 1, d_sumvol, stride - 32, stream) != 0);
    CHECK(gvis_cu_sgm_wta_sum(d_sumvol, D % 64 ? D : stride + 16, W, H, D, M, 256, 1, NULL, NULL, stream) != 0);
    free(vol);
}

/* All stages on one W x H pair with parameters p; per_dir: compare every direction's
 * volume with the naive reference (slow on big volumes). */
/* The costs once in the lanes' pair layout (gvis_cu_sgm_cost_pairs) against the rule of
 * step 3, whole and for a range of rows; the per-path volumes from them
 * (gvis_cu_sgm_path_pairs, the pipeline's per-path way) against d_lr, the volumes of the
 * census-code kernel (already checked against the CPU), at both lane layouts. */
static void check_pairs(int W, int H, const gvis_sgm_params *p, const uint64_t *cl, const uint64_t *cr,
                        const uint8_t *guide, const uint8_t *guide_r, const uint64_t *d_cl, const uint64_t *d_cr,
                        const uint8_t *d_guide, const uint8_t *d_guide_r, const uint8_t *tab, const uint8_t *d_lr,
                        const char *what)
{
    const int D = p->max_disp, M = p->min_disp, cw = GVIS_SGM_SUM_STRIDE(D) / 2;
    const size_t n = (size_t)W * H, cells = n * D;
    uint16_t *d_pairs = dev(14, n * cw * 2), *pairs = malloc(n * cw * 2), *part = malloc(n * cw * 2);
    CHECK(gvis_cu_memset(job, d_pairs, 0xa5, n * cw * 2) == 0);
    CHECK(gvis_cu_sgm_cost_pairs(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, 0, H, d_pairs, stream) ==
          0);
    down(pairs, d_pairs, n * cw * 2);
    uint8_t lc[64], la[64];
    gvis_sgm_cost_luts(p->census, lc, la);
    size_t bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int w = 0; w < cw; w++)
                for (int h = 0; h < 2; h++) {
                    const int k = 64 * (w / 32) + w % 32 + 32 * h;
                    int want = 0;
                    if (k < D) {
                        int xr = x - M - k;
                        xr = xr < 0 ? 0 : xr >= W ? W - 1 : xr;
                        const size_t l = (size_t)y * W + x, r = (size_t)y * W + xr;
                        want = tab ? gvis_sgm_cost_adcensus_ref(cl[l], cr[r], guide[l], guide_r[r], lc, la)
                                   : __builtin_popcountll(cl[l] ^ cr[r]);
                    }
                    bad += (pairs[((size_t)y * W + x) * cw + w] >> (8 * h) & 0xff) != want;
                }
    CHECKF(bad == 0, "%s: cost pairs: %zu of %zu differ from the rule", what, bad, n * cw * 2);
    /* rows y0 .. y1 - 1 alone: the same words, counted from y0 */
    const int y0 = H / 3, y1 = H / 3 + (H > 2 ? 2 : 1);
    CHECK(gvis_cu_sgm_cost_pairs(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, y0, y1, d_pairs, stream) ==
          0);
    down(part, d_pairs, (size_t)(y1 - y0) * W * cw * 2);
    CHECKF(memcmp(part, pairs + (size_t)y0 * W * cw, (size_t)(y1 - y0) * W * cw * 2) == 0,
           "%s: cost pairs of rows %d..%d differ from the whole image's", what, y0, y1 - 1);
    CHECK(gvis_cu_sgm_cost_pairs(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, 0, H, d_pairs, stream) ==
          0);
    CHECK(gvis_cu_sgm_cost_pairs(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, 1, 1, d_pairs, stream) !=
          0);
    if (cells * p->paths <= (200u << 20)) {
        uint8_t *d_alt = dev(13, cells * p->paths), *all = malloc(cells * p->paths), *alt = malloc(cells * p->paths);
        down(all, d_lr, cells * p->paths);
        /* the interleaved lanes (narrow and 32) and the run layout (where D has it), its rows
         * with 4 pairs a lane (the rule's choice at these heights), 8 and 2 */
        for (int i = 0; i < 5; i++) {
            set_lanes(i);
            setenv("GVIS_SGM_PAIRS_RUN", i >= 2 ? "1" : "0", 1);
            setenv("GVIS_SGM_RUN_ROWS4", i == 3 ? "0" : i == 4 ? "2" : "1", 1);
            CHECK(gvis_cu_memset(job, d_alt, 0x5a, cells * p->paths) == 0);
            CHECK(gvis_cu_sgm_path_pairs(d_pairs, d_guide, W, H, D, p->p1, p->p2, p->p2_adapt, 0, p->paths, d_alt,
                                         stream) == 0);
            unsetenv("GVIS_SGM_LANES");
            down(alt, d_alt, cells * p->paths);
            CHECKF(count_diff(alt, all, cells * p->paths, 1) == 0, "%s: paths over the cost pairs (%s) differ", what,
                   i == 4   ? "run layout, rows of 2 pairs"
                   : i == 3 ? "run layout, rows of 8 pairs"
                   : i == 2 ? "run layout"
                   : i      ? "32 lanes"
                            : "narrow lanes");
        }
        unsetenv("GVIS_SGM_RUN_ROWS4");
        /* one direction alone, with the L2 prefetch 3 steps ahead (default: none), and the
         * last direction alone in the run layout */
        for (int i = 0; i < 2; i++) {
            const int d1 = i ? p->paths - 1 : 1;
            setenv("GVIS_SGM_PF", "3", 1);
            setenv("GVIS_SGM_PAIRS_RUN", i ? "1" : "0", 1);
            CHECK(gvis_cu_memset(job, d_alt, 0x5a, cells) == 0);
            CHECK(gvis_cu_sgm_path_pairs(d_pairs, d_guide, W, H, D, p->p1, p->p2, p->p2_adapt, d1, 1, d_alt, stream) ==
                  0);
            unsetenv("GVIS_SGM_PF");
            down(alt, d_alt, cells);
            CHECKF(count_diff(alt, all + (size_t)d1 * cells, cells, 1) == 0,
                   "%s: direction %d over the cost pairs alone%s differs", what, d1, i ? " (run layout)" : "");
        }
        unsetenv("GVIS_SGM_PAIRS_RUN");
        free(all), free(alt);
    }
    free(pairs), free(part);
}

static void check_stages(int W, int H, gvis_type type, const gvis_sgm_params *p, int per_dir)
{
    const int D = p->max_disp, M = p->min_disp;
    const size_t n = (size_t)W * H, cells = n * D;
    char what[160];
    snprintf(what, sizeof what, "%dx%d u%d D %d M %d paths %d cost %s census %s p2-adapt %d", W, H, 8 * (int)type, D,
             M, p->paths, p->cost == GVIS_COST_ADCENSUS ? "ad-census" : "census", p->census ? "sym" : "9x7",
             p->p2_adapt);
    gvis_image L, R;
    t_make(&L, W, H, 1, type, 1, 0);
    t_make(&R, W, H, 1, type, 1, 0);
    /* the right view: the left one shifted by a few pixels, plus noise */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int xs = x + 5 < W ? x + 5 : W - 1;
            if (type == GVIS_U8)
                ((uint8_t *)GVIS_ROW(&R, y))[x] = (uint8_t)(((uint8_t *)GVIS_ROW(&L, y))[xs] + t_rand() % 3);
            else
                ((uint16_t *)GVIS_ROW(&R, y))[x] = (uint16_t)(((uint16_t *)GVIS_ROW(&L, y))[xs] + t_rand() % 700);
        }
    uint64_t *cl = malloc(n * 8), *cr = malloc(n * 8);
    uint8_t *guide = malloc(n), *guide_r = malloc(n);
    uint64_t *d_cl = dev(1, n * 8), *d_cr = dev(2, n * 8);
    uint8_t *d_guide = dev(3, n), *d_guide_r = dev(10, n);
    uint8_t luts[128];
    gvis_sgm_cost_luts(p->census, luts, luts + 64);
    const uint8_t *tab = p->cost == GVIS_COST_ADCENSUS ? luts : NULL;
    progress(what);
    check_census(&L, p->census, cl, guide, d_cl, d_guide);
    check_census(&R, p->census, cr, guide_r, d_cr, d_guide_r);
    progress("  census done");
    /* ad-census with the symmetric census: the right guide packed into the codes, which
     * the path kernels read instead of d_guide_r (the alone direction below passes NULL) */
    const int packed = tab && p->census == GVIS_CENSUS_SYM;
    if (packed) {
        CHECK(gvis_cu_sgm_pack_guide(d_cr, d_guide_r, n, stream) == 0);
        uint64_t *pk = malloc(n * 8);
        down(pk, d_cr, n * 8);
        size_t badp = 0;
        for (size_t i = 0; i < n; i++)
            badp += pk[i] != (cr[i] | (uint64_t)guide_r[i] << 32);
        CHECKF(badp == 0, "%s: packed codes: %zu of %zu differ", what, badp, n);
        free(pk);
    }

    /* paths: the device volumes, their sum against the CPU aggregation */
    uint8_t *d_lr = dev(4, cells * p->paths);
    /* all directions in one launch, as the pipeline runs them; the first direction
     * also alone, which must give the same volume */
    CHECK(gvis_cu_sgm_path_cost(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, p->p1, p->p2, p->p2_adapt, 0,
                                p->paths, d_lr, stream) == 0);
    uint8_t *d_one = dev(9, cells);
    const int solo = p->paths - 1;
    CHECK(gvis_cu_sgm_path_cost(d_cl, d_cr, d_guide, packed ? NULL : d_guide_r, tab, W, H, D, M, p->census, p->p1,
                                p->p2, p->p2_adapt, solo, 1, d_one, stream) == 0);
    CHECK(gvis_cu_sync(job) == 0);
    progress("  paths done");
    uint8_t *lr = malloc(cells), *ref = per_dir ? malloc(cells) : NULL;
    uint16_t *sum = calloc(cells, 2), *cpu_sum = malloc(cells * 2);
    for (int dir = 0; dir < p->paths; dir++) {
        down(lr, d_lr + dir * cells, cells);
        for (size_t i = 0; i < cells; i++)
            sum[i] = (uint16_t)(sum[i] + lr[i]);
        if (per_dir) {
            gvis_sgm_path_ref(cl, cr, guide, guide, guide_r, W, H, p, dir, ref);
            size_t bad = count_diff(lr, ref, cells, 1);
            CHECKF(bad == 0, "%s: path direction %d: %zu of %zu costs differ", what, dir, bad, cells);
        }
    }
    {
        uint8_t *one = malloc(cells), *all = malloc(cells);
        down(one, d_one, cells);
        down(all, d_lr + (size_t)solo * cells, cells);
        CHECKF(count_diff(one, all, cells, 1) == 0, "%s: direction %d alone differs from the joint launch", what, solo);
        free(one), free(all);
    }
    /* every lane count a line gives the same volumes (the joint launch; the default's
     * volumes were checked above); not on the biggest volumes (downloads) */
    if (cells * p->paths <= (200u << 20)) {
        uint8_t *d_alt = dev(13, cells * p->paths), *all = malloc(cells * p->paths), *alt = malloc(cells * p->paths);
        down(all, d_lr, cells * p->paths);
        for (int i = 0; i < 2; i++) {
            set_lanes(i);
            CHECK(gvis_cu_memset(job, d_alt, 0x5a, cells * p->paths) == 0);
            CHECK(gvis_cu_sgm_path_cost(d_cl, d_cr, d_guide, d_guide_r, tab, W, H, D, M, p->census, p->p1, p->p2,
                                        p->p2_adapt, 0, p->paths, d_alt, stream) == 0);
            unsetenv("GVIS_SGM_LANES");
            down(alt, d_alt, cells * p->paths);
            CHECKF(count_diff(alt, all, cells * p->paths, 1) == 0, "%s: %s lanes a line differ from the default", what,
                   i ? "32" : "the narrow layout's");
        }
        free(all), free(alt);
    }
    check_pairs(W, H, p, cl, cr, guide, guide_r, d_cl, d_cr, d_guide, d_guide_r, tab, d_lr, what);
    CHECK_OK(gvis_sgm_aggregate(cl, cr, guide, guide, guide_r, W, H, p, cpu_sum, NULL));
    size_t bad = count_diff(sum, cpu_sum, cells, 2);
    CHECKF(bad == 0, "%s: aggregated costs: %zu of %zu differ", what, bad, cells);

    check_sum_volume(W, H, p, cl, cr, guide, guide_r, d_cl, d_cr, d_guide, d_guide_r, tab, cpu_sum, what);
    progress("  paths compared");
    /* winner takes all, both views */
    int16_t *hl = malloc(n * 2), *hr = malloc(n * 2), *gl = malloc(n * 2), *gr = malloc(n * 2);
    int16_t *d_l = dev(5, n * 2), *d_r = dev(6, n * 2), *d_l2 = dev(7, n * 2), *d_r2 = dev(8, n * 2);
    const int U = gvis_sgm_uniqueness_fixed(p->uniqueness);
    CHECK_OK(gvis_sgm_wta(cpu_sum, NULL, W, H, D, M, p->uniqueness, p->subpixel, hl, hr));
    CHECK(gvis_cu_sgm_wta(d_lr, p->paths, W, H, D, M, U, p->subpixel, d_l, d_r, stream) == 0);
    down(gl, d_l, n * 2);
    down(gr, d_r, n * 2);
    size_t bl = count_diff(gl, hl, n, 2), br = count_diff(gr, hr, n, 2);
    CHECKF(bl == 0 && br == 0, "%s: wta: %zu left, %zu right of %zu differ", what, bl, br, n);
    /* the same from the sum volume (the pipeline's way); the sum volume of the last
     * check_sum_volume launch is S of all paths */
    CHECK(gvis_cu_memset(job, d_l, 0x55, n * 2) == 0 && gvis_cu_memset(job, d_r, 0x55, n * 2) == 0);
    CHECK(gvis_cu_sgm_wta_sum(d_sumvol, GVIS_SGM_SUM_STRIDE(D), W, H, D, M, U, p->subpixel, d_l, d_r, stream) == 0);
    down(gl, d_l, n * 2);
    down(gr, d_r, n * 2);
    bl = count_diff(gl, hl, n, 2), br = count_diff(gr, hr, n, 2);
    CHECKF(bl == 0 && br == 0, "%s: wta from the sum volume: %zu left, %zu right of %zu differ", what, bl, br, n);
    CHECK(gvis_cu_sgm_wta_sum(d_sumvol, GVIS_SGM_SUM_STRIDE(D), W, H, D, M, U, p->subpixel, d_l, NULL, stream) == 0);
    down(gl, d_l, n * 2);
    CHECKF(count_diff(gl, hl, n, 2) == 0, "%s: wta from the sum volume, left only, differs", what);
    size_t valid = 0;
    for (size_t i = 0; i < n; i++)
        valid += hl[i] != GVIS_SGM_INVALID(M);
    CHECKF(valid > n / 4, "%s: only %zu of %zu valid: a weak test", what, valid, n);

    progress("  wta compared");
    /* median, left-right check, fill on the CPU's maps (uploaded) */
    int16_t *h2 = malloc(n * 2), *h3 = malloc(n * 2);
    up(d_l, hl, n * 2);
    up(d_r, hr, n * 2);
    gvis_sgm_median(hl, h2, W, H);
    CHECK(gvis_cu_sgm_median(d_l, d_l2, W, H, stream) == 0);
    down(gl, d_l2, n * 2);
    CHECKF(count_diff(gl, h2, n, 2) == 0, "%s: median differs", what);
    /* both maps in one launch */
    gvis_sgm_median(hr, h3, W, H);
    CHECK(gvis_cu_sgm_median2(d_l, d_l2, d_r, d_r2, W, H, stream) == 0);
    down(gl, d_l2, n * 2);
    down(gr, d_r2, n * 2);
    CHECKF(count_diff(gl, h2, n, 2) == 0 && count_diff(gr, h3, n, 2) == 0, "%s: median of both maps differs", what);
    CHECK(gvis_cu_sgm_median2(d_l, d_l2, d_r, NULL, W, H, stream) != 0);
    for (int tol = 0; tol <= 1; tol++) {
        gvis_sgm_lrcheck(hl, hr, h2, h3, W, H, M, tol);
        CHECK(gvis_cu_sgm_lrcheck(d_l, d_r, d_l2, d_r2, W, H, M, tol, stream) == 0);
        down(gl, d_l2, n * 2);
        down(gr, d_r2, n * 2);
        CHECKF(count_diff(gl, h2, n, 2) == 0 && count_diff(gr, h3, n, 2) == 0, "%s: lrcheck %d differs", what, tol);
    }
    gvis_sgm_fill(h2, W, H, GVIS_SGM_INVALID(M));
    CHECK(gvis_cu_sgm_fill(d_l2, W, H, GVIS_SGM_INVALID(M), stream) == 0);
    down(gl, d_l2, n * 2);
    CHECKF(count_diff(gl, h2, n, 2) == 0, "%s: fill differs", what);

    progress("  post compared");
    free(cl), free(cr), free(guide), free(guide_r), free(lr), free(ref), free(sum), free(cpu_sum);
    free(hl), free(hr), free(gl), free(gr), free(h2), free(h3);
    gvis_image_free(&L);
    gvis_image_free(&R);
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    gvis_ctx *cpu = t_cpu_ctx();
    job = gpu->job;
    stream = gvis_cu_job_stream(job);
    progress("start");
    t_seed(61);

    /* census on tiny and odd shapes */
    const int tiny[][2] = {{1, 1}, {1, 17}, {17, 1}, {5, 3}, {33, 9}};
    for (size_t s = 0; s < sizeof tiny / sizeof tiny[0]; s++)
        for (int census = 0; census < 2; census++)
            for (int t = 1; t <= 2; t++) {
                gvis_image g;
                t_make(&g, tiny[s][0], tiny[s][1], 1, t == 1 ? GVIS_U8 : GVIS_U16, 0, 0);
                size_t n = (size_t)g.width * g.height;
                uint64_t *h = malloc(n * 8);
                uint8_t *hg = malloc(n);
                check_census(&g, census, h, hg, dev(1, n * 8), dev(3, n));
                free(h), free(hg);
                gvis_image r;
                t_make(&r, g.width, g.height, 1, g.type, 0, 0);
                check_census_pair(&g, &r, census, census);
                gvis_image_free(&r);
                gvis_image_free(&g);
            }
    for (int census = 0; census < 2; census++) {
        gvis_image a, b;
        t_make(&a, 631, 479, 1, census ? GVIS_U8 : GVIS_U16, 1, 0);
        t_make(&b, 631, 479, 1, a.type, 1, 0);
        check_census_pair(&a, &b, census, 0);
        check_census_pair(&a, &b, census, census);
        gvis_image_free(&a);
        gvis_image_free(&b);
    }

    /* the median on random maps of every width 1 .. 13 and others about its four pixels a
     * thread (sgm_median.cu), heights 1 .. 4 and odd ones, few values (many ties) or many */
    {
        const int mw[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 31, 127, 128, 129, 130, 631};
        const int mh[] = {1, 2, 3, 4, 7, 33};
        for (size_t a = 0; a < sizeof mw / sizeof mw[0]; a++)
            for (size_t b = 0; b < sizeof mh / sizeof mh[0]; b++) {
                const int W = mw[a], H = mh[b];
                const size_t n = (size_t)W * H;
                int16_t *m1 = malloc(n * 2), *m2 = malloc(n * 2), *h1 = malloc(n * 2), *h2 = malloc(n * 2);
                int16_t *g1 = malloc(n * 2), *g2 = malloc(n * 2);
                const int span = (a + b) % 2 ? 5 : 4000;
                for (size_t i = 0; i < n; i++) {
                    m1[i] = (int16_t)((int)(t_rand() % span) - span / 2);
                    m2[i] = (int16_t)((int)(t_rand() % span) - span / 2);
                }
                int16_t *d1 = dev(5, n * 2), *d2 = dev(6, n * 2), *o1 = dev(7, n * 2), *o2 = dev(8, n * 2);
                up(d1, m1, n * 2);
                up(d2, m2, n * 2);
                gvis_sgm_median(m1, h1, W, H);
                gvis_sgm_median(m2, h2, W, H);
                CHECK(gvis_cu_sgm_median2(d1, o1, d2, o2, W, H, stream) == 0);
                down(g1, o1, n * 2);
                down(g2, o2, n * 2);
                CHECKF(count_diff(g1, h1, n, 2) == 0 && count_diff(g2, h2, n, 2) == 0, "median %dx%d differs", W, H);
                free(m1), free(m2), free(h1), free(h2), free(g1), free(g2);
            }
    }

    /* the stages: 631x479 and 311x239, D 64..512, M 0, -16, 16 */
    /* GVIS_TEST_QUICK=1 (for compute-sanitizer): the smaller size and D <= 128 only */
    const int quick = getenv("GVIS_TEST_QUICK") != NULL;
    const int sizes[][2] = {{631, 479}, {311, 239}};
    const int Ds[] = {64, 128, 256, 512};
    const int Ms[] = {0, -16, 16};
    for (int s = quick ? 1 : 0; s < 2; s++)
        for (int di = 0; di < (quick ? 2 : 4); di++)
            for (int mi = 0; mi < 3; mi++) {
                gvis_sgm_params p;
                gvis_sgm_defaults(&p);
                p.max_disp = Ds[di];
                p.min_disp = Ms[mi];
                /* vary the other parameters across the grid */
                int v = s * 12 + di * 3 + mi;
                p.census = v % 2 ? GVIS_CENSUS_9X7 : GVIS_CENSUS_SYM;
                p.cost = v % 4 == 3 ? GVIS_COST_CENSUS : GVIS_COST_ADCENSUS;
                p.paths = v % 5 == 4 ? 4 : 8;
                p.subpixel = v % 7 != 3;
                p.p2_adapt = v % 3 == 2 ? 0 : 8;
                p.uniqueness = v % 4 == 1 ? 1.0 : 0.95;
                if (p.census == GVIS_CENSUS_9X7 && v % 6 == 1) {
                    p.p1 = 30;
                    p.p2 = 255 - gvis_sgm_cost_max(&p); /* the limit: path costs reach 255 */
                }
                const int per_dir = s == 1 && di <= 1; /* the naive reference on the smaller volumes */
                check_stages(sizes[s][0], sizes[s][1], v % 3 == 0 ? GVIS_U16 : GVIS_U8, &p, per_dir);
            }
    /* D = 16 and 48 (not multiples of 32), tiny heights */
    for (int D = 16; D <= 48; D += 32) {
        gvis_sgm_params p;
        gvis_sgm_defaults(&p);
        p.max_disp = D;
        p.min_disp = -7;
        check_stages(67, 3, GVIS_U8, &p, 1);
        check_stages(D, 1, GVIS_U8, &p, 1);
    }
    /* 64 < D < 128 and not a multiple of 64: the run layout's halves past D (sgm_path_run.cuh) */
    for (int D = 80; D <= 112; D += 32) {
        gvis_sgm_params p;
        gvis_sgm_defaults(&p);
        p.max_disp = D;
        p.min_disp = D == 80 ? -5 : 3;
        p.paths = D == 80 ? 4 : 8;
        p.census = D == 80 ? GVIS_CENSUS_9X7 : GVIS_CENSUS_SYM;
        check_stages(203, 61, GVIS_U8, &p, 1);
    }

    progress("stages done");
    /* the whole pipeline, every option family */
    gvis_sgm_params p;
    for (int variant = 0; variant < 8; variant++) {
        gvis_sgm_defaults(&p);
        p.max_disp = variant == 2 ? 96 : variant % 2 ? 64 : 32; /* 96: the run layout (sgm_path_run.cuh) */
        p.min_disp = variant % 3 == 1 ? -16 : variant % 3 == 2 ? 16 : 0;
        p.paths = variant & 4 ? 4 : 8;
        p.fill = variant % 3 == 0;
        p.median = variant != 5;
        p.lr_check = variant == 6 ? -1 : variant == 7 ? 3 : 1;
        p.census = variant & 2 ? GVIS_CENSUS_9X7 : GVIS_CENSUS_SYM;
        p.cost = variant == 3 ? GVIS_COST_CENSUS : GVIS_COST_ADCENSUS;
        set_lanes(variant / 2); /* the narrow layout on half of them */
        /* per path from the cost pairs (GVIS_SGM_COSTVOL=1; by default from 120 M pixels x
         * disparities) or, on 3 of them, from the census codes */
        setenv("GVIS_SGM_COSTVOL", variant % 3 == 1 ? "0" : "1", 1);
        check_pipeline(cpu, gpu, 203, 97, variant % 2 ? 3 : 1, variant & 1 ? GVIS_U16 : GVIS_U8, &p);
        unsetenv("GVIS_SGM_LANES");
        unsetenv("GVIS_SGM_COSTVOL");
    }
    progress("pipelines done");
    /* wider than the two-pass WTA's shared memory allows: the ring kernel has no width limit */
    gvis_sgm_defaults(&p);
    p.max_disp = 64;
    check_pipeline(cpu, gpu, 9001, 3, 1, GVIS_U8, &p);
    gvis_sgm_defaults(&p);
    p.max_disp = 16;
    check_pipeline(cpu, gpu, 16, 1, 1, GVIS_U8, &p);
    check_pipeline(cpu, gpu, 17, 2, 4, GVIS_U8, &p);

    gvis_ctx_free(gpu);
    gvis_ctx_free(cpu);
    return t_done("test_cuda_sgm");
}
#endif
