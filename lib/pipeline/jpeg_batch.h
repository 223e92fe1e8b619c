/* One batched JPEG decoder per GPU, shared by that GPU's compute threads ("group
 * commit"): a thread that asks for a decode while no batch is forming on a free decoder
 * leads: it takes every request waiting (up to the batch limit), decodes them in one
 * nvjpegDecodeBatched call on the hardware backend, each into its requester's own device
 * buffer, synchronizes, and wakes the requesters.  Two decoders (handle, state, stream)
 * per GPU, so that a batch forms while the other decodes.  See docs/notes-nvjpeg.md. */
#ifndef GVIS_JPEG_BATCH_H
#define GVIS_JPEG_BATCH_H

#include <stddef.h>
#include <stdint.h>

typedef struct gvis_jbatch gvis_jbatch;

/* A batcher for one CUDA device with batches of at most max_batch (1..128); while a
 * batch decodes, the next one starts once min_batch requests wait (or that one ends).
 * The decoders are made by the first leader, on its thread and device.  NULL: out of
 * memory. */
gvis_jbatch *gvis_jbatch_new(int max_batch, int min_batch);
void gvis_jbatch_free(gvis_jbatch *jb);

/* Decodes the JPEG data[0..len) (upright or not: the stored frame, RGB interleaved) into
 * the device buffer d_dst of CUDA device `device`, the caller's current one (pitch bytes a row, at least 3 x the frame's width).  Returns 0
 * when decoded (the buffer is ready: the decoder's stream was synchronized), 1 when
 * nvJPEG refused or failed on this file (decode it on the CPU), -1 when the device
 * failed, -2 when the decoders cannot be had (no hardware backend; the same for every
 * later call), with why.  Thread-safe. */
int gvis_jbatch_decode(gvis_jbatch *jb, int device, const uint8_t *data, size_t len, void *d_dst, size_t pitch,
                       char *why, size_t why_len);

/* Batches run and images they held, so far (for -v). */
void gvis_jbatch_stats(gvis_jbatch *jb, long *batches, long *images);

/* A request as a decoder sees it (internal, and for tests). */
typedef struct gvis_jbatch_req {
    const uint8_t *data;
    size_t len;
    void *d_dst;
    size_t pitch;
    int state;  /* 0 waiting, 1 taken by a leader, 2 finished */
    int status; /* what gvis_jbatch_decode returns: 0 decoded, 1 refused, -1 failed */
    char why[200];
    struct gvis_jbatch_req *next;
} gvis_jbatch_req;
/* A batcher whose decoder is run(user, decoder, reqs, n) instead of nvJPEG (it sets each
 * request's status, 1 on entry): the group commit tested without a GPU. */
typedef void (*gvis_jbatch_run_fn)(void *user, int decoder, gvis_jbatch_req **reqs, int n);
gvis_jbatch *gvis_jbatch_new_with(int max_batch, int min_batch, gvis_jbatch_run_fn run, void *user);

#endif
