#include "gvis.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local struct {
    void *p;
    size_t size;
    int taken;
} lend;

void gvis_image_lend(void *p, size_t size)
{
    lend.p = p;
    lend.size = p ? size : 0;
    lend.taken = 0;
}

int gvis_image_lent_taken(void) { return lend.p && lend.taken; }

int gvis_image_alloc(gvis_image *img, int width, int height, int channels, gvis_type type, size_t align)
{
    img->data = NULL;
    img->meta = NULL;
    if (width <= 0 || height <= 0)
        return gvis_error(GVIS_E_ARG, "image size %dx%d is empty", width, height);
    if (channels != 1 && channels != 3 && channels != 4)
        return gvis_error(GVIS_E_ARG, "%d channels (1, 3 or 4 expected)", channels);
    if (type != GVIS_U8 && type != GVIS_U16 && type != GVIS_F32)
        return gvis_error(GVIS_E_ARG, "unknown sample type");
    size_t row, total;
    int rc = gvis_image_bytes((size_t)width, 1, (size_t)channels, (size_t)type, &row);
    if (rc)
        return rc;
    if (align > 1) {
        if (row > SIZE_MAX - align)
            return gvis_error(GVIS_E_LIMIT, "image row overflows");
        row = (row + align - 1) / align * align;
    }
    if (gvis_mul_size(row, (size_t)height, &total))
        return gvis_error(GVIS_E_LIMIT, "image size %dx%d overflows", width, height);
    /* 64-byte alignment: whole cache lines and aligned vector loads. */
    size_t alloc = (total + 63) / 64 * 64;
    if (alloc < total)
        return gvis_error(GVIS_E_LIMIT, "image size overflows");
    void *p;
    if (lend.p && !lend.taken && alloc <= lend.size) {
        p = lend.p;
        lend.taken = 1;
    } else {
        p = aligned_alloc(64, alloc);
    }
    if (!p)
        return gvis_error(GVIS_E_NOMEM, "out of memory allocating a %dx%d image (%zu bytes)", width, height, total);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->type = type;
    img->stride = row;
    img->data = p;
    return GVIS_OK;
}

void gvis_image_free(gvis_image *img)
{
    if (!img)
        return;
    if (img->data && img->data == lend.p)
        lend.taken = 0; /* the lender's buffer: back to it */
    else
        free(img->data);
    img->data = NULL;
    gvis_meta_free(img->meta);
    img->meta = NULL;
}

void gvis_meta_free(gvis_meta *m)
{
    if (!m)
        return;
    free(m->exif);
    free(m->icc);
    free(m);
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    if (c && n)
        memcpy(c, p, n);
    return c;
}

int gvis_image_copy_meta(gvis_image *dst, const gvis_image *src)
{
    if (dst == src)
        return GVIS_OK;
    gvis_meta_free(dst->meta);
    dst->meta = NULL;
    if (!src || !src->meta)
        return GVIS_OK;
    gvis_meta *m = calloc(1, sizeof *m);
    if (!m)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    *m = *src->meta;
    m->exif = m->icc = NULL;
    if ((src->meta->exif && !(m->exif = dup_bytes(src->meta->exif, src->meta->exif_len))) ||
        (src->meta->icc && !(m->icc = dup_bytes(src->meta->icc, src->meta->icc_len)))) {
        gvis_meta_free(m);
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    }
    dst->meta = m;
    return GVIS_OK;
}

const char *gvis_type_name(gvis_type t)
{
    switch (t) {
    case GVIS_U8: return "u8";
    case GVIS_U16: return "u16";
    case GVIS_F32: return "f32";
    }
    return "?";
}
