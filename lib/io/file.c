/* Files: whole-file reads, atomic writes through a temporary file, format names. */
#include "gvis.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

static const struct {
    const char *name;
    gvis_format f;
} formats[] = {
    {"png", GVIS_FMT_PNG}, {"jpg", GVIS_FMT_JPEG}, {"jpeg", GVIS_FMT_JPEG}, {"bmp", GVIS_FMT_BMP},
    {"tga", GVIS_FMT_TGA}, {"pgm", GVIS_FMT_PGM},  {"ppm", GVIS_FMT_PPM},   {"pnm", GVIS_FMT_PPM},
    {"pfm", GVIS_FMT_PFM}, {"npy", GVIS_FMT_NPY},  {"csv", GVIS_FMT_CSV},   {"json", GVIS_FMT_JSON},
    {"txt", GVIS_FMT_TXT}, {"ply", GVIS_FMT_PLY},  {"tif", GVIS_FMT_TIFF},  {"tiff", GVIS_FMT_TIFF},
    {"webp", GVIS_FMT_WEBP},
};

gvis_format gvis_format_from_name(const char *name)
{
    if (!name)
        return GVIS_FMT_NONE;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcasecmp(name, formats[i].name) == 0)
            return formats[i].f;
    return GVIS_FMT_NONE;
}

gvis_format gvis_format_from_path(const char *path)
{
    if (!path)
        return GVIS_FMT_NONE;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot ? gvis_format_from_name(dot + 1) : GVIS_FMT_NONE;
}

const char *gvis_format_name(gvis_format f)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].f == f)
            return formats[i].name;
    return "";
}

int gvis_read_file(const char *path, gvis_buf *b, size_t max_bytes)
{
    int is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gvis_error(GVIS_E_IO, "cannot open: %s", errtext(errno));
    struct stat st;
    if (fstat(fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            if (!is_stdin)
                close(fd);
            return gvis_error(GVIS_E_IO, "is a directory");
        }
        if (S_ISREG(st.st_mode) && st.st_size > 0) {
            if (max_bytes && (uint64_t)st.st_size > max_bytes) {
                if (!is_stdin)
                    close(fd);
                return gvis_error(GVIS_E_LIMIT, "file of %lld bytes is larger than the limit of %zu bytes",
                                  (long long)st.st_size, max_bytes);
            }
            int rc = gvis_buf_reserve(b, (size_t)st.st_size + 1);
            if (rc) {
                if (!is_stdin)
                    close(fd);
                return rc;
            }
        }
    }
    for (;;) {
        int rc = gvis_buf_reserve(b, 65536);
        if (rc) {
            if (!is_stdin)
                close(fd);
            return rc;
        }
        ssize_t n = read(fd, b->data + b->len, b->cap - b->len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            if (!is_stdin)
                close(fd);
            return gvis_error(GVIS_E_IO, "read error: %s", errtext(e));
        }
        if (n == 0)
            break;
        b->len += (size_t)n;
        if (max_bytes && b->len > max_bytes) {
            if (!is_stdin)
                close(fd);
            return gvis_error(GVIS_E_LIMIT, "input is larger than the limit of %zu bytes", max_bytes);
        }
    }
    b->data[b->len] = 0;
    if (!is_stdin)
        close(fd);
    return GVIS_OK;
}

/* Temporary files not yet renamed, for removal on a signal.  A fixed table of fixed
 * strings: the signal handler may only read memory and call unlink().  Only the main
 * thread writes files, and the CLI's handler runs on the main thread (it hands a signal
 * that lands on another thread over to it). */
#define MAX_TEMPS 16
static char temp_paths[MAX_TEMPS][PATH_MAX];
static volatile sig_atomic_t temp_used[MAX_TEMPS];

static int temp_register(const char *path)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (!temp_used[i]) {
            snprintf(temp_paths[i], PATH_MAX, "%s", path);
            temp_used[i] = 1;
            return i;
        }
    return -1;
}

static void temp_release(int slot)
{
    if (slot >= 0)
        temp_used[slot] = 0;
}

/* Six random characters and the final NUL at p. */
static void temp_name_suffix(char *p)
{
    static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned long long counter;
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

void gvis_remove_temp_files(void)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_used[i])
            unlink(temp_paths[i]);
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

int gvis_write_file_atomic(const char *path, const void *data, size_t len)
{
    if (strcmp(path, "-") == 0) {
        if (write_all(STDOUT_FILENO, data, len) != 0)
            return gvis_error(GVIS_E_IO, "cannot write to standard output: %s", errtext(errno));
        return GVIS_OK;
    }
    size_t n = strlen(path);
    if (n == 0 || path[n - 1] == '/')
        return gvis_error(GVIS_E_IO, "'%s' is not a file name", path);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return gvis_error(GVIS_E_IO, "cannot write '%s': is a directory", path);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device, pipe or socket (/dev/null, /dev/stdout, a FIFO): write to it in place */
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return gvis_error(GVIS_E_IO, "cannot write '%s': %s", path, errtext(errno));
        int err = write_all(fd, data, len) != 0 ? errno : 0;
        if (close(fd) != 0 && !err)
            err = errno;
        if (err)
            return gvis_error(GVIS_E_IO, "cannot write '%s': %s", path, errtext(err));
        return GVIS_OK;
    }
    /* The temporary's name is registered before the file exists, so that a signal at any
     * moment finds every temporary that exists in the table (unlinking a name not yet
     * created is harmless).  Hence gvis names it itself instead of calling mkstemp. */
    char tmp[PATH_MAX];
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    int stem = snprintf(tmp, sizeof tmp, "%.*s.%s.gvis-", dirlen, path, slash ? slash + 1 : path);
    if (stem < 0 || stem + 7 > (int)sizeof tmp)
        return gvis_error(GVIS_E_IO, "cannot write '%s': path too long", path);
    int fd = -1, slot = -1, oerr = EEXIST;
    for (int attempt = 0; fd < 0 && oerr == EEXIST && attempt < 100; attempt++) {
        temp_name_suffix(tmp + stem);
        slot = temp_register(tmp);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            oerr = errno;
            temp_release(slot);
        }
    }
    if (fd < 0)
        return gvis_error(GVIS_E_IO, "cannot write '%s': %s", path, errtext(oerr));
    int err = 0;
    if (write_all(fd, data, len) != 0)
        err = errno;
    /* Keep the permissions a new file would get (mkstemp makes it 0600). */
    mode_t mask = umask(0);
    umask(mask);
    if (!err && fchmod(fd, 0666 & ~mask) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err)
        unlink(tmp);
    temp_release(slot);
    if (err)
        return gvis_error(GVIS_E_IO, "cannot write '%s': %s", path, errtext(err));
    return GVIS_OK;
}

int gvis_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!a || !b || strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return 0;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
