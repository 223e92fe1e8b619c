/* Gaussian blur: the public entry points and their dispatch (the CPU row loop, the
 * in-place rules and the SIMD passes are in gauss.c, the CUDA kernels in cuda/ops). */
#include "gauss.h"

#include <stdlib.h>
#include <string.h>

#include "../../cuda/ops/gauss.h"
#include "internal.h"
#include "gauss_cpu.h"

int gvis_gauss_cpu(const gvis_image *src, const gvis_gauss_params *p, gvis_image *dst)
{
    if (dst->width != src->width || dst->height != src->height || dst->channels != src->channels ||
        dst->type != src->type)
        return gvis_error(GVIS_E_ARG, "output image does not match the input");
    gvis_gauss_desc d;
    float *taps;
    int rc = gvis_gauss_desc_make(src, p, &d, &taps);
    if (rc)
        return rc;
    rc = gvis_gauss_cpu_desc(src, &d, dst);
    free(taps);
    return rc;
}

/* ---- dispatch ------------------------------------------------------------ */

struct gauss_call {
    const gvis_image *src;
    gvis_image *dst;
    gvis_gauss_desc d;
};

static int gauss_cpu_once(void *arg)
{
    struct gauss_call *c = arg;
    return gvis_gauss_cpu_desc(c->src, &c->d, c->dst);
}

static int gauss_cpu(gvis_ctx *ctx, void *arg) { return gvis_time_cpu(ctx, gauss_cpu_once, arg); }

#ifdef GVIS_HAVE_CUDA
struct gauss_launch {
    const void *d_src;
    size_t spitch;
    void *d_dst;
    size_t dpitch;
    void *d_scratch; /* wide kernels (gauss_wide.cu): the taps and the vertical sums */
    const gvis_gauss_desc *d;
};

static int gauss_launch(void *arg, void *stream)
{
    struct gauss_launch *l = arg;
    if (l->d_scratch)
        return gvis_cu_gauss_wide(l->d_src, l->spitch, l->d_dst, l->dpitch, l->d_scratch, l->d, stream);
    return gvis_cu_gauss(l->d_src, l->spitch, l->d_dst, l->dpitch, l->d, stream);
}

static int gauss_cuda(gvis_ctx *ctx, void *arg)
{
    struct gauss_call *c = arg;
    struct gauss_launch l = {NULL, 0, NULL, 0, NULL, &c->d};
    int rc = gvis_cuda_upload_image(ctx, 0, c->src, (void **)&l.d_src, &l.spitch);
    if (rc)
        return rc;
    size_t row = (size_t)c->src->width * c->src->channels * c->src->type;
    int err = gvis_cu_buffer2d(ctx->job, 1, row, (size_t)c->src->height, &l.d_dst, &l.dpitch);
    if (err == GVIS_CUDA_ERR_NOMEM)
        return gvis_error(GVIS_E_DEVICE_NOMEM, "out of device memory allocating %zu bytes for the blurred image",
                          row * (size_t)c->src->height);
    if ((rc = gvis_cuda_status(err, "device allocation")))
        return rc;
    if (c->d.kx > GVIS_GAUSS_TILE_TAPS || c->d.ky > GVIS_GAUSS_TILE_TAPS) {
        size_t bytes = gvis_gauss_wide_scratch_bytes(&c->d);
        err = gvis_cu_buffer(ctx->job, 2, bytes, &l.d_scratch);
        if (err == GVIS_CUDA_ERR_NOMEM)
            return gvis_error(GVIS_E_DEVICE_NOMEM, "out of device memory allocating %zu bytes for a wide kernel's sums",
                              bytes);
        if ((rc = gvis_cuda_status(err, "device allocation")))
            return rc;
    }
    if ((rc = gvis_time_cuda(ctx, gauss_launch, &l)))
        return rc;
    return gvis_cuda_download_image(ctx, l.d_dst, l.dpitch, c->dst);
}

/* ---- on a device image (the staged batch's op_dev) ---- */

struct gauss_dev_call {
    const gvis_dev_image *src;
    gvis_dev_image *dst;
    gvis_gauss_desc d;
};

static int gauss_dev_cpu(gvis_ctx *ctx, void *arg)
{
    (void)ctx, (void)arg;
    return gvis_error(GVIS_E_DEVICE, "a device image needs a CUDA context");
}

static int gauss_dev_cuda(gvis_ctx *ctx, void *arg)
{
    struct gauss_dev_call *c = arg;
    const gvis_dev_image *s = c->src;
    struct gauss_launch l = {s->data, s->pitch, NULL, 0, NULL, &c->d};
    size_t row = (size_t)s->width * s->channels * s->type;
    int err = gvis_cu_buffer2d(ctx->job, 1, row, (size_t)s->height, &l.d_dst, &l.dpitch);
    int rc = gvis_cuda_status(err, "device allocation for the blurred image");
    if (!rc && (c->d.kx > GVIS_GAUSS_TILE_TAPS || c->d.ky > GVIS_GAUSS_TILE_TAPS)) {
        err = gvis_cu_buffer(ctx->job, 2, gvis_gauss_wide_scratch_bytes(&c->d), &l.d_scratch);
        rc = gvis_cuda_status(err, "device allocation for a wide kernel's sums");
    }
    if (!rc)
        rc = gvis_time_cuda(ctx, gauss_launch, &l);
    if (!rc)
        *c->dst = (gvis_dev_image){s->width, s->height, s->channels, s->type, l.dpitch, l.d_dst};
    return rc;
}

int gvis_gauss_dev(gvis_ctx *ctx, const gvis_dev_image *src, const gvis_gauss_params *p, gvis_dev_image *dst)
{
    struct gauss_dev_call c = {src, dst, {0}};
    gvis_image hdr = {src->width, src->height, src->channels, src->type, src->pitch, NULL, NULL};
    float *taps;
    int rc = gvis_gauss_desc_make(&hdr, p, &c.d, &taps);
    if (rc)
        return rc;
    rc = gvis_dispatch(ctx, "gaussian blur", gauss_dev_cpu, gauss_dev_cuda, &c);
    free(taps);
    return rc;
}
#else
#define gauss_cuda NULL
int gvis_gauss_dev(gvis_ctx *ctx, const gvis_dev_image *src, const gvis_gauss_params *p, gvis_dev_image *dst)
{
    (void)ctx, (void)src, (void)p, (void)dst;
    return gvis_error(GVIS_E_DEVICE, "this gvis was built without CUDA");
}
#endif

int gvis_gauss(gvis_ctx *ctx, const gvis_image *src, const gvis_gauss_params *p, gvis_image *dst)
{
    memset(dst, 0, sizeof *dst);
    struct gauss_call c;
    float *taps;
    int rc = gvis_gauss_desc_make(src, p, &c.d, &taps);
    if (rc)
        return rc;
    if ((rc = gvis_image_alloc(dst, src->width, src->height, src->channels, src->type, 64))) {
        free(taps);
        return rc;
    }
    c.src = src;
    c.dst = dst;
    rc = gvis_dispatch(ctx, "gaussian blur", gauss_cpu, gauss_cuda, &c);
    free(taps);
    if (rc)
        gvis_image_free(dst);
    return rc;
}

int gvis_gauss_inplace(gvis_ctx *ctx, gvis_image *img, const gvis_gauss_params *p)
{
    struct gauss_call c;
    float *taps;
    int rc = gvis_gauss_desc_make(img, p, &c.d, &taps);
    if (rc)
        return rc;
    size_t rb = (size_t)img->width * (size_t)img->channels * (size_t)img->type;
    /* out of place where in place cannot be, on a GPU (a failed download would leave the
     * CPU fallback a half-written source) and for --repeat (each run would blur the last) */
    if (!gvis_gauss_inplace_tasks(&c.d, rb) || ctx->repeat > 1 || gvis_ctx_on_cuda(ctx)) {
        free(taps);
        gvis_image out;
        if ((rc = gvis_gauss(ctx, img, p, &out)))
            return rc;
        gvis_meta *m = img->meta; /* the pixels swapped through gvis_image_free: a lent buffer goes back */
        img->meta = NULL;
        gvis_image_free(img);
        *img = out;
        img->meta = m;
        return GVIS_OK;
    }
    c.src = img;
    c.dst = img;
    rc = gvis_dispatch(ctx, "gaussian blur", gauss_cpu, NULL, &c);
    free(taps);
    return rc;
}
