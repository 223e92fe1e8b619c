/* The wide Gaussian blur's per-output arithmetic (cuda/ops/gauss_wide.cu runs it, one
 * thread per output column and run of rows, then one per output sample).  Plain C that
 * nvcc and the host compiler both take: tests/test_gauss_wide.c runs these very functions
 * on the CPU against lib's blur, so that their indexing and sums are checked where there
 * is no GPU.
 *
 * Sums as the CPU's (lib/ops/gauss.c): u8 in float and u16 in double, every product and
 * partial sum an integer below 2^24 (2^53), so exact in any order; f32 in float, taps in
 * ascending order.  A column wholly outside the image (constant border) takes the vertical
 * sum of the constant, gvis_gauss_outside_column(). */
#ifndef GVIS_GAUSS_WIDE_H
#define GVIS_GAUSS_WIDE_H

#include <stddef.h>
#include <stdint.h>

#include "gauss.h"

typedef struct {
    const unsigned char *src;
    size_t spitch;
    unsigned char *dst;
    size_t dpitch;
    unsigned char *tmp; /* the vertical sums (float, or double for u16), row pitch tpitch */
    size_t tpitch;
    const float *wx, *wy;
    int width, height, channels, ws; /* ws: samples per row */
    int kx, ky, rx, ry, border;
    double bval;    /* the constant border's sample */
    double outside; /* gvis_gauss_outside_column() */
} gvis_gauss_wide_args;

/* Vertical outputs per thread: they share their loads (ROWS + ky - 1 for ROWS * ky taps). */
#define GVIS_GAUSS_WIDE_ROWS 8

/* The vertical pass for sample column xs and rows y0 .. y0 + ROWS - 1 (those inside):
 * output j adds its taps k = 0 .. ky-1 in order, row t = j + k of the window. */
#define GVIS_GAUSS_WIDE_VERT(NAME, T, A)                                                                      \
    GVIS_GAUSS_HD static inline void NAME(const gvis_gauss_wide_args *a, int xs, int y0)                      \
    {                                                                                                          \
        A acc[GVIS_GAUSS_WIDE_ROWS];                                                                           \
        for (int j = 0; j < GVIS_GAUSS_WIDE_ROWS; j++)                                                         \
            acc[j] = 0;                                                                                        \
        const int n = a->height - y0 < GVIS_GAUSS_WIDE_ROWS ? a->height - y0 : GVIS_GAUSS_WIDE_ROWS;          \
        const A bval = (A)a->bval;                                                                             \
        for (int t = 0; t < a->ky + n - 1; t++) {                                                              \
            const int r = gvis_gauss_border_index(y0 - a->ry + t, a->height, a->border);                      \
            const A v = r < 0 ? bval : (A)((const T *)(a->src + (size_t)r * a->spitch))[xs];                   \
            for (int j = 0; j < GVIS_GAUSS_WIDE_ROWS; j++) {                                                   \
                const int k = t - j;                                                                           \
                if (j < n && k >= 0 && k < a->ky)                                                              \
                    acc[j] += (A)a->wy[k] * v;                                                                 \
            }                                                                                                  \
        }                                                                                                      \
        for (int j = 0; j < GVIS_GAUSS_WIDE_ROWS; j++) /* a fixed count: acc stays in registers */           \
            if (j < n)                                                                                         \
                ((A *)(a->tmp + (size_t)(y0 + j) * a->tpitch))[xs] = acc[j];                                   \
    }

/* The horizontal pass for output sample xs of row y: the taps left of the image, inside
 * it (no border mapping), right of it, in ascending order. */
#define GVIS_GAUSS_WIDE_HORIZ(NAME, T, A, STORE)                                                              \
    GVIS_GAUSS_HD static inline void NAME(const gvis_gauss_wide_args *a, int xs, int y)                       \
    {                                                                                                          \
        const int C = a->channels, px = xs / C, c = xs - px * C, x0 = px - a->rx;                             \
        const A *row = (const A *)(a->tmp + (size_t)y * a->tpitch);                                            \
        const A outside = (A)a->outside;                                                                       \
        A acc = 0;                                                                                             \
        int k = 0;                                                                                             \
        const int in0 = x0 < 0 ? -x0 : 0;                                  /* first tap inside */             \
        const int in1 = a->width - x0 < a->kx ? a->width - x0 : a->kx;     /* past the last */                \
        for (; k < a->kx && k < in0; k++) {                                                                    \
            const int m = gvis_gauss_border_index(x0 + k, a->width, a->border);                               \
            acc += (A)a->wx[k] * (m < 0 ? outside : row[m * C + c]);                                           \
        }                                                                                                      \
        for (const A *p = row + (x0 + k) * C + c; k < in1; k++, p += C)                                        \
            acc += (A)a->wx[k] * *p;                                                                           \
        for (; k < a->kx; k++) {                                                                               \
            const int m = gvis_gauss_border_index(x0 + k, a->width, a->border);                               \
            acc += (A)a->wx[k] * (m < 0 ? outside : row[m * C + c]);                                           \
        }                                                                                                      \
        STORE((T *)(a->dst + (size_t)y * a->dpitch) + xs, acc);                                                \
    }

GVIS_GAUSS_HD static inline void gvis_gauss_wide_store_u8(uint8_t *p, float s)
{
    int v = ((int)s + 32768) >> 16; /* s is an exact integer */
    *p = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}
GVIS_GAUSS_HD static inline void gvis_gauss_wide_store_u16(uint16_t *p, double s)
{
    unsigned long long v = ((unsigned long long)s + 2147483648ull) >> 32;
    *p = (uint16_t)(v > 65535 ? 65535 : v);
}
GVIS_GAUSS_HD static inline void gvis_gauss_wide_store_f32(float *p, float s) { *p = s; }

GVIS_GAUSS_WIDE_VERT(gvis_gauss_wide_vert_u8, uint8_t, float)
GVIS_GAUSS_WIDE_VERT(gvis_gauss_wide_vert_u16, uint16_t, double)
GVIS_GAUSS_WIDE_VERT(gvis_gauss_wide_vert_f32, float, float)
GVIS_GAUSS_WIDE_HORIZ(gvis_gauss_wide_horiz_u8, uint8_t, float, gvis_gauss_wide_store_u8)
GVIS_GAUSS_WIDE_HORIZ(gvis_gauss_wide_horiz_u16, uint16_t, double, gvis_gauss_wide_store_u16)
GVIS_GAUSS_WIDE_HORIZ(gvis_gauss_wide_horiz_f32, float, float, gvis_gauss_wide_store_f32)

#endif
