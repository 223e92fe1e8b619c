/* cuda/ops/gauss.cu: the separable Gaussian blur kernel's launcher and the plain description
 * it takes (also what the CPU implementation in lib/gauss.c works from, so that both
 * compute from one input). */
#ifndef GVIS_CUDA_GAUSS_H
#define GVIS_CUDA_GAUSS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GVIS_GAUSS_MAX_TAPS 255

/* Border modes, the values of gvis_gauss_desc.border (OpenCV's borderInterpolate). */
enum {
    GVIS_GAUSS_REFLECT101 = 0, /* gfedcb|abcdefgh|gfedcba */
    GVIS_GAUSS_REPLICATE = 1,  /* aaaaaa|abcdefgh|hhhhhhh */
    GVIS_GAUSS_CONSTANT = 2,   /* vvvvvv|abcdefgh|vvvvvvv */
    GVIS_GAUSS_REFLECT = 3,    /* fedcba|abcdefgh|hgfedcb */
    GVIS_GAUSS_WRAP = 4,       /* cdefgh|abcdefgh|abcdefg */
};

typedef struct {
    int width, height;
    int channels;        /* 1, 3 or 4, interleaved */
    int bytes;           /* sample size: 1 (u8), 2 (u16), 4 (f32) */
    int kx, ky;          /* tap counts, odd, 1..255 */
    int border;          /* GVIS_GAUSS_* */
    double border_value; /* the constant border's sample value, already in the sample's range */
    /* The taps.  u8: 8-bit fixed-point integers summing to 256; u16: 16-bit fixed-point
     * integers summing to 65536 (OpenCV's bit-exact kernels); f32: the float kernel. */
    float wx[GVIS_GAUSS_MAX_TAPS + 1], wy[GVIS_GAUSS_MAX_TAPS + 1];
} gvis_gauss_desc;

/* Blurs d_src (row pitch spitch bytes) into d_dst (dpitch) on stream: the vertical pass,
 * then the horizontal one, fused in one kernel over shared-memory tiles.  u8: exact
 * integer sums, rounded (S + 2^15) >> 16; u16: exact, (S + 2^31) >> 32; f32: float sums.
 * Returns a cudaError_t. */
int gvis_cu_gauss(const void *d_src, size_t spitch, void *d_dst, size_t dpitch, const gvis_gauss_desc *d,
                  void *stream);

#ifdef __CUDACC__
#define GVIS_GAUSS_HD __host__ __device__
#else
#define GVIS_GAUSS_HD
#endif

/* The border mapping both implementations use: the source index of position p on an
 * axis of n samples, or -1 for the constant border. */
GVIS_GAUSS_HD static inline int gvis_gauss_border_index(int p, int n, int mode)
{
    if ((unsigned)p < (unsigned)n)
        return p;
    switch (mode) {
    case GVIS_GAUSS_REPLICATE:
        return p < 0 ? 0 : n - 1;
    case GVIS_GAUSS_CONSTANT:
        return -1;
    case GVIS_GAUSS_WRAP: {
        int q = p % n;
        return q < 0 ? q + n : q;
    }
    case GVIS_GAUSS_REFLECT: {
        int period = 2 * n, q = p % period;
        if (q < 0)
            q += period;
        return q < n ? q : period - 1 - q;
    }
    default: { /* reflect101 */
        if (n == 1)
            return 0;
        int period = 2 * (n - 1), q = p % period;
        if (q < 0)
            q += period;
        return q < n ? q : period - q;
    }
    }
}

#ifdef __cplusplus
}
#endif
#endif
