/* TIFF through libtiff: 8 and 16 bit unsigned and 32-bit float samples, gray, gray+alpha
 * (widened to RGBA), RGB and RGBA, striped or tiled, any compression libtiff reads; other
 * kinds (palette, bilevel, CMYK, YCbCr-JPEG, separate planes) through libtiff's RGBA
 * reader as 8 bits.  Multi-page files: the first page, or o->page.  Written with deflate
 * and a predictor.  Kept: ICC profile, resolution, orientation, and the EXIF block's EXIF
 * and GPS IFDs and text tags (tiff_exif.c: libtiff writes them tag by tag; read back into
 * one block by tiff_exif_read.c, so a TIFF's camera fields reach JPEG, PNG and WebP). */
#ifdef GVIS_HAVE_TIFF
#include "codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

const char *gvis_tiff_version(void)
{
    static char v[16];
    if (!v[0]) { /* "LIBTIFF, Version 4.5.0\n..." */
        const char *s = strstr(TIFFGetVersion(), "Version ");
        snprintf(v, sizeof v, "%s", s ? s + 8 : "?");
        v[strcspn(v, "\n ")] = 0;
    }
    return v;
}

/* A file in memory, read or grown by libtiff. */
struct mem {
    const uint8_t *d; /* reading */
    gvis_buf *b;      /* writing */
    size_t len, pos;
    int nomem;
    char msg[256];
};

static tmsize_t mem_read(thandle_t h, void *p, tmsize_t n)
{
    struct mem *m = h;
    if (n < 0 || m->pos >= m->len)
        return 0;
    size_t k = (size_t)n < m->len - m->pos ? (size_t)n : m->len - m->pos;
    memcpy(p, (m->b ? m->b->data : m->d) + m->pos, k);
    m->pos += k;
    return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *p, tmsize_t n)
{
    struct mem *m = h;
    if (!m->b || n < 0)
        return -1;
    size_t end = m->pos + (size_t)n;
    if (end > m->b->len) {
        if (gvis_buf_reserve(m->b, end - m->b->len)) {
            m->nomem = 1;
            return -1;
        }
        if (m->pos > m->b->len)
            memset(m->b->data + m->b->len, 0, m->pos - m->b->len);
        m->b->len = end;
        m->len = end;
    }
    memcpy(m->b->data + m->pos, p, (size_t)n);
    m->pos = end;
    return n;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    struct mem *m = h;
    uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->len : 0;
    if (base + off > ((uint64_t)1 << 40))
        return (toff_t)-1;
    m->pos = (size_t)(base + off);
    return m->pos;
}

static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return ((struct mem *)h)->len; }
static int mem_map(thandle_t h, void **base, toff_t *size) { (void)h, (void)base, (void)size; return 0; }
static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h, (void)base, (void)size; }

static int on_error(TIFF *t, void *user, const char *module, const char *fmt, va_list ap)
{
    struct mem *m = user;
    if (!m->msg[0])
        vsnprintf(m->msg, sizeof m->msg, fmt, ap);
    return 1;
}

static int on_warning(TIFF *t, void *user, const char *module, const char *fmt, va_list ap) { return 1; }

static TIFF *open_mem(struct mem *m, const char *mode)
{
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts)
        return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, m);
    TIFFOpenOptionsSetMaxSingleMemAlloc(opts, (tmsize_t)1 << 31);
    TIFF *t = TIFFClientOpenExt("tiff", mode, m, mem_read, mem_write, mem_seek, mem_close, mem_size, mem_map,
                                mem_unmap, opts);
    TIFFOpenOptionsFree(opts);
    return t;
}

static int tiff_fail(struct mem *m, const char *what)
{
    return gvis_error(GVIS_E_FORMAT, "%s TIFF (%s)", what, m->msg[0] ? m->msg : "libtiff gave no reason");
}

static int read_meta(TIFF *t, const uint8_t *d, size_t len, gvis_image *img)
{
    uint32_t icc_len = 0;
    void *icc = NULL;
    float xr = 0, yr = 0;
    uint16_t unit = RESUNIT_INCH, orient = 0;
    int has_icc = TIFFGetField(t, TIFFTAG_ICCPROFILE, &icc_len, &icc) && icc_len;
    int has_res = TIFFGetField(t, TIFFTAG_XRESOLUTION, &xr) && TIFFGetField(t, TIFFTAG_YRESOLUTION, &yr) && xr > 0 &&
                  yr > 0 && xr < 1e6 && yr < 1e6;
    TIFFGetFieldDefaulted(t, TIFFTAG_RESOLUTIONUNIT, &unit);
    int has_orient = TIFFGetField(t, TIFFTAG_ORIENTATION, &orient) && orient >= 2 && orient <= 8;
    if (!has_icc && !(has_res && unit != RESUNIT_NONE) && !has_orient)
        return gvis_tiff_exif_read(d, len, TIFFCurrentDirOffset(t), img);

    gvis_meta *m = gvis_meta_of(img);
    if (!m)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    if (has_res && unit != RESUNIT_NONE) {
        double k = unit == RESUNIT_CENTIMETER ? 2.54 : 1.0;
        m->xres = xr * k;
        m->yres = yr * k;
    }
    if (has_orient)
        m->orientation = orient;
    int rc = has_icc ? gvis_meta_set_icc(m, icc, icc_len) : GVIS_OK;
    return rc ? rc : gvis_tiff_exif_read(d, len, TIFFCurrentDirOffset(t), img);
}

/* Copies n pixels of spp samples (bytes each) into channels (spp 2: gray+alpha to RGBA). */
static void put_pixels(uint8_t *dst, const uint8_t *src, size_t n, int spp, int channels, int bytes)
{
    if (spp == channels) {
        memcpy(dst, src, n * (size_t)spp * bytes);
        return;
    }
    for (size_t i = 0; i < n; i++) { /* 2 -> 4 */
        const uint8_t *s = src + i * 2 * bytes;
        uint8_t *d = dst + i * 4 * bytes;
        memcpy(d, s, bytes);
        memcpy(d + bytes, s, bytes);
        memcpy(d + 2 * bytes, s, bytes);
        memcpy(d + 3 * bytes, s + bytes, bytes);
    }
}

static int read_direct(TIFF *t, struct mem *m, gvis_image *img, int spp, int bytes, const gvis_io_opts *o)
{
    uint32_t w = (uint32_t)img->width, h = (uint32_t)img->height;
    int rc = GVIS_OK;
    uint8_t *buf = NULL;
    if (TIFFIsTiled(t)) {
        uint32_t tw = 0, th = 0;
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &th);
        size_t tpx;
        if (!tw || !th || gvis_mul_size(tw, th, &tpx) || tpx > gvis_max_pixels(o))
            return gvis_error(GVIS_E_FORMAT, "corrupt TIFF (tile of %ux%u)", tw, th);
        size_t tsize = tpx * (size_t)spp * bytes;
        if (!(buf = malloc(tsize)))
            return gvis_error(GVIS_E_NOMEM, "out of memory reading TIFF");
        for (uint32_t ty = 0; !rc && ty < h; ty += th)
            for (uint32_t tx = 0; !rc && tx < w; tx += tw) {
                if (TIFFReadEncodedTile(t, TIFFComputeTile(t, tx, ty, 0, 0), buf, (tmsize_t)tsize) < 0) {
                    rc = tiff_fail(m, "corrupt or truncated");
                    break;
                }
                uint32_t cw = tx + tw > w ? w - tx : tw, ch = ty + th > h ? h - ty : th;
                for (uint32_t y = 0; y < ch; y++)
                    put_pixels((uint8_t *)GVIS_ROW(img, ty + y) + (size_t)tx * img->channels * bytes,
                               buf + (size_t)y * tw * spp * bytes, cw, spp, img->channels, bytes);
            }
    } else {
        uint32_t rps = h;
        TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &rps);
        if (rps == 0 || rps > h)
            rps = h;
        size_t row = (size_t)w * spp * bytes, ssize = row * rps;
        if (!(buf = malloc(ssize)))
            return gvis_error(GVIS_E_NOMEM, "out of memory reading TIFF");
        for (uint32_t y0 = 0; y0 < h; y0 += rps) {
            uint32_t n = y0 + rps > h ? h - y0 : rps;
            if (TIFFReadEncodedStrip(t, TIFFComputeStrip(t, y0, 0), buf, (tmsize_t)(row * n)) < (tmsize_t)(row * n)) {
                rc = tiff_fail(m, "corrupt or truncated");
                break;
            }
            for (uint32_t y = 0; y < n; y++)
                put_pixels(GVIS_ROW(img, y0 + y), buf + (size_t)y * row, w, spp, img->channels, bytes);
        }
    }
    free(buf);
    return rc;
}

static int read_rgba(TIFF *t, struct mem *m, gvis_image *img, uint32_t w, uint32_t h, int alpha)
{
    char emsg[1024] = "";
    if (!TIFFRGBAImageOK(t, emsg))
        return gvis_error(GVIS_E_FORMAT, "unsupported TIFF (%s)", emsg);
    size_t n = (size_t)w * h;
    uint32_t *raster = malloc(n * 4);
    if (!raster)
        return gvis_error(GVIS_E_NOMEM, "out of memory reading TIFF");
    int rc = GVIS_OK;
    if (!TIFFReadRGBAImageOriented(t, w, h, raster, ORIENTATION_TOPLEFT, 0))
        rc = tiff_fail(m, "corrupt or truncated");
    if (!rc)
        rc = gvis_image_alloc(img, (int)w, (int)h, alpha ? 4 : 3, GVIS_U8, 0);
    for (uint32_t y = 0; !rc && y < h; y++) {
        uint8_t *d = GVIS_ROW(img, y);
        for (uint32_t x = 0; x < w; x++) {
            uint32_t p = raster[(size_t)y * w + x];
            *d++ = (uint8_t)TIFFGetR(p);
            *d++ = (uint8_t)TIFFGetG(p);
            *d++ = (uint8_t)TIFFGetB(p);
            if (alpha)
                *d++ = (uint8_t)TIFFGetA(p);
        }
    }
    free(raster);
    return rc;
}

int gvis_tiff_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    struct mem m = {d, NULL, len, 0, 0, ""};
    TIFF *t = open_mem(&m, "rm");
    if (!t)
        return tiff_fail(&m, "not a readable");
    int rc = GVIS_OK, page = o ? o->page : 0;
    if (page > 0 && !TIFFSetDirectory(t, (tdir_t)page)) {
        int n = 1;
        TIFFSetDirectory(t, 0);
        while (TIFFReadDirectory(t) && n < 100000)
            n++;
        TIFFClose(t);
        return gvis_error(GVIS_E_ARG, "no page %d in this TIFF (it has %d, numbered from 0)", page, n);
    }
    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bps = 1, fmt = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, photo = 0, nextra = 0;
    uint16_t *extra = NULL;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &fmt);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(t, TIFFTAG_EXTRASAMPLES, &nextra, &extra);
    if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photo))
        photo = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    if ((rc = gvis_check_size(w, h, o))) {
        TIFFClose(t);
        return rc;
    }
    int gray = photo == PHOTOMETRIC_MINISBLACK && (spp == 1 || spp == 2);
    int rgb = photo == PHOTOMETRIC_RGB && (spp == 3 || spp == 4);
    int depth_ok = (fmt == SAMPLEFORMAT_UINT && (bps == 8 || bps == 16)) || (fmt == SAMPLEFORMAT_IEEEFP && bps == 32);
    if ((gray || rgb) && depth_ok && (planar == PLANARCONFIG_CONTIG || spp == 1)) {
        int channels = spp == 2 ? 4 : spp, bytes = bps / 8;
        rc = gvis_image_alloc(img, (int)w, (int)h, channels, bytes == 1 ? GVIS_U8 : bytes == 2 ? GVIS_U16 : GVIS_F32, 0);
        if (!rc)
            rc = read_direct(t, &m, img, spp, bytes, o);
    } else if (fmt != SAMPLEFORMAT_UINT || bps > 16) {
        rc = gvis_error(GVIS_E_FORMAT, "unsupported TIFF (%u-bit %s samples: gvis reads 8/16-bit unsigned and "
                                       "32-bit float)", bps, fmt == SAMPLEFORMAT_IEEEFP ? "float" : fmt == SAMPLEFORMAT_INT ? "signed"
                                              : fmt == SAMPLEFORMAT_UINT ? "unsigned" : "other");
    } else {
        rc = read_rgba(t, &m, img, w, h, nextra > 0);
    }
    if (!rc)
        rc = read_meta(t, d, len, img);
    if (!rc && img->meta && !(gray || rgb)) { /* the RGBA reader turned the pixels already */
        img->meta->orientation = 1;
        gvis_meta_mark_upright(img->meta); /* its EXIF block says so too */
        img->meta->orientation = 0;
    }
    TIFFClose(t);
    if (rc)
        gvis_image_free(img);
    return rc;
}

int gvis_tiff_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    struct mem m = {NULL, b, 0, 0, 0, ""};
    size_t start = b->len;
    /* libtiff addresses the file from its first byte: write it in a buffer of its own */
    gvis_buf out = {0};
    m.b = &out;
    TIFF *t = open_mem(&m, "w");
    if (!t)
        return m.nomem ? gvis_error(GVIS_E_NOMEM, "out of memory writing TIFF") : tiff_fail(&m, "cannot write");
    int rc = GVIS_OK;
    const gvis_meta *meta = gvis_meta_to_write(img, o);
    uint64_t exif_at = 0, gps_at = 0;
    if (meta && meta->exif) { /* the sub-IFDs first, then the image's directory afresh */
        rc = gvis_tiff_exif_subdirs(t, meta->exif, meta->exif_len, &exif_at, &gps_at);
        if (!rc)
            TIFFFreeDirectory(t); /* the sub-IFD's values: TIFFCreateDirectory does not free them */
        if (!rc && TIFFCreateDirectory(t))
            rc = gvis_error(GVIS_E_NOMEM, "out of memory writing TIFF");
        if (rc) {
            TIFFClose(t);
            gvis_buf_free(&out);
            return rc;
        }
        gvis_tiff_exif_text(t, meta->exif, meta->exif_len);
        if (exif_at)
            TIFFSetField(t, TIFFTAG_EXIFIFD, exif_at);
        if (gps_at)
            TIFFSetField(t, TIFFTAG_GPSIFD, gps_at);
    }
    int spp = img->channels, bytes = img->type;
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)img->height);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)spp);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, (uint16_t)(bytes * 8));
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, img->type == GVIS_F32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, spp == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB);
    if (spp == 4) {
        uint16_t ex = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &ex);
    }
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    TIFFSetField(t, TIFFTAG_ZIPQUALITY, 1);
    TIFFSetField(t, TIFFTAG_PREDICTOR, img->type == GVIS_F32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(t, 0));
    if (meta && meta->icc && meta->icc_len <= 0x7fffffffu)
        TIFFSetField(t, TIFFTAG_ICCPROFILE, (uint32_t)meta->icc_len, meta->icc);
    if (meta && meta->xres > 0 && meta->yres > 0) {
        TIFFSetField(t, TIFFTAG_XRESOLUTION, (float)meta->xres);
        TIFFSetField(t, TIFFTAG_YRESOLUTION, (float)meta->yres);
        TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
    }
    if (meta && meta->orientation >= 2 && meta->orientation <= 8)
        TIFFSetField(t, TIFFTAG_ORIENTATION, (uint16_t)meta->orientation);
    /* the predictor works in place on the row it is handed: give it a copy */
    size_t row = (size_t)img->width * spp * bytes;
    uint8_t *tmp = malloc(row);
    if (!tmp)
        rc = gvis_error(GVIS_E_NOMEM, "out of memory writing TIFF");
    for (int y = 0; !rc && y < img->height; y++) {
        memcpy(tmp, GVIS_ROW(img, y), row);
        if (TIFFWriteScanline(t, tmp, (uint32_t)y, 0) < 0)
            rc = m.nomem ? gvis_error(GVIS_E_NOMEM, "out of memory writing TIFF") : tiff_fail(&m, "cannot write");
    }
    free(tmp);
    if (!rc && !TIFFWriteDirectory(t))
        rc = m.nomem ? gvis_error(GVIS_E_NOMEM, "out of memory writing TIFF") : tiff_fail(&m, "cannot write");
    TIFFClose(t);
    if (!rc)
        rc = gvis_buf_append(b, out.data, out.len);
    gvis_buf_free(&out);
    if (rc)
        b->len = start;
    return rc;
}
#endif
