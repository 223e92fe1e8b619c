/* Fuzz target for the GPU path's JPEG marker walk (cuda/io/jpeg_markers.c): never reads
 * past the input; what it accepts is self-consistent (sizes, sampling, orientation, the
 * candidate rule); and where libjpeg-turbo decodes the same bytes, the frame size agrees. */
#include "fuzz.h"
#include "jpeg_markers.h"
#include "nvjpeg_abi.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly size bytes, so that ASan sees any read past the end */
    uint8_t *p = malloc(size ? size : 1);
    memcpy(p, data, size);
    gvis_jpeg_info f;
    int rc = gvis_jpeg_scan(p, size, &f);
    if (rc == 0) {
        FUZZ_ASSERT(f.width > 0 && f.height > 0 && f.components > 0, "accepted an empty frame");
        for (int c = 0; c < f.components && c < 4; c++)
            FUZZ_ASSERT(f.h[c] >= 1 && f.h[c] <= 4 && f.v[c] >= 1 && f.v[c] <= 4, "sampling out of range");
        FUZZ_ASSERT(f.orientation >= 0 && f.orientation <= 8, "orientation %d", f.orientation);
        if (gvis_jpeg_gpu_candidate(&f))
            FUZZ_ASSERT((f.sof == 0xC0 || f.sof == 0xC1) && f.precision == 8 && gvis_jpeg_css(&f) >= 0,
                        "candidate without a baseline 8-bit frame of known sampling");
        gvis_io_opts o = {0};
        o.max_pixels = (size_t)1 << 20;
        o.no_autorotate = 1;
        gvis_image img;
        if (gvis_image_decode(p, size, &o, &img) == GVIS_OK) {
            FUZZ_NOTE("decoded %dx%d, markers say %dx%d sof %x", img.width, img.height, f.width, f.height, f.sof);
            FUZZ_ASSERT(img.width == f.width && img.height == f.height, "libjpeg-turbo says %dx%d, markers %dx%d",
                        img.width, img.height, f.width, f.height);
            gvis_image_free(&img);
        }
    } else {
        FUZZ_NOTE("refused");
    }
    free(p);
    return 0;
}
