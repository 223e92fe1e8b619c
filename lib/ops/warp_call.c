/* Affine warp: the public entry points and their dispatch (the CPU row loops, with
 * cv2.warpAffine's arithmetic, are in warp.c; the CUDA kernel in cuda/ops/warp.cu). */
#include "warp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/ops/warp.h"
#include "internal.h"
#include "matrix.h"
#include "warp_cpu.h"

/* ---- the matrices ---------------------------------------------------------- */

void gvis_letterbox_matrix(int sw, int sh, int dw, int dh, double m[6])
{
    double s = fmin((double)dw / sw, (double)dh / sh);
    m[0] = s;
    m[1] = 0;
    m[2] = -s * sw * 0.5 + dw * 0.5 + s * 0.5 - 0.5;
    m[3] = 0;
    m[4] = s;
    m[5] = -s * sh * 0.5 + dh * 0.5 + s * 0.5 - 0.5;
}

/* Coefficients of the destination-to-source map are held below this so that every
 * position term (coefficient * side * 1024) fits in 64 bits with room to spare. */
#define MAX_COEF 1e9

int gvis_warp_prepare(const gvis_warp_params *p, double fwd[6], double inv[6])
{
    if (p->width < 1 || p->height < 1 || p->width > GVIS_WARP_MAX_SIDE || p->height > GVIS_WARP_MAX_SIDE)
        return gvis_error(GVIS_E_ARG, "output size %dx%d out of range (1 to %d a side)", p->width, p->height,
                          GVIS_WARP_MAX_SIDE);
    if (p->interp != GVIS_WARP_NEAREST && p->interp != GVIS_WARP_BILINEAR)
        return gvis_error(GVIS_E_ARG, "unknown interpolation %d", p->interp);
    if (p->border != GVIS_WARP_CONSTANT && p->border != GVIS_WARP_REPLICATE)
        return gvis_error(GVIS_E_ARG, "unknown border mode %d", p->border);
    for (int i = 0; i < 4; i++)
        if (!isfinite(p->fill[i]))
            return gvis_error(GVIS_E_ARG, "fill value is not finite");
    double f[6], v[6];
    if (p->inverse) {
        memcpy(v, p->m, sizeof v);
        if (gvis_affine_invert(v, f))
            return GVIS_E_ARG;
    } else {
        memcpy(f, p->m, sizeof f);
        if (gvis_affine_invert(f, v))
            return GVIS_E_ARG;
    }
    for (int i = 0; i < 6; i++)
        if (!(fabs(v[i]) <= MAX_COEF))
            return gvis_error(GVIS_E_ARG,
                              "matrix is nearly singular: its destination-to-source map has a coefficient of %g", v[i]);
    if (fwd)
        memcpy(fwd, f, sizeof f);
    if (inv)
        memcpy(inv, v, sizeof v);
    return GVIS_OK;
}

/* ---- the public entry points ---------------------------------------------- */

typedef struct {
    const gvis_image *src;
    gvis_warp_desc d;
    gvis_image *dst;   /* image output */
    gvis_array *arr;   /* tensor output */
    const gvis_dev_image *dsrc; /* a device source (src then holds its size alone) */
    gvis_dev_image *ddst;       /* an image output kept on the device */
#ifdef GVIS_HAVE_CUDA
    const void *d_src;
    size_t spitch;
    void *d_dst;
    size_t dpitch;
#endif
} warp_op;

static int cpu_run(void *arg)
{
    warp_op *op = arg;
    if (op->dst)
        return gvis_warp_cpu_run(op->src, &op->d, op->dst->data, op->dst->stride, NULL);
    return gvis_warp_cpu_run(op->src, &op->d, NULL, 0, op->arr->data);
}

static int warp_on_cpu(gvis_ctx *ctx, void *arg)
{
    if (((warp_op *)arg)->dsrc)
        return gvis_error(GVIS_E_DEVICE, "a device image needs a CUDA context");
    return gvis_time_cpu(ctx, cpu_run, arg);
}

#ifdef GVIS_HAVE_CUDA
static int cuda_launch(void *arg, void *stream)
{
    warp_op *op = arg;
    return gvis_cu_warp(op->d_src, op->spitch, op->d_dst, op->dpitch, &op->d, stream);
}

static int warp_on_cuda(gvis_ctx *ctx, void *arg)
{
    warp_op *op = arg;
    void *d_src = op->dsrc ? op->dsrc->data : NULL;
    size_t spitch = op->dsrc ? op->dsrc->pitch : 0;
    int rc = op->dsrc ? 0 : gvis_cuda_upload_image(ctx, 0, op->src, &d_src, &spitch);
    if (rc)
        return rc;
    op->d_src = d_src;
    op->spitch = spitch;
    int err;
    size_t want;
    if (op->dst || op->ddst) { /* an image, on the host or kept on the device */
        size_t row = (size_t)op->d.dst_w * op->d.channels * op->d.bytes;
        want = row * (size_t)op->d.dst_h;
        err = gvis_cu_buffer2d(ctx->job, 1, row, (size_t)op->d.dst_h, &op->d_dst, &op->dpitch);
    } else {
        op->dpitch = 0;
        want = op->arr->nbytes;
        err = gvis_cu_buffer(ctx->job, 1, op->arr->nbytes, &op->d_dst);
    }
    if (err == GVIS_CUDA_ERR_NOMEM)
        return gvis_error(GVIS_E_DEVICE_NOMEM, "out of device memory allocating %zu bytes for the output", want);
    if (err)
        return gvis_cuda_status(err, "output buffer");
    rc = gvis_time_cuda(ctx, cuda_launch, op);
    if (rc)
        return rc;
    if (op->ddst) {
        *op->ddst = (gvis_dev_image){op->d.dst_w, op->d.dst_h, op->d.channels, op->src->type, op->dpitch, op->d_dst};
        return GVIS_OK;
    }
    if (op->dst)
        return gvis_cuda_download_image(ctx, op->d_dst, op->dpitch, op->dst);
    return gvis_cuda_download(ctx, op->arr->data, op->d_dst, op->arr->nbytes);
}
#else
#define warp_on_cuda NULL /* gvis_dispatch runs the CPU implementation */
#endif

static int make_desc(gvis_ctx *ctx, const gvis_image *src, const gvis_warp_params *p, gvis_warp_desc *d)
{
    if (src->channels != 1 && src->channels != 3 && src->channels != 4)
        return gvis_error(GVIS_E_ARG, "%d channels (1, 3 or 4 expected)", src->channels);
    if (src->type != GVIS_U8 && src->type != GVIS_U16 && src->type != GVIS_F32)
        return gvis_error(GVIS_E_ARG, "unknown sample type");
    memset(d, 0, sizeof *d);
    int rc = gvis_warp_prepare(p, NULL, d->m);
    if (rc)
        return rc;
    size_t maxpx = ctx ? gvis_ctx_io(ctx)->max_pixels : 0;
    if (!maxpx)
        maxpx = GVIS_DEFAULT_MAX_PIXELS;
    if ((size_t)p->width * (size_t)p->height > maxpx)
        return gvis_error(GVIS_E_ARG, "output size %dx%d is over the limit of %zu pixels", p->width, p->height, maxpx);
    d->src_w = src->width;
    d->src_h = src->height;
    d->channels = src->channels;
    d->bytes = (int)src->type;
    d->dst_w = p->width;
    d->dst_h = p->height;
    d->interp = p->interp;
    d->border = p->border;
    for (int c = 0; c < 4; c++) {
        double v = p->fill[c];
        /* OpenCV saturates the border value to the sample type, rounding half to even. */
        if (src->type == GVIS_U8)
            v = fmin(fmax(nearbyint(v), 0), 255);
        else if (src->type == GVIS_U16)
            v = fmin(fmax(nearbyint(v), 0), 65535);
        d->fill[c] = (float)v;
    }
    for (int k = 0; k < 4; k++) {
        d->chmap[k] = k;
        d->ta[k] = 1;
        d->tb[k] = 0;
    }
    return GVIS_OK;
}

int gvis_warp_dev(gvis_ctx *ctx, const gvis_dev_image *src, const gvis_warp_params *p, gvis_dev_image *dst)
{
    gvis_image hdr = {src->width, src->height, src->channels, src->type, src->pitch, NULL, NULL};
    warp_op op = {.src = &hdr, .dsrc = src, .ddst = dst};
    int rc = make_desc(ctx, &hdr, p, &op.d);
    if (rc)
        return rc;
    op.d.out = GVIS_WARP_OUT_IMAGE;
    return gvis_dispatch(ctx, "warpaffine", warp_on_cpu, warp_on_cuda, &op);
}

int gvis_warp(gvis_ctx *ctx, const gvis_image *src, const gvis_warp_params *p, gvis_image *dst)
{
    warp_op op = {.src = src, .dst = dst};
    dst->data = NULL;
    int rc = make_desc(ctx, src, p, &op.d);
    if (rc)
        return rc;
    op.d.out = GVIS_WARP_OUT_IMAGE;
    rc = gvis_image_alloc(dst, p->width, p->height, src->channels, src->type, 0);
    if (rc)
        return rc;
    rc = gvis_dispatch(ctx, "warpaffine", warp_on_cpu, warp_on_cuda, &op);
    if (rc)
        gvis_image_free(dst);
    return rc;
}

static int warp_tensor(gvis_ctx *ctx, const gvis_image *src, const gvis_dev_image *dsrc, const gvis_warp_params *p,
                       const gvis_tensor_params *t, gvis_array *out)
{
    warp_op op = {.src = src, .arr = out, .dsrc = dsrc};
    memset(out, 0, sizeof *out);
    int rc = make_desc(ctx, src, p, &op.d);
    if (rc)
        return rc;
    if (t->layout != GVIS_TENSOR_CHW && t->layout != GVIS_TENSOR_HWC)
        return gvis_error(GVIS_E_ARG, "unknown tensor layout %d", t->layout);
    if (!isfinite(t->scale))
        return gvis_error(GVIS_E_ARG, "scale is not finite");
    const int cn = src->channels;
    op.d.out = t->layout == GVIS_TENSOR_CHW ? GVIS_WARP_OUT_CHW : GVIS_WARP_OUT_HWC;
    for (int k = 0; k < cn; k++) {
        if (!isfinite(t->mean[k]) || !isfinite(t->std[k]) || t->std[k] == 0)
            return gvis_error(GVIS_E_ARG, "mean and std must be finite and std not zero");
        op.d.chmap[k] = (t->bgr && cn >= 3 && k < 3) ? 2 - k : k;
        /* (v * scale - mean) / std as one multiply and one add, coefficients in double. */
        op.d.ta[k] = (float)(t->scale / t->std[k]);
        op.d.tb[k] = (float)(-t->mean[k] / t->std[k]);
    }
    size_t n;
    rc = gvis_image_bytes((size_t)p->width, (size_t)p->height, (size_t)cn, sizeof(float), &n);
    if (rc)
        return rc;
    out->dtype = GVIS_DT_F32;
    out->ndim = 3;
    if (t->layout == GVIS_TENSOR_CHW) {
        out->shape[0] = (size_t)cn;
        out->shape[1] = (size_t)p->height;
        out->shape[2] = (size_t)p->width;
    } else {
        out->shape[0] = (size_t)p->height;
        out->shape[1] = (size_t)p->width;
        out->shape[2] = (size_t)cn;
    }
    out->nbytes = n;
    out->data = aligned_alloc(64, (n + 63) / 64 * 64);
    if (!out->data)
        return gvis_error(GVIS_E_NOMEM, "out of memory allocating a %zu-byte tensor", n);
    rc = gvis_dispatch(ctx, "warpaffine", warp_on_cpu, warp_on_cuda, &op);
    if (rc)
        gvis_array_free(out);
    return rc;
}

int gvis_warp_tensor(gvis_ctx *ctx, const gvis_image *src, const gvis_warp_params *p, const gvis_tensor_params *t,
                     gvis_array *out)
{
    return warp_tensor(ctx, src, NULL, p, t, out);
}

int gvis_warp_tensor_dev(gvis_ctx *ctx, const gvis_dev_image *src, const gvis_warp_params *p,
                         const gvis_tensor_params *t, gvis_array *out)
{
    gvis_image hdr = {src->width, src->height, src->channels, src->type, src->pitch, NULL, NULL};
    return warp_tensor(ctx, &hdr, src, p, t, out);
}
