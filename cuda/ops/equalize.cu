// Histogram equalization on the device, OpenCV's equalizeHist mapping (see lib/ops/equalize.c):
// histogram (of gray, of luma, or of each colour channel), a one-block LUT kernel, and a
// lookup pass; nothing returns to the host in between.
#include <cuda_runtime.h>
#include <stdint.h>

#include "gvis_cuda.h"

#define THREADS 256
enum { SHIFT = 14, HALF = 1 << (SHIFT - 1) };

// scratch: 3 x 256 counts (zero between calls: make_lut clears what it has read), and
// 3 x 256 LUT bytes
struct eq_scratch {
    uint32_t hist[3][256];
    uint8_t lut[3][256];
};

extern "C" size_t gvis_cu_equalize_scratch(void) { return sizeof(eq_scratch); }


__device__ __forceinline__ int sat8(int v) { return v < 0 ? 0 : v > 255 ? 255 : v; }
__device__ __forceinline__ int luma(int r, int g, int b) { return (r * 4899 + g * 9617 + b * 1868 + HALF) >> SHIFT; }

// Histogram of the luma of RGB(A) pixels, shared sub-histograms as in hist.cu.
__global__ void __launch_bounds__(THREADS) luma_hist(const uint8_t *src, size_t pitch, int width, int height, int ch,
                                                     uint32_t *out)
{
    __shared__ uint32_t sh[256 * 8];
    for (int i = threadIdx.x; i < 256 * 8; i += THREADS)
        sh[i] = 0;
    __syncthreads();
    const int lane = threadIdx.x & 7;
    long long n = (long long)width * height;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS) {
        int y = (int)(i / width), x = (int)(i - (long long)y * width);
        const uint8_t *p = src + (size_t)y * pitch + (size_t)x * ch;
        atomicAdd(&sh[sat8(luma(p[0], p[1], p[2])) * 8 + lane], 1u);
    }
    __syncthreads();
    for (int bin = threadIdx.x; bin < 256; bin += THREADS) {
        uint32_t s = 0;
        for (int r = 0; r < 8; r++)
            s += sh[bin * 8 + r];
        if (s)
            atomicAdd(&out[bin], s);
    }
}

// One block per LUT: an inclusive scan of the histogram, then OpenCV's float mapping.
__global__ void __launch_bounds__(256) make_lut(eq_scratch *s, uint32_t total)
{
    __shared__ uint32_t scan[256];
    __shared__ int first;
    __shared__ uint32_t hv[256];
    uint32_t *h = s->hist[blockIdx.x];
    uint8_t *lut = s->lut[blockIdx.x];
    int t = threadIdx.x;
    uint32_t v = h[t];
    h[t] = 0; // zero again for the next call's histogram
    hv[t] = v;
    if (t == 0)
        first = 256;
    __syncthreads();
    if (v)
        atomicMin(&first, t);
    scan[t] = v;
    __syncthreads();
    for (int off = 1; off < 256; off <<= 1) {
        uint32_t add = t >= off ? scan[t - off] : 0;
        __syncthreads();
        scan[t] += add;
        __syncthreads();
    }
    int i0 = first;
    if (i0 == 256) {
        lut[t] = 0;
        return;
    }
    uint32_t h0 = hv[i0];
    if (h0 == total) {
        lut[t] = (uint8_t)i0;
        return;
    }
    float scale = __fdiv_rn(255.f, (float)(total - h0));
    if (t <= i0) {
        lut[t] = 0;
    } else {
        uint32_t sum = scan[t] - scan[i0]; // sum of hist[i0+1 .. t]
        lut[t] = (uint8_t)sat8(__float2int_rn(__fmul_rn(__uint2float_rn(sum), scale)));
    }
}

__global__ void __launch_bounds__(THREADS) apply_gray(const uint8_t *src, size_t spitch, uint8_t *dst, size_t dpitch,
                                                     int width, int height, const eq_scratch *s)
{
    __shared__ uint8_t lut[256];
    for (int i = threadIdx.x; i < 256; i += THREADS)
        lut[i] = s->lut[0][i];
    __syncthreads();
    int vpr = (width + 15) / 16;
    long long items = (long long)vpr * height;
    for (long long it = blockIdx.x * (long long)THREADS + threadIdx.x; it < items; it += (long long)gridDim.x * THREADS) {
        int y = (int)(it / vpr), x0 = (int)(it - (long long)y * vpr) * 16;
        const uint8_t *p = src + (size_t)y * spitch;
        uint8_t *q = dst + (size_t)y * dpitch;
        if (x0 + 16 <= width) {
            uint4 v = __ldg(reinterpret_cast<const uint4 *>(p + x0));
            uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int k = 0; k < 4; k++) {
                uint32_t a = w[k];
                w[k] = lut[a & 255] | (uint32_t)lut[(a >> 8) & 255] << 8 | (uint32_t)lut[(a >> 16) & 255] << 16 |
                       (uint32_t)lut[a >> 24] << 24;
            }
            *reinterpret_cast<uint4 *>(q + x0) = make_uint4(w[0], w[1], w[2], w[3]);
        } else {
            for (int x = x0; x < width; x++)
                q[x] = lut[p[x]];
        }
    }
}

__global__ void __launch_bounds__(THREADS) apply_color(const uint8_t *src, size_t spitch, uint8_t *dst, size_t dpitch,
                                                      int width, int height, int ch, int per_channel,
                                                      const eq_scratch *s)
{
    __shared__ uint8_t lut[3][256];
    for (int i = threadIdx.x; i < 3 * 256; i += THREADS)
        lut[i / 256][i % 256] = s->lut[per_channel ? i / 256 : 0][i % 256];
    __syncthreads();
    long long n = (long long)width * height;
    for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * THREADS) {
        int y = (int)(i / width), x = (int)(i - (long long)y * width);
        const uint8_t *p = src + (size_t)y * spitch + (size_t)x * ch;
        uint8_t *q = dst + (size_t)y * dpitch + (size_t)x * ch;
        int r = p[0], g = p[1], b = p[2];
        if (per_channel) {
            q[0] = lut[0][r], q[1] = lut[1][g], q[2] = lut[2][b];
        } else {
            int yy = luma(r, g, b);
            int cr = sat8(((r - yy) * 11682 + (128 << SHIFT) + HALF) >> SHIFT) - 128;
            int cb = sat8(((b - yy) * 9241 + (128 << SHIFT) + HALF) >> SHIFT) - 128;
            int y2 = lut[0][sat8(yy)];
            q[0] = (uint8_t)sat8(y2 + ((cr * 22987 + HALF) >> SHIFT));
            q[1] = (uint8_t)sat8(y2 + ((cb * -5636 + cr * -11698 + HALF) >> SHIFT));
            q[2] = (uint8_t)sat8(y2 + ((cb * 29049 + HALF) >> SHIFT));
        }
        if (ch == 4)
            q[3] = p[3];
    }
}

static int grid_for(long long items)
{
    static int sms;
    if (!sms) {
        int dev = 0;
        cudaGetDevice(&dev);
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)
            sms = 80;
    }
    long long want = (items + THREADS - 1) / THREADS;
    return (int)(want < (long long)sms * 8 ? want : (long long)sms * 8);
}

extern "C" int gvis_cu_equalize(const uint8_t *d_src, size_t spitch, uint8_t *d_dst, size_t dpitch, int width,
                                int height, int channels, int per_channel, void *d_scratch, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    eq_scratch *s = (eq_scratch *)d_scratch;
    if (width <= 0 || height <= 0 || (channels != 1 && channels != 3 && channels != 4) || (spitch & 15) || (dpitch & 15))
        return (int)cudaErrorInvalidValue;
    uint32_t total = (uint32_t)width * (uint32_t)height;
    int err;
    int nl = 1;
    if (channels == 1) {
        err = gvis_cu_hist(d_src, spitch, width, height, 1, 8, -1, 256, 0, 256, s->hist[0], NULL, stream);
    } else if (per_channel) {
        // one histogram per colour channel; alpha is neither counted nor changed
        nl = 3;
        err = 0;
        for (int c = 0; c < 3 && !err; c++)
            err = gvis_cu_hist(d_src, spitch, width, height, channels, 8, c, 256, 0, 256, s->hist[c], NULL,
                               stream);
    } else {
        luma_hist<<<grid_for((long long)width * height), THREADS, 0, st>>>(d_src, spitch, width, height, channels,
                                                                           s->hist[0]);
        err = (int)cudaGetLastError();
    }
    if (err)
        return err;
    make_lut<<<nl, 256, 0, st>>>(s, total);
    if (channels == 1)
        apply_gray<<<grid_for((long long)((width + 15) / 16) * height), THREADS, 0, st>>>(d_src, spitch, d_dst, dpitch,
                                                                                          width, height, s);
    else
        apply_color<<<grid_for((long long)width * height), THREADS, 0, st>>>(d_src, spitch, d_dst, dpitch, width,
                                                                             height, channels, per_channel, s);
    return (int)cudaGetLastError();
}
