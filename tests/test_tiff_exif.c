/* EXIF into TIFF (lib/io/tiff_exif.c): a camera-like EXIF block in either byte order is
 * written as the TIFF's EXIF and GPS directories and IFD0 text, read back here through
 * libtiff with the values and types it had; MakerNote and the interoperability pointer
 * are left out; --strip writes none; and every truncation and thousands of corrupted
 * copies of the block still give a TIFF or a clear error (ASan watches the reads). */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "gvis_config.h"
#include "testlib.h"

#ifdef GVIS_HAVE_TIFF
#include <tiffio.h>

/* A little TIFF-structured block writer, either byte order. */
static uint8_t blk[1024];
static size_t blen;
static int be;
static void w16(size_t at, unsigned v)
{
    blk[at + (be ? 0 : 1)] = (uint8_t)(v >> 8);
    blk[at + (be ? 1 : 0)] = (uint8_t)v;
}
static void w32(size_t at, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        blk[at + (be ? (size_t)k : (size_t)(3 - k))] = (uint8_t)(v >> (24 - 8 * k));
}
/* entry k of the IFD at ifd; values over 4 bytes go to *heap */
static void entry(size_t ifd, int k, unsigned tag, unsigned type, uint32_t count, const void *vals, size_t bytes,
                  size_t *heap)
{
    size_t e = ifd + 2 + (size_t)k * 12;
    w16(e, tag);
    w16(e + 2, type);
    w32(e + 4, count);
    size_t at = e + 8;
    if (bytes > 4) {
        w32(e + 8, (uint32_t)*heap);
        at = *heap;
        *heap += (bytes + 1) & ~(size_t)1;
    }
    memcpy(blk + at, vals, bytes); /* callers give values already in the block's order */
}
static void rat(uint8_t *p, uint32_t n, uint32_t d)
{
    for (int k = 0; k < 4; k++) {
        p[be ? k : 3 - k] = (uint8_t)(n >> (24 - 8 * k));
        p[4 + (be ? k : 3 - k)] = (uint8_t)(d >> (24 - 8 * k));
    }
}
static void s16(uint8_t *p, unsigned v)
{
    p[be ? 0 : 1] = (uint8_t)(v >> 8);
    p[be ? 1 : 0] = (uint8_t)v;
}

static void make_block(int big)
{
    be = big;
    memset(blk, 0, sizeof blk);
    memcpy(blk, big ? "MM\0*" : "II*\0", 4);
    w32(4, 8);
    size_t ifd0 = 8, exif = 200, gps = 400, heap = 600;
    w16(ifd0, 4);
    entry(ifd0, 0, 271, 2, 7, "Gvisco\0", 7, &heap);
    entry(ifd0, 1, 272, 2, 9, "Model T1\0", 9, &heap);
    uint8_t p[16];
    w16(ifd0 + 2 + 2 * 12, 34665);
    w16(ifd0 + 2 + 2 * 12 + 2, 4);
    w32(ifd0 + 2 + 2 * 12 + 4, 1);
    w32(ifd0 + 2 + 2 * 12 + 8, (uint32_t)exif);
    w16(ifd0 + 2 + 3 * 12, 34853);
    w16(ifd0 + 2 + 3 * 12 + 2, 4);
    w32(ifd0 + 2 + 3 * 12 + 4, 1);
    w32(ifd0 + 2 + 3 * 12 + 8, (uint32_t)gps);
    w16(exif, 8);
    rat(p, 1, 250);
    entry(exif, 0, 33434, 5, 1, p, 8, &heap); /* ExposureTime */
    rat(p, 28, 10);
    entry(exif, 1, 33437, 5, 1, p, 8, &heap); /* FNumber */
    s16(p, 400);
    entry(exif, 2, 34855, 3, 1, p, 2, &heap); /* ISO */
    entry(exif, 3, 36864, 7, 4, "0231", 4, &heap); /* ExifVersion */
    entry(exif, 4, 36867, 2, 20, "2021:02:03 04:05:06\0", 20, &heap); /* DateTimeOriginal */
    rat(p, (uint32_t)-1, 3);
    entry(exif, 5, 37380, 10, 1, p, 8, &heap); /* ExposureBiasValue -1/3 */
    entry(exif, 6, 37500, 7, 12, "MAKERNOTE...", 12, &heap); /* left out */
    w16(exif + 2 + 7 * 12, 40965);                           /* interoperability: left out */
    w16(exif + 2 + 7 * 12 + 2, 4);
    w32(exif + 2 + 7 * 12 + 4, 1);
    w32(exif + 2 + 7 * 12 + 8, 8);
    w16(gps, 3);
    entry(gps, 0, 0, 1, 4, "\2\3\0\0", 4, &heap); /* GPSVersionID */
    entry(gps, 1, 1, 2, 2, "N\0", 2, &heap);      /* GPSLatitudeRef */
    uint8_t lat[24];
    rat(lat, 48, 1);
    rat(lat + 8, 51, 1);
    rat(lat + 16, 2430, 100);
    entry(gps, 2, 2, 5, 3, lat, 24, &heap); /* GPSLatitude */
    blen = heap;
}

static int encode(const uint8_t *exif, size_t n, int strip, gvis_buf *out)
{
    gvis_image img;
    t_make(&img, 7, 5, 3, GVIS_U8, 0, 0);
    img.meta = calloc(1, sizeof *img.meta);
    img.meta->exif = malloc(n ? n : 1);
    memcpy(img.meta->exif, exif, n);
    img.meta->exif_len = n;
    gvis_io_opts o = {0};
    o.strip = strip;
    int rc = gvis_image_encode(&img, GVIS_FMT_TIFF, &o, out);
    gvis_image_free(&img);
    return rc;
}

/* libtiff reads from a file: the encoded bytes go to one */
static TIFF *open_bytes(const gvis_buf *b, char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    fwrite(b->data, 1, b->len, f);
    fclose(f);
    return TIFFOpen(path, "r");
}

static void check_read_back(int big)
{
    make_block(big);
    gvis_buf b = {0};
    CHECK_OK(encode(blk, blen, 0, &b));
    char path[] = "/tmp/gvis-tiff-exif-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    TIFF *t = open_bytes(&b, path);
    CHECK(t != NULL);
    if (t) {
        char *s = NULL;
        CHECK(TIFFGetField(t, TIFFTAG_MAKE, &s) && s && strcmp(s, "Gvisco") == 0);
        CHECK(TIFFGetField(t, TIFFTAG_MODEL, &s) && s && strcmp(s, "Model T1") == 0);
        toff_t exif_at = 0, gps_at = 0;
        CHECK(TIFFGetField(t, TIFFTAG_EXIFIFD, &exif_at) && exif_at > 0);
        CHECK(TIFFGetField(t, TIFFTAG_GPSIFD, &gps_at) && gps_at > 0);
        CHECK(TIFFReadEXIFDirectory(t, exif_at));
        float fv = 0;
        CHECKF(TIFFGetField(t, EXIFTAG_EXPOSURETIME, &fv) && fabs(fv - 1 / 250.0) < 1e-6, "%g", fv);
        CHECKF(TIFFGetField(t, EXIFTAG_FNUMBER, &fv) && fabs(fv - 2.8) < 1e-6, "%g", fv);
        CHECKF(TIFFGetField(t, EXIFTAG_EXPOSUREBIASVALUE, &fv) && fabs(fv + 1 / 3.0) < 1e-6, "%g", fv);
        uint16_t cnt = 0;
        uint16_t *iso = NULL;
        CHECK(TIFFGetField(t, EXIFTAG_ISOSPEEDRATINGS, &cnt, &iso) && cnt == 1 && iso[0] == 400);
        uint8_t *ver = NULL;
        CHECK(TIFFGetField(t, EXIFTAG_EXIFVERSION, &ver) && ver && memcmp(ver, "0231", 4) == 0);
        CHECK(TIFFGetField(t, EXIFTAG_DATETIMEORIGINAL, &s) && s && strcmp(s, "2021:02:03 04:05:06") == 0);
        uint16_t mn_n = 0;
        void *mn = NULL;
        CHECK(!TIFFGetField(t, EXIFTAG_MAKERNOTE, &mn_n, &mn)); /* offsets of another file: left out */
        CHECK(TIFFReadGPSDirectory(t, gps_at));
        uint8_t *gv = NULL;
        CHECK(TIFFGetField(t, GPSTAG_VERSIONID, &gv) && gv && gv[0] == 2 && gv[1] == 3);
        CHECK(TIFFGetField(t, GPSTAG_LATITUDEREF, &s) && s && strcmp(s, "N") == 0);
        void *lat = NULL;
        CHECK(TIFFGetField(t, GPSTAG_LATITUDE, &lat) && lat);
        if (lat) { /* libtiff 4.5 hands GPS rationals back as doubles or floats by its set type */
            const TIFFField *f = TIFFFieldWithTag(t, GPSTAG_LATITUDE);
            double l2 = TIFFFieldSetGetSize(f) == 8 ? ((double *)lat)[2] : ((float *)lat)[2];
            CHECKF(fabs(l2 - 24.3) < 1e-4, "%g", l2);
        }
        TIFFClose(t);
    }
    /* the pixels come back as they were */
    gvis_image img = {0};
    CHECK_OK(gvis_image_decode(b.data, b.len, NULL, &img));
    CHECK(img.width == 7 && img.height == 5 && img.channels == 3);
    gvis_image_free(&img);
    gvis_buf_free(&b);
    /* --strip: no EXIF directory */
    CHECK_OK(encode(blk, blen, 1, &b));
    t = open_bytes(&b, path);
    toff_t at = 0;
    CHECK(t && !TIFFGetField(t, TIFFTAG_EXIFIFD, &at));
    if (t)
        TIFFClose(t);
    gvis_buf_free(&b);
    unlink(path);
}
#endif

int main(void)
{
#ifdef GVIS_HAVE_TIFF
    TIFFSetWarningHandler(NULL);
    TIFFSetErrorHandler(NULL);
    check_read_back(0);
    check_read_back(1);
    /* a block that came from a file: cut anywhere, or corrupted, never read past */
    for (int big = 0; big < 2; big++) {
        make_block(big);
        for (size_t n = 0; n <= blen; n++) {
            gvis_buf b = {0};
            int rc = encode(blk, n, 0, &b);
            CHECKF(rc == GVIS_OK, "cut at %zu: %s", n, gvis_errmsg());
            gvis_buf_free(&b);
        }
    }
    t_seed(14);
    uint8_t bad[1024];
    int ok = 0;
    for (int i = 0; i < 3000; i++) {
        make_block(i & 1);
        memcpy(bad, blk, blen);
        int flips = 1 + (int)(t_rand() % 8);
        for (int k = 0; k < flips; k++)
            bad[t_rand() % blen] = (uint8_t)t_rand();
        gvis_buf b = {0};
        int rc = encode(bad, blen, 0, &b);
        ok += rc == GVIS_OK;
        CHECKF(rc == GVIS_OK || rc == GVIS_E_FORMAT, "%d: %s", rc, gvis_errmsg());
        gvis_buf_free(&b);
    }
    CHECKF(ok > 2500, "%d of 3000 corrupted blocks written", ok);
#else
    printf("built without libtiff\n");
#endif
    return t_done("test_tiff_exif");
}
