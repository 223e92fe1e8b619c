#include "gvis.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gvis_buf_reserve(gvis_buf *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len)
        return gvis_error(GVIS_E_LIMIT, "buffer size overflows");
    size_t need = b->len + extra;
    if (need <= b->cap)
        return GVIS_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p)
        return gvis_error(GVIS_E_NOMEM, "out of memory (%zu bytes)", cap);
    b->data = p;
    b->cap = cap;
    return GVIS_OK;
}

int gvis_buf_append(gvis_buf *b, const void *p, size_t n)
{
    int rc = gvis_buf_reserve(b, n + 1);
    if (rc)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0; /* text buffers stay NUL-terminated */
    return GVIS_OK;
}

int gvis_buf_printf(gvis_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return gvis_error(GVIS_E_ARG, "bad format");
    if ((size_t)n < sizeof small)
        return gvis_buf_append(b, small, (size_t)n);
    int rc = gvis_buf_reserve(b, (size_t)n + 1);
    if (rc)
        return rc;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return GVIS_OK;
}

int gvis_buf_json_string(gvis_buf *b, const char *s)
{
    int rc = gvis_buf_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; !rc && *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            rc = gvis_buf_append(b, e, 2);
        } else if (*p < 0x20) {
            rc = gvis_buf_printf(b, "\\u%04x", *p);
        } else {
            rc = gvis_buf_append(b, p, 1);
        }
    }
    return rc ? rc : gvis_buf_append(b, "\"", 1);
}

void gvis_buf_free(gvis_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
