/* Image files through the staged pipeline (images.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "bufpool.h"
#include "images.h"
#include "internal.h"
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

static void slot_clear(struct run *r, struct slot *s)
{
    release(r, s, 0, &s->src);
    release(r, s, 1, &s->dst);
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
    gvis_decode_fn decode = b->stages[0].decode ? b->stages[0].decode : gvis_load;
    lend(r, s, 0);
    rc = decode(c, b->inputs[index], &s->src);
    settle(r, s, 0, &s->src);
    if (rc)
        return fail(s, rc);
    s->in_format = c->in_format;
    return 0;
}

static int st_compute(void *v, int worker, int index, int slot)
{
    struct run *r = v;
    const gvis_image_batch *b = r->b;
    const gvis_image_stages *st = &b->stages[worker];
    struct slot *s = &r->slots[slot];
    (void)index;
    gvis_ctx *c = b->ctxs[worker];
    struct worker *w = &r->w[worker];
    if (w->fallback)
        c = w->fallback;
    lend(r, s, 1);
    int rc = st->op(c, &s->src, &s->dst, st->arg);
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
    int rc = set ? encode(c, b->outputs[index], b->format, &s->dst) : gvis_error(GVIS_E_NOMEM, "out of memory");
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
    struct slot *s = &r->slots[index % b->inflight];
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
    struct run r = {.b = b};
    r.slots = calloc((size_t)b->inflight, sizeof *r.slots);
    r.w = calloc((size_t)b->workers, sizeof *r.w);
    r.rctx = calloc((size_t)b->readers, sizeof *r.rctx);
    r.wctx = calloc((size_t)b->writers, sizeof *r.wctx);
    r.broken = calloc((size_t)(b->entries > 0 ? b->entries : 1), sizeof *r.broken);
    int reported = -1, pool = 0;
    if (!r.slots || !r.w || !r.rctx || !r.wctx || !r.broken)
        goto out;
    for (int i = 0; i < b->inflight; i++)
        r.slots[i].device = -1;
    /* where the workers' contexts decode and encode JPEG on the GPU (nvJPEG), each reader
     * and writer gets a context of its own on a device of the list, round robin; else a
     * CPU context with the same I/O options */
    int dev_io = b->make_ctx && b->entries > 0 && b->ctxs[0]->nvj;
    for (int i = 0; i < b->readers; i++)
        if (!(dev_io && (r.rctx[i] = b->make_ctx(b->user, i % b->entries))) && !(r.rctx[i] = gvis_io_ctx(b->ctxs[0])))
            goto out;
    for (int i = 0; i < b->writers; i++)
        if (!(dev_io && (r.wctx[i] = b->make_ctx(b->user, i % b->entries))) && !(r.wctx[i] = gvis_io_ctx(b->ctxs[0])))
            goto out;
    for (int i = 0; i < b->workers; i++)
        r.pin |= b->ctxs[i]->on_cuda;
    /* at most every slot's two images alive at once, and the stage in progress */
    if (gvis_bufpool_init(&r.pool, 2 * b->inflight + 2, r.pin))
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
                           b->inflight,
                           st_done,
                           &r};
    reported = gvis_pipeline_run_stages(b->n, &st);
out:
    if (r.slots)
        for (int i = 0; i < b->inflight; i++) {
            slot_clear(&r, &r.slots[i]);
        }
    if (pool)
        gvis_bufpool_destroy(&r.pool);
    gvis_timing *t = &b->ctxs[0]->timing;
    for (int i = 1; i < b->workers; i++) {
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
