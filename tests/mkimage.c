/* mkimage: writes test images for the CLI tests and scripts/bench.
 *   mkimage W H CHANNELS TYPE KIND OUT
 * TYPE u8, u16 or f32; KIND random, smooth, skewed (four values) or constant; OUT's
 * extension picks the format.  GVIS_TEST_SEED changes the random numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: mkimage W H CHANNELS u8|u16|f32 random|smooth|skewed|constant OUT\n");
        return 2;
    }
    int w = atoi(argv[1]), h = atoi(argv[2]), c = atoi(argv[3]);
    gvis_type t = strcmp(argv[4], "u16") == 0 ? GVIS_U16 : strcmp(argv[4], "f32") == 0 ? GVIS_F32 : GVIS_U8;
    const char *kinds[] = {"random", "smooth", "skewed", "constant"};
    int kind = -1;
    for (int k = 0; k < 4; k++)
        if (strcmp(argv[5], kinds[k]) == 0)
            kind = k;
    if (kind < 0) {
        fprintf(stderr, "mkimage: unknown kind '%s'\n", argv[5]);
        return 2;
    }
    t_seed(12345);
    gvis_image img;
    t_make(&img, w, h, c, t, kind, 0);
    gvis_buf b = {0};
    gvis_format f = gvis_format_from_path(argv[6]);
    int rc = gvis_image_encode(&img, f, NULL, &b);
    if (!rc)
        rc = gvis_write_file_atomic(argv[6], b.data, b.len);
    if (rc) {
        fprintf(stderr, "mkimage: %s: %s\n", argv[6], gvis_errmsg());
        return 1;
    }
    gvis_buf_free(&b);
    gvis_image_free(&img);
    return 0;
}
