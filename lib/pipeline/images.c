/* Image files through the staged pipeline (images.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "bufpool.h"
#include "images.h"
#include "images_gpu.h"
#include "internal.h"
#include "jpeg_batch.h"
#include "pipeline.h"

/* An item's images borrow their pixels from the run's buffer pool (bufpool.h): buf[0]
 * is lent to the decoder (src lands there) and goes back once the operation has run,
 * buf[1] to the operation (dst) and goes back once the item is reported. */
struct slot {
    gvis_image src, dst;
    gvis_format in_format; /* the input's, for an output of no told format */
    void *buf[2];          /* borrowed from the pool, NULL none */
    size_t cap[2];
    int device;            /* the CUDA device that computed it, -1 none */
    char *msg;
    /* JPEG through nvJPEG: the reader's bitstream for the engines (with its metadata and
     * stored size), and the output the compute stage encoded on the device */
    gvis_buf bits, enc;
    gvis_meta *jmeta;
    int jw, jh;
    gvis_jbatch_req req; /* the bitstream in a GPU's decode stage (req.owner set) */
};

struct worker {
    gvis_ctx *fallback; /* on another entry of the device list, after this one's device failed */
};

struct run {
    const gvis_image_batch *b;
    struct slot *slots;
    struct worker *w;
    gvis_ctx **rctx, **wctx;
    atomic_int *broken; /* per device-list entry: its device failed */
    int pin;            /* some worker runs on CUDA */
    int gpu_jpeg;       /* JPEG through nvJPEG: bitstreams, device images, device encode */
    gvis_jbatch **stage; /* the decode stage of each GPU of the list (one per device) */
    int nstages;
    int inflight;        /* slots: the caller's, and two batches per decode stage */
    gvis_bufpool pool;
};

static size_t image_bytes(const gvis_image *img) { return img->data ? img->stride * (size_t)img->height : 0; }

/* Lends the slot's buffer k (borrowed from the pool first) to this thread's next image
 * allocation; where none can be had the stage allocates as usual. */
static void lend(struct run *r, struct slot *s, int k)
{
    if (!s->buf[k])
        gvis_bufpool_get(&r->pool, &s->buf[k], &s->cap[k]);
    gvis_image_lend(s->buf[k], s->cap[k]);
}

/* After the stage that was lent buffer k made img: the pool learns its size, and a
 * buffer the image did not take goes back. */
static void settle(struct run *r, struct slot *s, int k, const gvis_image *img)
{
    gvis_image_lend(NULL, 0);
    gvis_bufpool_note(&r->pool, image_bytes(img));
    if (s->buf[k] && img->data != s->buf[k]) {
        gvis_bufpool_put(&r->pool, s->buf[k], s->cap[k]);
        s->buf[k] = NULL;
    }
}

/* Frees img, whose pixels may be the slot's buffer k: that goes back to the pool. */
static void release(struct run *r, struct slot *s, int k, gvis_image *img)
{
    if (s->buf[k] && img->data == s->buf[k])
        img->data = NULL;
    gvis_image_free(img);
    gvis_bufpool_put(&r->pool, s->buf[k], s->cap[k]);
    s->buf[k] = NULL;
}

/* The slot's file out of its decode stage, its device buffer back (the stream of c, the
 * context that used the device image, synchronized first). */
static void drop_req(struct slot *s, gvis_ctx *c)
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
    drop_req(s, NULL);
    release(r, s, 0, &s->src);
    release(r, s, 1, &s->dst);
    gvis_buf_free(&s->bits);
    gvis_buf_free(&s->enc);
    gvis_meta_free(s->jmeta);
    s->jmeta = NULL;
    free(s->msg);
    s->msg = NULL;
    s->device = -1;
}

static int fail(struct slot *s, int rc)
{
    free(s->msg);
    s->msg = strdup(gvis_errmsg());
    return rc;
}

/* A reader's or writer's context on a GPU (nvJPEG) works on that GPU from this thread. */
static void bind(gvis_ctx *c)
{
#ifdef GVIS_HAVE_CUDA
    if (c->job)
        gvis_cu_job_bind(c->job);
#else
    (void)c;
#endif
}

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

/* The stage for a reader's bitstream, or NULL where the cores should decode it: under
 * --jpeg-codec auto while no GPU of the list has a decoder ready (they are made and
 * warmed up, about a second; every stage is asked, so that all start warming at the
 * first JPEG), the readers decode with libjpeg-turbo rather than queue files for
 * engines that cannot take them yet. */
static gvis_jbatch *stage_for(struct run *r, int index, const gvis_ctx *c)
{
    gvis_jbatch *jb = pick_stage(r, index);
    if (c->io.jpeg_codec != GVIS_JPEG_CODEC_AUTO || !gvis_jbatch_warming(jb, 0))
        return jb;
    for (int k = 0; k < r->nstages; k++)
        if (r->stage[k] != jb && !gvis_jbatch_warming(r->stage[k], 0))
            return r->stage[k];
    return gvis_jbatch_warming(jb, 1) ? NULL : jb;
}

/* A reader where JPEG goes through nvJPEG (no CUDA here): a JPEG the engines may take
 * stays a bitstream in the slot and goes into a GPU's decode stage; anything else is
 * decoded on the CPU as gvis_load does (and, under --jpeg-codec auto, a JPEG read while
 * the decoders warm up: stage_for). */
static int read_jpeg(struct run *r, struct slot *s, gvis_ctx *c, const char *path, int index)
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
            gvis_nvj_probe(&c->io, s->bits.data, s->bits.len, &s->jmeta, &s->jw, &s->jh) &&
            !(jb = stage_for(r, index, c))) { /* the decoders warm up: the probe's metadata is not needed */
            gvis_meta_free(s->jmeta);
            s->jmeta = NULL;
        }
        if (!jb) {
            lend(r, s, 0);
            rc = gvis_ctx_decode(c, s->bits.data, s->bits.len, &s->src);
            settle(r, s, 0, &s->src);
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
    return rc ? fail(s, rc) : 0;
}

static int st_read(void *v, int thread, int index, int slot)
{
    struct run *r = v;
    const gvis_image_batch *b = r->b;
    struct slot *s = &r->slots[slot];
    slot_clear(r, s);
    int rc = b->check ? b->check(b->user, index) : 0;
    if (rc)
        return fail(s, rc);
    gvis_ctx *c = r->rctx[thread];
    bind(c);
    if (r->gpu_jpeg) {
        gvis_gpu_reader_nice();
        return read_jpeg(r, s, c, b->inputs[index], index);
    }
    gvis_decode_fn decode = b->stages[0].decode ? b->stages[0].decode : gvis_load;
    lend(r, s, 0);
    rc = decode(c, b->inputs[index], &s->src);
    settle(r, s, 0, &s->src);
    if (rc)
        return fail(s, rc);
    s->in_format = c->in_format;
    return 0;
}

/* The slot's bitstream decoded by libjpeg-turbo on this thread into src. */
static int cpu_decode(struct run *r, struct slot *s, gvis_ctx *c)
{
    drop_req(s, c);
    double t0 = gvis_now_ms();
    release(r, s, 0, &s->src);
    lend(r, s, 0);
    int rc = gvis_image_decode(s->bits.data, s->bits.len, &c->io, &s->src);
    settle(r, s, 0, &s->src);
    if (!rc)
        gvis_nvj_count_total(1);
    gvis_meta_free(s->jmeta);
    s->jmeta = NULL;
    gvis_buf_free(&s->bits);
    c->timing.load_ms += gvis_now_ms() - t0;
    return rc;
}

static gvis_format out_format(const gvis_image_batch *b, int index)
{
    return b->format ? b->format : gvis_format_from_path(b->outputs[index]);
}

/* The compute stage on a GPU whose JPEG goes through nvJPEG: GVIS_OK (the result in
 * s->enc or s->dst), an error of the file, or GVIS_NVJ_DECLINED: the host operation
 * takes s->src (a bitstream the engines refused, or anything the device failed on, was
 * decoded there by libjpeg-turbo). */
static int compute_gpu(struct run *r, gvis_ctx *c, const gvis_image_stages *st, struct slot *s, int index)
{
    const gvis_image_batch *b = r->b;
    gvis_dev_image in, res;
    int on_dev = 0, rc;
    bind(c);
    if (s->req.owner) {
        rc = gvis_gpu_decode(c, &s->req, s->jmeta, &in);
        if (rc > 0 && c->io.jpeg_codec == GVIS_JPEG_CODEC_NVJPEG)
            return rc; /* --jpeg-codec nvjpeg: a device failure is the file's */
        if (rc > 0)
            gvis_log(c, GVIS_LOG_WARN, "'%s': %s; decoding it with libjpeg-turbo", b->inputs[index], gvis_errmsg());
        if (rc)
            return (rc = cpu_decode(r, s, c)) ? rc : GVIS_NVJ_DECLINED;
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
                return (rc = cpu_decode(r, s, c)) ? rc : GVIS_NVJ_DECLINED;
            }
            return rc;
        }
    }
    if (!st->op_dev) { /* the host operation, on the downloaded image */
        if (!on_dev)
            return GVIS_NVJ_DECLINED;
        lend(r, s, 0);
        rc = gvis_gpu_download(c, &in, s->jmeta, &s->src);
        settle(r, s, 0, &s->src);
        return rc && (rc = cpu_decode(r, s, c)) ? rc : GVIS_NVJ_DECLINED;
    }
    if (!on_dev && gvis_gpu_upload(c, &s->src, &in))
        return GVIS_NVJ_DECLINED;
    gvis_meta *meta = on_dev ? s->jmeta : s->src.meta;
    rc = st->op_dev(c, &in, &res, st->arg);
    if (!rc && out_format(b, index) == GVIS_FMT_JPEG) {
        rc = gvis_gpu_encode(c, &res, meta, &s->enc);
        if (rc != GVIS_NVJ_DECLINED && rc != GVIS_E_DEVICE && rc != GVIS_E_DEVICE_NOMEM)
            return rc;
        gvis_buf_free(&s->enc);
        rc = rc == GVIS_NVJ_DECLINED ? 0 : rc;
    }
    if (!rc) {
        lend(r, s, 1);
        rc = gvis_gpu_download(c, &res, meta, &s->dst);
        settle(r, s, 1, &s->dst);
    }
    if (rc == GVIS_E_DEVICE || rc == GVIS_E_DEVICE_NOMEM) { /* the host path, on its own terms */
        gvis_log(c, GVIS_LOG_WARN, "'%s': %s; computing it on the host path", b->inputs[index], gvis_errmsg());
        return s->bits.data && (rc = cpu_decode(r, s, c)) ? rc : GVIS_NVJ_DECLINED;
    }
    return rc;
}

/* The compute stage's order where JPEG goes through nvJPEG (pipeline.h, pref): a file
 * this worker's GPU has decoded, then one decoded on another GPU of the list (a peer
 * copy), then one still in this GPU's engines, then any other; an image a reader decoded
 * counts as ready here.  Lowest index first made every compute thread wait for its own
 * file's batch while files decoded earlier waited for a thread: on two GPUs the decoders
 * were 60 % busy at 510 images/s (issue 20).  GVIS_PIPE_READY_FIRST=0 keeps input order. */
static int pref_compute(void *v, int worker, int index, int slot)
{
    struct run *r = v;
    const struct slot *s = &r->slots[slot];
    (void)index;
    if (!s->req.owner)
        return GVIS_PIPE_PREF_BEST;
    const gvis_ctx *c = r->w[worker].fallback ? r->w[worker].fallback : r->b->ctxs[worker];
    int local = !c || s->req.device == c->cuda_index;
    return gvis_jbatch_ready(&s->req) ? 2 + local : local;
}

static int ready_first(void)
{
    const char *e = getenv("GVIS_PIPE_READY_FIRST");
    return !e || strcmp(e, "0") != 0;
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
            return fail(s, b->make_ctx ? GVIS_E_DEVICE : gvis_error(GVIS_E_ARG, "no context for worker %d", worker));
    }
    gvis_ctx *c = b->ctxs[worker];
    struct worker *w = &r->w[worker];
    if (w->fallback)
        c = w->fallback;
    int rc = GVIS_NVJ_DECLINED;
    if (r->gpu_jpeg && gvis_ctx_on_cuda(c) && c->nvj)
        rc = compute_gpu(r, c, st, s, index);
    else if (s->bits.data)
        rc = cpu_decode(r, s, c);
    drop_req(s, c); /* the device image is done with: its buffer to the next batch */
    if (rc != GVIS_NVJ_DECLINED) {
        gvis_buf_free(&s->bits);
        release(r, s, 0, &s->src);
        if (rc)
            return fail(s, rc);
        s->device = gvis_ctx_device_index(c);
        return 0;
    }
    gvis_buf_free(&s->bits);
    if (st->op_file) { /* a tensor from the host image */
        rc = st->op_file(c, &s->src, NULL, b->outputs[index], &s->enc, st->arg);
        if (rc != GVIS_OP_IMAGE) {
            release(r, s, 0, &s->src);
            if (rc)
                return fail(s, rc);
            s->device = gvis_ctx_device_index(c);
            return 0;
        }
    }
    lend(r, s, 1);
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
    settle(r, s, 1, &s->dst);
    /* a JPEG output of a host result: encoded here, on the GPU, where that works */
    if (!rc && r->gpu_jpeg && c->nvj && gvis_ctx_on_cuda(c) && out_format(b, index) == GVIS_FMT_JPEG &&
        gvis_nvj_encode(c, &s->dst, &s->enc) != GVIS_OK)
        gvis_buf_free(&s->enc);
    release(r, s, 0, &s->src); /* the decoded image is done with: its buffer for the next */
    if (rc)
        return fail(s, rc);
    s->device = gvis_ctx_device_index(c);
    return 0;
}

static int st_write(void *v, int thread, int index, int slot)
{
    struct run *r = v;
    const gvis_image_batch *b = r->b;
    struct slot *s = &r->slots[slot];
    gvis_ctx *c = r->wctx[thread];
    bind(c);
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
        if (!rc && r->gpu_jpeg && out_format(b, index) == GVIS_FMT_JPEG)
            gvis_nvj_count_total(3);
    }
    if (set && !rc)
        rc = gvis_outset_commit(set);
    else
        gvis_outset_abort(set);
    if (rc)
        return fail(s, rc);
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

/* A decode stage for each GPU of the list (entries on one GPU share it; its threads
 * start with the first bitstream a reader submits);
 * two batches more slots per stage, so that the readers' bitstreams can queue up.  The
 * device of entry e is that of worker e's context (made here, on entry e, where the
 * worker has not one yet).  Non-zero: out of memory. */
static int start_stages(struct run *r)
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

/* The stages stopped (every slot cleared), their figures for -v. */
static void stop_stages(struct run *r)
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
                 "%ld device buffers, %.0f MB; %ld decoded by the cores while the decoders warmed up",
                 gvis_jbatch_device(r->stage[k]), ready, st.first_wait_ms, st.batches,
                 st.batches ? (double)st.images / (double)st.batches : 0.0, st.largest, st.decode_ms, st.alloc_ms,
                 st.check_ms, st.call_ms, st.sync_ms, st.buffers, (double)st.pool_bytes / 1048576.0, st.warm_cpu);
        gvis_jbatch_stop(r->stage[k]);
    }
    free(r->stage);
    r->stage = NULL;
    r->nstages = 0;
}

int gvis_image_batch_run(const gvis_image_batch *b)
{
    if (b->n <= 0)
        return 0;
    if (b->workers < 1 || b->readers < 1 || b->writers < 1 || b->inflight < 1 || !b->stages)
        return -1;
    struct run r = {.b = b, .inflight = b->inflight};
    int reported = -1, pool = 0;
    /* where the workers' contexts decode and encode JPEG on the GPU (nvJPEG): a decode
     * stage per GPU of the list, whose decoders are made and warmed up from the first
     * bitstream on, while the readers read the next files */
    r.gpu_jpeg = b->ctxs[0]->nvj && !b->stages[0].decode;
    if (r.gpu_jpeg && start_stages(&r))
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
    /* pinned host images for the uploads, but where JPEG goes through nvJPEG: there the
     * host images are the few the engines do not take, and the readers' libjpeg-turbo
     * decodes under --jpeg-codec auto while the decoders warm up, whose pinning of each new
     * buffer (cudaHostAlloc) held the driver that the decoders were being made on (made in
     * 1.4-1.8 s against 0.55: issue 17) */
    for (int i = 0; i < b->workers; i++)
        r.pin |= b->ctxs[i] ? b->ctxs[i]->on_cuda : b->ctxs[0]->on_cuda;
    const char *pe = getenv("GVIS_BATCH_PINNED"); /* 0 or 1: either way, for comparisons */
    r.pin = pe && (!strcmp(pe, "0") || !strcmp(pe, "1")) ? r.pin && *pe == '1' : r.pin && !r.gpu_jpeg;
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
                           &r,
                           {NULL, r.gpu_jpeg && ready_first() ? pref_compute : NULL, NULL}};
    reported = gvis_pipeline_run_stages(b->n, &st);
out:
    if (r.slots)
        for (int i = 0; i < r.inflight; i++) {
            slot_clear(&r, &r.slots[i]);
        }
    stop_stages(&r);
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
    return reported;
}
