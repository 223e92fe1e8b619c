/* cuda/ops/gauss_rows.cu: the register-ring blur for 8-bit gray images and kernels up to
 * GAUSS_ROWS_MAX_TAPS taps, which gvis_cu_gauss (gauss.cu) tries first. */
#ifndef GVIS_CUDA_GAUSS_ROWS_H
#define GVIS_CUDA_GAUSS_ROWS_H

#include <stddef.h>

#include "gauss.h"

#define GAUSS_ROWS_MAX_TAPS 15
#define GAUSS_ROWS_DEFAULT_COLS 4
/* What gvis_cu_gauss_rows returns for work it does not take (not 8-bit gray, a wider
 * kernel, buffers not 8-byte aligned): the caller runs the tile kernel instead. */
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
