/* WebP through libwebp: lossy and lossless, RGB and RGBA (gray is written as RGB).  The
 * ICC profile and EXIF come from the file's chunks (VP8X layout) and go back through
 * libwebpmux when this build has it.  Animated files are refused. */
#ifdef GVIS_HAVE_WEBP
#include "codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/encode.h>
#ifdef GVIS_HAVE_WEBPMUX
#include <webp/mux.h>
#endif

const char *gvis_webp_version(void)
{
    static char v[16];
    int n = WebPGetDecoderVersion();
    if (!v[0])
        snprintf(v, sizeof v, "%d.%d.%d", n >> 16, (n >> 8) & 255, n & 255);
    return v;
}

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* The ICCP and EXIF chunks of an extended (VP8X) file. */
static int read_meta(const uint8_t *d, size_t len, gvis_image *img)
{
    int rc = GVIS_OK;
    for (size_t pos = 12; rc == GVIS_OK && pos + 8 <= len;) {
        size_t n = le32(d + pos + 4);
        if (n > len - pos - 8)
            break;
        int icc = memcmp(d + pos, "ICCP", 4) == 0, exif = memcmp(d + pos, "EXIF", 4) == 0;
        if ((icc || exif) && n) {
            gvis_meta *m = gvis_meta_of(img);
            if (!m)
                return gvis_error(GVIS_E_NOMEM, "out of memory");
            rc = icc ? gvis_meta_set_icc(m, d + pos + 8, n) : gvis_meta_set_exif(m, d + pos + 8, n);
        }
        pos += 8 + n + (n & 1);
    }
    return rc;
}

int gvis_webp_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    /* the RIFF size is what a stream is read to (lib/io/sniff.c): a file decodes from the
     * same bytes, so the two agree (libwebp may read a lying VP8 chunk past it;
     * fuzz_sniff found one) */
    if (len >= 12) {
        size_t riff = (size_t)d[4] | (size_t)d[5] << 8 | (size_t)d[6] << 16 | (size_t)d[7] << 24;
        if (riff <= len - 8)
            len = riff + 8;
    }
    WebPBitstreamFeatures f;
    if (WebPGetFeatures(d, len, &f) != VP8_STATUS_OK)
        return gvis_error(GVIS_E_FORMAT, "corrupt or truncated WebP (bad header)");
    if (f.has_animation)
        return gvis_error(GVIS_E_FORMAT, "animated WebP: gvis reads still images only");
    int rc = gvis_check_size((size_t)f.width, (size_t)f.height, o);
    if (!rc)
        rc = gvis_image_alloc(img, f.width, f.height, f.has_alpha ? 4 : 3, GVIS_U8, 0);
    if (rc)
        return rc;
    size_t size = img->stride * (size_t)img->height;
    uint8_t *ok = f.has_alpha ? WebPDecodeRGBAInto(d, len, img->data, size, (int)img->stride)
                              : WebPDecodeRGBInto(d, len, img->data, size, (int)img->stride);
    if (!ok)
        rc = gvis_error(GVIS_E_FORMAT, "corrupt or truncated WebP");
    if (!rc)
        rc = read_meta(d, len, img);
    if (rc)
        gvis_image_free(img);
    return rc;
}

static int writer(const uint8_t *data, size_t n, const WebPPicture *pic)
{
    return gvis_buf_append(pic->custom_ptr, data, n) == GVIS_OK;
}

static const char *picture_error(WebPEncodingError e)
{
    switch (e) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "WebP takes at most 16383 pixels a side";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "file larger than 4 GiB";
    case VP8_ENC_ERROR_BAD_WRITE: return "out of memory";
    default: return "libwebp failed";
    }
}

int gvis_webp_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    if (img->width > WEBP_MAX_DIMENSION || img->height > WEBP_MAX_DIMENSION)
        return gvis_error(GVIS_E_LIMIT, "image too large for WebP: %dx%d, WebP takes at most %d pixels a side; "
                                        "write .png, .tif or .npy", img->width, img->height, WEBP_MAX_DIMENSION);
    WebPConfig cfg;
    WebPPicture pic;
    if (!WebPConfigInit(&cfg) || !WebPPictureInit(&pic))
        return gvis_error(GVIS_E_FORMAT, "libwebp version mismatch");
    cfg.lossless = o && o->lossless;
    cfg.quality = o && o->quality ? (float)o->quality : cfg.lossless ? 75.0f : 90.0f;
    cfg.exact = cfg.lossless; /* lossless keeps the colour under transparent pixels too */
    pic.use_argb = cfg.lossless;
    pic.width = img->width;
    pic.height = img->height;
    int ok;
    if (img->channels == 1) { /* WebP has no gray: import as RGB */
        uint8_t *rgb = malloc((size_t)img->width * 3 * (size_t)img->height);
        if (!rgb)
            return gvis_error(GVIS_E_NOMEM, "out of memory writing WebP");
        for (int y = 0; y < img->height; y++) {
            const uint8_t *s = GVIS_ROW(img, y);
            uint8_t *d = rgb + (size_t)y * img->width * 3;
            for (int x = 0; x < img->width; x++)
                d[3 * x] = d[3 * x + 1] = d[3 * x + 2] = s[x];
        }
        ok = WebPPictureImportRGB(&pic, rgb, img->width * 3);
        free(rgb);
    } else if (img->channels == 3) {
        ok = WebPPictureImportRGB(&pic, img->data, (int)img->stride);
    } else {
        ok = WebPPictureImportRGBA(&pic, img->data, (int)img->stride);
    }
    if (!ok) {
        WebPPictureFree(&pic);
        return gvis_error(GVIS_E_NOMEM, "out of memory writing WebP");
    }
    const gvis_meta *m = gvis_meta_to_write(img, o);
#ifndef GVIS_HAVE_WEBPMUX
    m = NULL;
#endif
    gvis_buf plain = {0}, *dst = m && (m->icc || m->exif) ? &plain : b;
    pic.writer = writer;
    pic.custom_ptr = dst;
    int rc = GVIS_OK;
    if (!WebPEncode(&cfg, &pic))
        rc = gvis_error(pic.error_code == VP8_ENC_ERROR_OUT_OF_MEMORY ? GVIS_E_NOMEM : GVIS_E_FORMAT,
                        "cannot write WebP (%s)", picture_error(pic.error_code));
    WebPPictureFree(&pic);
#ifdef GVIS_HAVE_WEBPMUX
    if (!rc && dst == &plain) {
        WebPData image = {plain.data, plain.len}, icc = {m->icc, m->icc_len}, exif = {m->exif, m->exif_len}, out = {0};
        WebPMux *mux = WebPMuxNew();
        if (!mux || WebPMuxSetImage(mux, &image, 0) != WEBP_MUX_OK ||
            (m->icc && WebPMuxSetChunk(mux, "ICCP", &icc, 0) != WEBP_MUX_OK) ||
            (m->exif && WebPMuxSetChunk(mux, "EXIF", &exif, 0) != WEBP_MUX_OK) || WebPMuxAssemble(mux, &out) != WEBP_MUX_OK)
            rc = gvis_error(GVIS_E_NOMEM, "cannot write WebP metadata (libwebpmux failed)");
        if (!rc)
            rc = gvis_buf_append(b, out.bytes, out.size);
        WebPDataClear(&out);
        WebPMuxDelete(mux);
    }
#endif
    gvis_buf_free(&plain);
    return rc;
}
#endif
