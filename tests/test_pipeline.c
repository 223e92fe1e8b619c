/* The batch pipeline (lib/pipeline): results reported in input order whatever the
 * threads' timing, never more than `inflight` items started and unreported, a failing
 * item reported and the rest going on, a stop from done() starting nothing new. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "pipeline.h"
#include "testlib.h"

struct st {
    pthread_mutex_t mu;
    int n, inflight, started, reported, max_open, open;
    int *order, *ran;
    int fail_at, stop_at;
    int bad_order;
};

static int work(void *v, int worker, int i)
{
    struct st *s = v;
    (void)worker;
    pthread_mutex_lock(&s->mu);
    s->ran[i]++;
    s->open = s->started++ - s->reported + 1;
    if (s->open > s->max_open)
        s->max_open = s->open;
    pthread_mutex_unlock(&s->mu);
    struct timespec ts = {0, (long)((i * 7919) % 5) * 200000L}; /* uneven times */
    nanosleep(&ts, NULL);
    return i == s->fail_at ? 7 : 0;
}

static int done(void *v, int i, int status)
{
    struct st *s = v;
    pthread_mutex_lock(&s->mu);
    if (i != s->reported)
        s->bad_order = 1;
    s->order[s->reported++] = i;
    pthread_mutex_unlock(&s->mu);
    if (i == s->fail_at && status != 7)
        s->bad_order = 1;
    if (i != s->fail_at && status != 0)
        s->bad_order = 1;
    return i == s->stop_at;
}

static void one(int n, int jobs, int inflight, int fail_at, int stop_at)
{
    struct st s = {.n = n, .inflight = inflight, .fail_at = fail_at, .stop_at = stop_at};
    pthread_mutex_init(&s.mu, NULL);
    s.order = calloc((size_t)n + 1, sizeof *s.order);
    s.ran = calloc((size_t)n + 1, sizeof *s.ran);
    int r = gvis_pipeline_run(n, jobs, inflight, work, done, &s);
    int want = stop_at >= 0 && stop_at < n ? stop_at + 1 : n;
    CHECKF(r == want, "n %d jobs %d: reported %d, want %d", n, jobs, r, want);
    CHECKF(!s.bad_order, "n %d jobs %d: out of order or wrong status", n, jobs);
    int eff = inflight < jobs ? jobs : inflight;
    CHECKF(s.max_open <= eff, "n %d jobs %d: %d open, bound %d", n, jobs, s.max_open, eff);
    int ran = 0, twice = 0;
    for (int i = 0; i < n; i++) {
        ran += s.ran[i] > 0;
        twice |= s.ran[i] > 1;
    }
    CHECK(!twice);
    if (stop_at < 0)
        CHECKF(ran == n, "n %d jobs %d: %d ran", n, jobs, ran);
    else /* after a stop, at most the bound beyond the stopping item started */
        CHECKF(ran <= want + eff && ran >= want, "stop at %d: %d ran", stop_at, ran);
    free(s.order);
    free(s.ran);
    pthread_mutex_destroy(&s.mu);
}

int main(void)
{
    CHECK(gvis_pipeline_run(0, 4, 8, work, done, NULL) == 0);
    one(1, 1, 1, -1, -1);
    one(1, 8, 16, -1, -1);
    one(57, 1, 1, -1, -1);
    one(57, 4, 4, -1, -1);
    one(200, 3, 5, -1, -1);
    one(200, 4, 2, -1, -1); /* inflight below jobs: raised to jobs */
    one(100, 4, 8, 37, -1); /* one failure: the rest go on */
    one(100, 4, 8, 37, 37); /* cancellation at item 37 */
    one(100, 1, 1, -1, 0);
    return t_done("test_pipeline");
}
