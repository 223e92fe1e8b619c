#include "testlib.h"

#include <math.h>
#include <string.h>

int t_failures;
int t_checks;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

int t_done(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, t_checks, t_failures);
    return t_failures ? 1 : 0;
}

void t_seed(uint64_t seed)
{
    const char *e = getenv("GVIS_TEST_SEED");
    if (e && *e)
        seed = strtoull(e, NULL, 0);
    rng_state = seed ? seed : 1;
}

uint64_t t_rand(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng_state = x;
    return x * 0x2545f4914f6cdd1dull;
}

double t_uniform(void) { return (double)(t_rand() >> 11) * (1.0 / 9007199254740992.0); }

static double sample_value(int kind, int x, int y, int c, int w, int h, double r)
{
    switch (kind) {
    case 0: return r;
    case 1: {
        double fx = (double)x / (w > 1 ? w - 1 : 1), fy = (double)y / (h > 1 ? h - 1 : 1);
        double v = 0.35 * fx + 0.25 * fy + 0.2 * sin(9.0 * fx + 3.0 * c) * cos(7.0 * fy)
                 + 0.15 * ((fx - 0.5) * (fx - 0.5) + (fy - 0.3) * (fy - 0.3) < 0.05) + 0.05 * r;
        return v < 0 ? 0 : v > 1 ? 1 : v;
    }
    case 2: return (100.0 + (double)(t_rand() & 3)) / 255.0;
    default: return 0.5;
    }
}

void t_fill(gvis_image *img, int kind)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++) {
                double v = sample_value(kind, x, y, c, img->width, img->height, t_uniform());
                size_t i = (size_t)x * img->channels + c;
                if (img->type == GVIS_U8)
                    ((uint8_t *)GVIS_ROW(img, y))[i] = (uint8_t)(kind == 0 ? (long)(t_rand() >> 56) : lrint(v * 255));
                else if (img->type == GVIS_U16)
                    ((uint16_t *)GVIS_ROW(img, y))[i] = (uint16_t)(kind == 0 ? (long)(t_rand() >> 48) : lrint(v * 65535));
                else
                    ((float *)GVIS_ROW(img, y))[i] = (float)v;
            }
}

void t_make(gvis_image *img, int w, int h, int c, gvis_type type, int kind, size_t align)
{
    if (gvis_image_alloc(img, w, h, c, type, align) != GVIS_OK) {
        fprintf(stderr, "t_make %dx%dx%d: %s\n", w, h, c, gvis_errmsg());
        exit(1);
    }
    t_fill(img, kind);
}

static double sample_at(const gvis_image *img, int y, size_t i)
{
    switch (img->type) {
    case GVIS_U8: return ((const uint8_t *)GVIS_ROW(img, y))[i];
    case GVIS_U16: return ((const uint16_t *)GVIS_ROW(img, y))[i];
    default: return ((const float *)GVIS_ROW(img, y))[i];
    }
}

double t_maxdiff(const gvis_image *a, const gvis_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels || a->type != b->type)
        return INFINITY;
    double m = 0;
    for (int y = 0; y < a->height; y++)
        for (size_t i = 0; i < (size_t)a->width * a->channels; i++) {
            double d = fabs(sample_at(a, y, i) - sample_at(b, y, i));
            if (d > m || d != d)
                m = d != d ? INFINITY : d;
        }
    return m;
}

int t_equal(const gvis_image *a, const gvis_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels || a->type != b->type)
        return 0;
    size_t row = (size_t)a->width * a->channels * a->type;
    for (int y = 0; y < a->height; y++)
        if (memcmp(GVIS_ROW(a, y), GVIS_ROW(b, y), row) != 0)
            return 0;
    return 1;
}

int t_quick(void)
{
    const char *q = getenv("GVIS_TEST_QUICK");
    if (!q || !*q || strcmp(q, "0") == 0)
        return 0;
    int level = atoi(q);
    return level > 0 ? level : 1;
}

gvis_ctx *t_cuda_ctx_or_skip(void)
{
    int n = 0;
    char why[256] = "";
    if (!gvis_build_has_cuda()) {
        printf("skipped: built without CUDA\n");
        exit(77);
    }
    if (gvis_cuda_devices(&n, why, sizeof why) != GVIS_OK || n == 0) {
        printf("skipped: no usable CUDA device (%s)\n", why);
        exit(77);
    }
    gvis_ctx *ctx = NULL;
    if (gvis_ctx_create(&ctx, "cuda", 1, NULL, NULL, NULL) != GVIS_OK) {
        fprintf(stderr, "cuda context: %s\n", gvis_errmsg());
        exit(1);
    }
    /* the CUDA context starts on a thread of its own (ctx.c); an accessor settles it, so
     * that tests reading ctx->job directly find the job made */
    if (!gvis_ctx_on_cuda(ctx)) {
        fprintf(stderr, "cuda context: the device did not start (%s)\n", gvis_errmsg());
        exit(1);
    }
    return ctx;
}

gvis_ctx *t_cpu_ctx(void)
{
    gvis_ctx *ctx = NULL;
    if (gvis_ctx_create(&ctx, "cpu", 1, NULL, NULL, NULL) != GVIS_OK) {
        fprintf(stderr, "cpu context: %s\n", gvis_errmsg());
        exit(1);
    }
    return ctx;
}
