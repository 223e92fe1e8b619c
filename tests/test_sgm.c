/* SGM (gvis disparity) on the CPU: each fast stage against a naive reference written
 * from the rule in lib/stereo/sgm.h, on random data of awkward sizes, every D and min-disp
 * kind; the whole pipeline on synthetic shifted pairs; the parameter checks. */
#include <stdlib.h>
#include <string.h>

#include "sgm.h"
#include "testlib.h"

/* ---- naive references -------------------------------------------------- */

static unsigned pix(const gvis_image *g, int y, int x)
{
    y = y < 0 ? 0 : y >= g->height ? g->height - 1 : y;
    x = x < 0 ? 0 : x >= g->width ? g->width - 1 : x;
    return g->type == GVIS_U8 ? ((const uint8_t *)GVIS_ROW(g, y))[x] : ((const uint16_t *)GVIS_ROW(g, y))[x];
}

static uint64_t census_ref(const gvis_image *g, int y, int x, int census)
{
    uint64_t c = 0;
    for (int dy = -3; dy <= 3; dy++)
        for (int dx = -4; dx <= 4; dx++) {
            if (census == GVIS_CENSUS_9X7) {
                if (dy || dx)
                    c = c << 1 | (pix(g, y + dy, x + dx) < pix(g, y, x));
            } else if (dy < 0 || (dy == 0 && dx < 0)) {
                c = c << 1 | (pix(g, y + dy, x + dx) >= pix(g, y - dy, x - dx));
            }
        }
    return c;
}

static int16_t wta_ref(const uint16_t *s, int stride, int klo, int khi, int U, int sub, int M)
{
    /* s[k * stride] is the cost of k */
    if (klo > khi)
        return GVIS_SGM_INVALID(M);
    int k0 = klo;
    for (int k = klo; k <= khi; k++)
        if (s[k * stride] < s[k0 * stride])
            k0 = k;
    long best = s[k0 * stride];
    for (int k = klo; k <= khi; k++)
        if ((k < k0 - 1 || k > k0 + 1) && 256 * best > (long)U * s[k * stride])
            return GVIS_SGM_INVALID(M);
    int off = 0;
    if (sub && k0 > klo && k0 < khi) {
        double a = s[(k0 - 1) * stride], b = s[(k0 + 1) * stride], den = a + b - 2.0 * best;
        if (den > 0) {
            /* round half away from zero of 16 (a - b) / (2 den), computed exactly in integers */
            long n = 16 * (long)(a - b), d2 = 2 * (long)den;
            off = (int)(n >= 0 ? (n + d2 / 2) / d2 : -((-n + d2 / 2) / d2));
        }
    }
    return (int16_t)(16 * (M + k0) + off);
}

static int cmp16(const void *a, const void *b) { return *(const int16_t *)a - *(const int16_t *)b; }

/* ---- stage tests --------------------------------------------------------- */

static void test_gray(void)
{
    gvis_image rgb, g;
    CHECK_OK(gvis_image_alloc(&rgb, 4, 1, 3, GVIS_U8, 0));
    const uint8_t px[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 200, 30};
    memcpy(rgb.data, px, sizeof px);
    CHECK_OK(gvis_sgm_gray(&rgb, &g));
    const uint8_t *o = g.data;
    /* cv2.cvtColor(..., COLOR_RGB2GRAY) gives 76, 150, 29, 124 */
    CHECKF(o[0] == 76 && o[1] == 150 && o[2] == 29 && o[3] == 124, "grey %d %d %d %d", o[0], o[1], o[2], o[3]);
    gvis_image_free(&g);
    gvis_image_free(&rgb);
    gvis_image f;
    CHECK_OK(gvis_image_alloc(&f, 2, 2, 1, GVIS_F32, 0));
    CHECK(gvis_sgm_gray(&f, &g) == GVIS_E_FORMAT);
    gvis_image_free(&f);
}

static void test_census(void)
{
    const int sizes[][2] = {{1, 1}, {1, 13}, {13, 1}, {5, 4}, {37, 23}, {130, 9}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int bytes = 1; bytes <= 2; bytes++)
            for (int kind = 0; kind < 4; kind++)
                for (int census = 0; census < 2; census++) {
                    gvis_image g;
                    t_make(&g, sizes[s][0], sizes[s][1], 1, bytes == 1 ? GVIS_U8 : GVIS_U16, kind, s % 2 ? 64 : 0);
                    size_t n = (size_t)g.width * g.height;
                    uint64_t *c = malloc(n * 8);
                    gvis_sgm_census(g.data, g.stride, bytes, g.width, g.height, census, c);
                    int bad = 0;
                    for (int y = 0; y < g.height; y++)
                        for (int x = 0; x < g.width; x++)
                            bad += c[(size_t)y * g.width + x] != census_ref(&g, y, x, census);
                    CHECKF(bad == 0, "census %d %dx%d u%d kind %d: %d codes differ", census, g.width, g.height,
                           8 * bytes, kind, bad);
                    free(c);
                    gvis_image_free(&g);
                }
}

static void random_census(uint64_t *c, size_t n, int census)
{
    for (size_t i = 0; i < n; i++)
        c[i] = census == GVIS_CENSUS_9X7 ? t_rand() & ((1ull << 62) - 1) : t_rand() & ((1ull << 31) - 1);
}

static void test_aggregate(void)
{
    const int sizes[][2] = {{17, 1}, {16, 9}, {41, 23}, {70, 31}};
    const int Ds[] = {16, 48, 64};
    const int Ms[] = {0, -16, 16, -5};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t di = 0; di < sizeof Ds / sizeof Ds[0]; di++)
            for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++)
                for (int variant = 0; variant < 5; variant++) {
                    const int W = sizes[s][0], H = sizes[s][1];
                    gvis_sgm_params p;
                    gvis_sgm_defaults(&p);
                    p.max_disp = Ds[di];
                    p.min_disp = Ms[mi];
                    /* 0-2: census costs; 3, 4: ad-census (sym, 9x7) */
                    p.census = variant == 1 || variant == 4 ? GVIS_CENSUS_9X7 : GVIS_CENSUS_SYM;
                    p.cost = variant >= 3 ? GVIS_COST_ADCENSUS : GVIS_COST_CENSUS;
                    p.paths = variant == 2 ? 4 : 8;
                    p.p2_adapt = variant == 2 ? 0 : 8;
                    if (variant == 1 || variant == 4) {
                        p.p1 = 40;
                        p.p2 = 255 - gvis_sgm_cost_max(&p); /* the limit: path costs reach 255 */
                    }
                    const size_t n = (size_t)W * H, cells = n * p.max_disp;
                    uint64_t *cl = malloc(n * 8), *cr = malloc(n * 8);
                    uint8_t *guide = malloc(n), *guide_r = malloc(n), *lr = malloc(cells);
                    uint16_t *ref = calloc(cells, 2), *sum = malloc(cells * 2), *s1 = malloc(cells * 2),
                             *s2 = malloc(cells * 2);
                    random_census(cl, n, p.census);
                    random_census(cr, n, p.census);
                    /* correlated right codes so that the paths see real minima */
                    for (size_t i = 0; i + 3 < n; i++)
                        if (t_rand() % 2)
                            cr[i] = cl[i + 3] ^ (1ull << (t_rand() % 31));
                    for (size_t i = 0; i < n; i++)
                        guide[i] = (uint8_t)(t_rand() % 4 ? t_rand() : 0);
                    /* right guide: near the left one shifted (small differences), else random */
                    for (size_t i = 0; i < n; i++)
                        guide_r[i] = (uint8_t)(i + 3 < n && t_rand() % 2 ? guide[i + 3] + t_rand() % 9 : t_rand());
                    int top = 0;
                    for (int dir = 0; dir < p.paths; dir++) {
                        gvis_sgm_path_ref(cl, cr, guide, guide, guide_r, W, H, &p, dir, lr);
                        for (size_t i = 0; i < cells; i++) {
                            ref[i] = (uint16_t)(ref[i] + lr[i]);
                            top = lr[i] > top ? lr[i] : top;
                        }
                    }
                    CHECK_OK(gvis_sgm_aggregate(cl, cr, guide, guide, guide_r, W, H, &p, sum, NULL));
                    CHECK_OK(gvis_sgm_aggregate(cl, cr, guide, guide, guide_r, W, H, &p, s1, s2));
                    size_t bad = 0, bad2 = 0;
                    for (size_t i = 0; i < cells; i++) {
                        bad += sum[i] != ref[i];
                        bad2 += (uint16_t)(s1[i] + s2[i]) != ref[i];
                    }
                    CHECKF(bad == 0 && bad2 == 0, "aggregate %dx%d D %d M %d variant %d: %zu / %zu cells differ", W, H,
                           p.max_disp, p.min_disp, variant, bad, bad2);
                    CHECKF(top <= gvis_sgm_cost_max(&p) + p.p2, "path cost %d over Cmax + P2", top);
                    free(cl), free(cr), free(guide), free(guide_r), free(lr), free(ref), free(sum), free(s1), free(s2);
                }
}

/* The ad-census cost rows (AVX2 and scalar) against the rule, awkward widths, every
 * min-disp kind; the tables: monotone, Cmax as documented. */
static void test_cost_adcensus(void)
{
    const int widths[] = {1, 2, 17, 63, 100, 631};
    const int Ds[] = {16, 48, 64, 128};
    const int Ms[] = {0, -16, 7, -300};
    for (int tables = 0; tables < 4; tables++) {
        const int census = tables & 1;
        uint8_t lc[64], la[64];
        gvis_sgm_cost_luts(census, lc, la);
        if (tables >= 2) /* other tables (the general lookup path): random steps from 0 */
            for (int i = 1; i < 64; i++) {
                lc[i] = (uint8_t)(lc[i - 1] + t_rand() % 2);
                la[i] = (uint8_t)(la[i - 1] + t_rand() % 2);
            }
        int mono = 1;
        for (int i = 1; i < 64; i++)
            mono &= lc[i] >= lc[i - 1] && la[i] >= la[i - 1];
        CHECKF(mono && lc[0] == 0 && la[0] == 0, "census %d: tables not monotone from 0", census);
        const int cmax = gvis_sgm_cost_luts_max(lc, la);
        CHECKF(tables >= 2 || cmax == (census == GVIS_CENSUS_9X7 ? 70 : 35), "census %d: Cmax %d", census, cmax);
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
            for (size_t di = 0; di < sizeof Ds / sizeof Ds[0]; di++)
                for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++) {
                    const int W = widths[wi], D = Ds[di], M = Ms[mi];
                    uint64_t *cl = malloc((size_t)W * 8), *cr = malloc((size_t)W * 8);
                    uint8_t *gl = malloc((size_t)W), *gr = malloc((size_t)W);
                    uint8_t *o1 = malloc((size_t)W * D), *o2 = malloc((size_t)W * D);
                    uint8_t *scratch = malloc(gvis_sgm_cost_row_scratch(W, D));
                    random_census(cl, (size_t)W, census);
                    random_census(cr, (size_t)W, census);
                    for (int x = 0; x < W; x++) {
                        gl[x] = (uint8_t)t_rand();
                        gr[x] = (uint8_t)(t_rand() % 3 ? gl[(x + 2) % W] + t_rand() % 70 : t_rand());
                    }
                    gvis_sgm_cost_row_adcensus(cl, cr, gl, gr, W, D, M, census, lc, la, o1, scratch);
                    gvis_sgm_cost_row_adcensus(cl, cr, gl, gr, W, D, M, census, lc, la, o2, NULL);
                    size_t bad1 = 0, bad2 = 0;
                    for (int x = 0; x < W; x++)
                        for (int k = 0; k < D; k++) {
                            int xr = x - M - k;
                            xr = xr < 0 ? 0 : xr >= W ? W - 1 : xr;
                            int h = __builtin_popcountll(cl[x] ^ cr[xr]), a = abs(gl[x] - gr[xr]);
                            int want = lc[h] + la[a > 63 ? 63 : a];
                            bad1 += o1[(size_t)x * D + k] != want;
                            bad2 += o2[(size_t)x * D + k] != want;
                        }
                    CHECKF(bad1 == 0 && bad2 == 0, "ad-census row W %d D %d M %d census %d: %zu / %zu costs differ", W,
                           D, M, census, bad1, bad2);
                    free(cl), free(cr), free(gl), free(gr), free(o1), free(o2), free(scratch);
                }
    }
}

/* The guides' histograms (gvis_sgm_guide_hist, counted on replicas) against a count one
 * sample at a time: 8- and 16-bit, awkward sizes, rows with padding, every kind of content. */
static void test_guide_hist(void)
{
    const int sizes[][2] = {{1, 1}, {7, 3}, {9, 1}, {1, 9}, {631, 479}, {1242, 375}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < 4; kind++)
            for (int t = 0; t < 2; t++) {
                gvis_image g;
                t_make(&g, sizes[s][0], sizes[s][1], 1, t ? GVIS_U16 : GVIS_U8, kind, s % 2 ? 64 : 0);
                uint64_t want[256] = {0}, got[256];
                for (int y = 0; y < g.height; y++)
                    for (int x = 0; x < g.width; x++)
                        want[t ? ((const uint16_t *)GVIS_ROW(&g, y))[x] >> 8 : ((const uint8_t *)GVIS_ROW(&g, y))[x]]++;
                gvis_sgm_guide_hist(&g, got);
                CHECKF(memcmp(want, got, sizeof want) == 0, "guide histogram %dx%d %s kind %d differs", g.width,
                       g.height, t ? "u16" : "u8", kind);
                gvis_image_free(&g);
            }
}

/* R of step 3: identity for equal histograms; undoes a gain and offset within a level. */
static void test_ad_remap(void)
{
    gvis_image a, b;
    CHECK_OK(gvis_image_alloc(&a, 97, 31, 1, GVIS_U8, 0));
    CHECK_OK(gvis_image_alloc(&b, 97, 31, 1, GVIS_U8, 0));
    for (int y = 0; y < 31; y++)
        for (int x = 0; x < 97; x++) {
            int v = 20 + (int)(t_rand() % 200);
            ((uint8_t *)GVIS_ROW(&a, y))[x] = (uint8_t)v;
            ((uint8_t *)GVIS_ROW(&b, y))[x] = (uint8_t)(0.8 * v + 10 + 0.5);
        }
    uint64_t ha[256], hb[256];
    uint8_t lut[256];
    gvis_sgm_guide_hist(&a, ha);
    gvis_sgm_guide_hist(&b, hb);
    gvis_sgm_ad_remap_lut(ha, ha, lut);
    int id = 1;
    for (int i = 0; i < 256; i++)
        id &= lut[i] == i;
    CHECK(id);
    gvis_sgm_ad_remap_lut(ha, hb, lut);
    int worst = 0;
    for (int v = 20; v < 220; v++) {
        int e = abs(lut[(int)(0.8 * v + 10 + 0.5)] - v);
        worst = e > worst ? e : worst;
    }
    CHECKF(worst <= 1, "remap misses a gain of 0.8 by %d levels", worst);
    /* a flat right view: identity gain, means matched */
    memset(hb, 0, sizeof hb);
    hb[77] = 97 * 31;
    gvis_sgm_ad_remap_lut(ha, hb, lut);
    CHECK(abs(lut[77] - 120) <= 2);
    gvis_image_free(&a);
    gvis_image_free(&b);
}

static void test_path_first_pixel(void)
{
    /* On a path's first pixel Lr is the bare cost; with P1 = P2 = 0 every Lr is the
     * cost plus the previous minimum minus itself, i.e. the bare cost too. */
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    p.max_disp = 16;
    p.p1 = p.p2 = 0;
    p.cost = GVIS_COST_CENSUS;
    const int W = 23, H = 7;
    uint64_t cl[23 * 7], cr[23 * 7];
    uint8_t guide[23 * 7] = {0}, lr[23 * 7 * 16];
    random_census(cl, (size_t)W * H, 1);
    random_census(cr, (size_t)W * H, 1);
    for (int dir = 0; dir < 8; dir++) {
        gvis_sgm_path_ref(cl, cr, guide, NULL, NULL, W, H, &p, dir, lr);
        int bad = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int k = 0; k < 16; k++) {
                    int xr = x - k < 0 ? 0 : x - k;
                    bad += lr[((size_t)y * W + x) * 16 + k] != __builtin_popcountll(cl[y * W + x] ^ cr[y * W + xr]);
                }
        CHECKF(bad == 0, "dir %d: P1 = P2 = 0 is not the bare cost (%d)", dir, bad);
    }
}

static void test_wta(void)
{
    const int sizes[][2] = {{16, 1}, {33, 5}, {80, 7}};
    const int Ds[] = {16, 32, 48, 64, 128};
    const int Ms[] = {0, -16, 16, -3, 40};
    const double us[] = {1.0, 0.95, 0.5};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t di = 0; di < sizeof Ds / sizeof Ds[0]; di++)
            for (size_t mi = 0; mi < sizeof Ms / sizeof Ms[0]; mi++)
                for (int ui = 0; ui < 3; ui++)
                    for (int sub = 0; sub < 2; sub++) {
                        const int W = sizes[s][0], H = sizes[s][1], D = Ds[di], M = Ms[mi];
                        const size_t n = (size_t)W * H, cells = n * D;
                        uint16_t *sum = malloc(cells * 2), *s1 = malloc(cells * 2), *s2 = malloc(cells * 2);
                        for (size_t i = 0; i < cells; i++) {
                            /* small ranges make ties and near-ties common */
                            sum[i] = (uint16_t)(ui == 0 ? t_rand() % 2040 : 100 + t_rand() % 12);
                            s1[i] = (uint16_t)(t_rand() % (sum[i] + 1));
                            s2[i] = (uint16_t)(sum[i] - s1[i]);
                        }
                        int16_t *l = malloc(n * 2), *r = malloc(n * 2), *l2 = malloc(n * 2), *r2 = malloc(n * 2);
                        CHECK_OK(gvis_sgm_wta(sum, NULL, W, H, D, M, us[ui], sub, l, r));
                        CHECK_OK(gvis_sgm_wta(s1, s2, W, H, D, M, us[ui], sub, l2, NULL));
                        const int U = gvis_sgm_uniqueness_fixed(us[ui]);
                        int bad = 0, badr = 0, bad2 = 0;
                        for (int y = 0; y < H; y++)
                            for (int x = 0; x < W; x++) {
                                const uint16_t *row = sum + (size_t)y * W * D;
                                int klo = x - (W - 1) - M, khi = x - M;
                                klo = klo < 0 ? 0 : klo;
                                khi = khi > D - 1 ? D - 1 : khi;
                                int16_t e = wta_ref(row + (size_t)x * D, 1, klo, khi, U, sub, M);
                                bad += l[y * W + x] != e;
                                bad2 += l2[y * W + x] != e;
                                klo = -x - M;
                                khi = W - 1 - x - M;
                                klo = klo < 0 ? 0 : klo;
                                khi = khi > D - 1 ? D - 1 : khi;
                                /* right cost of k: left pixel x + M + k at k; stride D + 1 from (x + M) D */
                                const uint16_t *base = row + (long)(x + M) * D;
                                e = klo <= khi ? wta_ref(base, D + 1, klo, khi, U, sub, M) : GVIS_SGM_INVALID(M);
                                badr += r[y * W + x] != e;
                            }
                        CHECKF(bad == 0 && badr == 0 && bad2 == 0,
                               "wta %dx%d D %d M %d u %g sub %d: %d left, %d right, %d split differ", W, H, D, M,
                               us[ui], sub, bad, badr, bad2);
                        free(sum), free(s1), free(s2), free(l), free(r), free(l2), free(r2);
                    }
}

static void test_post(void)
{
    const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 3}, {37, 21}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int M = -16; M <= 16; M += 16) {
            const int W = sizes[s][0], H = sizes[s][1];
            const size_t n = (size_t)W * H;
            const int16_t inv = GVIS_SGM_INVALID(M);
            int16_t *a = malloc(n * 2), *b = malloc(n * 2), *o = malloc(n * 2), *o2 = malloc(n * 2),
                    *e = malloc(n * 2);
            for (size_t i = 0; i < n; i++) {
                a[i] = t_rand() % 5 == 0 ? inv : (int16_t)(16 * M + t_rand() % (16 * 12));
                b[i] = t_rand() % 5 == 0 ? inv : (int16_t)(16 * M + t_rand() % (16 * 12));
            }
            /* median */
            gvis_sgm_median(a, o, W, H);
            int bad = 0;
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    int16_t v = a[y * W + x];
                    if (x > 0 && y > 0 && x < W - 1 && y < H - 1) {
                        int16_t w[9];
                        for (int i = 0; i < 9; i++)
                            w[i] = a[(y + i / 3 - 1) * W + x + i % 3 - 1];
                        qsort(w, 9, 2, cmp16);
                        v = w[4];
                    }
                    bad += o[y * W + x] != v;
                }
            CHECKF(bad == 0, "median %dx%d: %d differ", W, H, bad);
            /* left-right check */
            for (int tol = 0; tol <= 2; tol++) {
                gvis_sgm_lrcheck(a, b, o, o2, W, H, M, tol);
                bad = 0;
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++) {
                        int v = a[y * W + x], w = b[y * W + x], ok = 0;
                        /* nearest whole disparity of v / 16, halves up */
                        int dv = v != inv ? (int)__builtin_floor((v + 8) / 16.0) : 0;
                        int xr = x - dv;
                        if (v != inv && xr >= 0 && xr < W && b[y * W + xr] != inv)
                            ok = abs(v - b[y * W + xr]) <= 16 * tol;
                        bad += o[y * W + x] != (ok ? v : inv);
                        ok = 0;
                        int dw = w != inv ? (int)__builtin_floor((w + 8) / 16.0) : 0;
                        int xl = x + dw;
                        if (w != inv && xl >= 0 && xl < W && a[y * W + xl] != inv)
                            ok = abs(w - a[y * W + xl]) <= 16 * tol;
                        bad += o2[y * W + x] != (ok ? w : inv);
                    }
                CHECKF(bad == 0, "lrcheck %dx%d M %d tol %d: %d differ", W, H, M, tol, bad);
            }
            /* fill */
            memcpy(o, a, n * 2);
            gvis_sgm_fill(o, W, H, inv);
            bad = 0;
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    int v = a[y * W + x];
                    if (v == inv) {
                        int l = x, r = x;
                        while (l >= 0 && a[y * W + l] == inv)
                            l--;
                        while (r < W && a[y * W + r] == inv)
                            r++;
                        if (l >= 0 && r < W)
                            v = a[y * W + l] < a[y * W + r] ? a[y * W + l] : a[y * W + r];
                        else if (l >= 0)
                            v = a[y * W + l];
                        else if (r < W)
                            v = a[y * W + r];
                    }
                    bad += o[y * W + x] != v;
                }
            CHECKF(bad == 0, "fill %dx%d: %d differ", W, H, bad);
            free(a), free(b), free(o), free(o2), free(e);
        }
}

/* A random texture and its copy shifted by d: the pipeline must find d. */
static void test_pipeline(gvis_ctx *ctx)
{
    const int W = 160, H = 60;
    for (int bytes = 1; bytes <= 2; bytes++)
        for (int M = -16; M <= 16; M += 16) {
            const int d = M + 9;
            gvis_image L, R;
            t_make(&R, W, H, 3, bytes == 1 ? GVIS_U8 : GVIS_U16, 0, 0);
            CHECK_OK(gvis_image_alloc(&L, W, H, 3, R.type, 0));
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    int xs = x - d < 0 ? 0 : x - d >= W ? W - 1 : x - d;
                    memcpy((uint8_t *)GVIS_ROW(&L, y) + (size_t)x * 3 * bytes,
                           (uint8_t *)GVIS_ROW(&R, y) + (size_t)xs * 3 * bytes, (size_t)3 * bytes);
                }
            gvis_sgm_params p;
            gvis_sgm_defaults(&p);
            p.max_disp = 32;
            p.min_disp = M;
            gvis_disp out, outr;
            CHECK_OK(gvis_sgm(ctx, &L, &R, &p, &out, &outr));
            int good = 0, total = 0;
            for (int y = 4; y < H - 4; y++)
                for (int x = 30; x < W - 30; x++) {
                    total++;
                    good += out.data[y * W + x] == 16 * d;
                }
            CHECKF(good > total * 95 / 100, "shift %d u%d: %d of %d pixels right", d, 8 * bytes, good, total);
            good = 0;
            for (int y = 4; y < H - 4; y++)
                for (int x = 30; x < W - 30; x++)
                    good += outr.data[y * W + x] == 16 * d;
            CHECKF(good > total * 95 / 100, "right view, shift %d: %d of %d pixels right", d, good, total);
            gvis_disp_free(&out);
            gvis_disp_free(&outr);
            gvis_image_free(&L);
            gvis_image_free(&R);
        }
}

static void test_errors(gvis_ctx *ctx)
{
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_OK);
    p.max_disp = 100;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    p.max_disp = 528;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    p.max_disp = 512;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_OK);
    CHECK(gvis_sgm_check(&p, 500, 480) == GVIS_E_ARG); /* wider than the image */
    gvis_sgm_defaults(&p);
    p.cost = GVIS_COST_CENSUS;
    p.p2 = 224;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_OK); /* sym: up to 224 */
    p.p2 = 225;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    p.census = GVIS_CENSUS_9X7;
    p.p2 = 194;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    /* ad-census: Cmax 31 + 4 (sym), 62 + 8 (9x7) */
    gvis_sgm_defaults(&p);
    CHECK(gvis_sgm_cost_max(&p) == 35);
    p.p2 = 220;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_OK);
    p.p2 = 221;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    p.census = GVIS_CENSUS_9X7;
    CHECK(gvis_sgm_cost_max(&p) == 70);
    p.p2 = 185;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_OK);
    p.p2 = 186;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    p.cost = 2;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    gvis_sgm_defaults(&p);
    p.p1 = 121;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    gvis_sgm_defaults(&p);
    p.uniqueness = 0;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    gvis_sgm_defaults(&p);
    p.min_disp = 700;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    p.paths = 6;
    CHECK(gvis_sgm_check(&p, 640, 480) == GVIS_E_ARG);
    /* mismatched pair */
    gvis_image a, b;
    t_make(&a, 64, 20, 1, GVIS_U8, 0, 0);
    t_make(&b, 65, 20, 1, GVIS_U8, 0, 0);
    gvis_sgm_defaults(&p);
    p.max_disp = 32;
    gvis_disp o;
    CHECK(gvis_sgm(ctx, &a, &b, &p, &o, NULL) == GVIS_E_FORMAT);
    gvis_image_free(&b);
    t_make(&b, 64, 20, 1, GVIS_U16, 0, 0);
    CHECK(gvis_sgm(ctx, &a, &b, &p, &o, NULL) == GVIS_E_FORMAT);
    gvis_image_free(&b);
    gvis_image_free(&a);
}

int main(void)
{
    gvis_ctx *ctx = t_cpu_ctx();
    t_seed(6);
    test_gray();
    test_census();
    test_aggregate();
    test_cost_adcensus();
    test_guide_hist();
    test_ad_remap();
    test_path_first_pixel();
    test_wta();
    test_post();
    test_pipeline(ctx);
    test_errors(ctx);
    gvis_ctx_free(ctx);
    return t_done("test_sgm");
}
