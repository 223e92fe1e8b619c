/* cuda/ops/gauss.cu and gauss_wide.cu: the separable Gaussian blur's launchers and the plain
 * description they take (also what the CPU implementation in lib/ops/gauss.c works from,
 * so that both compute from one input). */
#ifndef GVIS_CUDA_GAUSS_H
#define GVIS_CUDA_GAUSS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shared-memory tile kernel (gauss.cu) takes kernels up to this many taps; wider ones
 * go to gauss_wide.cu. */
#define GVIS_GAUSS_TILE_TAPS 255

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
    int kx, ky;          /* tap counts, odd */
    int border;          /* GVIS_GAUSS_* */
    double border_value; /* the constant border's sample value, already in the sample's range */
    /* The taps (host memory, kx and ky of them).  u8: 8-bit fixed-point integers summing
     * to 256; u16: 16-bit fixed-point integers summing to 65536 (OpenCV's bit-exact
     * kernels); f32: the float kernel. */
    const float *wx, *wy;
} gvis_gauss_desc;

/* Blurs d_src (row pitch spitch bytes) into d_dst (dpitch) on stream: the vertical pass,
 * then the horizontal one, fused in one kernel over shared-memory tiles; kx and ky at most
 * GVIS_GAUSS_TILE_TAPS.  u8: exact integer sums, rounded (S + 2^15) >> 16; u16: exact,
 * (S + 2^31) >> 32; f32: float sums.  Returns a cudaError_t. */
int gvis_cu_gauss(const void *d_src, size_t spitch, void *d_dst, size_t dpitch, const gvis_gauss_desc *d,
                  void *stream);

/* Device scratch gvis_cu_gauss_wide needs: the taps and one image of vertical sums (float
 * for u8 and f32, double for u16), each part 256-byte aligned. */
static inline size_t gvis_gauss_wide_layout(const gvis_gauss_desc *d, size_t *taps_bytes, size_t *row_pitch)
{
    *taps_bytes = ((size_t)(d->kx + d->ky) * sizeof(float) + 255) / 256 * 256;
    *row_pitch = ((size_t)d->width * d->channels * (d->bytes == 2 ? 8 : 4) + 255) / 256 * 256;
    return *taps_bytes + *row_pitch * (size_t)d->height;
}
static inline size_t gvis_gauss_wide_scratch_bytes(const gvis_gauss_desc *d)
{
    size_t t, r;
    return gvis_gauss_wide_layout(d, &t, &r);
}

/* Blurs as gvis_cu_gauss does, for kernels of any size: a vertical pass into the scratch
 * (d_scratch, gvis_gauss_wide_scratch_bytes(d) bytes, the caller's), then a horizontal pass
 * out of it, each output from its own taps (cuda/ops/gauss_wide.h).  Same sums, so the
 * same results as the CPU's.  Returns a cudaError_t. */
int gvis_cu_gauss_wide(const void *d_src, size_t spitch, void *d_dst, size_t dpitch, void *d_scratch,
                       const gvis_gauss_desc *d, void *stream);

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

/* The vertical sum of a column wholly outside the image (constant border): what both
 * devices put there, summed as the CPU sums it (float for f32, exact for u8 and u16). */
static inline double gvis_gauss_outside_column(const gvis_gauss_desc *d)
{
    double sd = 0;
    float sf = 0;
    for (int k = 0; k < d->ky; k++) {
        sd += (double)d->wy[k] * d->border_value;
        sf += d->wy[k] * (float)d->border_value;
    }
    return d->bytes == 4 ? (double)sf : sd;
}

#ifdef __cplusplus
}
#endif
#endif
