/* Gaussian blur: the GPU against the CPU on awkward sizes, every border mode, channel
 * count and sample type.  u8 and u16 must match bit for bit, f32 within 1e-5. */
#include <math.h>
#include <string.h>

#include "gauss.h"
#include "testlib.h"

static double rel_diff(const gvis_image *a, const gvis_image *b)
{
    double m = 0;
    for (int y = 0; y < a->height; y++) {
        const float *p = GVIS_ROW(a, y), *q = GVIS_ROW(b, y);
        for (int i = 0; i < a->width * a->channels; i++) {
            if (!isfinite(p[i]) || !isfinite(q[i])) { /* inf and NaN must match in kind */
                int same = (isnan(p[i]) && isnan(q[i])) || p[i] == q[i];
                if (!same)
                    m = INFINITY;
                continue;
            }
            double d = fabs((double)p[i] - q[i]) / fmax(fabs((double)q[i]), 1.0);
            if (d > m || d != d)
                m = d != d ? INFINITY : d;
        }
    }
    return m;
}

static const char *border_names[] = {"reflect101", "replicate", "constant", "reflect", "wrap"};
static int cases;

static void compare(gvis_ctx *gpu, const gvis_image *img, const gvis_gauss_params *p)
{
    gvis_image got, want;
    if (getenv("GVIS_TEST_PROGRESS"))
        fprintf(stderr, "%s %dx%dx%d k %dx%d border %s\n", gvis_type_name(img->type), img->width, img->height,
                img->channels, p->ksize_x, p->ksize_y, border_names[p->border]);
    int rc = gvis_gauss(gpu, img, p, &got);
    CHECKF(rc == GVIS_OK, "gpu: %s", gvis_errmsg());
    if (rc)
        return;
    gvis_image_alloc(&want, img->width, img->height, img->channels, img->type, 0);
    CHECK_OK(gvis_gauss_cpu(img, p, &want));
    if (img->type == GVIS_F32)
        CHECKF(rel_diff(&got, &want) <= 1e-5, "f32 %dx%dx%d k %dx%d s %g border %s: rel diff %g", img->width,
               img->height, img->channels, p->ksize_x, p->ksize_y, p->sigma_x, border_names[p->border],
               rel_diff(&got, &want));
    else
        CHECKF(t_equal(&got, &want), "%s %dx%dx%d k %dx%d s %g border %s: max diff %g", gvis_type_name(img->type),
               img->width, img->height, img->channels, p->ksize_x, p->ksize_y, p->sigma_x, border_names[p->border],
               t_maxdiff(&got, &want));
    gvis_image_free(&got);
    gvis_image_free(&want);
    cases++;
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    t_seed(7);
    const int sizes[][2] = {{1, 1}, {1, 37}, {37, 1}, {3, 2}, {13, 11}, {631, 479}, {225, 17}, {1000, 3}};
    const int ks[][2] = {{5, 5}, {3, 3}, {7, 7}, {15, 15}, {31, 31}, {9, 3}, {1, 13}, {61, 61}, {255, 255}, {255, 7}};
    const gvis_type types[] = {GVIS_U8, GVIS_U16, GVIS_F32};
    const int quick = t_quick();
    int n = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 3; t++)
            for (int c = 1; c <= 4; c++) {
                if (c == 2)
                    continue;
                gvis_image img;
                /* odd rows get a padded stride (pitch != width) */
                t_make(&img, sizes[s][0], sizes[s][1], c, types[t], n % 3, n % 2 ? 64 : 0);
                for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++)
                    for (int b = 0; b < 5; b++) {
                        /* the large image gets every kernel with two borders only */
                        if (sizes[s][0] * sizes[s][1] > 100000 && (b + (int)k) % 3)
                            continue;
                        /* racecheck (quick 2): every kernel and type on every size, the
                         * borders taken in turn, and the large image only for 8 bits */
                        if (quick >= 2 && ((b != ((int)k + n) % 5) ||
                                           (sizes[s][0] * sizes[s][1] > 100000 && (types[t] != GVIS_U8 || k > 4))))
                            continue;
                        gvis_gauss_params p = {(k % 3) ? 0 : 2.2, 0, ks[k][0], ks[k][1], b, 0};
                        if (b == GVIS_BORDER_CONSTANT)
                            p.border_value = types[t] == GVIS_F32 ? -0.5 : types[t] == GVIS_U8 ? 31 : 50000;
                        compare(gpu, &img, &p);
                    }
                gvis_image_free(&img);
                n++;
            }
    /* wide kernels (issue 12): past the tile kernel's 255 taps, cuda/ops/gauss_wide.cu */
    const int wks[][2] = {{257, 257}, {301, 5}, {3, 513}, {1023, 1023}, {255, 257}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 3; t++)
            for (int c = 1; c <= 4; c++) {
                if (c == 2)
                    continue;
                gvis_image img;
                t_make(&img, sizes[s][0], sizes[s][1], c, types[t], n % 3, n % 2 ? 64 : 0);
                const int big = sizes[s][0] * sizes[s][1] > 100000;
                for (size_t k = 0; k < sizeof wks / sizeof wks[0]; k++)
                    for (int b = 0; b < 5; b++) {
                        /* two borders per kernel (one in the quick runs); 1023 taps on the
                         * large image for 8-bit gray only, and in the quick runs (the
                         * sanitizers) only 257 taps of 8 bits there */
                        if ((b + (int)k + n) % 5 > (quick ? 0 : 1) || (big && k == 3 && (t || c > 1)) ||
                            (big && quick && (k || t)))
                            continue;
                        gvis_gauss_params p = {0, 0, wks[k][0], wks[k][1], b, 0};
                        if (b == GVIS_BORDER_CONSTANT)
                            p.border_value = types[t] == GVIS_F32 ? -0.5 : types[t] == GVIS_U8 ? 31 : 50000;
                        compare(gpu, &img, &p);
                    }
                gvis_image_free(&img);
                n++;
            }
    /* sigmas 5 to 50 from the size rule, on a photo-sized image */
    if (!quick) {
        const double sig[] = {5, 12.5, 25, 50};
        for (int i = 0; i < 4; i++) {
            gvis_image big;
            t_make(&big, 1920, 1080, 3, GVIS_U8, 1, 0);
            gvis_gauss_params p = {sig[i], 0, 0, 0, GVIS_BORDER_REFLECT101, 0};
            compare(gpu, &big, &p);
            gvis_image_free(&big);
        }
    }
    /* float maps with inf, -inf and NaN (invalid disparities): every tap count, so that
     * the padded taps of each chunk width are met; a zero weight times inf must not
     * make NaN where the CPU keeps inf */
    for (int k = 1; k <= 9; k += 2)
        for (int b = 0; b < 5; b++) {
            gvis_image img;
            t_make(&img, 67, 23, k == 3 ? 3 : 1, GVIS_F32, 1, 0);
            for (int y = 0; y < img.height; y++) {
                float *r = GVIS_ROW(&img, y);
                for (int i = 0; i < img.width * img.channels; i++)
                    if ((i * 7 + y * 13) % 29 == 0)
                        r[i] = (y % 3 == 0) ? NAN : (y % 3 == 1) ? INFINITY : -INFINITY;
            }
            gvis_gauss_params p = {0, 0, k, k, b, 0};
            compare(gpu, &img, &p);
            gvis_image_free(&img);
        }
    /* sizes from sigma, sigma-y apart */
    gvis_image img;
    t_make(&img, 97, 61, 3, GVIS_U8, 1, 64);
    gvis_gauss_params p = {3.1, 1.2, 0, 0, GVIS_BORDER_REFLECT101, 0};
    compare(gpu, &img, &p);
    gvis_image_free(&img);
    /* The register-ring kernel (cuda/ops/gauss_rows.cu) takes 8-bit gray of 2 Mpixels and
     * more with 3 to 7 taps, 4 Mpixels with 9, 8 Mpixels with 11 to 15 (the 4K cases at the
     * end): every border, widths that are not a multiple of 4 nor of the 120 columns of a
     * warp, kernels of unequal sides, a horizontal identity (which it leaves to the tile
     * kernel), a tiny sigma.  GVIS_GAUSS_ROWS_MAXK=0 in the environment runs the tile
     * kernel instead; GVIS_GAUSS_ROWS_MIN_PIXELS=0 sends every 8-bit gray case of this file
     * with up to 15 taps to the register-ring kernel. */
    const int rsz[][2] = {{2053, 2049}, {4099, 1001}, {2048, 2048}};
    const int rk[][2] = {{5, 5}, {3, 3}, {5, 3}, {1, 5}, {3, 1}, {7, 7}, {9, 7}}; /* 9 taps: from 4 Mpixels */
    for (int s = 0; s < 3; s++) {
        if (quick >= 2 || (quick && s))
            continue;
        t_make(&img, rsz[s][0], rsz[s][1], 1, GVIS_U8, s == 1 ? 2 : 0, s == 1 ? 64 : 0);
        for (int k = 0; k < 7; k++)
            for (int b = 0; b < 5; b++) {
                if (quick && (k || b == 1 || b == 3))
                    continue;
                gvis_gauss_params q = {k == 4 ? 0.2 : 0, 0, rk[k][0], rk[k][1], b, b == GVIS_BORDER_CONSTANT ? 201 : 0};
                compare(gpu, &img, &q);
            }
        gvis_image_free(&img);
    }
    /* 11 to 15 taps, 8-bit gray, modest sizes: the tile kernel by default; with
     * GVIS_GAUSS_ROWS_MIN_PIXELS=0 the rows kernel's 11-, 13- and 15-tap templates (two halo lanes a side, 112 columns a warp): widths about a warp's
     * columns, below 8 and not a multiple of 4, kernels of unequal sides, every border. */
    const int wsz[][2] = {{1001, 233}, {113, 40}, {7, 31}, {230, 15}};
    const int wk[][2] = {{11, 11}, {13, 13}, {15, 15}, {15, 11}, {11, 13}, {13, 5}, {3, 15}};
    for (int s = 0; s < 4; s++) {
        if (quick >= 2 && s)
            continue;
        t_make(&img, wsz[s][0], wsz[s][1], 1, GVIS_U8, s % 3, s & 1 ? 64 : 0);
        for (int k = 0; k < 7; k++)
            for (int b = 0; b < 5; b++) {
                if (quick && (b + k) % 2)
                    continue;
                gvis_gauss_params q = {0, 0, wk[k][0], wk[k][1], b, b == GVIS_BORDER_CONSTANT ? 77 : 0};
                compare(gpu, &img, &q);
            }
        gvis_image_free(&img);
    }
    /* The shared-memory sums kernel (cuda/ops/gauss_vtile.cu) takes 8-bit gray with 13 to
     * 63 taps from 8 Mpixels (the 4K cases at the end); with GVIS_GAUSS_VTILE_MINK=3 and
     * GVIS_GAUSS_VTILE_MIN_PIXELS=0 in the environment every 8-bit gray case of this file
     * with up to 63 taps, these among them: tiles of 224 (31 taps) and 192 (63) columns,
     * so widths one past a tile, not a multiple of 4, a padded pitch; every border;
     * kernels in each template and padded into them, unequal sides, a vertical identity
     * (taken) and a horizontal one (left to the tile kernel).  GVIS_GAUSS_VTILE_MAXK=0
     * sends none of it. */
    const int vsz[][2] = {{1121, 1001}, {1345, 770}};
    const int vk[][2] = {{31, 31}, {17, 17}, {63, 63}, {47, 21}, {19, 45}, {63, 3}};
    for (int s = 0; s < 2; s++) {
        if (quick >= 2 && s)
            continue;
        t_make(&img, vsz[s][0], vsz[s][1], 1, GVIS_U8, s ? 0 : 1, s ? 64 : 0);
        for (int k = 0; k < 6; k++)
            for (int b = 0; b < 5; b++) {
                if (quick && (b + k) % 3)
                    continue;
                gvis_gauss_params q = {0, 0, vk[k][0], vk[k][1], b, b == GVIS_BORDER_CONSTANT ? 150 : 0};
                compare(gpu, &img, &q);
            }
        gvis_gauss_params vid = {5, 0.1, 31, 31, GVIS_BORDER_REFLECT101, 0}, hid = {0.1, 5, 31, 31, 0, 0};
        compare(gpu, &img, &vid);
        compare(gpu, &img, &hid);
        gvis_image_free(&img);
    }
    /* 4K: the benchmark shapes (GVIS_TEST_QUICK leaves them out, for the sanitizers) */
    if (quick) {
        CHECKF(cases > (quick >= 2 ? 200 : 1000), "only %d cases ran", cases);
        gvis_ctx_free(gpu);
        return t_done("test_cuda_gauss");
    }
    const int k4[] = {5, 15, 31};
    for (int c = 1; c <= 3; c += 2)
        for (int i = 0; i < 3; i++) {
            t_make(&img, 3840, 2160, c, GVIS_U8, 1, 0);
            gvis_gauss_params q = {0, 0, k4[i], k4[i], GVIS_BORDER_REFLECT101, 0};
            compare(gpu, &img, &q);
            gvis_image_free(&img);
        }
    /* 4K gray, 21 and 63 taps (15 and 31 above): the shared-memory sums kernel by default */
    t_make(&img, 3840, 2160, 1, GVIS_U8, 0, 0);
    for (int i = 0; i < 2; i++) {
        gvis_gauss_params q = {0, 0, i ? 63 : 21, i ? 63 : 21, i ? GVIS_BORDER_WRAP : GVIS_BORDER_CONSTANT, 40};
        compare(gpu, &img, &q);
    }
    gvis_image_free(&img);
    /* 11 and 13 taps on 4K gray (15 above): the rows kernel's wide templates by default */
    t_make(&img, 3840, 2160, 1, GVIS_U8, 1, 0);
    for (int i = 0; i < 2; i++) {
        gvis_gauss_params q = {0, 0, 11 + 2 * i, 13 - 2 * i, i ? GVIS_BORDER_REPLICATE : GVIS_BORDER_CONSTANT, 9};
        compare(gpu, &img, &q);
    }
    gvis_image_free(&img);
    t_make(&img, 3840, 2160, 1, GVIS_U16, 1, 0);
    gvis_gauss_params q16 = {0, 0, 9, 9, GVIS_BORDER_REPLICATE, 0};
    compare(gpu, &img, &q16);
    gvis_image_free(&img);
    t_make(&img, 3840, 2160, 4, GVIS_F32, 1, 0);
    gvis_gauss_params qf = {0, 0, 7, 7, GVIS_BORDER_WRAP, 0};
    compare(gpu, &img, &qf);
    gvis_image_free(&img);
    CHECKF(cases > 1000, "only %d cases ran", cases);
    gvis_ctx_free(gpu);
    return t_done("test_cuda_gauss");
}
