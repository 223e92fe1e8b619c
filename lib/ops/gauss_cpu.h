/* Internal to lib/ops/gauss*.c: the CPU blur that gauss_call.c dispatches. */
#ifndef GVIS_GAUSS_CPU_H
#define GVIS_GAUSS_CPU_H

#include "../../cuda/ops/gauss.h"
#include "gvis.h"
#include "gauss.h"

/* d's taps are allocated in *taps (one block, free() it) */
int gvis_gauss_desc_make(const gvis_image *src, const gvis_gauss_params *p, gvis_gauss_desc *d, float **taps);
/* Blurs src into dst on every core; dst may be src itself (in place) where
 * gvis_gauss_inplace_tasks allows it. */
int gvis_gauss_cpu_desc(const gvis_image *src, const gvis_gauss_desc *d, gvis_image *dst);
/* Tasks for a blur in place, 0 when it cannot be done in place (rb: bytes of a row). */
int gvis_gauss_inplace_tasks(const gvis_gauss_desc *d, size_t rb);

#endif
