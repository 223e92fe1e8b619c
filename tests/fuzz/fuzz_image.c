/* Fuzz target for gvis_image_decode, one build per format (GVIS_FUZZ_FORMAT): the
 * target writes the format's signature over the first bytes, so that mutations are
 * spent inside that format's reader instead of on its magic number.  A decoded image
 * must be well formed, every byte of it readable, and survive an encode/decode round
 * trip unchanged (PNG for 8/16 bit, PFM or NPY for float). */
#include "fuzz.h"

enum { F_ANY, F_PNG, F_JPEG, F_BMP, F_TGA, F_PNM, F_PFM, F_TIFF, F_WEBP };
#ifndef GVIS_FUZZ_FORMAT
#define GVIS_FUZZ_FORMAT F_ANY
#endif

/* Small enough that a header asking for the limit costs milliseconds, not seconds. */
#define FUZZ_MAX_PIXELS ((size_t)1 << 20)

static void force_signature(uint8_t *d, size_t n)
{
    switch (GVIS_FUZZ_FORMAT) {
    case F_PNG:
        if (n >= 8)
            memcpy(d, "\x89PNG\r\n\x1a\n", 8);
        break;
    case F_JPEG:
        if (n >= 2)
            memcpy(d, "\xff\xd8", 2);
        break;
    case F_BMP:
        if (n >= 2)
            memcpy(d, "BM", 2);
        break;
    case F_PNM: /* P5 or P6, the second byte's low bit choosing ('5' is odd) */
        if (n >= 2) {
            d[1] = (d[1] & 1) ? '5' : '6';
            d[0] = 'P';
        }
        break;
    case F_PFM: /* PF or Pf, bit 5 of the second byte choosing (set in 'f') */
        if (n >= 2) {
            d[1] = (d[1] & 0x20) ? 'f' : 'F';
            d[0] = 'P';
        }
        break;
    case F_TIFF: /* little- or big-endian, the first byte's low bit choosing */
        if (n >= 4)
            memcpy(d, (d[0] & 1) ? "MM\0*" : "II*\0", 4);
        break;
    case F_WEBP: /* RIFF, a size, WEBP */
        if (n >= 12) {
            memcpy(d, "RIFF", 4);
            memcpy(d + 8, "WEBP", 4);
        }
        break;
    default:
        break;
    }
}

static void round_trip(const gvis_image *img)
{
    gvis_format f;
    if (img->type == GVIS_F32)
        f = img->channels == 4 ? GVIS_FMT_NPY : GVIS_FMT_PFM;
    else
        f = GVIS_FMT_PNG;
    gvis_buf b = {0};
    gvis_io_opts o = {.max_pixels = FUZZ_MAX_PIXELS};
    int rc = gvis_image_encode(img, f, &o, &b);
    FUZZ_ASSERT(rc == GVIS_OK, "encoding a decoded %dx%dx%d %s image as %s failed: %s", img->width, img->height,
                img->channels, gvis_type_name(img->type), gvis_format_name(f), gvis_errmsg());
    gvis_image back;
    rc = gvis_image_decode(b.data, b.len, &o, &back);
    FUZZ_ASSERT(rc == GVIS_OK, "decoding gvis's own %s failed: %s", gvis_format_name(f), gvis_errmsg());
    FUZZ_ASSERT(back.width == img->width && back.height == img->height && back.channels == img->channels &&
                    back.type == img->type,
                "%s round trip changed the image's shape", gvis_format_name(f));
    size_t row = (size_t)img->width * (size_t)img->channels * (size_t)img->type;
    for (int y = 0; y < img->height; y++)
        FUZZ_ASSERT(memcmp(GVIS_ROW(img, y), GVIS_ROW(&back, y), row) == 0, "%s round trip changed row %d",
                    gvis_format_name(f), y);
    gvis_image_free(&back);
    gvis_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *d = malloc(size ? size : 1);
    if (!d)
        return 0;
    memcpy(d, data, size);
    force_signature(d, size);
    gvis_io_opts o = {.max_pixels = FUZZ_MAX_PIXELS};
    gvis_image img;
    int rc = gvis_image_decode(d, size, &o, &img);
    FUZZ_NOTE("decode: %d %s", rc, rc ? gvis_errmsg() : "ok");
    if (rc == GVIS_OK) {
        FUZZ_ASSERT(img.width > 0 && img.height > 0, "decoded a %dx%d image", img.width, img.height);
        FUZZ_ASSERT((size_t)img.width * (size_t)img.height <= FUZZ_MAX_PIXELS, "decoded %dx%d over the pixel limit",
                    img.width, img.height);
        FUZZ_ASSERT(img.channels == 1 || img.channels == 3 || img.channels == 4, "decoded %d channels", img.channels);
        FUZZ_ASSERT(img.type == GVIS_U8 || img.type == GVIS_U16 || img.type == GVIS_F32, "decoded sample type %d",
                    (int)img.type);
        size_t row = (size_t)img.width * (size_t)img.channels * (size_t)img.type;
        FUZZ_ASSERT(img.stride >= row, "stride %zu under the row size %zu", img.stride, row);
        /* Read every byte: ASan reports a buffer smaller than the header says. */
        unsigned sum = 0;
        for (int y = 0; y < img.height; y++) {
            const uint8_t *p = GVIS_ROW(&img, y);
            for (size_t i = 0; i < row; i++)
                sum += p[i];
        }
        volatile unsigned sink = sum;
        (void)sink;
        if ((size_t)img.width * (size_t)img.height <= 65536)
            round_trip(&img);
        gvis_image_free(&img);
    } else {
        FUZZ_FAILED_WITH_MESSAGE(rc);
        FUZZ_ASSERT(img.data == NULL, "a failed decode left pixel memory behind");
    }
    free(d);
    return 0;
}
