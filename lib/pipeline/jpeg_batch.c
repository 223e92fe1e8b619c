/* The shared batched JPEG decoder of one GPU (jpeg_batch.h): the group commit itself is
 * plain C (tested on the CPU with a stand-in decoder, tests/test_jpeg_batch.c); the
 * decoders are nvJPEG's hardware backend. */
#include "jpeg_batch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#ifdef GVIS_HAVE_CUDA
#include "nvjpeg_codec.h"
#endif

enum { DECODERS = 2, MAX_BATCH = 128 };

struct gvis_jbatch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int device, max_batch, min_batch;
    gvis_jbatch_req *head, *tail;
    int queued;       /* requests waiting, not yet taken */
    int made, broken; /* decoders made (or tried); broken: none could be */
    char broken_why[200];
    int busy[DECODERS], usable[DECODERS];
    gvis_jbatch_run_fn run; /* a stand-in decoder (tests); NULL: nvJPEG */
    void *run_user;
    gvis_buf pad; /* the tiny JPEG that fills every batch up to max_batch */
#ifdef GVIS_HAVE_CUDA
    gvis_cu_job *job[DECODERS];
    gvis_nvjpeg_dec *dec[DECODERS];
#endif
    long batches, images;
};

gvis_jbatch *gvis_jbatch_new(int max_batch, int min_batch)
{
    gvis_jbatch *jb = calloc(1, sizeof *jb);
    if (!jb)
        return NULL;
    pthread_mutex_init(&jb->mu, NULL);
    pthread_cond_init(&jb->cv, NULL);
    jb->max_batch = max_batch < 1 ? 1 : max_batch > MAX_BATCH ? MAX_BATCH : max_batch;
    jb->min_batch = min_batch < 1 ? 1 : min_batch > jb->max_batch ? jb->max_batch : min_batch;
    return jb;
}

gvis_jbatch *gvis_jbatch_new_with(int max_batch, int min_batch, gvis_jbatch_run_fn run, void *user)
{
    gvis_jbatch *jb = gvis_jbatch_new(max_batch, min_batch);
    if (jb) {
        jb->run = run;
        jb->run_user = user;
    }
    return jb;
}

void gvis_jbatch_free(gvis_jbatch *jb)
{
    if (!jb)
        return;
#ifdef GVIS_HAVE_CUDA
    for (int k = DECODERS - 1; k >= 0; k--) { /* decoder 0 owns the handle: last */
        if (jb->job[k])
            gvis_cu_sync(jb->job[k]);
        gvis_nvjpeg_dec_destroy(jb->dec[k]);
        gvis_cu_job_destroy(jb->job[k]);
    }
#endif
    gvis_buf_free(&jb->pad);
    pthread_mutex_destroy(&jb->mu);
    pthread_cond_destroy(&jb->cv);
    free(jb);
}

void gvis_jbatch_stats(gvis_jbatch *jb, long *batches, long *images)
{
    pthread_mutex_lock(&jb->mu);
    *batches = jb->batches;
    *images = jb->images;
    pthread_mutex_unlock(&jb->mu);
}

/* Under the lock, by the first leader: a job (stream) and a hardware decoder per slot. */
static void make_decoders(gvis_jbatch *jb)
{
    char why[256] = "";
    jb->made = 1;
    if (jb->run) {
        for (int k = 0; k < DECODERS; k++)
            jb->usable[k] = 1;
        return;
    }
#ifdef GVIS_HAVE_CUDA
    const gvis_nvjpeg_lib *lib = gvis_nvjpeg(why, sizeof why);
    /* one hardware handle (decoder 0's; nvJPEG's handle is thread-safe, its states and
     * streams are not: each decoder has its own) */
    for (int k = 0; k < DECODERS && lib; k++) {
        int err = gvis_cu_job_create(jb->device, &jb->job[k]);
        if (err) {
            snprintf(why, sizeof why, "CUDA stream for the JPEG decoder: %s", gvis_cu_strerror(err));
            jb->job[k] = NULL;
            break;
        }
        if (gvis_nvjpeg_dec_create_from(lib, jb->max_batch, gvis_cu_job_stream(jb->job[k]), k ? jb->dec[0] : NULL,
                                        &jb->dec[k], why, sizeof why)) {
            gvis_cu_job_destroy(jb->job[k]);
            jb->job[k] = NULL;
            jb->dec[k] = NULL;
            break;
        }
        jb->usable[k] = 1;
    }
    /* every batch filled up to max_batch with a tiny JPEG (64x64, flat grey, libjpeg-
     * turbo's baseline 4:2:0): one DecodeBatchedInitialize per decoder, where one per
     * batch size made more threads slower on the H200 */
    gvis_image tiny = {0};
    if (jb->usable[0] && jb->max_batch > 1 && !gvis_image_alloc(&tiny, 64, 64, 3, GVIS_U8, 0)) {
        memset(tiny.data, 128, tiny.stride * 64);
        gvis_io_opts io = {0};
        io.quality = 50;
        gvis_jpeg_info info;
        if (gvis_image_encode(&tiny, GVIS_FMT_JPEG, &io, &jb->pad) ||
            !gvis_nvjpeg_dec_supported(jb->dec[0], jb->pad.data, jb->pad.len, &info) || info.width != 64 ||
            info.height != 64)
            gvis_buf_free(&jb->pad);
        for (int k = 0; k < DECODERS && jb->pad.data; k++) {
            void *scratch = NULL;
            if (jb->usable[k] && !gvis_cu_buffer(jb->job[k], 0, (size_t)jb->max_batch * 64 * 256, &scratch))
                gvis_nvjpeg_dec_set_pad(jb->dec[k], jb->pad.data, jb->pad.len, scratch, 256);
        }
    }
    gvis_image_free(&tiny);
#else
    snprintf(why, sizeof why, "this gvis was built without CUDA");
#endif
    if (!jb->usable[0]) {
        jb->broken = 1;
        snprintf(jb->broken_why, sizeof jb->broken_why, "%s", why[0] ? why : "nvJPEG is unavailable");
    }
}

/* A decoder to lead a batch on now: a free one, if no batch runs or min_batch requests
 * wait (while one batch decodes, the next gathers rather than leaving with one file);
 * -1: wait.  Under the lock. */
static int free_decoder(gvis_jbatch *jb)
{
    int k = -1, running = 0;
    for (int i = 0; i < DECODERS; i++) {
        if (jb->usable[i] && !jb->busy[i] && k < 0)
            k = i;
        running |= jb->busy[i];
    }
    return running && jb->queued < jb->min_batch ? -1 : k;
}

/* Outside the lock: decoder k runs the n requests r. */
static void run_batch(gvis_jbatch *jb, int k, gvis_jbatch_req **r, int n)
{
    for (int i = 0; i < n; i++)
        r[i]->status = 1; /* refused unless decoded */
    if (jb->run) {
        jb->run(jb->run_user, k, r, n);
        return;
    }
#ifdef GVIS_HAVE_CUDA
    gvis_nvjpeg_dec *dec = jb->dec[k];
    const uint8_t *data[MAX_BATCH];
    size_t len[MAX_BATCH], pitch[MAX_BATCH];
    unsigned char *dst[MAX_BATCH];
    int status[MAX_BATCH], idx[MAX_BATCH], m = 0;
    for (int i = 0; i < n; i++) {
        gvis_jpeg_info info;
        if (!gvis_nvjpeg_dec_supported(dec, r[i]->data, r[i]->len, &info))
            continue;
        data[m] = r[i]->data;
        len[m] = r[i]->len;
        dst[m] = r[i]->d_dst;
        pitch[m] = r[i]->pitch;
        idx[m++] = i;
    }
    if (!m)
        return;
    int err = 0;
    const char *why = NULL;
    if (gvis_nvjpeg_dec_batch(dec, m, data, len, dst, pitch, status))
        why = gvis_nvjpeg_dec_error(dec);
    else if ((err = gvis_cu_sync(jb->job[k])) != 0)
        why = gvis_cu_strerror(err);
    for (int j = 0; j < m; j++) {
        gvis_jbatch_req *q = r[idx[j]];
        if (why) {
            q->status = -1;
            snprintf(q->why, sizeof q->why, "nvJPEG batched decode: %s", why);
        } else {
            q->status = status[j] == GVIS_NVJPEG_DECODED ? 0 : 1;
        }
    }
#endif
}

int gvis_jbatch_decode(gvis_jbatch *jb, int device, const uint8_t *data, size_t len, void *d_dst, size_t pitch,
                       char *why, size_t why_len)
{
    gvis_jbatch_req me = {.data = data, .len = len, .d_dst = d_dst, .pitch = pitch};
    pthread_mutex_lock(&jb->mu);
    if (!jb->made) {
        jb->device = device;
        make_decoders(jb);
    }
    if (jb->broken) {
        snprintf(why, why_len, "%s", jb->broken_why);
        pthread_mutex_unlock(&jb->mu);
        return -2;
    }
    if (jb->tail)
        jb->tail->next = &me;
    else
        jb->head = &me;
    jb->tail = &me;
    jb->queued++;
    while (me.state != 2) {
        int k = me.state == 0 ? free_decoder(jb) : -1;
        if (k < 0) {
            pthread_cond_wait(&jb->cv, &jb->mu);
            continue;
        }
        /* lead: every request waiting, up to the batch limit, oldest first (this one among
         * them unless more than a batch waits before it: then it leads again after) */
        gvis_jbatch_req *batch[MAX_BATCH];
        int n = 0;
        while (jb->head && n < jb->max_batch) {
            batch[n] = jb->head;
            batch[n]->state = 1;
            jb->head = jb->head->next;
            n++;
        }
        if (!jb->head)
            jb->tail = NULL;
        jb->queued -= n;
        jb->busy[k] = 1;
        jb->batches++;
        jb->images += n;
        pthread_mutex_unlock(&jb->mu);
        run_batch(jb, k, batch, n);
        pthread_mutex_lock(&jb->mu);
        jb->busy[k] = 0;
        for (int i = 0; i < n; i++)
            batch[i]->state = 2;
        pthread_cond_broadcast(&jb->cv);
    }
    pthread_mutex_unlock(&jb->mu);
    if (me.status < 0)
        snprintf(why, why_len, "%s", me.why);
    return me.status;
}
