/* The staged batch pipeline (pipeline.h): reader, device and writer threads on one
 * bounded ring of slots, results reported in input order. */
#include <pthread.h>
#include <stdlib.h>

#include "gvis.h"
#include "pipeline.h"
#include "trace.h"

enum { WAITING, BUSY, FINISHED };

struct item {
    int index;  /* the item in this slot; -1 when free */
    int stage;  /* the stage it waits for or runs (GVIS_PIPE_STAGES: all done) */
    int state;
    int status;
};

struct run {
    pthread_mutex_t mu;
    /* one condition per stage and one for the reporter, so that a change wakes the
     * threads it concerns: one broadcast to every reader, worker and writer for each move
     * of each item (about 100 threads at -j 32) kept 32 cores half in the kernel */
    pthread_cond_t cv[GVIS_PIPE_STAGES];
    pthread_cond_t done_cv;
    const gvis_pipe_stages *s;
    int n, inflight, first, next, reported, stop;
    struct item *ring;
};

struct thread {
    struct run *r;
    int stage, id;
};

/* The first stage at or after k that has a function (GVIS_PIPE_STAGES: none left). */
static int stage_from(const gvis_pipe_stages *s, int k)
{
    while (k < GVIS_PIPE_STAGES && !s->fn[k])
        k++;
    return k;
}

/* Under the lock: every thread may have something to do or to notice (stop, the end). */
static void wake_all(struct run *r)
{
    for (int k = 0; k < GVIS_PIPE_STAGES; k++)
        pthread_cond_broadcast(&r->cv[k]);
    pthread_cond_broadcast(&r->done_cv);
}

/* Under the lock: an item left stage `from` for stage `to` (GVIS_PIPE_STAGES: finished).
 * One thread of stage `to` takes it; the reporter hears of a finished one.  Once every
 * item is admitted, the stages from `from` on may have nothing left and must see it. */
static void moved(struct run *r, int from, int to)
{
    if (to < GVIS_PIPE_STAGES)
        pthread_cond_signal(&r->cv[to]);
    else
        pthread_cond_signal(&r->done_cv);
    if (r->stop || r->next >= r->n)
        for (int k = from; k < GVIS_PIPE_STAGES; k++)
            pthread_cond_broadcast(&r->cv[k]);
}

/* Under the lock: the waiting item of stage k with the lowest index, or a new one for the
 * first stage; NULL when none now.  *finished when none can come any more. */
static struct item *pick(struct run *r, int k, int *finished)
{
    for (int i = r->reported; i < r->next; i++) {
        struct item *it = &r->ring[i % r->inflight];
        if (it->stage == k && it->state == WAITING)
            return it;
    }
    *finished = 0;
    if (k == r->first) {
        if (!r->stop && r->next < r->n && r->next - r->reported < r->inflight) {
            struct item *it = &r->ring[r->next % r->inflight];
            *it = (struct item){r->next++, k, WAITING, 0};
            return it;
        }
        *finished = r->stop || r->next >= r->n;
        return NULL;
    }
    /* a later stage: done when nothing can reach it (every item admitted and past it) */
    if (r->stop || r->next >= r->n) {
        int pending = 0;
        for (int i = r->reported; i < r->next && !pending; i++) {
            const struct item *it = &r->ring[i % r->inflight];
            pending = it->state != FINISHED && it->stage <= k;
        }
        *finished = !pending;
    }
    return NULL;
}

static void *stage_main(void *v)
{
    struct thread *t = v;
    struct run *r = t->r;
    const gvis_pipe_stages *s = r->s;
    static const char *const tname[GVIS_PIPE_STAGES] = {"reader", "compute thread", "writer"};
    static const char *const sname[GVIS_PIPE_STAGES] = {"read", "compute", "write"};
    const int trace = gvis_trace_on();
    if (trace)
        gvis_trace_thread(tname[t->stage], t->id);
    /* one of several threads of its stage: its pool calls run on it while the pool is
     * another's (a lone compute thread waits for the pool and gets every core) */
    gvis_parallel_share(s->threads[t->stage] > 1);
    pthread_mutex_lock(&r->mu);
    for (;;) {
        int finished = 0;
        struct item *it = pick(r, t->stage, &finished);
        if (!it) {
            if (finished)
                break;
            pthread_cond_wait(&r->cv[t->stage], &r->mu);
            continue;
        }
        if (t->stage == r->first && r->next >= r->n) /* the last admitted: the others may end */
            pthread_cond_broadcast(&r->cv[t->stage]);
        if (r->stop) { /* stopped: nothing enters a further stage */
            it->status = GVIS_PIPE_CANCELLED;
            it->state = FINISHED;
            it->stage = GVIS_PIPE_STAGES;
            moved(r, t->stage, GVIS_PIPE_STAGES);
            continue;
        }
        it->state = BUSY;
        int index = it->index;
        pthread_mutex_unlock(&r->mu);
        double t0 = trace ? gvis_now_ms() : 0;
        int st = s->fn[t->stage](s->arg, t->id, index, index % r->inflight);
        if (trace)
            gvis_trace_span(sname[t->stage], t0, gvis_now_ms(), index);
        pthread_mutex_lock(&r->mu);
        int next = stage_from(s, t->stage + 1);
        if (st || next == GVIS_PIPE_STAGES) {
            it->status = st;
            it->stage = GVIS_PIPE_STAGES;
            it->state = FINISHED;
        } else {
            it->stage = next;
            it->state = WAITING;
        }
        moved(r, t->stage, it->stage);
    }
    wake_all(r);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int gvis_pipeline_run_stages(int n, const gvis_pipe_stages *s)
{
    if (n <= 0)
        return 0;
    gvis_pipeline_keep_heap();
    struct run r = {.s = s, .n = n, .first = stage_from(s, 0)};
    if (r.first == GVIS_PIPE_STAGES)
        return -1;
    int total = 0;
    for (int k = 0; k < GVIS_PIPE_STAGES; k++)
        if (s->fn[k])
            total += s->threads[k] < 1 ? 1 : s->threads[k];
    r.inflight = s->inflight < 1 ? 1 : s->inflight; /* more threads than slots: some idle */
    r.ring = calloc((size_t)r.inflight, sizeof *r.ring);
    struct thread *ts = calloc((size_t)total, sizeof *ts);
    pthread_t *th = calloc((size_t)total, sizeof *th);
    if (!r.ring || !ts || !th) {
        free(r.ring);
        free(ts);
        free(th);
        return -1;
    }
    pthread_mutex_init(&r.mu, NULL);
    for (int k = 0; k < GVIS_PIPE_STAGES; k++)
        pthread_cond_init(&r.cv[k], NULL);
    pthread_cond_init(&r.done_cv, NULL);
    int started = 0, ok = 1, have[GVIS_PIPE_STAGES] = {0};
    for (int k = 0; k < GVIS_PIPE_STAGES && ok; k++) {
        if (!s->fn[k])
            continue;
        int m = s->threads[k] < 1 ? 1 : s->threads[k];
        for (int j = 0; j < m; j++) {
            ts[started] = (struct thread){&r, k, j};
            if (pthread_create(&th[started], NULL, stage_main, &ts[started]))
                break;
            started++;
            have[k]++;
        }
        ok = have[k] > 0; /* a stage with no thread would hold its items for ever */
    }
    int reported = -1;
    if (ok) {
        reported = 0;
        pthread_mutex_lock(&r.mu);
        while (reported < r.next || (!r.stop && reported < n)) {
            struct item *it = &r.ring[reported % r.inflight];
            if (reported >= r.next || it->state != FINISHED) {
                pthread_cond_wait(&r.done_cv, &r.mu);
                continue;
            }
            int st = it->status;
            int stopped = r.stop;
            pthread_mutex_unlock(&r.mu);
            int stop = s->done ? s->done(s->arg, reported, st) : 0;
            pthread_mutex_lock(&r.mu);
            it->index = -1;
            r.reported = ++reported;
            if (stop && !stopped) {
                r.stop = 1;
                wake_all(&r);
            } else { /* a free slot: the first stage may admit one more */
                pthread_cond_signal(&r.cv[r.first]);
            }
        }
        pthread_mutex_unlock(&r.mu);
    } else { /* threads could not start: stop those that did, then report nothing */
        pthread_mutex_lock(&r.mu);
        r.stop = 1;
        wake_all(&r);
        pthread_mutex_unlock(&r.mu);
    }
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    for (int k = 0; k < GVIS_PIPE_STAGES; k++)
        pthread_cond_destroy(&r.cv[k]);
    pthread_cond_destroy(&r.done_cv);
    pthread_mutex_destroy(&r.mu);
    free(r.ring);
    free(ts);
    free(th);
    return reported;
}
