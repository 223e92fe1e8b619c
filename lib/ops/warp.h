/* Affine warp (cv2.warpAffine semantics), letterbox, and the fused float tensor output. */
#ifndef GVIS_WARP_H
#define GVIS_WARP_H

#include "gvis.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GVIS_WARP_NEAREST = 0, GVIS_WARP_BILINEAR = 1 };
enum { GVIS_WARP_CONSTANT = 0, GVIS_WARP_REPLICATE = 1 };
enum { GVIS_TENSOR_CHW = 0, GVIS_TENSOR_HWC = 1 };

/* Largest output side gvis_warp accepts (the pixel count is also held to max_pixels). */
#define GVIS_WARP_MAX_SIDE 65536

typedef struct {
    double m[6];       /* 2x3 row-major; maps source to destination pixel coordinates (cv2's M) */
    int inverse;       /* m maps destination to source instead (cv2.WARP_INVERSE_MAP) */
    int width, height; /* output size */
    int interp;        /* GVIS_WARP_NEAREST or GVIS_WARP_BILINEAR */
    int border;        /* GVIS_WARP_CONSTANT or GVIS_WARP_REPLICATE */
    double fill[4];    /* the constant border per channel, saturated to the sample type */
} gvis_warp_params;

typedef struct {
    int layout;       /* GVIS_TENSOR_CHW ([C, H, W]) or GVIS_TENSOR_HWC ([H, W, C]) */
    int bgr;          /* reverse the first three channels (RGB <-> BGR); alpha stays last */
    double scale;     /* value = (sample * scale - mean[k]) / std[k], k the output channel */
    double mean[4], std[4];
} gvis_tensor_params;

/* The centre-aligned letterbox of a sw x sh image into dw x dh:
 * s = min(dw/sw, dh/sh), m = [s 0 tx; 0 s ty], tx = -s*sw/2 + dw/2 + s/2 - 1/2 (ty alike). */
void gvis_letterbox_matrix(int sw, int sh, int dw, int dh, double m[6]);

/* Checks p (output size, finite and invertible matrix, modes) and returns the
 * source-to-destination matrix in fwd and destination-to-source in inv (either may be
 * NULL).  inv is what the warp samples with.  GVIS_E_ARG with a message when p is bad. */
int gvis_warp_prepare(const gvis_warp_params *p, double fwd[6], double inv[6]);

/* Warps src (u8, u16 or f32; 1, 3 or 4 channels) into dst, allocated here with src's
 * type and channels and p's size.  On the CPU or the context's GPU; the results are
 * identical (8- and 16-bit: bit for bit; f32 too, the arithmetic being the same). */
int gvis_warp(gvis_ctx *ctx, const gvis_image *src, const gvis_warp_params *p, gvis_image *dst);

/* The same warp written as a float32 tensor in one pass: out (allocated here) is
 * [C, H, W] or [H, W, C] of (warped sample * scale - mean) / std. */
int gvis_warp_tensor(gvis_ctx *ctx, const gvis_image *src, const gvis_warp_params *p,
                     const gvis_tensor_params *t, gvis_array *out);

/* The same on a device image of ctx's GPU (the staged batch's device path): the image
 * output stays on the device (ctx's buffer slot 1, valid until its next operation), the
 * tensor comes back to the host.  GVIS_E_DEVICE on a CPU context. */
int gvis_warp_dev(gvis_ctx *ctx, const gvis_dev_image *src, const gvis_warp_params *p, gvis_dev_image *dst);
int gvis_warp_tensor_dev(gvis_ctx *ctx, const gvis_dev_image *src, const gvis_warp_params *p,
                         const gvis_tensor_params *t, gvis_array *out);

#ifdef __cplusplus
}
#endif
#endif
