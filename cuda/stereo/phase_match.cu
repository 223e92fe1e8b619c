// Phase matching (lib/stereo/phase.h rules 1-8) on the GPU: one block per row of the
// region; the block loads the left and right rows into shared memory as lit rows
// (unlit = -inf) with, for the ordered search, their runs, then each thread matches
// pixels x0 + tid, x0 + tid + blockDim, ... with the same float operations, in the same
// order, as lib/stereo/phase_match.c, so the maps agree bit for bit.
#include <cuda_runtime.h>
#include <math.h>

#include "phase_cuda.h"

#define PHASE_THREADS 256

namespace {

struct Row {
    const float *own, *other, *smax;
    const int *rstart;
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
    int bx = -1, bd = 0;
    // ties by (cost, d): the runs are visited right to left, each left to right
    if (a.ordered) {
        const float *S = r.smax;
        for (int re = hi; re >= lo;) {
            const int rs = r.rstart[re], lo1 = rs > lo ? rs : lo;
            if (__fsub_rn(S[re], p) >= -T) {
                int lo2 = lo1, hi2 = re + 1; // first k with fl(S(k) - p) >= -T
                while (lo2 < hi2) {
                    const int m = lo2 + (hi2 - lo2) / 2;
                    if (__fsub_rn(S[m], p) >= -T)
                        hi2 = m;
                    else
                        lo2 = m + 1;
                }
                for (int k = lo2; k <= re; k++) {
                    if (__fsub_rn(S[k], p) > T)
                        break;
                    const float e = __fsub_rn(B[k], p);
                    if (!(e >= -T && e <= T))
                        continue;
                    const float c = window_cost(A, B, W, x, k, h);
                    const int d = s < 0 ? x - k : k - x;
                    if (c < best || (c == best && d < bd)) {
                        best = c;
                        bx = k;
                        bd = d;
                    }
                }
            }
            re = rs - 1;
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

// The runs of a lit row (lib/stereo/phase.h rule 5): a run starts at a lit pixel whose
// phase is below the previous lit one's; the running maximum restarts there.  The serial
// rule, for x = 0 .. W-1 with last = m = -inf and rs = 0 at the start:
//     v = lit[x]; if (v != -inf) { if (v < last) { rs = x; m = -inf; } last = v; m = max(m, v); }
//     smax[x] = m; rstart[x] = rs;
// One thread walking a 1920-pixel row spent ~40 us a block on it (shared-memory latency
// on a chain of dependent steps) while the other 255 waited; here every thread walks a
// chunk of ceil(W / T) pixels, and two block scans carry the state between chunks:
// the last lit value (none = -inf, as the serial start), then (reset, rs, m), where a
// chunk that starts a run replaces what came before and one that does not raises m.
// Maxima of non-NaN floats are exact, so the result is the serial one bit for bit.
struct RunCarry {
    int reset, rs;
    float m;
};

__device__ __forceinline__ float fmax_exact(float a, float b) { return b > a ? b : a; }

__device__ void runs_row(const float *lit, int W, float *smax, int *rstart, float *c_last, RunCarry *c_run)
{
    const int T = blockDim.x, t = threadIdx.x, C = (W + T - 1) / T;
    const int b = t * C < W ? t * C : W, e = b + C < W ? b + C : W;
    // pass 1: the last lit value of each chunk; inclusive scan "the later one if lit"
    float lastv = -INFINITY;
    for (int x = b; x < e; x++)
        if (lit[x] != -INFINITY)
            lastv = lit[x];
    c_last[t] = lastv;
    __syncthreads();
    for (int k = 1; k < T; k <<= 1) {
        const float prev = t >= k ? c_last[t - k] : -INFINITY;
        __syncthreads();
        if (t >= k && c_last[t] == -INFINITY)
            c_last[t] = prev;
        __syncthreads();
    }
    const float last_in = t > 0 ? c_last[t - 1] : -INFINITY;
    // pass 2: each chunk's run state from its own start, given the last lit value before it
    RunCarry mine = {0, 0, -INFINITY};
    float last = last_in;
    for (int x = b; x < e; x++) {
        const float v = lit[x];
        if (v != -INFINITY) {
            if (v < last) {
                mine.reset = 1;
                mine.rs = x;
                mine.m = -INFINITY;
            }
            last = v;
            mine.m = fmax_exact(mine.m, v);
        }
    }
    c_run[t] = mine;
    __syncthreads();
    for (int k = 1; k < T; k <<= 1) {
        RunCarry prev = {0, 0, -INFINITY};
        if (t >= k)
            prev = c_run[t - k];
        __syncthreads();
        if (t >= k && !c_run[t].reset) {
            c_run[t].reset = prev.reset;
            c_run[t].rs = prev.rs;
            c_run[t].m = fmax_exact(prev.m, c_run[t].m);
        }
        __syncthreads();
    }
    // the serial start is a run at 0 with m = -inf
    RunCarry in = {1, 0, -INFINITY};
    if (t > 0 && c_run[t - 1].reset)
        in = c_run[t - 1];
    else if (t > 0)
        in.m = c_run[t - 1].m;
    // pass 3: the serial rule over the chunk from the carried state
    int rs = in.rs;
    float m = in.m;
    last = last_in;
    for (int x = b; x < e; x++) {
        const float v = lit[x];
        if (v != -INFINITY) {
            if (v < last) {
                rs = x;
                m = -INFINITY;
            }
            last = v;
            m = fmax_exact(m, v);
        }
        smax[x] = m;
        rstart[x] = rs;
    }
    __syncthreads(); // c_last and c_run are reused by the next row
}

__global__ void __launch_bounds__(PHASE_THREADS) phase_kernel(gvis_cu_phase_args a, int right_view, float *out)
{
    extern __shared__ float sh[];
    const int W = a.width;
    float *la = sh, *ra = sh + W, *sl = sh + 2 * W, *sr = sh + 3 * W;
    int *rsl = (int *)(sh + 4 * W), *rsr = (int *)(sh + 5 * W);
    const int y = a.roi[1] + blockIdx.x;
    const float *gl = a.d_left + (size_t)y * a.pitch, *gr = a.d_right + (size_t)y * a.pitch;
    for (int x = threadIdx.x; x < W; x += blockDim.x) {
        const float l = gl[x], r = gr[x];
        la[x] = l > a.valid_min ? l : -INFINITY;
        ra[x] = r > a.valid_min ? r : -INFINITY;
    }
    __syncthreads();
    if (a.ordered) { // the right row's runs, then the left row's where they are needed
        __shared__ float c_last[PHASE_THREADS];
        __shared__ RunCarry c_run[PHASE_THREADS];
        runs_row(ra, W, sr, rsr, c_last, c_run);
        if (right_view || a.lr_check >= 0)
            runs_row(la, W, sl, rsl, c_last, c_run);
    }
    const Row L = {la, ra, sr, rsr}, R = {ra, la, sl, rsl};
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

size_t smem_bytes(int W) { return sizeof(float) * 6 * (size_t)W; }

} // namespace

extern "C" int gvis_cu_phase_max_width(void)
{
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return 0;
    const size_t fixed = PHASE_THREADS * (sizeof(float) + sizeof(RunCarry)); /* the runs' scans */
    return (size_t)optin > fixed ? (int)(((size_t)optin - fixed) / sizeof(float) / 6) : 0;
}

extern "C" int gvis_cu_phase_match(const gvis_cu_phase_args *a, int right_view, float *d_out, void *stream)
{
    const int rows = a->roi[3] - a->roi[1];
    if (rows <= 0 || a->roi[2] <= a->roi[0])
        return (int)cudaErrorInvalidValue;
    const size_t bytes = smem_bytes(a->width);
    // the runs' scans take PHASE_THREADS * 16 bytes of static shared memory beside it
    if (bytes + PHASE_THREADS * (sizeof(float) + sizeof(RunCarry)) > 48 * 1024) { // beyond the default: opt in (per device; cheap, so not cached)
        cudaError_t e = cudaFuncSetAttribute(phase_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (e != cudaSuccess)
            return (int)e;
    }
    phase_kernel<<<rows, PHASE_THREADS, bytes, (cudaStream_t)stream>>>(*a, right_view, d_out);
    return (int)cudaGetLastError();
}
