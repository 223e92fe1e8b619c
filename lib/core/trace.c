/* GVIS_TRACE=FILE: a timeline of the batch's threads (trace.h). */
#include "trace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gvis.h"

struct ev {
    const char *name;
    double t0, t1;
    long arg;
    int tid;
};

/* Every span of every thread in one list under one lock: a batch records a few spans a
 * file (tracing measured 1-3 % on 2,400 photos at -j 32), and the list is read once. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *path; /* NULL: tracing off */
static double origin;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct ev *evs;
static size_t nev, cap;
static long dropped; /* spans lost to a failed allocation */
static char (*names)[48]; /* names[tid - 1] */
static int ntid;
static __thread int mytid; /* 0: not yet traced */

static void init(void)
{
    const char *e = getenv("GVIS_TRACE");
    if (e && *e) {
        path = e;
        origin = gvis_now_ms();
    }
}

int gvis_trace_on(void)
{
    pthread_once(&once, init);
    return path != NULL;
}

/* Under the lock: the calling thread's id, given at its first span or name (0: none,
 * out of memory). */
static int tid_locked(void)
{
    if (mytid)
        return mytid;
    char(*n)[48] = realloc(names, (size_t)(ntid + 1) * sizeof *names);
    if (!n)
        return 0;
    names = n;
    snprintf(names[ntid], sizeof names[ntid], "thread %d", ntid + 1);
    return mytid = ++ntid;
}

void gvis_trace_thread(const char *what, int id)
{
    if (!gvis_trace_on())
        return;
    pthread_mutex_lock(&mu);
    int t = tid_locked();
    if (t && id >= 0)
        snprintf(names[t - 1], sizeof names[t - 1], "%s %d", what, id);
    else if (t)
        snprintf(names[t - 1], sizeof names[t - 1], "%s", what);
    pthread_mutex_unlock(&mu);
}

void gvis_trace_span(const char *name, double t0, double t1, long arg)
{
    if (!gvis_trace_on())
        return;
    pthread_mutex_lock(&mu);
    int t = tid_locked();
    if (nev == cap) {
        size_t c = cap ? 2 * cap : 4096;
        struct ev *e = realloc(evs, c * sizeof *e);
        if (e)
            evs = e, cap = c;
    }
    if (t && nev < cap)
        evs[nev++] = (struct ev){name, t0, t1, arg, t};
    else
        dropped++;
    pthread_mutex_unlock(&mu);
}

/* A JSON string of s (the names are ours: quotes and backslashes only, to be safe). */
static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    }
    fputc('"', f);
}

void gvis_trace_main(void) { gvis_trace_thread("main", -1); }

void gvis_trace_phase(const char *name, double t0, double t1) { gvis_trace_span(name, t0, t1, 0); }

int gvis_trace_write(void)
{
    if (!gvis_trace_on())
        return 0;
    pthread_mutex_lock(&mu);
    int none = !ntid; /* no thread traced (a command with no batch): no file */
    pthread_mutex_unlock(&mu);
    if (none)
        return 0;
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (!tmp)
        return -1;
    snprintf(tmp, n + 32, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(tmp);
        return -1;
    }
    pthread_mutex_lock(&mu);
    fprintf(f, "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"dropped\": %ld}, \"traceEvents\": [\n", dropped);
    for (int t = 0; t < ntid; t++) {
        fprintf(f, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": ",
                t ? ",\n" : "", t + 1);
        jstr(f, names[t]);
        fputs("}}", f);
    }
    for (size_t i = 0; i < nev; i++) {
        const struct ev *e = &evs[i];
        fputs(",\n{\"name\": ", f);
        jstr(f, e->name);
        fprintf(f, ", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.1f, \"dur\": %.1f, \"args\": {\"n\": %ld}}",
                e->tid, (e->t0 - origin) * 1e3, (e->t1 - e->t0) * 1e3, e->arg);
    }
    /* when the timeline was written: what the process does after it (its exit, CUDA's
     * teardown) is the wall clock's rest */
    fprintf(f, ",\n{\"name\": \"timeline written\", \"ph\": \"i\", \"s\": \"p\", \"pid\": 1, \"tid\": 1, \"ts\": %.1f}",
            (gvis_now_ms() - origin) * 1e3);
    fputs("\n]}\n", f);
    pthread_mutex_unlock(&mu);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (!bad)
        bad = rename(tmp, path) != 0;
    if (bad)
        unlink(tmp);
    free(tmp);
    return bad ? -1 : 0;
}
