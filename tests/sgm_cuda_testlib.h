/* What the SGM CUDA tests share (test_cuda_sgm.c, test_cuda_sgm_band.c): byte-wise
 * comparison, the sum volume's layout read on the host, and the whole pipeline on both
 * devices.  Include after cuda_testlib.h. */
#ifndef GVIS_SGM_CUDA_TESTLIB_H
#define GVIS_SGM_CUDA_TESTLIB_H

#include <string.h>

#include "sgm.h"

static inline size_t count_diff(const void *a, const void *b, size_t n, size_t elem)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += memcmp((const uint8_t *)a + i * elem, (const uint8_t *)b + i * elem, elem) != 0;
    return bad;
}

/* S(p, k) of the sum volume (cuda/stereo/sgm/sgm_cuda.h's layout), read on the host. */
static inline uint16_t sum_at(const uint16_t *vol, int stride, size_t pix, int k)
{
    return vol[pix * stride + 64 * (k / 64) + 2 * (k % 32) + (k / 32) % 2];
}

/* Compares a downloaded sum volume with a [pixel][k] reference (u16 or, with ref8, one
 * u8 direction); the padding (k >= D) must be 0. */
static inline size_t sum_diff(const uint16_t *vol, int stride, size_t n, int D, const uint16_t *ref16,
                              const uint8_t *ref8)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < stride; k++) {
            const unsigned want = k >= D ? 0 : ref16 ? ref16[i * D + k] : ref8[i * D + k];
            bad += sum_at(vol, stride, i, k) != want;
        }
    }
    return bad;
}

/* The whole pipeline through gvis_sgm on both devices. */
static inline void check_pipeline(gvis_ctx *cpu, gvis_ctx *gpu, int W, int H, int channels, gvis_type type,
                                  const gvis_sgm_params *p)
{
    gvis_image L, R;
    t_make(&L, W, H, channels, type, 1, 64);
    t_make(&R, W, H, channels, type, 1, 0);
    gvis_disp a, ar, b, br;
    int ra = gvis_sgm(cpu, &L, &R, p, &a, &ar), rb = gvis_sgm(gpu, &L, &R, p, &b, &br);
    CHECKF(ra == GVIS_OK && rb == GVIS_OK, "pipeline %dx%d: %s", W, H, gvis_errmsg());
    if (!ra && !rb) {
        size_t n = (size_t)W * H;
        CHECKF(count_diff(a.data, b.data, n, 2) == 0 && count_diff(ar.data, br.data, n, 2) == 0,
               "pipeline %dx%dx%d u%d D %d M %d paths %d cost %d fill %d median %d lr %d: CPU and CUDA differ", W, H,
               channels, 8 * (int)type, p->max_disp, p->min_disp, p->paths, p->cost, p->fill, p->median, p->lr_check);
        gvis_disp_free(&a), gvis_disp_free(&ar), gvis_disp_free(&b), gvis_disp_free(&br);
    }
    gvis_image_free(&L);
    gvis_image_free(&R);
}

#endif
