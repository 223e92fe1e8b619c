/* Gaussian kernels as OpenCV builds them: sizes from sigma and sigma from sizes, the
 * double taps of getGaussianKernel, their fixed-point rounding, and the size limits. */
#include "gauss.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void gvis_gauss_taps(int n, double sigma, double *k)
{
    /* OpenCV's fixed small kernels (getGaussianKernelBitExact, sigma <= 0) */
    static const double k1[] = {1.0};
    static const double k3[] = {0.25, 0.5, 0.25};
    static const double k5[] = {0.0625, 0.25, 0.375, 0.25, 0.0625};
    static const double k7[] = {0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125};
    static const double k9[] = {4 / 256.0,  13 / 256.0, 30 / 256.0, 51 / 256.0, 60 / 256.0,
                                51 / 256.0, 30 / 256.0, 13 / 256.0, 4 / 256.0};
    static const double *const small[] = {k1, NULL, k3, NULL, k5, NULL, k7, NULL, k9};
    if (sigma <= 0 && n <= 9 && small[n - 1]) {
        memcpy(k, small[n - 1], sizeof(double) * (size_t)n);
        return;
    }
    double s = sigma > 0 ? sigma : fma((double)n, 0.15, 0.35); /* 0.3 * ((n - 1) * 0.5 - 1) + 0.8 */
    double scale = -0.125 / (s * s);                             /* x below is doubled: x^2 / 4 */
    int half = (n - 1) / 2;
    double sum = 0;
    for (int i = 0, x = 1 - n; i < half; i++, x += 2) {
        k[i] = exp((double)x * x * scale); /* exact below 2^53; OpenCV squares in int (overflows past 46341 taps) */
        sum += k[i];
    }
    sum = sum * 2 + 1.0;
    double mul = 1.0 / sum;
    for (int i = 0; i < half; i++) {
        k[i] *= mul;
        k[n - 1 - i] = k[i];
    }
    k[half] = mul;
}

void gvis_gauss_taps_fixed(const double *k, int n, int bits, int32_t *w)
{
    double one = (double)(1 << bits), err = 0;
    int64_t sum = 0;
    for (int i = 0; i < n / 2; i++) {
        double a = k[i] * one + err;
        double v = nearbyint(a); /* round half to even, as cvRound(softdouble) */
        err = a - v;
        w[i] = w[n - 1 - i] = (int32_t)v;
        sum += (int64_t)v;
    }
    w[n / 2] = (int32_t)((1 << bits) - 2 * sum);
}

int gvis_gauss_max_ksize(int width, int height)
{
    long side = width > height ? width : height;
    long m = 8 * side + 1;
    if (m < 1023)
        m = 1023;
    return m > GVIS_GAUSS_MAX_KSIZE ? GVIS_GAUSS_MAX_KSIZE : (int)m;
}

/* k taps (more than GVIS_GAUSS_MAX_KSIZE: "more than" that) are beyond max for this image */
static int too_wide(int k, int max, int width, int height, const char *what, double sigma)
{
    char lim[160];
    if (max == GVIS_GAUSS_MAX_KSIZE)
        snprintf(lim, sizeof lim, "at most %d", max);
    else
        snprintf(lim, sizeof lim, "at most max(1023, 8 x %d + 1) = %d for a %dx%d image",
                 width > height ? width : height, max, width, height);
    if (sigma > 0 && k > GVIS_GAUSS_MAX_KSIZE)
        return gvis_error(GVIS_E_ARG, "%s %g needs a kernel of more than %d taps (%s); give a smaller sigma", what,
                          sigma, GVIS_GAUSS_MAX_KSIZE, lim);
    if (sigma > 0)
        return gvis_error(GVIS_E_ARG, "%s %g needs a kernel of %d taps, %s; give a smaller sigma", what, sigma, k, lim);
    return gvis_error(GVIS_E_ARG, "%s %d: %s", what, k, lim);
}

static int check_ksize(int k, int max, int width, int height, const char *what)
{
    if (k < 0 || (k && !(k & 1)))
        return gvis_error(GVIS_E_ARG, "%s %d: kernel sizes are odd, 1 or more", what, k);
    if (k > max)
        return too_wide(k, max, width, height, what, 0);
    return GVIS_OK;
}

static int size_from_sigma(double sigma, gvis_type t, int max, int width, int height, int *k, const char *what)
{
    double v = sigma * (t == GVIS_U8 ? 3 : 4) * 2 + 1;
    if (!(v <= GVIS_GAUSS_MAX_KSIZE + 1))
        return too_wide(INT32_MAX, max, width, height, what, sigma);
    *k = (int)lrint(v) | 1;
    if (*k > max)
        return too_wide(*k, max, width, height, what, sigma);
    return GVIS_OK;
}

int gvis_gauss_make_kernel(const gvis_gauss_params *p, int width, int height, gvis_type t, gvis_gauss_kernel *k)
{
    if (!isfinite(p->sigma_x) || p->sigma_x < 0)
        return gvis_error(GVIS_E_ARG, "sigma %g: must be 0 or more", p->sigma_x);
    if (!isfinite(p->sigma_y) || p->sigma_y < 0)
        return gvis_error(GVIS_E_ARG, "sigma-y %g: must be 0 or more", p->sigma_y);
    int rc;
    const int max = gvis_gauss_max_ksize(width, height);
    if ((rc = check_ksize(p->ksize_x, max, width, height, "kernel width")) ||
        (rc = check_ksize(p->ksize_y, max, width, height, "kernel height")))
        return rc;
    if (p->border < GVIS_BORDER_REFLECT101 || p->border > GVIS_BORDER_WRAP)
        return gvis_error(GVIS_E_ARG, "unknown border mode %d", p->border);
    if (!isfinite(p->border_value))
        return gvis_error(GVIS_E_ARG, "border value must be finite");
    double sx = p->sigma_x, sy = p->sigma_y > 0 ? p->sigma_y : p->sigma_x;
    int kx = p->ksize_x, ky = p->ksize_y;
    /* GaussianBlur: a side of one pixel needs no taps across it (unless the border is constant) */
    if (p->border != GVIS_BORDER_CONSTANT) {
        if (height == 1)
            ky = 1;
        if (width == 1)
            kx = 1;
    }
    if (kx == 0) {
        if (sx <= 0)
            return gvis_error(GVIS_E_ARG, "give a sigma or a kernel size");
        if ((rc = size_from_sigma(sx, t, max, width, height, &kx, "sigma")))
            return rc;
    }
    if (ky == 0) {
        if (sy <= 0)
            return gvis_error(GVIS_E_ARG, "give a sigma or a kernel size");
        if ((rc = size_from_sigma(sy, t, max, width, height, &ky, p->sigma_y > 0 ? "sigma-y" : "sigma")))
            return rc;
    }
    k->kx = kx;
    k->ky = ky;
    k->sigma_x = sx;
    k->sigma_y = sy;
    k->wx = malloc(sizeof(double) * (size_t)(kx + ky));
    if (!k->wx)
        return gvis_error(GVIS_E_NOMEM, "out of memory for a kernel of %d + %d taps", kx, ky);
    k->wy = k->wx + kx;
    gvis_gauss_taps(kx, sx, k->wx);
    if (ky == kx && fabs(sx - sy) < DBL_EPSILON)
        memcpy(k->wy, k->wx, sizeof(double) * (size_t)kx);
    else
        gvis_gauss_taps(ky, sy, k->wy);
    return GVIS_OK;
}

void gvis_gauss_kernel_free(gvis_gauss_kernel *k)
{
    free(k->wx);
    k->wx = k->wy = NULL;
}

