/* The formats gvis reads and writes itself: PGM/PPM (binary, 8 or 16 bit), PFM and NPY
 * images.  Every reader checks the header's size before allocating. */
#include "codec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define check_size gvis_check_size
#define max_pixels_of gvis_max_pixels

/* ---- PFM: "PF" (RGB) or "Pf" (gray), width height, scale (< 0: little-endian), rows bottom first ---- */

static int pfm_token(const uint8_t *d, size_t len, size_t *pos, char *out, size_t outlen)
{
    size_t p = *pos, n = 0;
    while (p < len && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r' || d[p] == '\n'))
        p++;
    while (p < len && !(d[p] == ' ' || d[p] == '\t' || d[p] == '\r' || d[p] == '\n')) {
        if (n + 1 >= outlen || d[p] == 0) /* a NUL inside a header word: not text (fuzz_sniff) */
            return -1;
        out[n++] = (char)d[p++];
    }
    out[n] = 0;
    *pos = p;
    return n ? 0 : -1;
}

int gvis_pfm_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    char tok[64], *end;
    size_t pos = 0;
    if (pfm_token(d, len, &pos, tok, sizeof tok) || (strcmp(tok, "PF") && strcmp(tok, "Pf")))
        return gvis_error(GVIS_E_FORMAT, "not a PFM file");
    int channels = tok[1] == 'F' ? 3 : 1;
    if (pfm_token(d, len, &pos, tok, sizeof tok))
        return gvis_error(GVIS_E_FORMAT, "truncated PFM header");
    long w = strtol(tok, &end, 10);
    if (*end || w <= 0)
        return gvis_error(GVIS_E_FORMAT, "bad PFM width '%s'", tok);
    if (pfm_token(d, len, &pos, tok, sizeof tok))
        return gvis_error(GVIS_E_FORMAT, "truncated PFM header");
    long h = strtol(tok, &end, 10);
    if (*end || h <= 0)
        return gvis_error(GVIS_E_FORMAT, "bad PFM height '%s'", tok);
    if (pfm_token(d, len, &pos, tok, sizeof tok))
        return gvis_error(GVIS_E_FORMAT, "truncated PFM header");
    double scale = strtod(tok, &end);
    if (*end || scale == 0 || !isfinite(scale))
        return gvis_error(GVIS_E_FORMAT, "bad PFM scale '%s'", tok);
    if (pos >= len)
        return gvis_error(GVIS_E_FORMAT, "truncated PFM file");
    pos++; /* the single whitespace character after the scale */
    int rc = check_size((size_t)w, (size_t)h, o);
    if (rc)
        return rc;
    size_t row = (size_t)w * channels * 4, need;
    if (gvis_mul_size(row, (size_t)h, &need) || len - pos < need)
        return gvis_error(GVIS_E_FORMAT, "truncated PFM data (%zu of %zu bytes)", len - pos, need);
    if ((rc = gvis_image_alloc(img, (int)w, (int)h, channels, GVIS_F32, 0)))
        return rc;
    int big = scale > 0;
    for (long y = 0; y < h; y++) {
        const uint8_t *src = d + pos + (size_t)(h - 1 - y) * row;
        uint8_t *dst = GVIS_ROW(img, y);
        if (!big) {
            memcpy(dst, src, row);
        } else {
            for (size_t i = 0; i < row; i += 4) {
                dst[i] = src[i + 3];
                dst[i + 1] = src[i + 2];
                dst[i + 2] = src[i + 1];
                dst[i + 3] = src[i];
            }
        }
    }
    return GVIS_OK;
}

/* ---- NPY as an image: u8 / u16 / f32 of shape (H, W) or (H, W, C) ---- */

int gvis_npy_image_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    gvis_array a;
    size_t limit;
    if (gvis_mul_size(max_pixels_of(o), 16, &limit))
        limit = SIZE_MAX;
    int rc = gvis_npy_decode(d, len, limit, &a);
    if (rc)
        return rc;
    gvis_type t = a.dtype == GVIS_DT_U8 ? GVIS_U8 : a.dtype == GVIS_DT_U16 ? GVIS_U16 : a.dtype == GVIS_DT_F32 ? GVIS_F32 : 0;
    size_t c = a.ndim == 3 ? a.shape[2] : 1;
    if (!t || (a.ndim != 2 && a.ndim != 3) || (c != 1 && c != 3 && c != 4)) {
        gvis_array_free(&a);
        return gvis_error(GVIS_E_FORMAT, "NPY array is not an image (uint8, uint16 or float32 of shape HxW or HxWxC with C 1, 3 or 4)");
    }
    if ((rc = check_size(a.shape[1], a.shape[0], o)) ||
        (rc = gvis_image_alloc(img, (int)a.shape[1], (int)a.shape[0], (int)c, t, 0))) {
        gvis_array_free(&a);
        return rc;
    }
    memcpy(img->data, a.data, img->stride * (size_t)img->height);
    gvis_array_free(&a);
    return GVIS_OK;
}

/* ---- PGM / PPM (binary P5 / P6), 8 or 16 bit big-endian, comments allowed ---- */

static int pnm_number(const uint8_t *d, size_t len, size_t *pos, unsigned long *out)
{
    size_t p = *pos;
    for (;;) {
        while (p < len && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r' || d[p] == '\n'))
            p++;
        if (p < len && d[p] == '#') {
            while (p < len && d[p] != '\n')
                p++;
            continue;
        }
        break;
    }
    if (p >= len || d[p] < '0' || d[p] > '9')
        return -1;
    unsigned long v = 0;
    while (p < len && d[p] >= '0' && d[p] <= '9') {
        if (v > 100000000ul)
            return -1;
        v = v * 10 + (unsigned long)(d[p++] - '0');
    }
    *out = v;
    *pos = p;
    return 0;
}

int gvis_pnm_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    int channels = d[1] == '5' ? 1 : 3;
    size_t pos = 2;
    unsigned long w, h, maxval;
    if (pnm_number(d, len, &pos, &w) || pnm_number(d, len, &pos, &h) || pnm_number(d, len, &pos, &maxval))
        return gvis_error(GVIS_E_FORMAT, "bad or truncated %s header", channels == 1 ? "PGM" : "PPM");
    if (maxval == 0 || maxval > 65535)
        return gvis_error(GVIS_E_FORMAT, "bad maximum value %lu in %s header", maxval, channels == 1 ? "PGM" : "PPM");
    int rc = check_size(w, h, o);
    if (rc)
        return rc;
    if (pos >= len)
        return gvis_error(GVIS_E_FORMAT, "truncated %s file", channels == 1 ? "PGM" : "PPM");
    pos++; /* one whitespace character ends the header */
    int bytes = maxval > 255 ? 2 : 1;
    size_t row = (size_t)w * channels * bytes, need;
    if (gvis_mul_size(row, (size_t)h, &need) || len - pos < need)
        return gvis_error(GVIS_E_FORMAT, "truncated %s data (%zu of %zu bytes)", channels == 1 ? "PGM" : "PPM",
                          len - pos, need);
    if ((rc = gvis_image_alloc(img, (int)w, (int)h, channels, bytes == 1 ? GVIS_U8 : GVIS_U16, 0)))
        return rc;
    for (unsigned long y = 0; y < h; y++) {
        const uint8_t *src = d + pos + (size_t)y * row;
        if (bytes == 1) {
            memcpy(GVIS_ROW(img, y), src, row);
        } else {
            uint16_t *dst = GVIS_ROW(img, y);
            for (size_t i = 0; i < (size_t)w * channels; i++)
                dst[i] = (uint16_t)(src[2 * i] << 8 | src[2 * i + 1]);
        }
    }
    return GVIS_OK;
}

/* ---- PGM / PPM, binary, 8 or 16 bit (big-endian) ---- */

static int encode_pnm(const gvis_image *img, gvis_format f, gvis_buf *b)
{
    if (f == GVIS_FMT_PGM && img->channels != 1)
        return gvis_error(GVIS_E_FORMAT, "PGM holds gray images, this one has %d channels (write .ppm or .png)", img->channels);
    if (f == GVIS_FMT_PPM && img->channels == 4)
        return gvis_error(GVIS_E_FORMAT, "PPM has no alpha channel (write .png for RGBA)");
    int rc = gvis_buf_printf(b, "P%c\n%d %d\n%d\n", img->channels == 1 ? '5' : '6', img->width, img->height,
                             img->type == GVIS_U8 ? 255 : 65535);
    size_t n = (size_t)img->width * img->channels;
    if (!rc) rc = gvis_buf_reserve(b, n * img->type * (size_t)img->height);
    for (int y = 0; !rc && y < img->height; y++) {
        if (img->type == GVIS_U8) {
            rc = gvis_buf_append(b, GVIS_ROW(img, y), n);
        } else {
            const uint16_t *s = GVIS_ROW(img, y);
            uint8_t *d = b->data + b->len;
            for (size_t i = 0; i < n; i++) {
                d[2 * i] = (uint8_t)(s[i] >> 8);
                d[2 * i + 1] = (uint8_t)s[i];
            }
            b->len += 2 * n;
        }
    }
    return rc;
}

/* ---- PFM: little-endian (scale -1), bottom row first ---- */

int gvis_pfm_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    if (img->channels == 4)
        return gvis_error(GVIS_E_FORMAT, "PFM holds gray or RGB images, not RGBA");
    int rc = gvis_buf_printf(b, "%s\n%d %d\n-1.0\n", img->channels == 3 ? "PF" : "Pf", img->width, img->height);
    size_t row = (size_t)img->width * img->channels * 4;
    for (int y = img->height - 1; !rc && y >= 0; y--)
        rc = gvis_buf_append(b, GVIS_ROW(img, y), row);
    return rc;
}

int gvis_npy_image_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    gvis_array a;
    memset(&a, 0, sizeof a);
    a.dtype = img->type == GVIS_U8 ? GVIS_DT_U8 : img->type == GVIS_U16 ? GVIS_DT_U16 : GVIS_DT_F32;
    a.ndim = img->channels == 1 ? 2 : 3;
    a.shape[0] = (size_t)img->height;
    a.shape[1] = (size_t)img->width;
    a.shape[2] = (size_t)img->channels;
    size_t row = (size_t)img->width * img->channels * img->type;
    uint8_t *tight = NULL;
    if (img->stride == row) {
        a.data = img->data;
    } else if (!(tight = malloc(row * (size_t)img->height))) {
        return gvis_error(GVIS_E_NOMEM, "out of memory encoding NPY");
    } else {
        for (int y = 0; y < img->height; y++)
            memcpy(tight + (size_t)y * row, GVIS_ROW(img, y), row);
        a.data = tight;
    }
    a.nbytes = row * (size_t)img->height;
    int rc = gvis_npy_encode(&a, b);
    free(tight);
    return rc;
}

int gvis_pgm_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    return encode_pnm(img, GVIS_FMT_PGM, b);
}

int gvis_ppm_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    return encode_pnm(img, GVIS_FMT_PPM, b);
}
