/* The nvJPEG decode stage of one GPU (jpeg_batch.h): the queue, the decoder threads and
 * the pool of device buffers are plain C (tested on the CPU with a stand-in decoder,
 * tests/test_jpeg_batch.c); the decoders are nvJPEG's hardware backend. */
#include "jpeg_batch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "jpeg_batch_nv.h"
#include "trace.h"

enum { DECODERS = GVIS_JBATCH_DECODERS, MAX_BATCH = GVIS_JBATCH_MAX };
enum { QUEUED = 1, TAKEN, DONE };

struct pbuf {
    void *p;
    size_t cap;
};

struct targ {
    gvis_jbatch *jb;
    int k;
};

struct gvis_jbatch {
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* decoders: made, work queued, a batch ended, stop */
    pthread_cond_t done_cv; /* requests finished */
    int device, max_batch, min_batch;
    gvis_jbatch_req *head, *tail;
    int queued, decoding, stop;
    int made, tried, broken; /* decoder 0 made (or tried); decoders tried; none works */
    char broken_why[200];
    int ready[DECODERS], busy[DECODERS];
    pthread_t th[DECODERS];
    struct targ targ[DECODERS];
    int spawned, threads; /* the threads start with the first file (spawn) */
    gvis_jbatch_warm_fn warm; /* a stand-in decoder (tests); NULL: nvJPEG */
    gvis_jbatch_run_fn run;
    void *user;
    /* the pool: buffers free, bytes of all buffers (free and held), held by requests */
    struct pbuf *free;
    int nfree, free_cap;
    size_t bytes, budget;
    int held;
    long buffers;
    double t_start, t_spawn, first_submit;
    gvis_jbatch_stats st;
    gvis_jbatch_nv *nv; /* the nvJPEG decoders (jpeg_batch_nv.c) */
};

/* ---- device memory (host memory for the stand-in) ---- */

static int buf_alloc(gvis_jbatch *jb, size_t bytes, void **p)
{
    if (jb->run) {
        *p = malloc(bytes ? bytes : 1);
        return *p ? 0 : -1;
    }
    return gvis_jbatch_nv_alloc(jb->device, bytes, p);
}

static void buf_free(gvis_jbatch *jb, void *p)
{
    if (!p)
        return;
    if (jb->run) {
        free(p);
        return;
    }
    gvis_jbatch_nv_free_buf(jb->device, p);
}

/* Under the lock: back to the free list (freed at once where the list cannot grow). */
static void pool_put(gvis_jbatch *jb, void *p, size_t cap)
{
    if (jb->nfree == jb->free_cap) {
        int n = jb->free_cap ? 2 * jb->free_cap : 16;
        struct pbuf *f = realloc(jb->free, (size_t)n * sizeof *f);
        if (!f) {
            buf_free(jb, p);
            jb->bytes -= cap;
            return;
        }
        jb->free = f;
        jb->free_cap = n;
    }
    jb->free[jb->nfree++] = (struct pbuf){p, cap};
}

/* Under the lock: a buffer of at least need bytes for r from the free list (the
 * smallest that fits), or r->buf NULL and r->cap the bytes to allocate outside the lock.
 * Free buffers that do not fit are dropped (into *drop, at most max_drop) while the pool
 * is over its budget.  It never waits: the requests submitted and not released (the
 * batch's slots) bound the buffers held. */
static void pool_get(gvis_jbatch *jb, gvis_jbatch_req *r, size_t need, struct pbuf *drop, int *ndrop, int max_drop)
{
    int best = -1;
    for (int i = 0; i < jb->nfree; i++)
        if (jb->free[i].cap >= need && (best < 0 || jb->free[i].cap < jb->free[best].cap))
            best = i;
    if (best >= 0) {
        r->buf = jb->free[best].p;
        r->cap = jb->free[best].cap;
        jb->free[best] = jb->free[--jb->nfree];
        return;
    }
    while (jb->budget && jb->bytes + need > jb->budget && jb->nfree > 0 && *ndrop < max_drop) {
        drop[(*ndrop)++] = jb->free[--jb->nfree];
        jb->bytes -= drop[*ndrop - 1].cap;
    }
    r->buf = NULL;
    r->cap = need;
    jb->bytes += need;
}

/* ---- the decoder threads ---- */

/* Decoder k made on its thread: 0 first (the handle the others share), then the others
 * while 0 warms up.  0 when made. */
static int make_one(gvis_jbatch *jb, int k, char *why, size_t why_len)
{
    if (jb->run)
        return 0;
    if (k == 0)
        return gvis_jbatch_nv_make(&jb->nv, jb->device, jb->max_batch, &jb->budget, why, why_len);
    return gvis_jbatch_nv_add(jb->nv, k, why, why_len);
}

/* Decoder k's warm-up on its own thread (the stand-in's making too); 0 when ready. */
static int warm_up(gvis_jbatch *jb, int k)
{
    if (jb->run)
        return jb->warm ? jb->warm(jb->user, k) : 0;
    return gvis_jbatch_nv_warm(jb->nv, k);
}

static void finish(gvis_jbatch_req *r, int status, const char *why)
{
    r->status = status;
    snprintf(r->why, sizeof r->why, "%s", why);
    r->state = DONE;
}

/* Under the lock: r out of the queue. */
static void unlink_req(gvis_jbatch *jb, gvis_jbatch_req *r)
{
    gvis_jbatch_req **p = &jb->head, *prev = NULL;
    while (*p && *p != r) {
        prev = *p;
        p = &(*p)->next;
    }
    if (!*p)
        return;
    *p = r->next;
    if (jb->tail == r)
        jb->tail = prev;
    r->next = NULL;
    jb->queued--;
}

/* Under the lock: one decoder's attempt is over; none works: every file to the CPU. */
static void tried(gvis_jbatch *jb, int k, int ok, double t0, const char *why)
{
    jb->ready[k] = ok;
    jb->st.warm_ms[k] = ok ? gvis_now_ms() - t0 : -1;
    if (ok && jb->st.ready_ms < 0)
        jb->st.ready_ms = gvis_now_ms() - jb->t_spawn;
    if (k == 0 && !ok && why && why[0])
        snprintf(jb->broken_why, sizeof jb->broken_why, "%s", why);
    if (++jb->tried == jb->threads) {
        int any = 0;
        for (int i = 0; i < DECODERS; i++)
            any |= jb->ready[i];
        if (!any) {
            jb->broken = 1;
            if (!jb->broken_why[0])
                snprintf(jb->broken_why, sizeof jb->broken_why, "nvJPEG's hardware decoder failed its first decode");
            while (jb->head) {
                gvis_jbatch_req *r = jb->head;
                unlink_req(jb, r);
                finish(r, -2, jb->broken_why);
            }
            pthread_cond_broadcast(&jb->done_cv);
        }
    }
    pthread_cond_broadcast(&jb->cv);
}

static int other_busy(const gvis_jbatch *jb, int k)
{
    for (int i = 0; i < DECODERS; i++)
        if (i != k && jb->busy[i])
            return 1;
    return 0;
}

static void *decoder_main(void *v)
{
    struct targ *t = v;
    gvis_jbatch *jb = t->jb;
    int k = t->k;
    double t0 = gvis_now_ms();
    char why[200] = "";
    if (gvis_trace_on()) {
        char name[48];
        snprintf(name, sizeof name, "JPEG decoder %d of cuda:%d", k, jb->device);
        gvis_trace_thread(name, -1);
    }
    /* decoder 0 first (its handle is the others'), then each makes its own while 0 warms
     * up, and warms it up */
    int ok = 1;
    if (k == 0)
        ok = make_one(jb, 0, why, sizeof why) == 0;
    if (k == 0)
        gvis_trace_span("make decoder 0 (the handle)", t0, gvis_now_ms(), jb->device);
    pthread_mutex_lock(&jb->mu);
    if (k == 0) {
        jb->st.make_ms = gvis_now_ms() - t0;
        jb->made = 1;
        pthread_cond_broadcast(&jb->cv);
    }
    while (!jb->made)
        pthread_cond_wait(&jb->cv, &jb->mu);
    pthread_mutex_unlock(&jb->mu);
    double tm = gvis_now_ms();
    if (ok && k > 0)
        ok = make_one(jb, k, why, sizeof why) == 0;
    if (k > 0)
        gvis_trace_span("make decoder", tm, gvis_now_ms(), jb->device);
    tm = gvis_now_ms();
    if (ok)
        ok = warm_up(jb, k) == 0;
    gvis_trace_span("warm up", tm, gvis_now_ms(), jb->device);
    pthread_mutex_lock(&jb->mu);
    tried(jb, k, ok, t0, why);
    while (ok) {
        while (!jb->stop && (!jb->queued || (jb->queued < jb->min_batch && other_busy(jb, k))))
            pthread_cond_wait(&jb->cv, &jb->mu);
        if (!jb->queued)
            break; /* stopped */
        gvis_jbatch_req *batch[MAX_BATCH];
        int n = 0;
        while (jb->head && n < jb->max_batch) {
            batch[n] = jb->head;
            unlink_req(jb, batch[n]);
            batch[n++]->state = TAKEN;
        }
        jb->busy[k] = 1;
        jb->decoding += n;
        /* device buffers: from the pool, or allocated outside the lock */
        struct pbuf drop[MAX_BATCH];
        int ndrop = 0;
        for (int i = 0; i < n; i++) {
            gvis_jbatch_req *r = batch[i];
            r->pitch = ((size_t)r->width * 3 + 255) / 256 * 256;
            pool_get(jb, r, r->pitch * (size_t)r->height, drop, &ndrop, MAX_BATCH);
        }
        pthread_mutex_unlock(&jb->mu);
        double b0 = gvis_now_ms();
        for (int i = 0; i < ndrop; i++)
            buf_free(jb, drop[i].p);
        int made = 0;
        double phase[3] = {0, 0, 0};
        for (int i = 0; i < n; i++) {
            gvis_jbatch_req *r = batch[i];
            if (!r->buf) {
                if (buf_alloc(jb, r->cap, &r->buf))
                    r->buf = NULL;
                else
                    made++;
            }
            r->d_img = r->buf;
            r->status = 1;
        }
        double b1 = gvis_now_ms();
        if (jb->run)
            jb->run(jb->user, k, batch, n);
        else
            gvis_jbatch_nv_run(jb->nv, k, batch, n, phase);
        double ms = gvis_now_ms() - b0;
        gvis_trace_span("decode batch", b0, b0 + ms, n);
        pthread_mutex_lock(&jb->mu);
        for (int i = 0; i < n; i++) {
            gvis_jbatch_req *r = batch[i];
            if (!r->buf) { /* no memory for it */
                jb->bytes -= r->cap;
                r->cap = 0;
                r->status = -1;
                snprintf(r->why, sizeof r->why, "out of device memory for a %dx%d decoded JPEG on cuda:%d", r->width,
                         r->height, jb->device);
            } else if (r->status != 0) { /* the buffer back at once */
                pool_put(jb, r->buf, r->cap);
                r->buf = r->d_img = NULL;
            } else {
                jb->held++;
            }
            r->state = DONE;
                }
        jb->busy[k] = 0;
        jb->decoding -= n;
        jb->st.batches++;
        jb->st.images += n;
        if (n > jb->st.largest)
            jb->st.largest = n;
        jb->st.decode_ms += ms;
        jb->st.alloc_ms += b1 - b0;
        jb->st.check_ms += phase[0];
        jb->st.call_ms += phase[1];
        jb->st.sync_ms += phase[2];
        jb->buffers += made;
        pthread_cond_broadcast(&jb->done_cv);
        pthread_cond_broadcast(&jb->cv);
    }
    pthread_mutex_unlock(&jb->mu);
    return NULL;
}

/* ---- the stage ---- */

static gvis_jbatch *start(int device, int max_batch, int min_batch, size_t budget, gvis_jbatch_warm_fn warm,
                          gvis_jbatch_run_fn run, void *user)
{
    gvis_jbatch *jb = calloc(1, sizeof *jb);
    if (!jb)
        return NULL;
    pthread_mutex_init(&jb->mu, NULL);
    pthread_cond_init(&jb->cv, NULL);
    pthread_cond_init(&jb->done_cv, NULL);
    jb->device = device;
    jb->max_batch = max_batch < 1 ? 1 : max_batch > MAX_BATCH ? MAX_BATCH : max_batch;
    jb->min_batch = min_batch < 1 ? 1 : min_batch > jb->max_batch ? jb->max_batch : min_batch;
    jb->budget = budget;
    jb->warm = warm;
    jb->run = run;
    jb->user = user;
    jb->t_start = gvis_now_ms();
    jb->first_submit = -1;
    jb->st.ready_ms = -1;
    jb->st.warm_ms[0] = jb->st.warm_ms[1] = -1;
    return jb;
}

/* Under the lock, at the first file: the decoder threads, which make and warm up the
 * decoders at once (a batch with no file for the engines starts none, and waits for no
 * warm-up at its end). */
static void spawn(gvis_jbatch *jb)
{
    jb->spawned = 1;
    jb->t_spawn = gvis_now_ms();
    /* GVIS_JPEG_DECODERS=1: one decoder thread (one handle's warm-up less; nvJPEG makes
     * and warms them one at a time in a process) */
    const char *e = getenv("GVIS_JPEG_DECODERS");
    int want = e && !strcmp(e, "1") ? 1 : DECODERS;
    jb->threads = want;
    for (int k = 0; k < want; k++) {
        jb->targ[k] = (struct targ){jb, k};
        if (pthread_create(&jb->th[k], NULL, decoder_main, &jb->targ[k])) {
            jb->threads = k;
            break;
        }
    }
    if (jb->threads == 0) {
        jb->broken = 1;
        snprintf(jb->broken_why, sizeof jb->broken_why, "cannot start the JPEG decoder threads");
    }
}

gvis_jbatch *gvis_jbatch_start(int device, int max_batch, int min_batch)
{
    return start(device, max_batch, min_batch, 0, NULL, NULL, NULL);
}

gvis_jbatch *gvis_jbatch_start_with(int max_batch, int min_batch, size_t budget, gvis_jbatch_warm_fn warm,
                                    gvis_jbatch_run_fn run, void *user)
{
    return run ? start(0, max_batch, min_batch, budget, warm, run, user) : NULL;
}

void gvis_jbatch_stop(gvis_jbatch *jb)
{
    if (!jb)
        return;
    pthread_mutex_lock(&jb->mu);
    jb->stop = 1;
    pthread_cond_broadcast(&jb->cv);
    pthread_mutex_unlock(&jb->mu);
    for (int k = 0; k < jb->threads; k++)
        pthread_join(jb->th[k], NULL);
    double t0 = gvis_now_ms();
    for (int i = 0; i < jb->nfree; i++)
        buf_free(jb, jb->free[i].p);
    free(jb->free);
    double t1 = gvis_now_ms();
    gvis_trace_span("stop: free the decoded images' buffers", t0, t1, jb->nfree);
    gvis_jbatch_nv_destroy(jb->nv);
    gvis_trace_span("stop: destroy the decoders", t1, gvis_now_ms(), jb->device);
    pthread_mutex_destroy(&jb->mu);
    pthread_cond_destroy(&jb->cv);
    pthread_cond_destroy(&jb->done_cv);
    free(jb);
}

void gvis_jbatch_submit(gvis_jbatch *jb, gvis_jbatch_req *r)
{
    r->owner = jb;
    r->status = 1;
    r->why[0] = 0;
    r->d_img = r->buf = NULL;
    r->cap = 0;
    r->device = jb->device;
    r->next = NULL;
    pthread_mutex_lock(&jb->mu);
    if (jb->first_submit < 0)
        jb->first_submit = gvis_now_ms() - jb->t_start;
    if (!jb->spawned)
        spawn(jb);
    if (jb->broken) {
        finish(r, -2, jb->broken_why);
    } else {
        r->state = QUEUED;
        if (jb->tail)
            jb->tail->next = r;
        else
            jb->head = r;
        jb->tail = r;
        jb->queued++;
        if (jb->queued == 1 || jb->queued == jb->min_batch)
            pthread_cond_broadcast(&jb->cv);
    }
    pthread_mutex_unlock(&jb->mu);
}

int gvis_jbatch_wait(gvis_jbatch_req *r, char *why, size_t why_len)
{
    gvis_jbatch *jb = r->owner;
    if (!jb) {
        snprintf(why, why_len, "JPEG decode stage: a file never submitted");
        return -1;
    }
    pthread_mutex_lock(&jb->mu);
    while (r->state != DONE)
        pthread_cond_wait(&jb->done_cv, &jb->mu);
    pthread_mutex_unlock(&jb->mu);
    if (r->status < 0)
        snprintf(why, why_len, "%s", r->why);
    return r->status;
}

void gvis_jbatch_release(gvis_jbatch_req *r)
{
    gvis_jbatch *jb = r->owner;
    if (!jb)
        return;
    pthread_mutex_lock(&jb->mu);
    if (r->state == QUEUED) {
        unlink_req(jb, r);
        r->state = DONE;
    }
    while (r->state == TAKEN)
        pthread_cond_wait(&jb->done_cv, &jb->mu);
    if (r->buf) {
        pool_put(jb, r->buf, r->cap);
        jb->held--;
    }
    r->buf = r->d_img = NULL;
    r->owner = NULL;
    pthread_mutex_unlock(&jb->mu);
}

int gvis_jbatch_warming(gvis_jbatch *jb)
{
    pthread_mutex_lock(&jb->mu);
    if (!jb->spawned)
        spawn(jb);
    int any = 0;
    for (int i = 0; i < DECODERS; i++)
        any |= jb->ready[i];
    int warming = !any && !jb->broken;
    pthread_mutex_unlock(&jb->mu);
    return warming;
}

int gvis_jbatch_pending(gvis_jbatch *jb)
{
    pthread_mutex_lock(&jb->mu);
    int n = jb->queued + jb->decoding;
    pthread_mutex_unlock(&jb->mu);
    return n;
}

int gvis_jbatch_device(const gvis_jbatch *jb) { return jb->device; }

void gvis_jbatch_get_stats(gvis_jbatch *jb, gvis_jbatch_stats *st)
{
    pthread_mutex_lock(&jb->mu);
    *st = jb->st;
    st->first_wait_ms = jb->first_submit;
    st->buffers = jb->buffers;
    st->pool_bytes = jb->bytes;
    pthread_mutex_unlock(&jb->mu);
}
