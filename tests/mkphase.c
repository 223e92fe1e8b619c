/* mkphase: a synthetic structured-light phase pair with known disparity, for the
 * tests and scripts/bench (scripts/gen-phase wraps it).
 *   mkphase [options] PREFIX   writes PREFIX-left.pfm, PREFIX-right.pfm, PREFIX-gt.pfm
 * Options:
 *   --size WxH        (160x120)          --scene planes|slant|file (planes)
 *   --disp FILE       a left-view ground truth (PFM, PNG, PGM) for --scene file
 *   --disp-scale S    its value per pixel of disparity (1)
 *   --period P        fringe period in pixels: phase = 2 pi x / P + smooth terms (32)
 *   --noise F         Gaussian phase noise, sigma = F x 2 pi (a fraction of the period)
 *   --holes N         N unlit disks on the scene (0)
 *   --wraps N         N left pixels off by +-2 pi (unwrapping artefacts) (0)
 *   --seed N          random numbers (1)
 * The left phase is a smooth strictly increasing function of x (plus a slow term in y);
 * the right row is rendered from the left surface: each left segment [x, x+1] on one
 * surface (|d(x+1) - d(x)| < 1) lands on right positions x - d, the nearer surface
 * (larger d) winning, so right(x - d(x)) = left(x).  Right pixels no segment covers are
 * unlit (0).  The truth (PFM, +inf unknown) holds the left pixels that are lit, seen by
 * the right camera, and not touched by --wraps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvis.h"

static uint64_t rng = 1;
static double uni(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}
static double gauss(void)
{
    double u = uni(), v = uni();
    return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

static void usage(void)
{
    fprintf(stderr, "usage: mkphase [--size WxH] [--scene planes|slant|file] [--disp FILE] [--disp-scale S]\n"
                    "               [--period P] [--noise F] [--holes N] [--wraps N] [--seed N] PREFIX\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int W = 160, H = 120, holes = 0, wraps = 0;
    double period = 32, noise = 0, dscale = 1;
    const char *scene = "planes", *dfile = NULL, *prefix = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--size") == 0 && v) {
            if (sscanf(v, "%dx%d", &W, &H) != 2 || W < 1 || H < 1 || W > 20000 || H > 20000)
                usage();
            i++;
        } else if (strcmp(a, "--scene") == 0 && v)
            scene = v, i++;
        else if (strcmp(a, "--disp") == 0 && v)
            dfile = v, i++;
        else if (strcmp(a, "--disp-scale") == 0 && v)
            dscale = atof(v), i++;
        else if (strcmp(a, "--period") == 0 && v)
            period = atof(v), i++;
        else if (strcmp(a, "--noise") == 0 && v)
            noise = atof(v), i++;
        else if (strcmp(a, "--holes") == 0 && v)
            holes = atoi(v), i++;
        else if (strcmp(a, "--wraps") == 0 && v)
            wraps = atoi(v), i++;
        else if (strcmp(a, "--seed") == 0 && v)
            rng = (uint64_t)strtoull(v, NULL, 10) * 2654435761u + 88172645463325252ull, i++;
        else if (a[0] == '-' || prefix)
            usage();
        else
            prefix = a;
    }
    if (!prefix || !(period > 1) || !(dscale > 0) || noise < 0)
        usage();
    gvis_ctx *ctx = NULL;
    if (gvis_ctx_create(&ctx, "cpu", 1, NULL, NULL, NULL)) {
        fprintf(stderr, "mkphase: %s\n", gvis_errmsg());
        return 1;
    }
    gvis_image din = {0};
    if (strcmp(scene, "file") == 0) {
        if (!dfile || gvis_load(ctx, dfile, &din) || din.channels != 1) {
            fprintf(stderr, "mkphase: --scene file needs --disp FILE (one channel): %s\n", gvis_errmsg());
            return 1;
        }
        W = din.width, H = din.height;
    } else if (strcmp(scene, "planes") && strcmp(scene, "slant")) {
        usage();
    }
    const size_t n = (size_t)W * H;
    double *d = malloc(n * sizeof *d);
    unsigned char *lit = malloc(n);
    gvis_image L = {0}, R = {0}, G = {0};
    if (!d || !lit || gvis_image_alloc(&L, W, H, 1, GVIS_F32, 0) || gvis_image_alloc(&R, W, H, 1, GVIS_F32, 0) ||
        gvis_image_alloc(&G, W, H, 1, GVIS_F32, 0)) {
        fprintf(stderr, "mkphase: out of memory\n");
        return 1;
    }
    /* the left disparity (<= 0 or unknown: that pixel is unlit) */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double v;
            if (din.data) {
                const void *row = GVIS_ROW(&din, y);
                v = din.type == GVIS_F32   ? ((const float *)row)[x]
                    : din.type == GVIS_U16 ? ((const uint16_t *)row)[x]
                                           : ((const uint8_t *)row)[x];
                v = isfinite(v) && v > 0 ? v / dscale : 0;
            } else if (scene[0] == 's') {
                v = 8 + 0.05 * x + 0.03 * y;
            } else {
                const int in = x > W / 3 && x < 2 * W / 3 && y > H / 4 && y < 3 * H / 4;
                v = in ? 8 + W / 16.0 : 8;
            }
            d[(size_t)y * W + x] = v;
            lit[(size_t)y * W + x] = v > 0;
        }
    for (int k = 0; k < holes; k++) {
        const double cx = uni() * W, cy = uni() * H, r = 2 + uni() * (W < H ? W : H) / 12.0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r)
                    lit[(size_t)y * W + x] = 0;
    }
    const double k2 = 6.283185307179586 / period;
    for (int y = 0; y < H; y++) {
        float *lp = GVIS_ROW(&L, y), *rp = GVIS_ROW(&R, y), *gp = GVIS_ROW(&G, y);
        const double *dr = d + (size_t)y * W;
        const unsigned char *lr = lit + (size_t)y * W;
        /* strictly increasing in x: the slope k2 outweighs the wobble's 0.25 k2 */
#define PHI(xx) (1.0 + k2 * (xx) + 0.25 * sin(k2 * (xx) * 0.21 + 0.002 * y) + 0.01 * y)
        double *zbuf = malloc(sizeof(double) * (size_t)W);
        int *src = malloc(sizeof(int) * (size_t)W);
        if (!zbuf || !src)
            return 1;
        for (int x = 0; x < W; x++) {
            lp[x] = lr[x] ? (float)PHI(x) : 0.0f;
            rp[x] = 0.0f;
            zbuf[x] = -1e300;
            src[x] = -1;
        }
        /* render the right row segment by segment */
        for (int x = 0; x + 1 < W; x++) {
            if (!lr[x] || !lr[x + 1] || fabs(dr[x + 1] - dr[x]) >= 1.0)
                continue;
            const double g0 = x - dr[x], g1 = x + 1 - dr[x + 1];
            if (!(g1 > g0))
                continue;
            for (int xr = (int)ceil(g0); xr < g1; xr++) {
                if (xr < 0 || xr >= W)
                    continue;
                const double u = (xr - g0) / (g1 - g0), dd = dr[x] + u * (dr[x + 1] - dr[x]);
                if (dd > zbuf[xr]) {
                    zbuf[xr] = dd;
                    rp[xr] = (float)PHI(x + u);
                    src[xr] = x;
                }
            }
        }
        /* the truth: lit left pixels whose point the right camera sees (not occluded) */
        for (int x = 0; x < W; x++) {
            gp[x] = INFINITY;
            if (!lr[x])
                continue;
            const double xr = x - dr[x];
            const int xi = (int)floor(xr);
            if (xi < 0 || xi + 1 >= W || rp[xi] == 0.0f || rp[xi + 1] == 0.0f)
                continue;
            if (fabs(zbuf[xi] - dr[x]) > 0.5 || fabs(zbuf[xi + 1] - dr[x]) > 0.5)
                continue;
            gp[x] = (float)dr[x];
        }
#undef PHI
        free(zbuf);
        free(src);
    }
    for (int k = 0; k < wraps; k++) {
        const int x = (int)(uni() * W), y = (int)(uni() * H);
        float *lp = GVIS_ROW(&L, y), *gp = GVIS_ROW(&G, y);
        if (lp[x] > 0) {
            lp[x] += (float)(uni() < 0.5 ? 6.283185307179586 : -6.283185307179586);
            if (lp[x] <= 0)
                lp[x] = 0;
            gp[x] = INFINITY;
        }
    }
    if (noise > 0)
        for (int y = 0; y < H; y++) {
            float *lp = GVIS_ROW(&L, y), *rp = GVIS_ROW(&R, y);
            for (int x = 0; x < W; x++) {
                if (lp[x] > 0)
                    lp[x] = (float)(lp[x] + gauss() * noise * 6.283185307179586);
                if (rp[x] > 0)
                    rp[x] = (float)(rp[x] + gauss() * noise * 6.283185307179586);
            }
        }
    char path[4096];
    const char *names[3] = {"left", "right", "gt"};
    gvis_image *imgs[3] = {&L, &R, &G};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s-%s.pfm", prefix, names[i]);
        if (gvis_save(ctx, path, GVIS_FMT_PFM, imgs[i])) {
            fprintf(stderr, "mkphase: '%s': %s\n", path, gvis_errmsg());
            return 1;
        }
    }
    gvis_image_free(&L), gvis_image_free(&R), gvis_image_free(&G), gvis_image_free(&din);
    free(d), free(lit);
    gvis_ctx_free(ctx);
    return 0;
}
