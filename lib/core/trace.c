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
};

struct tbuf {
    int tid;
    char tname[48];
    struct ev *ev;
    size_t n, cap;
    int full; /* out of memory once: the rest of this thread's spans are dropped */
    struct tbuf *next;
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *path; /* NULL: tracing off */
static double origin;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct tbuf *all;
static int next_tid = 1;
static long dropped;
static __thread struct tbuf *mine;

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

static struct tbuf *buf(void)
{
    if (mine)
        return mine;
    struct tbuf *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    pthread_mutex_lock(&mu);
    b->tid = next_tid++;
    snprintf(b->tname, sizeof b->tname, "thread %d", b->tid);
    b->next = all;
    all = b;
    pthread_mutex_unlock(&mu);
    return mine = b;
}

void gvis_trace_thread(const char *what, int id)
{
    if (!gvis_trace_on())
        return;
    struct tbuf *b = buf();
    if (!b)
        return;
    pthread_mutex_lock(&mu); /* the writer reads names under the lock */
    if (id >= 0)
        snprintf(b->tname, sizeof b->tname, "%s %d", what, id);
    else
        snprintf(b->tname, sizeof b->tname, "%s", what);
    pthread_mutex_unlock(&mu);
}

void gvis_trace_span(const char *name, double t0, double t1, long arg)
{
    if (!gvis_trace_on())
        return;
    struct tbuf *b = buf();
    if (!b)
        return;
    pthread_mutex_lock(&mu); /* against a write that runs while threads still trace */
    if (b->n == b->cap && !b->full) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        struct ev *e = realloc(b->ev, cap * sizeof *e);
        if (e) {
            b->ev = e;
            b->cap = cap;
        } else {
            b->full = 1;
        }
    }
    if (b->n < b->cap)
        b->ev[b->n++] = (struct ev){name, t0, t1, arg};
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

int gvis_trace_write(void)
{
    if (!gvis_trace_on())
        return 0;
    pthread_mutex_lock(&mu);
    int none = !all; /* no thread traced (a command with no batch): no file */
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
    int first = 1;
    for (struct tbuf *b = all; b; b = b->next) {
        fprintf(f, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %d, \"args\": {\"name\": ",
                first ? "" : ",\n", b->tid);
        jstr(f, b->tname);
        fputs("}}", f);
        first = 0;
        for (size_t i = 0; i < b->n; i++) {
            const struct ev *e = &b->ev[i];
            fputs(",\n{\"name\": ", f);
            jstr(f, e->name);
            fprintf(f, ", \"ph\": \"X\", \"pid\": 1, \"tid\": %d, \"ts\": %.1f, \"dur\": %.1f, \"args\": {\"n\": %ld}}",
                    b->tid, (e->t0 - origin) * 1e3, (e->t1 - e->t0) * 1e3, e->arg);
        }
    }
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
