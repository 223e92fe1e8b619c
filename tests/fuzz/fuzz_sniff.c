/* Fuzz target for the stream sniffer (gvis_sniff_bound, lib/io/sniff.c) that bounds every
 * stream input.  The first byte picks the kind (image, NPY, text, raw) and the pixel
 * limit; the rest is the stream's start.  Invariants: a status is OK, "more", or a format
 * or limit error with a message; a bound, once given, does not change as more bytes come;
 * and an image the decoder accepts is never longer than the bound its header gave (a real
 * file is never cut off). */
#include "fuzz.h"

#define MORE 1000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const gvis_input_kind kinds[4] = {GVIS_IN_IMAGE, GVIS_IN_NPY, GVIS_IN_TEXT, GVIS_IN_RAW};
    gvis_input_kind kind = kinds[data[0] & 3];
    size_t max_pixels = (data[0] & 4) ? 1000 : 0;
    data++;
    size--;
    size_t bound = 0;
    int rc = gvis_sniff_bound(data, size, kind, max_pixels, &bound);
    FUZZ_NOTE("sniff kind %d: %d %s bound %zu", (int)kind, rc, rc && rc != MORE ? gvis_errmsg() : "", bound);
    FUZZ_ASSERT(rc == GVIS_OK || rc == MORE || rc == GVIS_E_FORMAT || rc == GVIS_E_LIMIT, "status %d", rc);
    if (rc != GVIS_OK && rc != MORE)
        FUZZ_FAILED_WITH_MESSAGE(rc);
    if (rc == GVIS_OK)
        FUZZ_ASSERT(bound > 0, "a bound of 0");
    /* a prefix agrees: more wanted, the same bound, or the same refusal */
    for (size_t n = 1; n < size && n <= 64; n++) {
        size_t pb = 0;
        int prc = gvis_sniff_bound(data, n, kind, max_pixels, &pb);
        if (prc == GVIS_OK && rc == GVIS_OK)
            FUZZ_ASSERT(pb == bound, "prefix %zu: bound %zu, whole: %zu", n, pb, bound);
        if (prc == GVIS_OK)
            FUZZ_ASSERT(rc == GVIS_OK, "prefix %zu bounded, whole refused (%d)", n, rc);
    }
    if (kind == GVIS_IN_IMAGE && rc == GVIS_OK) {
        gvis_io_opts io = {0};
        io.max_pixels = max_pixels;
        gvis_image img = {0};
        if (gvis_image_decode(data, size, &io, &img) == GVIS_OK) {
            FUZZ_ASSERT(size <= bound, "a readable %dx%d image of %zu bytes beyond its bound %zu", img.width,
                        img.height, size, bound);
            gvis_image_free(&img);
        }
    }
    return 0;
}
