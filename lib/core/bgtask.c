/* One function run on a thread of its own while the caller does other work, and joined
 * where its result is first needed: the CUDA context of a one-image command starts while
 * the file is decoded (lib/core/ctx.c). */
#include "internal.h"

#include <pthread.h>

static void *run(void *arg)
{
    gvis_bgtask *t = arg;
    double t0 = gvis_now_ms();
    t->rc = t->fn(t->arg);
    t->run_ms = gvis_now_ms() - t0;
    return NULL;
}

void gvis_bgtask_start(gvis_bgtask *t, int (*fn)(void *arg), void *arg, int threaded)
{
    t->fn = fn;
    t->arg = arg;
    t->rc = 0;
    t->run_ms = t->waited_ms = 0;
    t->joined = 0;
    t->threaded = threaded && pthread_create(&t->thread, NULL, run, t) == 0;
    if (!t->threaded) { /* asked for in series, or no thread to be had: run it now */
        run(t);
        t->joined = 1;
        t->waited_ms = t->run_ms;
    }
}

int gvis_bgtask_join(gvis_bgtask *t)
{
    if (!t->joined) {
        double t0 = gvis_now_ms();
        pthread_join(t->thread, NULL);
        t->waited_ms = gvis_now_ms() - t0;
        t->joined = 1;
    }
    return t->rc;
}
