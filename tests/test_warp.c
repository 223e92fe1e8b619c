/* Unit tests of lib/warp.c and lib/ops/matrix.c: OpenCV goldens (exact), the CPU warp against
 * a naive per-pixel reference on awkward sizes, strides and matrices, the fused tensor
 * against the image, argument checks, and the matrix file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix.h"
#include "testlib.h"
#include "warp.h"

/* ---- a naive reference: cv2.warpAffine's arithmetic written out per pixel ---- */

static double ref_sample(const gvis_image *s, int x, int y, int c)
{
    const uint8_t *row = GVIS_ROW(s, y);
    size_t i = (size_t)x * s->channels + c;
    if (s->type == GVIS_U8)
        return row[i];
    if (s->type == GVIS_U16)
        return ((const uint16_t *)row)[i];
    return ((const float *)row)[i];
}

static void ref_store(gvis_image *d, int x, int y, int c, double v)
{
    uint8_t *row = GVIS_ROW(d, y);
    size_t i = (size_t)x * d->channels + c;
    if (d->type == GVIS_U8)
        row[i] = (uint8_t)v;
    else if (d->type == GVIS_U16)
        ((uint16_t *)row)[i] = (uint16_t)v;
    else
        ((float *)row)[i] = (float)v;
}

/* The border value as the sample type holds it (saturated, rounded half to even). */
static double ref_fill(const gvis_image *s, double f)
{
    if (s->type == GVIS_U8)
        return fmin(fmax(nearbyint(f), 0), 255);
    if (s->type == GVIS_U16)
        return fmin(fmax(nearbyint(f), 0), 65535);
    return (float)f;
}

static double ref_tap(const gvis_image *s, const gvis_warp_params *p, long long x, long long y, int c)
{
    if (x >= 0 && x < s->width && y >= 0 && y < s->height)
        return ref_sample(s, (int)x, (int)y, c);
    if (p->border == GVIS_WARP_CONSTANT)
        return ref_fill(s, p->fill[c]);
    x = x < 0 ? 0 : x >= s->width ? s->width - 1 : x;
    y = y < 0 ? 0 : y >= s->height ? s->height - 1 : y;
    return ref_sample(s, (int)x, (int)y, c);
}

static void ref_warp(const gvis_image *s, const gvis_warp_params *p, gvis_image *d)
{
    double M[6];
    if (gvis_warp_prepare(p, NULL, M) != GVIS_OK) {
        fprintf(stderr, "ref_warp: %s\n", gvis_errmsg());
        exit(1);
    }
    if (gvis_image_alloc(d, p->width, p->height, s->channels, s->type, 0))
        exit(1);
    const long long delta = p->interp == GVIS_WARP_NEAREST ? 512 : 16;
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++) {
            long long X = llrint(M[0] * x * 1024.0) + llrint((M[1] * y + M[2]) * 1024.0) + delta;
            long long Y = llrint(M[3] * x * 1024.0) + llrint((M[4] * y + M[5]) * 1024.0) + delta;
            for (int c = 0; c < s->channels; c++) {
                if (p->interp == GVIS_WARP_NEAREST) {
                    ref_store(d, x, y, c, ref_tap(s, p, X >> 10, Y >> 10, c));
                    continue;
                }
                long long xs = X >> 5, ys = Y >> 5;
                int a = (int)(xs & 31), b = (int)(ys & 31);
                long long sx = xs >> 5, sy = ys >> 5;
                if (p->border == GVIS_WARP_CONSTANT &&
                    (sx < -1 || sx >= s->width || sy < -1 || sy >= s->height)) {
                    ref_store(d, x, y, c, ref_fill(s, p->fill[c])); /* OpenCV: the value itself */
                    continue;
                }
                double v00 = ref_tap(s, p, sx, sy, c), v01 = ref_tap(s, p, sx + 1, sy, c);
                double v10 = ref_tap(s, p, sx, sy + 1, c), v11 = ref_tap(s, p, sx + 1, sy + 1, c);
                if (s->type == GVIS_U8) {
                    long long acc = (long long)v00 * (32 - a) * (32 - b) + (long long)v01 * a * (32 - b) +
                                    (long long)v10 * (32 - a) * b + (long long)v11 * a * b;
                    ref_store(d, x, y, c, (double)((acc + 512) >> 10));
                } else {
                    float tx1 = a / 32.f, tx0 = 1.f - tx1, ty1 = b / 32.f, ty0 = 1.f - ty1;
                    float w0 = ty0 * tx0, w1 = ty0 * tx1, w2 = ty1 * tx0, w3 = ty1 * tx1;
                    float acc = (float)v00 * w0;
                    acc = acc + (float)v01 * w1;
                    acc = acc + (float)v10 * w2;
                    acc = acc + (float)v11 * w3;
                    if (s->type == GVIS_U16) {
                        long r = lrintf(acc);
                        ref_store(d, x, y, c, r < 0 ? 0 : r > 65535 ? 65535 : r);
                    } else {
                        ref_store(d, x, y, c, acc);
                    }
                }
            }
        }
}

/* ---- helpers ---- */

static void random_matrix(double m[6], int sw, int sh, int dw, int dh)
{
    double ang = (t_uniform() * 2 - 1) * M_PI, s = exp((t_uniform() * 2 - 1) * 1.5), sh_ = t_uniform() - 0.5;
    double sy = s * (0.7 + 0.6 * t_uniform());
    double a = cos(ang) * s, b = -sin(ang) * s, c = sin(ang) * s, d = cos(ang) * s;
    /* R * [[1, shear], [0, sy/s]] */
    double r00 = a, r01 = a * sh_ + b * sy / s, r10 = c, r11 = c * sh_ + d * sy / s;
    m[0] = r00;
    m[1] = r01;
    m[3] = r10;
    m[4] = r11;
    /* the source centre goes near the destination centre */
    m[2] = dw / 2.0 - (r00 * sw / 2.0 + r01 * sh / 2.0) + (t_uniform() - 0.5) * 8;
    m[5] = dh / 2.0 - (r10 * sw / 2.0 + r11 * sh / 2.0) + (t_uniform() - 0.5) * 8;
}

static int load_file(const char *dir, const char *name, gvis_image *img)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/warp/%s", dir, name);
    gvis_buf b = {0};
    int rc = gvis_read_file(path, &b, 0);
    if (!rc)
        rc = gvis_image_decode(b.data, b.len, NULL, img);
    gvis_buf_free(&b);
    if (rc)
        fprintf(stderr, "%s: %s\n", path, gvis_errmsg());
    return rc;
}

/* ---- tests ---- */

static void test_goldens(gvis_ctx *ctx)
{
    const char *dir = getenv("TESTDATA");
    CHECKF(dir != NULL, "TESTDATA is not set");
    if (!dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/warp/cases.txt", dir);
    FILE *f = fopen(path, "r");
    CHECKF(f != NULL, "cannot open %s", path);
    if (!f)
        return;
    char src_name[256], exp_name[256];
    int interp, border, inverse, W, H, ncases = 0;
    double fill[4], m[6];
    while (fscanf(f, "%255s %255s %d %d %d %d %d %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", src_name, exp_name, &interp,
                  &border, &inverse, &W, &H, &fill[0], &fill[1], &fill[2], &fill[3], &m[0], &m[1], &m[2], &m[3], &m[4],
                  &m[5]) == 17) {
        ncases++;
        gvis_image src = {0}, exp = {0}, out = {0}, ref = {0};
        if (load_file(dir, src_name, &src) || load_file(dir, exp_name, &exp)) {
            CHECKF(0, "golden %s unreadable", exp_name);
            continue;
        }
        gvis_warp_params p = {.inverse = inverse, .width = W, .height = H, .interp = interp, .border = border};
        memcpy(p.m, m, sizeof m);
        memcpy(p.fill, fill, sizeof fill);
        CHECK_OK(gvis_warp(ctx, &src, &p, &out));
        CHECKF(out.data && t_equal(&out, &exp), "%s: differs from OpenCV by up to %g", exp_name,
               out.data ? t_maxdiff(&out, &exp) : -1.0);
        ref_warp(&src, &p, &ref);
        CHECKF(t_equal(&ref, &exp), "%s: the naive reference differs from OpenCV by %g", exp_name, t_maxdiff(&ref, &exp));
        if (strcmp(exp_name, "exp_letterbox.png") == 0) {
            /* the same letterbox as a tensor: CHW, BGR, 1/255, ImageNet mean and std */
            gvis_tensor_params t = {.layout = GVIS_TENSOR_CHW, .bgr = 1, .scale = 1 / 255.0,
                                    .mean = {0.485, 0.456, 0.406, 0}, .std = {0.229, 0.224, 0.225, 1}};
            gvis_array a = {0};
            CHECK_OK(gvis_warp_tensor(ctx, &src, &p, &t, &a));
            gvis_buf b = {0};
            snprintf(path, sizeof path, "%s/warp/letterbox_chw.npy", dir);
            gvis_array e = {0};
            CHECK_OK(gvis_read_file(path, &b, 0));
            CHECK_OK(gvis_npy_decode(b.data, b.len, 0, &e));
            CHECK(a.ndim == 3 && e.ndim == 3 && a.shape[0] == 3 && a.shape[1] == 64 && a.shape[2] == 64);
            CHECK(a.nbytes == e.nbytes && a.data && e.data && memcmp(a.data, e.data, a.nbytes) == 0);
            gvis_array_free(&a);
            gvis_array_free(&e);
            gvis_buf_free(&b);
        }
        gvis_image_free(&src);
        gvis_image_free(&exp);
        gvis_image_free(&out);
        gvis_image_free(&ref);
    }
    fclose(f);
    CHECKF(ncases >= 15, "only %d golden cases read", ncases);
}

/* The CPU warp against the naive reference: every type, channel count, mode; awkward
 * sizes; padded strides; scales from strong reduction to strong enlargement. */
static void test_random(gvis_ctx *ctx)
{
    static const int sizes[][2] = {{1, 1}, {1, 17}, {23, 1}, {2, 2}, {31, 7}, {64, 48}, {97, 61}, {631, 479}};
    const gvis_type types[] = {GVIS_U8, GVIS_U16, GVIS_F32};
    const int chans[] = {1, 3, 4};
    int n = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int ti = 0; ti < 3; ti++)
            for (int ci = 0; ci < 3; ci++) {
                int sw = sizes[si][0], sh = sizes[si][1];
                if (sw * sh > 1000 && (ti || ci != 1))
                    continue; /* the large size: u8 RGB only, to keep the test quick */
                gvis_image src;
                t_make(&src, sw, sh, chans[ci], types[ti], n % 2 ? 1 : 0, n % 3 ? 1 : 64);
                for (int k = 0; k < 4; k++, n++) {
                    gvis_warp_params p = {0};
                    p.width = 1 + (int)(t_uniform() * (sw * 2 + 40));
                    p.height = 1 + (int)(t_uniform() * (sh * 2 + 40));
                    if (sw * sh > 1000)
                        p.width = 640, p.height = 640;
                    random_matrix(p.m, sw, sh, p.width, p.height);
                    p.interp = k & 1;
                    p.border = (k >> 1) & 1;
                    p.inverse = n % 5 == 0;
                    for (int c = 0; c < 4; c++)
                        p.fill[c] = types[ti] == GVIS_F32 ? t_uniform() * 10 - 5 : floor(t_uniform() * 300);
                    gvis_image out = {0}, ref = {0};
                    CHECK_OK(gvis_warp(ctx, &src, &p, &out));
                    ref_warp(&src, &p, &ref);
                    CHECKF(out.data && t_equal(&out, &ref),
                           "%dx%d c%d %s -> %dx%d interp %d border %d: differs from the reference by %g", sw, sh,
                           chans[ci], gvis_type_name(types[ti]), p.width, p.height, p.interp, p.border,
                           out.data ? t_maxdiff(&out, &ref) : -1.0);
                    gvis_image_free(&out);
                    gvis_image_free(&ref);
                }
                gvis_image_free(&src);
            }
}

/* Letterbox (axis-aligned, the vector path) at several ratios, against the reference. */
static void test_letterbox(gvis_ctx *ctx)
{
    static const int cases[][4] = {{640, 480, 320, 320}, {333, 777, 64, 96}, {50, 20, 640, 640}, {1280, 720, 640, 640}};
    for (int i = 0; i < 4; i++)
        for (int ci = 1; ci <= 4; ci++) {
            if (ci == 2)
                continue;
            gvis_image src, out = {0}, ref = {0};
            t_make(&src, cases[i][0], cases[i][1], ci, GVIS_U8, 1, i & 1 ? 64 : 1);
            /* bilinear constant (the letterbox), then the other modes on the same map */
            gvis_warp_params p = {.width = cases[i][2], .height = cases[i][3], .interp = (ci == 4 && i > 1) ? 0 : 1,
                                  .border = (i == 3 && ci == 1) ? 1 : 0, .fill = {114, 114, 114, 255}};
            gvis_letterbox_matrix(src.width, src.height, p.width, p.height, p.m);
            CHECK_OK(gvis_warp(ctx, &src, &p, &out));
            ref_warp(&src, &p, &ref);
            CHECKF(out.data && t_equal(&out, &ref), "letterbox %dx%d c%d -> %dx%d interp %d border %d differs by %g",
                   src.width, src.height, ci, p.width, p.height, p.interp, p.border,
                   out.data ? t_maxdiff(&out, &ref) : -1.0);
            gvis_image_free(&src);
            gvis_image_free(&out);
            gvis_image_free(&ref);
        }
    /* 16-bit and float through the same axis-aligned rows */
    for (int k = 0; k < 4; k++) {
        gvis_image src, out = {0}, ref = {0};
        t_make(&src, 97, 61, k & 1 ? 3 : 1, k < 2 ? GVIS_U16 : GVIS_F32, 1, 1);
        gvis_warp_params p = {.width = 80, .height = 50, .interp = k != 3, .border = k == 2, .fill = {3, 4, 5, 6}};
        gvis_letterbox_matrix(src.width, src.height, p.width, p.height, p.m);
        CHECK_OK(gvis_warp(ctx, &src, &p, &out));
        ref_warp(&src, &p, &ref);
        CHECKF(out.data && t_equal(&out, &ref), "letterbox %s c%d differs by %g", gvis_type_name(src.type),
               src.channels, out.data ? t_maxdiff(&out, &ref) : -1.0);
        gvis_image_free(&src);
        gvis_image_free(&out);
        gvis_image_free(&ref);
    }
    double m[6];
    gvis_letterbox_matrix(3840, 2160, 640, 640, m);
    double s = 640.0 / 3840;
    CHECK(m[0] == s && m[4] == s && m[1] == 0 && m[3] == 0);
    CHECK(fabs(m[2] - (-s * 1920 + 320 + s / 2 - 0.5)) < 1e-12);
    CHECK(fabs(m[5] - (-s * 1080 + 320 + s / 2 - 0.5)) < 1e-12);
}

/* The tensor is the warped image put through v * (scale/std) + (-mean/std), per layout. */
static void test_tensor(gvis_ctx *ctx)
{
    const gvis_type types[] = {GVIS_U8, GVIS_U16, GVIS_F32};
    const int chans[] = {1, 3, 4};
    for (int ti = 0; ti < 3; ti++)
        for (int ci = 0; ci < 3; ci++)
            for (int layout = 0; layout < 2; layout++)
                for (int bgr = 0; bgr < 2; bgr++) {
                    int cn = chans[ci];
                    gvis_image src, img = {0};
                    t_make(&src, 45 + ti, 37 + ci, cn, types[ti], 1, 1);
                    gvis_warp_params p = {.width = 61 - layout, .height = 29 + bgr, .interp = GVIS_WARP_BILINEAR,
                                          .border = GVIS_WARP_CONSTANT, .fill = {114, 114, 114, 114}};
                    random_matrix(p.m, src.width, src.height, p.width, p.height);
                    gvis_tensor_params t = {.layout = layout, .bgr = bgr, .scale = 1 / 255.0,
                                            .mean = {0.1, 0.2, 0.3, 0.4}, .std = {0.5, 0.25, 2, 1}};
                    gvis_array a = {0};
                    CHECK_OK(gvis_warp(ctx, &src, &p, &img));
                    CHECK_OK(gvis_warp_tensor(ctx, &src, &p, &t, &a));
                    if (!a.data || !img.data)
                        continue;
                    CHECK(a.dtype == GVIS_DT_F32 && a.ndim == 3);
                    if (layout == GVIS_TENSOR_CHW)
                        CHECK(a.shape[0] == (size_t)cn && a.shape[1] == (size_t)p.height && a.shape[2] == (size_t)p.width);
                    else
                        CHECK(a.shape[0] == (size_t)p.height && a.shape[1] == (size_t)p.width && a.shape[2] == (size_t)cn);
                    const float *o = a.data;
                    int bad = 0;
                    for (int y = 0; y < p.height; y++)
                        for (int x = 0; x < p.width; x++)
                            for (int k = 0; k < cn; k++) {
                                int c = bgr && cn >= 3 && k < 3 ? 2 - k : k;
                                float av = (float)(t.scale / t.std[k]), bv = (float)(-t.mean[k] / t.std[k]);
                                float v = (float)ref_sample(&img, x, y, c);
                                v = v * av;
                                v = v + bv;
                                size_t i = layout == GVIS_TENSOR_CHW ? ((size_t)k * p.height + y) * p.width + x
                                                                     : ((size_t)y * p.width + x) * cn + k;
                                bad += o[i] != v;
                            }
                    CHECKF(bad == 0, "tensor %s c%d layout %d bgr %d: %d elements differ", gvis_type_name(types[ti]), cn,
                           layout, bgr, bad);
                    gvis_array_free(&a);
                    gvis_image_free(&img);
                    gvis_image_free(&src);
                }
}

static void test_args(gvis_ctx *ctx)
{
    gvis_image src, out = {0};
    t_make(&src, 20, 10, 3, GVIS_U8, 0, 1);
    gvis_warp_params p = {.m = {1, 0, 0, 0, 1, 0}, .width = 20, .height = 10, .interp = 1};
    CHECK_OK(gvis_warp(ctx, &src, &p, &out));
    CHECK(out.data && t_equal(&out, &src)); /* the identity */
    gvis_image_free(&out);
    gvis_warp_params q = p;
    q.m[0] = 2, q.m[1] = 4, q.m[3] = 1, q.m[4] = 2; /* singular */
    CHECK(gvis_warp(ctx, &src, &q, &out) == GVIS_E_ARG && strstr(gvis_errmsg(), "singular"));
    CHECK(out.data == NULL);
    q = p;
    q.m[2] = NAN;
    CHECK(gvis_warp(ctx, &src, &q, &out) == GVIS_E_ARG && strstr(gvis_errmsg(), "finite"));
    q = p;
    q.m[4] = INFINITY;
    CHECK(gvis_warp(ctx, &src, &q, &out) == GVIS_E_ARG);
    q = p;
    q.m[0] = q.m[4] = 1e-12; /* its inverse is absurd */
    CHECK(gvis_warp(ctx, &src, &q, &out) == GVIS_E_ARG && strstr(gvis_errmsg(), "singular"));
    q = p;
    q.width = 0;
    CHECK(gvis_warp(ctx, &src, &q, &out) == GVIS_E_ARG && strstr(gvis_errmsg(), "output size"));
    q = p;
    q.height = GVIS_WARP_MAX_SIDE + 1;
    CHECK(gvis_warp(ctx, &src, &q, &out) == GVIS_E_ARG);
    q = p;
    q.width = q.height = 60000; /* 3.6e9 pixels: over max_pixels */
    CHECK(gvis_warp(ctx, &src, &q, &out) == GVIS_E_ARG && strstr(gvis_errmsg(), "limit"));
    q = p;
    q.interp = 7;
    CHECK(gvis_warp(ctx, &src, &q, &out) == GVIS_E_ARG);
    q = p;
    q.border = 9;
    CHECK(gvis_warp(ctx, &src, &q, &out) == GVIS_E_ARG);
    gvis_tensor_params t = {.layout = 0, .scale = 1, .std = {1, 0, 1, 1}};
    gvis_array a = {0};
    CHECK(gvis_warp_tensor(ctx, &src, &p, &t, &a) == GVIS_E_ARG && a.data == NULL);
    t.std[1] = 1;
    t.layout = 5;
    CHECK(gvis_warp_tensor(ctx, &src, &p, &t, &a) == GVIS_E_ARG);
    t.layout = 0;
    t.scale = INFINITY;
    CHECK(gvis_warp_tensor(ctx, &src, &p, &t, &a) == GVIS_E_ARG);
    /* positions far outside (a huge translation): all border, no overflow */
    q = p;
    q.m[2] = 1e9;
    q.fill[0] = q.fill[1] = q.fill[2] = 77;
    CHECK_OK(gvis_warp(ctx, &src, &q, &out));
    int all = 1;
    for (int y = 0; out.data && y < out.height; y++)
        for (int x = 0; x < out.width * 3; x++)
            all &= ((uint8_t *)GVIS_ROW(&out, y))[x] == 77;
    CHECK(out.data && all);
    gvis_image_free(&out);
    q.border = GVIS_WARP_REPLICATE;
    q.m[2] = -1e9;
    CHECK_OK(gvis_warp(ctx, &src, &q, &out));
    gvis_image ref = {0};
    ref_warp(&src, &q, &ref);
    CHECK(out.data && t_equal(&out, &ref));
    gvis_image_free(&out);
    gvis_image_free(&ref);
    gvis_image_free(&src);
}

static void test_matrix_file(void)
{
    double m[6] = {0.5, 0.1, 3.25, -0.2, 0.75, -7}, inv[6], back[6];
    CHECK_OK(gvis_affine_invert(m, inv));
    CHECK_OK(gvis_affine_invert(inv, back));
    for (int i = 0; i < 6; i++)
        CHECKF(fabs(back[i] - m[i]) < 1e-12, "inverse of the inverse: %g vs %g", back[i], m[i]);
    /* x' = m(x): inv(x') = x */
    double x = 11.5, y = -4.25, xp = m[0] * x + m[1] * y + m[2], yp = m[3] * x + m[4] * y + m[5];
    CHECK(fabs(inv[0] * xp + inv[1] * yp + inv[2] - x) < 1e-12 && fabs(inv[3] * xp + inv[4] * yp + inv[5] - y) < 1e-12);
    double sing[6] = {1, 2, 0, 2, 4, 0};
    CHECK(gvis_affine_invert(sing, inv) == GVIS_E_ARG);

    char path[] = "/tmp/gvis_test_matrixXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    double f2[6], i2[6];
    CHECK_OK(gvis_affine_invert(m, inv));
    CHECK_OK(gvis_matrix_write(path, m, inv));
    CHECK_OK(gvis_matrix_read(path, f2, i2));
    CHECK(memcmp(f2, m, sizeof m) == 0 && memcmp(i2, inv, sizeof inv) == 0); /* %.17g round-trips */
    static const struct {
        const char *text;
        int ok;
    } files[] = {
        {"1 0 5\n0 1 -3\n", 1},                       /* numpy.savetxt of a 2x3 */
        {"# a comment\n\n2,0,1, 0,2,1\n", 1},          /* commas, comment, blank line */
        {"1 0 5 0 1 -3\n1 0 -5 0 1 3\n", 1},           /* forward and inverse */
        {"1 0 5 0 1 -3\n1 0 5 0 1 3\n", 0},            /* not inverses */
        {"1 0 5 0 1\n", 0},                            /* 5 numbers */
        {"1 0 5 0 1 3 4\n", 0},                        /* 7 */
        {"1 0 5 0 x 3\n", 0},                          /* garbage */
        {"1 2 0 2 4 0\n", 0},                          /* singular */
        {"1 0 nan 0 1 0\n", 0},                        /* not finite */
        {"1 0 1e999 0 1 0\n", 0},                      /* out of range */
        {"", 0},                                       /* empty */
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(files[i].text, f);
        fclose(f);
        int rc = gvis_matrix_read(path, f2, i2);
        CHECKF(files[i].ok ? rc == GVIS_OK : rc == GVIS_E_FORMAT, "matrix file %zu ('%s'): rc %d (%s)", i,
               files[i].text, rc, gvis_errmsg());
        if (i == 0 && rc == GVIS_OK)
            CHECK(f2[2] == 5 && f2[5] == -3 && i2[2] == -5 && i2[5] == 3);
    }
    unlink(path);
    CHECK(gvis_matrix_read("/nonexistent/gvis/matrix.txt", f2, i2) == GVIS_E_IO);
}

int main(void)
{
    gvis_ctx *ctx = t_cpu_ctx();
    test_goldens(ctx);
    test_random(ctx);
    test_letterbox(ctx);
    test_tensor(ctx);
    test_args(ctx);
    test_matrix_file();
    gvis_ctx_free(ctx);
    return t_done("test_warp");
}
