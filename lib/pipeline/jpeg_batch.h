/* The nvJPEG decode stage of one GPU (docs/notes-nvjpeg.md, "The decode stage"): the
 * batch's readers submit the JPEG bitstreams the engines may take; decoder threads of the
 * stage's own (two per GPU: each its own nvJPEG state and stream on one shared hardware
 * handle, so that one batch is gathered and submitted while the other decodes) take as
 * many as wait, up to the batch size, decode them in one nvjpegDecodeBatched call into
 * device buffers of the stage's pool, and hand them over; the compute thread of the file
 * waits for it, works on the device image and gives the buffer back.  The decoders are
 * made and warmed up (one small decode each) on their threads as soon as the first file
 * is submitted (or gvis_jbatch_warming asks), while the readers read the next ones: no compute thread waits for the
 * engines' first use in series. */
#ifndef GVIS_JPEG_BATCH_H
#define GVIS_JPEG_BATCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct gvis_jbatch gvis_jbatch;

/* One file through the stage.  The submitter sets data, len, width and height (the
 * stored frame); the rest is the stage's.  data must stay valid until the request is
 * released. */
typedef struct gvis_jbatch_req {
    const uint8_t *data;
    size_t len;
    int width, height;
    /* once waited for: 0 decoded (d_img holds width x height interleaved RGB on CUDA device
     * `device`, pitch bytes a row, until released), 1 refused or failed by nvJPEG (decode it
     * on the CPU), -1 the device failed, -2 the stage has no decoder (no hardware backend:
     * the same for every file), with why */
    int status;
    char why[200];
    void *d_img;
    size_t pitch;
    int device;
    /* the stage's */
    gvis_jbatch *owner; /* NULL: not submitted, or released */
    int state;
    void *buf;
    size_t cap;
    struct gvis_jbatch_req *next;
} gvis_jbatch_req;

/* A stage on CUDA device `device` with batches of at most max_batch (1..128); while one
 * batch decodes, the other decoder leaves once min_batch files wait (or that batch ends).
 * Its threads start with the first file submitted and make and warm the decoders at
 * once (a batch with no file for the engines makes none).  NULL: out of memory. */
gvis_jbatch *gvis_jbatch_start(int device, int max_batch, int min_batch);
/* Stops the threads and frees everything; every request must have been released. */
void gvis_jbatch_stop(gvis_jbatch *jb);

/* Queues r (never blocks; the caller bounds how many are submitted and not released). */
void gvis_jbatch_submit(gvis_jbatch *jb, gvis_jbatch_req *r);
/* Waits until r is decoded or refused; returns r->status, copying r->why where < 0. */
int gvis_jbatch_wait(gvis_jbatch_req *r, char *why, size_t why_len);
/* Gives r's device buffer back (r's device image must be done with: the caller's stream
 * synchronized); a request still queued is withdrawn, one being decoded waited for.  No
 * effect on a request not submitted.  Thread-safe. */
void gvis_jbatch_release(gvis_jbatch_req *r);
/* Starts the stage's decoder threads if they are not yet (they make and warm up the
 * decoders) and says whether no decoder is ready yet: 1 while they are being made and
 * warmed up (about a second on an H100), 0 once one is ready or the stage has failed. */
int gvis_jbatch_warming(gvis_jbatch *jb);
/* Files submitted and not yet decoded (queued or in a batch): where a reader sends the
 * next one. */
int gvis_jbatch_pending(gvis_jbatch *jb);

/* The stage's CUDA device. */
int gvis_jbatch_device(const gvis_jbatch *jb);

typedef struct {
    long batches, images, largest;
    double make_ms;      /* decoder 0's making (the hardware handle, a state, a stream) */
    double warm_ms[2];   /* from the threads' start to each decoder ready: made and its
                          * first decode done, on its thread (-1: none yet, or none) */
    double ready_ms;     /* from the first file (the threads' start) to the first decoder ready */
    double decode_ms;    /* in batches, all decoders: of which */
    double alloc_ms;     /* device buffers made */
    double check_ms;     /* nvjpegDecodeBatchedSupported, per file */
    double call_ms;      /* nvjpegDecodeBatched */
    double sync_ms;      /* the stream's synchronization */
    double first_wait_ms; /* from the stage's making to the first file's submission */
    long buffers;        /* device buffers made by the pool (allocations, all told) */
    size_t pool_bytes;   /* the pool's buffers now */
} gvis_jbatch_stats;
void gvis_jbatch_get_stats(gvis_jbatch *jb, gvis_jbatch_stats *st);

/* A stand-in decoder (the stage tested without a GPU): warm(user, k) makes decoder k (0
 * ready, non-zero: none; decoder 0 failing makes the stage refuse every file with -2);
 * run(user, k, reqs, n) decodes into each request's d_img (host memory, pitch bytes a
 * row) and sets its status (1 on entry) and why.  budget: the pool's bytes over which
 * free buffers are dropped rather than kept (0: no limit). */
typedef int (*gvis_jbatch_warm_fn)(void *user, int decoder);
typedef void (*gvis_jbatch_run_fn)(void *user, int decoder, gvis_jbatch_req **reqs, int n);
gvis_jbatch *gvis_jbatch_start_with(int max_batch, int min_batch, size_t budget, gvis_jbatch_warm_fn warm,
                                    gvis_jbatch_run_fn run, void *user);

#endif
