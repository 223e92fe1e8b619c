/* The EXIF block of an image (TIFF-structured, either byte order) written into a TIFF
 * through libtiff's custom directories: the EXIF and GPS sub-IFDs tag by tag, in the types
 * libtiff asks for, and IFD0's text tags (make, model, date, software, artist, copyright,
 * description) on the image's own directory.  Left out: MakerNote (its offsets point into
 * the block it came from), the interoperability IFD, the thumbnail, tags libtiff does not
 * know, and IFD0's orientation and resolution (written from the image's metadata).  The
 * block came from an input file: every offset and count is checked against its size. */
#ifdef GVIS_HAVE_TIFF
#include "codec.h"

#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

struct blk {
    const uint8_t *p;
    size_t n;
    int be;
};

static unsigned u16(const struct blk *b, size_t o) { return b->be ? (unsigned)(b->p[o] << 8 | b->p[o + 1]) : (unsigned)(b->p[o + 1] << 8 | b->p[o]); }
static uint32_t u32(const struct blk *b, size_t o)
{
    const uint8_t *q = b->p + o;
    return b->be ? (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3]
                 : (uint32_t)q[3] << 24 | (uint32_t)q[2] << 16 | (uint32_t)q[1] << 8 | q[0];
}

/* bytes of one value of a TIFF type; 0 for a type EXIF does not use */
static size_t type_size(unsigned t)
{
    switch (t) {
    case TIFF_BYTE: case TIFF_ASCII: case TIFF_SBYTE: case TIFF_UNDEFINED: return 1;
    case TIFF_SHORT: case TIFF_SSHORT: return 2;
    case TIFF_LONG: case TIFF_SLONG: case TIFF_FLOAT: case TIFF_IFD: return 4;
    case TIFF_RATIONAL: case TIFF_SRATIONAL: case TIFF_DOUBLE: return 8;
    default: return 0;
    }
}

struct entry {
    unsigned tag, type;
    uint32_t count;
    size_t at; /* of the values in the block */
};

/* The entry at IFD position e, 0 when it is whole inside the block. */
static int entry_at(const struct blk *b, size_t e, struct entry *x)
{
    x->tag = u16(b, e);
    x->type = u16(b, e + 2);
    x->count = u32(b, e + 4);
    size_t sz = type_size(x->type);
    if (!sz || x->count == 0 || x->count > b->n / sz)
        return -1;
    x->at = sz * x->count <= 4 ? e + 8 : u32(b, e + 8);
    return x->at > b->n || sz * x->count > b->n - x->at ? -1 : 0;
}

/* The k-th value as a number (rationals divided out); 0 for a zero denominator. */
static double value(const struct blk *b, const struct entry *x, uint32_t k)
{
    size_t o = x->at + k * type_size(x->type);
    switch (x->type) {
    case TIFF_SBYTE: return (int8_t)b->p[o];
    case TIFF_SHORT: return u16(b, o);
    case TIFF_SSHORT: return (int16_t)u16(b, o);
    case TIFF_LONG: case TIFF_IFD: return u32(b, o);
    case TIFF_SLONG: return (int32_t)u32(b, o);
    case TIFF_RATIONAL: return u32(b, o + 4) ? (double)u32(b, o) / u32(b, o + 4) : 0;
    case TIFF_SRATIONAL: return u32(b, o + 4) ? (double)(int32_t)u32(b, o) / (int32_t)u32(b, o + 4) : 0;
    case TIFF_FLOAT: {
        uint32_t v = u32(b, o);
        float f;
        memcpy(&f, &v, 4);
        return f;
    }
    case TIFF_DOUBLE: {
        uint64_t v = (uint64_t)u32(b, b->be ? o : o + 4) << 32 | u32(b, b->be ? o + 4 : o);
        double d;
        memcpy(&d, &v, 8);
        return d;
    }
    default: return b->p[o];
    }
}

static int is_real(TIFFDataType t) { return t == TIFF_RATIONAL || t == TIFF_SRATIONAL || t == TIFF_FLOAT || t == TIFF_DOUBLE; }

/* Stores v as element k of an array in libtiff's set type (size bytes, real or integer). */
static void put(uint8_t *arr, int size, int real, uint32_t k, double v)
{
    if (v != v || v > 1e18 || v < -1e18)
        v = 0;
    int64_t i = (int64_t)v;
    uint8_t *d = arr + (size_t)k * (size_t)size;
    if (real && size == 4) {
        float f = (float)v;
        memcpy(d, &f, 4);
    } else if (real) {
        memcpy(d, &v, 8);
    } else if (size == 1) {
        *d = (uint8_t)i;
    } else if (size == 2) {
        uint16_t s = (uint16_t)i;
        memcpy(d, &s, 2);
    } else if (size == 4) {
        uint32_t s = (uint32_t)i;
        memcpy(d, &s, 4);
    } else {
        uint64_t s = (uint64_t)i;
        memcpy(d, &s, 8);
    }
}

/* One entry into the current directory as libtiff's field for its tag wants it; an entry
 * it cannot take is left out.  -1 only when out of memory. */
static int set_entry(TIFF *t, const struct blk *b, const struct entry *x)
{
    const TIFFField *f = TIFFFindField(t, x->tag, TIFF_ANY);
    if (!f)
        return 0;
    TIFFDataType ft = TIFFFieldDataType(f);
    if (ft == TIFF_ASCII || x->type == TIFF_ASCII) {
        if (ft != TIFF_ASCII || x->type != TIFF_ASCII)
            return 0;
        char *s = malloc((size_t)x->count + 1);
        if (!s)
            return -1;
        memcpy(s, b->p + x->at, x->count);
        s[x->count] = 0;
        TIFFSetField(t, x->tag, s);
        free(s);
        return 0;
    }
    int size = TIFFFieldSetGetSize(f), real = is_real(ft), pass = TIFFFieldPassCount(f), want = TIFFFieldReadCount(f);
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return 0;
    if (!pass && want == 1) { /* one value, by value */
        double v = value(b, x, 0);
        if (real)
            TIFFSetField(t, x->tag, v);
        else if (size == 8)
            TIFFSetField(t, x->tag, (uint64_t)(int64_t)v);
        else if (size == 4)
            TIFFSetField(t, x->tag, (uint32_t)(int64_t)v);
        else
            TIFFSetField(t, x->tag, (int)(int64_t)v);
        return 0;
    }
    uint32_t n = x->count;
    if (!pass && want > 1)
        n = (uint32_t)want; /* a fixed count: cut or padded with zeros */
    else if (!pass || (TIFFFieldSetGetCountSize(f) == 2 && n > 65535))
        return 0;
    uint8_t *arr = calloc(n, (size_t)size);
    if (!arr)
        return -1;
    for (uint32_t k = 0; k < n && k < x->count; k++)
        put(arr, size, real, k, value(b, x, k));
    if (!pass)
        TIFFSetField(t, x->tag, arr);
    else if (TIFFFieldSetGetCountSize(f) == 2)
        TIFFSetField(t, x->tag, (int)n, arr);
    else
        TIFFSetField(t, x->tag, n, arr);
    free(arr);
    return 0;
}

/* The sub-IFD at off written as a custom directory (EXIF or GPS); *at its offset in the
 * file, 0 where it had nothing libtiff took. */
static int write_sub(TIFF *t, const struct blk *b, uint32_t off, int gps, uint64_t *at)
{
    *at = 0;
    if (off < 8 || off > b->n - 2)
        return GVIS_OK;
    unsigned count = u16(b, off);
    TIFFFreeDirectory(t); /* the last directory's values: libtiff 4.5.0 keeps them otherwise */
    if (gps ? TIFFCreateGPSDirectory(t) : TIFFCreateEXIFDirectory(t))
        return gvis_error(GVIS_E_NOMEM, "cannot write the TIFF's EXIF directory");
    int any = 0;
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)off + 2 + (size_t)i * 12;
        struct entry x;
        if (e + 12 > b->n)
            break;
        if (entry_at(b, e, &x) || x.tag == 37500 /* MakerNote */ || x.tag == 40965 /* interoperability IFD */)
            continue;
        if (set_entry(t, b, &x))
            return gvis_error(GVIS_E_NOMEM, "out of memory writing TIFF");
        any = 1;
    }
    if (any && !TIFFWriteCustomDirectory(t, at))
        return gvis_error(GVIS_E_FORMAT, "cannot write the TIFF's EXIF directory");
    return GVIS_OK;
}

int gvis_tiff_exif_subdirs(TIFF *t, const uint8_t *p, size_t n, uint64_t *exif_at, uint64_t *gps_at)
{
    *exif_at = *gps_at = 0;
    struct blk b = {p, n, n >= 4 && p[0] == 'M'};
    if (n < 10 || (memcmp(p, "II*\0", 4) && memcmp(p, "MM\0*", 4)))
        return GVIS_OK;
    uint32_t ifd = u32(&b, 4);
    if (ifd < 8 || ifd > n - 2)
        return GVIS_OK;
    unsigned count = u16(&b, ifd);
    int rc = GVIS_OK;
    for (unsigned i = 0; i < count && !rc; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n)
            break;
        unsigned tag = u16(&b, e), type = u16(&b, e + 2);
        if ((tag == 34665 || tag == 34853) && (type == TIFF_LONG || type == TIFF_IFD) && u32(&b, e + 4) == 1)
            rc = write_sub(t, &b, u32(&b, e + 8), tag == 34853, tag == 34853 ? gps_at : exif_at);
    }
    return rc;
}

void gvis_tiff_exif_text(TIFF *t, const uint8_t *p, size_t n)
{
    static const unsigned tags[] = {TIFFTAG_IMAGEDESCRIPTION, TIFFTAG_MAKE, TIFFTAG_MODEL, TIFFTAG_SOFTWARE,
                                    TIFFTAG_DATETIME, TIFFTAG_ARTIST, TIFFTAG_COPYRIGHT};
    struct blk b = {p, n, n >= 4 && p[0] == 'M'};
    if (n < 10 || (memcmp(p, "II*\0", 4) && memcmp(p, "MM\0*", 4)))
        return;
    uint32_t ifd = u32(&b, 4);
    if (ifd < 8 || ifd > n - 2)
        return;
    unsigned count = u16(&b, ifd);
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        struct entry x;
        if (e + 12 > n)
            break;
        if (entry_at(&b, e, &x) || x.type != TIFF_ASCII)
            continue;
        for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++)
            if (x.tag == tags[k] && set_entry(t, &b, &x))
                return;
    }
}
#endif
