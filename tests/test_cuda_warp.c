/* CUDA warp against the CPU: bit-identical 8- and 16-bit images and tensors (float32
 * within 1e-5 relative, in practice identical) on awkward sizes: 1x1, 1xN, Nx1, odd
 * widths, 631x479, padded rows, output widths that are not multiples of the 4 pixels a
 * thread writes; every type, channel count, interpolation, border and tensor layout.
 * Exits 77 (skipped) without a usable GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "warp.h"

static int n_float_inexact;

static int close_enough(const gvis_image *a, const gvis_image *b)
{
    if (a->type != GVIS_F32)
        return t_equal(a, b);
    if (t_equal(a, b))
        return 1;
    n_float_inexact++;
    for (int y = 0; y < a->height; y++) {
        const float *p = GVIS_ROW(a, y), *q = GVIS_ROW(b, y);
        for (int i = 0; i < a->width * a->channels; i++)
            if (!(fabsf(p[i] - q[i]) <= 1e-5f * fmaxf(1.f, fabsf(p[i]))))
                return 0;
    }
    return 1;
}

static void random_matrix(double m[6], int sw, int sh, int dw, int dh)
{
    double ang = (t_uniform() * 2 - 1) * M_PI, s = exp((t_uniform() * 2 - 1) * 1.5), shear = t_uniform() - 0.5;
    m[0] = cos(ang) * s;
    m[1] = cos(ang) * s * shear - sin(ang) * s;
    m[3] = sin(ang) * s;
    m[4] = sin(ang) * s * shear + cos(ang) * s;
    m[2] = dw / 2.0 - (m[0] * sw / 2.0 + m[1] * sh / 2.0) + (t_uniform() - 0.5) * 8;
    m[5] = dh / 2.0 - (m[3] * sw / 2.0 + m[4] * sh / 2.0) + (t_uniform() - 0.5) * 8;
}

static void compare(gvis_ctx *cpu, gvis_ctx *gpu, const gvis_image *src, const gvis_warp_params *p, const char *what)
{
    gvis_image a = {0}, b = {0};
    int ra = gvis_warp(cpu, src, p, &a), rb = gvis_warp(gpu, src, p, &b);
    CHECKF(ra == GVIS_OK && rb == GVIS_OK, "%s: %s", what, gvis_errmsg());
    if (!ra && !rb)
        CHECKF(close_enough(&a, &b), "%s %dx%d c%d %s -> %dx%d interp %d border %d: CPU and CUDA differ by %g", what,
               src->width, src->height, src->channels, gvis_type_name(src->type), p->width, p->height, p->interp,
               p->border, t_maxdiff(&a, &b));
    gvis_image_free(&a);
    gvis_image_free(&b);
    for (int layout = 0; layout < 2; layout++) {
        gvis_tensor_params t = {.layout = layout, .bgr = layout, .scale = 1 / 255.0, .mean = {0.485, 0.456, 0.406, 0.5},
                                .std = {0.229, 0.224, 0.225, 0.25}};
        gvis_array ta = {0}, tb = {0};
        ra = gvis_warp_tensor(cpu, src, p, &t, &ta);
        rb = gvis_warp_tensor(gpu, src, p, &t, &tb);
        CHECKF(ra == GVIS_OK && rb == GVIS_OK, "%s tensor: %s", what, gvis_errmsg());
        if (!ra && !rb) {
            int same = ta.nbytes == tb.nbytes && memcmp(ta.data, tb.data, ta.nbytes) == 0;
            CHECKF(same, "%s tensor layout %d %dx%d c%d %s -> %dx%d: CPU and CUDA differ", what, layout, src->width,
                   src->height, src->channels, gvis_type_name(src->type), p->width, p->height);
        }
        gvis_array_free(&ta);
        gvis_array_free(&tb);
    }
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    gvis_ctx *cpu = t_cpu_ctx();
    t_seed(11);
    static const int sizes[][2] = {{1, 1}, {1, 333}, {333, 1}, {17, 15}, {63, 65}, {631, 479}};
    static const int outs[][2] = {{1, 1}, {7, 1}, {1, 9}, {13, 11}, {61, 47}, {640, 640}, {333, 129}};
    const gvis_type types[] = {GVIS_U8, GVIS_U16, GVIS_F32};
    const int chans[] = {1, 3, 4};
    int n = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int ti = 0; ti < 3; ti++)
            for (int ci = 0; ci < 3; ci++) {
                gvis_image src;
                t_make(&src, sizes[si][0], sizes[si][1], chans[ci], types[ti], (int)(si % 2), si % 2 ? 64 : 1);
                for (size_t oi = 0; oi < sizeof outs / sizeof outs[0]; oi++, n++) {
                    gvis_warp_params p = {.width = outs[oi][0], .height = outs[oi][1], .interp = n & 1,
                                          .border = (n >> 1) & 1, .inverse = n % 7 == 0};
                    for (int c = 0; c < 4; c++)
                        p.fill[c] = types[ti] == GVIS_F32 ? t_uniform() * 4 - 2 : floor(t_uniform() * 70000);
                    random_matrix(p.m, src.width, src.height, p.width, p.height);
                    compare(cpu, gpu, &src, &p, "random");
                    gvis_letterbox_matrix(src.width, src.height, p.width, p.height, p.m);
                    p.inverse = 0;
                    compare(cpu, gpu, &src, &p, "letterbox");
                }
                gvis_image_free(&src);
            }
    /* the benchmark's case: 4K RGB to a 640x640 letterbox, and 8K to 1280x1280 */
    static const int big[][4] = {{3840, 2160, 640, 640}, {7680, 4320, 1280, 1280}};
    /* GVIS_TEST_QUICK (for runs under compute-sanitizer): 4K only */
    const int nbig = getenv("GVIS_TEST_QUICK") ? 1 : 2;
    for (int i = 0; i < nbig; i++) {
        gvis_image src;
        t_make(&src, big[i][0], big[i][1], 3, GVIS_U8, 1, 1);
        gvis_warp_params p = {.width = big[i][2], .height = big[i][3], .interp = GVIS_WARP_BILINEAR,
                              .fill = {114, 114, 114, 114}};
        gvis_letterbox_matrix(src.width, src.height, p.width, p.height, p.m);
        compare(cpu, gpu, &src, &p, "big letterbox");
        gvis_image_free(&src);
    }
    if (n_float_inexact)
        fprintf(stderr, "test_cuda_warp: %d float32 comparisons were within 1e-5 but not bit-identical\n",
                n_float_inexact);
    gvis_ctx_free(gpu);
    gvis_ctx_free(cpu);
    return t_done("test_cuda_warp");
}
