// The downward pass's strip volumes added into the u16 sum volume (gvis_cu_sgm_sum_strips).
//
// A thread takes a word of a pixel of the sum (w = 32 b + r: k = 64 b + r in its low half,
// k + 32 in its high half), reads those disparities' bytes from each u8 strip volume, and
// adds the three directions' sums with one 32-bit reduction: one reduction where the bands
// made three (a direction each), and the (1, 0) rows may add into the same words at the same
// time.  A warp's reduction is 32 consecutive words, as the bands' (four words a thread, a
// warp's reduction strided over 512 bytes, took 260 us a strip of 128 rows at 4K under ncu,
// twice the bytes' time at the L2's ~1 TB/s).  With `plain` (nothing else writes the words
// meanwhile: the rows were done first, gvis_cu_sgm_rows_sum) and D % 64 = 0,
// strip_add_kernel instead (125 us a strip of 96 rows at 4K, 2.45 TB/s: call 95).
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"

#define STHREADS 256

struct ss_args {
    uint32_t *sum;        // the sum volume's words of row y0, sw a pixel
    const uint8_t *strip; // nstrip volumes [y - y0][x][k], D a pixel, vol apart
    size_t vol, n;        // n: the strip's pixels
    int sw, D, nstrip;
};

__device__ __forceinline__ void red_add_u32(uint32_t *p, uint32_t v)
{
    asm volatile("red.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__global__ void __launch_bounds__(STHREADS) strip_sum_kernel(ss_args a)
{
    const size_t total = a.n * a.sw;
    for (size_t i = blockIdx.x * (size_t)STHREADS + threadIdx.x; i < total; i += (size_t)gridDim.x * STHREADS) {
        const size_t p = i / a.sw;
        const int w = (int)(i % a.sw), k = 64 * (w >> 5) + (w & 31);
        if (k >= a.D)
            continue; // both halves past D
        const bool hi_in = k + 32 < a.D;
        const uint8_t *c = a.strip + p * a.D + k;
        uint32_t v = 0;
        for (int s = 0; s < a.nstrip; s++)
            v += (uint32_t)__ldg(c + s * a.vol) | (hi_in ? (uint32_t)__ldg(c + s * a.vol + 32) << 16 : 0u);
        red_add_u32(a.sum + p * a.sw + w, v);
    }
}

// plain (the rows done before: nothing else writes the words meanwhile), D % 64 = 0: a
// thread takes 16 words of a pixel (w = 32 b + r0 .. + 15, r0 0 or 16), i.e. 16 bytes of
// each volume at k = 64 b + r0 and 16 at k + 32 (uint4 loads), sums them as u16 pairs, and
// adds them to the sum's 64 bytes with plain loads and stores.
__global__ void __launch_bounds__(STHREADS) strip_add_kernel(ss_args a)
{
    const int G = a.D / 32; // groups of 16 words a pixel
    const size_t total = a.n * G;
    for (size_t i = blockIdx.x * (size_t)STHREADS + threadIdx.x; i < total; i += (size_t)gridDim.x * STHREADS) {
        const size_t p = i / G;
        const int g = (int)(i % G), b = g >> 1, r0 = 16 * (g & 1);
        // se/so: the low bytes k, k + 1 / k + 2, k + 3 of each 4, as u16 pairs; he/ho the high
        uint32_t se[4] = {0, 0, 0, 0}, so[4] = {0, 0, 0, 0}, he[4] = {0, 0, 0, 0}, ho[4] = {0, 0, 0, 0};
        const uint8_t *c = a.strip + p * a.D + 64 * b + r0;
#pragma unroll
        for (int s = 0; s < 3; s++) {
            if (s >= a.nstrip)
                break;
            const uint4 lo = __ldg(reinterpret_cast<const uint4 *>(c + s * a.vol));
            const uint4 hi = __ldg(reinterpret_cast<const uint4 *>(c + s * a.vol + 32));
            const uint32_t l[4] = {lo.x, lo.y, lo.z, lo.w}, h[4] = {hi.x, hi.y, hi.z, hi.w};
#pragma unroll
            for (int j = 0; j < 4; j++) {
                se[j] += __byte_perm(l[j], 0u, 0x4140);
                so[j] += __byte_perm(l[j], 0u, 0x4342);
                he[j] += __byte_perm(h[j], 0u, 0x4140);
                ho[j] += __byte_perm(h[j], 0u, 0x4342);
            }
        }
        uint4 *d = reinterpret_cast<uint4 *>(a.sum + p * a.sw + 32 * b + r0);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint4 v = d[j];
            v.x += __byte_perm(se[j], he[j], 0x5410);
            v.y += __byte_perm(se[j], he[j], 0x7632);
            v.z += __byte_perm(so[j], ho[j], 0x5410);
            v.w += __byte_perm(so[j], ho[j], 0x7632);
            d[j] = v;
        }
    }
}

extern "C" int gvis_cu_sgm_strip_sum(uint16_t *d_sum, int stride, const uint8_t *d_strip, size_t vol, int nstrip,
                                     int width, int y0, int y1, int D, int plain, void *stream)
{
    if (!d_sum || !d_strip || stride % 64 || stride < (D + 63) / 64 * 64 || nstrip < 1 || nstrip > 3 || width <= 0 ||
        y0 < 0 || y0 >= y1 || D < 16 || D % 16 || vol < (size_t)(y1 - y0) * width * D)
        return (int)cudaErrorInvalidValue;
    ss_args a;
    a.sum = reinterpret_cast<uint32_t *>(d_sum) + (size_t)y0 * width * (stride / 2);
    a.strip = d_strip;
    a.vol = vol;
    a.n = (size_t)(y1 - y0) * width;
    a.sw = stride / 2;
    a.D = D;
    a.nstrip = nstrip;
    int dev = 0, sms = 132;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev))
        sms = 132;
    if (plain && D % 64 == 0) {
        const size_t want = (a.n * (D / 32) + STHREADS - 1) / STHREADS, most = (size_t)sms * 8;
        strip_add_kernel<<<(unsigned)(want < most ? want : most), STHREADS, 0, (cudaStream_t)stream>>>(a);
        return (int)cudaGetLastError();
    }
    const size_t want = (a.n * (stride / 2) + STHREADS - 1) / STHREADS, most = (size_t)sms * 8;
    strip_sum_kernel<<<(unsigned)(want < most ? want : most), STHREADS, 0, (cudaStream_t)stream>>>(a);
    return (int)cudaGetLastError();
}
