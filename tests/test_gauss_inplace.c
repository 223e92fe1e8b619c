/* gvis_gauss_inplace (issue 14, peak RSS): the blur in the image's own pixels gives the
 * bytes of the blur into a new image, on random images of awkward sizes and strides, every
 * type, channel count and border, kernels from 1 tap to nearly the image's height (where
 * halos outgrow a quarter of the image it goes out of place), with the pixel buffer kept
 * where the CPU blurred in place and the metadata kept always. */
#include <string.h>

#include "gauss.h"
#include "testlib.h"

static int one(gvis_ctx *ctx, int w, int h, int c, gvis_type t, int border, int kx, int ky, double sigma, size_t align)
{
    gvis_image src, ref = {0}, img;
    t_make(&src, w, h, c, t, (int)(t_rand() % 2), align);
    t_make(&img, w, h, c, t, 3, align);
    for (int y = 0; y < h; y++)
        memcpy(GVIS_ROW(&img, y), GVIS_ROW(&src, y), (size_t)w * c * t);
    img.meta = calloc(1, sizeof *img.meta);
    img.meta->xres = img.meta->yres = 300;
    gvis_gauss_params p = {0};
    p.sigma_x = sigma;
    p.sigma_y = sigma * 0.7;
    p.ksize_x = kx;
    p.ksize_y = ky;
    p.border = border;
    p.border_value = 17;
    int fails = t_failures;
    CHECK_OK(gvis_gauss(ctx, &src, &p, &ref));
    void *before = img.data;
    CHECK_OK(gvis_gauss_inplace(ctx, &img, &p));
    CHECKF(t_equal(&img, &ref), "%dx%dx%d type %d border %d k %dx%d sigma %g: in place differs by %g", w, h, c, t, border,
           kx, ky, sigma, t_maxdiff(&img, &ref));
    CHECK(img.meta && img.meta->xres == 300);
    int same = img.data == before;
    /* in place wherever its rules allow: no wrap, taller than the kernel, small halos */
    int ry = ky / 2;
    if (border != GVIS_BORDER_WRAP && ky && h > ky && (size_t)gvis_threads() * 2 * ry <= (size_t)h / 4 &&
        gvis_ctx_repeat(ctx) == 1)
        CHECKF(same, "%dx%d k %d: not blurred in place", w, h, ky);
    if (border == GVIS_BORDER_WRAP || gvis_ctx_repeat(ctx) > 1)
        CHECK(!same);
    gvis_image_free(&src);
    gvis_image_free(&ref);
    gvis_image_free(&img);
    return t_failures == fails;
}

int main(void)
{
    t_seed(1414);
    gvis_ctx *ctx = t_cpu_ctx();
    static const gvis_type types[] = {GVIS_U8, GVIS_U16, GVIS_F32};
    static const int chans[] = {1, 3, 4};
    int n = t_quick() ? 60 : 240;
    for (int i = 0; i < n; i++) {
        int w = 1 + (int)(t_rand() % 97), h = 1 + (int)(t_rand() % 301);
        int ky = (int)(t_rand() % 4) == 0 ? 1 + 2 * (int)(t_rand() % (h / 2 + 1)) : 0;
        int kx = (int)(t_rand() % 3) == 0 ? 1 + 2 * (int)(t_rand() % 10) : 0;
        double sigma = 0.3 + t_uniform() * 5;
        if (ky > 255)
            ky = 255;
        one(ctx, w, h, chans[t_rand() % 3], types[t_rand() % 3], (int)(t_rand() % 5), kx, ky, sigma,
            (t_rand() % 2) ? 64 : 0);
    }
    /* a tall photo-like case: many tasks, each with its halos */
    one(ctx, 640, 997, 3, GVIS_U8, GVIS_BORDER_REFLECT101, 0, 0, 2.0, 64);
    one(ctx, 333, 1201, 1, GVIS_U16, GVIS_BORDER_CONSTANT, 0, 0, 3.0, 0);
    one(ctx, 129, 800, 4, GVIS_F32, GVIS_BORDER_REFLECT, 0, 0, 1.5, 0);
    one(ctx, 200, 600, 3, GVIS_U8, GVIS_BORDER_REPLICATE, 5, 13, 0, 0);
    /* --repeat: out of place, once blurred, not N times */
    gvis_ctx *rep = NULL;
    CHECK_OK(gvis_ctx_create(&rep, "cpu", 3, NULL, NULL, NULL));
    one(rep, 101, 257, 3, GVIS_U8, GVIS_BORDER_REFLECT101, 0, 0, 2.0, 0);
    gvis_ctx_free(rep);
    gvis_ctx_free(ctx);
    return t_done("test_gauss_inplace");
}
