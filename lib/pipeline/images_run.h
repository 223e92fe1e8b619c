/* The state of one run of the staged image batch, shared by images.c (the stages) and
 * images_nvjpeg.c (where JPEG goes through nvJPEG: the GPUs' decode stages, the readers'
 * bitstreams, the compute stage's device steps).  Private to lib/pipeline. */
#ifndef GVIS_IMAGES_RUN_H
#define GVIS_IMAGES_RUN_H

#include <stdatomic.h>

#include "bufpool.h"
#include "images.h"
#include "internal.h"
#include "jpeg_batch.h"

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

/* images.c: a slot's buffers and state */
/* Lends the slot's buffer k (borrowed from the pool first) to this thread's next image. */
void imgb_lend(struct run *r, struct slot *s, int k);
/* After the image landed: the lent buffer is the image's, or goes back to the pool. */
void imgb_settle(struct run *r, struct slot *s, int k, const gvis_image *img);
/* Frees img, whose pixels may be the slot's buffer k: that goes back to the pool. */
void imgb_release(struct run *r, struct slot *s, int k, gvis_image *img);
/* The slot's file out of its decode stage, its device buffer back. */
void imgb_drop_req(struct slot *s, gvis_ctx *c);
/* The item fails with rc (its message kept in the slot). */
int imgb_fail(struct slot *s, int rc);
/* A reader's or writer's context on a GPU (nvJPEG) works on that GPU from this thread. */
void imgb_bind(gvis_ctx *c);
gvis_format imgb_out_format(const gvis_image_batch *b, int index);

/* images_nvjpeg.c */
int imgb_read_jpeg(struct run *r, struct slot *s, gvis_ctx *c, const char *path, int index);
int imgb_cpu_decode(struct run *r, struct slot *s, gvis_ctx *c);
int imgb_compute_gpu(struct run *r, gvis_ctx *c, const gvis_image_stages *st, struct slot *s, int index);
int imgb_start_stages(struct run *r);
void imgb_stop_stages(struct run *r);

#endif
