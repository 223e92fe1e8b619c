/* PNG writing through libpng + zlib.  The default is OpenCV's choice for speed (zlib level 1,
 * the Sub filter on every row, the RLE strategy): a photo then comes out the size
 * cv2.imwrite makes it.  Those settings also make horizontal strips of the image
 * independent (Sub looks at the same row only; RLE matches reach one byte back), so a
 * large image is filtered and deflated in strips on every core, each strip's deflate
 * stream ended at a byte boundary (Z_SYNC_FLUSH) and the strips joined into the one zlib
 * stream PNG holds, with the Adler-32 sums combined: on 2 cores the encode takes about
 * half of cv2.imwrite's time for a file a few bytes larger.  libpng still writes the
 * header and metadata chunks.  --png-level N gives zlib level N with libpng's adaptive
 * filter (five filters tried a row) for smaller files at a higher price, on one core. */
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

/* ---- the strips: Sub filter, raw deflate (level 1, RLE), one per task ---- */

struct strip {
    uint8_t *z;    /* raw deflate data, malloc'd */
    size_t zlen;
    uLong adler;   /* of the strip's filtered bytes */
    size_t raw;    /* how many */
    int failed;
};

struct strips {
    const gvis_image *img;
    struct strip *s;
    int n;
};

static void deflate_strip(void *arg, int index, int count)
{
    struct strips *j = arg;
    const gvis_image *img = j->img;
    struct strip *st = &j->s[index];
    size_t y0, y1, bpp = (size_t)img->channels * img->type, row = (size_t)img->width * bpp;
    gvis_split((size_t)img->height, index, count, &y0, &y1);
    z_stream z;
    memset(&z, 0, sizeof z);
    uint8_t *f = malloc(2 * (row + 1));
    if (!f || deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, -15, 8, Z_RLE) != Z_OK) {
        free(f);
        st->failed = 1;
        return;
    }
    uint8_t *be = f + row + 1; /* a 16-bit row in PNG's byte order */
    size_t cap = deflateBound(&z, (uLong)((row + 1) * (y1 - y0))) + 64;
    st->z = malloc(cap);
    st->adler = adler32(0, Z_NULL, 0);
    z.next_out = st->z;
    z.avail_out = (uInt)cap;
    int last = index == count - 1, zrc = Z_OK;
    for (size_t y = y0; st->z && y < y1 && zrc != Z_STREAM_ERROR; y++) {
        const uint8_t *src = GVIS_ROW(img, y);
        if (img->type == GVIS_U16) {
            const uint16_t *s16 = (const uint16_t *)src;
            for (size_t i = 0; i < row / 2; i++) {
                be[2 * i] = (uint8_t)(s16[i] >> 8);
                be[2 * i + 1] = (uint8_t)s16[i];
            }
            src = be;
        }
        f[0] = 1; /* Sub */
        memcpy(f + 1, src, bpp);
        for (size_t i = bpp; i < row; i++)
            f[1 + i] = (uint8_t)(src[i] - src[i - bpp]);
        st->adler = adler32(st->adler, f, (uInt)(row + 1));
        z.next_in = f;
        z.avail_in = (uInt)(row + 1);
        zrc = deflate(&z, y + 1 < y1 ? Z_NO_FLUSH : last ? Z_FINISH : Z_SYNC_FLUSH);
    }
    st->raw = (row + 1) * (y1 - y0);
    if (!st->z || z.avail_in || (last ? zrc != Z_STREAM_END : zrc != Z_OK))
        st->failed = 1;
    st->zlen = cap - z.avail_out;
    deflateEnd(&z);
    free(f);
}

/* Filters and deflates the image in strips (j->s, freed by the caller, also after a
 * png_error).  GVIS_OK, or an error. */
static int deflate_parallel(const gvis_image *img, int n, struct strips *j)
{
    j->img = img;
    j->n = n;
    if (!(j->s = calloc((size_t)n, sizeof(struct strip))))
        return gvis_error(GVIS_E_NOMEM, "out of memory writing PNG");
    gvis_parallel(n, deflate_strip, j);
    for (int i = 0; i < n; i++)
        if (j->s[i].failed)
            return gvis_error(GVIS_E_NOMEM, "out of memory writing PNG");
    return GVIS_OK;
}

/* The zlib stream (header, the strips, Adler-32) as IDAT chunks of at most 1 GiB, written
 * straight from the strips, each freed once written: the compressed image is held about
 * once (strips going out, file coming in), not in a joined copy besides. */
static void write_idat(png_structp p, struct strips *j)
{
    static const uint8_t head[2] = {0x78, 0x01}; /* deflate, 32K window, level 1 */
    uLong adler = adler32(0, Z_NULL, 0);
    size_t total = 2 + 4;
    for (int i = 0; i < j->n; i++) {
        total += j->s[i].zlen;
        adler = adler32_combine(adler, j->s[i].adler, (z_off_t)j->s[i].raw);
    }
    const uint8_t tail[4] = {(uint8_t)(adler >> 24), (uint8_t)(adler >> 16), (uint8_t)(adler >> 8), (uint8_t)adler};
    int piece = -1; /* -1 the header, 0..n-1 the strips, n the tail */
    size_t off = 0, most = (size_t)1 << 30;
    const char *t = getenv("GVIS_TEST_PNG_IDAT_MAX"); /* tests: chunks that split strips */
    if (t && atol(t) > 0)
        most = (size_t)atol(t);
    while (total) {
        size_t k = total < most ? total : most;
        total -= k;
        png_write_chunk_start(p, (png_const_bytep) "IDAT", (png_uint_32)k);
        while (k) {
            const uint8_t *d = piece < 0 ? head : piece < j->n ? j->s[piece].z : tail;
            size_t len = piece < 0 ? 2 : piece < j->n ? j->s[piece].zlen : 4;
            size_t m = len - off < k ? len - off : k;
            if (m)
                png_write_chunk_data(p, d + off, m);
            off += m;
            k -= m;
            if (off == len) {
                if (piece >= 0 && piece < j->n) {
                    free(j->s[piece].z);
                    j->s[piece].z = NULL;
                }
                piece++;
                off = 0;
            }
        }
        png_write_chunk_end(p);
    }
}

/* Strips for an image of this size: none (libpng on one thread) when small or when a
 * level was asked for. */
static int strips_for(const gvis_image *img, const gvis_io_opts *o)
{
    size_t bytes = (size_t)img->width * img->channels * img->type * (size_t)img->height;
    int t = gvis_threads();
    if ((o && o->png_level) || t < 2 || bytes < ((size_t)1 << 20) || img->height < 64)
        return 0;
    int n = 4 * t; /* a few strips a thread: the pool balances uneven ones */
    return n > img->height / 16 ? img->height / 16 : n;
}

int gvis_png_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    size_t rows;
    if (gvis_mul_size((size_t)img->width * img->channels * img->type + 1, (size_t)img->height, &rows) ||
        rows > GVIS_ENCODE_MAX)
        return gvis_too_large("PNG", rows, GVIS_ENCODE_MAX);
    struct strips j = {img, NULL, 0};
    struct png_write s = {b, 0, "", NULL}; /* j's strips are freed at done, also after a png_error */
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
    int n = strips_for(img, o);
    if (n > 1) {
        /* the pixels deflated in parallel, written as IDAT chunks of at most 1 GiB; IEND */
        if ((rc = deflate_parallel(img, n, &j)))
            goto done;
        write_idat(p, &j);
        png_write_chunk(p, (png_const_bytep) "IEND", NULL, 0);
        goto done;
    }
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
    for (int i = 0; j.s && i < j.n; i++)
        free(j.s[i].z);
    free(j.s);
    png_destroy_write_struct(&p, &info);
    return rc;
}
#endif
