/* C-callable launcher of phase matching (cuda/stereo/phase_match.cu): the rule of
 * lib/stereo/phase.h on device buffers it is handed, on the given stream.  Returns a
 * cudaError_t value as int. */
#ifndef GVIS_PHASE_CUDA_H
#define GVIS_PHASE_CUDA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const float *d_left, *d_right; /* W x H phase maps, row pitch in floats (both) */
    size_t pitch;
    int width, height;
    int min_disp, num_disp;
    float tol;
    int window;
    float valid_min;
    int roi[4];   /* x0, y0, x1, y1 (exclusive) */
    int ordered, subpixel, lr_check;
} gvis_cu_phase_args;

/* The widest row the kernel takes (its rows live in shared memory). */
int gvis_cu_phase_max_width(void);
/* One view (right_view 0: left, 1: right) over the region into d_out (tight, region
 * width x height, NaN invalid). */
int gvis_cu_phase_match(const gvis_cu_phase_args *a, int right_view, float *d_out, void *stream);

#ifdef __cplusplus
}
#endif
#endif
