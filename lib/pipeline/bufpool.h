/* Reused image buffers for the batch pipeline: a buffer is borrowed for one image (lent
 * to the stage's allocation, gvis_image_lend) and given back when that image is done
 * with, so the buffers alive are the images alive, and each is touched once rather than
 * page-faulted in fresh for every file.  Every buffer grows to the largest image seen so
 * far; on CUDA they are pinned, so uploads and downloads are DMA with no staging copy. */
#ifndef GVIS_BUFPOOL_H
#define GVIS_BUFPOOL_H

#include <pthread.h>
#include <stddef.h>

typedef struct {
    pthread_mutex_t mu;
    void **p;
    size_t *cap;
    int n, max;   /* free buffers, room for them */
    size_t want;  /* the largest image seen, in bytes */
    int pinned;   /* cudaHostAlloc'd (CUDA builds only) */
} gvis_bufpool;

/* max: the most buffers ever given back at once (beyond it, they are freed). */
int gvis_bufpool_init(gvis_bufpool *bp, int max, int pinned);
void gvis_bufpool_destroy(gvis_bufpool *bp);
/* A free buffer of at least the largest size seen (a smaller one is replaced), or a new
 * one; *p NULL when none can be had or no size is known yet (the caller then allocates
 * as usual). */
void gvis_bufpool_get(gvis_bufpool *bp, void **p, size_t *cap);
void gvis_bufpool_put(gvis_bufpool *bp, void *p, size_t cap);
/* An image of bytes was made: later buffers are at least that large. */
void gvis_bufpool_note(gvis_bufpool *bp, size_t bytes);

#endif
