/* The worker pool (gvis_parallel, lib/core/parallel.c): every task index runs exactly
 * once with the call's count, a call from inside a task runs on its caller (it waited
 * for the pool before: a deadlock), and calls from many threads at once all finish with
 * every index once, whether they wait for the pool or (threads marked with
 * gvis_parallel_share) run on their own thread while it is busy. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

enum { N = 1000, THREADS = 8, CALLS = 200, TASKS = 64 };

struct count_job {
    atomic_int hits[N];
    atomic_int bad_count;
    int count;
};

static void count_task(void *v, int i, int count)
{
    struct count_job *j = v;
    if (count != j->count || i < 0 || i >= count)
        atomic_fetch_add(&j->bad_count, 1);
    else
        atomic_fetch_add(&j->hits[i], 1);
}

static int all_once(struct count_job *j)
{
    for (int i = 0; i < j->count; i++)
        if (atomic_load(&j->hits[i]) != 1)
            return 0;
    return atomic_load(&j->bad_count) == 0;
}

static void one_call(void)
{
    static struct count_job j;
    memset(&j, 0, sizeof j);
    j.count = N;
    gvis_parallel(N, count_task, &j);
    CHECKF(all_once(&j), "a call of %d tasks: some index ran other than once", N);
}

/* each outer task makes a call of its own, from inside the pool's job */
struct nest_job {
    struct count_job inner[16];
};

static void outer_task(void *v, int i, int count)
{
    struct nest_job *n = v;
    (void)count;
    n->inner[i].count = 10 + i;
    gvis_parallel(10 + i, count_task, &n->inner[i]);
}

static void nested(void)
{
    static struct nest_job n;
    memset(&n, 0, sizeof n);
    gvis_parallel(16, outer_task, &n);
    for (int i = 0; i < 16; i++)
        CHECKF(all_once(&n.inner[i]), "nested call %d: some index ran other than once", i);
}

static atomic_int failures_seen;

static void *caller(void *shared)
{
    gvis_parallel_share(shared != NULL);
    struct count_job *j = malloc(sizeof *j);
    if (!j)
        return NULL;
    for (int c = 0; c < CALLS; c++) {
        memset(j, 0, sizeof *j);
        j->count = 1 + (c % TASKS);
        gvis_parallel(j->count, count_task, j);
        if (!all_once(j))
            atomic_fetch_add(&failures_seen, 1);
    }
    free(j);
    return NULL;
}

static void concurrent(int shared)
{
    pthread_t th[THREADS];
    int made = 0;
    atomic_store(&failures_seen, 0);
    for (int t = 0; t < THREADS; t++)
        made += pthread_create(&th[t], NULL, caller, shared ? (void *)&made : NULL) == 0;
    CHECK(made == THREADS);
    for (int t = 0; t < made; t++)
        pthread_join(th[t], NULL);
    CHECKF(atomic_load(&failures_seen) == 0, "%d of %d concurrent calls (%s) ran an index other than once",
           atomic_load(&failures_seen), THREADS * CALLS, shared ? "shared" : "waiting");
}

int main(void)
{
    printf("pool of %d threads\n", gvis_threads());
    one_call();
    nested();
    concurrent(0); /* each waits for the pool */
    concurrent(1); /* batch threads: on their own while it is busy */
    one_call(); /* the pool still works after all that */
    return t_done("test_parallel");
}
