/* The nvJPEG side of a GPU's decode stage (jpeg_batch.c): the decoders, their warm-up,
 * a batch, device buffers.  Internal to lib/pipeline; without CUDA every call fails
 * (the stage then answers -2: no decoder). */
#ifndef GVIS_JPEG_BATCH_NV_H
#define GVIS_JPEG_BATCH_NV_H

#include <stddef.h>

#include "jpeg_batch.h"

enum { GVIS_JBATCH_DECODERS = 2, GVIS_JBATCH_MAX = 128 };

typedef struct gvis_jbatch_nv gvis_jbatch_nv;

/* On the thread of decoder 0: its hardware decoder on CUDA device `device` (the handle
 * the others share, a state and a stream) for batches of max_batch, the pad JPEG that
 * fills every batch up, and *budget (the pool's bytes: a third of the device memory
 * free now).  0, or -1 with why (*nv may then hold what was made: destroy it). */
int gvis_jbatch_nv_make(gvis_jbatch_nv **nv, int device, int max_batch, size_t *budget, char *why, size_t why_len);
/* On the thread of decoder k (1 .. GVIS_JBATCH_DECODERS - 1), once decoder 0 is made:
 * its own state and stream on decoder 0's handle.  0, or -1 with why. */
int gvis_jbatch_nv_add(gvis_jbatch_nv *nv, int k, char *why, size_t why_len);
/* On decoder k's thread: binds it to the device and decodes the pad once.  0 ready. */
int gvis_jbatch_nv_warm(gvis_jbatch_nv *nv, int k);
/* Decoder k decodes r[0..n) into each r->d_img (pitch r->pitch; NULL: none, left
 * refused), synchronized; sets each status (1 on entry) and why; adds the milliseconds
 * of the support checks, the nvjpegDecodeBatched call and the sync to ms[0..2]. */
void gvis_jbatch_nv_run(gvis_jbatch_nv *nv, int k, gvis_jbatch_req **r, int n, double *ms);
void gvis_jbatch_nv_destroy(gvis_jbatch_nv *nv);
/* Device memory of `device` for the pool (zeroed once). */
int gvis_jbatch_nv_alloc(int device, size_t bytes, void **p);
void gvis_jbatch_nv_free_buf(int device, void *p);

#endif
