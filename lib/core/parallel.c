/* A small persistent worker pool: gvis_parallel() hands out task indices through an
 * atomic counter, so uneven tasks balance themselves; the caller works too.  Waking a
 * sleeping thread costs 30-45 us on the development VM, as much as a whole 1080p
 * histogram's share of work, so workers spin for a short while after each job before
 * they sleep, and back-to-back calls (histogram, table, lookup) start at once.  Calls
 * from inside a task, and a batch thread's while the pool is busy, run on their caller
 * (gvis_parallel). */
#include "gvis.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

/* How long a worker, or the caller waiting for the workers, spins before sleeping. */
#define SPIN_NS 200000

#define MAX_THREADS 64

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int nthreads = 1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int in_task; /* inside a task: a call runs here */
static __thread int share;   /* one of several threads doing the same work (gvis_parallel_share) */

void gvis_parallel_share(int on) { share = on != 0; }

static struct {
    gvis_task_fn fn;
    void *arg;
    int count;
    atomic_int next;
    atomic_int busy;          /* workers still inside the current job */
    atomic_uint generation;   /* bumped (under lock) for each new job */
} job;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Spins until *v != old (or == target for the busy count), for at most SPIN_NS. */
static void spin_while_equal(atomic_uint *v, unsigned old)
{
    long long until = now_ns() + SPIN_NS;
    for (int i = 0; atomic_load_explicit(v, memory_order_acquire) == old; i++) {
        cpu_relax();
        if ((i & 63) == 63 && now_ns() > until)
            return;
    }
}

static void run_tasks(void)
{
    for (;;) {
        int i = atomic_fetch_add(&job.next, 1);
        if (i >= job.count)
            break;
        job.fn(job.arg, i, job.count);
    }
}

static void *worker(void *unused)
{
    (void)unused;
    unsigned seen = 0;
    for (;;) {
        spin_while_equal(&job.generation, seen);
        pthread_mutex_lock(&lock);
        while (atomic_load(&job.generation) == seen)
            pthread_cond_wait(&wake, &lock);
        seen = atomic_load(&job.generation);
        pthread_mutex_unlock(&lock);
        in_task = 1;
        run_tasks();
        pthread_mutex_lock(&lock);
        if (atomic_fetch_sub(&job.busy, 1) == 1)
            pthread_cond_signal(&done_cv);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

/* GVIS_THREADS: its value (at most MAX_THREADS), 0 unset or empty, -1 not a number from 1 up */
static int parse_threads_env(void)
{
    const char *e = getenv("GVIS_THREADS");
    if (!e || !*e)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(e, &end, 10);
    if (end == e || *end || errno || v < 1)
        return -1;
    return v > MAX_THREADS ? MAX_THREADS : (int)v;
}

static void start_pool(void)
{
    /* a GVIS_THREADS that is not a number from 1 up counts as unset (cli/ warns about it) */
    int env = parse_threads_env();
    long n = env > 0 ? env : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    nthreads = (int)n;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 1; i < nthreads; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker, NULL) != 0) {
            nthreads = i; /* run with the threads we got */
            break;
        }
    }
    pthread_attr_destroy(&attr);
}

int gvis_threads_env(int *n)
{
    *n = parse_threads_env();
    if (*n < 0) {
        *n = 0;
        return gvis_error(GVIS_E_ARG, "GVIS_THREADS='%s' is not a whole number from 1 up", getenv("GVIS_THREADS"));
    }
    return GVIS_OK;
}

int gvis_threads(void)
{
    pthread_once(&once, start_pool);
    return nthreads;
}

void gvis_parallel(int count, gvis_task_fn fn, void *arg)
{
    if (count <= 0)
        return;
    pthread_once(&once, start_pool);
    if (nthreads == 1 || count == 1) {
        for (int i = 0; i < count; i++)
            fn(arg, i, count);
        return;
    }
    /* One job at a time in the pool.  A call from inside a task runs on its caller (it
     * would wait for itself), and so does a call from one of several threads doing the
     * same work (gvis_parallel_share: a batch's readers, writers or compute threads) while
     * the pool runs another's: those threads are the parallelism, and their small calls
     * no longer wait in line (a disparity batch on a GPU spent half its compute threads'
     * time here converting pairs to gray).  A lone caller, such as a CPU batch's one
     * compute thread, waits for the pool and gets every core. */
    if (in_task || (share && pthread_mutex_trylock(&call_lock) != 0)) {
        for (int i = 0; i < count; i++)
            fn(arg, i, count);
        return;
    }
    if (!share)
        pthread_mutex_lock(&call_lock);
    pthread_mutex_lock(&lock);
    job.fn = fn;
    job.arg = arg;
    job.count = count;
    atomic_store(&job.next, 0);
    atomic_store(&job.busy, nthreads - 1);
    atomic_fetch_add(&job.generation, 1);
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&lock);
    in_task = 1;
    run_tasks();
    in_task = 0;
    long long until = now_ns() + SPIN_NS;
    for (int i = 0; atomic_load(&job.busy) > 0; i++) {
        cpu_relax();
        if ((i & 63) == 63 && now_ns() > until)
            break;
    }
    pthread_mutex_lock(&lock);
    while (atomic_load(&job.busy) > 0)
        pthread_cond_wait(&done_cv, &lock);
    pthread_mutex_unlock(&lock);
    pthread_mutex_unlock(&call_lock);
}

void gvis_split(size_t n, int index, int count, size_t *begin, size_t *end)
{
    size_t base = n / (size_t)count, rem = n % (size_t)count, i = (size_t)index;
    *begin = i * base + (i < rem ? i : rem);
    *end = *begin + base + (i < rem ? 1 : 0);
}
