/* cuda/ops/gauss_rows.cu: the register-ring blur (integer, vertical first) for large 8-bit
 * gray images and kernels up to GAUSS_ROWS_MAX_TAPS taps, which gvis_cu_gauss (gauss.cu)
 * tries first; what it declines goes to the tile kernel. */
#ifndef GVIS_CUDA_GAUSS_ROWS_H
#define GVIS_CUDA_GAUSS_ROWS_H

#include <stddef.h>

#include "gauss.h"

/* Where it was measured faster than the tile kernel (docs/notes-gauss.md, "Issue 18"; H100,
 * call 39: 3840x2160, 3 to 9 taps 0.014-0.021 ms against 0.027-0.036; 1920x1080 3, 5, 7 taps
 * 0.011 / 0.011 / 0.014 against 0.012 / 0.013 / 0.015, but 9 taps 0.019 against 0.016;
 * 1280x720 5x5 0.012 against 0.011): its templates, 3, 5, 7 and 9 taps, from 2,000,000
 * pixels (1920x1080 is taken) and 9 taps from 4,000,000.  GVIS_GAUSS_ROWS_MAXK and
 * GVIS_GAUSS_ROWS_MIN_PIXELS (one limit for every kernel) move them, for measuring. */
#define GAUSS_ROWS_MAX_TAPS 9
#define GAUSS_ROWS_MIN_PIXELS 2000000
#define GAUSS_ROWS_MIN_PIXELS_9 4000000
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
