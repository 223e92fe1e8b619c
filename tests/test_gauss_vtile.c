/* The 8-bit gray shared-memory blur's work without a GPU: the very per-thread functions
 * that cuda/ops/gauss_vtile.cu runs (cuda/ops/gauss_vtile.h, compiled here as host code),
 * driven block by block, step by step and thread by thread as the kernel's grid drives
 * them (the barrier between the phases is the order of the loops; shared memory poisoned
 * before each step), against the CPU blur: bit for bit on awkward sizes (1x1, one row,
 * one column, a tile's width and one more, 631x479), padded pitches, every border, each
 * template (15, 31, 47, 63 taps) and kernels padded into them, unequal sides, and what
 * the launcher declines (a horizontal tap of 256, a misaligned pitch).  The GPU itself:
 * tests/test_cuda_gauss.c. */
#include <string.h>

#include "gauss.h"
#include "gauss_cpu.h"
#include "gauss_vtile.h"
#include "testlib.h"

static const char *border_names[] = {"reflect101", "replicate", "constant", "reflect", "wrap"};
static int cases, declined;

/* The description lib/ops/gauss.c hands the launchers (taps in one block: free() it). */
static float *make_desc(const gvis_image *img, const gvis_gauss_params *p, gvis_gauss_desc *d)
{
    float *taps;
    return gvis_gauss_desc_make(img, p, d, &taps) == GVIS_OK ? taps : NULL;
}

typedef void (*phase_fn)(const gvis_vt_params *, uint32_t *, int, int, int);
typedef void (*hphase_fn)(const gvis_vt_params *, const uint32_t *, int, int, int);

static void step(const gvis_vt_params *p, int KT, uint32_t *sv, int x0, int y0)
{
    memset(sv, 0xa5, sizeof(uint32_t) * GVIS_VT_ROWS * GVIS_VT_SWORDS);
    const phase_fn v = KT == 15   ? gvis_vt_vert_15
                       : KT == 31 ? gvis_vt_vert_31
                       : KT == 47 ? gvis_vt_vert_47
                                  : gvis_vt_vert_63;
    const hphase_fn h = KT == 15   ? gvis_vt_horiz_15
                        : KT == 31 ? gvis_vt_horiz_31
                        : KT == 47 ? gvis_vt_horiz_47
                                   : gvis_vt_horiz_63;
    for (int t = 0; t < GVIS_VT_THREADS; t++)
        v(p, sv, x0, y0, t);
    for (int t = 0; t < GVIS_VT_THREADS; t++)
        h(p, sv, x0, y0, t);
}

/* gauss_vtile_u8's grid: tiles of 255 - KT columns (the last moved left), bands of bh rows
 * (a multiple of the step's GVIS_VT_ROWS). */
static int emulate(const gvis_image *src, const gvis_gauss_desc *d, gvis_image *dst, int bh)
{
    gvis_vt_params p;
    const int KT = gvis_vt_fill(&p, d, src->data, src->stride, dst->data, dst->stride);
    if (!KT)
        return 0;
    p.bh = bh;
    uint32_t sv[GVIS_VT_ROWS * GVIS_VT_SWORDS];
    /* blocks in reverse order (any order may run): a block that wrote past its own rows or
     * columns leaves its garbage in outputs already written */
    const int gx = (d->width + 254 - KT) / (255 - KT), gy = (d->height + bh - 1) / bh;
    for (int bx = gx - 1; bx >= 0; bx--)
        for (int by = gy - 1, x0 = gvis_vt_tile_x0(d->width, KT, bx), ya; by >= 0 && (ya = by * bh) >= 0; by--)
            for (int y0 = ya; y0 < ya + bh && y0 < d->height; y0 += GVIS_VT_ROWS)
                step(&p, KT, sv, x0, y0);
    return KT;
}

/* bh: steps a block walks */
static void compare(const gvis_image *img, const gvis_gauss_params *p, int bh, int expect_decline)
{
    gvis_gauss_desc d;
    float *taps = make_desc(img, p, &d);
    CHECKF(taps != NULL, "%s", gvis_errmsg());
    if (!taps)
        return;
    gvis_image got, want;
    gvis_image_alloc(&got, img->width, img->height, 1, GVIS_U8, 64);
    gvis_image_alloc(&want, img->width, img->height, 1, GVIS_U8, 0);
    /* poison the output: a sample the grid does not write shows */
    for (int y = 0; y < got.height; y++)
        memset(GVIS_ROW(&got, y), 0x5a, (size_t)got.width);
    const int KT = emulate(img, &d, &got, bh * GVIS_VT_ROWS);
    for (int k = 0; k < d.kx; k++) /* a horizontal identity (a 1-tap kernel among them) */
        expect_decline |= d.wx[k] > 255;
    if (expect_decline) {
        CHECKF(KT == 0, "%dx%d stride %zu k %dx%d: taken, expected declined", img->width, img->height, img->stride,
               d.kx, d.ky);
        declined += KT == 0;
    } else {
        CHECKF(KT != 0, "%dx%d k %dx%d: declined", img->width, img->height, d.kx, d.ky);
        if (KT) {
            CHECK_OK(gvis_gauss_cpu(img, p, &want));
            CHECKF(t_equal(&got, &want), "%dx%d stride %zu k %dx%d (template %d) border %s bh %d: max diff %g",
                   img->width, img->height, img->stride, d.kx, d.ky, KT, border_names[p->border], bh * GVIS_VT_ROWS,
                   t_maxdiff(&got, &want));
            cases++;
        }
    }
    gvis_image_free(&got);
    gvis_image_free(&want);
    free(taps);
}

int main(void)
{
    t_seed(23);
    const int quick = getenv("GVIS_TEST_QUICK") ? atoi(getenv("GVIS_TEST_QUICK")) : 0;
    /* a tile is 240 / 224 / 208 / 192 columns wide (15 / 31 / 47 / 63 taps) */
    const int sizes[][2] = {{1, 1}, {1, 37}, {37, 1}, {3, 2}, {13, 11}, {225, 17}, {224, 40}, {449, 33}, {241, 5},
                            {64, 70}, {631, 479}};
    const int ks[][2] = {{15, 15}, {31, 31}, {47, 47}, {63, 63}, {3, 3}, {17, 17}, {31, 7}, {5, 29}, {63, 1}, {1, 63},
                         {21, 45}, {49, 33}};
    const int nsizes = sizeof sizes / sizeof sizes[0], nks = sizeof ks / sizeof ks[0];
    int n = 0;
    for (int s = 0; s < nsizes; s++) {
        gvis_image img;
        const int big = sizes[s][0] * sizes[s][1] > 100000;
        /* smooth, random, and a few constant patches; 4-byte aligned rows (what the
         * launcher takes), padded past the width every other size */
        t_make(&img, sizes[s][0], sizes[s][1], 1, GVIS_U8, s % 3, 64);
        for (int k = 0; k < nks; k++)
            for (int b = 0; b < 5; b++) {
                if ((big && (b + k) % 4) || (quick && (b + k + s) % 3))
                    continue;
                gvis_gauss_params p = {0, 0, ks[k][0], ks[k][1], b, b == GVIS_BORDER_CONSTANT ? 201 : 0};
                compare(&img, &p, 1 + n++ % 3, 0);
            }
        gvis_image_free(&img);
    }
    /* sizes from sigma, sigma-y apart; a vertical identity (a tap of 256: summed) */
    gvis_image img;
    t_make(&img, 300, 97, 1, GVIS_U8, 1, 64);
    const double sig[][2] = {{4, 0}, {2.5, 7}, {6, 0.1}};
    for (int i = 0; i < 3; i++) {
        gvis_gauss_params p = {sig[i][0], sig[i][1], i == 2 ? 31 : 0, i == 2 ? 31 : 0, i, 17};
        compare(&img, &p, 1, 0);
    }
    /* declined: a horizontal identity (dp2a takes 8-bit taps), a kernel wider than 63 */
    gvis_gauss_params hid = {0.1, 6, 31, 31, 0, 0};
    compare(&img, &hid, 1, 1);
    gvis_gauss_params wide = {0, 0, 65, 65, 0, 0};
    compare(&img, &wide, 1, 1);
    gvis_image_free(&img);
    /* declined: rows not 4-byte aligned (the kernel loads words) */
    t_make(&img, 301, 20, 1, GVIS_U8, 1, 0);
    gvis_gauss_params p31 = {0, 0, 31, 31, 0, 0};
    compare(&img, &p31, 1, img.stride % 4 != 0);
    gvis_image_free(&img);
    CHECKF(declined >= 3, "only %d cases declined", declined);
    CHECKF(cases > (quick ? 60 : 200), "only %d cases ran", cases);
    return t_done("test_gauss_vtile");
}
