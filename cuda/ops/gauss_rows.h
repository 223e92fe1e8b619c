/* cuda/ops/gauss_rows.cu: the register-ring blur for large 8-bit gray images and kernels
 * up to GAUSS_ROWS_MAX_TAPS taps, which gvis_cu_gauss (gauss.cu) tries first. */
#ifndef GVIS_CUDA_GAUSS_ROWS_H
#define GVIS_CUDA_GAUSS_ROWS_H

#include <stddef.h>

#include "gauss.h"

/* The template takes any odd tap count; these are the ones measured faster than the
 * tile kernel (docs/notes-gauss.md, "Issue 18"): up to 5 taps, images of 4 Mpixels and
 * more (at 1920x1080 it was 7 % slower). */
#define GAUSS_ROWS_MAX_TAPS 5
#define GAUSS_ROWS_MIN_PIXELS 4000000
/* What gvis_cu_gauss_rows returns for work it does not take (not 8-bit gray, a wider
 * kernel, a smaller image, buffers not 8-byte aligned): the caller runs the tile kernel. */
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
