/* The group commit of the shared batch decoder (lib/pipeline/jpeg_batch.c), with a
 * stand-in decoder on the CPU: threads that each submit many requests, a decoder that
 * copies each request's bytes into its own buffer after a short sleep (the engines'
 * time), files it refuses ('R') or fails on ('F').  Every request is answered once, with
 * its own bytes in its own buffer and its own status; no batch over the limit; at most
 * two batches at once; the counts add up; no deadlock where fewer threads than the
 * gathering threshold remain (min_batch 8, 3 threads); a batch limit of 1. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "jpeg_batch.h"
#include "testlib.h"

enum { THREADS = 16, PER = 60, LEN = 24 };

struct fake {
    atomic_int running, most, calls, largest, wrong;
    int max_batch;
};

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
    atomic_fetch_add(&f->calls, 1);
    usleep(300 + (unsigned)(n * 37 % 700));
    for (int i = 0; i < n; i++) {
        CHECK(r[i]->status == 1 && r[i]->state == 1);
        if (r[i]->data[0] == 'R')
            continue;
        if (r[i]->data[0] == 'F') {
            r[i]->status = -1;
            snprintf(r[i]->why, sizeof r[i]->why, "stand-in failure");
            continue;
        }
        CHECK(r[i]->pitch == LEN);
        memcpy(r[i]->d_dst, r[i]->data, r[i]->len);
        r[i]->status = 0;
    }
    atomic_fetch_sub(&f->running, 1);
}

struct worker {
    gvis_jbatch *jb;
    int id, per, bad, refused, failed, done;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    for (int i = 0; i < w->per; i++) {
        char data[LEN], buf[LEN];
        memset(buf, 0, sizeof buf);
        int kind = (w->id * 7 + i) % 23; /* a refused and a failing one now and then */
        snprintf(data, sizeof data, "%c%03d-%05d-payload", kind == 3 ? 'R' : kind == 11 ? 'F' : 'D', w->id, i);
        char why[256] = "";
        int rc = gvis_jbatch_decode(w->jb, 0, (const uint8_t *)data, sizeof data, buf, LEN, why, sizeof why);
        if (data[0] == 'D')
            w->bad += rc != 0 || memcmp(buf, data, sizeof data) != 0;
        else if (data[0] == 'R')
            w->bad += rc != 1, w->refused++;
        else
            w->bad += rc != -1 || !strstr(why, "stand-in failure"), w->failed++;
        w->done++;
        if (i % 5 == 0)
            usleep((unsigned)((w->id * 131 + i * 17) % 500)); /* the rest of the compute stage */
    }
    return NULL;
}

static void run(int threads, int per, int max_batch, int min_batch)
{
    struct fake f = {.max_batch = max_batch};
    gvis_jbatch *jb = gvis_jbatch_new_with(max_batch, min_batch, fake_run, &f);
    CHECK(jb != NULL);
    if (!jb)
        return;
    struct worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < threads; i++) {
        w[i] = (struct worker){jb, i, per, 0, 0, 0, 0};
        CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0);
    }
    int bad = 0, done = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        bad += w[i].bad;
        done += w[i].done;
    }
    long batches, images;
    gvis_jbatch_stats(jb, &batches, &images);
    printf("%d threads x %d, batch limit %d, gather %d: %ld batches of %.1f on average, largest %d, "
           "%d at once at most\n",
           threads, per, max_batch, min_batch, batches, batches ? (double)images / batches : 0.0,
           atomic_load(&f.largest), atomic_load(&f.most));
    CHECKF(bad == 0, "%d requests answered wrongly", bad);
    CHECKF(done == threads * per && images == threads * per, "%d done, %ld batched of %d", done, images,
           threads * per);
    CHECK(batches == atomic_load(&f.calls));
    CHECKF(atomic_load(&f.wrong) == 0, "%d batches over the limit or on a decoder that is not there",
           atomic_load(&f.wrong));
    CHECKF(atomic_load(&f.most) <= 2, "%d batches at once", atomic_load(&f.most));
    CHECK(atomic_load(&f.largest) <= max_batch);
    if (max_batch == 1)
        CHECK(batches == threads * per);
    gvis_jbatch_free(jb);
}

int main(void)
{
    alarm(120); /* a deadlock fails the test rather than hanging it */
    run(THREADS, PER, 64, 8);
    run(THREADS, PER, 4, 2);
    run(3, 40, 64, 8); /* fewer threads than the gathering threshold */
    run(5, 30, 1, 1);
    run(1, 20, 64, 1);
    return t_done("test_jpeg_batch");
}
