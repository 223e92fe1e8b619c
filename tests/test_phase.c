/* Phase matching on the CPU (lib/stereo/phase_match.c) against the naive reference of
 * tests/phase_ref.h: identical maps for both views and both searches (ordered = full on
 * rising, noisy and jumbled phases), every option (window, tolerance, valid-min, region,
 * sub-pixel, left-right check, negative disparities), on awkward sizes (1x1, odd widths,
 * 631x479, pitch != width), random cases of all of these with tied costs; the parameter
 * checks and the float conversion refuse bad input. */
#include <math.h>
#include <string.h>

#include "phase.h"
#include "phase_ref.h"
#include "testlib.h"

static int same_map(const float *a, const float *b, size_t n, size_t *where)
{
    for (size_t i = 0; i < n; i++) {
        const int na = isnan(a[i]), nb = isnan(b[i]);
        if (na != nb || (!na && memcmp(&a[i], &b[i], sizeof(float)) != 0)) {
            *where = i;
            return 0;
        }
    }
    return 1;
}

static size_t count_valid(const float *a, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += !isnan(a[i]);
    return k;
}

static void one_case(int W, int H, size_t pitch, const gvis_phase_params *p0, int monotone, double holes,
                     double noise, int dmin, int drange)
{
    float *L = malloc(sizeof(float) * pitch * (size_t)H), *R = malloc(sizeof(float) * pitch * (size_t)H);
    ref_make_pair(L, R, pitch, W, H, dmin, drange, holes, noise, monotone, t_uniform);
    const int rw = p0->have_roi ? p0->roi[2] - p0->roi[0] : W, rh = p0->have_roi ? p0->roi[3] - p0->roi[1] : H;
    const size_t n = (size_t)rw * rh;
    float *want = malloc(sizeof(float) * n), *got = malloc(sizeof(float) * n), *ord = malloc(sizeof(float) * n);
    for (int view = 0; view < 2; view++) {
        gvis_phase_params p = *p0;
        p.search = GVIS_PHASE_FULL;
        ref_phase(L, R, pitch, W, H, &p, view, want);
        CHECK_OK(gvis_phase_match_cpu(L, R, pitch, W, H, &p, view, got));
        size_t at = 0;
        CHECKF(same_map(want, got, n, &at), "full %dx%d view %d window %d lr %d M %d D %d: pixel %zu: %g vs %g", W,
               H, view, p.window, p.lr_check, p.min_disp, p.num_disp, at, want[at], got[at]);
        p.search = GVIS_PHASE_ORDERED;
        CHECK_OK(gvis_phase_match_cpu(L, R, pitch, W, H, &p, view, ord));
        /* the ordered search sees the same candidates whatever the phases do */
        CHECKF(same_map(want, ord, n, &at), "ordered %dx%d view %d monotone %d noise %g: pixel %zu: %g vs %g", W, H,
               view, monotone, noise, at, want[at], ord[at]);
        if (monotone && noise == 0 && holes < 0.05 && view == 0 && p.lr_check < 0 && W > 40 && p.tol >= 0.5f &&
            p.min_disp <= dmin && p.min_disp + p.num_disp > dmin + drange + 2) {
            /* most pixels whose match lies inside the image are matched */
            size_t inside = 0;
            for (int y = 0; y < rh; y++)
                for (int x = 0; x < rw - drange - dmin - 2 && x < rw; x++)
                    inside += x > dmin + drange + 2;
            CHECKF(count_valid(want, n) >= inside * 8 / 10, "%zu of %zu", count_valid(want, n), inside);
        }
    }
    free(L), free(R), free(want), free(got), free(ord);
}

/* Random cases for the grouped search of lib/stereo/phase_match.c (four pixels at once,
 * window 3, ordered) and its fallbacks: random sizes, pitches, ranges (negative too),
 * tolerances, windows, holes, noise, regions and checks; phases rounded to a coarse step
 * in some (equal phases, plateaus and tied costs, where the smaller d must win). */
static void random_cases(int count)
{
    static const float tols[] = {0.0f, 0.1f, 0.3f, 0.5f, 1.0f, 2.5f};
    static const int windows[] = {1, 3, 3, 3, 3, 5};
    for (int c = 0; c < count; c++) {
        const int W = 1 + (int)(t_uniform() * (t_uniform() < 0.3 ? 12 : 300)), H = 1 + (int)(t_uniform() * 6);
        const size_t pitch = (size_t)W + (size_t)(t_uniform() * 4);
        gvis_phase_params p;
        gvis_phase_defaults(&p);
        p.num_disp = 1 + (int)(t_uniform() * W);
        p.min_disp = (int)(t_uniform() * (W / 2 + 1)) - W / 4;
        p.tol = tols[(int)(t_uniform() * 6)];
        p.window = windows[(int)(t_uniform() * 6)];
        if (p.window > W)
            p.window = 1;
        p.lr_check = (int)(t_uniform() * 4) - 1;
        p.subpixel = t_uniform() < 0.7;
        if (t_uniform() < 0.3) {
            p.have_roi = 1;
            p.roi[0] = (int)(t_uniform() * W), p.roi[1] = (int)(t_uniform() * H);
            p.roi[2] = p.roi[0] + 1 + (int)(t_uniform() * (W - p.roi[0]));
            p.roi[3] = p.roi[1] + 1 + (int)(t_uniform() * (H - p.roi[1]));
        }
        if (gvis_phase_check(&p, W, H) != GVIS_OK)
            continue;
        const int monotone = t_uniform() < 0.8, quant = t_uniform() < 0.3;
        const double holes = t_uniform() < 0.5 ? 0.0 : 0.2 * t_uniform();
        const double noise = t_uniform() < 0.6 ? 0.0 : 0.3 * t_uniform();
        float *L = malloc(sizeof(float) * pitch * (size_t)H), *R = malloc(sizeof(float) * pitch * (size_t)H);
        const int dmin = (int)(t_uniform() * W / 3), drange = 1 + (int)(t_uniform() * W / 3);
        ref_make_pair(L, R, pitch, W, H, dmin, drange, holes, noise, monotone, t_uniform);
        if (quant)
            for (size_t i = 0; i < pitch * (size_t)H; i++) {
                L[i] = L[i] > 0.0f ? 0.25f * floorf(L[i] * 4.0f) : L[i];
                R[i] = R[i] > 0.0f ? 0.25f * floorf(R[i] * 4.0f) : R[i];
            }
        const int rw = p.have_roi ? p.roi[2] - p.roi[0] : W, rh = p.have_roi ? p.roi[3] - p.roi[1] : H;
        const size_t n = (size_t)rw * rh;
        float *want = malloc(sizeof(float) * n), *got = malloc(sizeof(float) * n);
        for (int view = 0; view < 2; view++)
            for (int search = 0; search < 2; search++) {
                p.search = search ? GVIS_PHASE_ORDERED : GVIS_PHASE_FULL;
                ref_phase(L, R, pitch, W, H, &p, view, want);
                CHECK_OK(gvis_phase_match_cpu(L, R, pitch, W, H, &p, view, got));
                size_t at = 0;
                CHECKF(same_map(want, got, n, &at),
                       "random %d: %dx%d view %d search %d window %d T %g M %d D %d lr %d quant %d: pixel %zu: %g vs %g",
                       c, W, H, view, search, p.window, p.tol, p.min_disp, p.num_disp, p.lr_check, quant, at, want[at],
                       got[at]);
            }
        free(L), free(R), free(want), free(got);
    }
}

int main(void)
{
    t_seed(20261124);
    gvis_phase_params p;
    gvis_phase_defaults(&p);
    p.lr_check = -1;
    /* awkward sizes */
    const int sizes[][2] = {{1, 1}, {2, 1}, {3, 2}, {17, 5}, {63, 9}, {101, 7}, {257, 3}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        const int W = sizes[i][0], H = sizes[i][1];
        p.num_disp = W < 32 ? W : 32;
        p.min_disp = 0;
        p.window = W >= 3 ? 3 : 1;
        one_case(W, H, (size_t)W, &p, 1, 0.0, 0.0, 0, W / 4 + 1);
        one_case(W, H, (size_t)W + 5, &p, 1, 0.1, 0.0, 0, W / 4 + 1);
        one_case(W, H, (size_t)W, &p, 0, 0.1, 0.0, 0, W / 4 + 1);
    }
    /* every option */
    const int windows[] = {1, 3, 5, 9};
    const float tols[] = {0.0f, 0.2f, 0.5f, 3.0f};
    for (int wi = 0; wi < 4; wi++)
        for (int ti = 0; ti < 4; ti++)
            for (int lr = -1; lr <= 1; lr++) {
                gvis_phase_defaults(&p);
                p.window = windows[wi];
                p.tol = tols[ti];
                p.lr_check = lr;
                p.num_disp = 40;
                p.subpixel = (wi + ti) % 2;
                one_case(131, 11, 137, &p, 1, 0.03, 0.0, 5, 20);
                one_case(131, 11, 131, &p, 1, 0.03, 0.05, 5, 20);
                one_case(97, 5, 97, &p, 0, 0.1, 0.0, 5, 20);
            }
    /* negative and shifted ranges, valid-min, region */
    gvis_phase_defaults(&p);
    p.min_disp = -20;
    p.num_disp = 50;
    one_case(211, 13, 211, &p, 1, 0.02, 0.0, -15, 25);
    p.min_disp = 10;
    p.num_disp = 7;
    one_case(211, 13, 211, &p, 1, 0.02, 0.0, 5, 20);
    gvis_phase_defaults(&p);
    p.valid_min = 2.5f;
    p.num_disp = 60;
    one_case(199, 9, 203, &p, 1, 0.0, 0.0, 5, 30);
    p.have_roi = 1;
    p.roi[0] = 13, p.roi[1] = 2, p.roi[2] = 150, p.roi[3] = 7;
    one_case(199, 9, 203, &p, 1, 0.05, 0.0, 5, 30);
    p.roi[0] = 198, p.roi[1] = 8, p.roi[2] = 199, p.roi[3] = 9;
    one_case(199, 9, 199, &p, 1, 0.05, 0.0, 5, 30);
    /* a large one, whole range */
    gvis_phase_defaults(&p);
    p.num_disp = t_quick() ? 100 : 631;
    p.lr_check = 1;
    one_case(631, t_quick() ? 31 : 479, 640, &p, 1, 0.01, 0.0, 20, 60);

    /* the grouped search with AVX2 (where the processor has it), with SSE2, and none */
    for (int level = 2; level >= 0; level--) {
        gvis_phase_cpu_simd(level);
        random_cases(t_quick() ? 150 : 600);
    }
    gvis_phase_cpu_simd(2);

    /* parameter checks */
    gvis_phase_defaults(&p);
    CHECK(gvis_phase_check(&p, 0, 0) == GVIS_OK);
    p.window = 4;
    CHECK(gvis_phase_check(&p, 0, 0) == GVIS_E_ARG);
    p.window = 9;
    CHECK(gvis_phase_check(&p, 8, 8) == GVIS_E_ARG && strstr(gvis_errmsg(), "wider than the rows"));
    gvis_phase_defaults(&p);
    p.num_disp = 0;
    CHECK(gvis_phase_check(&p, 0, 0) == GVIS_E_ARG);
    p.num_disp = 200;
    CHECK(gvis_phase_check(&p, 100, 10) == GVIS_E_ARG);
    p.num_disp = 10;
    p.min_disp = 3000;
    CHECK(gvis_phase_check(&p, 0, 0) == GVIS_E_ARG);
    gvis_phase_defaults(&p);
    p.num_disp = 50;
    p.have_roi = 1;
    p.roi[0] = 0, p.roi[1] = 0, p.roi[2] = 101, p.roi[3] = 5;
    CHECK(gvis_phase_check(&p, 100, 10) == GVIS_E_ARG && strstr(gvis_errmsg(), "outside"));
    p.roi[2] = 0;
    CHECK(gvis_phase_check(&p, 100, 10) == GVIS_E_ARG && strstr(gvis_errmsg(), "empty"));
    gvis_phase_defaults(&p);
    p.tol = NAN;
    CHECK(gvis_phase_check(&p, 0, 0) == GVIS_E_ARG);

    /* float conversion: scale, NaN refused, one channel */
    gvis_image u = {0}, f = {0};
    CHECK_OK(gvis_image_alloc(&u, 3, 2, 1, GVIS_U16, 0));
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++)
            ((uint16_t *)GVIS_ROW(&u, y))[x] = (uint16_t)(1000 * y + x);
    CHECK_OK(gvis_phase_to_float(&u, 0.5, &f));
    CHECK(f.type == GVIS_F32 && ((float *)GVIS_ROW(&f, 1))[2] == 501.0f);
    gvis_image_free(&f);
    gvis_image_free(&u);
    CHECK_OK(gvis_image_alloc(&u, 3, 2, 1, GVIS_F32, 0));
    memset(u.data, 0, u.stride * 2);
    ((float *)GVIS_ROW(&u, 1))[1] = NAN;
    CHECK(gvis_phase_to_float(&u, 1.0, &f) == GVIS_E_FORMAT && strstr(gvis_errmsg(), "1,1"));
    ((float *)GVIS_ROW(&u, 1))[1] = INFINITY;
    CHECK(gvis_phase_to_float(&u, 1.0, &f) == GVIS_E_FORMAT);
    gvis_image_free(&u);
    CHECK_OK(gvis_image_alloc(&u, 3, 2, 3, GVIS_F32, 0));
    CHECK(gvis_phase_to_float(&u, 1.0, &f) == GVIS_E_FORMAT && strstr(gvis_errmsg(), "one channel"));
    gvis_image_free(&u);
    return t_done("test_phase");
}
