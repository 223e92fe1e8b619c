/* Image files through the staged pipeline (pipeline.h): reader threads decode, one
 * thread per device context computes, writer threads encode; on CUDA the decoded
 * images wait in pinned host buffers (one per slot, reused), so each worker's upload on
 * its own stream overlaps the other workers' kernels.
 *
 * Each stage is a function pointer (gvis_image_stages; NULL decode and encode:
 * gvis_load and gvis_save), so a device codec can replace them without the pipeline
 * changing; readers and writers use the table of worker 0 and CPU contexts.  Where the
 * workers' contexts have nvJPEG (--jpeg-codec), readers keep the JPEG bitstreams the
 * engines may take and the compute threads decode them in batches per GPU, compute on
 * the device image (op_dev) and encode JPEG outputs there; writers only write those
 * bytes.  See docs/notes-batch.md and docs/notes-nvjpeg.md. */
#ifndef GVIS_IMAGES_H
#define GVIS_IMAGES_H

#include "gvis.h"

typedef int (*gvis_decode_fn)(gvis_ctx *ctx, const char *path, gvis_image *img);
typedef int (*gvis_op_fn)(gvis_ctx *ctx, const gvis_image *src, gvis_image *dst, void *arg);
typedef int (*gvis_encode_fn)(gvis_ctx *ctx, const char *path, gvis_format fmt, const gvis_image *img);
/* The operation on a device image of ctx's GPU: *dst in the context's own buffers (job
 * slots 0..13; the source may sit in 14 or 15), valid until its next operation; the
 * result keeps the source's metadata. */
typedef int (*gvis_op_dev_fn)(gvis_ctx *ctx, const gvis_dev_image *src, gvis_dev_image *dst, void *arg);
/* An operation whose output file is not an image (a tensor, .npy): its bytes appended to
 * out, from the host image src or (src NULL) the device image dsrc of ctx's GPU; the
 * writer writes them.  GVIS_OP_IMAGE: this output is an image, op / op_dev make it. */
typedef int (*gvis_op_file_fn)(gvis_ctx *ctx, const gvis_image *src, const gvis_dev_image *dsrc, const char *out,
                               gvis_buf *bytes, void *arg);
#define GVIS_OP_IMAGE (-2)

typedef struct {
    gvis_decode_fn decode; /* NULL: gvis_load */
    gvis_op_fn op;         /* required; dst is the op's to allocate */
    gvis_encode_fn encode; /* NULL: gvis_save */
    void *arg;             /* the op's */
    gvis_op_dev_fn op_dev; /* NULL: none (a device image is downloaded for op) */
    gvis_op_file_fn op_file; /* NULL: none */
} gvis_image_stages;

typedef struct {
    int n;
    char *const *inputs, *const *outputs;
    gvis_format format;         /* of every output; GVIS_FMT_NONE: from its name */
    int workers;                /* device workers, one thread each */
    gvis_ctx **ctxs;            /* workers contexts (each on one entry of the device list); ctxs[0] is
                                 * required, a NULL one is made by its worker at its first item with
                                 * make_ctx(user, w) (many workers per GPU then start at once) */
    const gvis_image_stages *stages;
    int readers, writers;       /* threads; their contexts copy ctxs[0]'s I/O options */
    int inflight;               /* images admitted and not yet reported */
    int entries;                /* length of the device list (retry on another entry); 0: none */
    /* a new context on entry e of the device list: for a worker whose device failed, and
     * for readers and writers where JPEG goes through nvJPEG */
    gvis_ctx *(*make_ctx)(void *user, int entry);
    /* before decoding: a status (set with gvis_error) refuses the item; NULL: none */
    int (*check)(void *user, int index);
    /* in input order on the calling thread: status (GVIS_PIPE_CANCELLED for an item
     * stopped between stages), the message of a failure, the CUDA device that computed
     * it (-1: the CPU or none).  Non-zero stops the run (pipeline.h). */
    int (*done)(void *user, int index, int status, const char *msg, int device);
    void *user;
    /* JPEG through nvJPEG (the workers' contexts use it, decode NULL): readers keep the
     * bitstream of each JPEG the engines may take; the compute threads of a GPU decode
     * them in shared batches of at most this many (0: its compute threads), run op_dev on the device
     * image, and encode JPEG outputs there (jpeg_batch.h, images_gpu.h) */
    int jpeg_batch;
} gvis_image_batch;

/* Runs the batch; returns the number of items reported, -1 when it could not start.
 * The stage times of every thread's context are added to ctxs[0]'s timing. */
int gvis_image_batch_run(const gvis_image_batch *b);

/* A CPU context for a reader or writer thread: from's I/O options, log and --repeat
 * (gvis_ctx_free frees it; its timing is its own).  NULL when out of memory. */
gvis_ctx *gvis_io_ctx(const gvis_ctx *from);

#endif
