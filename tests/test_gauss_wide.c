/* The wide-kernel GPU path's arithmetic without a GPU: the very per-output functions that
 * cuda/ops/gauss_wide.cu runs (cuda/ops/gauss_wide.h, compiled here as host code), driven
 * over every output as the kernels' grids drive them, against the CPU blur on awkward
 * sizes, pitches, channel counts, sample types and every border.  u8 and u16 must match
 * bit for bit, f32 within 1e-5 relative.  The GPU itself: tests/test_cuda_gauss.c. */
#include <math.h>
#include <string.h>

#include "gauss.h"
#include "gauss_cpu.h"
#include "gauss_wide.h"
#include "testlib.h"

static const char *border_names[] = {"reflect101", "replicate", "constant", "reflect", "wrap"};
static int cases;

/* The description lib/ops/gauss.c hands the launchers (taps in one block: free() it). */
static float *make_desc(const gvis_image *img, const gvis_gauss_params *p, gvis_gauss_desc *d)
{
    float *taps;
    return gvis_gauss_desc_make(img, p, d, &taps) == GVIS_OK ? taps : NULL;
}

/* gvis_cu_gauss_wide's two grids, one output (run of rows) at a time. */
static void emulate(const gvis_image *src, const gvis_gauss_desc *d, gvis_image *dst)
{
    size_t taps, tpitch;
    size_t bytes = gvis_gauss_wide_layout(d, &taps, &tpitch);
    unsigned char *scratch = malloc(bytes);
    /* poison the sums: a sum the vertical pass does not write shows */
    memset(scratch, 0xff, bytes);
    gvis_gauss_wide_args a;
    a.src = src->data;
    a.spitch = src->stride;
    a.dst = dst->data;
    a.dpitch = dst->stride;
    a.tmp = scratch + taps;
    a.tpitch = tpitch;
    a.wx = d->wx; /* the device copies them to the scratch's head */
    a.wy = d->wy;
    a.width = d->width;
    a.height = d->height;
    a.channels = d->channels;
    a.ws = d->width * d->channels;
    a.kx = d->kx;
    a.ky = d->ky;
    a.rx = d->kx / 2;
    a.ry = d->ky / 2;
    a.border = d->border;
    a.bval = d->border_value;
    a.outside = gvis_gauss_outside_column(d);
    for (int y0 = 0; y0 < d->height; y0 += GVIS_GAUSS_WIDE_ROWS)
        for (int xs = 0; xs < a.ws; xs++) {
            if (d->bytes == 1)
                gvis_gauss_wide_vert_u8(&a, xs, y0);
            else if (d->bytes == 2)
                gvis_gauss_wide_vert_u16(&a, xs, y0);
            else
                gvis_gauss_wide_vert_f32(&a, xs, y0);
        }
    for (int y = 0; y < d->height; y++)
        for (int xs = 0; xs < a.ws; xs++) {
            if (d->bytes == 1)
                gvis_gauss_wide_horiz_u8(&a, xs, y);
            else if (d->bytes == 2)
                gvis_gauss_wide_horiz_u16(&a, xs, y);
            else
                gvis_gauss_wide_horiz_f32(&a, xs, y);
        }
    free(scratch);
}

static double rel_diff(const gvis_image *a, const gvis_image *b)
{
    double m = 0;
    for (int y = 0; y < a->height; y++) {
        const float *p = GVIS_ROW(a, y), *q = GVIS_ROW(b, y);
        for (int i = 0; i < a->width * a->channels; i++) {
            double d = fabs((double)p[i] - q[i]) / fmax(fabs((double)q[i]), 1.0);
            if (d > m || d != d)
                m = d != d ? INFINITY : d;
        }
    }
    return m;
}

static void compare(const gvis_image *img, const gvis_gauss_params *p)
{
    gvis_gauss_desc d;
    float *taps = make_desc(img, p, &d);
    CHECKF(taps != NULL, "%s", gvis_errmsg());
    if (!taps)
        return;
    gvis_image got, want;
    gvis_image_alloc(&got, img->width, img->height, img->channels, img->type, 64);
    gvis_image_alloc(&want, img->width, img->height, img->channels, img->type, 0);
    emulate(img, &d, &got);
    CHECK_OK(gvis_gauss_cpu(img, p, &want));
    if (img->type == GVIS_F32)
        CHECKF(rel_diff(&got, &want) <= 1e-5, "f32 %dx%dx%d k %dx%d border %s: rel diff %g", img->width,
               img->height, img->channels, d.kx, d.ky, border_names[p->border], rel_diff(&got, &want));
    else
        CHECKF(t_equal(&got, &want), "%s %dx%dx%d k %dx%d border %s: max diff %g", gvis_type_name(img->type),
               img->width, img->height, img->channels, d.kx, d.ky, border_names[p->border], t_maxdiff(&got, &want));
    gvis_image_free(&got);
    gvis_image_free(&want);
    free(taps);
    cases++;
}

int main(void)
{
    t_seed(11);
    const int sizes[][2] = {{1, 1}, {1, 37}, {37, 1}, {3, 2}, {13, 11}, {131, 97}, {300, 9}};
    /* wide kernels; also small ones (the functions take any size) and sizes from sigma */
    const int ks[][2] = {{257, 257}, {301, 5}, {3, 513}, {1023, 1023}, {5, 5}};
    const gvis_type types[] = {GVIS_U8, GVIS_U16, GVIS_F32};
    int n = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 3; t++)
            for (int c = 1; c <= 4; c++) {
                if (c == 2)
                    continue;
                gvis_image img;
                /* every other image a padded stride (pitch != width) */
                t_make(&img, sizes[s][0], sizes[s][1], c, types[t], n % 3, n % 2 ? 64 : 0);
                const int big = sizes[s][0] * sizes[s][1] > 1000;
                for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++)
                    for (int b = 0; b < 5; b++) {
                        /* the larger images: two borders per kernel, and 1023 taps once */
                        if (big && ((b + (int)k) % 3 || (k == 3 && (t != 0 || c != 1))))
                            continue;
                        gvis_gauss_params p = {0, 0, ks[k][0], ks[k][1], b, 0};
                        if (b == GVIS_BORDER_CONSTANT)
                            p.border_value = types[t] == GVIS_F32 ? -0.5 : types[t] == GVIS_U8 ? 31 : 50000;
                        compare(&img, &p);
                    }
                gvis_image_free(&img);
                n++;
            }
    /* sigmas 5 to 50, sigma-y apart */
    const double sig[][2] = {{50, 0}, {5, 40}, {22.5, 0}};
    for (int i = 0; i < 3; i++)
        for (int t = 0; t < 3; t++) {
            gvis_image img;
            t_make(&img, 97, 61, 3, types[t], 1, 64);
            gvis_gauss_params p = {sig[i][0], sig[i][1], 0, 0, i, 0};
            compare(&img, &p);
            gvis_image_free(&img);
        }
    CHECKF(cases > 300, "only %d cases ran", cases);
    return t_done("test_gauss_wide");
}
