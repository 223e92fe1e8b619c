/* Private to lib/ops: warp.c's CPU implementation, called by warp_call.c's dispatch. */
#ifndef GVIS_WARP_CPU_H
#define GVIS_WARP_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "../../cuda/ops/warp.h"
#include "warp.h"

/* Runs the warp described by d on the CPU threads: into dst (an image, dpitch bytes a
 * row) or, where dst is NULL, into tensor.  GVIS_OK or GVIS_E_NOMEM. */
int gvis_warp_cpu_run(const gvis_image *src, const gvis_warp_desc *d, uint8_t *dst, size_t dpitch, float *tensor);

#endif
