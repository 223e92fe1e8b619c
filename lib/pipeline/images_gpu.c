/* The staged batch's device steps for nvJPEG (images_gpu.h). */
#include "images_gpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "codec.h"
#include "internal.h"
#include "trace.h"

#ifdef GVIS_HAVE_CUDA
#include "jpeg_orient.h"
#include "nvjpeg_codec.h"

enum { SLOT_STORED = 14, SLOT_UPRIGHT = 15 };

static int buffer(gvis_ctx *c, int slot, int w, int h, gvis_dev_image *d)
{
    *d = (gvis_dev_image){w, h, 3, GVIS_U8, 0, NULL};
    int err = gvis_cu_buffer2d(c->job, slot, (size_t)w * 3, (size_t)h, &d->data, &d->pitch);
    if (err == GVIS_CUDA_ERR_NOMEM)
        return gvis_error(GVIS_E_DEVICE_NOMEM, "out of device memory allocating %zu bytes for a %dx%d image",
                          (size_t)w * 3 * (size_t)h, w, h);
    return gvis_cuda_status(err, "device allocation");
}

int gvis_gpu_decode(gvis_ctx *c, gvis_jbatch_req *req, gvis_meta *meta, gvis_dev_image *out)
{
    double t0 = gvis_now_ms();
    int sw = req->width, sh = req->height;
    int orient = meta && !c->io.no_autorotate && meta->orientation >= 2 && meta->orientation <= 8 ? meta->orientation
                                                                                                    : 1;
    char why[256] = "";
    int got = gvis_jbatch_wait(req, why, sizeof why);
    c->timing.load_ms += gvis_now_ms() - t0;
    gvis_trace_span("wait for the decode", t0, gvis_now_ms(), req->device);
    if (got == -2 && c->io.jpeg_codec != GVIS_JPEG_CODEC_NVJPEG) { /* no engines: the CPU, said once */
        static int said;
        if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
            gvis_log(c, GVIS_LOG_INFO, "JPEG decoded by libjpeg-turbo (%s)", why);
        return GVIS_NVJ_DECLINED;
    }
    if (got < 0)
        return gvis_error(GVIS_E_DEVICE, "%s%s", got == -2 ? "--jpeg-codec nvjpeg: " : "", why);
    if (got > 0)
        return GVIS_NVJ_DECLINED;
    t0 = gvis_now_ms();
    gvis_dev_image st = {sw, sh, 3, GVIS_U8, req->pitch, req->d_img};
    int rc;
    if (req->device != c->cuda_index) { /* decoded on another GPU of the list: a copy here */
        if ((rc = buffer(c, SLOT_STORED, sw, sh, &st)))
            return rc;
        int err = gvis_nvjpeg_copy2d(st.data, st.pitch, c->cuda_index, req->d_img, req->pitch, req->device,
                                     (size_t)sw * 3, (size_t)sh, gvis_cu_job_stream(c->job));
        if ((rc = gvis_cuda_status(err, "copy of a decoded JPEG between GPUs")))
            return rc;
    }
    if (orient == 1) {
        *out = st;
    } else {
        int w, h;
        gvis_orient_size(orient, sw, sh, &w, &h);
        if ((rc = buffer(c, SLOT_UPRIGHT, w, h, out)))
            return rc;
        int err = gvis_cu_orient(st.data, st.pitch, sw, sh, 3, orient, out->data, out->pitch,
                                 gvis_cu_job_stream(c->job));
        if ((rc = gvis_cuda_status(err, "orientation")))
            return rc;
        gvis_meta_mark_upright(meta);
    }
    gvis_nvj_count_total(0);
    c->timing.load_ms += gvis_now_ms() - t0;
    return 0;
}

int gvis_gpu_upload(gvis_ctx *c, const gvis_image *img, gvis_dev_image *out)
{
    *out = (gvis_dev_image){img->width, img->height, img->channels, img->type, 0, NULL};
    return gvis_cuda_upload_image(c, SLOT_STORED, img, &out->data, &out->pitch);
}

int gvis_gpu_download(gvis_ctx *c, const gvis_dev_image *d, const gvis_meta *meta, gvis_image *img)
{
    int rc = gvis_image_alloc(img, d->width, d->height, d->channels, d->type, 64);
    if (rc)
        return rc;
    gvis_image hdr = {d->width, d->height, d->channels, d->type, 0, NULL, (gvis_meta *)meta};
    if (!(rc = gvis_cuda_download_image(c, d->data, d->pitch, img)) && meta)
        rc = gvis_image_copy_meta(img, &hdr);
    if (rc)
        gvis_image_free(img);
    return rc;
}

int gvis_gpu_encode(gvis_ctx *c, const gvis_dev_image *d, gvis_meta *meta, gvis_buf *b)
{
    double t0 = gvis_now_ms();
    gvis_image hdr = {d->width, d->height, d->channels, d->type, 0, NULL, meta};
    int rc = gvis_nvj_encode_dev(c, d->data, d->pitch, &hdr, b);
    c->timing.save_ms += gvis_now_ms() - t0;
    gvis_trace_span("nvJPEG encode", t0, gvis_now_ms(), c->cuda_index);
    return rc;
}

void gvis_gpu_link_devices(gvis_ctx *c, const int *dev, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j) {
                int on = gvis_cu_peer_enable(dev[i], dev[j]);
                gvis_log(c, GVIS_LOG_INFO, "cuda:%d reads cuda:%d's memory %s", dev[i], dev[j],
                         on ? "directly (peer access)" : "through the host (no peer access)");
            }
}
#endif

void gvis_gpu_reader_nice(void)
{
#if defined(__linux__) && defined(SYS_gettid)
    static _Thread_local int done;
    if (done)
        return;
    done = 1;
    const char *e = getenv("GVIS_JPEG_READER_NICE");
    int step = e && *e ? atoi(e) : 5;
    if (step <= 0)
        return;
    id_t tid = (id_t)syscall(SYS_gettid);
    errno = 0;
    int p = getpriority(PRIO_PROCESS, tid);
    if (p != -1 || errno == 0)
        (void)setpriority(PRIO_PROCESS, tid, p + step > 19 ? 19 : p + step);
#endif
}

#ifndef GVIS_HAVE_CUDA /* without CUDA the batch never takes these steps */
void gvis_gpu_link_devices(gvis_ctx *c, const int *dev, int n)
{
    (void)c, (void)dev, (void)n;
}
int gvis_gpu_decode(gvis_ctx *c, gvis_jbatch_req *req, gvis_meta *meta, gvis_dev_image *out)
{
    (void)c, (void)req, (void)meta, (void)out;
    return GVIS_NVJ_DECLINED;
}
int gvis_gpu_upload(gvis_ctx *c, const gvis_image *img, gvis_dev_image *out)
{
    (void)c, (void)img, (void)out;
    return gvis_error(GVIS_E_DEVICE, "this gvis was built without CUDA");
}
int gvis_gpu_download(gvis_ctx *c, const gvis_dev_image *d, const gvis_meta *meta, gvis_image *img)
{
    (void)c, (void)d, (void)meta, (void)img;
    return gvis_error(GVIS_E_DEVICE, "this gvis was built without CUDA");
}
int gvis_gpu_encode(gvis_ctx *c, const gvis_dev_image *d, gvis_meta *meta, gvis_buf *b)
{
    (void)c, (void)d, (void)meta, (void)b;
    return GVIS_NVJ_DECLINED;
}
#endif
