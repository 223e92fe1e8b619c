/* The EXIF block of a TIFF input: a TIFF file keeps its camera fields in its own image
 * directory (text tags, orientation) and in EXIF and GPS sub-directories that IFD0 points
 * to.  They are gathered here into one TIFF-structured block, the form the JPEG, PNG and
 * WebP writers carry (APP1, eXIf, EXIF chunk) and tiff_exif.c writes back into a TIFF, so
 * that TIFF -> JPEG keeps them as JPEG -> TIFF does.  Kept: IFD0's description, make,
 * model, orientation, resolution (WebP holds it nowhere else), software, date, artist and
 * copyright, and every entry of the EXIF and
 * GPS directories but the MakerNote (its offsets point into the file it came from) and the
 * interoperability pointer.  Classic TIFF only (a BigTIFF's fields are left out).  The file
 * came from outside: every offset and count is checked against its size. */
#ifdef GVIS_HAVE_TIFF
#include "codec.h"

#include <stdlib.h>
#include <string.h>

struct src {
    const uint8_t *p;
    size_t n;
    int be;
};

struct out {
    uint8_t *p;
    size_t n, cap;
    int be;
};

#define MAX_ENTRIES 512

static unsigned g16(const struct src *s, size_t o) { return s->be ? (unsigned)(s->p[o] << 8 | s->p[o + 1]) : (unsigned)(s->p[o + 1] << 8 | s->p[o]); }
static uint32_t g32(const struct src *s, size_t o)
{
    const uint8_t *q = s->p + o;
    return s->be ? (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3]
                 : (uint32_t)q[3] << 24 | (uint32_t)q[2] << 16 | (uint32_t)q[1] << 8 | q[0];
}

static void p16(struct out *o, size_t at, unsigned v)
{
    o->p[at + (o->be ? 0 : 1)] = (uint8_t)(v >> 8);
    o->p[at + (o->be ? 1 : 0)] = (uint8_t)v;
}

static void p32(struct out *o, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        o->p[at + (o->be ? 3 - i : i)] = (uint8_t)(v >> (8 * i));
}

/* Grows the block by n bytes (zeroed, kept even: TIFF values start on a word boundary). */
static int grow(struct out *o, size_t n, size_t *at)
{
    n += n & 1;
    if (n > ((size_t)1 << 24) || o->n + n > ((size_t)1 << 24))
        return -1;
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap : 1024;
        while (cap < o->n + n)
            cap *= 2;
        uint8_t *p = realloc(o->p, cap);
        if (!p)
            return -1;
        o->p = p;
        o->cap = cap;
    }
    memset(o->p + o->n, 0, n);
    *at = o->n;
    o->n += n;
    return 0;
}

static size_t type_size(unsigned t)
{
    static const uint8_t sz[13] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8};
    return t < 13 ? sz[t] : 0;
}

static int ifd0_keeps(unsigned tag)
{
    return tag == 0x010E || tag == 0x010F || tag == 0x0110 || tag == 0x0112 || tag == 0x011A || tag == 0x011B ||
           tag == 0x0128 || tag == 0x0131 || tag == 0x0132 || tag == 0x013B || tag == 0x8298;
}

/* Whether the entry at e is whole inside the file; its values' size and place. */
static int entry_ok(const struct src *s, size_t e, size_t *bytes, size_t *at)
{
    size_t sz = type_size(g16(s, e + 2));
    uint32_t count = g32(s, e + 4);
    if (!sz || !count || count > s->n / sz)
        return 0;
    *bytes = sz * count;
    *at = *bytes <= 4 ? e + 8 : g32(s, e + 8);
    return *at <= s->n && *bytes <= s->n - *at;
}

/* Copies the directory at ifd of s into o (keep: IFD0's filter, or every tag but the
 * MakerNote and the interoperability pointer), with room for `extra` LONG entries after
 * the copied ones; *dir gets the new directory's offset, *extra_at the first free entry. */
static int copy_ifd(const struct src *s, uint32_t ifd, int ifd0, int extra, struct out *o, size_t *dir,
                    size_t *extra_at)
{
    if (ifd < 8 || ifd > s->n - 2)
        return -1;
    unsigned count = g16(s, ifd);
    if (count > MAX_ENTRIES || (size_t)ifd + 2 + (size_t)count * 12 > s->n)
        return -1;
    unsigned keep = 0;
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12, bytes, at;
        unsigned tag = g16(s, e);
        if ((ifd0 ? ifd0_keeps(tag) : tag != 0x927C && tag != 0xA005) && entry_ok(s, e, &bytes, &at))
            keep++;
    }
    if (keep + extra == 0)
        return 1; /* nothing to carry */
    if (grow(o, 2 + (size_t)(keep + extra) * 12 + 4, dir))
        return -1;
    p16(o, *dir, keep + extra);
    size_t k = 0;
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12, bytes, at;
        unsigned tag = g16(s, e);
        if (!(ifd0 ? ifd0_keeps(tag) : tag != 0x927C && tag != 0xA005) || !entry_ok(s, e, &bytes, &at))
            continue;
        size_t d = *dir + 2 + k++ * 12, val;
        memcpy(o->p + d, s->p + e, 8); /* tag, type, count: the same byte order */
        if (bytes <= 4) {
            memcpy(o->p + d + 8, s->p + e + 8, 4);
        } else {
            if (grow(o, bytes, &val))
                return -1;
            memcpy(o->p + val, s->p + at, bytes);
            p32(o, d + 8, (uint32_t)val);
        }
    }
    *extra_at = *dir + 2 + k * 12;
    return 0;
}

/* The sub-directory IFD0 points to by tag (0 when none or out of the file). */
static uint32_t pointer(const struct src *s, uint32_t ifd, unsigned tag)
{
    unsigned count = g16(s, ifd);
    for (unsigned i = 0; i < count && i < MAX_ENTRIES; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > s->n)
            return 0;
        unsigned type = g16(s, e + 2);
        if (g16(s, e) == tag && (type == 4 || type == 13) && g32(s, e + 4) == 1)
            return g32(s, e + 8);
    }
    return 0;
}

int gvis_tiff_exif_read(const uint8_t *d, size_t len, uint64_t ifd_off, gvis_image *img)
{
    if (len < 8 || (memcmp(d, "II*\0", 4) && memcmp(d, "MM\0*", 4)) || ifd_off < 8 || ifd_off > len - 2 ||
        len > UINT32_MAX)
        return GVIS_OK; /* BigTIFF, or a directory libtiff found elsewhere */
    struct src s = {d, len, d[0] == 'M'};
    uint32_t ifd = (uint32_t)ifd_off;
    if ((size_t)ifd + 2 + (size_t)g16(&s, ifd) * 12 > len)
        return GVIS_OK;
    uint32_t exif = pointer(&s, ifd, 0x8769), gps = pointer(&s, ifd, 0x8825);
    if (exif == ifd || gps == ifd || (exif && exif == gps))
        exif = gps = 0; /* a loop: nothing of it is kept */
    struct out o = {NULL, 0, 0, s.be};
    size_t at, dir0 = 0, ptrs = 0, sub, unused;
    if (grow(&o, 8, &at)) {
        free(o.p);
        return GVIS_OK;
    }
    memcpy(o.p, s.be ? "MM\0*" : "II*\0", 4);
    p32(&o, 4, 8);
    if (copy_ifd(&s, ifd, 1, (exif != 0) + (gps != 0), &o, &dir0, &ptrs)) {
        free(o.p); /* nothing to carry, or a broken IFD0 */
        return GVIS_OK;
    }
    const unsigned tags[2] = {0x8769, 0x8825};
    const uint32_t subs[2] = {exif, gps};
    for (int i = 0; i < 2; i++) {
        if (!subs[i])
            continue;
        size_t mark = o.n;
        int r = copy_ifd(&s, subs[i], 0, 0, &o, &sub, &unused);
        if (r > 0 && grow(&o, 6, &sub)) /* an empty directory: kept empty */
            r = -1;
        if (r < 0) { /* a broken sub-directory is left out; its slot (zeros) ends IFD0 */
            o.n = mark;
            p16(&o, dir0, g16(&(struct src){o.p, o.n, o.be}, dir0) - 1);
            continue;
        }
        p16(&o, ptrs, tags[i]);
        p16(&o, ptrs + 2, 4);
        p32(&o, ptrs + 4, 1);
        p32(&o, ptrs + 8, (uint32_t)sub);
        ptrs += 12;
    }
    int ret = GVIS_OK;
    if (g16(&(struct src){o.p, o.n, o.be}, dir0) > 0) {
        int orient = img->meta ? img->meta->orientation : 0;
        gvis_meta *m = gvis_meta_of(img);
        ret = m ? gvis_meta_set_exif(m, o.p, o.n) : gvis_error(GVIS_E_NOMEM, "out of memory reading EXIF");
        if (m && orient)
            m->orientation = orient; /* the TIFF tag is the file's word on it */
    }
    free(o.p);
    return ret;
}
#endif
