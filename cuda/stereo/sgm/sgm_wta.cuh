// The winner-takes-all stage's pieces shared by its kernels (sgm_wta.cu: the ring and
// two-pass kernels and the entry points; sgm_wta_tile.cu: the thread-a-pixel kernel):
// the launch's arguments, a pixel's state, the sums of the per-path volumes, and the
// finish (uniqueness, subpixel) exactly as lib/stereo/sgm_wta.c does it.
#ifndef GVIS_SGM_WTA_CUH
#define GVIS_SGM_WTA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#define SUMV (-1)   // a kernel's NP (path count) for the u16 sum volume
#define STRIPV (-2) // the sum volume plus u8 strip volumes of the rows y0 .. y1 - 1

#define NONE 0xffffffffu

struct wta_args {
    const uint8_t *lr;     // the per-path u8 volumes, or
    const uint32_t *sum;   // the u16 sum volume (layout: sgm_cuda.h), sw words a pixel
    int sw;
    size_t vol;
    int npaths, width, height, D, M, U, subpixel;
    int16_t *left, *right;
    int y0, y1;           // the rows picked (0 .. height, but for STRIPV)
    const uint8_t *strip; // STRIPV: nstrip u8 volumes [y - y0][x][k] at strip + i * svol
    size_t svol;
    int nstrip;
    int seg;   // the thread-a-pixel kernel: a block a segment of seg chunks of a row (0: the row)
    int batch; // STRIPV: a whole chunk's loads in batches of 2 (GVIS_SGM_WTA_BATCH=0: none)
};

struct px_state {
    uint32_t best, second;
    uint16_t lo, hi; // S(k0 - 1), S(k0 + 1)
};

// The sums S of 8 consecutive disparities (8-byte aligned: D is a multiple of 16) as
// four u16 pairs in disparity order, ready for the ring.
template <int NP>
__device__ __forceinline__ uint4 sum8(const wta_args &a, size_t cell)
{
    uint32_t e0 = 0, o0 = 0, e1 = 0, o1 = 0;
#pragma unroll
    for (int p = 0; p < (NP ? NP : a.npaths); p++) {
        const uint2 v = __ldg(reinterpret_cast<const uint2 *>(a.lr + p * a.vol + cell));
        e0 += v.x & 0x00ff00ffu;
        o0 += (v.x >> 8) & 0x00ff00ffu;
        e1 += v.y & 0x00ff00ffu;
        o1 += (v.y >> 8) & 0x00ff00ffu;
    }
    // e holds k and k + 2, o k + 1 and k + 3 (16 bits each, 8 x 255 fits)
    return make_uint4(__byte_perm(e0, o0, 0x5410), __byte_perm(e0, o0, 0x7632), __byte_perm(e1, o1, 0x5410),
                      __byte_perm(e1, o1, 0x7632));
}

__device__ __forceinline__ int16_t finish(const px_state &st, int klo, int khi, int U, int subpixel, int M)
{
    if (klo > khi || st.best == NONE)
        return (int16_t)(16 * (M - 1));
    const uint32_t best = st.best >> 16;
    const int k0 = (int)(st.best & 0xffff);
    if (st.second != NONE && 256u * best > (uint32_t)U * st.second)
        return (int16_t)(16 * (M - 1));
    int off = 0;
    if (subpixel && k0 - 1 >= klo && k0 + 1 <= khi) {
        const int a = st.lo, b = st.hi, c = (int)best;
        const int num = a - b, den = a + b - 2 * c;
        if (den > 0)
            off = num >= 0 ? (16 * num + den) / (2 * den) : -((16 * -num + den) / (2 * den));
    }
    return (int16_t)(16 * (M + k0) + off);
}

// sgm_wta_tile.cu: the thread-a-pixel kernel for D = 64, 128 and 256 (its shared memory,
// 0 for any other D, and its launch).
size_t wta_tile_bytes(int D);
int wta_tile_launch(const wta_args &a, void *stream);

#endif
