/* Separable Gaussian blur with the semantics of OpenCV's GaussianBlur. */
#ifndef GVIS_GAUSS_H
#define GVIS_GAUSS_H

#include "gvis.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Border modes (OpenCV's borderInterpolate); the values of cuda/ops/gauss.h's GVIS_GAUSS_*. */
enum {
    GVIS_BORDER_REFLECT101 = 0, /* gfedcb|abcdefgh|gfedcba (the default) */
    GVIS_BORDER_REPLICATE = 1,  /* aaaaaa|abcdefgh|hhhhhhh */
    GVIS_BORDER_CONSTANT = 2,   /* vvvvvv|abcdefgh|vvvvvvv */
    GVIS_BORDER_REFLECT = 3,    /* fedcba|abcdefgh|hgfedcb */
    GVIS_BORDER_WRAP = 4,       /* cdefgh|abcdefgh|abcdefg */
};

/* Kernel sizes: odd, at most max(1023, 8 x the image's longer side + 1) (a kernel that
 * reaches more than four times across the image changes nothing worth its time) and never
 * more than GVIS_GAUSS_MAX_KSIZE. */
#define GVIS_GAUSS_MAX_KSIZE 1048575
int gvis_gauss_max_ksize(int width, int height);

typedef struct {
    double sigma_x;      /* >= 0; 0: from the kernel size, 0.3 * ((k - 1) * 0.5 - 1) + 0.8 */
    double sigma_y;      /* >= 0; 0: sigma_x */
    int ksize_x, ksize_y;/* odd, 1..gvis_gauss_max_ksize(); 0: from sigma, round(sigma * (u8 ? 3 : 4) * 2 + 1) | 1 */
    int border;          /* GVIS_BORDER_* */
    double border_value; /* the constant border's value (saturated to the sample type) */
} gvis_gauss_params;

/* The kernel OpenCV would use: sizes and sigmas resolved as GaussianBlur does for an
 * image of this size and type (a side of 1 pixel takes a 1-tap kernel unless the border
 * is constant), then the taps of getGaussianKernel (double). */
typedef struct {
    int kx, ky;
    double sigma_x, sigma_y;
    double *wx, *wy; /* kx and ky taps, allocated by gvis_gauss_make_kernel */
} gvis_gauss_kernel;

/* Resolves p for a width x height image of type t; GVIS_E_ARG with a message when the
 * sizes are even or beyond gvis_gauss_max_ksize(), a sigma is negative or not finite, or
 * neither a size nor a sigma is given.  On success free k with gvis_gauss_kernel_free. */
int gvis_gauss_make_kernel(const gvis_gauss_params *p, int width, int height, gvis_type t, gvis_gauss_kernel *k);
void gvis_gauss_kernel_free(gvis_gauss_kernel *k);

/* getGaussianKernel(n, sigma, CV_64F) of OpenCV 4.6 (its bit-exact construction; the
 * fixed 3/5/7/9-tap kernels for sigma <= 0).  n odd, 1..GVIS_GAUSS_MAX_KSIZE. */
void gvis_gauss_taps(int n, double sigma, double *k);

/* OpenCV's fixed-point rounding of a kernel (error diffusion from the ends, the centre tap
 * taking what makes the sum exactly 2^bits): bits 8 for u8, 16 for u16. */
void gvis_gauss_taps_fixed(const double *k, int n, int bits, int32_t *w);

/* Blurs src into dst (allocated here, src's size, type and channels) on the context's
 * device.  u8 and u16 are bit-identical on the CPU and the GPU. */
int gvis_gauss(gvis_ctx *ctx, const gvis_image *src, const gvis_gauss_params *p, gvis_image *dst);

/* The same blur with the result in img's own pixels (its metadata kept): on the CPU in
 * place, with copies of a few rows per task, so a command holds one image, not two; on a
 * GPU, with --repeat, or where in place cannot be done (wrap border, an image no taller
 * than the kernel), blurred out of place and the pixels swapped.  Same bytes either way. */
int gvis_gauss_inplace(gvis_ctx *ctx, gvis_image *img, const gvis_gauss_params *p);
/* The blur of a device image of ctx's GPU into *dst (ctx's buffer slot 1, valid until
 * its next operation): the staged batch's op_dev.  GVIS_E_DEVICE on a CPU context. */
int gvis_gauss_dev(gvis_ctx *ctx, const gvis_dev_image *src, const gvis_gauss_params *p, gvis_dev_image *dst);

/* The CPU implementation alone (dst allocated by the caller, same size, type, channels). */
int gvis_gauss_cpu(const gvis_image *src, const gvis_gauss_params *p, gvis_image *dst);

#ifdef __cplusplus
}
#endif
#endif
