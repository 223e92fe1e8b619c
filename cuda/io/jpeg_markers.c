/* JPEG marker walk for the GPU path (see jpeg_markers.h); the EXIF block is read by the
 * CPU codecs' parser (lib/io/exif.c).  Every length is checked
 * against the buffer; a truncated or malformed header is -1, never a read past the end. */
#include "jpeg_markers.h"

#include <string.h>

#include "codec.h" /* gvis_exif_orientation, lib/io/exif.c */
#include "nvjpeg_abi.h"

static unsigned be16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }

int gvis_jpeg_scan(const uint8_t *p, size_t n, gvis_jpeg_info *info)
{
    memset(info, 0, sizeof *info);
    info->adobe = -1;
    if (n < 4 || p[0] != 0xFF || p[1] != 0xD8)
        return -1;
    size_t i = 2;
    for (;;) {
        if (i >= n || p[i] != 0xFF)
            return -1;
        while (i < n && p[i] == 0xFF) /* fill bytes */
            i++;
        if (i >= n)
            return -1;
        int m = p[i++];
        if ((m >= 0xD0 && m <= 0xD7) || m == 0x01)
            continue; /* no length */
        if (m == 0xD8 || m == 0xD9 || m == 0x00)
            return -1; /* SOI again, EOI before a scan, or a stuffed zero: not a header */
        if (i + 2 > n)
            return -1;
        size_t len = be16(p + i);
        if (len < 2 || i + len > n)
            return -1;
        const uint8_t *s = p + i + 2;
        size_t sl = len - 2;
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (info->sof || sl < 6)
                return -1; /* a second frame header (hierarchical), or short */
            info->sof = m;
            info->progressive = m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE;
            info->arithmetic = m >= 0xC9;
            info->lossless = m == 0xC3 || m == 0xC7 || m == 0xCB || m == 0xCF;
            info->precision = s[0];
            info->height = (int)be16(s + 1);
            info->width = (int)be16(s + 3);
            info->components = s[5];
            if (info->components < 1 || sl < 6 + 3 * (size_t)info->components)
                return -1;
            for (int c = 0; c < info->components && c < 4; c++) {
                info->h[c] = s[6 + 3 * c + 1] >> 4;
                info->v[c] = s[6 + 3 * c + 1] & 15;
                if (info->h[c] < 1 || info->h[c] > 4 || info->v[c] < 1 || info->v[c] > 4)
                    return -1;
            }
        } else if (m == 0xDD) {
            if (sl < 2)
                return -1;
            info->restart = (int)be16(s);
        } else if (m == 0xE1 && sl >= 6 && memcmp(s, "Exif\0\0", 6) == 0) {
            if (!info->orientation)
                info->orientation = gvis_exif_orientation(s + 6, sl - 6, NULL);
        } else if (m == 0xEE && sl >= 12 && memcmp(s, "Adobe", 5) == 0) {
            info->adobe = s[11];
        } else if (m == 0xDA) {
            return info->sof && info->width > 0 && info->height > 0 ? 0 : -1;
        }
        i += len;
    }
}

int gvis_jpeg_css(const gvis_jpeg_info *f)
{
    if (f->components == 1)
        return GVIS_NVJ_CSS_GRAY;
    if (f->components != 3 || f->h[1] != 1 || f->v[1] != 1 || f->h[2] != 1 || f->v[2] != 1)
        return -1;
    int h = f->h[0], v = f->v[0];
    if (h == 1 && v == 1)
        return GVIS_NVJ_CSS_444;
    if (h == 2 && v == 1)
        return GVIS_NVJ_CSS_422;
    if (h == 2 && v == 2)
        return GVIS_NVJ_CSS_420;
    if (h == 1 && v == 2)
        return GVIS_NVJ_CSS_440;
    if (h == 4 && v == 1)
        return GVIS_NVJ_CSS_411;
    if (h == 4 && v == 2)
        return GVIS_NVJ_CSS_410;
    return -1;
}

int gvis_jpeg_gpu_candidate(const gvis_jpeg_info *f)
{
    if (f->sof != 0xC0 && f->sof != 0xC1)
        return 0; /* progressive, lossless, arithmetic: the CPU */
    if (f->precision != 8 || (f->components != 1 && f->components != 3))
        return 0;
    if (f->components == 3 && f->adobe == 0)
        return 0; /* RGB stored as is */
    return gvis_jpeg_css(f) >= 0;
}
