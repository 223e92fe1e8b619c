/* 2x3 affine matrices and their text file (see matrix.h). */
#include "matrix.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gvis.h"

static int all_finite(const double *m, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(m[i]))
            return 0;
    return 1;
}

int gvis_affine_invert(const double m[6], double inv[6])
{
    if (!all_finite(m, 6))
        return gvis_error(GVIS_E_ARG, "matrix has a coefficient that is not finite");
    /* The operations and their order are cv2.warpAffine's, so that the inverse (and with
     * it every sampling position) is the same double OpenCV computes. */
    double M[6];
    memcpy(M, m, sizeof M);
    double D = M[0] * M[4] - M[1] * M[3];
    if (D == 0 || !isfinite(D))
        return gvis_error(GVIS_E_ARG, "matrix is singular");
    D = 1. / D;
    double A11 = M[4] * D, A22 = M[0] * D;
    M[0] = A11;
    M[1] *= -D;
    M[3] *= -D;
    M[4] = A22;
    double b1 = -M[0] * M[2] - M[1] * M[5];
    double b2 = -M[3] * M[2] - M[4] * M[5];
    M[2] = b1;
    M[5] = b2;
    if (!all_finite(M, 6))
        return gvis_error(GVIS_E_ARG, "matrix is singular or nearly so (its inverse is not finite)");
    memcpy(inv, M, sizeof M);
    return GVIS_OK;
}

int gvis_matrix_read(const char *path, double fwd[6], double inv[6])
{
    gvis_buf b = {0};
    int rc = gvis_read_input(path, GVIS_IN_TEXT, 1 << 20, 0, &b);
    if (rc)
        return rc;
    if (gvis_buf_append(&b, "", 1)) { /* NUL-terminate */
        gvis_buf_free(&b);
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    }
    double v[13];
    int n = 0;
    char *p = (char *)b.data;
    rc = GVIS_OK;
    while (*p && !rc) {
        char *eol = strchr(p, '\n');
        char *next = eol ? eol + 1 : p + strlen(p);
        if (eol)
            *eol = 0;
        char *q = p;
        while (*q == ' ' || *q == '\t' || *q == '\r')
            q++;
        if (*q != '#') {
            for (;;) {
                while (*q == ' ' || *q == '\t' || *q == '\r' || *q == ',')
                    q++;
                if (!*q)
                    break;
                char *end;
                errno = 0;
                double d = strtod(q, &end);
                if (end == q) {
                    rc = gvis_error(GVIS_E_FORMAT, "not a number: '%.20s'", q);
                    break;
                }
                if (!isfinite(d) || errno == ERANGE) {
                    rc = gvis_error(GVIS_E_FORMAT, "coefficient out of range or not finite: '%.*s'",
                                    (int)(end - q < 40 ? end - q : 40), q);
                    break;
                }
                if (n == 12) {
                    rc = gvis_error(GVIS_E_FORMAT, "more than 12 numbers (expected a 2x3 matrix, or two)");
                    break;
                }
                v[n++] = d;
                q = end;
            }
        }
        p = next;
    }
    gvis_buf_free(&b);
    if (rc)
        return rc;
    if (n != 6 && n != 12)
        return gvis_error(GVIS_E_FORMAT, "expected 6 numbers (a 2x3 matrix) or 12 (forward and inverse), found %d", n);
    double f[6], i6[6];
    memcpy(f, v, sizeof f);
    if (n == 12) {
        memcpy(i6, v + 6, sizeof i6);
        /* The two must be inverses of each other: a swapped or edited file would map
         * boxes to the wrong place without any other sign. */
        double c[6] = {
            f[0] * i6[0] + f[1] * i6[3], f[0] * i6[1] + f[1] * i6[4], f[0] * i6[2] + f[1] * i6[5] + f[2],
            f[3] * i6[0] + f[4] * i6[3], f[3] * i6[1] + f[4] * i6[4], f[3] * i6[2] + f[4] * i6[5] + f[5],
        };
        double id[6] = {1, 0, 0, 0, 1, 0};
        double scale = 1;
        for (int k = 0; k < 6; k++)
            scale = fmax(scale, fabs(f[k]) + fabs(i6[k]));
        for (int k = 0; k < 6; k++)
            if (!(fabs(c[k] - id[k]) <= 1e-6 * scale))
                return gvis_error(GVIS_E_FORMAT, "the two matrices are not inverses of each other");
    } else if (gvis_affine_invert(f, i6)) {
        return gvis_error(GVIS_E_FORMAT, "%s", gvis_errmsg());
    }
    memcpy(fwd, f, sizeof f);
    memcpy(inv, i6, sizeof i6);
    return GVIS_OK;
}

int gvis_matrix_format(const double fwd0[6], const double inv0[6], char *out, size_t outlen)
{
    double fwd[6], inv[6];
    for (int k = 0; k < 6; k++) { /* + 0.0 turns -0 into 0 */
        fwd[k] = fwd0[k] + 0.0;
        inv[k] = inv0[k] + 0.0;
    }
    int n = snprintf(out, outlen,
                     "# gvis affine matrices a b c d e f (x' = a*x + b*y + c, y' = d*x + e*y + f): "
                     "forward (source to destination), then inverse\n"
                     "%.17g %.17g %.17g %.17g %.17g %.17g\n%.17g %.17g %.17g %.17g %.17g %.17g\n",
                     fwd[0], fwd[1], fwd[2], fwd[3], fwd[4], fwd[5], inv[0], inv[1], inv[2], inv[3], inv[4], inv[5]);
    if (n < 0 || (size_t)n >= outlen)
        return gvis_error(GVIS_E_ARG, "matrix text does not fit its buffer");
    return GVIS_OK;
}

int gvis_matrix_write(const char *path, const double fwd[6], const double inv[6])
{
    char text[1024];
    int rc = gvis_matrix_format(fwd, inv, text, sizeof text);
    if (rc)
        return rc;
    return gvis_write_file_atomic(path, text, strlen(text));
}
