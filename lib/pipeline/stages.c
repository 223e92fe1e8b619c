/* The staged batch pipeline (pipeline.h): reader, device and writer threads on one
 * bounded ring of slots, results reported in input order. */
#include <pthread.h>
#include <stdlib.h>

#include "pipeline.h"

enum { WAITING, BUSY, FINISHED };

struct item {
    int index;  /* the item in this slot; -1 when free */
    int stage;  /* the stage it waits for or runs (GVIS_PIPE_STAGES: all done) */
    int state;
    int status;
};

struct run {
    pthread_mutex_t mu;
    pthread_cond_t cv;
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
    pthread_mutex_lock(&r->mu);
    for (;;) {
        int finished = 0;
        struct item *it = pick(r, t->stage, &finished);
        if (!it) {
            if (finished)
                break;
            pthread_cond_wait(&r->cv, &r->mu);
            continue;
        }
        if (r->stop) { /* stopped: nothing enters a further stage */
            it->status = GVIS_PIPE_CANCELLED;
            it->state = FINISHED;
            it->stage = GVIS_PIPE_STAGES;
            pthread_cond_broadcast(&r->cv);
            continue;
        }
        it->state = BUSY;
        int index = it->index;
        pthread_mutex_unlock(&r->mu);
        int st = s->fn[t->stage](s->arg, t->id, index, index % r->inflight);
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
        pthread_cond_broadcast(&r->cv);
    }
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int gvis_pipeline_run_stages(int n, const gvis_pipe_stages *s)
{
    if (n <= 0)
        return 0;
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
    pthread_cond_init(&r.cv, NULL);
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
                pthread_cond_wait(&r.cv, &r.mu);
                continue;
            }
            int st = it->status;
            int stopped = r.stop;
            pthread_mutex_unlock(&r.mu);
            int stop = s->done ? s->done(s->arg, reported, st) : 0;
            pthread_mutex_lock(&r.mu);
            it->index = -1;
            r.reported = ++reported;
            if (stop && !stopped)
                r.stop = 1;
            pthread_cond_broadcast(&r.cv);
        }
        pthread_mutex_unlock(&r.mu);
    } else { /* threads could not start: stop those that did, then report nothing */
        pthread_mutex_lock(&r.mu);
        r.stop = 1;
        pthread_cond_broadcast(&r.cv);
        pthread_mutex_unlock(&r.mu);
    }
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    pthread_cond_destroy(&r.cv);
    pthread_mutex_destroy(&r.mu);
    free(r.ring);
    free(ts);
    free(th);
    return reported;
}
