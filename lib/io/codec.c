/* The table of codecs: which library reads and writes each image format in this build. */
#include "codec.h"

#include <stdio.h>

size_t gvis_max_pixels(const gvis_io_opts *o)
{
    return o && o->max_pixels ? o->max_pixels : GVIS_DEFAULT_MAX_PIXELS;
}

int gvis_check_size(size_t w, size_t h, const gvis_io_opts *o)
{
    if (w == 0 || h == 0)
        return gvis_error(GVIS_E_FORMAT, "image has zero size (%zux%zu)", w, h);
    size_t n;
    if (gvis_mul_size(w, h, &n) || n > gvis_max_pixels(o) || w > INT32_MAX || h > INT32_MAX)
        return gvis_error(GVIS_E_LIMIT, "image of %zux%zu pixels is larger than the limit of %zu pixels (--max-pixels)",
                          w, h, gvis_max_pixels(o));
    return GVIS_OK;
}

int gvis_too_large(const char *format, size_t bytes, size_t limit)
{
    return gvis_error(GVIS_E_LIMIT,
                      "image too large for %s: %.1f MiB of pixel rows, the %s writer takes at most %.0f MiB "
                      "(it builds the file in memory); write .pgm/.ppm, .pfm or .npy, which have no such limit",
                      format, (double)bytes / (1 << 20), format, (double)limit / (1 << 20));
}

#ifdef GVIS_HAVE_PNG
#define PNG_R gvis_png_decode
#define PNG_W gvis_png_encode
#define PNG_LIB "libpng"
#else
#define PNG_R gvis_stb_decode
#define PNG_W gvis_stb_png_encode
#define PNG_LIB NULL
#endif
#ifdef GVIS_HAVE_JPEG
#define JPEG_R gvis_jpeg_decode
#define JPEG_W gvis_jpeg_encode
#define JPEG_LIB "libjpeg-turbo"
#else
#define JPEG_R gvis_stb_decode
#define JPEG_W gvis_stb_jpeg_encode
#define JPEG_LIB NULL
#endif
#ifdef GVIS_HAVE_TIFF
#define TIFF_R gvis_tiff_decode
#define TIFF_W gvis_tiff_encode
#else
#define TIFF_R NULL
#define TIFF_W NULL
#endif
#ifdef GVIS_HAVE_WEBP
#define WEBP_R gvis_webp_decode
#define WEBP_W gvis_webp_encode
#else
#define WEBP_R NULL
#define WEBP_W NULL
#endif

static gvis_codec codecs[] = {
    {GVIS_FMT_PNG, "PNG", PNG_R, NULL, PNG_W, NULL},
    {GVIS_FMT_JPEG, "JPEG", JPEG_R, NULL, JPEG_W, NULL},
    {GVIS_FMT_TIFF, "TIFF", TIFF_R, NULL, TIFF_W, NULL},
    {GVIS_FMT_WEBP, "WebP", WEBP_R, NULL, WEBP_W, NULL},
    {GVIS_FMT_BMP, "BMP", gvis_stb_decode, "stb_image", gvis_stb_bmp_encode, "stb_image_write"},
    {GVIS_FMT_TGA, "TGA", gvis_stb_decode, "stb_image", gvis_stb_tga_encode, "stb_image_write"},
    {GVIS_FMT_PGM, "PGM", gvis_pnm_decode, "gvis", gvis_pgm_encode, "gvis"},
    {GVIS_FMT_PPM, "PPM", gvis_pnm_decode, "gvis", gvis_ppm_encode, "gvis"},
    {GVIS_FMT_PFM, "PFM", gvis_pfm_decode, "gvis", gvis_pfm_encode, "gvis"},
    {GVIS_FMT_NPY, "NPY", gvis_npy_image_decode, "gvis", gvis_npy_image_encode, "gvis"},
};

/* The names with versions, filled once (the version strings come from the libraries). */
static char names[4][2][64];

static void name_codecs(void)
{
    static int done;
    if (done)
        return;
    const char *lib[4] = {PNG_LIB, JPEG_LIB, NULL, NULL};
    const char *ver[4] = {NULL, NULL, NULL, NULL};
#ifdef GVIS_HAVE_PNG
    ver[0] = gvis_png_version();
#endif
#ifdef GVIS_HAVE_JPEG
    ver[1] = gvis_jpeg_version();
#endif
#ifdef GVIS_HAVE_TIFF
    lib[2] = "libtiff";
    ver[2] = gvis_tiff_version();
#endif
#ifdef GVIS_HAVE_WEBP
    lib[3] = "libwebp";
    ver[3] = gvis_webp_version();
#endif
    for (int i = 0; i < 4; i++) {
        if (lib[i]) {
            snprintf(names[i][0], sizeof names[i][0], "%s %s", lib[i], ver[i]);
            snprintf(names[i][1], sizeof names[i][1], "%s %s", lib[i], ver[i]);
        } else if (i < 2) {
            snprintf(names[i][0], sizeof names[i][0], "stb_image");
            snprintf(names[i][1], sizeof names[i][1], i == 0 ? "stb_image_write (16-bit: gvis)" : "stb_image_write");
        }
        codecs[i].reader = codecs[i].decode ? names[i][0] : NULL;
        codecs[i].writer = codecs[i].encode ? names[i][1] : NULL;
    }
    done = 1;
}

const gvis_codec *gvis_codec_of(gvis_format f)
{
    name_codecs();
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        if (codecs[i].fmt == f)
            return &codecs[i];
    return NULL;
}

const char *gvis_codec_name(gvis_format f, int write)
{
    const gvis_codec *c = gvis_codec_of(f);
    return !c ? NULL : write ? c->writer : c->reader;
}
