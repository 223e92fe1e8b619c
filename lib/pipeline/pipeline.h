/* The batch pipeline: items 0..n-1 computed by worker threads, reported in input order.
 *
 * work(arg, worker, i) runs on one of `jobs` threads (worker is 0..jobs-1, so a caller
 * can keep one context per worker); at most `inflight` items are started but not yet
 * reported, so memory stays flat however long the list.  done(arg, i, status) runs on
 * the calling thread for i = 0, 1, 2 ... in order; a non-zero return stops the run:
 * no new item starts, those in flight finish (their results are not reported).
 *
 * Seam for device-side codecs (nvJPEG): work() is the whole per-item chain today
 * (decode, compute, encode).  A device decoder/encoder replaces stages inside work()
 * per worker; see docs/notes-batch.md. */
#ifndef GVIS_PIPELINE_H
#define GVIS_PIPELINE_H

typedef int (*gvis_pipe_work)(void *arg, int worker, int index);
typedef int (*gvis_pipe_done)(void *arg, int index, int status);

/* Returns the number of items reported (n when nothing stopped the run); -1 when the
 * threads could not be started (nothing ran). */
int gvis_pipeline_run(int n, int jobs, int inflight, gvis_pipe_work work, gvis_pipe_done done, void *arg);

#endif
