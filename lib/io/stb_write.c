/* Writing through stb_image_write: BMP and TGA always, PNG and JPEG in a build without
 * libpng / libjpeg-turbo (16-bit PNG by gvis itself, with stb's zlib). */
#include "codec.h"

#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

/* Part of libstb's stb_image_write, declared there only inside the implementation. */
extern unsigned char *stbi_zlib_compress(unsigned char *data, int data_len, int *out_len, int quality);

/* stb's write callback cannot report failure: remember it. */
struct sink {
    gvis_buf *b;
    int failed;
};

static void to_buf(void *ctx, void *data, int size)
{
    struct sink *s = ctx;
    if (!s->failed && gvis_buf_append(s->b, data, (size_t)size) != GVIS_OK)
        s->failed = 1;
}

/* Tight copy of the pixels (stb takes a stride but no 16-bit, PNG 16 wants big-endian). */
static uint8_t *tight_copy(const gvis_image *img, size_t *row_out)
{
    size_t row = (size_t)img->width * img->channels * img->type;
    uint8_t *p = malloc(row * (size_t)img->height);
    if (!p)
        return NULL;
    for (int y = 0; y < img->height; y++)
        memcpy(p + (size_t)y * row, GVIS_ROW(img, y), row);
    *row_out = row;
    return p;
}

/* ---- PNG 16-bit: IHDR, one IDAT through stbi_zlib_compress, IEND ---- */

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static int put_be32(gvis_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    return gvis_buf_append(b, x, 4);
}

static int png_chunk(gvis_buf *b, const char *type, const uint8_t *data, size_t n)
{
    if (n > 0x7fffffffu)
        return gvis_error(GVIS_E_LIMIT, "PNG chunk too large");
    int rc = put_be32(b, (uint32_t)n);
    if (!rc) rc = gvis_buf_append(b, type, 4);
    if (!rc) rc = gvis_buf_append(b, data, n);
    if (rc)
        return rc;
    uint32_t crc = crc32_update(0, (const uint8_t *)type, 4);
    crc = crc32_update(crc, data, n);
    return put_be32(b, crc);
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* stb_image_write counts in int: its zlib compressor's output buffer grows by doubling
 * an int capacity (overflowing once the output passes 1 GiB), its PNG writer sizes the
 * filtered rows as (x*n+1)*y and its JPEG, BMP and TGA writers index pixels as y*x*n.
 * Larger images (possible with --max-pixels above the default) are refused here, before
 * stb's arithmetic wraps and writes out of bounds. */
#define STB_ZLIB_MAX ((size_t)1 << 29)
#define STB_WRITE_MAX ((size_t)INT32_MAX)

static int too_large_for_png(size_t bytes)
{
    return gvis_too_large("PNG", bytes, STB_ZLIB_MAX);
}

static int encode_png16(const gvis_image *img, gvis_buf *b)
{
    static int crc_ready;
    if (!crc_ready) {
        crc_init();
        crc_ready = 1;
    }
    size_t bpp = (size_t)img->channels * 2, row = (size_t)img->width * bpp, total;
    if (gvis_mul_size(row + 1, (size_t)img->height, &total) || total > STB_ZLIB_MAX)
        return too_large_for_png(total);
    uint8_t *raw = malloc(total), *be = malloc(row * 2), *cand = malloc(row);
    if (!raw || !be || !cand) {
        free(raw), free(be), free(cand);
        return gvis_error(GVIS_E_NOMEM, "out of memory encoding PNG");
    }
    uint8_t *prev = be + row, *cur = be;
    memset(prev, 0, row);
    for (int y = 0; y < img->height; y++) {
        const uint16_t *s = GVIS_ROW(img, y);
        for (size_t i = 0; i < (size_t)img->width * img->channels; i++) {
            cur[2 * i] = (uint8_t)(s[i] >> 8);
            cur[2 * i + 1] = (uint8_t)s[i];
        }
        /* Choose the filter with the least sum of absolute residuals, as libpng's heuristic. */
        uint8_t *out = raw + (size_t)y * (row + 1);
        long best = -1;
        for (int f = 0; f < 5; f++) {
            long sum = 0;
            for (size_t i = 0; i < row; i++) {
                int a = i >= bpp ? cur[i - bpp] : 0, up = prev[i], c = i >= bpp ? prev[i - bpp] : 0, v;
                switch (f) {
                case 0: v = cur[i]; break;
                case 1: v = cur[i] - a; break;
                case 2: v = cur[i] - up; break;
                case 3: v = cur[i] - ((a + up) >> 1); break;
                default: v = cur[i] - paeth(a, up, c); break;
                }
                cand[i] = (uint8_t)v;
                sum += abs((signed char)cand[i]);
            }
            if (best < 0 || sum < best) {
                best = sum;
                out[0] = (uint8_t)f;
                memcpy(out + 1, cand, row);
            }
        }
        uint8_t *t = prev;
        prev = cur;
        cur = t;
    }
    free(be);
    free(cand);
    int zlen = 0;
    uint8_t *z = stbi_zlib_compress(raw, (int)total, &zlen, 8);
    free(raw);
    if (!z)
        return gvis_error(GVIS_E_NOMEM, "out of memory compressing PNG");
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    uint32_t w = (uint32_t)img->width, h = (uint32_t)img->height;
    ihdr[0] = (uint8_t)(w >> 24), ihdr[1] = (uint8_t)(w >> 16), ihdr[2] = (uint8_t)(w >> 8), ihdr[3] = (uint8_t)w;
    ihdr[4] = (uint8_t)(h >> 24), ihdr[5] = (uint8_t)(h >> 16), ihdr[6] = (uint8_t)(h >> 8), ihdr[7] = (uint8_t)h;
    ihdr[8] = 16;
    ihdr[9] = img->channels == 1 ? 0 : img->channels == 3 ? 2 : 6;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    int rc = gvis_buf_append(b, sig, 8);
    if (!rc) rc = png_chunk(b, "IHDR", ihdr, 13);
    if (!rc) rc = png_chunk(b, "IDAT", z, (size_t)zlen);
    if (!rc) rc = png_chunk(b, "IEND", NULL, 0);
    free(z);
    return rc;
}

static int stb_write(const gvis_image *img, gvis_format f, const gvis_io_opts *o, gvis_buf *b)
{
    const char *fname = f == GVIS_FMT_PNG ? "PNG" : f == GVIS_FMT_JPEG ? "JPEG" : f == GVIS_FMT_BMP ? "BMP" : "TGA";
    size_t rows;
    if (gvis_mul_size((size_t)img->width * img->channels + 1, (size_t)img->height, &rows))
        rows = SIZE_MAX;
    if (f == GVIS_FMT_PNG && rows > STB_ZLIB_MAX)
        return too_large_for_png(rows);
    if (rows > STB_WRITE_MAX)
        return gvis_too_large(fname, rows, STB_WRITE_MAX);
    size_t start = b->len, row;
    uint8_t *tight = NULL;
    const void *px = img->data;
    if (img->stride > INT32_MAX || f != GVIS_FMT_PNG) {
        /* stb's JPEG/BMP/TGA writers take no stride */
        if (!(tight = tight_copy(img, &row)))
            return gvis_error(GVIS_E_NOMEM, "out of memory encoding %s", fname);
        px = tight;
    }
    int ok;
    struct sink sink = {b, 0};
    switch (f) {
    case GVIS_FMT_PNG:
        ok = stbi_write_png_to_func(to_buf, &sink, img->width, img->height, img->channels, px, (int)img->stride);
        break;
    case GVIS_FMT_JPEG:
        ok = stbi_write_jpg_to_func(to_buf, &sink, img->width, img->height, img->channels, px,
                                    o && o->quality ? o->quality : 95);
        break;
    case GVIS_FMT_BMP:
        ok = stbi_write_bmp_to_func(to_buf, &sink, img->width, img->height, img->channels, px);
        break;
    default:
        ok = stbi_write_tga_to_func(to_buf, &sink, img->width, img->height, img->channels, px);
        break;
    }
    free(tight);
    if (!ok || sink.failed || b->len == start)
        return gvis_error(GVIS_E_NOMEM, "cannot encode %s", fname);
    return GVIS_OK;
}

int gvis_stb_png_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    return img->type == GVIS_U16 ? encode_png16(img, b) : stb_write(img, GVIS_FMT_PNG, o, b);
}

int gvis_stb_jpeg_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    return stb_write(img, GVIS_FMT_JPEG, o, b);
}

int gvis_stb_bmp_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    return stb_write(img, GVIS_FMT_BMP, o, b);
}

int gvis_stb_tga_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    return stb_write(img, GVIS_FMT_TGA, o, b);
}
