/* Stream inputs: told from their first bytes and read no further than their header says.
 *
 * A regular file has a size to check before anything is read; a pipe, a FIFO or a device
 * (/dev/zero, /dev/urandom) has none, and read whole it could fill memory up to the input
 * limit before any decoder looks at it.  So a stream's first bytes are sniffed: a format
 * gvis does not read is refused at once, and a format it reads gives, from its header,
 * the most bytes such a file can have (pixels x depth plus the format's overhead, within
 * --max-pixels; the NPY shape; a small limit for text lists).  The read stops there. */
#include "gvis.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec.h"

#define SNIFF_MORE 1000          /* gvis_sniff_bound: the header is not complete yet */
#define SLACK ((size_t)16 << 20) /* metadata, chunks and trailers beside the pixels */
#define HEADER_MAX ((size_t)16 << 20) /* bytes read in search of a header before giving up */

static size_t add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static size_t mul_sat(size_t a, size_t b)
{
    size_t r;
    return gvis_mul_size(a, b, &r) ? SIZE_MAX : r;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }
static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[1] << 8 | p[0]); }

static int pixels_ok(size_t w, size_t h, size_t max_pixels, const char *label)
{
    size_t px;
    if (!max_pixels)
        max_pixels = GVIS_DEFAULT_MAX_PIXELS;
    if (gvis_mul_size(w, h, &px) || px > max_pixels)
        return gvis_error(GVIS_E_LIMIT, "%s image of %zux%zu pixels is larger than the limit of %zu pixels (--max-pixels)",
                          label, w, h, max_pixels);
    return GVIS_OK;
}

/* PGM/PPM/PFM: "P5 W H MAXVAL" / "PF W H SCALE" with # comments, then one whitespace. */
static int pnm_bound(const uint8_t *d, size_t len, size_t max_pixels, size_t *bound)
{
    size_t v[3] = {0};
    int isf = d[1] == 'F' || d[1] == 'f';
    size_t i = 2;
    for (int k = 0; k < 3; k++) {
        for (;;) {
            if (i >= len)
                return len > 4096 ? gvis_error(GVIS_E_FORMAT, "PNM header too long") : SNIFF_MORE;
            if (d[i] == '#') {
                while (i < len && d[i] != '\n')
                    i++;
                continue;
            }
            if (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n') {
                i++;
                continue;
            }
            break;
        }
        if (isf && k == 2) /* the scale: a float, possibly signed */
            while (i < len && d[i] != ' ' && d[i] != '\t' && d[i] != '\r' && d[i] != '\n')
                i++;
        else {
            if (d[i] < '0' || d[i] > '9')
                return gvis_error(GVIS_E_FORMAT, "bad PNM header");
            while (i < len && d[i] >= '0' && d[i] <= '9') {
                if (v[k] > 100000000)
                    return gvis_error(GVIS_E_FORMAT, "bad PNM header (a size too large)");
                v[k] = v[k] * 10 + (size_t)(d[i++] - '0');
            }
        }
        if (i >= len)
            return SNIFF_MORE;
    }
    int rc = pixels_ok(v[0], v[1], max_pixels, isf ? "PFM" : "PNM");
    if (rc)
        return rc;
    size_t ch = (d[1] == '6' || d[1] == 'F') ? 3 : 1;
    size_t depth = isf ? 4 : v[2] > 255 ? 2 : 1;
    *bound = add_sat(i + 1, mul_sat(mul_sat(v[0], v[1]), ch * depth));
    return GVIS_OK;
}

static int png_bound(const uint8_t *d, size_t len, size_t max_pixels, size_t *bound)
{
    if (len < 33)
        return SNIFF_MORE;
    if (memcmp(d + 12, "IHDR", 4) != 0)
        return gvis_error(GVIS_E_FORMAT, "not a readable PNG (no IHDR chunk first)");
    size_t w = be32(d + 16), h = be32(d + 20), bd = d[24], ct = d[25];
    int rc = pixels_ok(w, h, max_pixels, "PNG");
    if (rc)
        return rc;
    size_t ch = ct == 2 ? 3 : ct == 4 ? 2 : ct == 6 ? 4 : 1;
    size_t row = add_sat(1, (mul_sat(mul_sat(w, ch), bd ? bd : 16) + 7) / 8);
    size_t raw = mul_sat(row, h);
    /* deflate's stored blocks at worst: 5 bytes per 64 KiB, plus chunk headers; Adam7 adds
     * a filter byte per row of each pass */
    *bound = add_sat(add_sat(raw, raw / 8 + mul_sat(h, 8)), SLACK);
    return GVIS_OK;
}

static int jpeg_bound(const uint8_t *d, size_t len, size_t max_pixels, size_t *bound)
{
    size_t i = 2;
    for (;;) {
        if (i + 4 > len)
            return len > HEADER_MAX ? gvis_error(GVIS_E_FORMAT, "no JPEG frame header in the first %zu bytes", HEADER_MAX)
                                    : SNIFF_MORE;
        if (d[i] != 0xff)
            return gvis_error(GVIS_E_FORMAT, "not a readable JPEG (bad marker)");
        uint8_t m = d[i + 1];
        if (m == 0xff) {
            i++;
            continue;
        }
        if (m == 0xd8 || m == 0x01 || (m >= 0xd0 && m <= 0xd7)) {
            i += 2;
            continue;
        }
        size_t seg = be16(d + i + 2);
        if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
            if (i + 10 > len)
                return SNIFF_MORE;
            size_t h = be16(d + i + 5), w = be16(d + i + 7), ch = d[i + 9];
            int rc = pixels_ok(w, h, max_pixels, "JPEG");
            if (rc)
                return rc;
            /* a JPEG is at worst a few times its pixels (quality 100 on noise, progressive
             * scans); metadata after the frame header is rare and small */
            *bound = add_sat(add_sat(i, mul_sat(mul_sat(mul_sat(w, h), ch ? ch : 1), 4)), SLACK);
            return GVIS_OK;
        }
        if (m == 0xda || seg < 2)
            return gvis_error(GVIS_E_FORMAT, "not a readable JPEG (no frame header before the data)");
        i += 2 + seg;
    }
}

static int tiff_bound(const uint8_t *d, size_t len, size_t max_pixels, size_t *bound)
{
    /* The first directory may lie anywhere, often at the end: where it is near, its sizes
     * bound the file; else the pixel limit at the widest sample (4 channels of float32). */
    size_t generic = add_sat(mul_sat(max_pixels ? max_pixels : GVIS_DEFAULT_MAX_PIXELS, 16 + 2), SLACK);
    int le = d[0] == 'I';
    if (d[2] == 43 || d[3] == 43) { /* BigTIFF */
        *bound = generic;
        return GVIS_OK;
    }
    if (len < 8)
        return SNIFF_MORE;
    size_t off = le ? le32(d + 4) : be32(d + 4);
    if (off > HEADER_MAX) {
        *bound = generic;
        return GVIS_OK;
    }
    if (off + 2 > len)
        return SNIFF_MORE;
    size_t n = le ? le16(d + off) : be16(d + off);
    if (off + 2 + 12 * n > len)
        return off + 2 + 12 * n > HEADER_MAX + 65536 ? gvis_error(GVIS_E_FORMAT, "bad TIFF directory") : SNIFF_MORE;
    size_t w = 0, h = 0, spp = 1, bps = 8;
    for (size_t k = 0; k < n; k++) {
        const uint8_t *e = d + off + 2 + 12 * k;
        unsigned tag = le ? le16(e) : be16(e), type = le ? le16(e + 2) : be16(e + 2);
        size_t val = type == 3 ? (le ? le16(e + 8) : be16(e + 8)) : (le ? le32(e + 8) : be32(e + 8));
        if (tag == 256) w = val;
        else if (tag == 257) h = val;
        else if (tag == 277) spp = val;
        else if (tag == 258 && (le ? le32(e + 4) : be32(e + 4)) == 1) bps = val;
    }
    if (!w || !h) {
        *bound = generic;
        return GVIS_OK;
    }
    int rc = pixels_ok(w, h, max_pixels, "TIFF");
    if (rc)
        return rc;
    if (spp < 1 || spp > 16)
        spp = 16;
    if (bps < 1 || bps > 64)
        bps = 64;
    /* LZW can grow noise by about a half; further pages are not read */
    size_t raw = mul_sat(mul_sat(w, h), (spp * bps + 7) / 8);
    *bound = add_sat(add_sat(raw, raw), add_sat(off, SLACK));
    return GVIS_OK;
}

static int bmp_bound(const uint8_t *d, size_t len, size_t max_pixels, size_t *bound)
{
    if (len < 30)
        return SNIFF_MORE;
    int32_t w = (int32_t)le32(d + 18), h = (int32_t)le32(d + 22);
    size_t bpp = le16(d + 28);
    if (le32(d + 14) < 40) { /* OS/2 core header: 16-bit sizes */
        w = le16(d + 18);
        h = le16(d + 20);
        bpp = le16(d + 24);
    }
    size_t aw = w < 0 ? (size_t)-(int64_t)w : (size_t)w, ah = h < 0 ? (size_t)-(int64_t)h : (size_t)h;
    int rc = pixels_ok(aw, ah, max_pixels, "BMP");
    if (rc)
        return rc;
    if (bpp < 1 || bpp > 32)
        bpp = 32;
    size_t row = (mul_sat(aw, bpp) + 31) / 32 * 4;
    *bound = add_sat(add_sat(le32(d + 10), mul_sat(row, ah)), (size_t)1 << 20);
    return GVIS_OK;
}

static int tga_bound(const uint8_t *d, size_t len, size_t max_pixels, size_t *bound)
{
    (void)len;
    size_t w = le16(d + 12), h = le16(d + 14), bpp = d[16];
    int rc = pixels_ok(w, h, max_pixels, "TGA");
    if (rc)
        return rc;
    size_t cmap = (size_t)le16(d + 5) * ((d[7] + 7u) / 8u);
    size_t raw = mul_sat(mul_sat(w, h), (bpp + 7) / 8 ? (bpp + 7) / 8 : 4);
    /* run-length packets: one header byte per pixel at worst */
    *bound = add_sat(add_sat(18 + (size_t)d[0] + cmap, add_sat(raw, mul_sat(w, h))), (size_t)1 << 20);
    return GVIS_OK;
}

static int npy_bound(const uint8_t *d, size_t len, size_t max_pixels, size_t *bound)
{
    if (len < 12)
        return SNIFF_MORE;
    size_t hlen, hstart;
    if (d[6] == 1)
        hlen = le16(d + 8), hstart = 10;
    else if (d[6] == 2 || d[6] == 3)
        hlen = le32(d + 8), hstart = 12;
    else
        return gvis_error(GVIS_E_FORMAT, "unsupported NPY version %d", d[6]);
    if (hlen > 1 << 20)
        return gvis_error(GVIS_E_FORMAT, "bad NPY header (%zu bytes)", hlen);
    if (hstart + hlen > len)
        return SNIFF_MORE;
    char h[1 << 12];
    size_t n = hlen < sizeof h - 1 ? hlen : sizeof h - 1;
    memcpy(h, d + hstart, n);
    h[n] = 0;
    const char *p = strstr(h, "descr");
    size_t item = 0;
    if (p && (p = strchr(p, ':')) && (p = strpbrk(p, "'\"")) && (p = strpbrk(p + 1, "'\""))) {
        /* the item size ends the type string: '<f4' */
        const char *q = p - 1;
        while (q > h && *q >= '0' && *q <= '9')
            q--;
        item = (size_t)strtoul(q + 1, NULL, 10);
    }
    p = strstr(h, "shape");
    if (!item || item > 16 || !p || !(p = strchr(p, '(')))
        return gvis_error(GVIS_E_FORMAT, "bad NPY header");
    size_t count = 1;
    for (p++;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == ')')
            break;
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || *p == '-')
            return gvis_error(GVIS_E_FORMAT, "bad NPY shape");
        count = mul_sat(count, (size_t)v);
        p = end;
    }
    /* an array holds at most as many elements as an image holds samples (4 a pixel) */
    size_t max = mul_sat(max_pixels ? max_pixels : GVIS_DEFAULT_MAX_PIXELS, 4);
    if (count > max)
        return gvis_error(GVIS_E_LIMIT, "NPY array of %zu elements is larger than the limit of %zu (--max-pixels)",
                          count, max);
    /* exact: data after the array is refused by the decoder, and here by the read */
    *bound = add_sat(hstart + hlen, mul_sat(count, item));
    return GVIS_OK;
}

int gvis_sniff_bound(const uint8_t *d, size_t len, gvis_input_kind kind, size_t max_pixels, size_t *bound)
{
    *bound = 0;
    if (len == 0)
        return SNIFF_MORE;
    if (kind == GVIS_IN_TEXT) {
        const uint8_t *z = memchr(d, 0, len);
        if (z)
            return gvis_error(GVIS_E_FORMAT, "not a text file (a NUL byte at offset %zu)", (size_t)(z - d));
        *bound = SIZE_MAX; /* the caller's limit */
        return GVIS_OK;
    }
    if (kind == GVIS_IN_RAW) {
        *bound = SIZE_MAX;
        return GVIS_OK;
    }
    /* each magic number as soon as its bytes are there */
    if (len >= 6 && memcmp(d, "\x93NUMPY", 6) == 0)
        return npy_bound(d, len, max_pixels, bound);
    if (kind == GVIS_IN_NPY)
        return len < 6 && memcmp(d, "\x93NUMPY", len) == 0 ? SNIFF_MORE : gvis_error(GVIS_E_FORMAT, "not an NPY file");
    if (len >= 2 && d[0] == 'P' && (d[1] == 'F' || d[1] == 'f' || d[1] == '5' || d[1] == '6'))
        return pnm_bound(d, len, max_pixels, bound);
    if (len >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0)
        return png_bound(d, len, max_pixels, bound);
    if (len >= 2 && d[0] == 0xff && d[1] == 0xd8)
        return jpeg_bound(d, len, max_pixels, bound);
    if (len >= 4 && (memcmp(d, "II*\0", 4) == 0 || memcmp(d, "MM\0*", 4) == 0 || memcmp(d, "II+\0", 4) == 0 ||
                     memcmp(d, "MM\0+", 4) == 0))
        return tiff_bound(d, len, max_pixels, bound);
    if (len >= 2 && d[0] == 'B' && d[1] == 'M')
        return bmp_bound(d, len, max_pixels, bound);
    /* a longer magic number (PNG, WebP) may still come, or a TGA header (18 bytes) */
    if (len < 18)
        return SNIFF_MORE;
    if (memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0) {
        size_t riff = le32(d + 4);
        if (riff > mul_sat(max_pixels ? max_pixels : GVIS_DEFAULT_MAX_PIXELS, 4))
            return gvis_error(GVIS_E_LIMIT, "WebP file of %zu bytes is larger than the pixel limit allows", riff);
        *bound = riff + 8;
        return GVIS_OK;
    }
    if (gvis_stb_is_tga(d, len))
        return tga_bound(d, len, max_pixels, bound);
    return gvis_error(GVIS_E_FORMAT, "not a readable image (unknown format: gvis reads PNG, JPEG, TIFF, WebP, BMP, "
                                     "TGA, PGM/PPM, PFM and NPY)");
}

/* strerror() in the lower case gvis messages use. */
static const char *errtext(int e)
{
    static _Thread_local char t[128];
    snprintf(t, sizeof t, "%s", strerror(e));
    if (t[0] >= 'A' && t[0] <= 'Z' && (t[1] < 'A' || t[1] > 'Z'))
        t[0] = (char)(t[0] - 'A' + 'a');
    return t;
}

static int read_stream(int fd, gvis_buf *b, gvis_input_kind kind, size_t max_bytes, size_t max_pixels)
{
    size_t bound = 0; /* 0: not known yet */
    size_t checked = 0; /* text: bytes already searched for NUL */
    for (;;) {
        /* small reads until the header is known, then large ones up to the bound */
        size_t want = bound ? 1 << 20 : 4096;
        if (gvis_buf_reserve(b, want + 1))
            return gvis_error(GVIS_E_NOMEM, "out of memory");
        ssize_t n = read(fd, b->data + b->len, want);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return gvis_error(GVIS_E_IO, "read error: %s", errtext(errno));
        }
        if (n == 0)
            break;
        b->len += (size_t)n;
        if (kind == GVIS_IN_TEXT && b->len > checked) {
            const uint8_t *z = memchr(b->data + checked, 0, b->len - checked);
            if (z)
                return gvis_error(GVIS_E_FORMAT, "not a text file (a NUL byte at offset %zu)", (size_t)(z - b->data));
            checked = b->len;
        }
        if (!bound) {
            size_t bd;
            int rc = gvis_sniff_bound(b->data, b->len, kind, max_pixels, &bd);
            if (rc == GVIS_OK)
                bound = bd ? bd : 1;
            else if (rc != SNIFF_MORE)
                return rc;
        }
        if (bound && b->len > bound)
            return gvis_error(GVIS_E_FORMAT, "stream goes on past the %zu bytes its header allows", bound);
        if (max_bytes && b->len > max_bytes)
            return gvis_error(GVIS_E_LIMIT, "input is larger than the limit of %zu bytes", max_bytes);
    }
    b->data[b->len] = 0;
    return GVIS_OK;
}

int gvis_read_input(const char *path, gvis_input_kind kind, size_t max_bytes, size_t max_pixels, gvis_buf *b)
{
    int is_stdin = strcmp(path, "-") == 0;
    struct stat st;
    if (!is_stdin && stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
        return gvis_read_file(path, b, max_bytes);
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gvis_error(GVIS_E_IO, "cannot open: %s", errtext(errno));
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) { /* standard input from a file */
        if (!is_stdin)
            close(fd);
        return gvis_read_file(path, b, max_bytes);
    }
    int rc = read_stream(fd, b, kind, max_bytes, max_pixels);
    if (!is_stdin)
        close(fd);
    if (rc)
        gvis_buf_free(b);
    else if (b->len == 0 && is_stdin)
        rc = gvis_error(GVIS_E_FORMAT, "empty input: the pipe gave no bytes (did the command before it fail?)");
    return rc;
}
