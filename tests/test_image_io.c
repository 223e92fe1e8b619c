/* Image I/O: every written format reads back the same; foreign files (written by
 * OpenCV, see testdata/README.md) read as expected; bad headers are refused early. */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static int has_codec(gvis_format f) { return gvis_codec_name(f, 0) && gvis_codec_name(f, 1); }
static int by_stb(gvis_format f) { return strncmp(gvis_codec_name(f, 1), "stb", 3) == 0; }

/* BMP and JPEG through stb_image_write store gray as RGB; libjpeg keeps gray and drops
 * alpha; WebP stores gray as RGB. */
static int stored_channels(gvis_format f, int c)
{
    if (f == GVIS_FMT_JPEG)
        return by_stb(f) ? (c == 1 ? 3 : c) : c == 4 ? 3 : c;
    if (f == GVIS_FMT_BMP || f == GVIS_FMT_WEBP)
        return c == 1 ? 3 : c;
    return c;
}

static gvis_io_opts rt_opts; /* the options of the round trips */

static void roundtrip(int w, int h, int c, gvis_type t, gvis_format f, int lossless)
{
    gvis_image a, b;
    t_make(&a, w, h, c, t, 1, 16);
    gvis_buf buf = {0};
    CHECK_OK(gvis_image_encode(&a, f, &rt_opts, &buf));
    int rc = gvis_image_decode(buf.data, buf.len, &rt_opts, &b);
    CHECKF(rc == GVIS_OK, "%s %dx%dx%d %s: %s", gvis_format_name(f), w, h, c, gvis_type_name(t), gvis_errmsg());
    if (rc == GVIS_OK) {
        CHECKF(b.width == w && b.height == h && b.channels == stored_channels(f, c) && b.type == t,
               "%s %dx%dx%d: read back as %dx%dx%d", gvis_format_name(f), w, h, c, b.width, b.height, b.channels);
        if (b.channels != c) {
            /* compare the colour channels the format kept */
            int ok = 1;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    for (int k = 0; k < (c < b.channels ? 3 : b.channels); k++) {
                        int va = ((uint8_t *)GVIS_ROW(&a, y))[x * c + (c == 1 ? 0 : k)];
                        int vb = ((uint8_t *)GVIS_ROW(&b, y))[x * b.channels + k];
                        ok &= lossless ? va == vb : abs(va - vb) < 40;
                    }
            CHECKF(ok, "%s %dx%dx%d: colour channels differ", gvis_format_name(f), w, h, c);
        } else if (lossless)
            CHECKF(t_equal(&a, &b), "%s %dx%dx%d %s differs", gvis_format_name(f), w, h, c, gvis_type_name(t));
        else
            CHECKF(t_maxdiff(&a, &b) < 40, "%s differs by %g", gvis_format_name(f), t_maxdiff(&a, &b));
        gvis_image_free(&b);
    }
    gvis_buf_free(&buf);
    gvis_image_free(&a);
}

static void expect_error(const char *what, const uint8_t *d, size_t n, int status, const gvis_io_opts *o)
{
    gvis_image img;
    int rc = gvis_image_decode(d, n, o, &img);
    CHECKF(rc == status, "%s: got %d (%s), want %d", what, rc, gvis_errmsg(), status);
    if (rc == GVIS_OK)
        gvis_image_free(&img);
    else
        CHECKF(img.data == NULL && gvis_errmsg()[0], "%s: no message or data left", what);
}

static int load_path(const char *dir, const char *name, gvis_image *img)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gvis_buf b = {0};
    int rc = gvis_read_file(path, &b, 0);
    if (!rc)
        rc = gvis_image_decode(b.data, b.len, NULL, img);
    CHECKF(rc == GVIS_OK, "%s: %s", path, gvis_errmsg());
    gvis_buf_free(&b);
    return rc;
}

/* A file another tool wrote against the pixels it was given (saved as NPY, RGB order). */
static void foreign_file_test(const char *dir, const char *name, const char *expected)
{
    gvis_image a, b;
    if (load_path(dir, name, &a))
        return;
    if (!load_path(dir, expected, &b)) {
        CHECKF(t_equal(&a, &b), "%s differs from %s", name, expected);
        gvis_image_free(&b);
    }
    gvis_image_free(&a);
}

int main(void)
{
    t_seed(1);
    const int sizes[][2] = {{1, 1}, {1, 7}, {9, 1}, {31, 17}, {640, 3}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        for (int c = 1; c <= 4; c++) {
            if (c == 2)
                continue;
            roundtrip(w, h, c, GVIS_U8, GVIS_FMT_PNG, 1);
            roundtrip(w, h, c, GVIS_U16, GVIS_FMT_PNG, 1);
            roundtrip(w, h, c, GVIS_U8, GVIS_FMT_BMP, 1);
            roundtrip(w, h, c, GVIS_U8, GVIS_FMT_TGA, 1);
            roundtrip(w, h, c, GVIS_U8, GVIS_FMT_NPY, 1);
            roundtrip(w, h, c, GVIS_U16, GVIS_FMT_NPY, 1);
            roundtrip(w, h, c, GVIS_F32, GVIS_FMT_NPY, 1);
            if (c != 4) {
                roundtrip(w, h, c, GVIS_U8, c == 1 ? GVIS_FMT_PGM : GVIS_FMT_PPM, 1);
                roundtrip(w, h, c, GVIS_U16, c == 1 ? GVIS_FMT_PGM : GVIS_FMT_PPM, 1);
                roundtrip(w, h, c, GVIS_F32, GVIS_FMT_PFM, 1);
            }
            if ((c != 4 || !by_stb(GVIS_FMT_JPEG)) && w >= 8 && h >= 8)
                roundtrip(w, h, c, GVIS_U8, GVIS_FMT_JPEG, 0);
            if (has_codec(GVIS_FMT_TIFF)) {
                roundtrip(w, h, c, GVIS_U8, GVIS_FMT_TIFF, 1);
                roundtrip(w, h, c, GVIS_U16, GVIS_FMT_TIFF, 1);
                roundtrip(w, h, c, GVIS_F32, GVIS_FMT_TIFF, 1);
            }
            if (has_codec(GVIS_FMT_WEBP)) {
                rt_opts.lossless = 1;
                roundtrip(w, h, c, GVIS_U8, GVIS_FMT_WEBP, 1);
                rt_opts.lossless = 0;
                if (w >= 8 && h >= 8 && c != 4) /* lossy alpha is its own stream, near but not equal */
                    roundtrip(w, h, c, GVIS_U8, GVIS_FMT_WEBP, 0);
            }
        }
    }
    /* large enough for the PNG writer's parallel strips (over 1 MB), odd sizes */
    for (int c = 1; c <= 4; c++) {
        if (c == 2)
            continue;
        roundtrip(701, 509, c, GVIS_U8, GVIS_FMT_PNG, 1);
        roundtrip(401, 333, c, GVIS_U16, GVIS_FMT_PNG, 1);
    }
    /* a second PNG level, libpng's adaptive filters */
    rt_opts.png_level = 10;
    roundtrip(31, 17, 3, GVIS_U8, GVIS_FMT_PNG, 1);
    roundtrip(31, 17, 4, GVIS_U16, GVIS_FMT_PNG, 1);
    rt_opts.png_level = 0;

    /* refused combinations */
    gvis_image img;
    gvis_buf b = {0};
    t_make(&img, 4, 4, 3, GVIS_U16, 0, 0);
    CHECK(gvis_image_encode(&img, GVIS_FMT_JPEG, NULL, &b) == GVIS_E_FORMAT);
    CHECK(gvis_image_encode(&img, GVIS_FMT_PGM, NULL, &b) == GVIS_E_FORMAT);
    CHECK(gvis_image_encode(&img, GVIS_FMT_PFM, NULL, &b) == GVIS_E_FORMAT);
    gvis_image_free(&img);
    gvis_buf_free(&b);

    /* headers: limits before allocation, truncation, garbage */
    gvis_io_opts small = {.max_pixels = 100};
    t_make(&img, 20, 20, 1, GVIS_U8, 0, 0);
    const gvis_format fmts[] = {GVIS_FMT_PNG, GVIS_FMT_PGM, GVIS_FMT_BMP,  GVIS_FMT_TGA,
                                GVIS_FMT_NPY, GVIS_FMT_JPEG, GVIS_FMT_TIFF, GVIS_FMT_WEBP};
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        if (!has_codec(fmts[k]))
            continue;
        memset(&b, 0, sizeof b);
        CHECK_OK(gvis_image_encode(&img, fmts[k], NULL, &b));
        expect_error(gvis_format_name(fmts[k]), b.data, b.len, GVIS_E_LIMIT, &small);
        expect_error(gvis_format_name(fmts[k]), b.data, b.len / 2, GVIS_E_FORMAT, NULL);
        if (fmts[k] != GVIS_FMT_TIFF) /* TIFF's last bytes are the next-IFD offset, which libtiff may miss */
            expect_error(gvis_format_name(fmts[k]), b.data, b.len - 1, GVIS_E_FORMAT, NULL);
        gvis_buf_free(&b);
    }
    gvis_image_free(&img);
    t_make(&img, 20, 20, 1, GVIS_F32, 1, 0);
    CHECK_OK(gvis_image_encode(&img, GVIS_FMT_PFM, NULL, &b));
    expect_error("pfm limit", b.data, b.len, GVIS_E_LIMIT, &small);
    expect_error("pfm truncated", b.data, b.len - 5, GVIS_E_FORMAT, NULL);
    gvis_buf_free(&b);
    gvis_image_free(&img);
    expect_error("empty", (const uint8_t *)"", 0, GVIS_E_FORMAT, NULL);
    expect_error("garbage", (const uint8_t *)"hello world, not an image", 25, GVIS_E_FORMAT, NULL);
    const char huge_pfm[] = "Pf\n100000 100000\n-1.0\n";
    expect_error("huge pfm", (const uint8_t *)huge_pfm, sizeof huge_pfm - 1, GVIS_E_LIMIT, NULL);
    const char zero_pgm[] = "P5\n0 10\n255\n";
    expect_error("zero pgm", (const uint8_t *)zero_pgm, sizeof zero_pgm - 1, GVIS_E_FORMAT, NULL);
    const char huge_pgm[] = "P5\n60000 60000\n255\n";
    expect_error("huge pgm", (const uint8_t *)huge_pgm, sizeof huge_pgm - 1, GVIS_E_LIMIT, NULL);

    /* files written by another tool (OpenCV; testdata/README.md says how) */
    const char *dir = getenv("TESTDATA");
    if (dir) {
        static const char *files[][2] = {
            {"io/cv_gray16.png", "io/gray16.npy"}, {"io/cv_gray16.pgm", "io/gray16.npy"},
            {"io/cv_rgb16.png", "io/rgb16.npy"},   {"io/cv_rgb16.ppm", "io/rgb16.npy"},
            {"io/cv_rgb8.png", "io/rgb8.npy"},     {"io/cv_rgb8.ppm", "io/rgb8.npy"},
            {"io/cv_rgb8.bmp", "io/rgb8.npy"},     {"io/cv_rgba8.png", "io/rgba8.npy"},
            {"io/cv_gray8.pgm", "io/gray8.npy"},   {"io/cv_gray8.png", "io/gray8.npy"},
            {"io/cv_gray32f.pfm", "io/gray32f.npy"}, {"io/cv_rgb32f.pfm", "io/rgb32f.npy"},
        };
        for (size_t k = 0; k < sizeof files / sizeof files[0]; k++)
            foreign_file_test(dir, files[k][0], files[k][1]);
    } else {
        CHECKF(0, "TESTDATA is not set");
    }
    return t_done("test_image_io");
}
