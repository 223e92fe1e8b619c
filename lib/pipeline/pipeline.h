/* The batch pipeline: items 0..n-1 computed by worker threads, reported in input order.
 *
 * work(arg, worker, i) runs on one of `jobs` threads (worker is 0..jobs-1, so a caller
 * can keep one context per worker); at most `inflight` items are started but not yet
 * reported, so memory stays flat however long the list.  done(arg, i, status) runs on
 * the calling thread for i = 0, 1, 2 ... in order; a non-zero return stops the run:
 * no new item starts, those in flight finish (their results are not reported).
 *
 * gvis_pipeline_run_stages (below) splits the chain into read / compute / write stages
 * on their own threads; see docs/notes-batch.md. */
#ifndef GVIS_PIPELINE_H
#define GVIS_PIPELINE_H

typedef int (*gvis_pipe_work)(void *arg, int worker, int index);
typedef int (*gvis_pipe_done)(void *arg, int index, int status);

/* Returns the number of items reported (n when nothing stopped the run); -1 when the
 * threads could not be started (nothing ran). */
int gvis_pipeline_run(int n, int jobs, int inflight, gvis_pipe_work work, gvis_pipe_done done, void *arg);

/* ---- the staged pipeline ----
 *
 * Each item passes through up to three stages, each on its own threads: read (decode),
 * compute (on a device), write (encode).  fn[k](arg, thread, index, slot) runs stage k of
 * item index on thread 0..threads[k]-1 of that stage; a NULL fn skips the stage.  slot is
 * index % inflight: no two items in flight share it, so a caller keeps an item's data
 * (its decoded image, its result) in per-slot storage allocated once.  At most inflight
 * items are admitted and not yet reported (memory flat in the list length); each stage
 * takes its waiting item of lowest index first.  A stage that returns non-zero ends the
 * item: its later stages are skipped and that status is reported.
 *
 * done(arg, index, status) runs on the calling thread for index 0, 1, 2 ... in order (a
 * good place to free the slot's data).  A non-zero return stops the run: no new item is
 * admitted and no item in flight enters a further stage (those mid-stage finish it);
 * done() is still called, in order, for every item admitted (its return then ignored),
 * with GVIS_PIPE_CANCELLED for those stopped between stages, so the caller counts what
 * was finished and frees every slot. */
enum { GVIS_PIPE_READ, GVIS_PIPE_COMPUTE, GVIS_PIPE_WRITE, GVIS_PIPE_STAGES };
#define GVIS_PIPE_CANCELLED (-1000)

typedef int (*gvis_pipe_stage)(void *arg, int thread, int index, int slot);

typedef struct {
    gvis_pipe_stage fn[GVIS_PIPE_STAGES];
    int threads[GVIS_PIPE_STAGES]; /* at least 1 where fn is set */
    int inflight;                  /* slots (at least 1) */
    gvis_pipe_done done;
    void *arg;
} gvis_pipe_stages;

/* Returns the number of items reported (every admitted one); -1 when the threads could
 * not be started or no stage has a function (then done() was not called). */
int gvis_pipeline_run_stages(int n, const gvis_pipe_stages *s);

/* Before a batch's threads start (both runs call it; once a process, glibc only): blocks
 * up to 32 MiB come from one heap that is never trimmed, so the buffers of one file serve
 * the next rather than being unmapped and page-faulted in again (on 2 cores, 320 photos:
 * 153,700 faults -> 36,500).  GVIS_MALLOC_KEEP=0, or GLIBC_TUNABLES naming malloc,
 * leaves glibc's defaults. */
void gvis_pipeline_keep_heap(void);

#endif
