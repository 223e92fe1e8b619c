#include "gvis.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char message[1024];

int gvis_error(int status, const char *fmt, ...)
{
    /* Formatted aside first: callers pass gvis_errmsg() itself as an argument
     * (gvis_error(E, "%s", gvis_errmsg()) to change the status), and vsnprintf into the
     * buffer it reads from left the message empty (found by tests/fuzz/fuzz_matrix). */
    char text[sizeof message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(message, text, sizeof message);
    return status;
}

const char *gvis_errmsg(void) { return message; }

void gvis_error_prefix(const char *prefix0)
{
    char prefix[sizeof message]; /* the prefix may be (part of) the message itself */
    snprintf(prefix, sizeof prefix, "%s", prefix0);
    size_t p = strlen(prefix), m = strlen(message);
    if (p + 2 >= sizeof message)
        p = sizeof message - 3;
    if (p + 2 + m >= sizeof message)
        m = sizeof message - p - 3;
    memmove(message + p + 2, message, m);
    memcpy(message, prefix, p);
    message[p] = ':';
    message[p + 1] = ' ';
    message[p + 2 + m] = 0;
}

int gvis_mul_size(size_t a, size_t b, size_t *out)
{
    if (b && a > SIZE_MAX / b)
        return -1;
    *out = a * b;
    return 0;
}

int gvis_image_bytes(size_t w, size_t h, size_t c, size_t bytes, size_t *out)
{
    size_t n;
    if (gvis_mul_size(w, h, &n) || gvis_mul_size(n, c, &n) || gvis_mul_size(n, bytes, &n))
        return gvis_error(GVIS_E_LIMIT, "image size %zux%zux%zu overflows", w, h, c);
    *out = n;
    return GVIS_OK;
}
