/* Internal to libgvis: the context's insides and the CUDA glue every operation uses. */
#ifndef GVIS_INTERNAL_H
#define GVIS_INTERNAL_H

#include "gvis.h"

#include <pthread.h>

#ifdef GVIS_HAVE_CUDA
#include "gvis_cuda.h"
#endif

/* lib/core/bgtask.c: fn(arg) on a thread of its own, joined where its result is needed.
 * threaded 0 (or no thread to be had) runs it at once, in the caller.  join returns fn's
 * status and may be called again; it must be, once, before the task is forgotten.
 * run_ms: fn's own time; waited_ms: what the join blocked for (all of run_ms in series). */
typedef struct gvis_bgtask {
    pthread_t thread;
    int threaded, joined, rc;
    int (*fn)(void *arg);
    void *arg;
    double run_ms, waited_ms;
} gvis_bgtask;
void gvis_bgtask_start(gvis_bgtask *t, int (*fn)(void *arg), void *arg, int threaded);
int gvis_bgtask_join(gvis_bgtask *t);

struct gvis_ctx {
    int want;          /* 0 auto, 1 cpu, 2 cuda */
    int on_cuda;       /* operations run on the GPU */
    int cuda_index;
    int entry;         /* position in the --device list (cuda:0,1: 0 or 1) */
    int fail_after;    /* tests (GVIS_TEST_FAIL_DEVICE): computations before a fault, -1 none */
    int computes;
    char device_name[300];
    int repeat;
    gvis_io_opts io;
    gvis_timing timing;
    gvis_format in_format; /* of the last image loaded: what an output of no told format gets */
    gvis_log_fn log;
    void *log_user;
#ifdef GVIS_HAVE_CUDA
    gvis_cu_job *job;  /* created with the context when on_cuda */
#endif
    /* The first context of a process with a device starts it (gvis_cu_job_create: the CUDA
     * context) on a thread of its own: on_cuda, job, device_name and fail_after are settled
     * (ctx.c's settle) where a computation or an accessor first needs them, so read them
     * through gvis_ctx_on_cuda and gvis_dispatch, not before. */
    pthread_mutex_t start_mu;
    int start_pending;  /* started, not settled */
    int start_rc;       /* --device cuda whose start failed: the error, again at each use */
    char start_msg[320];
    gvis_bgtask start;
    struct gvis_nvj_ctx *nvj; /* nvJPEG handles and counts; NULL: JPEG on the CPU (lib/io/nvjpeg_io.c) */
};

/* lib/io/nvjpeg_io.c: the context's JPEG codec.  gvis_nvj_open decides at context
 * creation (GVIS_E_DEVICE for --jpeg-codec nvjpeg without nvJPEG or a CUDA context);
 * the handles are made on first use, in the thread that uses the context. */
int gvis_nvj_open(gvis_ctx *ctx);
void gvis_nvj_close(gvis_ctx *ctx);
/* GVIS_OK, an error, or GVIS_NVJ_DECLINED: not for nvJPEG, use the CPU codec. */
#define GVIS_NVJ_DECLINED (-1)
int gvis_nvj_decode(gvis_ctx *ctx, const uint8_t *data, size_t len, gvis_image *img);
int gvis_nvj_encode(gvis_ctx *ctx, const gvis_image *img, gvis_buf *b);
void gvis_nvj_count_cpu(gvis_ctx *ctx, int encode);
/* The staged batch's JPEG on the GPU (lib/pipeline/images_gpu.c):
 * gvis_nvj_probe, on a reader thread (no CUDA): 1 when the engines may take this JPEG
 * (a whole file, header and size limit by libjpeg-turbo, 8-bit baseline YCbCr of 3
 * components, sides of GVIS_NVJPEG_MIN_SIDE and more), with its metadata (*meta, owned by
 * the caller, EXIF orientation not yet applied) and stored size; 0 otherwise (decode it
 * on the CPU).  gvis_nvj_encode_dev encodes the device image d (RGB u8, hdr's size and
 * metadata, hdr->data unused) as gvis_nvj_encode does: GVIS_OK, an error, or
 * GVIS_NVJ_DECLINED.  gvis_nvj_count_total counts into the process's totals (0 decoded
 * by nvJPEG, 1 by libjpeg-turbo, 2 encoded by nvJPEG, 3 by libjpeg-turbo). */
int gvis_nvj_probe(const gvis_io_opts *io, const uint8_t *data, size_t len, gvis_meta **meta, int *sw, int *sh);
int gvis_nvj_encode_dev(gvis_ctx *ctx, const void *d, size_t pitch, const gvis_image *hdr, gvis_buf *b);
void gvis_nvj_count_total(int what);
void gvis_nvj_count_batches(long batches, long images);

/* Adds the n bytes at p to GVIS_COUNT_REPLICAS interleaved 256-bin histograms
 * h[0 .. 256 * GVIS_COUNT_REPLICAS) (summed by the caller): repeated values then do not
 * wait on one counter. */
#define GVIS_COUNT_REPLICAS 8
void gvis_count_u8(const uint8_t *p, size_t n, uint32_t *h);

/* The median of t[0..n) (t is sorted in place). */
double gvis_median(double *t, int n);

/* Runs fn(arg) ctx->repeat times on the CPU and adds the median time to compute_ms. */
int gvis_time_cpu(gvis_ctx *ctx, int (*fn)(void *arg), void *arg);

/* An operation with a CPU and a CUDA implementation (cuda may be NULL).  On the GPU,
 * a device failure under --device auto is retried on the CPU with a warning; under
 * --device cuda it is returned.  what names the operation in the warning. */
int gvis_dispatch(gvis_ctx *ctx, const char *what, int (*cpu)(gvis_ctx *, void *), int (*cuda)(gvis_ctx *, void *),
                  void *arg);

#ifdef GVIS_HAVE_CUDA
/* Turns a CUDA error code into a status with cudaGetErrorString's text; 0 stays GVIS_OK.
 * Device memory exhaustion becomes GVIS_E_DEVICE_NOMEM. */
int gvis_cuda_status(int err, const char *what);
/* Copies img to a pitched device buffer in slot (timed into upload_ms). */
int gvis_cuda_upload_image(gvis_ctx *ctx, int slot, const gvis_image *img, void **d_ptr, size_t *pitch);
/* Copies a pitched device buffer into img's pixels (timed into download_ms). */
int gvis_cuda_download_image(gvis_ctx *ctx, const void *d_ptr, size_t pitch, gvis_image *img);
/* Copies bytes device -> host, timed into download_ms. */
int gvis_cuda_download(gvis_ctx *ctx, void *h, const void *d, size_t bytes);
/* Runs launch(arg) on the job's stream ctx->repeat times, each between events, and
 * adds the median to compute_ms.  launch returns a CUDA error code. */
int gvis_time_cuda(gvis_ctx *ctx, int (*launch)(void *arg, void *stream), void *arg);
#endif

#endif
