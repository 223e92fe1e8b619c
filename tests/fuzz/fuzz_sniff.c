/* Fuzz target for the stream sniffer (gvis_sniff_bound, lib/io/sniff.c) that bounds every
 * stream input.  The first byte picks the kind (image, NPY, text, raw) and the pixel
 * limit; the rest is the stream's start.  Invariants: a status is OK, "more", or a format
 * or limit error with a message; a bound, once given, does not change as more bytes come;
 * and an image the decoder accepts decodes the same from the bytes its bound keeps (a real
 * file is never cut off; trailing bytes past the bound are never read from a stream). */
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
        /* text is text only until a binary byte comes: a later one refuses the whole */
        if (prc == GVIS_OK && kind != GVIS_IN_TEXT)
            FUZZ_ASSERT(rc == GVIS_OK, "prefix %zu bounded, whole refused (%d)", n, rc);
    }
    if (kind == GVIS_IN_IMAGE && rc == GVIS_OK) {
        gvis_io_opts io = {0};
        io.max_pixels = max_pixels;
        gvis_image img = {0};
        if (gvis_image_decode(data, size, &io, &img) == GVIS_OK) {
            /* bytes past the bound (trailing data a decoder ignores, such as a second
             * netpbm image) are never read from a stream: what the bound keeps must decode
             * to the same image */
            if (size > bound) {
                gvis_image cut = {0};
                int crc = gvis_image_decode(data, bound, &io, &cut);
                FUZZ_ASSERT(crc == GVIS_OK, "a readable %dx%d image of %zu bytes is cut off by its bound %zu (%s)",
                            img.width, img.height, size, bound, gvis_errmsg());
                int same = cut.width == img.width && cut.height == img.height && cut.channels == img.channels &&
                           cut.type == img.type;
                for (int y = 0; same && y < img.height; y++)
                    same = memcmp(GVIS_ROW(&cut, y), GVIS_ROW(&img, y),
                                  (size_t)img.width * img.channels * (size_t)img.type) == 0;
                FUZZ_ASSERT(same, "the first %zu bytes of a %zu-byte image decode to another image", bound, size);
                gvis_image_free(&cut);
            }
            gvis_image_free(&img);
        }
    }
    return 0;
}
