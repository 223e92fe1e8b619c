/* Gaussian blur on the CPU: kernels against OpenCV's, the blur against a naive 2-D
 * reference (exact integer sums), and against cv2.GaussianBlur goldens. */
#include <math.h>
#include <string.h>

#include "gauss.h"
#include "testlib.h"

/* OpenCV's borderInterpolate, written as OpenCV writes it (iterated reflections). */
static int border_interpolate(int p, int len, int mode)
{
    if ((unsigned)p < (unsigned)len)
        return p;
    if (mode == GVIS_BORDER_REPLICATE)
        return p < 0 ? 0 : len - 1;
    if (mode == GVIS_BORDER_REFLECT || mode == GVIS_BORDER_REFLECT101) {
        int delta = mode == GVIS_BORDER_REFLECT101;
        if (len == 1)
            return 0;
        do {
            if (p < 0)
                p = -p - 1 + delta;
            else
                p = len - 1 - (p - len) - delta;
        } while ((unsigned)p >= (unsigned)len);
        return p;
    }
    if (mode == GVIS_BORDER_WRAP) {
        if (p < 0)
            p -= ((p - len + 1) / len) * len;
        if (p >= len)
            p %= len;
        return p;
    }
    return -1;
}

static double sample(const gvis_image *img, int x, int y, int c)
{
    size_t i = (size_t)x * img->channels + c;
    switch (img->type) {
    case GVIS_U8:
        return ((const uint8_t *)GVIS_ROW(img, y))[i];
    case GVIS_U16:
        return ((const uint16_t *)GVIS_ROW(img, y))[i];
    default:
        return ((const float *)GVIS_ROW(img, y))[i];
    }
}

/* The 2-D sum of wy[j] * wx[i] * src over the window, exact for u8/u16 (int64). */
static void naive_blur(const gvis_image *src, const gvis_gauss_params *p, gvis_image *out)
{
    gvis_gauss_kernel k;
    CHECK_OK(gvis_gauss_make_kernel(p, src->width, src->height, src->type, &k));
    gvis_image_alloc(out, src->width, src->height, src->channels, src->type, 0);
    int32_t *ix = malloc(sizeof(int32_t) * (size_t)k.kx), *iy = malloc(sizeof(int32_t) * (size_t)k.ky);
    int bits = src->type == GVIS_U8 ? 8 : 16;
    double maxv = src->type == GVIS_U8 ? 255 : 65535;
    double bv = p->border_value;
    if (src->type != GVIS_F32) {
        gvis_gauss_taps_fixed(k.wx, k.kx, bits, ix);
        gvis_gauss_taps_fixed(k.wy, k.ky, bits, iy);
        bv = bv < 0 ? 0 : bv > maxv ? maxv : nearbyint(bv);
    }
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < src->channels; c++) {
                int64_t si = 0;
                double sf = 0;
                for (int j = 0; j < k.ky; j++) {
                    int yy = border_interpolate(y - k.ky / 2 + j, src->height, p->border);
                    for (int i = 0; i < k.kx; i++) {
                        int xx = border_interpolate(x - k.kx / 2 + i, src->width, p->border);
                        double v = yy < 0 || xx < 0 ? bv : sample(src, xx, yy, c);
                        if (src->type == GVIS_F32)
                            sf += (double)(float)k.wy[j] * (float)k.wx[i] * v;
                        else
                            si += (int64_t)iy[j] * ix[i] * (int64_t)v;
                    }
                }
                size_t o = (size_t)x * src->channels + c;
                if (src->type == GVIS_U8)
                    ((uint8_t *)GVIS_ROW(out, y))[o] = (uint8_t)((si + (1 << 15)) >> 16);
                else if (src->type == GVIS_U16)
                    ((uint16_t *)GVIS_ROW(out, y))[o] = (uint16_t)((si + ((int64_t)1 << 31)) >> 32);
                else
                    ((float *)GVIS_ROW(out, y))[o] = (float)sf;
            }
    free(ix);
    free(iy);
    gvis_gauss_kernel_free(&k);
}

/* Largest difference relative to max(|reference|, 1). */
static double rel_diff(const gvis_image *a, const gvis_image *ref)
{
    double m = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < a->channels; c++) {
                double r = sample(ref, x, y, c), d = fabs(sample(a, x, y, c) - r) / fmax(fabs(r), 1.0);
                if (d > m)
                    m = d;
            }
    return m;
}

static const char *border_names[] = {"reflect101", "replicate", "constant", "reflect", "wrap"};

static void check_blur(gvis_ctx *ctx, const gvis_image *img, const gvis_gauss_params *p)
{
    gvis_image got, ref;
    int rc = gvis_gauss(ctx, img, p, &got);
    CHECKF(rc == GVIS_OK, "%s", gvis_errmsg());
    if (rc)
        return;
    naive_blur(img, p, &ref);
    if (img->type == GVIS_F32)
        CHECKF(rel_diff(&got, &ref) <= 1e-5, "f32 %dx%dx%d k %dx%d s %g border %s: rel diff %g", img->width,
               img->height, img->channels, p->ksize_x, p->ksize_y, p->sigma_x, border_names[p->border],
               rel_diff(&got, &ref));
    else
        CHECKF(t_equal(&got, &ref), "%s %dx%dx%d k %dx%d s %g/%g border %s: max diff %g", gvis_type_name(img->type),
               img->width, img->height, img->channels, p->ksize_x, p->ksize_y, p->sigma_x, p->sigma_y,
               border_names[p->border], t_maxdiff(&got, &ref));
    gvis_image_free(&got);
    gvis_image_free(&ref);
}

static void check_taps(int n, double sigma, int bits, const int32_t *want)
{
    double *k = malloc(sizeof(double) * (size_t)n);
    int32_t *w = malloc(sizeof(int32_t) * (size_t)n);
    gvis_gauss_taps(n, sigma, k);
    gvis_gauss_taps_fixed(k, n, bits, w);
    int64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += w[i];
    CHECKF(sum == (int64_t)1 << bits, "taps %d sigma %g sum %lld", n, sigma, (long long)sum);
    if (want)
        CHECKF(memcmp(w, want, sizeof(int32_t) * (size_t)n) == 0, "taps %d sigma %g differ from OpenCV's", n, sigma);
    /* no negative tap (the 16-bit lanes of the 8-bit sums rely on it), however wide */
    int neg = 0;
    for (int i = 0; i < n; i++)
        neg += w[i] < 0;
    CHECKF(neg == 0, "taps %d sigma %g bits %d: %d negative", n, sigma, bits, neg);
    free(k);
    free(w);
}

static void kernels(void)
{
    /* 8-bit taps read back from cv2.GaussianBlur of an impulse (OpenCV 4.6) */
    static const int32_t k13[] = {1, 5, 10, 19, 30, 41, 44, 41, 30, 19, 10, 5, 1};
    static const int32_t k15[] = {1, 3, 6, 12, 20, 30, 36, 40, 36, 30, 20, 12, 6, 3, 1};
    static const int32_t k11s2[] = {2, 7, 17, 31, 45, 52, 45, 31, 17, 7, 2};
    static const int32_t k3s13[] = {77, 102, 77};
    static const int32_t k31s5[] = {0,  1,  0,  1,  2,  3,  4,  6, 7, 10, 13, 15, 17, 19, 20, 20,
                                    20, 19, 17, 15, 13, 10, 7, 6, 4, 3,  2,  1,  0,  1,  0};
    static const int32_t k9[] = {4, 13, 30, 51, 60, 51, 30, 13, 4};
    static const int32_t k5[] = {16, 64, 96, 64, 16};
    check_taps(13, 0, 8, k13);
    check_taps(15, 0, 8, k15);
    check_taps(11, 2.0, 8, k11s2);
    check_taps(3, 1.3, 8, k3s13);
    check_taps(31, 5.0, 8, k31s5);
    check_taps(9, 0, 8, k9);
    check_taps(5, 0, 8, k5);
    for (int n = 1; n <= 1023; n += n < 255 ? 2 : 38) {
        check_taps(n, 0, 8, NULL);
        check_taps(n, 0, 16, NULL);
        check_taps(n, n / 3.0 + 0.1, 16, NULL);
    }
    /* wide kernels, to the largest: sizes from sigma as for 8 and 16 bits */
    const double wide[] = {50, 120, 500, 3000, 30000, 174762};
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        check_taps((int)lrint(wide[i] * 6 + 1) | 1, wide[i], 8, NULL);
        if (wide[i] * 8 + 1 <= GVIS_GAUSS_MAX_KSIZE)
            check_taps((int)lrint(wide[i] * 8 + 1) | 1, wide[i], 16, NULL);
    }
    check_taps(GVIS_GAUSS_MAX_KSIZE, 0, 8, NULL);
    /* sigma from the size: 0.3 * ((n - 1) * 0.5 - 1) + 0.8 */
    double a[21], b[21];
    gvis_gauss_taps(21, 0, a);
    gvis_gauss_taps(21, 0.3 * ((21 - 1) * 0.5 - 1) + 0.8, b);
    double md = 0, sum = 0;
    for (int i = 0; i < 21; i++) {
        md = fmax(md, fabs(a[i] - b[i]));
        sum += a[i];
    }
    CHECKF(md < 1e-15 && fabs(sum - 1) < 1e-12, "sigma from size: %g", md);

    /* sizes from sigma: 8-bit round(6s + 1) | 1, else round(8s + 1) | 1 */
    gvis_gauss_params p = {2.0, 0, 0, 0, GVIS_BORDER_REFLECT101, 0};
    gvis_gauss_kernel k;
    CHECK_OK(gvis_gauss_make_kernel(&p, 100, 100, GVIS_U8, &k));
    CHECK(k.kx == 13 && k.ky == 13);
    gvis_gauss_kernel_free(&k);
    CHECK_OK(gvis_gauss_make_kernel(&p, 100, 100, GVIS_U16, &k));
    CHECK(k.kx == 17 && k.ky == 17);
    gvis_gauss_kernel_free(&k);
    CHECK_OK(gvis_gauss_make_kernel(&p, 100, 100, GVIS_F32, &k));
    CHECK(k.kx == 17);
    gvis_gauss_kernel_free(&k);
    p.sigma_y = 0.5;
    CHECK_OK(gvis_gauss_make_kernel(&p, 100, 100, GVIS_U8, &k));
    CHECK(k.kx == 13 && k.ky == 5 && k.sigma_y == 0.5);
    gvis_gauss_kernel_free(&k);
    /* one row or one column: no taps across it, unless the border is constant */
    CHECK_OK(gvis_gauss_make_kernel(&p, 100, 1, GVIS_U8, &k));
    CHECK(k.kx == 13 && k.ky == 1);
    gvis_gauss_kernel_free(&k);
    CHECK_OK(gvis_gauss_make_kernel(&p, 1, 100, GVIS_U8, &k));
    CHECK(k.kx == 1 && k.ky == 5);
    gvis_gauss_kernel_free(&k);
    p.border = GVIS_BORDER_CONSTANT;
    CHECK_OK(gvis_gauss_make_kernel(&p, 100, 1, GVIS_U8, &k));
    CHECK(k.ky == 5);
    gvis_gauss_kernel_free(&k);

    /* usage errors */
    gvis_gauss_params bad[] = {
        {0, 0, 0, 0, 0, 0},       /* nothing given */
        {-1, 0, 0, 0, 0, 0},      /* negative sigma */
        {1, -2, 0, 0, 0, 0},      /* negative sigma-y */
        {0, 0, 4, 4, 0, 0},       /* even */
        {0, 0, 1025, 1025, 0, 0}, /* too large for 10x10: max(1023, 81) */
        {0, 0, -3, 3, 0, 0},      /* negative */
        {171, 0, 0, 0, 0, 0},     /* 8-bit: 1027 taps, more than 1023 */
        {NAN, 0, 0, 0, 0, 0},     /* not finite */
        {1, 0, 0, 0, 7, 0},       /* no such border */
        {1, 0, 0, 0, 2, INFINITY} /* border value */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECKF(gvis_gauss_make_kernel(&bad[i], 10, 10, GVIS_U8, &k) == GVIS_E_ARG, "bad params %zu accepted", i);
    gvis_gauss_params ok255 = {42.0, 0, 0, 0, 0, 0}; /* 8-bit: round(253) | 1 = 253 taps */
    CHECK_OK(gvis_gauss_make_kernel(&ok255, 10, 10, GVIS_U8, &k));
    CHECK(k.kx == 253);
    gvis_gauss_kernel_free(&k);
    /* any sigma (issue 12): up to max(1023, 8 x longer side + 1) taps */
    CHECK_OK(gvis_gauss_make_kernel(&ok255, 10, 10, GVIS_F32, &k));
    CHECK(k.kx == 337 && k.ky == 337);
    gvis_gauss_kernel_free(&k);
    gvis_gauss_params s50 = {50.0, 0, 0, 0, 0, 0};
    CHECK_OK(gvis_gauss_make_kernel(&s50, 10, 10, GVIS_U8, &k));
    CHECK(k.kx == 301);
    gvis_gauss_kernel_free(&k);
    gvis_gauss_params s200 = {200.0, 0, 0, 0, 0, 0}; /* 1201 taps: more than 1023, fine from a side of 150 */
    CHECK(gvis_gauss_make_kernel(&s200, 149, 20, GVIS_U8, &k) == GVIS_E_ARG);
    CHECK(strstr(gvis_errmsg(), "1201 taps, at most max(1023, 8 x 149 + 1) = 1193 for a 149x20 image") != NULL);
    CHECK_OK(gvis_gauss_make_kernel(&s200, 20, 150, GVIS_U8, &k));
    CHECK(k.kx == 1201 && k.ky == 1201);
    gvis_gauss_kernel_free(&k);
    CHECK(gvis_gauss_max_ksize(1, 1) == 1023 && gvis_gauss_max_ksize(200, 3) == 1601 &&
          gvis_gauss_max_ksize(1 << 20, 5) == GVIS_GAUSS_MAX_KSIZE);
    gvis_gauss_params kmax = {0, 0, GVIS_GAUSS_MAX_KSIZE, 3, 0, 0};
    CHECK_OK(gvis_gauss_make_kernel(&kmax, 1 << 17, 2, GVIS_U16, &k));
    CHECK(k.kx == GVIS_GAUSS_MAX_KSIZE);
    gvis_gauss_kernel_free(&k);
    kmax.ksize_x += 2;
    CHECK(gvis_gauss_make_kernel(&kmax, 1 << 17, 2, GVIS_U16, &k) == GVIS_E_ARG);
    gvis_gauss_params huge = {1e7, 0, 0, 0, 0, 0};
    CHECK(gvis_gauss_make_kernel(&huge, 1 << 17, 2, GVIS_U16, &k) == GVIS_E_ARG);
    CHECK(strstr(gvis_errmsg(), "more than 1048575 taps") != NULL);
}

/* testdata/gauss/cases.tsv: cv2.GaussianBlur goldens (scripts/gen_gauss_golden.py). */
static void goldens(gvis_ctx *ctx, const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/gauss/cases.tsv", dir);
    FILE *f = fopen(path, "r");
    CHECKF(f != NULL, "cannot open %s", path);
    if (!f)
        return;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char in[128], want[128], border[32];
        gvis_gauss_params p = {0};
        if (sscanf(line, "%127s %127s %d %d %lf %lf %31s", in, want, &p.ksize_x, &p.ksize_y, &p.sigma_x, &p.sigma_y,
                   border) != 7) {
            CHECKF(0, "bad line in cases.tsv: %s", line);
            continue;
        }
        p.border = -1;
        for (int b = 0; b < 5; b++)
            if (!strcmp(border, border_names[b]))
                p.border = b;
        CHECKF(p.border >= 0, "unknown border %s", border);
        gvis_image a, b, e;
        char p1[1200], p2[1200];
        snprintf(p1, sizeof p1, "%s/gauss/%s", dir, in);
        snprintf(p2, sizeof p2, "%s/gauss/%s", dir, want);
        int rc = gvis_load(ctx, p1, &a);
        CHECKF(rc == GVIS_OK, "%s: %s", p1, gvis_errmsg());
        if (rc)
            continue;
        rc = gvis_load(ctx, p2, &b);
        CHECKF(rc == GVIS_OK, "%s: %s", p2, gvis_errmsg());
        if (!rc) {
            rc = gvis_gauss(ctx, &a, &p, &e);
            CHECKF(rc == GVIS_OK, "%s: %s", want, gvis_errmsg());
            if (!rc) {
                if (a.type == GVIS_F32)
                    CHECKF(rel_diff(&e, &b) <= 1e-5, "%s: relative difference %g from OpenCV", want, rel_diff(&e, &b));
                else /* OpenCV's fixed-point arithmetic, reproduced exactly */
                    CHECKF(t_equal(&e, &b), "%s: differs from OpenCV by up to %g", want, t_maxdiff(&e, &b));
                gvis_image_free(&e);
            }
            gvis_image_free(&b);
        }
        gvis_image_free(&a);
        n++;
    }
    fclose(f);
    CHECKF(n >= 52, "only %d golden cases", n); /* 38 to 51: wide kernels, sigma 5 to 50 */
}

int main(void)
{
    t_seed(3);
    gvis_ctx *ctx = t_cpu_ctx();
    kernels();

    const int sizes[][2] = {{1, 1}, {1, 19}, {19, 1}, {2, 3}, {7, 5}, {67, 45}, {100, 9}};
    const int ks[][2] = {{5, 5}, {3, 3}, {7, 7}, {15, 15}, {31, 31}, {9, 3}, {1, 11}, {61, 5}};
    const gvis_type types[] = {GVIS_U8, GVIS_U16, GVIS_F32};
    int n = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++)
            for (int t = 0; t < 3; t++)
                for (int c = 1; c <= 4; c++) {
                    if (c == 2)
                        continue;
                    gvis_image img;
                    t_make(&img, sizes[s][0], sizes[s][1], c, types[t], (int)(n % 3), n % 2 ? 64 : 0);
                    for (int b = 0; b < 5; b++) {
                        gvis_gauss_params p = {(n % 4) ? 0 : 1.7, 0, ks[k][0], ks[k][1], b, 0};
                        if (b == GVIS_BORDER_CONSTANT)
                            p.border_value = types[t] == GVIS_F32 ? 0.25 : types[t] == GVIS_U8 ? 200 : 40000;
                        check_blur(ctx, &img, &p);
                    }
                    gvis_image_free(&img);
                    n++;
                }
    /* sizes from sigma, with sigma-y, and 255 taps on a small image */
    gvis_image img;
    t_make(&img, 40, 31, 3, GVIS_U8, 1, 0);
    gvis_gauss_params p = {2.5, 0.8, 0, 0, GVIS_BORDER_REFLECT101, 0};
    check_blur(ctx, &img, &p);
    gvis_gauss_params big = {0, 0, 255, 255, GVIS_BORDER_REFLECT, 0};
    check_blur(ctx, &img, &big);
    big.border = GVIS_BORDER_WRAP;
    check_blur(ctx, &img, &big);
    /* a mismatched output is refused */
    gvis_image small;
    gvis_image_alloc(&small, 4, 4, 3, GVIS_U8, 0);
    CHECK(gvis_gauss_cpu(&img, &p, &small) == GVIS_E_ARG);
    gvis_image_free(&small);
    gvis_image_free(&img);

    const char *dir = getenv("TESTDATA");
    CHECKF(dir != NULL, "TESTDATA is not set");
    if (dir)
        goldens(ctx, dir);
    gvis_ctx_free(ctx);
    return t_done("test_gauss");
}
