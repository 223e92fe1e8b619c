/* The metadata markers of a JPEG file as gvis_jpeg_encode (libjpeg-turbo) writes them,
 * put around the stream of another encoder (nvJPEG's), so that a JPEG gvis writes holds
 * the same JFIF resolution, EXIF and ICC profile whichever encoder made its pixels. */
#include "codec.h"

#include <string.h>

static int marker(gvis_buf *b, int code, const void *head, size_t head_len, const uint8_t *p, size_t n)
{
    size_t len = 2 + head_len + n; /* the length field counts itself */
    uint8_t m[4] = {0xff, (uint8_t)code, (uint8_t)(len >> 8), (uint8_t)len};
    if (gvis_buf_append(b, m, 4) || gvis_buf_append(b, head, head_len) || (n && gvis_buf_append(b, p, n)))
        return gvis_error(GVIS_E_NOMEM, "out of memory writing JPEG");
    return GVIS_OK;
}

int gvis_jpeg_splice_meta(const uint8_t *s, size_t n, const gvis_meta *m, gvis_buf *b)
{
    if (n < 4 || s[0] != 0xff || s[1] != 0xd8)
        return gvis_error(GVIS_E_FORMAT, "the JPEG encoder's output does not start with SOI");
    size_t at = 2;
    /* the encoder's own JFIF segment gives way to ours (libjpeg's: version 1.01) */
    while (at + 4 <= n && s[at] == 0xff && s[at + 1] == 0xe0) {
        size_t len = (size_t)s[at + 2] << 8 | s[at + 3];
        if (len < 2 || at + 2 + len > n)
            return gvis_error(GVIS_E_FORMAT, "the JPEG encoder's output has a broken APP0 segment");
        at += 2 + len;
    }
    size_t start = b->len;
    uint8_t jfif[14] = {'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0};
    if (m && m->xres > 0 && m->yres > 0 && m->xres < 65535.5 && m->yres < 65535.5) {
        unsigned x = (unsigned)(m->xres + 0.5), y = (unsigned)(m->yres + 0.5);
        jfif[7] = 1; /* dots per inch */
        jfif[8] = (uint8_t)(x >> 8), jfif[9] = (uint8_t)x;
        jfif[10] = (uint8_t)(y >> 8), jfif[11] = (uint8_t)y;
    }
    static const uint8_t soi[2] = {0xff, 0xd8};
    int rc = gvis_buf_append(b, soi, 2) ? gvis_error(GVIS_E_NOMEM, "out of memory writing JPEG")
                                        : marker(b, 0xe0, jfif, sizeof jfif, NULL, 0);
    if (!rc && m && m->exif && m->exif_len <= 65533 - 6)
        rc = marker(b, 0xe1, "Exif\0", 6, m->exif, m->exif_len);
    if (!rc && m && m->icc && m->icc_len > 0 && m->icc_len <= 0x7fffffffu) {
        const size_t chunk = 65533 - 14; /* libjpeg-turbo's jpeg_write_icc_profile */
        size_t count = (m->icc_len + chunk - 1) / chunk;
        for (size_t i = 0, off = 0; !rc && off < m->icc_len; i++, off += chunk) {
            uint8_t head[14] = {'I', 'C', 'C', '_', 'P', 'R', 'O', 'F', 'I', 'L', 'E', 0, (uint8_t)(i + 1),
                                (uint8_t)count};
            size_t k = m->icc_len - off < chunk ? m->icc_len - off : chunk;
            rc = marker(b, 0xe2, head, sizeof head, m->icc + off, k);
        }
    }
    if (!rc && gvis_buf_append(b, s + at, n - at))
        rc = gvis_error(GVIS_E_NOMEM, "out of memory writing JPEG");
    if (rc)
        b->len = start;
    return rc;
}
