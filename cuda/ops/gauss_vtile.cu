// Separable Gaussian blur of 8-bit gray images with kernels of up to 63 taps, in integers:
// the vertical sums of a tile's rows in shared memory, then the horizontal sums from
// them by dp2a.  gvis_cu_gauss (gauss.cu) tries it first for the kernels and sizes below
// and runs its other kernels on whatever this declines.  The per-thread work, its
// arithmetic and its layout are in gauss_vtile.h, which tests/test_gauss_vtile.c runs on
// the host; the measurements behind the rules in docs/notes-gauss.md ("The vertical sums
// in shared memory").
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "gauss.h"
#include "gauss_vtile.h"

// Where it is taken by default (docs/notes-gauss.md, "The vertical sums in shared memory";
// H100, calls 48, 52 and 55, against the kernels before): 3840x2160 13 / 15 / 21 / 31 / 47 /
// 63 taps 0.027 / 0.027 / 0.044 / 0.044 / 0.064 / 0.094 ms against 0.032 / 0.035 / 0.050 /
// 0.062 / 0.094 / 0.106, 7680x4320 15 / 31 taps 0.062 / 0.106 against 0.106 / 0.209; but 11
// taps 0.029 against the rows kernel's 0.029, and smaller images mixed: 2560x1440 and
// 2048x1536 faster at 13, 15 and 31 taps (0.021 / 0.021 / 0.031 against 0.023 / 0.025 /
// 0.035 at 2560x1440) but slower at 21 and 63 (0.030 / 0.064 against 0.029 / 0.061),
// 3000x1000 no faster at any, 1920x1080 and 1280x720 slower (fewer blocks than the device
// holds: latency-bound).  Kernels of VT_MIN_TAPS to 63 taps on images of at least
// VT_MIN_PIXELS pixels (3840x2160 is taken).
#define VT_MIN_TAPS 13
#define VT_MIN_PIXELS 8000000
#define VT_CASES(PHASE)                                                                                       \
    switch (KT) { /* the header's functions are named by the template */                                    \
    case 15: gvis_vt_##PHASE##_15(&p, sv, x0, y0, threadIdx.x); break;                                        \
    case 31: gvis_vt_##PHASE##_31(&p, sv, x0, y0, threadIdx.x); break;                                        \
    case 47: gvis_vt_##PHASE##_47(&p, sv, x0, y0, threadIdx.x); break;                                        \
    default: gvis_vt_##PHASE##_63(&p, sv, x0, y0, threadIdx.x); break;                                        \
    }

// Blocks a multiprocessor: 4 up to 31 taps (64 registers; 31 taps spills 16 bytes and
// still gained 1-2 %, call 50), 3 above (80 registers).
template <int KT> struct vt_minb { enum { value = KT <= 31 ? 4 : 3 }; };

template <int KT>
__global__ void __launch_bounds__(GVIS_VT_THREADS, vt_minb<KT>::value)
    gauss_vtile_u8(const __grid_constant__ gvis_vt_params p)
{
    __shared__ uint32_t sv[GVIS_VT_ROWS * GVIS_VT_SWORDS];
    const int x0 = gvis_vt_tile_x0(p.width, KT, blockIdx.x);
    // bands from the bottom up: 3-5 % faster than top down (call 50: 4K 31 taps 0.0445
    // against 0.0470, 8K 15 taps 0.062 against 0.065), why not measured
    const int ya = (gridDim.y - 1 - blockIdx.y) * p.bh, yb = min(p.height, ya + p.bh);
    for (int y0 = ya; y0 < yb; y0 += GVIS_VT_ROWS) {
        VT_CASES(vert)
        __syncthreads();
        VT_CASES(horiz)
        __syncthreads();
    }
}

// Knobs for measuring, read once a process (man gvis, ENVIRONMENT): GVIS_GAUSS_VTILE_MINK
// and _MAXK (the kernels taken; MAXK 0: never), _MIN_PIXELS (the smallest image taken),
// _BH (rows a block walks, rounded up to a multiple of the step; 0: the rule in vt_bh).
static int vt_env(const char *name, int dflt)
{
    const char *e = getenv(name);
    return e && *e ? atoi(e) : dflt;
}
struct vt_knobs {
    int mink, maxk, min_pixels, bh;
};
static const vt_knobs &vt_tuning()
{
    static vt_knobs k = {vt_env("GVIS_GAUSS_VTILE_MINK", VT_MIN_TAPS),
                         vt_env("GVIS_GAUSS_VTILE_MAXK", GVIS_VT_MAX_TAPS),
                         vt_env("GVIS_GAUSS_VTILE_MIN_PIXELS", VT_MIN_PIXELS), vt_env("GVIS_GAUSS_VTILE_BH", 0)};
    return k;
}

// Rows a block walks: one step (GVIS_VT_ROWS rows) unless the knob asks for more.  Measured on
// 3840x2160: 2, 4 and 8 steps a block took 20, 60 and 140 % longer than one (call 47), and
// one wave of equal bands, as many as the device holds, 35 % longer (call 51), whatever
// L1 reuse of the halo rows they buy; why, not found (docs/notes-gauss.md).
static int vt_bh(int step, int knob)
{
    return knob > 0 ? (knob + step - 1) / step * step : step;
}

template <int KT> static int vt_launch(gvis_vt_params &p, cudaStream_t st)
{
    const long long gx = (p.width + (255 - KT) - 1) / (255 - KT);
    p.bh = vt_bh(GVIS_VT_ROWS, vt_tuning().bh);
    const long long gy = (p.height + p.bh - 1) / p.bh;
    if (gx > 0x7fffffffLL || gy > 65535)
        return GVIS_VT_DECLINED;
    gauss_vtile_u8<KT><<<dim3((unsigned)gx, (unsigned)gy), GVIS_VT_THREADS, 0, st>>>(p);
    return (int)cudaGetLastError();
}

extern "C" int gvis_cu_gauss_vtile(const void *d_src, size_t spitch, void *d_dst, size_t dpitch,
                                   const gvis_gauss_desc *d, void *stream)
{
    const vt_knobs &kn = vt_tuning();
    const int kt = d->kx > d->ky ? d->kx : d->ky;
    if (kt < kn.mink || kt > kn.maxk || (long long)d->width * d->height < kn.min_pixels)
        return GVIS_VT_DECLINED;
    gvis_vt_params p;
    const int KT = gvis_vt_fill(&p, d, d_src, spitch, d_dst, dpitch);
    cudaStream_t st = (cudaStream_t)stream;
    switch (KT) {
    case 15:
        return vt_launch<15>(p, st);
    case 31:
        return vt_launch<31>(p, st);
    case 47:
        return vt_launch<47>(p, st);
    case 63:
        return vt_launch<63>(p, st);
    }
    return GVIS_VT_DECLINED;
}
