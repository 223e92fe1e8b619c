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

/* ---- the staged pipeline ---- */

struct sst {
    pthread_mutex_t mu;
    int n, inflight, admitted, reported, max_open;
    int *stage_done; /* per item: bit k set when stage k ran */
    int *slot_owner; /* per slot: the item using it, -1 free */
    int fail_item, fail_stage, stop_at;
    int bad, cancelled, ok, failed;
};

static int sstage(struct sst *s, int k, int thread, int i, int slot)
{
    (void)thread;
    pthread_mutex_lock(&s->mu);
    if (s->stage_done[i] & (1 << k))
        s->bad |= 1; /* a stage twice */
    if (s->stage_done[i] == 0) { /* the item enters: its slot must be free */
        if (slot != i % s->inflight || s->slot_owner[slot] != -1)
            s->bad |= 2;
        s->slot_owner[slot] = i;
        int open = ++s->admitted - s->reported;
        if (open > s->max_open)
            s->max_open = open;
    } else if (s->slot_owner[slot] != i) {
        s->bad |= 4;
    }
    for (int j = k + 1; j < GVIS_PIPE_STAGES; j++)
        if (s->stage_done[i] & (1 << j))
            s->bad |= 8; /* a later stage ran first */
    s->stage_done[i] |= 1 << k;
    pthread_mutex_unlock(&s->mu);
    struct timespec ts = {0, (long)((i * 7919 + k * 31) % 4) * 150000L};
    nanosleep(&ts, NULL);
    return i == s->fail_item && k == s->fail_stage ? 5 + k : 0;
}

static int s_read(void *v, int t, int i, int slot) { return sstage(v, 0, t, i, slot); }
static int s_compute(void *v, int t, int i, int slot) { return sstage(v, 1, t, i, slot); }
static int s_write(void *v, int t, int i, int slot) { return sstage(v, 2, t, i, slot); }

static int s_done(void *v, int i, int status)
{
    struct sst *s = v;
    pthread_mutex_lock(&s->mu);
    if (i != s->reported)
        s->bad |= 16;
    s->reported++;
    int slot = i % s->inflight;
    if (s->stage_done[i] && s->slot_owner[slot] != i)
        s->bad |= 32;
    s->slot_owner[slot] = -1;
    pthread_mutex_unlock(&s->mu);
    if (status == GVIS_PIPE_CANCELLED) {
        s->cancelled++;
    } else if (status) {
        s->failed++;
        if (i != s->fail_item || status != 5 + s->fail_stage)
            s->bad |= 64;
        for (int j = s->fail_stage + 1; j < GVIS_PIPE_STAGES; j++)
            if (s->stage_done[i] & (1 << j))
                s->bad |= 128; /* a stage after the failing one ran */
    } else {
        s->ok++;
        if (s->stage_done[i] != 7)
            s->bad |= 256; /* reported done without every stage */
    }
    return i == s->stop_at;
}

static int s_done_free(void *v, int i, int status)
{
    struct sst *s = v;
    pthread_mutex_lock(&s->mu);
    s->reported++;
    s->slot_owner[i % s->inflight] = -1;
    s->ok += status == 0;
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static void staged(int n, int readers, int workers, int writers, int inflight, int fail_item, int fail_stage,
                   int stop_at)
{
    struct sst s = {.n = n, .inflight = inflight, .fail_item = fail_item, .fail_stage = fail_stage, .stop_at = stop_at};
    pthread_mutex_init(&s.mu, NULL);
    s.stage_done = calloc((size_t)n + 1, sizeof *s.stage_done);
    s.slot_owner = malloc(sizeof *s.slot_owner * (size_t)inflight);
    for (int i = 0; i < inflight; i++)
        s.slot_owner[i] = -1;
    gvis_pipe_stages st = {{s_read, s_compute, s_write}, {readers, workers, writers}, inflight, s_done, &s};
    int r = gvis_pipeline_run_stages(n, &st);
    CHECKF(!s.bad, "staged n %d r%d w%d x%d inflight %d: fault bits %#x", n, readers, workers, writers, inflight,
           s.bad);
    CHECKF(s.max_open <= inflight, "staged: %d open, bound %d", s.max_open, inflight);
    CHECKF(r == s.reported && r == s.admitted, "staged: returned %d, reported %d, admitted %d", r, s.reported,
           s.admitted);
    if (stop_at < 0) {
        CHECKF(r == n, "staged n %d: %d reported", n, r);
        CHECKF(s.ok == n - (fail_item >= 0 && fail_item < n), "staged: %d done", s.ok);
        CHECK(s.cancelled == 0);
    } else { /* at most the slots beyond the stopping item admitted, every one reported */
        CHECKF(r >= stop_at + 1 && r <= stop_at + 1 + inflight, "staged stop at %d: %d reported", stop_at, r);
        CHECKF(s.ok + s.failed + s.cancelled == r, "staged stop: %d + %d + %d != %d", s.ok, s.failed, s.cancelled, r);
    }
    free(s.stage_done);
    free(s.slot_owner);
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
    staged(1, 1, 1, 1, 1, -1, 0, -1);
    staged(97, 2, 3, 2, 5, -1, 0, -1);
    staged(97, 4, 1, 1, 2, -1, 0, -1);  /* more readers than slots */
    staged(60, 1, 1, 1, 1, -1, 0, -1);  /* one slot: strictly one item at a time */
    for (int k = 0; k < GVIS_PIPE_STAGES; k++)
        staged(80, 2, 2, 2, 6, 33, k, -1); /* a failure in each stage: the rest go on */
    staged(80, 2, 2, 2, 6, 33, 1, 33);   /* --fail-fast: stop at the failure, all admitted reported */
    staged(80, 2, 2, 2, 6, -1, 0, 0);
    { /* a stage left out (no reader): items start at the compute stage */
        struct sst s = {.n = 30, .inflight = 4, .fail_item = -1, .stop_at = -1};
        pthread_mutex_init(&s.mu, NULL);
        s.stage_done = calloc(31, sizeof *s.stage_done);
        s.slot_owner = malloc(sizeof *s.slot_owner * 4);
        for (int i = 0; i < 4; i++)
            s.slot_owner[i] = -1;
        gvis_pipe_stages st = {{NULL, s_compute, NULL}, {0, 3, 0}, 4, s_done_free, &s};
        CHECK(gvis_pipeline_run_stages(30, &st) == 30);
        int all = 1;
        for (int i = 0; i < 30; i++)
            all &= s.stage_done[i] == 2;
        CHECK(all && !s.bad && s.ok == 30);
        free(s.stage_done);
        free(s.slot_owner);
        pthread_mutex_destroy(&s.mu);
    }
    {
        gvis_pipe_stages none = {{NULL, NULL, NULL}, {1, 1, 1}, 4, NULL, NULL};
        CHECK(gvis_pipeline_run_stages(5, &none) == -1);
    }
    return t_done("test_pipeline");
}
