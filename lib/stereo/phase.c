/* gvis disparity --method phase: parameters, the phase maps as float, and the entry
 * point that runs the matcher (lib/stereo/phase_match.c or cuda/stereo/phase_match.cu)
 * and fills the disparity maps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "phase.h"
#ifdef GVIS_HAVE_CUDA
#include "phase_cuda.h"
#endif

void gvis_phase_defaults(gvis_phase_params *p)
{
    memset(p, 0, sizeof *p);
    p->min_disp = 0;
    p->num_disp = 128;
    p->tol = 0.5f;
    p->window = 3;
    p->valid_min = 0.001f;
    p->scale = 1.0;
    p->search = GVIS_PHASE_ORDERED;
    p->subpixel = 1;
    p->lr_check = 1;
}

int gvis_phase_check(const gvis_phase_params *p, int width, int height)
{
    const int A = GVIS_PHASE_MAX_ABS_DISP;
    if (p->num_disp < 1)
        return gvis_error(GVIS_E_ARG, "max-disp %d: the search range needs at least 1 disparity", p->num_disp);
    if (p->min_disp < -A || p->min_disp > A || (long)p->min_disp + p->num_disp - 1 > A)
        return gvis_error(GVIS_E_ARG, "disparities %d..%ld are outside -%d..%d", p->min_disp,
                          (long)p->min_disp + p->num_disp - 1, A, A);
    if (!(p->tol >= 0) || !isfinite(p->tol))
        return gvis_error(GVIS_E_ARG, "phase-tol must be a finite number >= 0");
    if (p->window < 1 || p->window % 2 == 0)
        return gvis_error(GVIS_E_ARG, "window %d is not an odd number >= 1", p->window);
    if (!isfinite(p->valid_min))
        return gvis_error(GVIS_E_ARG, "valid-min must be finite");
    if (!(p->scale > 0) || !isfinite(p->scale))
        return gvis_error(GVIS_E_ARG, "phase-scale must be positive");
    if (p->search != GVIS_PHASE_FULL && p->search != GVIS_PHASE_ORDERED)
        return gvis_error(GVIS_E_ARG, "unknown search %d", p->search);
    if (p->lr_check > 1000)
        return gvis_error(GVIS_E_ARG, "lr-check tolerance %d is too large", p->lr_check);
    if (p->have_roi && (p->roi[0] < 0 || p->roi[1] < 0 || p->roi[2] <= p->roi[0] || p->roi[3] <= p->roi[1]))
        return gvis_error(GVIS_E_ARG, "region %d,%d,%d,%d is empty (x0,y0,x1,y1 with x0 < x1, y0 < y1)", p->roi[0],
                          p->roi[1], p->roi[2], p->roi[3]);
    if (width > 0 && height > 0) {
        if (p->window > width)
            return gvis_error(GVIS_E_ARG, "window %d is wider than the rows (%d pixels)", p->window, width);
        if (p->num_disp > width)
            return gvis_error(GVIS_E_ARG, "disparity range of %d is wider than the image (%d pixels)", p->num_disp,
                              width);
        if (p->min_disp > width - 1 || (long)p->min_disp + p->num_disp - 1 < -(width - 1))
            return gvis_error(GVIS_E_ARG, "disparity range %d..%ld does not fit an image %d pixels wide",
                              p->min_disp, (long)p->min_disp + p->num_disp - 1, width);
        if (p->have_roi && (p->roi[2] > width || p->roi[3] > height))
            return gvis_error(GVIS_E_ARG, "region %d,%d,%d,%d lies outside the %dx%d image", p->roi[0], p->roi[1],
                              p->roi[2], p->roi[3], width, height);
    }
    return GVIS_OK;
}

int gvis_phase_to_float(const gvis_image *src, double scale, gvis_image *out)
{
    if (src->channels != 1)
        return gvis_error(GVIS_E_FORMAT, "a phase map has one channel, this one has %d", src->channels);
    int rc = gvis_image_alloc(out, src->width, src->height, 1, GVIS_F32, 0);
    if (rc)
        return rc;
    for (int y = 0; y < src->height; y++) {
        float *o = GVIS_ROW(out, y);
        const void *row = GVIS_ROW(src, y);
        for (int x = 0; x < src->width; x++) {
            float v;
            if (src->type == GVIS_F32)
                v = ((const float *)row)[x];
            else if (src->type == GVIS_U16)
                v = (float)(((const uint16_t *)row)[x] * scale);
            else
                v = (float)(((const uint8_t *)row)[x] * scale);
            if (!isfinite(v)) {
                gvis_image_free(out);
                return gvis_error(GVIS_E_FORMAT, "phase at %d,%d is not a finite number", x, y);
            }
            o[x] = v;
        }
    }
    return GVIS_OK;
}

typedef struct {
    const gvis_image *fl, *fr;
    const gvis_phase_params *p;
    float *out_l, *out_r; /* region sized; out_r may be NULL */
} phase_call;

static int phase_cpu_once(void *arg)
{
    phase_call *c = arg;
    const int W = c->fl->width, H = c->fl->height;
    const size_t pitch = c->fl->stride / sizeof(float);
    int rc = gvis_phase_match_cpu(c->fl->data, c->fr->data, pitch, W, H, c->p, 0, c->out_l);
    if (!rc && c->out_r)
        rc = gvis_phase_match_cpu(c->fl->data, c->fr->data, pitch, W, H, c->p, 1, c->out_r);
    return rc;
}

static int phase_cpu(gvis_ctx *ctx, void *arg) { return gvis_time_cpu(ctx, phase_cpu_once, arg); }

#ifdef GVIS_HAVE_CUDA
typedef struct {
    phase_call *c;
    const float *d_l, *d_r;
    size_t pitch; /* bytes */
    float *d_ol, *d_or;
} phase_launch_t;

static int phase_launch(void *arg, void *stream)
{
    phase_launch_t *g = arg;
    const gvis_phase_params *p = g->c->p;
    const int W = g->c->fl->width, H = g->c->fl->height;
    const int roi[4] = {p->have_roi ? p->roi[0] : 0, p->have_roi ? p->roi[1] : 0, p->have_roi ? p->roi[2] : W,
                        p->have_roi ? p->roi[3] : H};
    gvis_cu_phase_args a = {g->d_l, g->d_r, g->pitch / sizeof(float), W, H, p->min_disp, p->num_disp, p->tol,
                            p->window, p->valid_min, {roi[0], roi[1], roi[2], roi[3]}, p->search == GVIS_PHASE_ORDERED,
                            p->subpixel, p->lr_check};
    int err = gvis_cu_phase_match(&a, 0, g->d_ol, stream);
    if (!err && g->d_or)
        err = gvis_cu_phase_match(&a, 1, g->d_or, stream);
    return err;
}

static int phase_cuda(gvis_ctx *ctx, void *arg)
{
    phase_call *c = arg;
    const gvis_phase_params *p = c->p;
    const int W = c->fl->width, H = c->fl->height;
    if (W > gvis_cu_phase_max_width())
        return gvis_error(GVIS_E_DEVICE, "phase maps wider than %d pixels are not supported on the GPU",
                          gvis_cu_phase_max_width());
    const size_t rw = (size_t)(p->have_roi ? p->roi[2] - p->roi[0] : W);
    const size_t rh = (size_t)(p->have_roi ? p->roi[3] - p->roi[1] : H);
    const size_t n = rw * rh;
    phase_launch_t g;
    memset(&g, 0, sizeof g);
    g.c = c;
    size_t pr;
    int rc = gvis_cuda_upload_image(ctx, 0, c->fl, (void **)&g.d_l, &g.pitch);
    if (!rc)
        rc = gvis_cuda_upload_image(ctx, 1, c->fr, (void **)&g.d_r, &pr);
    if (rc)
        return rc;
    if (pr != g.pitch)
        return gvis_error(GVIS_E_DEVICE, "phase maps got different pitches on the device");
    int err = gvis_cu_buffer(ctx->job, 2, n * sizeof(float), (void **)&g.d_ol);
    if (!err && c->out_r)
        err = gvis_cu_buffer(ctx->job, 3, n * sizeof(float), (void **)&g.d_or);
    if (err == GVIS_CUDA_ERR_NOMEM)
        return gvis_error(GVIS_E_DEVICE_NOMEM, "out of device memory for phase matching on %dx%d", W, H);
    if ((rc = gvis_cuda_status(err, "phase buffers")))
        return rc;
    if ((rc = gvis_time_cuda(ctx, phase_launch, &g)))
        return rc;
    rc = gvis_cuda_download(ctx, c->out_l, g.d_ol, n * sizeof(float));
    if (!rc && c->out_r)
        rc = gvis_cuda_download(ctx, c->out_r, g.d_or, n * sizeof(float));
    return rc;
}
#else
#define phase_cuda NULL
#endif

/* The int16 x16 copy of the float plane (invalid = 16 (M - 1), valid values kept above it). */
static void fill_fixed(gvis_disp *d)
{
    const int16_t inv = GVIS_SGM_INVALID(d->min_disp);
    for (size_t i = 0; i < (size_t)d->width * d->height; i++) {
        const float f = d->fdata[i];
        if (isnan(f)) {
            d->data[i] = inv;
            continue;
        }
        long v = lrintf(f * 16.0f);
        if (v <= inv)
            v = inv + 1;
        if (v > 32767)
            v = 32767;
        d->data[i] = (int16_t)v;
    }
}

static int disp_alloc_float(gvis_disp *d, int w, int h, int min_disp)
{
    int rc = gvis_disp_alloc(d, w, h, min_disp);
    if (rc)
        return rc;
    d->fdata = malloc(sizeof(float) * (size_t)w * (size_t)h);
    if (!d->fdata) {
        gvis_disp_free(d);
        return gvis_error(GVIS_E_NOMEM, "out of memory for a %dx%d disparity map", w, h);
    }
    return GVIS_OK;
}

int gvis_phase(gvis_ctx *ctx, const gvis_image *left, const gvis_image *right, const gvis_phase_params *p,
               gvis_disp *out_left, gvis_disp *out_right)
{
    memset(out_left, 0, sizeof *out_left);
    if (out_right)
        memset(out_right, 0, sizeof *out_right);
    if (left->width != right->width || left->height != right->height)
        return gvis_error(GVIS_E_FORMAT, "left is %dx%d but right is %dx%d", left->width, left->height,
                          right->width, right->height);
    int rc = gvis_phase_check(p, left->width, left->height);
    if (rc)
        return rc;
    gvis_image fl = {0}, fr = {0};
    if ((rc = gvis_phase_to_float(left, p->scale, &fl)))
        goto done;
    if ((rc = gvis_phase_to_float(right, p->scale, &fr))) {
        char m[300];
        snprintf(m, sizeof m, "%s", gvis_errmsg());
        gvis_error(rc, "right map: %s", m);
        goto done;
    }
    const int rw = p->have_roi ? p->roi[2] - p->roi[0] : left->width;
    const int rh = p->have_roi ? p->roi[3] - p->roi[1] : left->height;
    if ((rc = disp_alloc_float(out_left, rw, rh, p->min_disp)))
        goto done;
    if (out_right && (rc = disp_alloc_float(out_right, rw, rh, p->min_disp)))
        goto done;
    phase_call c = {&fl, &fr, p, out_left->fdata, out_right ? out_right->fdata : NULL};
    if ((rc = gvis_dispatch(ctx, "phase matching", phase_cpu, phase_cuda, &c)))
        goto done;
    fill_fixed(out_left);
    if (out_right)
        fill_fixed(out_right);
done:
    gvis_image_free(&fl);
    gvis_image_free(&fr);
    if (rc) {
        gvis_disp_free(out_left);
        if (out_right)
            gvis_disp_free(out_right);
    }
    return rc;
}
