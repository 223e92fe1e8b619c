/* The decode stage of a GPU (lib/pipeline/jpeg_batch.c) with a stand-in decoder on the
 * CPU, driven as the batch drives it: reader threads submit files into a bounded ring of
 * slots, compute threads wait for them, check them and give their buffers back.  The
 * stand-in copies each request's bytes into its buffer after a short sleep (the engines'
 * time), refuses some ('R') and fails on others ('F'); its warm-up sleeps.  A stage no
 * file comes to starts no thread.  Checked:
 * every file answered once with its own bytes and status; submitting never waits for the
 * warm-up; no batch over the limit and none before its decoder is warm; at most two
 * batches at once; batches fill while the compute threads are slow; the pool makes no
 * more buffers than files can be out at once; files withdrawn before their decode; a
 * stage whose decoders cannot be made answers -2 to files queued before and after; one
 * decoder of two failing leaves the other working; a batch limit of 1. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gvis.h"
#include "jpeg_batch.h"
#include "testlib.h"

enum { LEN = 28, MAXSLOTS = 256 };

struct fake {
    atomic_int running, most, calls, largest, wrong, early;
    int max_batch, fail_warm; /* fail_warm: bit k, decoder k's warm-up fails */
    unsigned warm_us;
    _Atomic double warm_done[2]; /* when each decoder's warm-up ended (ms) */
    unsigned run_us;
};

static int fake_warm(void *user, int decoder)
{
    struct fake *f = user;
    usleep(f->warm_us * (unsigned)(decoder + 1));
    f->warm_done[decoder] = gvis_now_ms();
    return (f->fail_warm >> decoder) & 1;
}

static void fake_run(void *user, int decoder, gvis_jbatch_req **r, int n)
{
    struct fake *f = user;
    int now = atomic_fetch_add(&f->running, 1) + 1;
    int most = atomic_load(&f->most);
    while (now > most && !atomic_compare_exchange_weak(&f->most, &most, now))
        ;
    if (n > atomic_load(&f->largest))
        atomic_store(&f->largest, n);
    if (decoder < 0 || decoder > 1 || n < 1 || n > f->max_batch)
        atomic_fetch_add(&f->wrong, 1);
    if (f->warm_done[decoder] == 0 || gvis_now_ms() < f->warm_done[decoder])
        atomic_fetch_add(&f->early, 1);
    atomic_fetch_add(&f->calls, 1);
    usleep(f->run_us + (unsigned)(n * 37 % 300));
    for (int i = 0; i < n; i++) {
        if (r[i]->status != 1 || !r[i]->d_img)
            atomic_fetch_add(&f->wrong, 1);
        if (r[i]->data[0] == 'R')
            continue;
        if (r[i]->data[0] == 'F') {
            r[i]->status = -1;
            snprintf(r[i]->why, sizeof r[i]->why, "stand-in failure");
            continue;
        }
        if (r[i]->pitch < (size_t)r[i]->width * 3 || r[i]->len > r[i]->pitch) {
            atomic_fetch_add(&f->wrong, 1);
            continue;
        }
        memcpy(r[i]->d_img, r[i]->data, r[i]->len);
        memset((char *)r[i]->d_img + r[i]->pitch * (size_t)(r[i]->height - 1), 0x5a, (size_t)r[i]->width * 3);
        r[i]->status = 0;
    }
    atomic_fetch_sub(&f->running, 1);
}

/* The batch's ring of slots: readers submit item i into slot i % slots once item
 * i - slots is done; compute threads take the items in order. */
struct ring {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gvis_jbatch *jb;
    int n, slots, next_read, next_compute, done_count, withdraw_every, steal;
    int stolen, stolen_late;
    struct fake *f;
    int submitted[MAXSLOTS], finished[MAXSLOTS], on_cpu[MAXSLOTS];
    double t_cpu[MAXSLOTS];
    gvis_jbatch_req req[MAXSLOTS];
    char data[MAXSLOTS][LEN];
    int bad, refused, failed, broken, decoded, withdrawn;
    double max_submit_ms;
    unsigned compute_us;
};

static int expect(int i)
{
    int kind = (i * 7) % 23;
    return kind == 3 ? 'R' : kind == 11 ? 'F' : 'D';
}

static void *reader(void *v)
{
    struct ring *g = v;
    for (;;) {
        pthread_mutex_lock(&g->mu);
        while (g->next_read < g->n && g->next_read - g->done_count >= g->slots)
            pthread_cond_wait(&g->cv, &g->mu);
        if (g->next_read >= g->n) {
            pthread_mutex_unlock(&g->mu);
            return NULL;
        }
        int i = g->next_read++, s = i % g->slots;
        pthread_mutex_unlock(&g->mu);
        snprintf(g->data[s], LEN, "%c%05d-payload-bytes", expect(i), i);
        gvis_jbatch_req *r = &g->req[s];
        memset(r, 0, sizeof *r);
        r->data = (const uint8_t *)g->data[s];
        r->len = LEN;
        r->width = 11 + i % 7;
        r->height = 2 + i % 3;
        double t0 = gvis_now_ms();
        /* a reader that decodes on the cores while no decoder is warm (the batch's readers
         * did so under --jpeg-codec auto until 0e931af): the warming answer's check */
        int cpu = g->steal && gvis_jbatch_warming(g->jb);
        if (!cpu)
            gvis_jbatch_submit(g->jb, r);
        double ms = gvis_now_ms() - t0;
        pthread_mutex_lock(&g->mu);
        g->on_cpu[s] = cpu;
        g->t_cpu[s] = t0;
        if (ms > g->max_submit_ms)
            g->max_submit_ms = ms;
        g->submitted[s] = i + 1;
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
    }
}

static void *computer(void *v)
{
    struct ring *g = v;
    for (;;) {
        pthread_mutex_lock(&g->mu);
        while (g->next_compute < g->n && g->submitted[g->next_compute % g->slots] != g->next_compute + 1)
            pthread_cond_wait(&g->cv, &g->mu);
        if (g->next_compute >= g->n) {
            pthread_mutex_unlock(&g->mu);
            return NULL;
        }
        int i = g->next_compute++, s = i % g->slots;
        pthread_mutex_unlock(&g->mu);
        gvis_jbatch_req *r = &g->req[s];
        int bad = 0, kind = g->data[s][0];
        if (g->on_cpu[s]) { /* decoded by the reader while the decoders warmed up */
            double t_steal = g->t_cpu[s];
            bad += r->owner != NULL;
            gvis_jbatch_release(r); /* no effect: never submitted */
            if (g->compute_us)
                usleep(g->compute_us);
            pthread_mutex_lock(&g->mu);
            g->stolen++;
            /* decoder 0 was warm before the steal: too late to steal (1 ms of slack) */
            g->stolen_late += g->f->warm_done[0] > 0 && g->f->warm_done[0] + 1 < t_steal &&
                              !((g->f->fail_warm >> 0) & 1);
            pthread_mutex_unlock(&g->mu);
        } else if (g->withdraw_every && i % g->withdraw_every == 0) { /* given back unanswered */
            gvis_jbatch_release(r);
            bad += r->owner != NULL;
            pthread_mutex_lock(&g->mu);
            g->withdrawn++;
            pthread_mutex_unlock(&g->mu);
        } else {
            char why[256] = "";
            int rc = gvis_jbatch_wait(r, why, sizeof why);
            if (rc == -2) {
                bad += !strstr(why, "decoder");
                pthread_mutex_lock(&g->mu);
                g->broken++;
                pthread_mutex_unlock(&g->mu);
            } else if (kind == 'D') {
                const char *img = r->d_img;
                bad += rc != 0 || !img || memcmp(img, g->data[s], LEN) != 0 ||
                       (unsigned char)img[r->pitch * (size_t)(r->height - 1)] != 0x5a;
            } else if (kind == 'R') {
                bad += rc != 1 || r->d_img != NULL;
            } else {
                bad += rc != -1 || !strstr(why, "stand-in failure") || r->d_img != NULL;
            }
            if (g->compute_us)
                usleep(g->compute_us);
            gvis_jbatch_release(r);
            bad += r->owner != NULL;
            pthread_mutex_lock(&g->mu);
            g->decoded += rc == 0;
            g->refused += rc == 1;
            g->failed += rc == -1;
            pthread_mutex_unlock(&g->mu);
        }
        pthread_mutex_lock(&g->mu);
        g->bad += bad;
        g->finished[s] = 1;
        /* slots are reused in order: done_count counts the prefix finished */
        while (g->done_count < g->n && g->finished[g->done_count % g->slots] &&
               g->submitted[g->done_count % g->slots] == g->done_count + 1) {
            g->finished[g->done_count % g->slots] = 0;
            g->done_count++;
        }
        pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
    }
}

struct params {
    int readers, computers, n, slots, max_batch, min_batch, fail_warm, withdraw_every, steal;
    unsigned warm_us, run_us, compute_us;
    size_t budget;
};

static void run(struct params p, const char *what)
{
    struct fake f = {.max_batch = p.max_batch, .fail_warm = p.fail_warm, .warm_us = p.warm_us, .run_us = p.run_us};
    static struct ring g;
    memset(&g, 0, sizeof g);
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cv, NULL);
    g.n = p.n;
    g.slots = p.slots;
    g.withdraw_every = p.withdraw_every;
    g.compute_us = p.compute_us;
    g.steal = p.steal;
    g.f = &f;
    double t0 = gvis_now_ms();
    g.jb = gvis_jbatch_start_with(p.max_batch, p.min_batch, p.budget, fake_warm, fake_run, &f);
    CHECK(g.jb != NULL);
    if (!g.jb)
        return;
    pthread_t t[32];
    int nt = 0;
    for (int i = 0; i < p.readers; i++)
        CHECK(pthread_create(&t[nt++], NULL, reader, &g) == 0);
    for (int i = 0; i < p.computers; i++)
        CHECK(pthread_create(&t[nt++], NULL, computer, &g) == 0);
    for (int i = 0; i < nt; i++)
        pthread_join(t[i], NULL);
    double ms = gvis_now_ms() - t0;
    gvis_jbatch_stats st;
    gvis_jbatch_get_stats(g.jb, &st);
    CHECK(gvis_jbatch_pending(g.jb) == 0);
    gvis_jbatch_stop(g.jb);
    printf("%s: %d files, %d slots, batch limit %d: %ld batches of %.1f on average, largest %ld, %d at once at "
           "most; warm-up %.0f / %.0f ms, ready at %.0f ms; slowest submit %.2f ms; %ld buffers, %zu bytes; "
           "%ld stolen; %.0f ms\n",
           what, p.n, p.slots, p.max_batch, st.batches, st.batches ? (double)st.images / st.batches : 0.0,
           st.largest, atomic_load(&f.most), st.warm_ms[0], st.warm_ms[1], st.ready_ms, g.max_submit_ms,
           st.buffers, st.pool_bytes, (long)g.stolen, ms);
    CHECKF(g.bad == 0, "%s: %d files answered wrongly", what, g.bad);
    int answered = g.decoded + g.refused + g.failed + g.broken + g.withdrawn + g.stolen;
    CHECKF(answered == p.n, "%s: %d answered of %d", what, answered, p.n);
    CHECKF(atomic_load(&f.wrong) == 0, "%s: %d batches over the limit or on no decoder, or requests handed over wrongly", what,
           atomic_load(&f.wrong));
    CHECKF(atomic_load(&f.early) == 0, "%s: %d batches before their decoder was warm", what, atomic_load(&f.early));
    CHECKF(atomic_load(&f.most) <= 2, "%s: %d batches at once", what, atomic_load(&f.most));
    CHECK(st.batches == atomic_load(&f.calls));
    CHECKF(g.stolen_late == 0, "%s: %d of %d stolen after the warm-up", what, g.stolen_late, g.stolen);
    if (p.steal && p.warm_us >= 100000 && p.fail_warm != 3)
        CHECKF(g.stolen > 0 && g.stolen < p.n, "%s: %d of %d stolen during a %u us warm-up", what, g.stolen, p.n,
               p.warm_us);
    CHECK(st.largest <= p.max_batch);
    /* the pool: what the budget allows, and what the files out at once hold beyond it */
    CHECKF(st.pool_bytes <= (p.budget ? p.budget : (size_t)p.slots * 1024) + (size_t)p.slots * 1024,
           "%s: %zu bytes in the pool (budget %zu, %d slots)", what, st.pool_bytes, p.budget, p.slots);
    if (!p.budget)
        CHECKF(st.buffers <= 3 * p.slots, "%s: %ld buffers for %d slots", what, st.buffers, p.slots);
    /* submitting never waits for a warm-up (150 ms here; one that waited would take about
     * that long, on a loaded machine a submit may be descheduled for tens of ms) */
    if (p.warm_us >= 100000)
        CHECKF(g.max_submit_ms < p.warm_us * 0.8 / 1000.0, "%s: a submit took %.1f ms during a %.0f ms warm-up", what,
               g.max_submit_ms, p.warm_us / 1000.0);
    if (p.fail_warm == 3) {
        CHECKF(g.broken + g.withdrawn == p.n && st.batches == 0, "%s: %d of %d answered -2, %ld batches", what,
               g.broken, p.n, st.batches);
    } else {
        CHECKF(g.broken == 0, "%s: %d files answered -2", what, g.broken);
        CHECK(st.ready_ms >= 0);
    }
    if (p.fail_warm == 2)
        CHECKF(atomic_load(&f.most) == 1 && st.warm_ms[1] < 0, "%s: decoder 1 failed and yet %d at once", what,
               atomic_load(&f.most));
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.cv);
}

/* A stage no file comes to starts no thread: stopping it waits for no warm-up. */
static int warm_calls;
static int count_warm(void *user, int k)
{
    (void)user, (void)k;
    warm_calls++;
    usleep(300000);
    return 0;
}

static void idle(void)
{
    struct fake f = {.max_batch = 16};
    double t0 = gvis_now_ms();
    gvis_jbatch *jb = gvis_jbatch_start_with(16, 8, 0, count_warm, fake_run, &f);
    CHECK(jb != NULL);
    gvis_jbatch_stats st;
    gvis_jbatch_get_stats(jb, &st);
    gvis_jbatch_stop(jb);
    double ms = gvis_now_ms() - t0;
    printf("idle stage: stopped after %.1f ms, %d warm-ups\n", ms, warm_calls);
    CHECKF(ms < 150 && warm_calls == 0 && st.batches == 0, "idle stage: %.1f ms, %d warm-ups", ms, warm_calls);
}

int main(void)
{
    alarm(120); /* a deadlock fails the test rather than hanging it */
    idle();
    /* readers fast, compute slow: the queue fills, batches come near the limit */
    struct params base = {8, 8, 600, 48, 16, 8, 0, 0, 0, 150000, 2000, 200, 0};
    run(base, "fill");
    struct params q = base;
    q.compute_us = 3000;
    q.run_us = 300;
    run(q, "slow compute");
    q = base;
    q.withdraw_every = 13;
    run(q, "withdrawn");
    q = base;
    q.budget = 8192;
    run(q, "small budget");
    q = base;
    q.steal = 1;
    q.compute_us = 5000; /* the compute threads' own decode */
    run(q, "stealing");

    q = base;
    q.fail_warm = 3;
    run(q, "no decoder");
    q = base;
    q.fail_warm = 2;
    run(q, "one decoder");
    q = base;
    setenv("GVIS_JPEG_DECODERS", "1", 1);
    q.fail_warm = 2; /* decoder 1 would fail: none is made, so nothing fails */
    run(q, "GVIS_JPEG_DECODERS=1");
    unsetenv("GVIS_JPEG_DECODERS");
    q = base;
    q.max_batch = 1;
    q.min_batch = 1;
    q.n = 150;
    q.warm_us = 1000;
    run(q, "batch 1");
    q = base;
    q.readers = 1;
    q.computers = 1;
    q.slots = 3;
    q.n = 80;
    q.warm_us = 0;
    run(q, "one slot each");
    q = base;
    q.max_batch = 128;
    q.min_batch = 64;
    q.slots = 200;
    q.n = 1000;
    run(q, "batch 128");
    return t_done("test_jpeg_batch");
}
