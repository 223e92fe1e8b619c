/* PNG reading through libpng: 1, 2, 4, 8 and 16 bit, gray, gray+alpha (widened to RGBA),
 * RGB, RGBA, palette (expanded, with tRNS as alpha), interlaced.  libpng reports errors by
 * longjmp: every resource the jump can skip is reachable from struct png_read, and nothing
 * of gvis's own lies between setjmp and the libpng calls. */
#ifdef GVIS_HAVE_PNG
#include "codec.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gvis_png_version(void)
{
    return png_get_libpng_ver(NULL);
}

struct png_read {
    const uint8_t *d;
    size_t len, pos;
    char msg[200];
    png_bytep *rows;
};

static void read_mem(png_structp p, png_bytep out, size_t n)
{
    struct png_read *s = png_get_io_ptr(p);
    if (n > s->len - s->pos)
        png_error(p, "the file ends before its IEND chunk");
    memcpy(out, s->d + s->pos, n);
    s->pos += n;
}

static void on_error(png_structp p, png_const_charp msg)
{
    struct png_read *s = png_get_error_ptr(p);
    snprintf(s->msg, sizeof s->msg, "%s", msg);
    png_longjmp(p, 1);
}

static void on_warning(png_structp p, png_const_charp msg) { (void)p, (void)msg; }

static int read_meta(png_structp p, png_infop info, gvis_image *img)
{
    png_charp name;
    int comp;
    png_bytep prof;
    png_uint_32 plen;
    png_bytep exif;
    png_uint_32 elen;
    png_uint_32 rx, ry;
    int unit, rc = GVIS_OK;
    int has_icc = png_get_iCCP(p, info, &name, &comp, &prof, &plen) && plen;
    int has_exif = png_get_eXIf_1(p, info, &elen, &exif) && elen;
    int has_res = png_get_pHYs(p, info, &rx, &ry, &unit) && unit == PNG_RESOLUTION_METER && rx && ry;
    if (!has_icc && !has_exif && !has_res)
        return GVIS_OK;
    gvis_meta *m = gvis_meta_of(img);
    if (!m)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    if (has_icc)
        rc = gvis_meta_set_icc(m, prof, plen);
    if (!rc && has_exif)
        rc = gvis_meta_set_exif(m, exif, elen);
    if (has_res) {
        m->xres = rx * 0.0254;
        m->yres = ry * 0.0254;
    }
    return rc;
}

int gvis_png_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    struct png_read s = {d, len, 0, "", NULL};
    png_structp p = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    if (!info) {
        png_destroy_read_struct(&p, NULL, NULL);
        return gvis_error(GVIS_E_NOMEM, "out of memory reading PNG");
    }
    int rc = GVIS_OK;
    /* the size first, from the IHDR as it stands: a clear limit message before libpng's
     * checks (CRC) and before any allocation */
    if (len >= 24 && (rc = gvis_check_size((size_t)d[16] << 24 | (size_t)d[17] << 16 | (size_t)d[18] << 8 | d[19],
                                           (size_t)d[20] << 24 | (size_t)d[21] << 16 | (size_t)d[22] << 8 | d[23], o)) ==
                         GVIS_E_LIMIT)
        goto done;
    rc = GVIS_OK;
    if (setjmp(png_jmpbuf(p))) {
        if (strcmp(s.msg, "the file ends before its IEND chunk") == 0)
            rc = gvis_error(GVIS_E_FORMAT, "truncated PNG file (%s)", s.msg);
        else
            rc = gvis_error(GVIS_E_FORMAT, "corrupt or truncated PNG (%s)", s.msg);
        goto done;
    }
    /* gvis's --max-pixels is the bound, not libpng's default of a million a side */
    png_set_user_limits(p, 0x7fffffff, 0x7fffffff);
    png_set_read_fn(p, &s, read_mem);
    png_read_info(p, info);
    png_uint_32 w = png_get_image_width(p, info), h = png_get_image_height(p, info);
    if ((rc = gvis_check_size(w, h, o)))
        goto done;
    int depth = png_get_bit_depth(p, info), ctype = png_get_color_type(p, info);
    if (ctype == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(p);
    if (ctype == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(p);
    int trns = png_get_valid(p, info, PNG_INFO_tRNS) != 0;
    if (trns)
        png_set_tRNS_to_alpha(p);
    /* gray+alpha widens to RGBA, as stb_image gives it */
    if (ctype == PNG_COLOR_TYPE_GRAY_ALPHA || (ctype == PNG_COLOR_TYPE_GRAY && trns))
        png_set_gray_to_rgb(p);
    if (depth == 16)
        png_set_swap(p); /* PNG is big-endian; gvis holds native (little-endian) samples */
    png_set_interlace_handling(p);
    png_read_update_info(p, info);
    int channels = png_get_channels(p, info);
    if (channels != 1 && channels != 3 && channels != 4) {
        rc = gvis_error(GVIS_E_FORMAT, "PNG of %d channels", channels);
        goto done;
    }
    if ((rc = gvis_image_alloc(img, (int)w, (int)h, channels, depth == 16 ? GVIS_U16 : GVIS_U8, 0)))
        goto done;
    if (!(s.rows = malloc(sizeof *s.rows * h))) {
        rc = gvis_error(GVIS_E_NOMEM, "out of memory reading PNG");
        goto done;
    }
    for (png_uint_32 y = 0; y < h; y++)
        s.rows[y] = GVIS_ROW(img, y);
    png_read_image(p, s.rows);
    /* the rest of the file up to IEND: a file cut short after its pixels is refused too,
     * and an eXIf chunk may stand after the image data */
    png_read_end(p, info);
    rc = read_meta(p, info, img);
done:
    free(s.rows);
    png_destroy_read_struct(&p, &info, NULL);
    if (rc)
        gvis_image_free(img);
    return rc;
}
#endif
