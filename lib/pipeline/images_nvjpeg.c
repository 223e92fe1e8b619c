/* The image batch where JPEG goes through nvJPEG (images_run.h): a decode stage per GPU
 * of the list, the readers' bitstreams into them, and the compute stage's device steps
 * (decode, the operation, nvJPEG encode) with the host path as the fallback. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "images_gpu.h"
#include "images_run.h"
#include "pipeline.h"

/* The decode stage for the next bitstream: the one with the fewest files waiting, the
 * index's turn among equals. */
static gvis_jbatch *pick_stage(struct run *r, int index)
{
    int k0 = index % r->nstages, best = k0, least = gvis_jbatch_pending(r->stage[k0]);
    for (int j = 1; j < r->nstages && least > 0; j++) {
        int k = (k0 + j) % r->nstages, p = gvis_jbatch_pending(r->stage[k]);
        if (p < least)
            best = k, least = p;
    }
    return r->stage[best];
}

/* The stage for a reader's bitstream.  Every stage is asked to start at the first JPEG
 * (its threads make and warm up its decoders, about a second), so that all GPUs of the
 * list warm up at once.  Until 983eb86, --jpeg-codec auto had the readers decode with
 * libjpeg-turbo while no decoder was ready: on 32 cores that held the decoders' making
 * and warm-up back (ready after 2.1-2.6 s, once never within a 5.5 s run) and cost up to
 * 38 % (JB6000 on one H100: 490 images/s against 787; docs/notes-nvjpeg.md, phase F). */
static gvis_jbatch *stage_for(struct run *r, int index)
{
    for (int k = 0; k < r->nstages; k++)
        gvis_jbatch_warming(r->stage[k]);
    return pick_stage(r, index);
}

/* A reader where JPEG goes through nvJPEG (no CUDA here): a JPEG the engines may take
 * stays a bitstream in the slot and goes into a GPU's decode stage; anything else is
 * decoded on the CPU as gvis_load does. */
int imgb_read_jpeg(struct run *r, struct slot *s, gvis_ctx *c, const char *path, int index)
{
    double t0 = gvis_now_ms();
    /* gvis_load's bound: what an image under the pixel limit can take, and headers */
    size_t px = c->io.max_pixels ? c->io.max_pixels : GVIS_DEFAULT_MAX_PIXELS, limit;
    if (gvis_mul_size(px, 16, &limit) || limit > SIZE_MAX - ((size_t)2 << 20))
        limit = SIZE_MAX;
    else
        limit += (size_t)2 << 20;
    int rc = gvis_read_input(path, GVIS_IN_IMAGE, limit, c->io.max_pixels, &s->bits);
    if (!rc) {
        s->in_format = gvis_sniff_format(s->bits.data, s->bits.len);
        gvis_jbatch *jb = NULL;
        if (s->in_format == GVIS_FMT_JPEG &&
            gvis_nvj_probe(&c->io, s->bits.data, s->bits.len, &s->jmeta, &s->jw, &s->jh))
            jb = stage_for(r, index);
        if (!jb) {
            imgb_lend(r, s, 0);
            rc = gvis_ctx_decode(c, s->bits.data, s->bits.len, &s->src);
            imgb_settle(r, s, 0, &s->src);
            if (!rc && s->in_format == GVIS_FMT_JPEG)
                gvis_nvj_count_total(1);
            gvis_buf_free(&s->bits);
        } else {
            s->req.data = s->bits.data;
            s->req.len = s->bits.len;
            s->req.width = s->jw;
            s->req.height = s->jh;
            gvis_jbatch_submit(jb, &s->req);
        }
    }
    c->timing.load_ms += gvis_now_ms() - t0;
    return rc ? imgb_fail(s, rc) : 0;
}

/* The slot's bitstream decoded by libjpeg-turbo on this thread into src. */
int imgb_cpu_decode(struct run *r, struct slot *s, gvis_ctx *c)
{
    imgb_drop_req(s, c);
    double t0 = gvis_now_ms();
    imgb_release(r, s, 0, &s->src);
    imgb_lend(r, s, 0);
    int rc = gvis_image_decode(s->bits.data, s->bits.len, &c->io, &s->src);
    imgb_settle(r, s, 0, &s->src);
    if (!rc)
        gvis_nvj_count_total(1);
    gvis_meta_free(s->jmeta);
    s->jmeta = NULL;
    gvis_buf_free(&s->bits);
    c->timing.load_ms += gvis_now_ms() - t0;
    return rc;
}

/* The compute stage on a GPU whose JPEG goes through nvJPEG: GVIS_OK (the result in
 * s->enc or s->dst), an error of the file, or GVIS_NVJ_DECLINED: the host operation
 * takes s->src (a bitstream the engines refused, or anything the device failed on, was
 * decoded there by libjpeg-turbo). */
int imgb_compute_gpu(struct run *r, gvis_ctx *c, const gvis_image_stages *st, struct slot *s, int index)
{
    const gvis_image_batch *b = r->b;
    gvis_dev_image in, res;
    int on_dev = 0, rc;
    imgb_bind(c);
    if (s->req.owner) {
        rc = gvis_gpu_decode(c, &s->req, s->jmeta, &in);
        if (rc > 0 && c->io.jpeg_codec == GVIS_JPEG_CODEC_NVJPEG)
            return rc; /* --jpeg-codec nvjpeg: a device failure is the file's */
        if (rc > 0)
            gvis_log(c, GVIS_LOG_WARN, "'%s': %s; decoding it with libjpeg-turbo", b->inputs[index], gvis_errmsg());
        if (rc)
            return (rc = imgb_cpu_decode(r, s, c)) ? rc : GVIS_NVJ_DECLINED;
        on_dev = 1;
    }
    if (!on_dev && st->op_file) /* a host image's tensor: the host path's op_file (it uploads) */
        return GVIS_NVJ_DECLINED;
    if (on_dev && st->op_file) { /* a tensor straight from the device image */
        rc = st->op_file(c, NULL, &in, b->outputs[index], &s->enc, st->arg);
        if (rc != GVIS_OP_IMAGE) {
            if (rc == GVIS_E_DEVICE || rc == GVIS_E_DEVICE_NOMEM) { /* the host path, on its own terms */
                gvis_buf_free(&s->enc);
                gvis_log(c, GVIS_LOG_WARN, "'%s': %s; computing it on the host path", b->inputs[index], gvis_errmsg());
                return (rc = imgb_cpu_decode(r, s, c)) ? rc : GVIS_NVJ_DECLINED;
            }
            return rc;
        }
    }
    if (!st->op_dev) { /* the host operation, on the downloaded image */
        if (!on_dev)
            return GVIS_NVJ_DECLINED;
        imgb_lend(r, s, 0);
        rc = gvis_gpu_download(c, &in, s->jmeta, &s->src);
        imgb_settle(r, s, 0, &s->src);
        return rc && (rc = imgb_cpu_decode(r, s, c)) ? rc : GVIS_NVJ_DECLINED;
    }
    if (!on_dev && gvis_gpu_upload(c, &s->src, &in))
        return GVIS_NVJ_DECLINED;
    gvis_meta *meta = on_dev ? s->jmeta : s->src.meta;
    rc = st->op_dev(c, &in, &res, st->arg);
    if (!rc && imgb_out_format(b, index) == GVIS_FMT_JPEG) {
        rc = gvis_gpu_encode(c, &res, meta, &s->enc);
        if (rc != GVIS_NVJ_DECLINED && rc != GVIS_E_DEVICE && rc != GVIS_E_DEVICE_NOMEM)
            return rc;
        gvis_buf_free(&s->enc);
        rc = rc == GVIS_NVJ_DECLINED ? 0 : rc;
    }
    if (!rc) {
        imgb_lend(r, s, 1);
        rc = gvis_gpu_download(c, &res, meta, &s->dst);
        imgb_settle(r, s, 1, &s->dst);
    }
    if (rc == GVIS_E_DEVICE || rc == GVIS_E_DEVICE_NOMEM) { /* the host path, on its own terms */
        gvis_log(c, GVIS_LOG_WARN, "'%s': %s; computing it on the host path", b->inputs[index], gvis_errmsg());
        return s->bits.data && (rc = imgb_cpu_decode(r, s, c)) ? rc : GVIS_NVJ_DECLINED;
    }
    return rc;
}

/* A decode stage for each GPU of the list (entries on one GPU share it; its threads
 * start with the first bitstream a reader submits);
 * two batches more slots per stage, so that the readers' bitstreams can queue up.  The
 * device of entry e is that of worker e's context (made here, on entry e, where the
 * worker has not one yet).  Non-zero: out of memory. */
int imgb_start_stages(struct run *r)
{
    const gvis_image_batch *b = r->b;
    int entries = b->entries > 0 ? b->entries : 1;
    if (entries > b->workers)
        entries = b->workers; /* no worker on the others */
    if (!(r->stage = calloc((size_t)entries, sizeof *r->stage)))
        return -1;
    int dev[GVIS_MAX_DEVICE_LIST + 1];
    int per = (b->workers + entries - 1) / entries; /* compute threads on a GPU */
    int max_batch = b->jpeg_batch > 0 ? b->jpeg_batch : per;
    for (int e = 0; e < entries && e <= GVIS_MAX_DEVICE_LIST; e++) {
        if (!b->ctxs[e] && b->make_ctx)
            b->ctxs[e] = b->make_ctx(b->user, e);
        if (!b->ctxs[e])
            continue; /* its worker tries again at its first file, and says why */
        int d = b->ctxs[e]->cuda_index, k = 0;
        while (k < r->nstages && dev[k] != d)
            k++;
        if (k < r->nstages)
            continue;
        /* while one batch decodes, the other decoder leaves once half a batch waits */
        if (!(r->stage[r->nstages] = gvis_jbatch_start(d, max_batch, max_batch / 2)))
            return -1;
        dev[r->nstages++] = d;
        r->inflight += 2 * (max_batch < 64 ? max_batch : 64);
    }
    if (!r->nstages) /* no context: the workers' own start says why, file by file */
        r->gpu_jpeg = 0;
    else if (r->nstages > 1) { /* cuda:all: a file decoded on one GPU may be computed on another */
        int e = 0;
        while (!b->ctxs[e])
            e++;
        gvis_gpu_link_devices(b->ctxs[e], dev, r->nstages);
    }
    return 0;
}

static void *stop_one(void *jb)
{
    gvis_jbatch_stop(jb);
    return NULL;
}

/* The stages stopped (every slot cleared), their figures for -v. */
void imgb_stop_stages(struct run *r)
{
    for (int k = 0; k < r->nstages; k++) {
        gvis_jbatch_stats st;
        gvis_jbatch_get_stats(r->stage[k], &st);
        gvis_nvj_count_batches(st.batches, st.images);
        char ready[200], warm[2][32];
        for (int i = 0; i < 2; i++) /* a decoder the batch never needed was not warmed up */
            if (st.warm_ms[i] < 0)
                snprintf(warm[i], sizeof warm[i], "never");
            else
                snprintf(warm[i], sizeof warm[i], "%.0f ms", st.warm_ms[i]);
        if (st.ready_ms < 0)
            snprintf(ready, sizeof ready, "no decoder");
        else
            snprintf(ready, sizeof ready,
                     "decoders ready %.0f ms after the first file (made in %.0f ms, warmed up on their threads by "
                     "%s and %s)",
                     st.ready_ms, st.make_ms, warm[0], warm[1]);
        gvis_log(r->b->ctxs[0], GVIS_LOG_INFO,
                 "cuda:%d: JPEG decode stage: %s, first file queued %.0f ms after the batch's start; %ld batches of %.1f on average "
                 "(largest %ld), %.0f ms in batches (buffers %.0f, checks %.0f, nvjpegDecodeBatched %.0f, sync %.0f); "
                 "%ld device buffers, %.0f MB",
                 gvis_jbatch_device(r->stage[k]), ready, st.first_wait_ms, st.batches,
                 st.batches ? (double)st.images / (double)st.batches : 0.0, st.largest, st.decode_ms, st.alloc_ms,
                 st.check_ms, st.call_ms, st.sync_ms, st.buffers, (double)st.pool_bytes / 1048576.0);
    }
    /* the stages' teardown (device buffers freed, nvJPEG's states and handle destroyed:
     * 0.2-0.3 s a GPU on an H100) on a thread each, the first on this one */
    pthread_t th[GVIS_MAX_DEVICE_LIST + 1];
    int started[GVIS_MAX_DEVICE_LIST + 1] = {0};
    for (int k = 1; k < r->nstages && k <= GVIS_MAX_DEVICE_LIST; k++)
        started[k] = pthread_create(&th[k], NULL, stop_one, r->stage[k]) == 0;
    for (int k = 0; k < r->nstages; k++)
        if (k == 0 || k > GVIS_MAX_DEVICE_LIST || !started[k])
            gvis_jbatch_stop(r->stage[k]);
    for (int k = 1; k < r->nstages && k <= GVIS_MAX_DEVICE_LIST; k++)
        if (started[k])
            pthread_join(th[k], NULL);
    free(r->stage);
    r->stage = NULL;
    r->nstages = 0;
}
