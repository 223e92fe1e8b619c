/* Image files through the staged pipeline (images.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "images_gpu.h"
#include "images_run.h"
#include "pipeline.h"
#include "trace.h"

static size_t image_bytes(const gvis_image *img) { return img->data ? img->stride * (size_t)img->height : 0; }

/* Lends the slot's buffer k (borrowed from the pool first) to this thread's next image
 * allocation; where none can be had the stage allocates as usual. */
void imgb_lend(struct run *r, struct slot *s, int k)
{
    if (!s->buf[k])
        gvis_bufpool_get(&r->pool, &s->buf[k], &s->cap[k]);
    gvis_image_lend(s->buf[k], s->cap[k]);
}

/* After the stage that was lent buffer k made img: the pool learns its size, and a
 * buffer the image did not take goes back. */
void imgb_settle(struct run *r, struct slot *s, int k, const gvis_image *img)
{
    gvis_image_lend(NULL, 0);
    gvis_bufpool_note(&r->pool, image_bytes(img));
    if (s->buf[k] && img->data != s->buf[k]) {
        gvis_bufpool_put(&r->pool, s->buf[k], s->cap[k]);
        s->buf[k] = NULL;
    }
}

/* Frees img, whose pixels may be the slot's buffer k: that goes back to the pool. */
void imgb_release(struct run *r, struct slot *s, int k, gvis_image *img)
{
    if (s->buf[k] && img->data == s->buf[k])
        img->data = NULL;
    gvis_image_free(img);
    gvis_bufpool_put(&r->pool, s->buf[k], s->cap[k]);
    s->buf[k] = NULL;
}

/* The slot's file out of its decode stage, its device buffer back (the stream of c, the
 * context that used the device image, synchronized first). */
void imgb_drop_req(struct slot *s, gvis_ctx *c)
{
    if (!s->req.owner)
        return;
#ifdef GVIS_HAVE_CUDA
    if (c && c->job && s->req.state)
        gvis_cu_sync(c->job);
#else
    (void)c;
#endif
    gvis_jbatch_release(&s->req);
}

static void slot_clear(struct run *r, struct slot *s)
{
    imgb_drop_req(s, NULL);
    imgb_release(r, s, 0, &s->src);
    imgb_release(r, s, 1, &s->dst);
    gvis_buf_free(&s->bits);
    gvis_buf_free(&s->enc);
    gvis_meta_free(s->jmeta);
    s->jmeta = NULL;
    free(s->msg);
    s->msg = NULL;
    s->device = -1;
}

int imgb_fail(struct slot *s, int rc)
{
    free(s->msg);
    s->msg = strdup(gvis_errmsg());
    return rc;
}

/* A reader's or writer's context on a GPU (nvJPEG) works on that GPU from this thread. */
void imgb_bind(gvis_ctx *c)
{
#ifdef GVIS_HAVE_CUDA
    if (c->job)
        gvis_cu_job_bind(c->job);
#else
    (void)c;
#endif
}

static int st_read(void *v, int thread, int index, int slot)
{
    struct run *r = v;
    const gvis_image_batch *b = r->b;
    struct slot *s = &r->slots[slot];
    slot_clear(r, s);
    int rc = b->check ? b->check(b->user, index) : 0;
    if (rc)
        return imgb_fail(s, rc);
    gvis_ctx *c = r->rctx[thread];
    imgb_bind(c);
    if (r->gpu_jpeg) {
        gvis_gpu_reader_nice();
        return imgb_read_jpeg(r, s, c, b->inputs[index], index);
    }
    gvis_decode_fn decode = b->stages[0].decode ? b->stages[0].decode : gvis_load;
    imgb_lend(r, s, 0);
    rc = decode(c, b->inputs[index], &s->src);
    imgb_settle(r, s, 0, &s->src);
    if (rc)
        return imgb_fail(s, rc);
    s->in_format = c->in_format;
    return 0;
}

gvis_format imgb_out_format(const gvis_image_batch *b, int index)
{
    return b->format ? b->format : gvis_format_from_path(b->outputs[index]);
}

static int st_compute(void *v, int worker, int index, int slot)
{
    struct run *r = v;
    const gvis_image_batch *b = r->b;
    const gvis_image_stages *st = &b->stages[worker];
    struct slot *s = &r->slots[slot];
    (void)index;
    if (!b->ctxs[worker]) { /* made here, at this worker's first item (images.h) */
        b->ctxs[worker] = b->make_ctx ? b->make_ctx(b->user, worker) : NULL;
        if (!b->ctxs[worker])
            return imgb_fail(s, b->make_ctx ? GVIS_E_DEVICE : gvis_error(GVIS_E_ARG, "no context for worker %d", worker));
    }
    gvis_ctx *c = b->ctxs[worker];
    struct worker *w = &r->w[worker];
    if (w->fallback)
        c = w->fallback;
    int rc = GVIS_NVJ_DECLINED;
    if (r->gpu_jpeg && gvis_ctx_on_cuda(c) && c->nvj)
        rc = imgb_compute_gpu(r, c, st, s, index);
    else if (s->bits.data)
        rc = imgb_cpu_decode(r, s, c);
    imgb_drop_req(s, c); /* the device image is done with: its buffer to the next batch */
    if (rc != GVIS_NVJ_DECLINED) {
        gvis_buf_free(&s->bits);
        imgb_release(r, s, 0, &s->src);
        if (rc)
            return imgb_fail(s, rc);
        s->device = gvis_ctx_device_index(c);
        return 0;
    }
    gvis_buf_free(&s->bits);
    if (st->op_file) { /* a tensor from the host image */
        rc = st->op_file(c, &s->src, NULL, b->outputs[index], &s->enc, st->arg);
        if (rc != GVIS_OP_IMAGE) {
            imgb_release(r, s, 0, &s->src);
            if (rc)
                return imgb_fail(s, rc);
            s->device = gvis_ctx_device_index(c);
            return 0;
        }
    }
    imgb_lend(r, s, 1);
    rc = st->op(c, &s->src, &s->dst, st->arg);
    /* a GPU that fails: its entry is marked, and this worker goes on with a context on
     * the next entry not known broken (the same file first) */
    while (rc == GVIS_E_DEVICE && c->on_cuda && b->make_ctx && b->entries > 1) {
        atomic_store(&r->broken[c->entry], 1);
        gvis_log(c, GVIS_LOG_WARN, "'%s' failed on %s (%s): retrying on another device of the list",
                 b->inputs[index], c->device_name, gvis_errmsg());
        gvis_ctx *n = NULL;
        for (int k = 1; k < b->entries && !n; k++) {
            int e = (c->entry + k) % b->entries;
            if (!atomic_load(&r->broken[e]) && !(n = b->make_ctx(b->user, e)))
                atomic_store(&r->broken[e], 1);
        }
        if (!n) {
            rc = gvis_error(GVIS_E_DEVICE, "%s: no device of the list left", gvis_errmsg());
            break;
        }
        if (w->fallback) {
            gvis_timing_add(&b->ctxs[worker]->timing, &w->fallback->timing);
            gvis_ctx_free(w->fallback);
        }
        w->fallback = c = n;
        rc = st->op(c, &s->src, &s->dst, st->arg);
    }
    if (rc && s->dst.data) /* a failed op keeps no image (a lent buffer goes back to the lend) */
        gvis_image_free(&s->dst);
    imgb_settle(r, s, 1, &s->dst);
    /* a JPEG output of a host result: encoded here, on the GPU, where that works */
    if (!rc && r->gpu_jpeg && c->nvj && gvis_ctx_on_cuda(c) && imgb_out_format(b, index) == GVIS_FMT_JPEG &&
        gvis_nvj_encode(c, &s->dst, &s->enc) != GVIS_OK)
        gvis_buf_free(&s->enc);
    imgb_release(r, s, 0, &s->src); /* the decoded image is done with: its buffer for the next */
    if (rc)
        return imgb_fail(s, rc);
    s->device = gvis_ctx_device_index(c);
    return 0;
}

static int st_write(void *v, int thread, int index, int slot)
{
    struct run *r = v;
    const gvis_image_batch *b = r->b;
    struct slot *s = &r->slots[slot];
    gvis_ctx *c = r->wctx[thread];
    imgb_bind(c);
    c->in_format = s->in_format;
    gvis_encode_fn encode = b->stages[0].encode ? b->stages[0].encode : gvis_save;
    /* the item's outputs are one set: all of them or none */
    gvis_outset *set = gvis_outset_begin();
    int rc;
    if (!set) {
        rc = gvis_error(GVIS_E_NOMEM, "out of memory");
    } else if (s->enc.data) { /* encoded on the device: the bytes alone */
        double t0 = gvis_now_ms();
        rc = gvis_write_file_atomic(b->outputs[index], s->enc.data, s->enc.len);
        c->timing.save_ms += gvis_now_ms() - t0;
    } else {
        rc = encode(c, b->outputs[index], b->format, &s->dst);
        if (!rc && r->gpu_jpeg && imgb_out_format(b, index) == GVIS_FMT_JPEG)
            gvis_nvj_count_total(3);
    }
    if (set && !rc)
        rc = gvis_outset_commit(set);
    else
        gvis_outset_abort(set);
    if (rc)
        return imgb_fail(s, rc);
    return 0;
}

static int st_done(void *v, int index, int status)
{
    struct run *r = v;
    const gvis_image_batch *b = r->b;
    struct slot *s = &r->slots[index % r->inflight];
    int stop = b->done ? b->done(b->user, index, status, s->msg ? s->msg : "failed", s->device) : 0;
    slot_clear(r, s);
    return stop;
}

gvis_ctx *gvis_io_ctx(const gvis_ctx *from)
{
    gvis_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->want = 1;
    c->repeat = from->repeat;
    c->timing.repeat = from->repeat;
    c->io = from->io;
    c->log = from->log;
    c->log_user = from->log_user;
    c->fail_after = -1;
    strcpy(c->device_name, "cpu");
    return c;
}

int gvis_image_batch_run(const gvis_image_batch *b)
{
    if (b->n <= 0)
        return 0;
    if (b->workers < 1 || b->readers < 1 || b->writers < 1 || b->inflight < 1 || !b->stages)
        return -1;
    struct run r = {.b = b, .inflight = b->inflight};
    int reported = -1, pool = 0;
    double t0 = gvis_now_ms(), t1 = t0;
    /* where the workers' contexts decode and encode JPEG on the GPU (nvJPEG): a decode
     * stage per GPU of the list, whose decoders are made and warmed up from the first
     * bitstream on, while the readers read the next files */
    r.gpu_jpeg = b->ctxs[0]->nvj && !b->stages[0].decode;
    if (r.gpu_jpeg && imgb_start_stages(&r))
        goto out;
    r.slots = calloc((size_t)r.inflight, sizeof *r.slots);
    r.w = calloc((size_t)b->workers, sizeof *r.w);
    r.rctx = calloc((size_t)b->readers, sizeof *r.rctx);
    r.wctx = calloc((size_t)b->writers, sizeof *r.wctx);
    r.broken = calloc((size_t)(b->entries > 0 ? b->entries : 1), sizeof *r.broken);
    if (!r.slots || !r.w || !r.rctx || !r.wctx || !r.broken)
        goto out;
    for (int i = 0; i < r.inflight; i++)
        r.slots[i].device = -1;
    /* readers and writers never touch a device: CPU contexts with the workers' options */
    for (int i = 0; i < b->readers; i++)
        if (!(r.rctx[i] = gvis_io_ctx(b->ctxs[0])))
            goto out;
    for (int i = 0; i < b->writers; i++)
        if (!(r.wctx[i] = gvis_io_ctx(b->ctxs[0])))
            goto out;
    for (int i = 0; i < b->workers; i++)
        r.pin |= b->ctxs[i] ? b->ctxs[i]->on_cuda : b->ctxs[0]->on_cuda;
    /* at most every slot's two images alive at once, and the stage in progress */
    if (gvis_bufpool_init(&r.pool, 2 * r.inflight + 2, r.pin))
        goto out;
    pool = 1;
#if defined(__GLIBC__)
    /* Image buffers of 1 MiB and more straight from and back to the system: glibc's
     * dynamic threshold otherwise rises to the largest buffer freed, and then each of the
     * batch's threads keeps freed images in its own arena (peak RSS 435 MB against 273 MB
     * for 30 wallpapers at -j 2, same speed; docs/notes-batch.md). */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    gvis_pipe_stages st = {{st_read, st_compute, st_write},
                           {b->readers, b->workers, b->writers},
                           r.inflight,
                           st_done,
                           &r};
    t1 = gvis_now_ms();
    gvis_trace_span("batch: set up", t0, t1, b->n);
    reported = gvis_pipeline_run_stages(b->n, &st);
    gvis_trace_span("batch: the files", t1, gvis_now_ms(), b->n);
out:
    t1 = gvis_now_ms();
    if (r.slots)
        for (int i = 0; i < r.inflight; i++) {
            slot_clear(&r, &r.slots[i]);
        }
    imgb_stop_stages(&r);
    gvis_trace_span("batch: stop the decoders", t1, gvis_now_ms(), 0);
    t1 = gvis_now_ms();
    if (pool)
        gvis_bufpool_destroy(&r.pool);
    gvis_timing *t = &b->ctxs[0]->timing;
    for (int i = 1; i < b->workers; i++) {
        if (!b->ctxs[i])
            continue;
        gvis_timing_add(t, &b->ctxs[i]->timing);
        b->ctxs[i]->timing = (gvis_timing){.repeat = t->repeat};
    }
    if (r.w)
        for (int i = 0; i < b->workers; i++)
            if (r.w[i].fallback) {
                gvis_timing_add(t, &r.w[i].fallback->timing);
                gvis_ctx_free(r.w[i].fallback);
            }
    if (r.rctx)
        for (int i = 0; i < b->readers; i++)
            if (r.rctx[i]) {
                gvis_timing_add(t, &r.rctx[i]->timing);
                gvis_ctx_free(r.rctx[i]);
            }
    if (r.wctx)
        for (int i = 0; i < b->writers; i++)
            if (r.wctx[i]) {
                gvis_timing_add(t, &r.wctx[i]->timing);
                gvis_ctx_free(r.wctx[i]);
            }
    free(r.slots);
    free(r.w);
    free(r.rctx);
    free(r.wctx);
    free((void *)r.broken);
    gvis_trace_span("batch: free", t1, gvis_now_ms(), 0);
    return reported;
}
