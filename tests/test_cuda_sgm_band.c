/* The sum volume of the SGM paths walked in bands (cuda/stereo/paths/sgm_path_band.cu) and in
 * strips with the winner fused (cuda/stereo/paths/sgm_strips.cu), the rows both ways in one
 * launch (sgm_rows.cu) and the downward directions fused with their sum (sgm_down.cu),
 * against the naive paths summed on the CPU, at the edges: every band height from 1 to past
 * H (a sample on taller images), so that bands divide H or not, H smaller than a band, H = 1
 * and W = 1, and the diagonals' lines cross band edges, enter
 * through the side inside a band and leave through it; the strips' maps against the winner
 * over the bands' sum; then the whole pipeline on the sum volume against the CPU, in bands
 * or strips and whole.  Exits 77 (skipped) without a usable GPU. */
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

/* Heights 1 .. H + 1: all of them on small images, a sample on taller ones. */
static int next_height(int h, int H)
{
    return h + (H <= 12 ? 1 : h < 4 ? 1 : h < H - 2 ? (H + 5) / 6 : 1);
}

/* (0, -1), (-1, -1), (1, -1): the upward directions (lib/stereo/sgm.h's numbering) */
static int is_up(int dir)
{
    return dir == 3 || dir == 5 || dir == 7;
}

/* A random pair's censuses, guides and ad-census tables, on the host and in the job's
 * buffers 1, 2, 3 and 10; tab: the tables where the cost is ad-census (the symmetric
 * census's path kernels then read the right guide from the codes: packed into them). */
typedef struct {
    uint64_t *cl, *cr, *d_cl, *d_cr;
    uint8_t *gl, *gr, *d_gl, *d_gr, luts[128];
    const uint8_t *tab;
} pair_codes;

static void codes_make(pair_codes *c, int W, int H, int cost, int census)
{
    const size_t n = (size_t)W * H;
    gvis_image L, R;
    t_make(&L, W, H, 1, GVIS_U8, 1, 0);
    t_make(&R, W, H, 1, GVIS_U8, 1, 0);
    c->cl = malloc(n * 8), c->cr = malloc(n * 8), c->gl = malloc(n), c->gr = malloc(n);
    gvis_sgm_census(L.data, L.stride, 1, W, H, census, c->cl);
    gvis_sgm_census(R.data, R.stride, 1, W, H, census, c->cr);
    gvis_sgm_guide(&L, c->gl);
    gvis_sgm_guide(&R, c->gr);
    gvis_sgm_cost_luts(census, c->luts, c->luts + 64);
    gvis_image_free(&L);
    gvis_image_free(&R);
    c->d_cl = dev(1, n * 8), c->d_cr = dev(2, n * 8), c->d_gl = dev(3, n), c->d_gr = dev(10, n);
    up(c->d_cl, c->cl, n * 8);
    up(c->d_cr, c->cr, n * 8);
    up(c->d_gl, c->gl, n);
    up(c->d_gr, c->gr, n);
    c->tab = cost == GVIS_COST_ADCENSUS ? c->luts : NULL;
    if (c->tab && census == GVIS_CENSUS_SYM)
        CHECK(gvis_cu_sgm_pack_guide(c->d_cr, c->d_gr, n, stream) == 0);
}

static void codes_free(pair_codes *c)
{
    free(c->cl), free(c->cr), free(c->gl), free(c->gr);
}

/* The sum in strips of h rows (cuda/stereo/paths/sgm_strips.cu), d_vol holding the whole sum S
 * (ref) on entry: each strip's u8 volumes, downward and upward, against the CPU's paths
 * (dirs: paths volumes of W x H x D); the downward strips added into S by
 * gvis_cu_sgm_strip_sum against the CPU (ref plus the downward directions: rd); and with
 * D 64, 128 or 256 the whole of gvis_cu_sgm_sum_strips: the volume then holds the rows and
 * the downward directions (rows_down) and the maps are the winner's over S. */
static void check_strips(int W, int H, int D, int paths, int census, const uint8_t *tab, const gvis_sgm_params *p,
                         int h, const uint8_t *dirs, const uint16_t *ref, const uint16_t *rows_down,
                         const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_gl, const uint8_t *d_gr,
                         uint16_t *d_vol, uint32_t *d_state)
{
    const int stride = GVIS_SGM_SUM_STRIDE(D), nv = paths == 8 ? 3 : 1, hh = h < H ? h : H;
    const size_t n = (size_t)W * H, bytes = n * stride * 2, svol = (size_t)hh * W * D;
    const size_t sbytes = gvis_cu_sgm_band_state_bytes(W, H, stride);
    const int wta = gvis_cu_sgm_wta_strip_ok(D), U = gvis_sgm_uniqueness_fixed(p->uniqueness);
    int16_t *d_maps = dev(14, 4 * n * sizeof(int16_t)), *maps = malloc(4 * n * sizeof(int16_t));
    uint16_t *vol = malloc(bytes), *rd = malloc(n * D * 2);
    setenv("GVIS_SGM_LANES", h % 2 ? "8" : "32", 1);
    if (wta) { /* the maps from the whole sum first */
        CHECK(gvis_cu_sgm_wta_sum(d_vol, stride, W, H, D, p->min_disp, U, p->subpixel, d_maps, d_maps + n, stream) ==
              0);
        down(maps, d_maps, 2 * n * sizeof(int16_t));
    }
    /* the strips one by one, each against the CPU's paths of its rows; the downward ones
     * added into S */
    uint8_t *d_strip = dev(13, nv * svol), *strip = malloc(nv * svol);
    /* the run layout's costs where D has it, on odd heights (the codes' walk on even ones) */
    const size_t cbytes = h % 2 ? gvis_cu_sgm_strip_cost_bytes(W, hh, D) : 0;
    uint16_t *d_cost = cbytes ? dev(4, cbytes) : NULL;
    const int nb = (H + hh - 1) / hh;
    for (int down_pass = 1; down_pass >= 0; down_pass--) {
        size_t bad = 0;
        CHECK(gvis_cu_memset(job, d_state, 0x5c, sbytes) == 0);
        for (int i = 0; i < nb; i++) {
            const int b = down_pass ? i : nb - 1 - i, y0 = b * hh, y1 = y0 + hh < H ? y0 + hh : H;
            CHECK(gvis_cu_memset(job, d_strip, 0x33, nv * svol) == 0);
            CHECK(gvis_cu_sgm_path_strip(d_cl, d_cr, d_gl, d_gr, tab, W, H, D, p->min_disp, census, p->p1, p->p2,
                                         p->p2_adapt, paths, down_pass, y0, y1, d_strip, svol, d_cost, d_state,
                                         stream) == 0);
            if (down_pass)
                CHECK(gvis_cu_sgm_strip_sum(d_vol, stride, d_strip, svol, nv, W, y0, y1, D, h % 2, stream) == 0);
            down(strip, d_strip, nv * svol);
            for (int v = 0; v < nv; v++) {
                const uint8_t *want = dirs + (size_t)((down_pass ? 2 : 3) + 2 * v) * n * D + (size_t)y0 * W * D;
                for (size_t j = 0; j < (size_t)(y1 - y0) * W * D; j++)
                    bad += strip[v * svol + j] != want[j];
            }
        }
        CHECKF(bad == 0, "band edges %dx%d D %d paths %d: the %s pass in strips of %d rows (%s): %zu values differ", W,
               H, D, paths, down_pass ? "downward" : "upward", hh, d_cost ? "run layout" : "codes", bad);
    }
    for (size_t i = 0; i < n * D; i++) {
        rd[i] = ref[i];
        for (int v = 0; v < nv; v++)
            rd[i] = (uint16_t)(rd[i] + dirs[(size_t)(2 + 2 * v) * n * D + i]);
    }
    down(vol, d_vol, bytes);
    size_t bad = sum_diff(vol, stride, n, D, rd, NULL);
    CHECKF(bad == 0, "band edges %dx%d D %d paths %d: strips of %d rows added into the sum: %zu of %zu values differ",
           W, H, D, paths, hh, bad, n * stride);
    /* bad arguments are refused */
    CHECK(gvis_cu_sgm_path_strip(d_cl, d_cr, d_gl, d_gr, tab, W, H, D, p->min_disp, census, p->p1, p->p2,
                                 p->p2_adapt, paths, 1, 0, H + 1, d_strip, svol, d_cost, d_state, stream) != 0);
    CHECK(gvis_cu_sgm_path_strip(d_cl, d_cr, d_gl, d_gr, tab, W, H, D, p->min_disp, census, p->p1, p->p2,
                                 p->p2_adapt, paths, 0, 0, hh, d_strip, svol - 1, d_cost, d_state, stream) != 0);
    CHECK(gvis_cu_sgm_strip_sum(d_vol, stride, d_strip, svol, nv, W, 0, hh + 1, D, 0, stream) != 0);
    if (wta) { /* the whole: 1 to 3 sets of strips, rows in segments of 1 or 3 chunks of 128 pixels or whole */
        const int sets = 1 + h % 3;
        setenv("GVIS_SGM_WTA_SEG", h % 3 == 0 ? "1" : h % 3 == 1 ? "3" : "0", 1);
        setenv("GVIS_SGM_STRIP_DOWN", h % 2 ? "1" : "0", 1); /* the downward pass in strips or bands */
        int16_t *d_sets = dev(15, sets * gvis_cu_sgm_strip_bytes(W, hh, D, paths));
        CHECK(gvis_cu_memset(job, d_maps + 2 * n, 0x55, 2 * n * sizeof(int16_t)) == 0);
        CHECK(gvis_cu_memset(job, d_vol, 0xa7, bytes) == 0 && gvis_cu_memset(job, d_state, 0x5c, sbytes) == 0);
        CHECK(gvis_cu_sgm_sum_strips(d_cl, d_cr, d_gl, d_gr, tab, W, H, D, p->min_disp, census, p->p1, p->p2,
                                     p->p2_adapt, paths, h, d_vol, stride, d_state, (uint8_t *)d_sets, sets, d_cost, U,
                                     p->subpixel, d_maps + 2 * n, d_maps + 3 * n, stream) == 0);
        down(maps + 2 * n, d_maps + 2 * n, 2 * n * sizeof(int16_t));
        CHECKF(count_diff(maps, maps + 2 * n, 2 * n, 2) == 0,
               "band edges %dx%d D %d paths %d: the winner over strips of %d rows (%d sets, segments %s) differs", W,
               H, D, paths, hh, sets, getenv("GVIS_SGM_WTA_SEG"));
        down(vol, d_vol, bytes);
        bad = sum_diff(vol, stride, n, D, rows_down, NULL);
        CHECKF(bad == 0, "band edges %dx%d D %d paths %d: the sum in strips of %d rows: %zu of %zu values differ", W,
               H, D, paths, hh, bad, n * stride);
        CHECK(gvis_cu_sgm_sum_strips(d_cl, d_cr, d_gl, d_gr, tab, W, H, D, p->min_disp, census, p->p1, p->p2,
                                     p->p2_adapt, paths, h, d_vol, stride, d_state, (uint8_t *)d_sets, 0, d_cost, U,
                                     p->subpixel, d_maps + 2 * n, d_maps + 3 * n, stream) != 0);
        unsetenv("GVIS_SGM_WTA_SEG");
        unsetenv("GVIS_SGM_STRIP_DOWN");
    }
    unsetenv("GVIS_SGM_LANES");
    free(strip), free(maps), free(vol), free(rd);
}

static void check_edges(int W, int H, int D, int paths, int cost, int census)
{
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    p.max_disp = D;
    p.min_disp = -3;
    p.paths = paths;
    p.cost = cost;
    p.census = census;
    const int stride = GVIS_SGM_SUM_STRIDE(D);
    const size_t n = (size_t)W * H, bytes = n * stride * 2;
    pair_codes c;
    codes_make(&c, W, H, cost, census);
    uint8_t *lr = malloc(n * D);
    uint16_t *ref = calloc(n * D, 2), *rows_down = calloc(n * D, 2), *vol = malloc(bytes);
    uint8_t *dirs = malloc(n * D * paths); /* each direction's Lr */
    for (int dir = 0; dir < paths; dir++) {
        gvis_sgm_path_ref(c.cl, c.cr, c.gl, c.gl, c.gr, W, H, &p, dir, lr);
        memcpy(dirs + (size_t)dir * n * D, lr, n * D);
        for (size_t i = 0; i < n * D; i++) {
            ref[i] = (uint16_t)(ref[i] + lr[i]);
            if (!is_up(dir))
                rows_down[i] = (uint16_t)(rows_down[i] + lr[i]);
        }
    }
    uint64_t *d_cl = c.d_cl, *d_cr = c.d_cr;
    uint8_t *d_gl = c.d_gl, *d_gr = c.d_gr;
    uint16_t *d_vol = dev(11, bytes);
    const size_t sbytes = gvis_cu_sgm_band_state_bytes(W, H, stride);
    uint32_t *d_state = dev(12, sbytes);
    const uint8_t *tab = c.tab;
    for (int h = 1; h <= H + 1; h = next_height(h, H)) {
        /* garbage in the volume and the line states first */
        CHECK(gvis_cu_memset(job, d_vol, 0xa7, bytes) == 0 && gvis_cu_memset(job, d_state, 0x5c, sbytes) == 0);
        setenv("GVIS_SGM_LANES", h % 2 ? "32" : "8", 1);
        CHECK(gvis_cu_sgm_path_sum_band(d_cl, d_cr, d_gl, d_gr, tab, W, H, D, p.min_disp, census, p.p1, p.p2,
                                        p.p2_adapt, paths, h, 2, d_vol, stride, d_state, stream) == 0);
        unsetenv("GVIS_SGM_LANES");
        down(vol, d_vol, bytes);
        size_t bad = sum_diff(vol, stride, n, D, ref, NULL);
        CHECKF(bad == 0, "band edges %dx%d D %d paths %d %s: bands of %d rows: %zu of %zu values differ", W, H, D,
               paths, cost == GVIS_COST_ADCENSUS ? "ad-census" : "census", h, bad, n * stride);
        /* (under a sanitizer, GVIS_TEST_QUICK: three heights of the strips) */
        if (D <= 256 && (!getenv("GVIS_TEST_QUICK") || h == 2 || h == 3 || h >= H))
            check_strips(W, H, D, paths, census, tab, &p, h, dirs, ref, rows_down, d_cl, d_cr, d_gl, d_gr, d_vol,
                         d_state);
    }
    codes_free(&c);
    free(lr), free(ref), free(rows_down), free(dirs), free(vol);
}

/* The set-up of the rows' and the fused downward pass's checks: the symmetric census, D
 * disparities from min_disp, the cost, a random W x H pair's codes (codes_make). */
static void sym_setup(gvis_sgm_params *p, pair_codes *c, int W, int H, int D, int min_disp, int cost)
{
    gvis_sgm_defaults(p);
    p->max_disp = D;
    p->min_disp = min_disp;
    p->cost = cost;
    p->census = GVIS_CENSUS_SYM;
    codes_make(c, W, H, cost, p->census);
}

/* The CPU's paths dirs[0 .. ndirs - 1] of that pair added into sum (W x H x D). */
static void ref_add(const pair_codes *c, int W, int H, const gvis_sgm_params *p, const int *dirs, int ndirs,
                    uint16_t *sum)
{
    const size_t n = (size_t)W * H * p->max_disp;
    uint8_t *lr = malloc(n);
    for (int i = 0; i < ndirs; i++) {
        gvis_sgm_path_ref(c->cl, c->cr, c->gl, c->gl, c->gr, W, H, p, dirs[i], lr);
        for (size_t j = 0; j < n; j++)
            sum[j] = (uint16_t)(sum[j] + lr[j]);
    }
    free(lr);
}

/* Both row directions in one launch (cuda/stereo/paths/sgm_rows.cu) against the CPU's two
 * row paths summed, on a volume of garbage: every word written, the halves past D 0.  The
 * four lane layouts (GVIS_SGM_ROWS_P 2, 4, h and h8), with and without the L2 prefetch; then
 * the arguments it refuses. */
static void check_rows(int W, int H, int D, int cost, int min_disp)
{
    gvis_sgm_params p;
    pair_codes c;
    sym_setup(&p, &c, W, H, D, min_disp, cost);
    const int stride = GVIS_SGM_SUM_STRIDE(D);
    const size_t n = (size_t)W * H, bytes = n * stride * 2;
    uint16_t *ref = calloc(n * D, 2), *vol = malloc(bytes);
    static const int rows[] = {0, 1};
    ref_add(&c, W, H, &p, rows, 2, ref);
    uint64_t *d_cl = c.d_cl, *d_cr = c.d_cr;
    uint8_t *d_gl = c.d_gl;
    const uint8_t *tab = c.tab;
    uint16_t *d_vol = dev(11, bytes);
    CHECKF(gvis_cu_sgm_rows_ok(D, 1, stride), "rows %dx%d D %d: not taken", W, H, D);
    /* both lane layouts, with and without the L2 prefetch; a way a line with the codes in
     * chunks (the default) and loaded a step ahead, its first visits in bytes (the default)
     * and in words */
    static const char *const knobs[][4] = {
        {"2", "4", "", ""},   {"4", "0", "", ""},    {"2", "0", "", ""},   {"4", "1", "", ""},
        {"h", "4", "", ""},   {"h8", "0", "", ""},   {"h8", "4", "", ""},  {"", "0", "", ""},
        {"h", "4", "0", ""},  {"h8", "0", "0", ""},  {"", "4", "0", ""},   {"", "4", "", "0"},
        {"h8", "4", "", "0"}, {"h", "0", "0", "0"}, {"", "", "", ""},    {"h", "4", "0", "1"}};
    const int nk = (int)(sizeof knobs / sizeof knobs[0]);
    for (int v = 0; v < nk; v++) {
        setenv("GVIS_SGM_ROWS_P", knobs[v][0], 1);
        setenv("GVIS_SGM_ROWS_PF", knobs[v][1], 1);
        setenv("GVIS_SGM_ROWS_STAGE", knobs[v][2], 1);
        setenv("GVIS_SGM_ROWS_U8", knobs[v][3], 1);
        CHECK(gvis_cu_memset(job, d_vol, 0xa7, bytes) == 0);
        CHECK(gvis_cu_sgm_rows_sum(d_cl, d_cr, d_gl, tab, W, H, D, p.min_disp, 1, p.p1, p.p2, p.p2_adapt, d_vol,
                                   stride, stream) == 0);
        down(vol, d_vol, bytes);
        const size_t bad = sum_diff(vol, stride, n, D, ref, NULL);
        CHECKF(bad == 0,
               "rows %dx%d D %d %s min-disp %d, %s pairs a lane, prefetch %s, stage %s, bytes %s: %zu of %zu values "
               "differ",
               W, H, D, tab ? "ad-census" : "census", min_disp, knobs[v][0], knobs[v][1], knobs[v][2], knobs[v][3], bad,
               n * stride);
    }
    unsetenv("GVIS_SGM_ROWS_P");
    unsetenv("GVIS_SGM_ROWS_PF");
    unsetenv("GVIS_SGM_ROWS_STAGE");
    unsetenv("GVIS_SGM_ROWS_U8");
    /* refused: the 9x7 census, D outside 65 .. 128, another stride; and the knob */
    CHECK(!gvis_cu_sgm_rows_ok(D, 0, stride) && !gvis_cu_sgm_rows_ok(64, 1, 64) && !gvis_cu_sgm_rows_ok(D, 1, 192));
    CHECK(gvis_cu_sgm_rows_sum(d_cl, d_cr, d_gl, tab, W, H, D, 0, 0, p.p1, p.p2, p.p2_adapt, d_vol, stride,
                               stream) != 0);
    CHECK(gvis_cu_sgm_rows_sum(d_cl, d_cr, d_gl, tab, W, H, 64, 0, 1, p.p1, p.p2, p.p2_adapt, d_vol, 64,
                               stream) != 0);
    CHECK(gvis_cu_sgm_rows_sum(d_cl, d_cr, d_gl, tab, W, H, D, 0, 1, p.p1, p.p2, p.p2_adapt, d_vol, 192,
                               stream) != 0);
    setenv("GVIS_SGM_ROWS2", "0", 1);
    CHECK(!gvis_cu_sgm_rows_ok(D, 1, stride));
    unsetenv("GVIS_SGM_ROWS2");
    codes_free(&c);
    free(ref), free(vol);
}

/* A fused pass's return (e), then the volume it left against the CPU's sums ref. */
static int pass_is(const char *what, int e, const pair_codes *c, uint16_t *vol, const uint16_t *d_vol, int W, int H,
                   int D, int min_disp, int paths, const uint16_t *ref)
{
    const int stride = GVIS_SGM_SUM_STRIDE(D);
    const size_t n = (size_t)W * H, bytes = n * stride * 2;
    CHECKF(e == 0, "%s %dx%d D %d paths %d: %d", what, W, H, D, paths, e);
    if (e)
        return 0;
    down(vol, d_vol, bytes);
    const size_t bad = sum_diff(vol, stride, n, D, ref, NULL);
    CHECKF(bad == 0, "%s %dx%d D %d %s min-disp %d, %d paths: %zu of %zu values differ", what, W, H, D,
           c->tab ? "ad-census" : "census", min_disp, paths, bad, n * stride);
    return bad == 0;
}

/* The downward directions fused with their sum (cuda/stereo/paths/sgm_down.cu) after the
 * rows, against the CPU's rows and downward paths summed, on a volume of garbage and a ring
 * of garbage: 8 paths (tiles of 16 columns exchanging the diagonals) and 4, widths that
 * leave a last tile of one column (the shifted tiles); then the upward ones the same way
 * (gvis_cu_sgm_up_sum) against all the paths summed; then what they refuse. */
static void check_down(int W, int H, int D, int cost, int min_disp)
{
    gvis_sgm_params p;
    pair_codes c;
    sym_setup(&p, &c, W, H, D, min_disp, cost);
    const int stride = GVIS_SGM_SUM_STRIDE(D);
    const size_t n = (size_t)W * H, bytes = n * stride * 2;
    uint16_t *ref4 = calloc(n * D, 2), *ref8 = malloc(n * D * 2), *vol = malloc(bytes);
    uint16_t *all4 = malloc(n * D * 2), *all8 = malloc(n * D * 2);
    /* the rows and (0, 1); (1, 1), (-1, 1); (0, -1); (-1, -1), (1, -1) */
    static const int four[] = {0, 1, 2}, diags[] = {4, 6}, up[] = {3}, updiags[] = {5, 7};
    ref_add(&c, W, H, &p, four, 3, ref4);
    memcpy(ref8, ref4, n * D * 2);
    ref_add(&c, W, H, &p, diags, 2, ref8);
    memcpy(all4, ref4, n * D * 2);
    ref_add(&c, W, H, &p, up, 1, all4);
    memcpy(all8, ref8, n * D * 2);
    ref_add(&c, W, H, &p, up, 1, all8);
    ref_add(&c, W, H, &p, updiags, 2, all8);
    uint16_t *d_vol = dev(11, bytes);
    const size_t rbytes = gvis_cu_sgm_band_state_bytes(W, H, stride) + 64;
    uint32_t *d_ring = dev(12, rbytes);
    CHECKF(gvis_cu_sgm_down_ok(D, 1, stride), "down %dx%d D %d: not taken", W, H, D);
    for (int paths = 8; paths >= 4; paths -= 4) {
        CHECK(gvis_cu_sgm_down_ring_bytes(W) <= rbytes);
        /* the rows, the downward pass, then the upward one */
        CHECK(gvis_cu_memset(job, d_vol, 0xa7, bytes) == 0 && gvis_cu_memset(job, d_ring, 0x3c, rbytes) == 0);
        CHECK(gvis_cu_sgm_rows_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, D, p.min_disp, 1, p.p1, p.p2, p.p2_adapt,
                                   d_vol, stride, stream) == 0);
        const int e = gvis_cu_sgm_down_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, D, p.min_disp, 1, p.p1, p.p2,
                                           p.p2_adapt, paths, d_vol, stride, d_ring, rbytes, stream);
        if (!pass_is("down", e, &c, vol, d_vol, W, H, D, min_disp, paths, paths == 8 ? ref8 : ref4))
            continue;
        CHECK(gvis_cu_memset(job, d_ring, 0x3c, rbytes) == 0);
        const int u = gvis_cu_sgm_up_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, D, p.min_disp, 1, p.p1, p.p2,
                                         p.p2_adapt, paths, d_vol, stride, d_ring, rbytes, stream);
        pass_is("up", u, &c, vol, d_vol, W, H, D, min_disp, paths, paths == 8 ? all8 : all4);
        /* the rows, then both at once: 8 paths, two tiles or more, two rows or more; else not
         * taken */
        CHECK(gvis_cu_memset(job, d_vol, 0xa7, bytes) == 0 && gvis_cu_memset(job, d_ring, 0x3c, rbytes) == 0);
        CHECK(gvis_cu_sgm_rows_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, D, p.min_disp, 1, p.p1, p.p2, p.p2_adapt,
                                   d_vol, stride, stream) == 0);
        const int b = gvis_cu_sgm_updown_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, D, p.min_disp, 1, p.p1, p.p2,
                                             p.p2_adapt, paths, d_vol, stride, d_ring, rbytes, stream);
        if (paths == 4 || W <= 16 || H < 2)
            CHECKF(b == -1, "updown %dx%d paths %d: %d, not -1", W, H, paths, b);
        else
            pass_is("updown", b, &c, vol, d_vol, W, H, D, min_disp, paths, all8);
    }
    /* refused: the 9x7 census, D outside 65 .. 128, another stride, 6 paths, a ring too small;
     * and the knob */
    CHECK(!gvis_cu_sgm_down_ok(D, 0, stride) && !gvis_cu_sgm_down_ok(64, 1, 64) && !gvis_cu_sgm_down_ok(D, 1, 192));
    CHECK(gvis_cu_sgm_down_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, D, 0, 0, p.p1, p.p2, p.p2_adapt, 8, d_vol,
                               stride, d_ring, rbytes, stream) > 0);
    CHECK(gvis_cu_sgm_down_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, 64, 0, 1, p.p1, p.p2, p.p2_adapt, 8, d_vol, 64,
                               d_ring, rbytes, stream) > 0);
    CHECK(gvis_cu_sgm_down_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, D, 0, 1, p.p1, p.p2, p.p2_adapt, 6, d_vol,
                               stride, d_ring, rbytes, stream) > 0);
    if (gvis_cu_sgm_down_ring_bytes(W) > 0)
        CHECK(gvis_cu_sgm_down_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, D, 0, 1, p.p1, p.p2, p.p2_adapt, 8, d_vol,
                                   stride, d_ring, 64, stream) > 0);
    CHECK(gvis_cu_sgm_up_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, D, 0, 0, p.p1, p.p2, p.p2_adapt, 8, d_vol, stride,
                             d_ring, rbytes, stream) > 0);
    CHECK(gvis_cu_sgm_up_sum(c.d_cl, c.d_cr, c.d_gl, c.tab, W, H, 64, 0, 1, p.p1, p.p2, p.p2_adapt, 8, d_vol, 64,
                             d_ring, rbytes, stream) > 0);
    CHECK(gvis_cu_sgm_up_ok(D, 1, stride) && !gvis_cu_sgm_up_ok(D, 0, stride));
    setenv("GVIS_SGM_UP", "0", 1);
    CHECK(!gvis_cu_sgm_up_ok(D, 1, stride) && gvis_cu_sgm_down_ok(D, 1, stride));
    unsetenv("GVIS_SGM_UP");
    setenv("GVIS_SGM_DOWN", "0", 1);
    CHECK(!gvis_cu_sgm_down_ok(D, 1, stride) && !gvis_cu_sgm_up_ok(D, 1, stride));
    unsetenv("GVIS_SGM_DOWN");
    codes_free(&c);
    free(ref4), free(ref8), free(all4), free(all8), free(vol);
}

/* The pipeline on the sum volume (the 4K policy) against the CPU with GVIS_SGM_BAND=band:
 * D 128 and 64, min-disp 0 and -16, 8 and 4 paths, both costs and censuses, both lane
 * layouts. */
static void check_sum_pipelines(gvis_ctx *cpu, gvis_ctx *gpu, const char *band)
{
    setenv("GVIS_SGM_BAND", band, 1);
    for (int variant = 0; variant < 4; variant++) {
        gvis_sgm_params p;
        gvis_sgm_defaults(&p);
        p.max_disp = variant % 2 ? 64 : 128;
        p.min_disp = variant == 2 ? -16 : 0;
        p.paths = variant == 3 ? 4 : 8;
        p.cost = variant == 1 ? GVIS_COST_CENSUS : GVIS_COST_ADCENSUS;
        p.census = variant == 2 ? GVIS_CENSUS_9X7 : GVIS_CENSUS_SYM;
        setenv("GVIS_SGM_LANES", variant % 2 ? "32" : "8", 1);
        check_pipeline(cpu, gpu, 203 + variant, 97 - 2 * variant, 1, GVIS_U8, &p);
        unsetenv("GVIS_SGM_LANES");
    }
    unsetenv("GVIS_SGM_BAND");
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    gvis_ctx *cpu = t_cpu_ctx();
    job = gpu->job;
    stream = gvis_cu_job_stream(job);
    progress("start");
    t_seed(67);

    const int edges[][2] = {{1, 37}, {40, 1}, {29, 2}, {17, 53}, {131, 9}, {70, 33}};
    const size_t ne = sizeof edges / sizeof edges[0];
    for (size_t e = 0; e < ne; e++) {
        check_edges(edges[e][0], edges[e][1], e % 2 ? 16 : 48, e == 3 ? 4 : 8,
                    e % 3 == 1 ? GVIS_COST_CENSUS : GVIS_COST_ADCENSUS, (int)(e % 2));
        check_edges(edges[e][0], edges[e][1], e < 3 ? 80 : 144, 8, GVIS_COST_ADCENSUS, (int)(e + 1) % 2);
    }
    check_edges(9, 14, 512, 8, GVIS_COST_CENSUS, GVIS_CENSUS_SYM);
    /* the winner's sizes for the strips' fused pass (D 64, 128, 256) */
    check_edges(33, 41, 64, 8, GVIS_COST_ADCENSUS, GVIS_CENSUS_SYM);
    check_edges(131, 9, 128, 4, GVIS_COST_CENSUS, GVIS_CENSUS_9X7);
    check_edges(150, 19, 128, 8, GVIS_COST_ADCENSUS, GVIS_CENSUS_9X7);
    check_edges(70, 33, 256, 8, GVIS_COST_CENSUS, GVIS_CENSUS_SYM);
    /* rows of several segments of the winner (halos of 1 and 2 chunks) */
    check_edges(431, 6, 128, 8, GVIS_COST_ADCENSUS, GVIS_CENSUS_SYM);
    check_edges(397, 5, 256, 4, GVIS_COST_ADCENSUS, GVIS_CENSUS_9X7);
    check_edges(300, 4, 64, 8, GVIS_COST_CENSUS, GVIS_CENSUS_SYM);
    progress("band edges done");

    /* both row directions in one launch: 1x1, a row, odd and even widths (those under 11: every
     * crossing of the walks, where the second visits' loads begin), D 80 .. 128 */
    const int rows[][3] = {{1, 1, 128}, {2, 3, 128}, {3, 2, 96}, {631, 5, 128}, {640, 3, 80}, {97, 4, 112},
                           {5, 7, 128}, {4, 2, 128}, {6, 3, 96},  {7, 2, 128},   {8, 2, 112},  {9, 3, 128},
                           {10, 2, 80}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_rows(rows[i][0], rows[i][1], rows[i][2], i % 2 ? GVIS_COST_CENSUS : GVIS_COST_ADCENSUS,
                   i % 3 == 0 ? -3 : i % 3 == 1 ? 0 : 7);
    progress("rows done");

    /* the downward pass fused: 1x1, a column, one tile of 16 and less, two and three tiles
     * with W % 16 = 1 (shifted tiles), 2 and 3, many tiles, D 80 .. 128 */
    const int downs[][3] = {{1, 1, 128},  {1, 6, 96},   {2, 3, 128},  {16, 5, 128},  {17, 9, 80},    {18, 7, 128},
                            {33, 7, 112}, {34, 6, 128}, {51, 5, 96},  {97, 11, 128}, {631, 13, 128}, {300, 4, 96},
                            {40, 2, 128}, {65, 3, 96},  {203, 40, 128}};
    for (size_t i = 0; i < sizeof downs / sizeof downs[0]; i++)
        check_down(downs[i][0], downs[i][1], downs[i][2], i % 2 ? GVIS_COST_CENSUS : GVIS_COST_ADCENSUS,
                   i % 3 == 0 ? -3 : i % 3 == 1 ? 0 : 7);
    progress("down done");

    /* the pipeline on the sum volume: bands of 5 rows, one band, whole */
    setenv("GVIS_SGM_PER_PATH", "0", 1);
    check_sum_pipelines(cpu, gpu, "5");
    check_sum_pipelines(cpu, gpu, "1000");
    check_sum_pipelines(cpu, gpu, "0");
    unsetenv("GVIS_SGM_PER_PATH");
    progress("pipelines done");

    gvis_ctx_free(gpu);
    gvis_ctx_free(cpu);
    return t_done("test_cuda_sgm_band");
}
#endif
