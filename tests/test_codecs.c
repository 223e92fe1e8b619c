/* The codec libraries against the reference users compare with: every file of
 * testdata/codec/MANIFEST (PNG, JPEG, TIFF and WebP kinds written by OpenCV, ImageMagick,
 * vips and exiftool; scripts/gen_codec_testdata.sh) decodes to exactly the pixels
 * cv2.imread gives, EXIF orientations 1..8 included; --no-autorotate keeps the stored
 * pixels; metadata survives a write and a read; a stb-only build skips what it lacks. */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static const char *dir;

/* The orientation entry of an EXIF block's first IFD reads 1 (the block is the one
 * exiftool wrote: little-endian, the entry in IFD0). */
static int gvis_exif_orientation_is_one(const uint8_t *p, size_t n)
{
    int be = p[0] == 'M';
    size_t ifd = be ? (size_t)p[4] << 24 | p[5] << 16 | p[6] << 8 | p[7] : (size_t)p[7] << 24 | p[6] << 16 | p[5] << 8 | p[4];
    if (ifd + 2 > n)
        return 0;
    unsigned count = be ? p[ifd] << 8 | p[ifd + 1] : p[ifd + 1] << 8 | p[ifd];
    for (unsigned i = 0; i < count && ifd + 2 + 12 * (i + 1) <= n; i++) {
        const uint8_t *e = p + ifd + 2 + 12 * i;
        unsigned tag = be ? e[0] << 8 | e[1] : e[1] << 8 | e[0];
        if (tag == 0x0112)
            return (be ? e[8] << 8 | e[9] : e[9] << 8 | e[8]) == 1;
    }
    return 0;
}

static int load(const char *name, const gvis_io_opts *o, gvis_image *img)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/codec/%s", dir, name);
    gvis_buf b = {0};
    int rc = gvis_read_file(path, &b, 0);
    if (!rc)
        rc = gvis_image_decode(b.data, b.len, o, img);
    gvis_buf_free(&b);
    return rc;
}

/* Whether this build reads the file's format with the library the golden file assumes
 * (stb_image decodes JPEG with another IDCT and reads no TIFF or WebP). */
static int readable_here(const char *name)
{
    const char *ext = strrchr(name, '.');
    gvis_format f = gvis_format_from_name(ext ? ext + 1 : "");
    const char *c = gvis_codec_name(f, 0);
    if (!c)
        return 0;
    if (f == GVIS_FMT_JPEG && strncmp(c, "stb", 3) == 0)
        return 0;
    if (f == GVIS_FMT_PNG && strncmp(c, "stb", 3) == 0 && strstr(name, "bilevel"))
        return 1;
    return 1;
}

static void golden(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/codec/MANIFEST", dir);
    FILE *f = fopen(path, "r");
    CHECKF(f != NULL, "%s: cannot open", path);
    if (!f)
        return;
    char line[512], file[256], want[256];
    int tol, n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || sscanf(line, "%255s %255s %d", file, want, &tol) != 3)
            continue;
        if (!readable_here(file)) {
            printf("skip %s: %s\n", file, "no codec for it in this build");
            continue;
        }
        gvis_image a, b;
        int rc = load(file, NULL, &a);
        CHECKF(rc == GVIS_OK, "%s: %s", file, gvis_errmsg());
        if (rc)
            continue;
        if (load(want, NULL, &b) == GVIS_OK) {
            int same_shape = a.width == b.width && a.height == b.height && a.channels == b.channels && a.type == b.type;
            CHECKF(same_shape, "%s: %dx%dx%d %s, cv2.imread gives %dx%dx%d %s", file, a.width, a.height, a.channels,
                   gvis_type_name(a.type), b.width, b.height, b.channels, gvis_type_name(b.type));
            if (same_shape)
                CHECKF(t_maxdiff(&a, &b) <= tol, "%s differs from cv2.imread by %g", file, t_maxdiff(&a, &b));
            gvis_image_free(&b);
            n++;
        }
        gvis_image_free(&a);
    }
    fclose(f);
    printf("%d files matched cv2.imread\n", n);
}

/* orient_N.jpg holds orient_1.jpg's pixels with the tag N: kept as stored, they are equal;
 * turned upright, the meta says 1 and so does the EXIF block a writer would carry. */
static void orientation(void)
{
    if (!readable_here("x.jpg"))
        return;
    gvis_io_opts keep = {.no_autorotate = 1};
    gvis_image ref;
    if (load("orient_1.jpg", NULL, &ref))
        return;
    for (int o = 2; o <= 8; o++) {
        char name[32];
        snprintf(name, sizeof name, "orient_%d.jpg", o);
        gvis_image a, b;
        if (load(name, &keep, &a) == GVIS_OK) {
            CHECKF(t_maxdiff(&a, &ref) == 0, "%s --no-autorotate differs from orientation 1", name);
            CHECKF(a.meta && a.meta->orientation == o, "%s --no-autorotate: orientation %d kept", name,
                   a.meta ? a.meta->orientation : -1);
            gvis_image_free(&a);
        }
        if (load(name, NULL, &b) == GVIS_OK) {
            CHECKF(b.width == (o >= 5 ? ref.height : ref.width), "%s: width %d", name, b.width);
            CHECKF(b.meta && b.meta->orientation == 1 && b.meta->exif &&
                       gvis_exif_orientation_is_one(b.meta->exif, b.meta->exif_len),
                   "%s: the meta still says orientation %d", name, b.meta ? b.meta->orientation : -1);
            /* write and read back: the carried EXIF says 1, the pixels stay upright */
            gvis_buf out = {0};
            gvis_io_opts q = {.quality = 100};
            if (gvis_image_encode(&b, GVIS_FMT_PNG, &q, &out) == GVIS_OK) {
                gvis_image c;
                if (gvis_image_decode(out.data, out.len, NULL, &c) == GVIS_OK) {
                    CHECKF(c.width == b.width && t_maxdiff(&b, &c) == 0, "%s: PNG round trip turned it again", name);
                    CHECKF(c.meta && c.meta->exif && c.meta->orientation == 1, "%s: PNG lost the EXIF block", name);
                    gvis_image_free(&c);
                }
            }
            gvis_buf_free(&out);
            gvis_image_free(&b);
        }
    }
    gvis_image_free(&ref);
}

/* EXIF, ICC and resolution survive every format that holds them; --strip drops them. */
static void metadata(void)
{
    static const uint8_t exif[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 1, 3, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};
    const gvis_format fmts[] = {GVIS_FMT_PNG, GVIS_FMT_JPEG, GVIS_FMT_TIFF, GVIS_FMT_WEBP};
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        const char *w = gvis_codec_name(fmts[k], 1);
        if (!w || strncmp(w, "stb", 3) == 0)
            continue;
        gvis_image img;
        t_make(&img, 33, 21, 3, GVIS_U8, 1, 0);
        gvis_meta *m = calloc(1, sizeof *m);
        m->exif = malloc(sizeof exif);
        memcpy(m->exif, exif, sizeof exif);
        m->exif_len = sizeof exif;
        m->orientation = 3;
        /* an ICC header with no tags: what libpng checks before it writes an iCCP chunk */
        m->icc = calloc(1, 200);
        m->icc_len = 200;
        m->icc[3] = 200;                     /* size */
        memcpy(m->icc + 12, "mntrRGB XYZ ", 12); /* device class, colour space, PCS */
        memcpy(m->icc + 36, "acsp", 4);
        m->icc[8] = 4;                       /* version 4 */
        static const uint8_t d50[12] = {0, 0, 0xf6, 0xd6, 0, 1, 0, 0, 0, 0, 0xd3, 0x2d};
        memcpy(m->icc + 68, d50, 12);        /* PCS illuminant */
        for (int i = 132; i < 200; i++)
            m->icc[i] = (uint8_t)i;
        m->xres = 300, m->yres = 150;
        img.meta = m;
        for (int strip = 0; strip < 2; strip++) {
            gvis_io_opts o = {.strip = strip, .no_autorotate = 1};
            gvis_buf b = {0};
            int rc = gvis_image_encode(&img, fmts[k], &o, &b);
            CHECKF(rc == GVIS_OK, "%s: %s", gvis_format_name(fmts[k]), gvis_errmsg());
            gvis_image back;
            if (!rc && (rc = gvis_image_decode(b.data, b.len, &o, &back)) == GVIS_OK) {
                const gvis_meta *r = back.meta;
                int tiff = fmts[k] == GVIS_FMT_TIFF, webp = fmts[k] == GVIS_FMT_WEBP;
#ifndef GVIS_HAVE_WEBPMUX
                int webp_bare = webp; /* no libwebpmux: WebP carries no metadata */
#else
                int webp_bare = 0;
#endif
                if (strip) {
                    CHECKF(!r || (!r->exif && !r->icc && r->xres == 0), "%s --strip kept metadata",
                           gvis_format_name(fmts[k]));
                } else {
                    CHECKF(r && r->icc_len == 200 && memcmp(r->icc, m->icc, 200) == 0 ? 1 : webp_bare && !r,
                           "%s: ICC profile lost", gvis_format_name(fmts[k]));
                    CHECKF(r && r->orientation == 3 ? 1 : webp_bare && !r, "%s: orientation lost",
                           gvis_format_name(fmts[k]));
                    /* TIFF: its own directory read back into a block of its own making */
                    CHECKF(r && (tiff ? r->exif_len >= 8 : r->exif_len == sizeof exif) ? 1 : webp_bare && !r,
                           "%s: EXIF lost", gvis_format_name(fmts[k]));
                    if (!webp)
                        CHECKF(r && (int)(r->xres + 0.5) == 300 && (int)(r->yres + 0.5) == 150,
                               "%s: resolution lost (%g x %g)", gvis_format_name(fmts[k]), r ? r->xres : -1,
                               r ? r->yres : -1);
                }
                gvis_image_free(&back);
            }
            gvis_buf_free(&b);
        }
        /* the carry every command makes */
        gvis_image copy;
        t_make(&copy, 5, 5, 1, GVIS_U8, 0, 0);
        CHECK_OK(gvis_image_copy_meta(&copy, &img));
        CHECK(copy.meta && copy.meta != img.meta && copy.meta->icc != m->icc && copy.meta->exif_len == sizeof exif);
        gvis_image_free(&copy);
        gvis_image_free(&img);
    }
}

int main(void)
{
    t_seed(14);
    dir = getenv("TESTDATA");
    if (!dir) {
        fprintf(stderr, "TESTDATA is not set\n");
        return 1;
    }
    golden();
    orientation();
    metadata();
    return t_done("test_codecs");
}
