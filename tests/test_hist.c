/* Histograms and equalization on the CPU against naive references and OpenCV goldens. */
#include <string.h>

#include "hist.h"
#include "testlib.h"

static void naive_hist(const gvis_image *img, const gvis_hist_params *p, uint64_t *out, int nh)
{
    memset(out, 0, sizeof(uint64_t) * (size_t)nh * p->bins);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++) {
                if (p->channel >= 0 && c != p->channel)
                    continue;
                size_t i = (size_t)x * img->channels + c;
                uint32_t v = img->type == GVIS_U8 ? ((uint8_t *)GVIS_ROW(img, y))[i] : ((uint16_t *)GVIS_ROW(img, y))[i];
                if (v < p->lo || v >= p->hi)
                    continue;
                uint64_t b = (uint64_t)(v - p->lo) * p->bins / (p->hi - p->lo);
                out[(size_t)(p->channel >= 0 ? 0 : c) * p->bins + b]++;
            }
}

static void check_hist(gvis_ctx *ctx, const gvis_image *img, const gvis_hist_params *p, const char *what)
{
    gvis_hist h;
    int rc = gvis_hist_compute(ctx, img, p, &h);
    CHECKF(rc == GVIS_OK, "%s: %s", what, gvis_errmsg());
    if (rc)
        return;
    int nh = p->channel >= 0 ? 1 : img->channels;
    uint64_t *ref = malloc(sizeof *ref * (size_t)nh * p->bins);
    naive_hist(img, p, ref, nh);
    CHECKF(h.channels == nh && h.bins == p->bins, "%s: shape", what);
    CHECKF(memcmp(ref, h.counts, sizeof *ref * (size_t)nh * p->bins) == 0, "%s %dx%dx%d ch %d bins %d: counts differ",
           what, img->width, img->height, img->channels, p->channel, p->bins);
    free(ref);
    gvis_hist_free(&h);
}

static void naive_equalize_gray(const gvis_image *in, gvis_image *out)
{
    uint32_t h[256] = {0};
    for (int y = 0; y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            h[((uint8_t *)GVIS_ROW(in, y))[x]]++;
    uint8_t lut[256];
    gvis_equalize_lut(h, (uint32_t)in->width * in->height, lut);
    gvis_image_alloc(out, in->width, in->height, 1, GVIS_U8, 0);
    for (int y = 0; y < in->height; y++)
        for (int x = 0; x < in->width; x++)
            ((uint8_t *)GVIS_ROW(out, y))[x] = lut[((uint8_t *)GVIS_ROW(in, y))[x]];
}

/* testdata/hist: inputs and cv2 outputs (scripts/gen_hist_golden.py). */
static void golden(gvis_ctx *ctx, const char *dir, const char *in, const char *want, int per_channel)
{
    char p1[1024], p2[1024];
    snprintf(p1, sizeof p1, "%s/hist/%s", dir, in);
    snprintf(p2, sizeof p2, "%s/hist/%s", dir, want);
    gvis_image a, b, e;
    int rc = gvis_load(ctx, p1, &a);
    CHECKF(rc == GVIS_OK, "%s: %s", p1, gvis_errmsg());
    if (rc)
        return;
    rc = gvis_load(ctx, p2, &b);
    CHECKF(rc == GVIS_OK, "%s: %s", p2, gvis_errmsg());
    if (!rc) {
        rc = gvis_equalize(ctx, &a, per_channel, &e);
        CHECKF(rc == GVIS_OK, "equalize %s: %s", in, gvis_errmsg());
        if (!rc) {
            CHECKF(t_equal(&e, &b), "equalize %s differs from OpenCV (max %g)", in, t_maxdiff(&e, &b));
            gvis_image_free(&e);
        }
        gvis_image_free(&b);
    }
    gvis_image_free(&a);
}

int main(void)
{
    t_seed(2);
    gvis_ctx *ctx = t_cpu_ctx();
    const int sizes[][2] = {{1, 1}, {1, 33}, {33, 1}, {7, 5}, {631, 479}, {1000, 3}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 1; c <= 4; c++) {
            if (c == 2)
                continue;
            for (int kind = 0; kind < 4; kind++) {
                gvis_image img;
                t_make(&img, sizes[s][0], sizes[s][1], c, GVIS_U8, kind, s % 2 ? 64 : 0);
                gvis_hist_params p;
                gvis_hist_defaults(&img, &p);
                check_hist(ctx, &img, &p, "u8");
                p.channel = c - 1;
                check_hist(ctx, &img, &p, "u8 one channel");
                /* other bins and ranges on 8 bits (issue 12): the 16-bit rule */
                p.bins = 64, p.channel = -1;
                check_hist(ctx, &img, &p, "u8 64 bins");
                p.bins = 7, p.lo = 13, p.hi = 250;
                check_hist(ctx, &img, &p, "u8 7 bins 13:250");
                p.bins = 1000, p.lo = 0, p.hi = 256, p.channel = c - 1;
                check_hist(ctx, &img, &p, "u8 1000 bins");
                gvis_image_free(&img);

                t_make(&img, sizes[s][0], sizes[s][1], c, GVIS_U16, kind, s % 2 ? 64 : 0);
                gvis_hist_defaults(&img, &p);
                check_hist(ctx, &img, &p, "u16");
                p.bins = 1000, p.lo = 1000, p.hi = 60001;
                check_hist(ctx, &img, &p, "u16 bins range");
                p.bins = 65536, p.lo = 0, p.hi = 65536, p.channel = 0;
                check_hist(ctx, &img, &p, "u16 65536 bins");
                p.bins = 7, p.lo = 32768, p.hi = 32790, p.channel = -1;
                check_hist(ctx, &img, &p, "u16 narrow");
                gvis_image_free(&img);
            }
        }

    /* parameter errors */
    gvis_image img;
    t_make(&img, 8, 8, 1, GVIS_U8, 0, 0);
    gvis_hist_params p;
    gvis_hist h;
    gvis_hist_defaults(&img, &p);
    p.channel = 1;
    CHECK(gvis_hist_compute(ctx, &img, &p, &h) == GVIS_E_ARG);
    gvis_hist_defaults(&img, &p);
    p.hi = 257; /* beyond 8-bit values */
    CHECK(gvis_hist_compute(ctx, &img, &p, &h) == GVIS_E_ARG);
    gvis_image_free(&img);
    t_make(&img, 8, 8, 1, GVIS_F32, 1, 0);
    gvis_hist_defaults(&img, &p);
    CHECK(gvis_hist_compute(ctx, &img, &p, &h) == GVIS_E_FORMAT);
    gvis_image e;
    CHECK(gvis_equalize(ctx, &img, 0, &e) == GVIS_E_FORMAT);
    gvis_image_free(&img);

    /* equalization: gray against the naive mapping on awkward sizes and kinds */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < 4; kind++) {
            gvis_image ref;
            t_make(&img, sizes[s][0], sizes[s][1], 1, GVIS_U8, kind, s % 2 ? 64 : 0);
            naive_equalize_gray(&img, &ref);
            CHECK_OK(gvis_equalize(ctx, &img, 0, &e));
            CHECKF(t_equal(&e, &ref), "equalize %dx%d kind %d", img.width, img.height, kind);
            gvis_image_free(&e);
            gvis_image_free(&ref);
            gvis_image_free(&img);
        }
    /* the OpenCV mapping on a hand-made histogram: two values */
    uint32_t hh[256] = {0};
    uint8_t lut[256];
    hh[10] = 3, hh[20] = 1;
    gvis_equalize_lut(hh, 4, lut);
    CHECK(lut[10] == 0 && lut[20] == 255);
    hh[20] = 0;
    gvis_equalize_lut(hh, 3, lut);
    CHECK(lut[10] == 10);

    const char *dir = getenv("TESTDATA");
    CHECKF(dir != NULL, "TESTDATA is not set");
    if (dir) {
        golden(ctx, dir, "random_gray.png", "random_gray_eq.png", 0);
        golden(ctx, dir, "smooth_gray.png", "smooth_gray_eq.png", 0);
        golden(ctx, dir, "skewed_gray.png", "skewed_gray_eq.png", 0);
        golden(ctx, dir, "constant_gray.png", "constant_gray_eq.png", 0);
        golden(ctx, dir, "smooth_rgb.png", "smooth_rgb_eq_luma.png", 0);
        golden(ctx, dir, "smooth_rgb.png", "smooth_rgb_eq_channels.png", 1);
        golden(ctx, dir, "random_rgba.png", "random_rgba_eq_luma.png", 0);
    }
    gvis_ctx_free(ctx);
    return t_done("test_hist");
}
