/* PNG writing through libpng + zlib.  The default is OpenCV's choice for speed (zlib level 1,
 * the Sub filter on every row, the RLE strategy): a photo then costs what cv2.imwrite costs
 * and comes out the same size.  --png-level N gives zlib level N with libpng's adaptive
 * filter (five filters tried a row) for smaller files at a higher price. */
#ifdef GVIS_HAVE_PNG
#include "codec.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct png_write {
    gvis_buf *b;
    int nomem;
    char msg[200];
    png_bytep *rows;
};

static void write_mem(png_structp p, png_bytep data, size_t n)
{
    struct png_write *s = png_get_io_ptr(p);
    if (gvis_buf_append(s->b, data, n)) {
        s->nomem = 1;
        png_error(p, "out of memory");
    }
}

static void flush_mem(png_structp p) { (void)p; }

static void on_error(png_structp p, png_const_charp msg)
{
    struct png_write *s = png_get_error_ptr(p);
    snprintf(s->msg, sizeof s->msg, "%s", msg);
    png_longjmp(p, 1);
}

static void on_warning(png_structp p, png_const_charp msg) { (void)p, (void)msg; }

int gvis_png_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    size_t rows;
    if (gvis_mul_size((size_t)img->width * img->channels * img->type + 1, (size_t)img->height, &rows) ||
        rows > GVIS_ENCODE_MAX)
        return gvis_too_large("PNG", rows, GVIS_ENCODE_MAX);
    struct png_write s = {b, 0, "", NULL};
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    if (!info) {
        png_destroy_write_struct(&p, NULL);
        return gvis_error(GVIS_E_NOMEM, "out of memory writing PNG");
    }
    int rc = GVIS_OK;
    if (setjmp(png_jmpbuf(p))) {
        rc = s.nomem ? gvis_error(GVIS_E_NOMEM, "out of memory writing PNG")
                     : gvis_error(GVIS_E_FORMAT, "cannot write PNG (%s)", s.msg);
        goto done;
    }
    png_set_write_fn(p, &s, write_mem, flush_mem);
    png_set_benign_errors(p, 1); /* an ICC profile libpng finds odd is dropped, not fatal */
    if (o && o->png_level) {
        png_set_compression_level(p, o->png_level - 1);
    } else {
        png_set_filter(p, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
        png_set_compression_level(p, Z_BEST_SPEED);
        png_set_compression_strategy(p, Z_RLE);
    }
    int ctype = img->channels == 1 ? PNG_COLOR_TYPE_GRAY : img->channels == 3 ? PNG_COLOR_TYPE_RGB
                                                                              : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(p, info, (png_uint_32)img->width, (png_uint_32)img->height, img->type == GVIS_U16 ? 16 : 8, ctype,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    const gvis_meta *m = gvis_meta_to_write(img, o);
    if (m && m->icc && m->icc_len <= 0x7fffffffu)
        png_set_iCCP(p, info, "icc", PNG_COMPRESSION_TYPE_BASE, m->icc, (png_uint_32)m->icc_len);
    if (m && m->exif && m->exif_len <= 0x7fffffffu)
        png_set_eXIf_1(p, info, (png_uint_32)m->exif_len, (png_bytep)m->exif);
    if (m && m->xres > 0 && m->yres > 0)
        png_set_pHYs(p, info, (png_uint_32)(m->xres / 0.0254 + 0.5), (png_uint_32)(m->yres / 0.0254 + 0.5),
                     PNG_RESOLUTION_METER);
    png_write_info(p, info);
    if (img->type == GVIS_U16)
        png_set_swap(p);
    if (!(s.rows = malloc(sizeof *s.rows * (size_t)img->height))) {
        rc = gvis_error(GVIS_E_NOMEM, "out of memory writing PNG");
        goto done;
    }
    for (int y = 0; y < img->height; y++)
        s.rows[y] = GVIS_ROW(img, y);
    png_write_image(p, s.rows);
    png_write_end(p, NULL);
done:
    free(s.rows);
    png_destroy_write_struct(&p, &info);
    return rc;
}
#endif
