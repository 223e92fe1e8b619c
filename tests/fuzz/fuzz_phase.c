/* Fuzz target for the phase-map readers of `gvis disparity --method phase`: the bytes
 * after a 4-byte header are decoded as a PFM, NPY or 16-bit PNG phase map (header byte 0
 * picks, the signature is forced), turned into float phases (gvis_phase_to_float: NaN and
 * infinities refused, one channel) and matched against a copy shifted by one pixel, with
 * the window, tolerance, search and range taken from the header bytes.  A map must come
 * back region-sized with NaN or disparities inside the range (+-1 for the sub-pixel
 * step), and every failure must say why. */
#include <math.h>

#include "fuzz.h"
#include "phase.h"

#define FUZZ_MAX_PIXELS ((size_t)1 << 16)

static gvis_ctx *ctx;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    if (!ctx && gvis_ctx_create(&ctx, "cpu", 1, NULL, NULL, NULL))
        return 0;
    const uint8_t *h = data;
    size_t n = size - 4;
    uint8_t *d = malloc(n ? n : 1);
    if (!d)
        return 0;
    memcpy(d, data + 4, n);
    switch (h[0] % 3) {
    case 0:
        if (n >= 2)
            d[0] = 'P', d[1] = (d[1] & 0x20) ? 'f' : 'F';
        break;
    case 1:
        if (n >= 6)
            memcpy(d, "\x93NUMPY", 6);
        break;
    default:
        if (n >= 8)
            memcpy(d, "\x89PNG\r\n\x1a\n", 8);
        break;
    }
    gvis_io_opts o = {.max_pixels = FUZZ_MAX_PIXELS};
    gvis_image img = {0}, f = {0}, r = {0};
    int rc = gvis_image_decode(d, n, &o, &img);
    FUZZ_NOTE("decode: %d %s", rc, rc ? gvis_errmsg() : "ok");
    free(d);
    if (rc) {
        FUZZ_FAILED_WITH_MESSAGE(rc);
        return 0;
    }
    const double scale = (h[1] & 1) ? 0.001 : 1.0;
    rc = gvis_phase_to_float(&img, scale, &f);
    if (rc) {
        FUZZ_FAILED_WITH_MESSAGE(rc);
        FUZZ_ASSERT(f.data == NULL, "a refused phase map left memory behind");
        gvis_image_free(&img);
        return 0;
    }
    FUZZ_ASSERT(f.type == GVIS_F32 && f.channels == 1 && f.width == img.width && f.height == img.height,
                "float phase map of another shape");
    for (int y = 0; y < f.height; y++)
        for (int x = 0; x < f.width; x++)
            FUZZ_ASSERT(isfinite(((float *)GVIS_ROW(&f, y))[x]), "a non-finite phase got through");
    /* the right map: the left one shifted by a pixel */
    if (gvis_image_alloc(&r, f.width, f.height, 1, GVIS_F32, 0) == GVIS_OK) {
        for (int y = 0; y < f.height; y++)
            for (int x = 0; x < f.width; x++)
                ((float *)GVIS_ROW(&r, y))[x] = ((float *)GVIS_ROW(&f, y))[x + 1 < f.width ? x + 1 : x];
        gvis_phase_params p;
        gvis_phase_defaults(&p);
        p.window = 1 + 2 * (h[1] >> 1 & 7);
        p.tol = (float)(h[2] / 16.0);
        p.search = h[1] >> 4 & 1;
        p.lr_check = (h[1] >> 5 & 1) ? -1 : 1;
        p.subpixel = h[1] >> 6 & 1;
        p.min_disp = (int)(h[3] % 9) - 4;
        p.num_disp = 1 + h[3] / 9 % 16;
        p.valid_min = (float)((int)(h[2] % 5) - 2);
        gvis_disp dl = {0}, dr = {0};
        rc = gvis_phase(ctx, &img, &r, &p, &dl, (h[2] & 1) ? &dr : NULL);
        if (rc == GVIS_OK) {
            FUZZ_ASSERT(dl.width == img.width && dl.height == img.height && dl.fdata, "map of another shape");
            for (size_t i = 0; i < (size_t)dl.width * dl.height; i++) {
                const float v = dl.fdata[i];
                FUZZ_ASSERT(isnan(v) || (v >= p.min_disp - 1 && v <= p.min_disp + p.num_disp),
                            "disparity %g outside %d..%d", v, p.min_disp, p.min_disp + p.num_disp - 1);
            }
        } else {
            FUZZ_FAILED_WITH_MESSAGE(rc);
            FUZZ_ASSERT(dl.data == NULL && dl.fdata == NULL, "a failed match left a map behind");
        }
        gvis_disp_free(&dl);
        gvis_disp_free(&dr);
    }
    gvis_image_free(&r);
    gvis_image_free(&f);
    gvis_image_free(&img);
    return 0;
}
