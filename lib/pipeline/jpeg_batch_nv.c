/* The nvJPEG side of a GPU's decode stage (jpeg_batch_nv.h). */
#include "jpeg_batch_nv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "trace.h"

#ifdef GVIS_HAVE_CUDA
#include "nvjpeg_codec.h"

enum { DECODERS = GVIS_JBATCH_DECODERS, MAX_BATCH = GVIS_JBATCH_MAX };

struct gvis_jbatch_nv {
    int device, max_batch;
    const gvis_nvjpeg_lib *lib;
    gvis_buf pad; /* the tiny JPEG that fills every batch up to max_batch */
    gvis_cu_job *job[DECODERS];
    gvis_nvjpeg_dec *dec[DECODERS];
    void *scratch[DECODERS];
};

/* Decoder k's job (stream) and hardware decoder (k > 0: on decoder 0's handle), its
 * scratch and the pad; on k's thread.  0, or -1 with why. */
static int make_one(gvis_jbatch_nv *jb, int k, char *why, size_t why_len)
{
    int err = gvis_cu_job_create(jb->device, &jb->job[k]);
    if (err) {
        snprintf(why, why_len, "CUDA stream for the JPEG decoder on cuda:%d: %s", jb->device, gvis_cu_strerror(err));
        jb->job[k] = NULL;
        return -1;
    }
    if (gvis_nvjpeg_dec_create_from(jb->lib, jb->max_batch, gvis_cu_job_stream(jb->job[k]), k ? jb->dec[0] : NULL,
                                    &jb->dec[k], why, why_len)) {
        gvis_cu_job_destroy(jb->job[k]);
        jb->job[k] = NULL;
        jb->dec[k] = NULL;
        return -1;
    }
    /* max_batch blocks of 64 rows: the pads, and the warm-up's own image */
    if (jb->pad.data && !gvis_cu_buffer(jb->job[k], 0, (size_t)jb->max_batch * 64 * 256, &jb->scratch[k])) {
        if (jb->max_batch > 1)
            gvis_nvjpeg_dec_set_pad(jb->dec[k], jb->pad.data, jb->pad.len, jb->scratch[k], 256);
    } else {
        jb->scratch[k] = NULL;
    }
    return 0;
}

/* On decoder 0's thread: the pad JPEG, decoder 0 (the hardware handle: ~0.5 s on an
 * H100), the pool's budget. */
int gvis_jbatch_nv_make(gvis_jbatch_nv **out, int device, int max_batch, size_t *budget, char *why, size_t why_len)
{
    gvis_jbatch_nv *jb = calloc(1, sizeof *jb);
    *out = jb;
    if (!jb) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    jb->device = device;
    jb->max_batch = max_batch;
    if (!(jb->lib = gvis_nvjpeg(why, why_len)))
        return -1;
    /* every batch filled up to max_batch with a tiny JPEG (64x64, flat grey, libjpeg-
     * turbo's baseline 4:2:0): one DecodeBatchedInitialize per decoder, where one per
     * batch size made more threads slower on the H200 */
    gvis_image tiny = {0};
    if (!gvis_image_alloc(&tiny, 64, 64, 3, GVIS_U8, 0)) {
        memset(tiny.data, 128, tiny.stride * 64);
        gvis_io_opts io = {0};
        io.quality = 50;
        gvis_jpeg_info info;
        if (gvis_image_encode(&tiny, GVIS_FMT_JPEG, &io, &jb->pad) || gvis_jpeg_scan(jb->pad.data, jb->pad.len, &info) ||
            info.width != 64 || info.height != 64)
            gvis_buf_free(&jb->pad);
    }
    gvis_image_free(&tiny);
    if (make_one(jb, 0, why, why_len))
        return -1;
    gvis_jpeg_info info;
    if (jb->pad.data && !gvis_nvjpeg_dec_supported(jb->dec[0], jb->pad.data, jb->pad.len, &info)) {
        gvis_nvjpeg_dec_set_pad(jb->dec[0], NULL, 0, NULL, 0); /* the engines refuse it: no padding */
        gvis_buf_free(&jb->pad);
    }
    size_t fr = 0, total = 0;
    if (!gvis_cu_mem_info(jb->job[0], &fr, &total)) /* decoded images: a third of what is free */
        *budget = fr / 3 > ((size_t)256 << 20) ? fr / 3 : (size_t)256 << 20;
    return 0;
}

int gvis_jbatch_nv_add(gvis_jbatch_nv *jb, int k, char *why, size_t why_len)
{
    if (!jb || !jb->dec[0] || k < 1 || k >= DECODERS)
        return -1;
    return make_one(jb, k, why, why_len);
}

/* On decoder k's thread: its first decode (the tiny JPEG, the batch filled up as every
 * batch is), so that the engines' first use and the state's initialization happen now. */
int gvis_jbatch_nv_warm(gvis_jbatch_nv *jb, int k)
{
    if (!jb || !jb->dec[k])
        return -1;
    gvis_cu_job_bind(jb->job[k]);
    if (!jb->pad.data || !jb->scratch[k])
        return 0;
    const uint8_t *data = jb->pad.data;
    size_t len = jb->pad.len, pitch = 256;
    unsigned char *dst = (unsigned char *)jb->scratch[k] + (size_t)(jb->max_batch - 1) * 64 * 256;
    int status = 1;
    if (gvis_nvjpeg_dec_batch(jb->dec[k], 1, &data, &len, &dst, &pitch, &status) || gvis_cu_sync(jb->job[k]))
        return -1;
    return status == GVIS_NVJPEG_DECODED ? 0 : -1;
}

void gvis_jbatch_nv_run(gvis_jbatch_nv *jb, int k, gvis_jbatch_req **r, int n, double *ms)
{
    double t0 = gvis_now_ms();
    gvis_nvjpeg_dec *dec = jb->dec[k];
    const uint8_t *data[MAX_BATCH];
    size_t len[MAX_BATCH], pitch[MAX_BATCH];
    unsigned char *dst[MAX_BATCH];
    int status[MAX_BATCH], idx[MAX_BATCH], m = 0;
    for (int i = 0; i < n; i++) {
        gvis_jpeg_info info;
        if (!r[i]->d_img || !gvis_nvjpeg_dec_supported(dec, r[i]->data, r[i]->len, &info) ||
            info.width != r[i]->width || info.height != r[i]->height)
            continue;
        data[m] = r[i]->data;
        len[m] = r[i]->len;
        dst[m] = r[i]->d_img;
        pitch[m] = r[i]->pitch;
        idx[m++] = i;
    }
    double t1 = gvis_now_ms();
    ms[0] += t1 - t0;
    if (!m)
        return;
    int err = 0;
    const char *why = NULL;
    if (gvis_nvjpeg_dec_batch(dec, m, data, len, dst, pitch, status))
        why = gvis_nvjpeg_dec_error(dec);
    double t2 = gvis_now_ms();
    ms[1] += t2 - t1;
    if (!why && (err = gvis_cu_sync(jb->job[k])) != 0)
        why = gvis_cu_strerror(err);
    ms[2] += gvis_now_ms() - t2;
    for (int j = 0; j < m; j++) {
        gvis_jbatch_req *q = r[idx[j]];
        if (why) {
            q->status = -1;
            snprintf(q->why, sizeof q->why, "nvJPEG batched decode on cuda:%d: %s", jb->device, why);
        } else {
            q->status = status[j] == GVIS_NVJPEG_DECODED ? 0 : 1;
        }
    }
}

void gvis_jbatch_nv_destroy(gvis_jbatch_nv *jb)
{
    if (!jb)
        return;
    for (int k = DECODERS - 1; k >= 0; k--) { /* decoder 0 owns the handle: last */
        double t0 = gvis_now_ms();
        if (jb->job[k])
            gvis_cu_sync(jb->job[k]);
        double t1 = gvis_now_ms();
        gvis_nvjpeg_dec_destroy(jb->dec[k]);
        double t2 = gvis_now_ms();
        gvis_cu_job_destroy(jb->job[k]);
        gvis_trace_span("stop: sync", t0, t1, k);
        gvis_trace_span(k ? "stop: nvJPEG decoder destroyed" : "stop: nvJPEG decoder and handle destroyed", t1, t2, k);
        gvis_trace_span("stop: stream and scratch freed", t2, gvis_now_ms(), k);
    }
    gvis_buf_free(&jb->pad);
    free(jb);
}

int gvis_jbatch_nv_alloc(int device, size_t bytes, void **p) { return gvis_nvjpeg_dev_alloc(device, bytes, p); }

void gvis_jbatch_nv_free_buf(int device, void *p) { gvis_nvjpeg_dev_free(device, p); }

#else /* without CUDA: no decoder */

int gvis_jbatch_nv_make(gvis_jbatch_nv **nv, int device, int max_batch, size_t *budget, char *why, size_t why_len)
{
    (void)device, (void)max_batch, (void)budget;
    *nv = NULL;
    snprintf(why, why_len, "this gvis was built without CUDA");
    return -1;
}
int gvis_jbatch_nv_add(gvis_jbatch_nv *nv, int k, char *why, size_t why_len)
{
    (void)nv, (void)k, (void)why, (void)why_len;
    return -1;
}
int gvis_jbatch_nv_warm(gvis_jbatch_nv *nv, int k)
{
    (void)nv, (void)k;
    return -1;
}
void gvis_jbatch_nv_run(gvis_jbatch_nv *nv, int k, gvis_jbatch_req **r, int n, double *ms)
{
    (void)nv, (void)k, (void)r, (void)n, (void)ms;
}
void gvis_jbatch_nv_destroy(gvis_jbatch_nv *nv) { (void)nv; }
int gvis_jbatch_nv_alloc(int device, size_t bytes, void **p)
{
    (void)device, (void)bytes;
    *p = NULL;
    return -1;
}
void gvis_jbatch_nv_free_buf(int device, void *p) { (void)device, (void)p; }
#endif
