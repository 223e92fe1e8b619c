/* Image decoding: tells the format from the first bytes and hands the file to its codec
 * (codec.c's table), then turns the pixels upright by the EXIF orientation. */
#include "codec.h"

#include <string.h>

gvis_format gvis_sniff_format(const uint8_t *d, size_t len)
{
    if (len >= 2 && d[0] == 'P' && (d[1] == 'F' || d[1] == 'f'))
        return GVIS_FMT_PFM;
    if (len >= 6 && memcmp(d, "\x93NUMPY", 6) == 0)
        return GVIS_FMT_NPY;
    if (len >= 3 && d[0] == 'P' && (d[1] == '5' || d[1] == '6') &&
        (d[2] == ' ' || d[2] == '\n' || d[2] == '\r' || d[2] == '\t' || d[2] == '#'))
        return d[1] == '5' ? GVIS_FMT_PGM : GVIS_FMT_PPM;
    if (len >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0)
        return GVIS_FMT_PNG;
    if (len >= 2 && d[0] == 0xff && d[1] == 0xd8)
        return GVIS_FMT_JPEG;
    if (len >= 4 && (memcmp(d, "II*\0", 4) == 0 || memcmp(d, "MM\0*", 4) == 0 || memcmp(d, "II+\0", 4) == 0 ||
                     memcmp(d, "MM\0+", 4) == 0))
        return GVIS_FMT_TIFF;
    if (len >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0)
        return GVIS_FMT_WEBP;
    if (len >= 2 && d[0] == 'B' && d[1] == 'M')
        return GVIS_FMT_BMP;
    /* stb_image also reads GIF, PSD, PIC and HDR: formats gvis does not offer, and more of
     * stb's parser to expose to untrusted files */
    if (gvis_stb_is_tga(d, len))
        return GVIS_FMT_TGA;
    return GVIS_FMT_NONE;
}

int gvis_image_decode(const uint8_t *data, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    img->data = NULL;
    img->meta = NULL;
    if (len == 0)
        return gvis_error(GVIS_E_FORMAT, "empty file");
    gvis_format f = gvis_sniff_format(data, len);
    const gvis_codec *c = gvis_codec_of(f);
    if (!c)
        return gvis_error(GVIS_E_FORMAT, "not a readable image (unknown format: gvis reads PNG, JPEG, TIFF, WebP, BMP, "
                                         "TGA, PGM/PPM, PFM and NPY)");
    if (!c->decode)
        return gvis_error(GVIS_E_FORMAT, "not a readable image (%s: this gvis was built without %s)", c->label,
                          f == GVIS_FMT_TIFF ? "libtiff (-Dtiff)" : "libwebp (-Dwebp)");
    int rc = c->decode(data, len, o, img);
    if (!rc)
        rc = gvis_apply_orientation(img, o);
    if (rc)
        gvis_image_free(img);
    return rc;
}
