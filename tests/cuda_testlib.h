/* What the CUDA stage tests share (test_cuda_sgm.c, test_cuda_sgm_band.c, test_cuda_sgm_wta.c, test_cuda_sgm_cost.c,
 * test_cuda_quality.c): the job every call of a test runs on, device buffers by slot, and
 * whole-buffer copies that count as failed checks when they fail, and progress lines.  Include where
 * GVIS_HAVE_CUDA is defined; set job before the first call. */
#ifndef GVIS_CUDA_TESTLIB_H
#define GVIS_CUDA_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "testlib.h"

static gvis_cu_job *job;

/* Device buffer `slot` of the job, at least `bytes` (1 for 0); exits on failure. */
static inline void *dev(int slot, size_t bytes)
{
    void *p = NULL;
    int err = gvis_cu_buffer(job, slot, bytes ? bytes : 1, &p);
    if (err) {
        fprintf(stderr, "device buffer of %zu bytes: %s\n", bytes, gvis_cu_strerror(err));
        exit(1);
    }
    return p;
}

static inline void up(void *d, const void *h, size_t bytes)
{
    CHECK(gvis_cu_upload2d(job, d, bytes, h, bytes, bytes, 1) == 0);
}

/* GVIS_TEST_VERBOSE is set: the steps inside each case are printed too. */
static inline int test_verbose(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("GVIS_TEST_VERBOSE") != NULL;
    return v;
}

/* Progress on stdout, flushed, so that a run stopped by a timeout still says where it was:
 * milliseconds since the first call, then what; lines starting with a space only when
 * test_verbose(). */
static inline void progress(const char *what)
{
    static double t0 = -1;
    if (t0 < 0)
        t0 = gvis_now_ms();
    if (test_verbose() || what[0] != ' ') {
        printf("[%8.1f ms] %s\n", gvis_now_ms() - t0, what);
        fflush(stdout);
    }
}

/* Waits for the job's stream: the bytes are there on return. */
static inline void down(void *h, const void *d, size_t bytes)
{
    CHECK(gvis_cu_download2d(job, h, bytes, d, bytes, bytes, 1) == 0);
    CHECK(gvis_cu_sync(job) == 0);
}

#endif
