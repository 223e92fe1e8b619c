/* Fuzz target for the CPU operations on the shapes and parameters a reader can hand
 * them: an image of 1..64 x 1..64 pixels, 1/3/4 channels, u8/u16/f32, with fuzzed
 * samples (NaN and infinity included) and fuzzed parameters, through hist, equalize,
 * gauss, warpaffine (image and tensor) and SGM.  The library's own checks decide which
 * parameters are valid; everything it accepts must run clean under ASan and UBSan.
 *
 * Input: byte 0 the operation, 1-2 width-1 and height-1 (mod 64), 3 channels and type,
 * 4..19 parameters, the rest the samples (repeated to fill the image). */
#include <math.h>

#include "fuzz.h"
#include "gauss.h"
#include "hist.h"
#include "sgm.h"
#include "warp.h"

#define NPARAM 16

static gvis_ctx *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    setenv("GVIS_THREADS", "2", 0);
    if (gvis_ctx_create(&ctx, "cpu", 1, NULL, NULL, NULL) != GVIS_OK) {
        fprintf(stderr, "fuzz_ops: %s\n", gvis_errmsg());
        abort();
    }
    return 0;
}

static void fill(gvis_image *img, const uint8_t *d, size_t n)
{
    size_t row = (size_t)img->width * (size_t)img->channels * (size_t)img->type, k = 0;
    for (int y = 0; y < img->height; y++) {
        uint8_t *p = GVIS_ROW(img, y);
        for (size_t i = 0; i < row; i++, k++)
            p[i] = n ? d[k % n] : (uint8_t)(k * 7);
    }
}

static double param(const uint8_t *q, int i, double lo, double hi)
{
    return lo + (hi - lo) * q[i] / 255.0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ctx)
        LLVMFuzzerInitialize(NULL, NULL);
    if (size < 4 + NPARAM)
        return 0;
    int op = data[0] % 6;
    int w = data[1] % 64 + 1, h = data[2] % 64 + 1;
    static const int chans[3] = {1, 3, 4};
    static const gvis_type types[3] = {GVIS_U8, GVIS_U16, GVIS_F32};
    int c = chans[(data[3] & 3) % 3];
    gvis_type t = types[((data[3] >> 2) & 3) % 3];
    const uint8_t *q = data + 4;
    gvis_image img;
    if (gvis_image_alloc(&img, w, h, c, t, data[3] & 0x40 ? 64 : 0))
        return 0;
    fill(&img, data + 4 + NPARAM, size - 4 - NPARAM);
    int rc = GVIS_OK;
    switch (op) {
    case 0: { /* histogram */
        gvis_hist_params p;
        gvis_hist_defaults(&img, &p);
        p.channel = (q[0] & 7) % 5 - 1;
        if (t == GVIS_U16 && (q[0] & 0x80)) {
            p.bins = 1 + (q[1] | q[2] << 8);
            p.lo = (uint32_t)(q[3] | q[4] << 8);
            p.hi = p.lo + 1 + (uint32_t)(q[5] | q[6] << 8) % (65536 - p.lo);
        }
        gvis_hist hs = {0};
        rc = gvis_hist_compute(ctx, &img, &p, &hs);
        if (rc == GVIS_OK) {
            gvis_image plot;
            if (gvis_hist_plot(&hs, NULL, 200 + q[7], 120 + q[8], &plot) == GVIS_OK)
                gvis_image_free(&plot);
        }
        gvis_hist_free(&hs);
        break;
    }
    case 1: { /* equalization */
        gvis_image out;
        rc = gvis_equalize(ctx, &img, q[0] & 1, &out);
        if (rc == GVIS_OK)
            gvis_image_free(&out);
        break;
    }
    case 2: { /* Gaussian blur */
        gvis_gauss_params p;
        p.sigma_x = q[0] & 1 ? 0 : param(q, 1, 0, 40);
        p.sigma_y = q[0] & 2 ? 0 : param(q, 2, 0, 40);
        p.ksize_x = q[0] & 4 ? 0 : (q[3] | 1);
        p.ksize_y = q[0] & 8 ? 0 : (q[4] | 1);
        p.border = q[5] % 5;
        p.border_value = param(q, 6, -10, 70000);
        gvis_image out;
        rc = gvis_gauss(ctx, &img, &p, &out);
        if (rc == GVIS_OK)
            gvis_image_free(&out);
        break;
    }
    case 3:
    case 4: { /* affine warp to an image or a tensor */
        gvis_warp_params p;
        memset(&p, 0, sizeof p);
        for (int k = 0; k < 6; k++)
            p.m[k] = ((int8_t)q[k]) / 16.0;
        if (q[6] & 1)
            gvis_letterbox_matrix(w, h, q[7] % 96 + 1, q[8] % 96 + 1, p.m);
        p.inverse = (q[6] >> 1) & 1;
        p.width = q[7] % 96 + 1;
        p.height = q[8] % 96 + 1;
        p.interp = (q[6] >> 2) & 1;
        p.border = (q[6] >> 3) & 1;
        for (int k = 0; k < 4; k++)
            p.fill[k] = param(q, 9 + k, -5, 70000);
        if (op == 3) {
            gvis_image out;
            rc = gvis_warp(ctx, &img, &p, &out);
            if (rc == GVIS_OK)
                gvis_image_free(&out);
        } else {
            gvis_tensor_params tp = {q[13] & 1, (q[13] >> 1) & 1, param(q, 14, -2, 2), {0.5, 0.4, 0.3, 0.2},
                                     {param(q, 15, -1, 2), 0.25, 1, 2}};
            gvis_array out = {0};
            rc = gvis_warp_tensor(ctx, &img, &p, &tp, &out);
            if (rc == GVIS_OK)
                gvis_array_free(&out);
        }
        break;
    }
    default: { /* semi-global matching of the image against itself, shifted */
        if (t == GVIS_F32)
            break;
        gvis_sgm_params p;
        gvis_sgm_defaults(&p);
        p.max_disp = 16 * (1 + q[0] % 4);
        p.min_disp = (int8_t)q[1] / 4;
        p.paths = q[2] & 1 ? 4 : 8;
        p.p1 = q[3] % 64;
        p.p2 = q[4];
        p.p2_adapt = q[5] % 32;
        p.census = q[6] & 1;
        p.uniqueness = param(q, 7, 0.01, 1);
        p.subpixel = q[8] & 1;
        p.lr_check = (int)(q[8] >> 1 & 3) - 1;
        p.median = q[8] >> 3 & 1;
        p.fill = q[8] >> 4 & 1;
        gvis_image right;
        if (gvis_image_alloc(&right, w, h, c, t, 0)) {
            rc = GVIS_E_NOMEM;
            break;
        }
        fill(&right, data + 4 + NPARAM + q[9] % 8, size > 4u + NPARAM + q[9] % 8 ? size - 4 - NPARAM - q[9] % 8 : 0);
        gvis_disp dl = {0}, dr = {0};
        rc = gvis_sgm(ctx, &img, &right, &p, &dl, q[10] & 1 ? &dr : NULL);
        if (rc == GVIS_OK) {
            gvis_disp_free(&dl);
            if (q[10] & 1)
                gvis_disp_free(&dr);
        }
        gvis_image_free(&right);
        break;
    }
    }
    FUZZ_NOTE("op %d %dx%dx%d %s: %d %s", op, w, h, c, gvis_type_name(t), rc, rc ? gvis_errmsg() : "ok");
    if (rc != GVIS_OK)
        FUZZ_FAILED_WITH_MESSAGE(rc);
    gvis_image_free(&img);
    return 0;
}
