/* cuda/ops/warp.cu: the affine warp kernel's launcher and the plain description it takes
 * (also what the CPU implementation in lib/warp.c works from, so both see one input). */
#ifndef GVIS_CUDA_WARP_H
#define GVIS_CUDA_WARP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { GVIS_WARP_OUT_IMAGE = 0, GVIS_WARP_OUT_CHW = 1, GVIS_WARP_OUT_HWC = 2 };

typedef struct {
    double m[6];          /* destination -> source, already inverted (cv2's arithmetic) */
    int src_w, src_h;
    int channels;         /* 1, 3 or 4 */
    int bytes;            /* sample size: 1 (u8), 2 (u16), 4 (f32) */
    int dst_w, dst_h;
    int interp;           /* 0 nearest, 1 bilinear */
    int border;           /* 0 constant, 1 replicate */
    float fill[4];        /* constant border per source channel, already in the sample's range */
    int out;              /* GVIS_WARP_OUT_* */
    /* Tensor outputs: output channel k = sample of source channel chmap[k] * ta[k] + tb[k]
     * (multiply, then add: no fused multiply-add, so that CPU and GPU agree bit for bit). */
    int chmap[4];
    float ta[4], tb[4];
} gvis_warp_desc;

/* Warps d_src (pitch spitch bytes) into d_dst: an image of the source's type with row
 * pitch dpitch, or a tight float32 tensor (dpitch ignored).  Returns a cudaError_t. */
int gvis_cu_warp(const void *d_src, size_t spitch, void *d_dst, size_t dpitch, const gvis_warp_desc *d,
                 void *stream);

#ifdef __cplusplus
}
#endif
#endif
