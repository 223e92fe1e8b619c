/* Files: whole-file reads, format names (atomic writes: outset.c). */
#include "gvis.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
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

static int read_file(const char *path, gvis_buf *b, size_t max_bytes)
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

/* On failure the buffer is freed: callers need not (issue 13: they did not). */
int gvis_read_file(const char *path, gvis_buf *b, size_t max_bytes)
{
    int rc = read_file(path, b, max_bytes);
    if (rc)
        gvis_buf_free(b);
    return rc;
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
