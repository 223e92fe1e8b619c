// Affine warp (cv2.warpAffine arithmetic) into an image or a float32 tensor, one pass.
//
// One thread makes 1 or 2 output pixels of one row, 32 apart, so that each load and store
// instruction of a warp covers 32 neighbouring pixels: the stores are contiguous (128
// bytes a warp for every tensor plane) and the taps of neighbouring pixels share source
// sectors; 8-bit taps come as two adjacent pixels per 8-byte load.  It reads only the
// source taps it samples and writes each output once: no intermediate buffer.  Positions are the
// CPU's to the bit: the matrix terms in double with explicit round-to-nearest operations
// (no contraction into fused multiply-adds), rounded half to even into 64-bit integers,
// cut to 1/32 pixel.  8-bit blends are integer; 16-bit and float blends use OpenCV's
// float weights and order of operations with __fmul_rn / __fadd_rn (lib/warp.c does the
// same arithmetic, so the two agree exactly).
#include <cuda_runtime.h>
#include <stdint.h>

#include "warp.h"

#define BX 32
#define BY 4

template <typename T> struct tap_type;
template <> struct tap_type<uint8_t> { typedef int acc; };
template <> struct tap_type<uint16_t> { typedef float acc; };
template <> struct tap_type<float> { typedef float acc; };

__device__ __forceinline__ float to_f(uint8_t v) { return (float)v; }
__device__ __forceinline__ float to_f(uint16_t v) { return (float)v; }
__device__ __forceinline__ float to_f(float v) { return v; }

template <typename T> __device__ __forceinline__ T from_fill(float f) { return (T)f; }

// p[c] for a run-time c by selects, so that p can stay in registers.
template <typename T, int CN> __device__ __forceinline__ T pick(const T *p, int c)
{
    T v = p[0];
#pragma unroll
    for (int k = 1; k < CN; k++)
        v = c == k ? p[k] : v;
    return v;
}

__device__ __forceinline__ long long clampll(long long v, long long lo, long long hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

// Bilinear blend of four taps (v00 v01 / v10 v11) with 1/32 fractions a (x) and b (y).
__device__ __forceinline__ uint8_t blend(uint8_t v00, uint8_t v01, uint8_t v10, uint8_t v11, int a, int b)
{
    int s = v00 * ((32 - a) * (32 - b)) + v01 * (a * (32 - b)) + v10 * ((32 - a) * b) + v11 * (a * b);
    return (uint8_t)((s + 512) >> 10);
}
__device__ __forceinline__ float blendf(float v00, float v01, float v10, float v11, int a, int b)
{
    const float tx1 = __fmul_rn((float)a, 0.03125f), tx0 = __fsub_rn(1.f, tx1);
    const float ty1 = __fmul_rn((float)b, 0.03125f), ty0 = __fsub_rn(1.f, ty1);
    const float w00 = __fmul_rn(ty0, tx0), w01 = __fmul_rn(ty0, tx1), w10 = __fmul_rn(ty1, tx0), w11 = __fmul_rn(ty1, tx1);
    float acc = __fadd_rn(__fmul_rn(v00, w00), __fmul_rn(v01, w01));
    acc = __fadd_rn(acc, __fmul_rn(v10, w10));
    return __fadd_rn(acc, __fmul_rn(v11, w11));
}
__device__ __forceinline__ uint16_t blend(uint16_t v00, uint16_t v01, uint16_t v10, uint16_t v11, int a, int b)
{
    int r = __float2int_rn(blendf((float)v00, (float)v01, (float)v10, (float)v11, a, b));
    return (uint16_t)(r < 0 ? 0 : r > 65535 ? 65535 : r);
}
__device__ __forceinline__ float blend(float v00, float v01, float v10, float v11, int a, int b)
{
    return blendf(v00, v01, v10, v11, a, b);
}

// Two horizontally adjacent 8-bit pixels (2*CN <= 8 bytes) of one row from at most two
// aligned 8-byte loads instead of 2*CN byte loads: the loads, not the arithmetic, bound
// this kernel.  The second word is read only when the bytes reach into it, so no load
// touches an aligned 8-byte word that holds no byte of the row.
template <int CN> __device__ __forceinline__ unsigned long long pair_u8(const uint8_t *p)
{
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const unsigned s = (unsigned)(a & 7);
    const unsigned long long *w = reinterpret_cast<const unsigned long long *>(a - s);
    unsigned long long lo = __ldg(w);
    if (s + 2 * CN > 8) {
        unsigned long long hi = __ldg(w + 1);
        return (lo >> (8 * s)) | (hi << (64 - 8 * s)); // s > 0 here
    }
    return lo >> (8 * s);
}

__device__ __forceinline__ int byte_of(unsigned long long v, int k)
{
    return (int)((v >> (8 * k)) & 0xff);
}

// Bilinear sample at (sx, sy) + (a, b)/32 where some tap is outside the source.
template <typename T, int CN>
__device__ __forceinline__ void bilinear_border(const uint8_t *__restrict__ src, size_t spitch, const gvis_warp_desc &d,
                                             int sx, int sy, int a, int b, T *o)
{
    const int sw = d.src_w, sh = d.src_h;
    int xa = sx, xb = sx + 1, ya = sy, yb = sy + 1;
    bool ok00 = true, ok01 = true, ok10 = true, ok11 = true;
    if (d.border == 1) {
        xa = min(max(xa, 0), sw - 1);
        xb = min(max(xb, 0), sw - 1);
        ya = min(max(ya, 0), sh - 1);
        yb = min(max(yb, 0), sh - 1);
    } else {
        const bool vx0 = xa >= 0 && xa < sw, vx1 = xb >= 0 && xb < sw, vy0 = ya >= 0 && ya < sh, vy1 = yb >= 0 && yb < sh;
        ok00 = vx0 && vy0;
        ok01 = vx1 && vy0;
        ok10 = vx0 && vy1;
        ok11 = vx1 && vy1;
    }
    const T *r0 = reinterpret_cast<const T *>(src + (size_t)max(ya, 0) * spitch);
    const T *r1 = reinterpret_cast<const T *>(src + (size_t)max(yb, 0) * spitch);
#pragma unroll
    for (int c = 0; c < CN; c++) {
        const T f = from_fill<T>(d.fill[c]);
        const T v00 = ok00 ? __ldg(r0 + (size_t)xa * CN + c) : f;
        const T v01 = ok01 ? __ldg(r0 + (size_t)xb * CN + c) : f;
        const T v10 = ok10 ? __ldg(r1 + (size_t)xa * CN + c) : f;
        const T v11 = ok11 ? __ldg(r1 + (size_t)xb * CN + c) : f;
        o[c] = blend(v00, v01, v10, v11, a, b);
    }
}

// Writes one output pixel: the image's samples, or tensor elements (channel map, then
// multiply and add).
template <typename T, int CN, int OUT>
__device__ __forceinline__ void put(uint8_t *__restrict__ dst, size_t dpitch, const gvis_warp_desc &d, int x, int y,
                                   const T *o)
{
    if (OUT == GVIS_WARP_OUT_IMAGE) {
        T *q = reinterpret_cast<T *>(dst + (size_t)y * dpitch) + (size_t)x * CN;
#pragma unroll
        for (int c = 0; c < CN; c++)
            q[c] = o[c];
    } else {
        float *t = reinterpret_cast<float *>(dst);
#pragma unroll
        for (int k = 0; k < CN; k++) {
            const float v = __fadd_rn(__fmul_rn(to_f(pick<T, CN>(o, d.chmap[k])), d.ta[k]), d.tb[k]);
            if (OUT == GVIS_WARP_OUT_CHW)
                t[((size_t)k * d.dst_h + y) * d.dst_w + x] = v;
            else
                t[((size_t)y * d.dst_w + x) * CN + k] = v;
        }
    }
}

// The thread's pixels are BX apart (x = base + i*BX + lane), so that every load and store
// instruction of a warp covers 32 neighbouring output pixels: the source bytes one
// instruction reads share sectors, and the stores are contiguous.
template <typename T, int CN, int INTERP, int OUT, int PX>
__global__ void __launch_bounds__(BX * BY) warp_kernel(const uint8_t *__restrict__ src, size_t spitch,
                                                       uint8_t *__restrict__ dst, size_t dpitch, gvis_warp_desc d,
                                                       int wide)
{
    const int y = blockIdx.y * BY + threadIdx.y;
    const int xb = blockIdx.x * BX * PX + threadIdx.x;
    if (y >= d.dst_h)
        return;
    const int sw = d.src_w, sh = d.src_h;
    const long long delta = INTERP == 0 ? 512 : 16;
    const long long rx = __double2ll_rn(__dmul_rn(__dadd_rn(__dmul_rn(d.m[1], (double)y), d.m[2]), 1024.0)) + delta;
    const long long ry = __double2ll_rn(__dmul_rn(__dadd_rn(__dmul_rn(d.m[4], (double)y), d.m[5]), 1024.0)) + delta;
    const bool rep = d.border == 1;

    if constexpr (sizeof(T) == 1 && INTERP == 1) {
        // 8-bit bilinear in three phases (positions, loads, blends) so that the loads of
        // all PX pixels are in flight together.
        int sx[PX], sy[PX], fa[PX], fb[PX], kind[PX]; // kind: 0 inside, 1 fill, 2 border, 3 none
        unsigned long long r0[PX], r1[PX];
#pragma unroll
        for (int i = 0; i < PX; i++) {
            const int x = xb + i * BX;
            kind[i] = 3;
            if (x < d.dst_w) {
                const long long cx = __double2ll_rn(__dmul_rn(__dmul_rn(d.m[0], (double)x), 1024.0));
                const long long cy = __double2ll_rn(__dmul_rn(__dmul_rn(d.m[3], (double)x), 1024.0));
                const long long X = (rx + cx) >> 5, Y = (ry + cy) >> 5;
                fa[i] = (int)(X & 31);
                fb[i] = (int)(Y & 31);
                sx[i] = (int)clampll(X >> 5, -2, sw);
                sy[i] = (int)clampll(Y >> 5, -2, sh);
                if ((unsigned)sx[i] < (unsigned)(sw - 1) && (unsigned)sy[i] < (unsigned)(sh - 1))
                    kind[i] = 0;
                else if (!rep && (sx[i] < -1 || sx[i] >= sw || sy[i] < -1 || sy[i] >= sh))
                    kind[i] = 1;
                else
                    kind[i] = 2;
            }
        }
#pragma unroll
        for (int i = 0; i < PX; i++) {
            r0[i] = r1[i] = 0;
            if (kind[i] == 0) {
                const uint8_t *p0 = src + (size_t)sy[i] * spitch + (size_t)sx[i] * CN, *p1 = p0 + spitch;
                if (wide) {
                    r0[i] = pair_u8<CN>(p0);
                    r1[i] = pair_u8<CN>(p1);
                } else {
#pragma unroll
                    for (int k = 0; k < 2 * CN; k++) {
                        r0[i] |= (unsigned long long)__ldg(p0 + k) << (8 * k);
                        r1[i] |= (unsigned long long)__ldg(p1 + k) << (8 * k);
                    }
                }
            }
        }
#pragma unroll
        for (int i = 0; i < PX; i++) {
            if (kind[i] == 3)
                continue;
            T o[CN];
            if (kind[i] == 0) {
#pragma unroll
                for (int c = 0; c < CN; c++)
                    o[c] = (T)blend((uint8_t)byte_of(r0[i], c), (uint8_t)byte_of(r0[i], CN + c),
                                    (uint8_t)byte_of(r1[i], c), (uint8_t)byte_of(r1[i], CN + c), fa[i], fb[i]);
            } else if (kind[i] == 1) {
#pragma unroll
                for (int c = 0; c < CN; c++)
                    o[c] = from_fill<T>(d.fill[c]);
            } else {
                bilinear_border<T, CN>(src, spitch, d, sx[i], sy[i], fa[i], fb[i], o);
            }
            put<T, CN, OUT>(dst, dpitch, d, xb + i * BX, y, o);
        }
    } else {
#pragma unroll
    for (int i = 0; i < PX; i++) {
        const int x = xb + i * BX;
        if (x >= d.dst_w)
            break;
        const long long cx = __double2ll_rn(__dmul_rn(__dmul_rn(d.m[0], (double)x), 1024.0));
        const long long cy = __double2ll_rn(__dmul_rn(__dmul_rn(d.m[3], (double)x), 1024.0));
        long long X = rx + cx, Y = ry + cy;
        T o[CN];
        if (INTERP == 0) {
            int sx = (int)clampll(X >> 10, -1, sw), sy = (int)clampll(Y >> 10, -1, sh);
            const bool inside = (unsigned)sx < (unsigned)sw && (unsigned)sy < (unsigned)sh;
            if (!inside && !rep) {
#pragma unroll
                for (int c = 0; c < CN; c++)
                    o[c] = from_fill<T>(d.fill[c]);
            } else {
                sx = min(max(sx, 0), sw - 1);
                sy = min(max(sy, 0), sh - 1);
                const T *p = reinterpret_cast<const T *>(src + (size_t)sy * spitch) + (size_t)sx * CN;
#pragma unroll
                for (int c = 0; c < CN; c++)
                    o[c] = __ldg(p + c);
            }
        } else {
            X >>= 5;
            Y >>= 5;
            const int a = (int)(X & 31), b = (int)(Y & 31);
            const int sx = (int)clampll(X >> 5, -2, sw), sy = (int)clampll(Y >> 5, -2, sh);
            if ((unsigned)sx < (unsigned)(sw - 1) && (unsigned)sy < (unsigned)(sh - 1)) {
                const T *p0 = reinterpret_cast<const T *>(src + (size_t)sy * spitch) + (size_t)sx * CN;
                const T *p1 = reinterpret_cast<const T *>(reinterpret_cast<const uint8_t *>(p0) + spitch);
#pragma unroll
                for (int c = 0; c < CN; c++)
                    o[c] = blend(__ldg(p0 + c), __ldg(p0 + CN + c), __ldg(p1 + c), __ldg(p1 + CN + c), a, b);
            } else if (!rep && (sx < -1 || sx >= sw || sy < -1 || sy >= sh)) {
#pragma unroll
                for (int c = 0; c < CN; c++)
                    o[c] = from_fill<T>(d.fill[c]);
            } else {
                bilinear_border<T, CN>(src, spitch, d, sx, sy, a, b, o);
            }
        }
        put<T, CN, OUT>(dst, dpitch, d, x, y, o);
    }
    }
}

template <typename T, int CN, int INTERP, int PX>
static void launch_px(const uint8_t *src, size_t sp, uint8_t *dst, size_t dp, const gvis_warp_desc *d, cudaStream_t st)
{
    dim3 block(BX, BY);
    dim3 grid((unsigned)((d->dst_w + BX * PX - 1) / (BX * PX)), (unsigned)((d->dst_h + BY - 1) / BY));
    // 8-byte source loads need 8-byte aligned rows (cudaMallocPitch gives far more)
    const int wide = (uintptr_t)src % 8 == 0 && sp % 8 == 0;
    if constexpr (PX == 2) {
        warp_kernel<T, CN, INTERP, GVIS_WARP_OUT_IMAGE, PX><<<grid, block, 0, st>>>(src, sp, dst, dp, *d, wide);
    } else {
        if (d->out == GVIS_WARP_OUT_CHW)
            warp_kernel<T, CN, INTERP, GVIS_WARP_OUT_CHW, PX><<<grid, block, 0, st>>>(src, sp, dst, dp, *d, wide);
        else
            warp_kernel<T, CN, INTERP, GVIS_WARP_OUT_HWC, PX><<<grid, block, 0, st>>>(src, sp, dst, dp, *d, wide);
    }
}

// Pixels per thread, measured on an H200 (docs/notes-warp.md): 2 for images, 1 for
// tensors (4 was slower for both; the tensor's extra stores want more threads in flight).
template <typename T, int CN, int INTERP>
static int launch_out(const void *s, size_t sp, void *dd, size_t dp, const gvis_warp_desc *d, cudaStream_t st)
{
    const uint8_t *src = static_cast<const uint8_t *>(s);
    uint8_t *dst = static_cast<uint8_t *>(dd);
    if (d->out == GVIS_WARP_OUT_IMAGE)
        launch_px<T, CN, INTERP, 2>(src, sp, dst, dp, d, st);
    else
        launch_px<T, CN, INTERP, 1>(src, sp, dst, dp, d, st);
    return (int)cudaGetLastError();
}

template <typename T, int CN>
static int launch_interp(const void *s, size_t sp, void *dd, size_t dp, const gvis_warp_desc *d, cudaStream_t st)
{
    return d->interp == 0 ? launch_out<T, CN, 0>(s, sp, dd, dp, d, st) : launch_out<T, CN, 1>(s, sp, dd, dp, d, st);
}

template <typename T>
static int launch_cn(const void *s, size_t sp, void *dd, size_t dp, const gvis_warp_desc *d, cudaStream_t st)
{
    switch (d->channels) {
    case 1:
        return launch_interp<T, 1>(s, sp, dd, dp, d, st);
    case 3:
        return launch_interp<T, 3>(s, sp, dd, dp, d, st);
    case 4:
        return launch_interp<T, 4>(s, sp, dd, dp, d, st);
    default:
        return (int)cudaErrorInvalidValue;
    }
}

extern "C" int gvis_cu_warp(const void *d_src, size_t spitch, void *d_dst, size_t dpitch, const gvis_warp_desc *d,
                            void *stream)
{
    if (d->dst_w <= 0 || d->dst_h <= 0 || d->src_w <= 0 || d->src_h <= 0 || d->dst_h > 65535 * BY)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = static_cast<cudaStream_t>(stream);
    switch (d->bytes) {
    case 1:
        return launch_cn<uint8_t>(d_src, spitch, d_dst, dpitch, d, st);
    case 2:
        return launch_cn<uint16_t>(d_src, spitch, d_dst, dpitch, d, st);
    case 4:
        return launch_cn<float>(d_src, spitch, d_dst, dpitch, d, st);
    default:
        return (int)cudaErrorInvalidValue;
    }
}
