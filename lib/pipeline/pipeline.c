/* The batch pipeline (pipeline.h): a bounded, ordered pool of worker threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "gvis.h"
#include "pipeline.h"

void gvis_pipeline_keep_heap(void)
{
#if defined(__GLIBC__)
    static atomic_int done;
    if (atomic_exchange(&done, 1))
        return;
    const char *e = getenv("GVIS_MALLOC_KEEP"), *t = getenv("GLIBC_TUNABLES");
    if ((e && strcmp(e, "0") == 0) || (t && strstr(t, "malloc"))) /* off, or the user tunes glibc */
        return;
    /* image-sized blocks (up to 32 MiB) from the heap and never given back: a freed one
     * serves the next file as it is, instead of being unmapped and faulted in afresh;
     * one arena, so that a block freed by a writer is found by the next reader */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_ARENA_MAX, 1);
#endif
}

struct slot {
    int status;
    int ready;
};

struct pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n, inflight, next, reported, stop;
    struct slot *ring; /* inflight slots, item i in ring[i % inflight] */
    gvis_pipe_work work;
    void *arg;
};

struct worker {
    struct pipe *p;
    int id;
};

static void *worker_main(void *v)
{
    struct worker *w = v;
    struct pipe *p = w->p;
    gvis_parallel_share(1); /* one of the jobs: pool calls on this thread while it is busy */
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && p->next < p->n && p->next - p->reported >= p->inflight)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop || p->next >= p->n) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        int i = p->next++;
        pthread_mutex_unlock(&p->mu);
        int st = p->work(p->arg, w->id, i);
        pthread_mutex_lock(&p->mu);
        p->ring[i % p->inflight].status = st;
        p->ring[i % p->inflight].ready = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
}

int gvis_pipeline_run(int n, int jobs, int inflight, gvis_pipe_work work, gvis_pipe_done done, void *arg)
{
    if (jobs > 1)
        gvis_pipeline_keep_heap();
    if (n <= 0)
        return 0;
    if (jobs < 1)
        jobs = 1;
    if (jobs > n)
        jobs = n;
    if (inflight < jobs)
        inflight = jobs;
    struct pipe p = {.n = n, .inflight = inflight, .work = work, .arg = arg};
    p.ring = calloc((size_t)inflight, sizeof *p.ring);
    struct worker *ws = calloc((size_t)jobs, sizeof *ws);
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    if (!p.ring || !ws || !th) {
        free(p.ring);
        free(ws);
        free(th);
        return -1;
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    int started = 0;
    for (; started < jobs; started++) {
        ws[started] = (struct worker){&p, started};
        if (pthread_create(&th[started], NULL, worker_main, &ws[started]))
            break;
    }
    int reported = 0;
    if (started == 0) {
        reported = -1;
    } else {
        while (reported < n) {
            pthread_mutex_lock(&p.mu);
            struct slot *s = &p.ring[reported % inflight];
            while (!s->ready)
                pthread_cond_wait(&p.cv, &p.mu);
            int st = s->status;
            s->ready = 0;
            pthread_mutex_unlock(&p.mu);
            int stop = done ? done(arg, reported, st) : 0;
            pthread_mutex_lock(&p.mu);
            p.reported = ++reported;
            if (stop)
                p.stop = 1;
            pthread_cond_broadcast(&p.cv);
            pthread_mutex_unlock(&p.mu);
            if (stop)
                break;
        }
    }
    if (started < jobs && started > 0 && reported >= 0) {
        /* fewer threads than asked: the started ones still drain the list */
    }
    for (int k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    free(p.ring);
    free(ws);
    free(th);
    return reported;
}
