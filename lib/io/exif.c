/* Metadata shared by the codecs: the EXIF block (kept whole, its orientation read and, after
 * turning the pixels upright, rewritten to 1), the ICC profile and the resolution. */
#include "codec.h"

#include <stdlib.h>
#include <string.h>

gvis_meta *gvis_meta_of(gvis_image *img)
{
    if (!img->meta)
        img->meta = calloc(1, sizeof *img->meta);
    return img->meta;
}

static unsigned rd16(const uint8_t *p, int be) { return be ? (unsigned)(p[0] << 8 | p[1]) : (unsigned)(p[1] << 8 | p[0]); }
static uint32_t rd32(const uint8_t *p, int be)
{
    return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
              : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

int gvis_exif_orientation(const uint8_t *p, size_t n, size_t *at)
{
    if (n < 8)
        return 0;
    int be;
    if (memcmp(p, "II*\0", 4) == 0)
        be = 0;
    else if (memcmp(p, "MM\0*", 4) == 0)
        be = 1;
    else
        return 0;
    uint32_t ifd = rd32(p + 4, be);
    if (ifd < 8 || ifd > n - 2)
        return 0;
    unsigned count = rd16(p + ifd, be);
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n)
            return 0;
        if (rd16(p + e, be) != 0x0112)
            continue;
        /* SHORT, count 1: the value sits in the first two bytes of the value field */
        if (rd16(p + e + 2, be) != 3 || rd32(p + e + 4, be) != 1)
            return 0;
        unsigned v = rd16(p + e + 8, be);
        if (v < 1 || v > 8)
            return 0;
        if (at)
            *at = e + 8;
        return (int)v;
    }
    return 0;
}

/* IFD0's XResolution and YResolution (RATIONAL) in dots per inch (ResolutionUnit 2, the
 * default, or 3: centimetres); 0 when absent, unitless or out of range. */
static int exif_resolution(const uint8_t *p, size_t n, double *xres, double *yres)
{
    int be = p[0] == 'M';
    uint32_t ifd = rd32(p + 4, be);
    if (ifd < 8 || ifd > n - 2)
        return 0;
    unsigned count = rd16(p + ifd, be), unit = 2;
    double r[2] = {0, 0};
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n)
            return 0;
        unsigned tag = rd16(p + e, be), type = rd16(p + e + 2, be);
        if (tag == 0x0128 && type == 3)
            unit = rd16(p + e + 8, be);
        if ((tag == 0x011A || tag == 0x011B) && type == 5 && rd32(p + e + 4, be) == 1) {
            uint32_t at = rd32(p + e + 8, be);
            if (at > n || n - at < 8)
                return 0;
            uint32_t num = rd32(p + at, be), den = rd32(p + at + 4, be);
            r[tag - 0x011A] = den ? (double)num / den : 0;
        }
    }
    if ((unit != 2 && unit != 3) || !(r[0] > 0 && r[0] < 1e6 && r[1] > 0 && r[1] < 1e6))
        return 0;
    *xres = r[0] * (unit == 3 ? 2.54 : 1.0);
    *yres = r[1] * (unit == 3 ? 2.54 : 1.0);
    return 1;
}

int gvis_meta_set_exif(gvis_meta *m, const uint8_t *p, size_t n)
{
    if (n >= 6 && memcmp(p, "Exif\0\0", 6) == 0)
        p += 6, n -= 6;
    if (n < 8 || (memcmp(p, "II*\0", 4) && memcmp(p, "MM\0*", 4)))
        return GVIS_OK;
    uint8_t *c = malloc(n);
    if (!c)
        return gvis_error(GVIS_E_NOMEM, "out of memory reading EXIF");
    memcpy(c, p, n);
    free(m->exif);
    m->exif = c;
    m->exif_len = n;
    m->orientation = gvis_exif_orientation(c, n, NULL);
    /* a camera's resolution lives here when the file has no JFIF density, pHYs or TIFF tag
     * (which the decoders read after this and which win) */
    if (!(m->xres > 0 && m->yres > 0))
        exif_resolution(c, n, &m->xres, &m->yres);
    return GVIS_OK;
}

int gvis_meta_set_icc(gvis_meta *m, const uint8_t *p, size_t n)
{
    if (!n)
        return GVIS_OK;
    uint8_t *c = malloc(n);
    if (!c)
        return gvis_error(GVIS_E_NOMEM, "out of memory reading an ICC profile");
    memcpy(c, p, n);
    free(m->icc);
    m->icc = c;
    m->icc_len = n;
    return GVIS_OK;
}

const gvis_meta *gvis_meta_to_write(const gvis_image *img, const gvis_io_opts *o)
{
    if ((o && o->strip) || !img->meta)
        return NULL;
    return img->meta;
}

/* Source pixel of output (x, y) for each orientation (EXIF 2..8), out being w x h. */
static void source_of(int orient, int x, int y, int sw, int sh, int *sx, int *sy)
{
    switch (orient) {
    case 2: *sx = sw - 1 - x, *sy = y; break;           /* mirrored */
    case 3: *sx = sw - 1 - x, *sy = sh - 1 - y; break;  /* turned 180 */
    case 4: *sx = x, *sy = sh - 1 - y; break;           /* flipped */
    case 5: *sx = y, *sy = x; break;                    /* transposed */
    case 6: *sx = y, *sy = sh - 1 - x; break;           /* stored turned 90 left: turn right */
    case 7: *sx = sw - 1 - y, *sy = sh - 1 - x; break;  /* transverse */
    default: *sx = sw - 1 - y, *sy = x; break;          /* 8: stored turned 90 right: turn left */
    }
}

struct orient_job {
    const gvis_image *src;
    gvis_image *dst;
    int orient;
};

static void orient_rows(void *arg, int index, int count)
{
    struct orient_job *j = arg;
    size_t y0, y1, px = (size_t)j->src->channels * j->src->type;
    gvis_split((size_t)j->dst->height, index, count, &y0, &y1);
    for (size_t y = y0; y < y1; y++) {
        uint8_t *d = GVIS_ROW(j->dst, y);
        int sx0, sy0, sx1, sy1;
        source_of(j->orient, 0, (int)y, j->src->width, j->src->height, &sx0, &sy0);
        if (j->dst->width > 1) {
            source_of(j->orient, 1, (int)y, j->src->width, j->src->height, &sx1, &sy1);
        } else {
            sx1 = sx0, sy1 = sy0;
        }
        /* along an output row the source moves by a fixed step */
        ptrdiff_t step = (ptrdiff_t)(sy1 - sy0) * (ptrdiff_t)j->src->stride + (ptrdiff_t)(sx1 - sx0) * (ptrdiff_t)px;
        const uint8_t *s = (const uint8_t *)GVIS_ROW(j->src, sy0) + (size_t)sx0 * px;
        for (int x = 0; x < j->dst->width; x++, s += step, d += px)
            memcpy(d, s, px);
    }
}

int gvis_apply_orientation(gvis_image *img, const gvis_io_opts *o)
{
    gvis_meta *m = img->meta;
    if (!m || m->orientation < 2 || m->orientation > 8 || (o && o->no_autorotate))
        return GVIS_OK;
    int swap = m->orientation >= 5;
    gvis_image dst;
    int rc = gvis_image_alloc(&dst, swap ? img->height : img->width, swap ? img->width : img->height, img->channels,
                              img->type, 0);
    if (rc)
        return rc;
    struct orient_job j = {img, &dst, m->orientation};
    gvis_parallel(gvis_threads(), orient_rows, &j);
    gvis_image old = *img; /* its pixels only (a lent buffer goes back: gvis_image_lend) */
    old.meta = NULL;
    gvis_image_free(&old);
    img->width = dst.width;
    img->height = dst.height;
    img->stride = dst.stride;
    img->data = dst.data;
    gvis_meta_mark_upright(m);
    return GVIS_OK;
}

void gvis_meta_mark_upright(gvis_meta *m)
{
    if (m->orientation >= 5 && m->orientation <= 8) {
        double t = m->xres;
        m->xres = m->yres;
        m->yres = t;
    }
    m->orientation = 1;
    size_t at;
    if (m->exif && gvis_exif_orientation(m->exif, m->exif_len, &at)) {
        int be = m->exif[0] == 'M';
        m->exif[at] = be ? 0 : 1;
        m->exif[at + 1] = be ? 1 : 0;
    }
}
