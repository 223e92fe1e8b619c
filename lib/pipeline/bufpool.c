/* Reused image buffers for the batch pipeline (bufpool.h). */
#include <stdlib.h>

#include "bufpool.h"
#include "internal.h"

static void buf_free(void *p, int pinned)
{
#ifdef GVIS_HAVE_CUDA
    if (pinned) {
        gvis_cu_pinned_free(p);
        return;
    }
#endif
    (void)pinned;
    free(p);
}

static void *buf_alloc(size_t bytes, int pinned)
{
#ifdef GVIS_HAVE_CUDA
    void *p = NULL;
    if (pinned)
        return gvis_cu_pinned_alloc(bytes, &p) ? NULL : p;
#endif
    (void)pinned;
    return aligned_alloc(64, bytes);
}

int gvis_bufpool_init(gvis_bufpool *bp, int max, int pinned)
{
    *bp = (gvis_bufpool){.max = max > 0 ? max : 1, .pinned = pinned};
    bp->p = calloc((size_t)bp->max, sizeof *bp->p);
    bp->cap = calloc((size_t)bp->max, sizeof *bp->cap);
    if (!bp->p || !bp->cap || pthread_mutex_init(&bp->mu, NULL)) {
        free(bp->p);
        free(bp->cap);
        bp->p = NULL;
        bp->cap = NULL;
        return -1;
    }
    return 0;
}

void gvis_bufpool_destroy(gvis_bufpool *bp)
{
    if (!bp->p)
        return;
    for (int i = 0; i < bp->n; i++)
        buf_free(bp->p[i], bp->pinned);
    free(bp->p);
    free(bp->cap);
    pthread_mutex_destroy(&bp->mu);
    bp->p = NULL;
    bp->cap = NULL;
    bp->n = 0;
}

void gvis_bufpool_note(gvis_bufpool *bp, size_t bytes)
{
    pthread_mutex_lock(&bp->mu);
    if (bytes > bp->want)
        bp->want = bytes;
    pthread_mutex_unlock(&bp->mu);
}

void gvis_bufpool_get(gvis_bufpool *bp, void **p, size_t *cap)
{
    void *old = NULL;
    *p = NULL;
    *cap = 0;
    pthread_mutex_lock(&bp->mu);
    size_t want = (bp->want + 63) / 64 * 64;
    if (want && bp->n) {
        bp->n--;
        if (bp->cap[bp->n] >= want) {
            *p = bp->p[bp->n];
            *cap = bp->cap[bp->n];
        } else {
            old = bp->p[bp->n]; /* smaller than what is now seen: replaced */
        }
    }
    pthread_mutex_unlock(&bp->mu);
    if (old)
        buf_free(old, bp->pinned);
    if (!*p && want && (*p = buf_alloc(want, bp->pinned)))
        *cap = want;
}

void gvis_bufpool_put(gvis_bufpool *bp, void *p, size_t cap)
{
    if (!p)
        return;
    pthread_mutex_lock(&bp->mu);
    int keep = bp->n < bp->max && cap >= bp->want;
    if (keep) {
        bp->p[bp->n] = p;
        bp->cap[bp->n] = cap;
        bp->n++;
    }
    pthread_mutex_unlock(&bp->mu);
    if (!keep)
        buf_free(p, bp->pinned);
}
