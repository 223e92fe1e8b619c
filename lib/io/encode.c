/* Image encoding: the one entry point every image file gvis writes comes through (gvis_save
 * and the output-set writer alike), so that each codec writes the image's metadata. */
#include "codec.h"

int gvis_image_encode(const gvis_image *img, gvis_format f, const gvis_io_opts *o, gvis_buf *b)
{
    const gvis_codec *c = gvis_codec_of(f);
    if (!c) {
        const char *fname = gvis_format_name(f);
        return gvis_error(GVIS_E_FORMAT, "cannot write images as '%s'", *fname ? fname : "an unknown format");
    }
    if (!c->encode)
        return gvis_error(GVIS_E_FORMAT, "cannot write %s: this gvis was built without %s", c->label,
                          f == GVIS_FMT_TIFF ? "libtiff (-Dtiff)" : "libwebp (-Dwebp)");
    switch (f) {
    case GVIS_FMT_PFM:
        if (img->type != GVIS_F32)
            return gvis_error(GVIS_E_FORMAT, "PFM holds float images; this one is %s", gvis_type_name(img->type));
        break;
    case GVIS_FMT_PGM:
    case GVIS_FMT_PPM:
        if (img->type == GVIS_F32)
            return gvis_error(GVIS_E_FORMAT, "%s holds 8- or 16-bit images; write .pfm, .tif or .npy for float",
                              f == GVIS_FMT_PGM ? "PGM" : "PPM");
        break;
    case GVIS_FMT_PNG:
        if (img->type == GVIS_F32)
            return gvis_error(GVIS_E_FORMAT, "PNG holds 8- or 16-bit images; write .pfm, .tif or .npy for float");
        break;
    case GVIS_FMT_JPEG:
    case GVIS_FMT_WEBP:
    case GVIS_FMT_BMP:
    case GVIS_FMT_TGA:
        if (img->type != GVIS_U8)
            return gvis_error(GVIS_E_FORMAT, "%s holds 8-bit images; this one is %s (write .png, .tif, .pgm/.ppm or .pfm)",
                              c->label, gvis_type_name(img->type));
        break;
    default:
        break;
    }
    /* the compressing encoders build the file in memory and count in int here and there:
     * 2 GiB of pixel rows at most (PGM/PPM, PFM and NPY are copies and take any size) */
    size_t rows = SIZE_MAX;
    if (f != GVIS_FMT_PGM && f != GVIS_FMT_PPM && f != GVIS_FMT_PFM && f != GVIS_FMT_NPY &&
        (gvis_image_bytes((size_t)img->width, (size_t)img->height, (size_t)img->channels, img->type, &rows) ||
         rows > GVIS_ENCODE_MAX))
        return gvis_too_large(c->label, rows, GVIS_ENCODE_MAX);
    size_t start = b->len;
    int rc = c->encode(img, o, b);
    if (rc)
        b->len = start;
    return rc;
}
