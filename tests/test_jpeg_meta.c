/* gvis_jpeg_splice_meta (lib/io/jpeg_meta.c): the markers it puts around another
 * encoder's stream are libjpeg-turbo's own.  A JPEG written with --strip and then given
 * the image's metadata by the splice must equal, byte for byte, the one libjpeg-turbo
 * writes with that metadata (resolution, EXIF, an ICC profile of one and of three
 * chunks); a stream without a JFIF segment (as another encoder may write) too; broken
 * streams are refused. */
#include <string.h>

#include "codec.h"
#include "testlib.h"

#ifndef GVIS_HAVE_JPEG
int main(void)
{
    printf("skipped: built without libjpeg-turbo\n");
    return 77;
}
#else
static void same_as_libjpeg(const gvis_image *img, const gvis_meta *m, const char *what)
{
    gvis_io_opts with = {0}, strip = {0};
    strip.strip = 1;
    gvis_buf want = {0}, bare = {0}, got = {0}, nojfif = {0}, got2 = {0};
    CHECK_OK(gvis_image_encode(img, GVIS_FMT_JPEG, &with, &want));
    CHECK_OK(gvis_image_encode(img, GVIS_FMT_JPEG, &strip, &bare));
    CHECK_OK(gvis_jpeg_splice_meta(bare.data, bare.len, m, &got));
    CHECKF(got.len == want.len && memcmp(got.data, want.data, want.len) == 0, "%s: %zu bytes, libjpeg-turbo %zu",
           what, got.len, want.len);
    /* the same stream with its JFIF APP0 taken out */
    CHECK(bare.len > 20 && bare.data[2] == 0xff && bare.data[3] == 0xe0);
    size_t app0 = 2 + ((size_t)bare.data[4] << 8 | bare.data[5]);
    gvis_buf_append(&nojfif, bare.data, 2);
    gvis_buf_append(&nojfif, bare.data + 2 + app0, bare.len - 2 - app0);
    CHECK_OK(gvis_jpeg_splice_meta(nojfif.data, nojfif.len, m, &got2));
    CHECKF(got2.len == want.len && memcmp(got2.data, want.data, want.len) == 0, "%s, no JFIF: %zu bytes, want %zu",
           what, got2.len, want.len);
    /* and it decodes with the metadata */
    gvis_image back;
    gvis_io_opts keep = {0};
    keep.no_autorotate = 1;
    CHECK_OK(gvis_image_decode(got.data, got.len, &keep, &back));
    if (m) {
        CHECKF(back.meta && (!m->icc || (back.meta->icc_len == m->icc_len && !memcmp(back.meta->icc, m->icc, m->icc_len))),
               "%s: ICC profile lost", what);
        CHECKF(back.meta && (!m->exif || back.meta->exif_len == m->exif_len), "%s: EXIF lost", what);
    }
    gvis_image_free(&back);
    gvis_buf_free(&want), gvis_buf_free(&bare), gvis_buf_free(&got), gvis_buf_free(&nojfif), gvis_buf_free(&got2);
}

int main(void)
{
    static const uint8_t exif[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 1, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};
    const size_t icc_sizes[] = {0, 200, 2 * 65519 + 77};
    for (int k = 0; k < 3; k++) {
        gvis_image img;
        t_make(&img, 37 + 100 * k, 23 + 50 * k, 3, GVIS_U8, 1, 0);
        same_as_libjpeg(&img, NULL, "no metadata");
        gvis_meta *m = gvis_meta_of(&img);
        CHECK(m != NULL);
        m->xres = k == 2 ? 70000 : 72 + 228 * k; /* 70000: beyond JFIF, not written */
        m->yres = 96.4;
        if (k > 0)
            CHECK_OK(gvis_meta_set_exif(m, exif, sizeof exif));
        if (icc_sizes[k]) {
            m->icc = malloc(icc_sizes[k]);
            m->icc_len = icc_sizes[k];
            for (size_t i = 0; i < icc_sizes[k]; i++)
                m->icc[i] = (uint8_t)(t_rand() >> 7);
        }
        char what[64];
        snprintf(what, sizeof what, "metadata set %d", k);
        same_as_libjpeg(&img, m, what);
        gvis_image_free(&img);
    }
    /* broken streams */
    gvis_buf b = {0};
    static const uint8_t not_jpeg[] = {0x89, 'P', 'N', 'G', 0, 0};
    static const uint8_t cut_app0[] = {0xff, 0xd8, 0xff, 0xe0, 0x00, 0x40, 'J', 'F'};
    CHECK(gvis_jpeg_splice_meta(not_jpeg, sizeof not_jpeg, NULL, &b) == GVIS_E_FORMAT && b.len == 0);
    CHECK(gvis_jpeg_splice_meta(cut_app0, sizeof cut_app0, NULL, &b) == GVIS_E_FORMAT && b.len == 0);
    CHECK(gvis_jpeg_splice_meta(not_jpeg, 2, NULL, &b) == GVIS_E_FORMAT && b.len == 0);
    gvis_buf_free(&b);
    return t_done("test_jpeg_meta");
}
#endif
