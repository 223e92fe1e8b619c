/* cuda/ops/gauss_rows.cu: the register-ring blur (integer, vertical first) for large 8-bit
 * gray images and kernels up to GAUSS_ROWS_MAX_TAPS taps, which gvis_cu_gauss (gauss.cu)
 * tries first; what it declines goes to the tile kernel. */
#ifndef GVIS_CUDA_GAUSS_ROWS_H
#define GVIS_CUDA_GAUSS_ROWS_H

#include <stddef.h>

#include "gauss.h"

/* Where it was measured faster than the tile kernel (docs/notes-gauss.md, "Issue 18"; H100,
 * calls 39 and 40: 3840x2160, 3 to 9 taps 0.014-0.021 ms against 0.027-0.036, 11 / 13 / 15
 * taps 0.028 / 0.032 / 0.034 against 0.041 / 0.040 / 0.042, 7680x4320 15 taps 0.108 against
 * 0.134; 1920x1080 3, 5, 7 taps 0.011 / 0.011 / 0.014 against 0.012 / 0.013 / 0.015, but 9
 * taps 0.019 against 0.016 and 11 / 15 taps 0.025 / 0.032 against 0.018 / 0.017; 1280x720
 * 5x5 0.012 against 0.011): 3 to 7 taps from 2,000,000 pixels (1920x1080 is taken), 9 taps
 * from 4,000,000, 11 to 15 taps from 8,000,000 (3840x2160 is taken; between 1920x1080 and
 * it they were not measured).  From 8,000,000 pixels gauss_vtile.cu is tried first and takes
 * 13 and 15 taps (faster there: 0.027 ms at 3840x2160).  GVIS_GAUSS_ROWS_MAXK and
 * GVIS_GAUSS_ROWS_MIN_PIXELS (one limit for every kernel) move them, for measuring. */
#define GAUSS_ROWS_MAX_TAPS 15
#define GAUSS_ROWS_MIN_PIXELS 2000000
#define GAUSS_ROWS_MIN_PIXELS_9 4000000
#define GAUSS_ROWS_MIN_PIXELS_WIDE 8000000
/* What gvis_cu_gauss_rows returns for work it does not take (not 8-bit gray, a wider
 * kernel, a smaller image, buffers not 4-byte aligned, an image lower than the kernel, a
 * horizontal tap of 256): the caller runs the tile kernel. */
#define GAUSS_ROWS_DECLINED (-1)

#ifdef __cplusplus
extern "C" {
#endif

/* Blurs as gvis_cu_gauss does (same sums, same results); a cudaError_t or
 * GAUSS_ROWS_DECLINED. */
int gvis_cu_gauss_rows(const void *d_src, size_t spitch, void *d_dst, size_t dpitch, const gvis_gauss_desc *d,
                       void *stream);

#ifdef __cplusplus
}
#endif
#endif
