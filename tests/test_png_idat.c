/* The PNG strip writer's IDAT chunks (lib/io/png_write.c) written straight from the
 * strips: with chunks of a few bytes (GVIS_TEST_PNG_IDAT_MAX), so that chunk boundaries
 * fall inside the zlib header, the strips and the Adler-32, libpng reads back every
 * pixel, 8 and 16 bit, 1 to 4 channels; and the bytes equal those of 1 GiB chunks but
 * for the chunk framing (the same zlib stream). */
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

/* the concatenated IDAT data of a PNG file */
static size_t idat(const gvis_buf *b, uint8_t *out, size_t cap, int *chunks)
{
    size_t at = 8, n = 0;
    *chunks = 0;
    while (at + 12 <= b->len) {
        const uint8_t *c = b->data + at;
        size_t len = (size_t)c[0] << 24 | (size_t)c[1] << 16 | (size_t)c[2] << 8 | c[3];
        if (memcmp(c + 4, "IDAT", 4) == 0) {
            if (n + len <= cap)
                memcpy(out + n, c + 8, len);
            n += len;
            ++*chunks;
        }
        at += 12 + len;
    }
    return n;
}

int main(void)
{
    t_seed(141);
    static const int chans[] = {1, 3, 4};
    for (int i = 0; i < 12; i++) {
        gvis_image img, back = {0};
        gvis_type t = i % 2 ? GVIS_U16 : GVIS_U8;
        t_make(&img, 1100 + (int)(t_rand() % 300), 960 + (int)(t_rand() % 200), chans[i % 3], t, (int)(t_rand() % 2), 0);
        gvis_buf whole = {0}, small = {0};
        unsetenv("GVIS_TEST_PNG_IDAT_MAX");
        CHECK_OK(gvis_image_encode(&img, GVIS_FMT_PNG, NULL, &whole));
        setenv("GVIS_TEST_PNG_IDAT_MAX", i % 3 == 0 ? "1" : i % 3 == 1 ? "7" : "4099", 1);
        CHECK_OK(gvis_image_encode(&img, GVIS_FMT_PNG, NULL, &small));
        CHECK_OK(gvis_image_decode(small.data, small.len, NULL, &back));
        CHECKF(t_equal(&img, &back), "case %d: pixels differ", i);
        size_t cap = whole.len + small.len;
        uint8_t *a = malloc(cap), *b = malloc(cap);
        int ca, cb;
        size_t na = idat(&whole, a, cap, &ca), nb = idat(&small, b, cap, &cb);
        CHECK(na == nb && memcmp(a, b, na) == 0);
#ifdef GVIS_HAVE_PNG /* the strips are libpng's writer's; stb writes its own chunks */
        CHECKF(cb > ca || gvis_threads() < 2, "case %d: %d chunks against %d", i, cb, ca);
#endif
        free(a);
        free(b);
        gvis_buf_free(&whole);
        gvis_buf_free(&small);
        gvis_image_free(&img);
        gvis_image_free(&back);
    }
    return t_done("test_png_idat");
}
