/* The winner-takes-all stage (cuda/stereo/sgm/sgm_wta.cu, step 5 of lib/stereo/sgm.h) against
 * the CPU's gvis_sgm_wta, exactly, both views, on random path volumes of awkward sizes
 * (1x1, 1xH, Wx1, odd widths, widths past 2 x 128 + D that are not multiples of 128,
 * 631x479), D 16..512, min-disp of every sign, 8, 4 and 3 paths, subpixel on and off,
 * uniqueness 0.95, 1 and 0.5; from the u8 path volumes and from the u16 sum volume; under
 * every kernel GVIS_SGM_WTA selects (default, tile, ring, two-pass) and the old
 * GVIS_SGM_WTA_TWO_PASS=1.  Exits 77 (skipped) without a usable GPU. */
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

static void *stream;

/* The kernel settings, in the environment sgm_wta.cu reads at each call. */
static const char *const kernel_names[] = {"default", "tile", "ring", "two-pass", "GVIS_SGM_WTA_TWO_PASS=1"};
enum { NKERNELS = 5 };

static void set_kernel(int i)
{
    unsetenv("GVIS_SGM_WTA");
    unsetenv("GVIS_SGM_WTA_TWO_PASS");
    if (i == 4)
        setenv("GVIS_SGM_WTA_TWO_PASS", "1", 1);
    else if (i > 0)
        setenv("GVIS_SGM_WTA", kernel_names[i], 1);
}

/* How each path's u8 volume is filled. */
enum {
    F_SMALL, /* 0..7: many ties (the smallest k wins) */
    F_FULL,  /* 0..255 */
    F_EQUAL, /* a constant a path: every S equal */
    F_CLEAR, /* one clear minimum a pixel at a random k, its neighbours in between */
};
static const char *const fill_names[] = {"0..7", "0..255", "all equal", "clear minimum"};

typedef struct {
    int W, H, D, M, paths, subpixel;
    double uniqueness;
    int fill;
    int wide_stride; /* the sum volume with 64 u16 more a pixel than GVIS_SGM_SUM_STRIDE(D) */
    int min_valid;   /* per cent of the pixels whose range is not empty that the CPU must find valid, each view */
} wta_case;

static void fill_paths(const wta_case *c, uint8_t *lr)
{
    const size_t n = (size_t)c->W * c->H, vol = n * c->D;
    const int D = c->D;
    for (int p = 0; p < c->paths; p++) {
        uint8_t *v = lr + p * vol;
        if (c->fill == F_EQUAL) {
            memset(v, (int)(t_rand() % 200) + 1, vol);
        } else if (c->fill != F_CLEAR) {
            const uint64_t mask = c->fill == F_SMALL ? 0x0707070707070707ull : ~0ull;
            size_t i = 0;
            for (; i + 8 <= vol; i += 8) {
                const uint64_t r = t_rand() & mask;
                memcpy(v + i, &r, 8);
            }
            for (; i < vol; i++)
                v[i] = (uint8_t)(t_rand() & mask);
        }
    }
    if (c->fill != F_CLEAR)
        return;
    for (size_t i = 0; i < n; i++) {
        const int k0 = (int)(t_rand() % (uint64_t)D);
        for (int p = 0; p < c->paths; p++) {
            uint8_t *v = lr + p * vol + i * D;
            for (int k = 0; k < D; k++)
                v[k] = (uint8_t)(60 + t_rand() % 140);
            v[k0] = (uint8_t)(t_rand() % 40);
            if (k0 > 0)
                v[k0 - 1] = (uint8_t)(v[k0] + t_rand() % 60);
            if (k0 + 1 < D)
                v[k0 + 1] = (uint8_t)(v[k0] + t_rand() % 60);
        }
    }
}

/* Compares a GPU map with the CPU's; says which kernel, case, view and source differ. */
static void compare(const char *what, const char *kern, const char *src, const char *view, const int16_t *cpu,
                    const int16_t *gpu, int W, size_t n)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (cpu[i] != gpu[i] && bad++ == 0)
            first = i;
    CHECKF(bad == 0,
           "kernel %s, %s, %s view from the %s: %zu of %zu pixels differ (first at x %zu y %zu: CPU %d, CUDA %d)", kern,
           what, view, src, bad, n, first % W, first / W, bad ? cpu[first] : 0, bad ? gpu[first] : 0);
}

/* Valid pixels of a CPU map against those whose range [klo, khi] is not empty. */
static void check_strength(const char *what, const char *view, const wta_case *c, const int16_t *map, int right)
{
    const int W = c->W, D = c->D, M = c->M;
    size_t possible = 0, valid = 0, frac = 0;
    for (int y = 0; y < c->H; y++)
        for (int x = 0; x < W; x++) {
            const int klo = right ? -x - M : x - (W - 1) - M, khi = right ? W - 1 - x - M : x - M;
            const int16_t v = map[(size_t)y * W + x];
            possible += (klo < 0 ? 0 : klo) <= (khi > D - 1 ? D - 1 : khi);
            valid += v != GVIS_SGM_INVALID(M);
            frac += v != GVIS_SGM_INVALID(M) && v % 16 != 0;
        }
    CHECKF(valid * 100 >= possible * (size_t)c->min_valid && valid <= possible,
           "%s: %s view: the CPU finds %zu of %zu possible pixels valid (%d %% wanted): a weak test", what, view, valid,
           possible, c->min_valid);
    /* with one clear minimum a pixel, the parabola must move some of them off the grid */
    if (c->fill == F_CLEAR && c->subpixel && valid >= 20)
        CHECKF(frac > 0, "%s: %s view: no subpixel offset among %zu valid pixels: a weak test", what, view, valid);
    if (test_verbose())
        printf("    %s view: %zu of %zu possible valid, %zu off the grid\n", view, valid, possible, frac);
}

static void check(const wta_case *c)
{
    const int W = c->W, H = c->H, D = c->D, M = c->M;
    const int stride = GVIS_SGM_SUM_STRIDE(D) + (c->wide_stride ? 64 : 0);
    const int U = gvis_sgm_uniqueness_fixed(c->uniqueness);
    const size_t n = (size_t)W * H, vol = n * D;
    char what[192];
    snprintf(what, sizeof what, "%dx%d D %d M %d, %d paths, subpixel %d, uniqueness %.2f (U %d), %s, stride %d", W, H,
             D, M, c->paths, c->subpixel, c->uniqueness, U, fill_names[c->fill], stride);
    char line[200];
    snprintf(line, sizeof line, "  %s", what);
    progress(n > 100000 ? what : line); /* the large case always, the others with GVIS_TEST_VERBOSE */

    uint8_t *lr = malloc(vol * c->paths);
    uint16_t *sum = malloc(vol * 2), *sv = calloc(n * stride, 2);
    int16_t *hl = malloc(n * 2), *hr = malloc(n * 2), *gl = malloc(n * 2), *gr = malloc(n * 2);
    if (!lr || !sum || !sv || !hl || !hr || !gl || !gr) {
        fprintf(stderr, "%s: out of host memory\n", what);
        exit(1);
    }
    fill_paths(c, lr);
    for (size_t i = 0; i < vol; i++) {
        unsigned s = 0;
        for (int p = 0; p < c->paths; p++)
            s += lr[p * vol + i];
        sum[i] = (uint16_t)s;
    }
    /* the sum volume's layout (sgm_cuda.h); the halves of k >= D stay 0 */
    for (size_t p = 0; p < n; p++)
        for (int k = 0; k < D; k++)
            sv[p * stride + 64 * (k / 64) + 2 * (k % 32) + (k / 32) % 2] = sum[p * D + k];

    CHECK_OK(gvis_sgm_wta(sum, NULL, W, H, D, M, c->uniqueness, c->subpixel, hl, hr));
    check_strength(what, "left", c, hl, 0);
    check_strength(what, "right", c, hr, 1);

    uint8_t *d_lr = dev(0, vol * c->paths);
    uint16_t *d_sv = dev(1, n * stride * 2);
    int16_t *d_l = dev(2, n * 2), *d_r = dev(3, n * 2);
    up(d_lr, lr, vol * c->paths);
    up(d_sv, sv, n * stride * 2);
    /* GVIS_TEST_QUICK=2 (racecheck): the old variable (the two-pass kernel again) and the
     * runs with one view left out */
    const int quick2 = t_quick() >= 2;
    for (int kern = 0; kern < (quick2 ? NKERNELS - 1 : NKERNELS); kern++) {
        set_kernel(kern);
        const char *kn = kernel_names[kern];
        /* beyond the kernel's width limit (two-pass only) the call must refuse */
        const int fits = W <= gvis_cu_sgm_wta_max_width(D);
        for (int run = 0; run < (quick2 ? 2 : 4); run++) {
            /* run 0, 1: both views from the path volumes, from the sum volume; run 2: left
             * only from the path volumes; run 3: right only from the sum volume */
            int16_t *dl = run == 3 ? NULL : d_l, *dr = run == 2 ? NULL : d_r;
            const int from_sum = run % 2;
            CHECK(gvis_cu_memset(job, d_l, 0x55, n * 2) == 0 && gvis_cu_memset(job, d_r, 0x55, n * 2) == 0);
            const int rc = from_sum ? gvis_cu_sgm_wta_sum(d_sv, stride, W, H, D, M, U, c->subpixel, dl, dr, stream)
                                    : gvis_cu_sgm_wta(d_lr, c->paths, W, H, D, M, U, c->subpixel, dl, dr, stream);
            const char *src = from_sum ? "sum volume" : "path volumes";
            if (!fits) {
                CHECKF(rc != 0, "kernel %s, %s, from the %s: width %d beyond the limit %d accepted", kn, what, src, W,
                       gvis_cu_sgm_wta_max_width(D));
                continue;
            }
            CHECKF(rc == 0, "kernel %s, %s, from the %s: error %d (%s)", kn, what, src, rc, gvis_cu_strerror(rc));
            if (dl) {
                down(gl, d_l, n * 2);
                compare(what, kn, src, dr ? "left" : "left (right NULL)", hl, gl, W, n);
            }
            if (dr) {
                down(gr, d_r, n * 2);
                compare(what, kn, src, dl ? "right" : "right (left NULL)", hr, gr, W, n);
            }
        }
    }
    set_kernel(0);
    free(lr), free(sum), free(sv), free(hl), free(hr), free(gl), free(gr);
}

/* Arguments the launchers must refuse (nonzero), under every kernel setting. */
static void check_errors(void)
{
    const int W = 40, H = 2, D = 64;
    uint8_t *d_lr = dev(0, (size_t)W * H * D * 8);
    uint16_t *d_sv = dev(1, (size_t)W * H * 128 * 2);
    int16_t *d_l = dev(2, (size_t)W * H * 2), *d_r = dev(3, (size_t)W * H * 2);
    CHECK(gvis_cu_memset(job, d_sv, 0, (size_t)W * H * 64 * 2) == 0); /* for the good call */
    for (int kern = 0; kern < NKERNELS; kern++) {
        set_kernel(kern);
        const char *kn = kernel_names[kern];
        const struct {
            int stride, W, H, D;
            const char *why;
        } bad[] = {
            {64 + 32, W, H, D, "stride not a multiple of 64"},
            {64, W, H, 128, "stride below D rounded up to 64"},
            {0, W, H, 16, "stride 0"},
            {64, W, H, 24, "D not a multiple of 16"},
            {64, W, H, 0, "D 0"},
            {64, 0, H, D, "width 0"},
            {64, W, 0, D, "height 0"},
            {64, -5, H, D, "width -5"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            CHECKF(gvis_cu_sgm_wta_sum(d_sv, bad[i].stride, bad[i].W, bad[i].H, bad[i].D, 0, 243, 1, d_l, d_r,
                                       stream) != 0,
                   "kernel %s: wta_sum with %s (stride %d, %dx%d, D %d) accepted", kn, bad[i].why, bad[i].stride,
                   bad[i].W, bad[i].H, bad[i].D);
            if (bad[i].stride == 64 && bad[i].D != 128)
                CHECKF(gvis_cu_sgm_wta(d_lr, 8, bad[i].W, bad[i].H, bad[i].D, 0, 243, 1, d_l, d_r, stream) != 0,
                       "kernel %s: wta with %s (%dx%d, D %d) accepted", kn, bad[i].why, bad[i].W, bad[i].H, bad[i].D);
        }
        CHECKF(gvis_cu_sgm_wta(d_lr, 0, W, H, D, 0, 243, 1, d_l, d_r, stream) != 0, "kernel %s: wta with 0 paths", kn);
        CHECKF(gvis_cu_sgm_wta(d_lr, 9, W, H, D, 0, 243, 1, d_l, d_r, stream) != 0, "kernel %s: wta with 9 paths", kn);
        CHECKF(gvis_cu_sgm_wta(NULL, 8, W, H, D, 0, 243, 1, d_l, d_r, stream) != 0, "kernel %s: wta of NULL", kn);
        CHECKF(gvis_cu_sgm_wta_sum(NULL, 64, W, H, D, 0, 243, 1, d_l, d_r, stream) != 0, "kernel %s: wta_sum of NULL",
               kn);
        /* and a good call after the refusals still works (no error left behind) */
        CHECK(gvis_cu_sgm_wta_sum(d_sv, 64, W, H, D, 0, 243, 1, d_l, d_r, stream) == 0);
        CHECK(gvis_cu_sync(job) == 0);
    }
    set_kernel(0);
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    job = gpu->job;
    stream = gvis_cu_job_stream(job);
    progress("start");
    t_seed(83);
    /* W, H, D, M, paths, subpixel, uniqueness, fill, wide stride, min valid % */
    const wta_case cases[] = {
        {1, 1, 16, 0, 8, 1, 0.95, F_FULL, 0, 100}, /* one k in range: always valid */
        {1, 1, 64, -16, 3, 0, 1.0, F_SMALL, 0, 100},
        {1, 1, 16, 16, 4, 1, 0.95, F_CLEAR, 0, 0}, /* no k in range */
        {1, 13, 48, 0, 4, 1, 0.5, F_CLEAR, 0, 100},
        {1, 9, 128, -100, 8, 1, 1.0, F_FULL, 0, 100},
        {200, 1, 64, 0, 8, 1, 0.95, F_CLEAR, 0, 60},
        {97, 1, 256, -16, 4, 0, 0.95, F_SMALL, 0, 40},
        {67, 3, 16, 0, 8, 1, 0.95, F_FULL, 0, 40},
        {67, 3, 48, 16, 3, 1, 1.0, F_SMALL, 0, 100},
        {67, 3, 128, 40, 8, 1, 0.95, F_CLEAR, 0, 30}, /* the minimum often out of range */
        {129, 5, 64, -16, 4, 0, 0.5, F_CLEAR, 0, 15},
        {129, 5, 256, 0, 8, 1, 0.95, F_FULL, 0, 40},
        {129, 5, 128, -100, 3, 1, 0.95, F_SMALL, 0, 40},
        {631, 7, 64, 0, 8, 1, 0.95, F_CLEAR, 0, 60},
        {631, 7, 128, -16, 8, 1, 1.0, F_SMALL, 0, 100},
        {631, 7, 256, 16, 4, 1, 0.95, F_FULL, 1, 40},
        {631, 7, 48, 40, 3, 0, 0.95, F_CLEAR, 0, 60},
        {631, 7, 16, -100, 8, 1, 0.5, F_FULL, 0, 0}, /* u 0.5 rejects nearly all: the invalid ones compared */
        {300, 4, 128, 0, 8, 1, 0.95, F_CLEAR, 1, 60},
        {300, 4, 64, -100, 4, 1, 1.0, F_FULL, 0, 100},
        {300, 4, 256, 40, 8, 0, 0.5, F_SMALL, 0, 0},
        {300, 4, 16, 16, 4, 1, 0.95, F_SMALL, 0, 40},
        {300, 4, 128, -16, 8, 1, 1.0, F_EQUAL, 0, 100}, /* all ties: k0 = klo everywhere */
        {129, 5, 64, 0, 4, 1, 0.95, F_EQUAL, 0, 0},     /* all ties: rejected wherever 4 k are in range */
        {300, 3, 512, -16, 8, 1, 0.95, F_CLEAR, 0, 30}, /* D 512: two-pass only; ring and tile fall back */
        {631, 2, 512, 0, 4, 1, 1.0, F_SMALL, 1, 100},
        {9001, 2, 64, 0, 8, 1, 0.95, F_CLEAR, 0, 60}, /* past the two-pass kernel's width limit */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* GVIS_TEST_QUICK=2: not the largest volumes (every D and kernel stays) */
        if (t_quick() >= 2 && (size_t)cases[i].W * cases[i].H * cases[i].D > 600000)
            continue;
        check(&cases[i]);
    }
    progress("small cases done");
    check_errors();
    progress("argument errors done");
    if (!t_quick()) {
        const wta_case big = {631, 479, 128, -16, 4, 1, 0.95, F_CLEAR, 0, 60};
        check(&big);
        progress("631x479 done");
    }
    gvis_ctx_free(gpu);
    return t_done("test_cuda_sgm_wta");
}
#endif
