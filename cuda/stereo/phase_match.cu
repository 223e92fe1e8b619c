// Phase matching (lib/stereo/phase.h rules 1-8) on the GPU: one block per row of the
// region; the block loads the left and right rows into shared memory as lit rows
// (unlit = -inf) with their running maxima (a block scan), then each thread matches
// pixels x0 + tid, x0 + tid + blockDim, ... with the same float operations, in the same
// order, as lib/stereo/phase_match.c, so the maps agree bit for bit.
#include <cuda_runtime.h>
#include <math.h>

#include "phase_cuda.h"

#define PHASE_THREADS 256

namespace {

struct Row {
    const float *own, *other, *smax;
};

__device__ __forceinline__ float window_cost(const float *A, const float *B, int W, int x, int xb, int h)
{
    float s = 0.0f;
    int n = 0;
    for (int j = -h; j <= h; j++) {
        const int xa = x + j, xc = xb + j;
        if (xa < 0 || xa >= W || xc < 0 || xc >= W)
            continue;
        const float a = A[xa], b = B[xc];
        if (a == -INFINITY || b == -INFINITY)
            continue;
        s = __fadd_rn(s, fabsf(__fsub_rn(a, b)));
        n++;
    }
    return __fdiv_rn(s, (float)n);
}

__device__ float match_px(const Row &r, const gvis_cu_phase_args &a, int x, int s)
{
    const float *A = r.own, *B = r.other;
    const int W = a.width, M = a.min_disp, D = a.num_disp, h = (a.window - 1) / 2;
    const float p = A[x], T = a.tol;
    if (p == -INFINITY)
        return nanf("");
    int lo = s < 0 ? x - (M + D - 1) : x + M, hi = s < 0 ? x - M : x + M + D - 1;
    lo = lo < 0 ? 0 : lo;
    hi = hi > W - 1 ? W - 1 : hi;
    if (lo > hi)
        return nanf("");
    float best = INFINITY;
    int bx = -1;
    if (a.ordered) {
        const float *S = r.smax;
        int lo2 = lo, hi2 = hi + 1; // first k with fl(S(k) - p) >= -T
        while (lo2 < hi2) {
            const int m = lo2 + (hi2 - lo2) / 2;
            if (__fsub_rn(S[m], p) >= -T)
                hi2 = m;
            else
                lo2 = m + 1;
        }
        for (int k = lo2; k <= hi; k++) {
            if (__fsub_rn(S[k], p) > T)
                break;
            const float e = __fsub_rn(B[k], p);
            if (!(e >= -T && e <= T))
                continue;
            const float c = window_cost(A, B, W, x, k, h);
            if (s < 0 ? c <= best : c < best) {
                best = c;
                bx = k;
            }
        }
    } else {
        const int d0 = s < 0 ? x - hi : lo - x, d1 = s < 0 ? x - lo : hi - x;
        for (int d = d0; d <= d1; d++) {
            const int xb = x + s * d;
            const float e = __fsub_rn(B[xb], p);
            if (!(e >= -T && e <= T))
                continue;
            const float c = window_cost(A, B, W, x, xb, h);
            if (c < best) {
                best = c;
                bx = xb;
            }
        }
    }
    if (bx < 0)
        return nanf("");
    float off = 0.0f;
    if (a.subpixel) {
        const float r0 = B[bx], e = __fsub_rn(p, r0);
        if (e >= 0.0f) {
            if (bx + 1 < W && B[bx + 1] != -INFINITY && B[bx + 1] > r0) {
                const float t = __fdiv_rn(e, __fsub_rn(B[bx + 1], r0));
                off = t > 1.0f ? 1.0f : t;
            }
        } else if (bx - 1 >= 0 && B[bx - 1] != -INFINITY && B[bx - 1] < r0) {
            const float t = __fdiv_rn(-e, __fsub_rn(r0, B[bx - 1]));
            off = -(t > 1.0f ? 1.0f : t);
        }
    }
    return s < 0 ? __fsub_rn((float)(x - bx), off) : __fadd_rn((float)(bx - x), off);
}

// Lit row and its running maximum into shared memory: each thread a contiguous chunk,
// then a scan of the chunks' maxima.
__device__ void load_row(const float *src, int W, float V, float *lit, float *smax, float *part)
{
    const int t = threadIdx.x, nt = blockDim.x;
    const int chunk = (W + nt - 1) / nt, b = t * chunk, e = min(W, b + chunk);
    float m = -INFINITY;
    for (int x = b; x < e; x++) {
        const float v = src[x] > V ? src[x] : -INFINITY;
        lit[x] = v;
        m = fmaxf(m, v);
        smax[x] = m;
    }
    part[t] = m;
    __syncthreads();
    for (int o = 1; o < nt; o <<= 1) { // inclusive max scan of the chunk maxima
        const float q = t >= o ? part[t - o] : -INFINITY;
        __syncthreads();
        part[t] = fmaxf(part[t], q);
        __syncthreads();
    }
    const float before = t > 0 ? part[t - 1] : -INFINITY;
    for (int x = b; x < e; x++)
        smax[x] = fmaxf(smax[x], before);
}

__global__ void __launch_bounds__(PHASE_THREADS) phase_kernel(gvis_cu_phase_args a, int right_view, float *out)
{
    extern __shared__ float sh[];
    const int W = a.width;
    float *la = sh, *ra = sh + W, *sl = sh + 2 * W, *sr = sh + 3 * W, *part = sh + 4 * W;
    const int y = a.roi[1] + blockIdx.x;
    load_row(a.d_left + (size_t)y * a.pitch, W, a.valid_min, la, sl, part);
    __syncthreads();
    load_row(a.d_right + (size_t)y * a.pitch, W, a.valid_min, ra, sr, part);
    __syncthreads();
    const Row L = {la, ra, sr}, R = {ra, la, sl};
    const Row &own = right_view ? R : L, &oth = right_view ? L : R;
    const int s = right_view ? 1 : -1;
    const int x0 = a.roi[0], rw = a.roi[2] - a.roi[0];
    float *o = out + (size_t)blockIdx.x * rw;
    for (int x = x0 + threadIdx.x; x < a.roi[2]; x += blockDim.x) {
        float v = match_px(own, a, x, s);
        if (a.lr_check >= 0 && !isnan(v)) {
            const int xo = x + s * (int)floorf(__fadd_rn(v, 0.5f));
            if (xo < 0 || xo >= W) {
                v = nanf("");
            } else {
                const float w = match_px(oth, a, xo, -s);
                if (isnan(w) || fabsf(__fsub_rn(v, w)) > (float)a.lr_check)
                    v = nanf("");
            }
        }
        o[x - x0] = v;
    }
}

size_t smem_bytes(int W) { return sizeof(float) * (4 * (size_t)W + PHASE_THREADS); }

} // namespace

extern "C" int gvis_cu_phase_max_width(void)
{
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return 0;
    return (int)(((size_t)optin / sizeof(float) - PHASE_THREADS) / 4);
}

extern "C" int gvis_cu_phase_match(const gvis_cu_phase_args *a, int right_view, float *d_out, void *stream)
{
    const int rows = a->roi[3] - a->roi[1];
    if (rows <= 0 || a->roi[2] <= a->roi[0])
        return (int)cudaErrorInvalidValue;
    const size_t bytes = smem_bytes(a->width);
    if (bytes > 48 * 1024) { // beyond the default: opt in (per device; cheap, so not cached)
        cudaError_t e = cudaFuncSetAttribute(phase_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (e != cudaSuccess)
            return (int)e;
    }
    phase_kernel<<<rows, PHASE_THREADS, bytes, (cudaStream_t)stream>>>(*a, right_view, d_out);
    return (int)cudaGetLastError();
}
