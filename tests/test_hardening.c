/* Regression tests for the library fixes of the hardening work (docs/notes-hardening.md):
 * each holds in every build, not only under the sanitizers or the fuzzers that found them. */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static int read_testdata(const char *rel, gvis_buf *b)
{
    const char *root = getenv("TESTDATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root ? root : "testdata", rel);
    int rc = gvis_read_file(path, b, 0);
    CHECKF(rc == GVIS_OK, "%s: %s", path, gvis_errmsg());
    return rc;
}

/* gvis_error(E, "%s", gvis_errmsg()) re-raises the message with another status; it used
 * to format the buffer into itself and leave it empty (fuzz_matrix). */
static void error_message_aliasing(void)
{
    gvis_error(GVIS_E_ARG, "matrix is singular");
    int rc = gvis_error(GVIS_E_FORMAT, "%s", gvis_errmsg());
    CHECK(rc == GVIS_E_FORMAT);
    CHECKF(strcmp(gvis_errmsg(), "matrix is singular") == 0, "message '%s'", gvis_errmsg());
    gvis_error(GVIS_E_IO, "tail %d", 7);
    gvis_error(GVIS_E_IO, "head: %s", gvis_errmsg());
    CHECKF(strcmp(gvis_errmsg(), "head: tail 7") == 0, "message '%s'", gvis_errmsg());
    gvis_error(GVIS_E_IO, "abc");
    gvis_error_prefix(gvis_errmsg());
    CHECKF(strcmp(gvis_errmsg(), "abc: abc") == 0, "prefix with itself: '%s'", gvis_errmsg());
    /* a long message is cut, never overrun */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    gvis_error(GVIS_E_IO, "%s", big);
    gvis_error_prefix(big);
    CHECK(strlen(gvis_errmsg()) < 1024);
}

/* JPEGs whose Huffman tables stb_image would overrun or read uninitialised (fuzz_jpeg)
 * are refused before stb reads them. */
static void jpeg_huffman_table(void)
{
    /* the second is cut short inside its table (stb reads zeros past the end); the third
     * decodes a progressive scan with an AC table no DHT defined (uninitialised memory in
     * stb, which failed an STBI_ASSERT in the fuzzer) */
    static const char *const bad[][2] = {
        {"fuzz/jpeg/regress-dht-over-256-codes.jpg", "Huffman table of 631 codes"},
        {"fuzz/jpeg/regress-dht-cut-short.jpg", "Huffman table of 278 codes"},
        {"fuzz/jpeg/regress-undefined-huffman-table.jpg", "a scan uses a Huffman table never defined"},
    };
    gvis_image img;
    int rc;
    /* libjpeg-turbo refuses them with its own words */
    int stb = strncmp(gvis_codec_name(GVIS_FMT_JPEG, 0), "stb", 3) == 0;
    for (int i = 0; i < 3; i++) {
        gvis_buf b = {0};
        if (read_testdata(bad[i][0], &b))
            continue;
        b.data[0] = 0xff; /* the fuzz target forces the signature; the files keep theirs */
        b.data[1] = 0xd8;
        rc = gvis_image_decode(b.data, b.len, NULL, &img);
        CHECKF(rc == GVIS_E_FORMAT && strstr(gvis_errmsg(), stb ? bad[i][1] : "corrupt or truncated JPEG"),
               "%s: status %d: %s", bad[i][0], rc, gvis_errmsg());
        if (rc == GVIS_OK)
            gvis_image_free(&img);
        gvis_buf_free(&b);
    }
    /* the valid JPEG seeds still decode */
    const char *ok[] = {"fuzz/jpeg/gray.jpg", "fuzz/jpeg/rgb.jpg", "fuzz/jpeg/progressive.jpg"};
    for (int i = 0; i < 3; i++) {
        gvis_buf g = {0};
        if (read_testdata(ok[i], &g))
            continue;
        rc = gvis_image_decode(g.data, g.len, NULL, &img);
        CHECKF(rc == GVIS_OK, "%s: %s", ok[i], gvis_errmsg());
        if (rc == GVIS_OK)
            gvis_image_free(&img);
        gvis_buf_free(&g);
    }
}

/* stb_image reads GIF, PSD, PIC, HDR and its own PNM too; gvis hands it only PNG, JPEG,
 * BMP and TGA (a "P6999..." header overflowed stb's PNM integers: fuzz_pnm). */
#define BYTES(s) s, sizeof(s) - 1
static void unknown_formats(void)
{
    static const struct {
        const char *name;
        const char *bytes;
        size_t len;
    } cases[] = {
        {"gif", BYTES("GIF89a\001\000\001\000\200\000\000\377\377\377\000\000\000!\371\004\000\000\000\000\000,"
                "\000\000\000\000\001\000\001\000\000\002\002D\001\000;")},
        {"psd", BYTES("8BPS\000\001\000\000\000\000\000\000\000\001\000\000\000\001\000\000\000\001\000\010\000\001")},
        {"hdr", BYTES("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 1\n\200\200\200\200")},
        {"stb pnm", BYTES("P699999999999999999999#")},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gvis_image img;
        int rc = gvis_image_decode((const uint8_t *)cases[i].bytes, cases[i].len, NULL, &img);
        CHECKF(rc == GVIS_E_FORMAT && strstr(gvis_errmsg(), "unknown format"), "%s: status %d: %s", cases[i].name, rc,
               gvis_errmsg());
        if (rc == GVIS_OK)
            gvis_image_free(&img);
    }
}

/* Palette indices past a PNG's PLTE or a BMP's colour table read uninitialised stack
 * memory in stb_image (MemorySanitizer on fuzz_png and fuzz_bmp); the palette is padded
 * with black first, as libpng and OpenCV show such pixels.  The OS/2 BMP's table of 3
 * was not read at all (stb counts OS/2 entries 4 short). */
static void palettes(void)
{
    static const struct {
        const char *file;
        int x;
        uint8_t rgb[3];
    } want[] = {
        {"fuzz/png/palette_short.png", 0, {200, 100, 50}}, {"fuzz/png/palette_short.png", 1, {10, 20, 30}},
        {"fuzz/png/palette_short.png", 2, {0, 0, 0}},      {"fuzz/png/palette_short.png", 3, {0, 0, 0}},
        {"fuzz/bmp/pal3.bmp", 0, {200, 100, 50}},          {"fuzz/bmp/pal3.bmp", 2, {3, 2, 1}},
        {"fuzz/bmp/pal3.bmp", 3, {0, 0, 0}},               {"fuzz/bmp/pal3_os2.bmp", 0, {3, 2, 1}},
        {"fuzz/bmp/pal3_os2.bmp", 1, {0, 0, 0}},           {"fuzz/bmp/pal3_os2.bmp", 2, {200, 100, 50}},
        {"fuzz/bmp/pal3_os2.bmp", 3, {10, 20, 30}},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        gvis_buf b = {0};
        if (read_testdata(want[i].file, &b))
            continue;
        gvis_image img;
        int rc = gvis_image_decode(b.data, b.len, NULL, &img);
        CHECKF(rc == GVIS_OK && img.channels >= 3 && img.type == GVIS_U8, "%s: %s", want[i].file, gvis_errmsg());
        if (rc == GVIS_OK) {
            const uint8_t *p = (const uint8_t *)GVIS_ROW(&img, 0) + want[i].x * img.channels;
            CHECKF(memcmp(p, want[i].rgb, 3) == 0, "%s pixel %d: %d %d %d, wanted %d %d %d", want[i].file, want[i].x,
                   p[0], p[1], p[2], want[i].rgb[0], want[i].rgb[1], want[i].rgb[2]);
            gvis_image_free(&img);
        }
        gvis_buf_free(&b);
    }
}

/* Images whose rows pass stb_image_write's int arithmetic (or the 2 GiB gvis's in-memory
 * encoders take, or JPEG's and WebP's side limits) are refused before any pixel is read
 * (the data pointer below holds one row only). */
static void encoder_limits(void)
{
    static uint8_t row[64];
    struct {
        int w, h, c;
        gvis_type t;
        gvis_format f;
    } cases[] = {
        {60000, 40000, 1, GVIS_U8, GVIS_FMT_PNG},  /* 2.4 GB of rows: over every PNG writer's bound */
        {40000, 30000, 1, GVIS_U16, GVIS_FMT_PNG}, /* 16-bit PNG */
        {70000, 10, 3, GVIS_U8, GVIS_FMT_JPEG},    /* past JPEG's 65500 a side (libjpeg) */
        {20000, 10, 3, GVIS_U8, GVIS_FMT_WEBP},    /* past WebP's 16383 a side */
        {50000, 50000, 1, GVIS_U8, GVIS_FMT_JPEG}, /* 2.5 GB: past int */
        {50000, 16000, 3, GVIS_U8, GVIS_FMT_BMP},
        {50000, 16000, 3, GVIS_U8, GVIS_FMT_TGA},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!gvis_codec_name(cases[i].f, 1))
            continue;
        if (cases[i].h == 10 && strncmp(gvis_codec_name(cases[i].f, 1), "stb", 3) == 0)
            continue; /* stb's JPEG writer has no side limit */
        gvis_image img = {cases[i].w, cases[i].h, cases[i].c, cases[i].t, 0, row, NULL};
        img.stride = (size_t)img.width * (size_t)img.channels * (size_t)img.type;
        gvis_buf b = {0};
        int rc = gvis_image_encode(&img, cases[i].f, NULL, &b);
        CHECKF(rc == GVIS_E_LIMIT && strstr(gvis_errmsg(), "too large") && strstr(gvis_errmsg(), "write ."),
               "%s %dx%d: status %d: %s",
               gvis_format_name(cases[i].f), img.width, img.height, rc, gvis_errmsg());
        gvis_buf_free(&b);
    }
}

int main(void)
{
    error_message_aliasing();
    jpeg_huffman_table();
    unknown_formats();
    palettes();
    encoder_limits();
    return t_done("test_hardening");
}
