/* gvis disparity --method phase: its options, their check, and the run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disparity_phase.h"

void disp_method_init(struct disp_method *m)
{
    memset(m, 0, sizeof *m);
    m->method = DISP_SGM;
    gvis_phase_defaults(&m->ph);
}

int disp_parse_method(const char *v, void *dst, char *err, size_t errlen)
{
    struct disp_method *m = dst;
    if (strcmp(v, "sgm") == 0)
        m->method = DISP_SGM;
    else if (strcmp(v, "phase") == 0)
        m->method = DISP_PHASE;
    else {
        snprintf(err, errlen, "'%s' is not sgm or phase", v);
        return -1;
    }
    return 0;
}

static int number(const char *v, double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || !isfinite(d)) {
        snprintf(err, errlen, "'%s' is not a finite number", v);
        return -1;
    }
    *out = d;
    return 0;
}

int disp_parse_phase_scale(const char *v, void *dst, char *err, size_t errlen)
{
    struct disp_method *m = dst;
    double d;
    if (number(v, &d, err, errlen))
        return -1;
    if (!(d > 0)) {
        snprintf(err, errlen, "'%s' is not a positive number", v);
        return -1;
    }
    m->ph.scale = d;
    m->given = "--phase-scale";
    return 0;
}

int disp_parse_phase_tol(const char *v, void *dst, char *err, size_t errlen)
{
    struct disp_method *m = dst;
    double d;
    if (number(v, &d, err, errlen))
        return -1;
    if (!(d >= 0) || d > 3.0e38) {
        snprintf(err, errlen, "'%s' is not a number >= 0", v);
        return -1;
    }
    m->ph.tol = (float)d;
    m->given = "--phase-tol";
    return 0;
}

int disp_parse_window(const char *v, void *dst, char *err, size_t errlen)
{
    struct disp_method *m = dst;
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 1 || n > 1000001 || n % 2 == 0) {
        snprintf(err, errlen, "'%s' is not an odd number >= 1", v);
        return -1;
    }
    m->ph.window = (int)n;
    m->given = "--window";
    return 0;
}

int disp_parse_valid_min(const char *v, void *dst, char *err, size_t errlen)
{
    struct disp_method *m = dst;
    double d;
    if (number(v, &d, err, errlen))
        return -1;
    if (fabs(d) > 3.0e38) {
        snprintf(err, errlen, "'%s' is out of the float range", v);
        return -1;
    }
    m->ph.valid_min = (float)d;
    m->given = "--valid-min";
    return 0;
}

int disp_parse_roi(const char *v, void *dst, char *err, size_t errlen)
{
    struct disp_method *m = dst;
    long r[4];
    const char *s = v;
    for (int i = 0; i < 4; i++) {
        char *end;
        r[i] = strtol(s, &end, 10);
        if (end == s || r[i] < 0 || r[i] > 1000000 || (i < 3 && *end != ',') || (i == 3 && *end)) {
            snprintf(err, errlen, "'%s' is not x0,y0,x1,y1 (four whole numbers >= 0)", v);
            return -1;
        }
        s = end + 1;
    }
    if (r[2] <= r[0] || r[3] <= r[1]) {
        snprintf(err, errlen, "'%s' is an empty region (x0 < x1 and y0 < y1; x1, y1 exclusive)", v);
        return -1;
    }
    for (int i = 0; i < 4; i++)
        m->ph.roi[i] = (int)r[i];
    m->ph.have_roi = 1;
    m->given = "--roi";
    return 0;
}

int disp_parse_search(const char *v, void *dst, char *err, size_t errlen)
{
    struct disp_method *m = dst;
    if (strcmp(v, "ordered") == 0)
        m->ph.search = GVIS_PHASE_ORDERED;
    else if (strcmp(v, "full") == 0)
        m->ph.search = GVIS_PHASE_FULL;
    else {
        snprintf(err, errlen, "'%s' is not ordered or full", v);
        return -1;
    }
    m->given = "--search";
    return 0;
}

int disp_method_check(struct disp_method *m, const gvis_sgm_params *p)
{
    if (m->method == DISP_SGM) {
        if (m->given)
            return gvis_error(GVIS_E_ARG, "%s is an option of --method phase", m->given);
        return gvis_sgm_check(p, 0, 0);
    }
    m->ph.min_disp = p->min_disp;
    m->ph.num_disp = p->max_disp;
    m->ph.subpixel = p->subpixel;
    m->ph.lr_check = p->lr_check;
    return gvis_phase_check(&m->ph, 0, 0);
}

/* Crops a whole-image ground truth to the region (one of the region's size stays). */
static int crop_gt(gvis_image *gt, const gvis_phase_params *ph, int width, int height)
{
    const int rw = ph->roi[2] - ph->roi[0], rh = ph->roi[3] - ph->roi[1];
    if (gt->width == rw && gt->height == rh)
        return GVIS_OK;
    if (gt->width != width || gt->height != height)
        return gvis_error(GVIS_E_FORMAT, "ground truth is %dx%d, neither the image (%dx%d) nor the region (%dx%d)",
                          gt->width, gt->height, width, height, rw, rh);
    gvis_image c = {0};
    int rc = gvis_image_alloc(&c, rw, rh, gt->channels, gt->type, 0);
    if (rc)
        return rc;
    const size_t px = (size_t)gt->channels * (size_t)gt->type;
    for (int y = 0; y < rh; y++)
        memcpy(GVIS_ROW(&c, y), (const uint8_t *)GVIS_ROW(gt, ph->roi[1] + y) + (size_t)ph->roi[0] * px,
               (size_t)rw * px);
    gvis_image_free(gt);
    *gt = c;
    return GVIS_OK;
}

int disp_method_run(gvis_ctx *ctx, const struct disp_method *m, const gvis_sgm_params *p, const gvis_image *left,
                    const gvis_image *right, gvis_image *gt, gvis_disp *out_left, gvis_disp *out_right)
{
    if (m->method == DISP_SGM)
        return gvis_sgm(ctx, left, right, p, out_left, out_right);
    int rc = gvis_phase(ctx, left, right, &m->ph, out_left, out_right);
    if (!rc && gt && gt->data && m->ph.have_roi && (rc = crop_gt(gt, &m->ph, left->width, left->height))) {
        gvis_disp_free(out_left);
        if (out_right)
            gvis_disp_free(out_right);
    }
    return rc;
}
