/* The GPU path's JPEG marker walk: frame type (baseline, extended, progressive,
 * lossless, arithmetic), size, sampling, restart interval, EXIF orientation (both byte
 * orders), Adobe transform; every truncation of a header is refused without reading past
 * the end; and the CPU encoder's own output is read back. */
#include <string.h>

#include "jpeg_markers.h"
#include "nvjpeg_abi.h"
#include "testlib.h"

typedef struct {
    uint8_t b[4096];
    size_t n;
} jb;

static void put(jb *j, const void *p, size_t n)
{
    memcpy(j->b + j->n, p, n);
    j->n += n;
}
static void u8(jb *j, unsigned v) { j->b[j->n++] = (uint8_t)v; }
static void u16(jb *j, unsigned v) { u8(j, v >> 8), u8(j, v & 255); }
static void seg(jb *j, int marker, const uint8_t *body, size_t n)
{
    u8(j, 0xFF), u8(j, (unsigned)marker), u16(j, (unsigned)n + 2);
    put(j, body, n);
}

/* An Exif APP1 with IFD0 holding a few tags, the orientation among them. */
static void exif(jb *j, int le, int orient)
{
    uint8_t t[128];
    size_t n = 0;
    memcpy(t, "Exif\0\0", 6), n = 6;
#define W16(v) (le ? (t[n++] = (uint8_t)((v) & 255), t[n++] = (uint8_t)((v) >> 8)) : (t[n++] = (uint8_t)((v) >> 8), t[n++] = (uint8_t)((v) & 255)))
#define W32(v) (le ? (W16((v) & 0xFFFF), W16((v) >> 16)) : (W16((v) >> 16), W16((v) & 0xFFFF)))
    t[n++] = le ? 'I' : 'M', t[n++] = le ? 'I' : 'M';
    W16(42);
    W32(8u);
    W16(3); /* entries */
    W16(0x010F), W16(2), W32(4u), W32(0u);          /* Make, ASCII */
    W16(0x0112), W16(3), W32(1u), W16(orient), W16(0); /* Orientation */
    W16(0x011A), W16(5), W32(1u), W32(0u);          /* XResolution */
    W32(0u);
    seg(j, 0xE1, t, n);
#undef W16
#undef W32
}

static void frame(jb *j, int sof, int precision, int w, int h, int comps, const int *hv)
{
    uint8_t s[32];
    size_t n = 0;
    s[n++] = (uint8_t)precision, s[n++] = (uint8_t)(h >> 8), s[n++] = (uint8_t)h, s[n++] = (uint8_t)(w >> 8),
    s[n++] = (uint8_t)w, s[n++] = (uint8_t)comps;
    for (int c = 0; c < comps; c++)
        s[n++] = (uint8_t)(c + 1), s[n++] = (uint8_t)hv[c], s[n++] = (uint8_t)(c > 0);
    seg(j, sof, s, n);
}

static void scan(jb *j, int comps)
{
    uint8_t s[16];
    size_t n = 0;
    s[n++] = (uint8_t)comps;
    for (int c = 0; c < comps; c++)
        s[n++] = (uint8_t)(c + 1), s[n++] = 0;
    s[n++] = 0, s[n++] = 63, s[n++] = 0;
    seg(j, 0xDA, s, n);
    put(j, "\x12\x34\xFF\x00\x56\xFF\xD9", 7); /* a little entropy data and EOI */
}

static void build(jb *j, int sof, int precision, int w, int h, int comps, const int *hv, int dri, int orient,
                  int le, int adobe)
{
    j->n = 0;
    u8(j, 0xFF), u8(j, 0xD8);
    seg(j, 0xE0, (const uint8_t *)"JFIF\0\1\1\0\0\1\0\1\0\0", 14);
    if (orient)
        exif(j, le, orient);
    if (adobe >= 0) {
        uint8_t a[12] = {'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, (uint8_t)adobe};
        seg(j, 0xEE, a, sizeof a);
    }
    uint8_t dqt[65] = {0};
    seg(j, 0xDB, dqt, sizeof dqt);
    frame(j, sof, precision, w, h, comps, hv);
    if (dri) {
        uint8_t d[2] = {(uint8_t)(dri >> 8), (uint8_t)dri};
        seg(j, 0xDD, d, 2);
    }
    scan(j, comps);
}

int main(void)
{
    jb j;
    gvis_jpeg_info f;
    const int s420[] = {0x22, 0x11, 0x11}, s444[] = {0x11, 0x11, 0x11}, s422[] = {0x21, 0x11, 0x11},
              s440[] = {0x12, 0x11, 0x11}, s411[] = {0x41, 0x11, 0x11}, gray[] = {0x11};

    build(&j, 0xC0, 8, 631, 479, 3, s420, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0);
    CHECK(f.sof == 0xC0 && !f.progressive && !f.arithmetic && !f.lossless && f.precision == 8);
    CHECK(f.width == 631 && f.height == 479 && f.components == 3);
    CHECK(f.h[0] == 2 && f.v[0] == 2 && f.h[1] == 1 && f.v[2] == 1);
    CHECK(f.restart == 0 && f.orientation == 0 && f.adobe == -1);
    CHECK(gvis_jpeg_css(&f) == GVIS_NVJ_CSS_420 && gvis_jpeg_gpu_candidate(&f));

    /* progressive: the CPU, whatever its sampling */
    build(&j, 0xC2, 8, 5120, 2880, 3, s444, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0);
    CHECK(f.progressive && f.width == 5120 && f.height == 2880 && gvis_jpeg_css(&f) == GVIS_NVJ_CSS_444);
    CHECK(!gvis_jpeg_gpu_candidate(&f));

    /* extended sequential 8-bit (SOF1) is a candidate, 12-bit is not */
    build(&j, 0xC1, 8, 16, 16, 3, s422, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && gvis_jpeg_css(&f) == GVIS_NVJ_CSS_422 && gvis_jpeg_gpu_candidate(&f));
    build(&j, 0xC1, 12, 16, 16, 3, s422, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && f.precision == 12 && !gvis_jpeg_gpu_candidate(&f));

    /* lossless and arithmetic frames */
    build(&j, 0xC3, 16, 9, 7, 1, gray, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && f.lossless && !f.progressive && !gvis_jpeg_gpu_candidate(&f));
    build(&j, 0xC9, 8, 9, 7, 3, s420, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && f.arithmetic && !f.progressive && !gvis_jpeg_gpu_candidate(&f));
    build(&j, 0xCA, 8, 9, 7, 3, s420, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && f.arithmetic && f.progressive);

    /* sampling names; gray; 4:1:1 is a candidate by its marker (the library decides) */
    build(&j, 0xC0, 8, 8, 8, 3, s440, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && gvis_jpeg_css(&f) == GVIS_NVJ_CSS_440);
    build(&j, 0xC0, 8, 8, 8, 3, s411, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && gvis_jpeg_css(&f) == GVIS_NVJ_CSS_411);
    build(&j, 0xC0, 8, 8, 8, 1, gray, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && f.components == 1 && gvis_jpeg_css(&f) == GVIS_NVJ_CSS_GRAY);
    const int odd[] = {0x22, 0x21, 0x11};
    build(&j, 0xC0, 8, 8, 8, 3, odd, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && gvis_jpeg_css(&f) == -1 && !gvis_jpeg_gpu_candidate(&f));

    /* restart interval */
    build(&j, 0xC0, 8, 64, 48, 3, s420, 17, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && f.restart == 17);

    /* EXIF orientation, both byte orders, every value; out-of-range values are ignored */
    for (int le = 0; le < 2; le++)
        for (int o = 1; o <= 9; o++) {
            build(&j, 0xC0, 8, 64, 48, 3, s420, 0, o, le, -1);
            CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0);
            CHECKF(f.orientation == (o <= 8 ? o : 0), "le %d orientation %d read %d", le, o, f.orientation);
        }

    /* Adobe transform 0: RGB stored as is, not for the GPU's YCbCr decoder */
    build(&j, 0xC0, 8, 8, 8, 3, s444, 0, 0, 0, 0);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && f.adobe == 0 && !gvis_jpeg_gpu_candidate(&f));
    build(&j, 0xC0, 8, 8, 8, 3, s444, 0, 0, 0, 1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == 0 && f.adobe == 1 && gvis_jpeg_gpu_candidate(&f));

    /* every truncation before the scan header ends is refused, and none reads past the end */
    build(&j, 0xC0, 8, 631, 479, 3, s420, 5, 6, 1, -1);
    size_t sos = 0;
    for (size_t i = 0; i + 1 < j.n; i++)
        if (j.b[i] == 0xFF && j.b[i + 1] == 0xDA)
            sos = i;
    for (size_t n = 0; n < sos + 4; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, j.b, n);
        CHECKF(gvis_jpeg_scan(copy, n, &f) == -1, "truncated at %zu accepted", n);
        free(copy);
    }
    /* not a JPEG; a second frame header; zero size */
    CHECK(gvis_jpeg_scan((const uint8_t *)"\x89PNG\r\n\x1a\n", 8, &f) == -1);
    jb two = {.n = 0};
    u8(&two, 0xFF), u8(&two, 0xD8);
    frame(&two, 0xC0, 8, 8, 8, 3, s444);
    frame(&two, 0xC2, 8, 8, 8, 3, s444);
    scan(&two, 3);
    CHECK(gvis_jpeg_scan(two.b, two.n, &f) == -1);
    build(&j, 0xC0, 8, 0, 8, 3, s444, 0, 0, 0, -1);
    CHECK(gvis_jpeg_scan(j.b, j.n, &f) == -1);

    /* the CPU encoder's own file */
    gvis_image img;
    t_seed(3);
    t_make(&img, 37, 21, 3, GVIS_U8, 1, 0);
    gvis_buf b = {0};
    gvis_io_opts o = {0};
    o.quality = 90;
    CHECK_OK(gvis_image_encode(&img, GVIS_FMT_JPEG, &o, &b));
    CHECK(gvis_jpeg_scan(b.data, b.len, &f) == 0);
    CHECK(f.sof == 0xC0 && f.width == 37 && f.height == 21 && f.components == 3 && gvis_jpeg_gpu_candidate(&f));
    gvis_buf_free(&b);
    gvis_image_free(&img);
    return t_done("jpeg_markers");
}
