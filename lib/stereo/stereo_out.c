/* Disparity outputs (KITTI PNG, PFM, int16 NPY, preview, PLY) and scoring. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stereo_out.h"

/* Pixel i in pixels; 0 when invalid.  The float plane where the map has one. */
static inline int disp_px(const gvis_disp *d, size_t i, double *v)
{
    if (d->fdata) {
        *v = d->fdata[i];
        return !isnan(d->fdata[i]);
    }
    *v = d->data[i] / 16.0;
    return d->data[i] != GVIS_SGM_INVALID(d->min_disp);
}

int gvis_disp_kitti(const gvis_disp *d, gvis_image *out, size_t *zero, size_t *negative, size_t *clipped)
{
    int rc = gvis_image_alloc(out, d->width, d->height, 1, GVIS_U16, 0);
    if (rc)
        return rc;
    const int16_t inv = GVIS_SGM_INVALID(d->min_disp);
    size_t nz = 0, np = 0, cl = 0;
    for (int y = 0; y < d->height; y++) {
        uint16_t *o = GVIS_ROW(out, y);
        const int16_t *s = d->data + (size_t)y * d->width;
        for (int x = 0; x < d->width; x++) {
            long v = s[x] == inv ? 0 : (long)s[x] * 16; /* x16 -> x256 */
            int ok = s[x] != inv;
            if (d->fdata) {
                const float f = d->fdata[(size_t)y * d->width + x];
                ok = !isnan(f);
                v = ok ? lround(f * 256.0) : 0;
            }
            if (ok && v <= 0) {
                nz += v == 0;
                np += v < 0;
                v = 0;
            } else if (v > 65535) {
                cl++;
                v = 65535;
            }
            o[x] = (uint16_t)v;
        }
    }
    if (zero)
        *zero = nz;
    if (negative)
        *negative = np;
    if (clipped)
        *clipped = cl;
    return GVIS_OK;
}

int gvis_disp_float(const gvis_disp *d, gvis_image *out)
{
    int rc = gvis_image_alloc(out, d->width, d->height, 1, GVIS_F32, 0);
    if (rc)
        return rc;
    const int16_t inv = GVIS_SGM_INVALID(d->min_disp);
    for (int y = 0; y < d->height; y++) {
        float *o = GVIS_ROW(out, y);
        const int16_t *s = d->data + (size_t)y * d->width;
        for (int x = 0; x < d->width; x++) {
            if (d->fdata) {
                const float f = d->fdata[(size_t)y * d->width + x];
                o[x] = isnan(f) ? INFINITY : f;
            } else {
                o[x] = s[x] == inv ? INFINITY : (float)s[x] / 16.0f;
            }
        }
    }
    return GVIS_OK;
}

int gvis_disp_encode_cv16(const gvis_disp *d, gvis_buf *b)
{
    char head[128];
    int n = snprintf(head, sizeof head, "{'descr': '<i2', 'fortran_order': False, 'shape': (%d, %d), }", d->height,
                     d->width);
    /* magic, version 1.0, header length; header padded with spaces to 64 bytes and a newline */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    uint16_t hl = (uint16_t)(n + pad + 1);
    int rc = gvis_buf_append(b, "\x93NUMPY\x01\x00", 8);
    uint8_t le[2] = {(uint8_t)(hl & 0xff), (uint8_t)(hl >> 8)};
    if (!rc)
        rc = gvis_buf_append(b, le, 2);
    if (!rc)
        rc = gvis_buf_append(b, head, (size_t)n);
    for (size_t i = 0; !rc && i < pad; i++)
        rc = gvis_buf_append(b, " ", 1);
    if (!rc)
        rc = gvis_buf_append(b, "\n", 1);
    size_t bytes = (size_t)d->width * d->height * 2;
    if (!rc)
        rc = gvis_buf_reserve(b, bytes);
    for (size_t i = 0; !rc && i < (size_t)d->width * d->height; i++) {
        uint16_t v = (uint16_t)d->data[i];
        uint8_t w[2] = {(uint8_t)(v & 0xff), (uint8_t)(v >> 8)};
        memcpy(b->data + b->len, w, 2);
        b->len += 2;
    }
    return rc;
}

/* Google's turbo colour map (A. Mikhailov, 2019), its polynomial approximation. */
static void turbo(double t, uint8_t rgb[3])
{
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    const double r = 0.13572138 + t * (4.61539260 + t * (-42.66032258 + t * (132.13108234 + t * (-152.94239396 + t * 59.28637943))));
    const double g = 0.09140261 + t * (2.19418839 + t * (4.84296658 + t * (-14.18503333 + t * (4.27729857 + t * 2.82956604))));
    const double b = 0.10667330 + t * (12.64194608 + t * (-60.58204836 + t * (110.36276771 + t * (-89.90310912 + t * 27.34824973))));
    const double c[3] = {r, g, b};
    for (int i = 0; i < 3; i++) {
        double v = c[i] < 0 ? 0 : c[i] > 1 ? 1 : c[i];
        rgb[i] = (uint8_t)lround(v * 255.0);
    }
}

int gvis_disp_preview(const gvis_disp *d, double lo, double hi, gvis_image *out)
{
    int rc = gvis_image_alloc(out, d->width, d->height, 3, GVIS_U8, 0);
    if (rc)
        return rc;
    uint8_t lut[4096][3];
    for (int i = 0; i < 4096; i++)
        turbo(i / 4095.0, lut[i]);
    const int16_t inv = GVIS_SGM_INVALID(d->min_disp);
    if (!(hi > lo)) {
        /* the map's own range, from its 1st to its 99th percentile of valid disparities:
         * the colours spread over what is there, a few outliers do not squeeze them */
        uint32_t *count = calloc(65536, sizeof *count);
        if (!count) {
            gvis_image_free(out);
            return gvis_error(GVIS_E_NOMEM, "out of memory");
        }
        size_t n = 0;
        for (size_t i = 0; i < (size_t)d->width * d->height; i++)
            if (d->data[i] != inv) {
                count[d->data[i] + 32768]++;
                n++;
            }
        size_t acc = 0, lo_rank = n / 100, hi_rank = n - n / 100;
        int lo_v = 0, hi_v = 0, have_lo = 0;
        for (int v = 0; v < 65536 && n; v++) {
            acc += count[v];
            if (!have_lo && acc > lo_rank)
                lo_v = v - 32768, have_lo = 1;
            if (acc >= hi_rank) {
                hi_v = v - 32768;
                break;
            }
        }
        free(count);
        lo = lo_v / 16.0;
        hi = hi_v > lo_v ? hi_v / 16.0 : lo + 1;
    }
    const double span = hi > lo ? hi - lo : 1.0;
    for (int y = 0; y < d->height; y++) {
        uint8_t *o = GVIS_ROW(out, y);
        const int16_t *s = d->data + (size_t)y * d->width;
        for (int x = 0; x < d->width; x++, o += 3) {
            if (s[x] == inv) {
                o[0] = o[1] = o[2] = 0;
                continue;
            }
            double t = (s[x] / 16.0 - lo) / span;
            int i = (int)lround((t < 0 ? 0 : t > 1 ? 1 : t) * 4095.0);
            memcpy(o, lut[i], 3);
        }
    }
    return GVIS_OK;
}

void gvis_disp_q(double focal, double baseline, double cx, double cy, double q[16])
{
    const double m[16] = {1, 0, 0, -cx, 0, 1, 0, -cy, 0, 0, 0, focal, 0, 0, 1.0 / baseline, 0};
    memcpy(q, m, sizeof m);
}

int gvis_disp_parse_q(const char *text, double q[16])
{
    int n = 0;
    const char *p = text;
    while (*p && n < 17) {
        if (strchr(" \t\r\n,;[]", *p)) {
            p++;
            continue;
        }
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v))
            return gvis_error(GVIS_E_FORMAT, "not a number at '%.10s'", p);
        if (n < 16)
            q[n] = v;
        n++;
        p = end;
    }
    if (n != 16)
        return gvis_error(GVIS_E_FORMAT, "a Q matrix has 16 numbers, this file has %s%d", n > 16 ? "more than " : "",
                          n > 16 ? 16 : n);
    return GVIS_OK;
}

static void put_f32(uint8_t *p, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    p[0] = (uint8_t)u, p[1] = (uint8_t)(u >> 8), p[2] = (uint8_t)(u >> 16), p[3] = (uint8_t)(u >> 24);
}

int gvis_disp_q_check(const double q[16])
{
    for (int i = 0; i < 16; i++)
        if (!isfinite(q[i]))
            return gvis_error(GVIS_E_ARG, "the Q matrix has an entry that is not finite");
    int w = 0, xyz = 0;
    for (int i = 0; i < 12; i++)
        xyz |= q[i] != 0;
    for (int i = 12; i < 16; i++)
        w |= q[i] != 0;
    if (!w)
        return gvis_error(GVIS_E_ARG, "the Q matrix is degenerate: its last row is zero (every point at infinity)");
    if (!xyz)
        return gvis_error(GVIS_E_ARG, "the Q matrix is degenerate: its first three rows are zero (every point at 0)");
    return GVIS_OK;
}

/* finite as a float32: what the PLY holds */
static int f32_ok(double v) { return isfinite(v) && fabs(v) <= FLT_MAX; }

int gvis_disp_ply(const gvis_disp *d, const gvis_image *left, const double q[16], gvis_buf *b, size_t *points,
                  size_t *left_out)
{
    gvis_buf body = {0};
    size_t np = 0, dropped = 0;
    int rc = GVIS_OK;
    for (int y = 0; y < d->height && !rc; y++)
        for (int x = 0; x < d->width && !rc; x++) {
            double dd;
            if (!disp_px(d, (size_t)y * d->width + x, &dd))
                continue;
            const double X = q[0] * x + q[1] * y + q[2] * dd + q[3];
            const double Y = q[4] * x + q[5] * y + q[6] * dd + q[7];
            const double Z = q[8] * x + q[9] * y + q[10] * dd + q[11];
            const double Wh = q[12] * x + q[13] * y + q[14] * dd + q[15];
            if (Wh == 0) /* disparity 0: a point at infinity, left out as always */
                continue;
            if (!f32_ok(X / Wh) || !f32_ok(Y / Wh) || !f32_ok(Z / Wh)) {
                dropped++;
                continue;
            }
            uint8_t rec[15];
            put_f32(rec, (float)(X / Wh));
            put_f32(rec + 4, (float)(Y / Wh));
            put_f32(rec + 8, (float)(Z / Wh));
            uint8_t c[3] = {255, 255, 255};
            if (left && left->type != GVIS_F32 && x < left->width && y < left->height) {
                const int ch = left->channels;
                for (int i = 0; i < 3; i++) {
                    int ci = ch >= 3 ? i : 0;
                    c[i] = left->type == GVIS_U8
                               ? ((const uint8_t *)GVIS_ROW(left, y))[(size_t)x * ch + ci]
                               : (uint8_t)(((const uint16_t *)GVIS_ROW(left, y))[(size_t)x * ch + ci] >> 8);
                }
            }
            memcpy(rec + 12, c, 3);
            rc = gvis_buf_append(&body, rec, sizeof rec);
            np++;
        }
    if (!rc)
        rc = gvis_buf_printf(b,
                             "ply\nformat binary_little_endian 1.0\ncomment gvis disparity\nelement vertex %zu\n"
                             "property float x\nproperty float y\nproperty float z\n"
                             "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n",
                             np);
    if (!rc && body.len)
        rc = gvis_buf_append(b, body.data, body.len);
    gvis_buf_free(&body);
    if (points)
        *points = np;
    if (left_out)
        *left_out = dropped;
    return rc;
}

int gvis_disp_score(const gvis_disp *d, const gvis_image *gt, double scale, int border, gvis_disp_score_t *s)
{
    memset(s, 0, sizeof *s);
    if (gt->width != d->width || gt->height != d->height)
        return gvis_error(GVIS_E_FORMAT, "ground truth is %dx%d but the disparity map is %dx%d", gt->width,
                          gt->height, d->width, d->height);
    if (gt->channels != 1)
        return gvis_error(GVIS_E_FORMAT, "ground truth must have one channel, this one has %d", gt->channels);
    if (!(scale > 0))
        return gvis_error(GVIS_E_ARG, "ground-truth scale must be positive");
    size_t b1 = 0, b2 = 0;
    double err = 0;
    for (int y = border; y < d->height - border; y++)
        for (int x = border; x < d->width - border; x++) {
            double t;
            if (gt->type == GVIS_U8)
                t = ((const uint8_t *)GVIS_ROW(gt, y))[x];
            else if (gt->type == GVIS_U16)
                t = ((const uint16_t *)GVIS_ROW(gt, y))[x];
            else
                t = ((const float *)GVIS_ROW(gt, y))[x];
            if (!isfinite(t) || t <= 0)
                continue;
            t /= scale;
            s->scored++;
            double v;
            if (!disp_px(d, (size_t)y * d->width + x, &v)) {
                b1++, b2++;
                continue;
            }
            s->valid++;
            double e = fabs(v - t);
            err += e;
            b1 += e > 1.0;
            b2 += e > 2.0;
        }
    if (s->scored) {
        s->bad1 = 100.0 * b1 / s->scored;
        s->bad2 = 100.0 * b2 / s->scored;
        s->density = 100.0 * s->valid / s->scored;
    }
    s->mae = s->valid ? err / s->valid : 0;
    return GVIS_OK;
}

int gvis_disp_gt_scale(const gvis_disp *d, const gvis_image *gt, int border, double *scale, double *ratio)
{
    *scale = 1;
    if (ratio)
        *ratio = 0;
    if (gt->width != d->width || gt->height != d->height)
        return gvis_error(GVIS_E_FORMAT, "ground truth is %dx%d but the disparity map is %dx%d", gt->width,
                          gt->height, d->width, d->height);
    if (gt->channels != 1)
        return gvis_error(GVIS_E_FORMAT, "ground truth must have one channel, this one has %d", gt->channels);
    /* the median of log2(gt / d) from a histogram: 64 bins an octave over 2^-8 .. 2^16 */
    enum { PER_OCTAVE = 64, LO = -8, OCTAVES = 24, NBINS = PER_OCTAVE * OCTAVES };
    size_t *hist = calloc(NBINS, sizeof *hist), n = 0;
    if (!hist)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    const int16_t inv = GVIS_SGM_INVALID(d->min_disp);
    for (int y = border; y < d->height - border; y++)
        for (int x = border; x < d->width - border; x++) {
            double t;
            if (gt->type == GVIS_U8)
                t = ((const uint8_t *)GVIS_ROW(gt, y))[x];
            else if (gt->type == GVIS_U16)
                t = ((const uint16_t *)GVIS_ROW(gt, y))[x];
            else
                t = ((const float *)GVIS_ROW(gt, y))[x];
            int16_t v = d->data[(size_t)y * d->width + x];
            if (!isfinite(t) || t <= 0 || v == inv || v < 16)
                continue;
            int b = (int)floor((log2(t / (v / 16.0)) - LO) * PER_OCTAVE);
            hist[b < 0 ? 0 : b >= NBINS ? NBINS - 1 : b]++;
            n++;
        }
    if (n == 0) {
        free(hist);
        return gvis_error(GVIS_E_FORMAT, "no pixel where both the ground truth and the disparity are known, so "
                                         "its scale cannot be told; give --gt-scale");
    }
    size_t acc = 0;
    int b = 0;
    while (b < NBINS - 1 && (acc += hist[b]) < (n + 1) / 2)
        b++;
    free(hist);
    double l2 = LO + (b + 0.5) / PER_OCTAVE, r = exp2(l2);
    if (ratio)
        *ratio = r;
    double k = nearbyint(l2);
    if (k < 0 || k > 8 || fabs(l2 - k) > log2(1.2))
        return gvis_error(GVIS_E_FORMAT, "ground truth values are %.3g times the disparities found, near no usual "
                                         "scale (1, 2, 4 ... 256): is it the truth of this pair? give --gt-scale", r);
    *scale = exp2(k);
    return GVIS_OK;
}
