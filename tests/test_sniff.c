/* Stream sniffing (lib/io/sniff.c): each format's header gives a bound no smaller than a
 * real file of it, prefixes ask for more or agree, headers over the pixel limit and
 * foreign bytes are refused, and gvis_read_input stops /dev/zero and /dev/urandom at once. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define MORE 1000

static void check_format(gvis_format f, int w, int h, int c, gvis_type t, gvis_input_kind kind)
{
    gvis_image img;
    t_make(&img, w, h, c, t, 1, 0);
    gvis_buf b = {0};
    gvis_io_opts io = {0};
    int rc = gvis_image_encode(&img, f, &io, &b);
    gvis_image_free(&img);
    if (rc == GVIS_E_FORMAT) /* not in this build */
        return;
    CHECK_OK(rc);
    size_t bound = 0;
    rc = gvis_sniff_bound(b.data, b.len, kind, 0, &bound);
    CHECKF(rc == GVIS_OK && bound >= b.len, "%s %dx%dx%d: rc %d (%s), bound %zu < %zu bytes", gvis_format_name(f), w,
           h, c, rc, gvis_errmsg(), bound, b.len);
    /* every prefix: more wanted, or the same bound */
    for (size_t n = 1; n < b.len && n < 600; n++) {
        size_t pb = 0;
        int prc = gvis_sniff_bound(b.data, n, kind, 0, &pb);
        CHECKF(prc == MORE || (prc == GVIS_OK && pb == bound), "%s prefix %zu: rc %d (%s), bound %zu vs %zu",
               gvis_format_name(f), n, prc, prc == MORE ? "" : gvis_errmsg(), pb, bound);
        if (prc != MORE && prc != GVIS_OK)
            break;
    }
    /* a pixel limit under the image: refused from the header */
    rc = (size_t)w * h > 1 ? gvis_sniff_bound(b.data, b.len, kind, (size_t)w * h - 1, &bound) : GVIS_E_LIMIT;
    CHECKF(rc == GVIS_E_LIMIT || (f == GVIS_FMT_WEBP && rc == GVIS_OK) || (f == GVIS_FMT_NPY && rc == GVIS_OK),
           "%s under a smaller limit: rc %d", gvis_format_name(f), rc);
    gvis_buf_free(&b);
}

struct feeder {
    int fd;
    const uint8_t *data;
    size_t len;
};

static void *feed(void *arg)
{
    struct feeder *f = arg;
    size_t off = 0;
    while (off < f->len) {
        ssize_t n = write(f->fd, f->data + off, f->len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(f->fd);
    return NULL;
}

/* a PNG through a pipe: the same bytes come back */
static void check_pipe(void)
{
    gvis_image img;
    t_make(&img, 301, 77, 3, GVIS_U8, 0, 0);
    gvis_buf b = {0}, got = {0};
    gvis_io_opts io = {0};
    CHECK_OK(gvis_image_encode(&img, GVIS_FMT_PNG, &io, &b));
    gvis_image_free(&img);
    int p[2];
    if (pipe(p) != 0)
        return;
    struct feeder f = {p[1], b.data, b.len};
    pthread_t th;
    pthread_create(&th, NULL, feed, &f);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", p[0]);
    CHECK_OK(gvis_read_input(path, GVIS_IN_IMAGE, 0, 0, &got));
    CHECK(got.len == b.len && memcmp(got.data, b.data, b.len) == 0);
    pthread_join(th, NULL);
    close(p[0]);
    gvis_buf_free(&b);
    gvis_buf_free(&got);
}

int main(void)
{
    int sizes[][2] = {{1, 1}, {3, 2}, {37, 23}, {631, 479}};
    for (int i = 0; i < 4; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        check_format(GVIS_FMT_PNG, w, h, 3, GVIS_U8, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_PNG, w, h, 1, GVIS_U16, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_JPEG, w, h, 3, GVIS_U8, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_PGM, w, h, 1, GVIS_U16, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_PPM, w, h, 3, GVIS_U8, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_PFM, w, h, 3, GVIS_F32, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_NPY, w, h, 4, GVIS_F32, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_NPY, w, h, 1, GVIS_U8, GVIS_IN_NPY);
        check_format(GVIS_FMT_BMP, w, h, 3, GVIS_U8, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_TGA, w, h, 4, GVIS_U8, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_TIFF, w, h, 3, GVIS_U16, GVIS_IN_IMAGE);
        check_format(GVIS_FMT_WEBP, w, h, 3, GVIS_U8, GVIS_IN_IMAGE);
    }

    /* foreign bytes: refused from the first ones */
    uint8_t zero[64] = {0}, junk[64];
    for (int i = 0; i < 64; i++)
        junk[i] = (uint8_t)(i * 37 + 11);
    size_t bound;
    CHECK(gvis_sniff_bound(zero, sizeof zero, GVIS_IN_IMAGE, 0, &bound) == GVIS_E_FORMAT);
    CHECK(gvis_sniff_bound(junk, sizeof junk, GVIS_IN_IMAGE, 0, &bound) == GVIS_E_FORMAT);
    CHECK(gvis_sniff_bound(zero, sizeof zero, GVIS_IN_NPY, 0, &bound) == GVIS_E_FORMAT);
    CHECK(gvis_sniff_bound(zero, sizeof zero, GVIS_IN_TEXT, 0, &bound) == GVIS_E_FORMAT);
    CHECK(strstr(gvis_errmsg(), "not a text file") != NULL);
    CHECK(gvis_sniff_bound((const uint8_t *)"1 0 0\n", 6, GVIS_IN_TEXT, 0, &bound) == GVIS_OK);
    CHECK(gvis_sniff_bound(zero, sizeof zero, GVIS_IN_RAW, 0, &bound) == GVIS_OK && bound == SIZE_MAX);
    /* a PGM header over the limit, and a bound that is the header plus the pixels */
    const char *pgm = "P5\n# c\n4000 4000\n255\n";
    CHECK(gvis_sniff_bound((const uint8_t *)pgm, strlen(pgm), GVIS_IN_IMAGE, 1000, &bound) == GVIS_E_LIMIT);
    CHECK(gvis_sniff_bound((const uint8_t *)pgm, strlen(pgm), GVIS_IN_IMAGE, 0, &bound) == GVIS_OK &&
          bound == strlen(pgm) + 16000000);

    /* the devices: a few bytes read, a clear message */
    const char *devs[] = {"/dev/zero", "/dev/urandom"};
    gvis_input_kind kinds[] = {GVIS_IN_IMAGE, GVIS_IN_NPY, GVIS_IN_TEXT};
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 3; k++) {
            gvis_buf b = {0};
            double t0 = gvis_now_ms();
            int rc = gvis_read_input(devs[d], kinds[k], (size_t)1 << 30, 0, &b);
            double ms = gvis_now_ms() - t0;
            CHECKF(rc == GVIS_E_FORMAT && ms < 1000 && b.data == NULL, "%s kind %d: rc %d (%s) in %.1f ms", devs[d],
                   (int)kinds[k], rc, gvis_errmsg(), ms);
        }
    /* raw bytes: bounded by max_bytes alone */
    gvis_buf b = {0};
    CHECK(gvis_read_input("/dev/zero", GVIS_IN_RAW, 48, 0, &b) == GVIS_E_LIMIT && b.data == NULL);

    check_pipe();
    return t_done("test_sniff");
}
