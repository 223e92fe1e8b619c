/* Output sets: every file one command (or one batch item) writes, made all or nothing.
 *
 * Each output is staged as a temporary file beside its target (same folder, so that the
 * final rename cannot cross filesystems); outputs that cannot be staged (standard output,
 * a device, a FIFO) are kept in memory.  Commit writes the streamed ones, then renames
 * every temporary into place; abort removes them all.  A failure at any point before the
 * renames leaves no new file and every existing file at an output path unchanged.
 *
 * The temporaries' names also sit in a fixed table that the CLI's signal handler empties
 * with unlink(), the only thing it may do: see gvis_remove_temp_files(). */
#include "gvis.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* strerror() in the lower case gvis messages use. */
static const char *errtext(int e)
{
    static _Thread_local char t[128];
    snprintf(t, sizeof t, "%s", strerror(e));
    if (t[0] >= 'A' && t[0] <= 'Z' && (t[1] < 'A' || t[1] > 'Z'))
        t[0] = (char)(t[0] - 'A' + 'a');
    return t;
}

/* ---- the signal cleanup registry ------------------------------------------------------
 * Slots are claimed with an atomic compare-and-swap, so that sets on several threads (the
 * batch pipeline's writers) can register at once; the handler reads only the table. */
#define MAX_TEMPS 256
enum { T_FREE, T_CLAIMED, T_NAMED, T_CREATING };
static char temp_paths[MAX_TEMPS][PATH_MAX];
/* T_NAMED: the file may exist; T_CREATING: its open() is under way on some thread */
static volatile sig_atomic_t temp_used[MAX_TEMPS];
static volatile sig_atomic_t stopping; /* the signal handler has begun removing */

/* Claims a slot for path in state T_CREATING; the caller opens the file, then calls
 * temp_created().  -1 when the table is full (the file is then still removed on every
 * ordinary failure, not on a signal). */
static int temp_register(const char *path)
{
    for (int i = 0; i < MAX_TEMPS; i++) {
        sig_atomic_t expect = T_FREE;
        if (__atomic_compare_exchange_n(&temp_used[i], &expect, T_CLAIMED, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            snprintf(temp_paths[i], PATH_MAX, "%s", path);
            __atomic_store_n(&temp_used[i], T_CREATING, __ATOMIC_SEQ_CST);
            return i;
        }
    }
    return -1;
}

static void temp_created(int slot)
{
    if (slot >= 0)
        __atomic_store_n(&temp_used[slot], T_NAMED, __ATOMIC_SEQ_CST);
}

static void temp_release(int slot)
{
    if (slot >= 0)
        __atomic_store_n(&temp_used[slot], 0, __ATOMIC_RELEASE);
}

/* Runs in a signal handler while the batch's writer threads go on: a writer marks its
 * slot T_CREATING, then looks at `stopping` before it creates the file; this sets
 * `stopping`, then looks at the slots (both sequentially consistent).  So either the
 * writer sees `stopping` and creates nothing, or this sees T_CREATING and waits for the
 * open() to finish before unlinking: no temporary is created after its name was
 * unlinked.  (Writers stuck in open() for over 0.2 s in all are not waited for.) */
void gvis_remove_temp_files(void)
{
    __atomic_store_n(&stopping, 1, __ATOMIC_SEQ_CST);
    int budget = 2000; /* waits of 0.1 ms, all slots together */
    for (int i = 0; i < MAX_TEMPS; i++) {
        for (; budget > 0 && __atomic_load_n(&temp_used[i], __ATOMIC_SEQ_CST) == T_CREATING; budget--) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL); /* async-signal-safe */
        }
        sig_atomic_t st = __atomic_load_n(&temp_used[i], __ATOMIC_SEQ_CST);
        if (st == T_NAMED || st == T_CREATING)
            unlink(temp_paths[i]);
    }
}

/* Six random characters and the final NUL at p. */
static void temp_name_suffix(char *p)
{
    static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static _Thread_local unsigned long long counter;
    unsigned char r[6];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32) ^ ++counter;
        for (int i = 0; i < 6; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
            r[i] = (unsigned char)(x >> 56);
    }
    for (int i = 0; i < 6; i++)
        p[i] = set[r[i] % 62];
    p[6] = 0;
}

static int write_all(int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len) {
        ssize_t n = write(fd, p, len > (1u << 30) ? (1u << 30) : len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- the set ------------------------------------------------------------------------- */

typedef struct {
    char *path;    /* the target */
    char tmp[PATH_MAX]; /* the staged file; "" for a stream */
    int slot;      /* in the signal registry */
    gvis_buf data; /* a stream's bytes, written at commit */
} entry;

struct gvis_outset {
    entry *v;
    int n, cap;
    gvis_outset *outer; /* the set that was current before this one */
    int pass_streams;   /* write standard output at once (keeps its order with inner sets) */
};

void gvis_outset_pass_streams(gvis_outset *s, int on)
{
    if (s)
        s->pass_streams = on;
}

static _Thread_local gvis_outset *current;

gvis_outset *gvis_outset_current(void) { return current; }

gvis_outset *gvis_outset_begin(void)
{
    gvis_outset *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->outer = current;
    current = s;
    return s;
}

static void entry_drop(entry *e)
{
    if (e->tmp[0]) {
        unlink(e->tmp);
        temp_release(e->slot);
        e->tmp[0] = 0;
    }
    gvis_buf_free(&e->data);
    free(e->path);
    e->path = NULL;
}

static void set_free(gvis_outset *s)
{
    if (current == s)
        current = s->outer;
    else /* closed out of order: unlink it from the chain */
        for (gvis_outset *p = current; p; p = p->outer)
            if (p->outer == s) {
                p->outer = s->outer;
                break;
            }
    free(s->v);
    free(s);
}

void gvis_outset_abort(gvis_outset *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        entry_drop(&s->v[i]);
    set_free(s);
}

int gvis_outset_count(const gvis_outset *s) { return s ? s->n : 0; }

/* /dev/stdout names standard output: written there, not reopened (a reopened regular
 * file would start again at offset 0) and never renamed over (that would replace the
 * system's symlink). */
static const char *canonical_target(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/proc/self/fd/1") == 0 || strcmp(path, "/dev/fd/1") == 0)
        return "-";
    return path;
}

static int is_stream_target(const char *path)
{
    if (strcmp(path, "-") == 0)
        return 1;
    /* devices and the kernel's files are written in place, whatever stat says of them;
     * /dev/shm is a tmpfs of ordinary files, staged and renamed like any other folder's */
    if ((strncmp(path, "/dev/", 5) == 0 && strncmp(path, "/dev/shm/", 9) != 0) || strncmp(path, "/proc/", 6) == 0 ||
        strncmp(path, "/sys/", 5) == 0)
        return 1;
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static int same_target(const char *a, const char *b)
{
    return strcmp(a, b) == 0 || gvis_same_file(a, b);
}

int gvis_outset_check(const char *path)
{
    if (strcmp(path, "-") == 0)
        return GVIS_OK;
    size_t n = strlen(path);
    if (n == 0 || path[n - 1] == '/')
        return gvis_error(GVIS_E_IO, "'%s' is not a file name", path);
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return gvis_error(GVIS_E_IO, "cannot write '%s': is a directory", path);
        if (!S_ISREG(st.st_mode))
            return access(path, W_OK) == 0 ? GVIS_OK
                                           : gvis_error(GVIS_E_IO, "cannot write '%s': %s", path, errtext(errno));
    }
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) + 2 > sizeof dir)
        return gvis_error(GVIS_E_IO, "cannot write '%s': path too long", path);
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    else
        snprintf(dir, sizeof dir, ".");
    if (stat(dir, &st) != 0)
        return gvis_error(GVIS_E_IO, "cannot write '%s': %s", path, errtext(errno));
    if (!S_ISDIR(st.st_mode))
        return gvis_error(GVIS_E_IO, "cannot write '%s': '%s' is not a directory", path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return gvis_error(GVIS_E_IO, "cannot write '%s': %s", path, errtext(errno));
    return GVIS_OK;
}

static int write_stream(const entry *e);

static int stage_file(entry *e, const char *path, const void *data, size_t len)
{
    /* The temporary's name is registered before the file exists, so that a signal at any
     * moment finds every temporary that exists in the table (unlinking a name not yet
     * created is harmless).  Hence gvis names it itself instead of calling mkstemp. */
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    int stem = snprintf(e->tmp, sizeof e->tmp, "%.*s.%s.gvis-", dirlen, path, slash ? slash + 1 : path);
    if (stem < 0 || stem + 7 > (int)sizeof e->tmp) {
        e->tmp[0] = 0;
        return gvis_error(GVIS_E_IO, "cannot write '%s': path too long", path);
    }
    int fd = -1, oerr = EEXIST;
    e->slot = -1;
    for (int attempt = 0; fd < 0 && oerr == EEXIST && attempt < 100; attempt++) {
        temp_name_suffix(e->tmp + stem);
        e->slot = temp_register(e->tmp);
        if (__atomic_load_n(&stopping, __ATOMIC_SEQ_CST)) { /* a signal is removing them: make none */
            temp_release(e->slot);
            e->slot = -1;
            e->tmp[0] = 0;
            return gvis_error(GVIS_E_INTERRUPTED, "interrupted");
        }
        fd = open(e->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        temp_created(e->slot);
        if (fd < 0) {
            oerr = errno;
            temp_release(e->slot);
            e->slot = -1;
        }
    }
    if (fd < 0) {
        e->tmp[0] = 0;
        return gvis_error(GVIS_E_IO, "cannot write '%s': %s", path, errtext(oerr));
    }
    int err = 0;
    if (write_all(fd, data, len) != 0)
        err = errno;
    /* Keep the permissions a new file would get (the temporary is made 0600). */
    mode_t mask = umask(0);
    umask(mask);
    if (!err && fchmod(fd, 0666 & ~mask) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (err) {
        unlink(e->tmp);
        temp_release(e->slot);
        e->tmp[0] = 0;
        return gvis_error(GVIS_E_IO, "cannot write '%s': %s", path, errtext(err));
    }
    return GVIS_OK;
}

int gvis_outset_put(gvis_outset *s, const char *path, const void *data, size_t len)
{
    if (!s)
        return gvis_write_file_atomic(path, data, len);
    path = canonical_target(path);
    int stream = is_stream_target(path);
    if (stream && s->pass_streams && strcmp(path, "-") == 0) {
        entry e = {.path = (char *)path, .data = {(uint8_t *)(uintptr_t)data, len, len}};
        return write_stream(&e);
    }
    if (!stream) {
        int rc = gvis_outset_check(path);
        if (rc)
            return rc;
    }
    /* the same target twice: a stream gets both in order, a file the later one */
    for (int i = 0; i < s->n; i++) {
        entry *e = &s->v[i];
        if (!same_target(e->path, path))
            continue;
        if (stream)
            return gvis_buf_append(&e->data, data, len) ? gvis_error(GVIS_E_NOMEM, "out of memory") : GVIS_OK;
        entry t = {0};
        int rc = stage_file(&t, path, data, len);
        if (rc)
            return rc;
        unlink(e->tmp);
        temp_release(e->slot);
        memcpy(e->tmp, t.tmp, sizeof t.tmp);
        e->slot = t.slot;
        return GVIS_OK;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 4;
        entry *v = realloc(s->v, sizeof *v * (size_t)cap);
        if (!v)
            return gvis_error(GVIS_E_NOMEM, "out of memory");
        s->v = v;
        s->cap = cap;
    }
    entry *e = &s->v[s->n];
    memset(e, 0, sizeof *e);
    e->slot = -1;
    if (!(e->path = strdup(path)))
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    int rc = stream ? (gvis_buf_append(&e->data, data, len) ? gvis_error(GVIS_E_NOMEM, "out of memory") : GVIS_OK)
                    : stage_file(e, path, data, len);
    if (!rc && stream && !e->data.data && gvis_buf_reserve(&e->data, 1))
        rc = gvis_error(GVIS_E_NOMEM, "out of memory");
    if (rc) {
        entry_drop(e);
        return rc;
    }
    s->n++;
    return GVIS_OK;
}

int gvis_outset_put_image(gvis_outset *s, const char *path, gvis_format f, const gvis_io_opts *o,
                          const gvis_image *img)
{
    if (!f)
        f = gvis_format_from_path(path);
    if (!f)
        return gvis_error(GVIS_E_ARG, "cannot tell the output format of '%s' (give an extension or --format)", path);
    gvis_io_opts def = {0};
    gvis_buf b = {0};
    int rc = gvis_image_encode(img, f, o ? o : &def, &b);
    if (!rc)
        rc = gvis_outset_put(s, path, b.data ? (const void *)b.data : "", b.len);
    gvis_buf_free(&b);
    return rc;
}

static int write_stream(const entry *e)
{
    const void *d = e->data.data ? (const void *)e->data.data : "";
    if (strcmp(e->path, "-") == 0) {
        if (write_all(STDOUT_FILENO, d, e->data.len) != 0)
            return gvis_error(GVIS_E_IO, "cannot write to standard output: %s", errtext(errno));
        return GVIS_OK;
    }
    int fd = open(e->path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return gvis_error(GVIS_E_IO, "cannot write '%s': %s", e->path, errtext(errno));
    int err = write_all(fd, d, e->data.len) != 0 ? errno : 0;
    if (close(fd) != 0 && !err)
        err = errno;
    if (err)
        return gvis_error(GVIS_E_IO, "cannot write '%s': %s", e->path, errtext(err));
    return GVIS_OK;
}

int gvis_outset_commit(gvis_outset *s)
{
    if (!s)
        return GVIS_OK;
    int rc = GVIS_OK;
    /* streams first (devices, then standard output): they are the ones that can still
     * fail (/dev/full, a closed pipe), and the files are not in place yet */
    for (int pass = 0; pass < 2 && !rc; pass++)
        for (int i = 0; i < s->n && !rc; i++)
            if (!s->v[i].tmp[0] && (strcmp(s->v[i].path, "-") == 0) == pass)
                rc = write_stream(&s->v[i]);
    for (int i = 0; i < s->n && !rc; i++) {
        entry *e = &s->v[i];
        if (!e->tmp[0])
            continue;
        if (rename(e->tmp, e->path) != 0)
            rc = gvis_error(GVIS_E_IO, "cannot write '%s': %s", e->path, errtext(errno));
        else {
            temp_release(e->slot);
            e->tmp[0] = 0;
        }
    }
    gvis_outset_abort(s); /* removes what was not renamed and frees the set */
    return rc;
}

int gvis_write_file_atomic(const char *path, const void *data, size_t len)
{
    if (current)
        return gvis_outset_put(current, path, data, len);
    gvis_outset *s = gvis_outset_begin();
    if (!s)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    int rc = gvis_outset_put(s, path, data, len);
    if (rc) {
        gvis_outset_abort(s);
        return rc;
    }
    return gvis_outset_commit(s);
}

int gvis_mkdir_p(const char *path)
{
    char p[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof p)
        return gvis_error(GVIS_E_IO, "'%s': cannot create directory: %s", path, errtext(ENAMETOOLONG));
    memcpy(p, path, n + 1);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
    for (char *c = p + 1;; c++) {
        int end = *c == 0;
        if (*c == '/' || end) {
            char keep = *c;
            *c = 0;
            struct stat st;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                return gvis_error(GVIS_E_IO, "'%s': cannot create directory: %s", path, errtext(e));
            }
            if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
                return gvis_error(GVIS_E_IO, "'%s': cannot create directory: '%s' is not a directory", path, p);
            *c = keep;
        }
        if (end)
            break;
    }
    return GVIS_OK;
}
