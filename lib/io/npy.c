/* NPY (format versions 1, 2 and 3): little-endian numeric arrays in C order. */
#include "gvis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *descr;
    gvis_dtype t;
    size_t size;
} dtypes[] = {
    {"|u1", GVIS_DT_U8, 1},  {"u1", GVIS_DT_U8, 1},   {"<u2", GVIS_DT_U16, 2}, {"<f2", GVIS_DT_F16, 2},
    {"<f4", GVIS_DT_F32, 4}, {"<f8", GVIS_DT_F64, 8}, {"<i4", GVIS_DT_I32, 4}, {"<i8", GVIS_DT_I64, 8},
};

size_t gvis_dtype_size(gvis_dtype t)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].t == t)
            return dtypes[i].size;
    return 0;
}

static const char *dtype_descr(gvis_dtype t)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].t == t && dtypes[i].descr[0] != 'u')
            return dtypes[i].descr;
    return NULL;
}

/* Finds 'key': in the header dictionary and returns a pointer just past the colon. */
static const char *dict_value(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p) {
        snprintf(pat, sizeof pat, "\"%s\"", key);
        p = strstr(h, pat);
    }
    if (!p)
        return NULL;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    if (*p != ':')
        return NULL;
    p++;
    while (*p == ' ')
        p++;
    return p;
}

int gvis_npy_decode(const uint8_t *d, size_t len, size_t max_bytes, gvis_array *a)
{
    memset(a, 0, sizeof *a);
    if (len < 10 || memcmp(d, "\x93NUMPY", 6) != 0)
        return gvis_error(GVIS_E_FORMAT, "not an NPY file");
    int major = d[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)d[8] | (size_t)d[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return gvis_error(GVIS_E_FORMAT, "truncated NPY header");
        hlen = (size_t)d[8] | (size_t)d[9] << 8 | (size_t)d[10] << 16 | (size_t)d[11] << 24;
        hstart = 12;
    } else {
        return gvis_error(GVIS_E_FORMAT, "unsupported NPY version %d", major);
    }
    if (hlen > 1 << 20 || hstart + hlen > len)
        return gvis_error(GVIS_E_FORMAT, "truncated NPY header");
    char *h = malloc(hlen + 1);
    if (!h)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    memcpy(h, d + hstart, hlen);
    h[hlen] = 0;
    int rc = GVIS_OK;
    const char *v = dict_value(h, "descr");
    char descr[16] = "";
    if (v && (*v == '\'' || *v == '"')) {
        char q = *v++;
        size_t n = 0;
        while (v[n] && v[n] != q && n < sizeof descr - 1)
            n++;
        memcpy(descr, v, n);
        descr[n] = 0;
    }
    a->dtype = 0;
    size_t esize = 0;
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(descr, dtypes[i].descr) == 0 || (descr[0] == '|' && strcmp(descr + 1, dtypes[i].descr) == 0) ||
            (descr[0] == '=' && strcmp(descr + 1, dtypes[i].descr + 1) == 0))
            a->dtype = dtypes[i].t, esize = dtypes[i].size;
    if (!a->dtype) {
        rc = gvis_error(GVIS_E_FORMAT, "unsupported NPY dtype '%s' (uint8, uint16, float16, float32, float64, int32, int64 little-endian)", descr);
        goto out;
    }
    v = dict_value(h, "fortran_order");
    if (!v || strncmp(v, "False", 5) != 0) {
        rc = gvis_error(GVIS_E_FORMAT, "NPY array is not in C order");
        goto out;
    }
    v = dict_value(h, "shape");
    if (!v || *v != '(') {
        rc = gvis_error(GVIS_E_FORMAT, "NPY header has no shape");
        goto out;
    }
    v++;
    size_t count = 1;
    for (;;) {
        while (*v == ' ' || *v == ',')
            v++;
        if (*v == ')')
            break;
        char *end;
        unsigned long long n = strtoull(v, &end, 10);
        if (end == v || *v == '-' || a->ndim >= 8) {
            rc = gvis_error(GVIS_E_FORMAT, "bad NPY shape");
            goto out;
        }
        if (gvis_mul_size(count, (size_t)n, &count)) {
            rc = gvis_error(GVIS_E_LIMIT, "NPY shape overflows");
            goto out;
        }
        a->shape[a->ndim++] = (size_t)n;
        v = end;
    }
    size_t nbytes;
    if (gvis_mul_size(count, esize, &nbytes)) {
        rc = gvis_error(GVIS_E_LIMIT, "NPY shape overflows");
        goto out;
    }
    if (max_bytes && nbytes > max_bytes) {
        rc = gvis_error(GVIS_E_LIMIT, "NPY array of %zu bytes is larger than the limit of %zu bytes", nbytes, max_bytes);
        goto out;
    }
    size_t start = hstart + hlen;
    if (len - start < nbytes) {
        rc = gvis_error(GVIS_E_FORMAT, "truncated NPY data (%zu of %zu bytes)", len - start, nbytes);
        goto out;
    }
    if (len - start > nbytes) {
        rc = gvis_error(GVIS_E_FORMAT, "%zu bytes after the end of the NPY array", len - start - nbytes);
        goto out;
    }
    a->data = malloc(nbytes ? nbytes : 1);
    if (!a->data) {
        rc = gvis_error(GVIS_E_NOMEM, "out of memory (%zu bytes)", nbytes);
        goto out;
    }
    memcpy(a->data, d + start, nbytes);
    a->nbytes = nbytes;
out:
    free(h);
    return rc;
}

int gvis_npy_encode(const gvis_array *a, gvis_buf *b)
{
    const char *descr = dtype_descr(a->dtype);
    if (!descr || a->ndim < 1 || a->ndim > 8)
        return gvis_error(GVIS_E_ARG, "cannot write this array as NPY");
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < a->ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%zu%s", a->shape[i], a->ndim == 1 || i + 1 < a->ndim ? ", " : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* Pad so that the data starts on a 64-byte boundary; the header ends with a newline. */
    size_t total = 10 + (size_t)n + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)n + pad + 1;
    uint8_t pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)(hlen & 0xff), (uint8_t)(hlen >> 8)};
    int rc = gvis_buf_append(b, pre, 10);
    if (!rc) rc = gvis_buf_append(b, dict, (size_t)n);
    for (size_t i = 0; !rc && i < pad; i++)
        rc = gvis_buf_append(b, " ", 1);
    if (!rc) rc = gvis_buf_append(b, "\n", 1);
    if (!rc) rc = gvis_buf_append(b, a->data, a->nbytes);
    return rc;
}

void gvis_array_free(gvis_array *a)
{
    if (!a)
        return;
    free(a->data);
    a->data = NULL;
}
