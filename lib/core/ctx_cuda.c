/* The CUDA glue every operation uses: device statuses, image uploads and downloads
 * (timed into the context), and kernels timed between events over --repeat runs. */
#include "internal.h"

#include <stdlib.h>

#ifdef GVIS_HAVE_CUDA
int gvis_cuda_status(int err, const char *what)
{
    if (!err)
        return GVIS_OK;
    if (err == GVIS_CUDA_ERR_NOMEM)
        return gvis_error(GVIS_E_DEVICE_NOMEM, "%s: out of device memory", what);
    return gvis_error(GVIS_E_DEVICE, "%s: %s", what, gvis_cu_strerror(err));
}

int gvis_cuda_upload_image(gvis_ctx *ctx, int slot, const gvis_image *img, void **d_ptr, size_t *pitch)
{
    double t0 = gvis_now_ms();
    size_t row = (size_t)img->width * img->channels * img->type;
    int err = gvis_cu_buffer2d(ctx->job, slot, row, (size_t)img->height, d_ptr, pitch);
    if (err) {
        if (err == GVIS_CUDA_ERR_NOMEM)
            return gvis_error(GVIS_E_DEVICE_NOMEM, "out of device memory allocating %zu bytes for a %dx%d image",
                              row * (size_t)img->height, img->width, img->height);
        return gvis_cuda_status(err, "device allocation");
    }
    err = gvis_cu_upload2d(ctx->job, *d_ptr, *pitch, img->data, img->stride, row, (size_t)img->height);
    if (!err)
        err = gvis_cu_sync(ctx->job);
    ctx->timing.upload_ms += gvis_now_ms() - t0;
    return gvis_cuda_status(err, "upload");
}

int gvis_cuda_download_image(gvis_ctx *ctx, const void *d_ptr, size_t pitch, gvis_image *img)
{
    double t0 = gvis_now_ms();
    size_t row = (size_t)img->width * img->channels * img->type;
    int err = gvis_cu_download2d(ctx->job, img->data, img->stride, d_ptr, pitch, row, (size_t)img->height);
    if (!err)
        err = gvis_cu_sync(ctx->job);
    ctx->timing.download_ms += gvis_now_ms() - t0;
    return gvis_cuda_status(err, "download");
}

int gvis_cuda_download(gvis_ctx *ctx, void *h, const void *d, size_t bytes)
{
    double t0 = gvis_now_ms();
    int err = gvis_cu_download2d(ctx->job, h, bytes, d, bytes, bytes, 1);
    if (!err)
        err = gvis_cu_sync(ctx->job);
    ctx->timing.download_ms += gvis_now_ms() - t0;
    return gvis_cuda_status(err, "download");
}

int gvis_time_cuda(gvis_ctx *ctx, int (*launch)(void *arg, void *stream), void *arg)
{
    int n = ctx->repeat;
    double *t = malloc(sizeof *t * (size_t)n);
    if (!t)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    void *stream = gvis_cu_job_stream(ctx->job);
    int err = 0;
    /* One untimed run first when repeating: module loading and first-touch stay out of the median. */
    if (n > 1)
        err = launch(arg, stream);
    if (!err)
        err = gvis_cu_sync(ctx->job);
    for (int i = 0; i < n && !err; i++) {
        float ms = 0;
        err = gvis_cu_timer_start(ctx->job);
        if (!err)
            err = launch(arg, stream);
        if (!err)
            err = gvis_cu_timer_stop(ctx->job, &ms);
        t[i] = ms;
    }
    if (!err)
        ctx->timing.compute_ms += gvis_median(t, n);
    free(t);
    return gvis_cuda_status(err, "kernel");
}
#else
typedef int gvis_no_cuda_glue; /* a translation unit is not empty */
#endif
