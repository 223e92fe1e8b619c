// SGM winner takes all (lib/sgm.h step 5) for the left and the right view.
//
// One block per row, each thread 4 disparities of a pixel (32-bit loads).  Pass 1
// sums the path volumes per (x, k) and takes, in
// shared memory, the minimum of (S << 16 | k) per left pixel (a warp-wide
// reduction, then one atomic) and per right pixel x - M - k (distinct addresses
// across a warp).  Pass 2 recomputes S for the second minimum away from the
// winner and picks up the winner's two neighbours for the parabola.  Pass 3
// applies uniqueness and subpixel exactly as the CPU does.
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"

#define THREADS 512
#define NONE 0xffffffffu

struct wta_args {
    const uint8_t *lr;
    size_t vol;
    int npaths, width, height, D, M, U, subpixel;
    int16_t *left, *right;
};

struct px_state {
    uint32_t best, second;
    uint16_t lo, hi; // S(k0 - 1), S(k0 + 1)
};

// The sums S of 4 consecutive disparities of one cell group (4-byte aligned: D is a
// multiple of 16): one 32-bit load per path, bytes added as 16-bit pairs (8 x 255 fits).
__device__ __forceinline__ void sum4(const wta_args &a, size_t cell, uint32_t (&s)[4])
{
    uint32_t even = 0, odd = 0;
    for (int p = 0; p < a.npaths; p++) {
        const uint32_t v = __ldg(reinterpret_cast<const uint32_t *>(a.lr + p * a.vol + cell));
        even += v & 0x00ff00ffu;
        odd += (v >> 8) & 0x00ff00ffu;
    }
    s[0] = even & 0xffff;
    s[1] = odd & 0xffff;
    s[2] = even >> 16;
    s[3] = odd >> 16;
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

__global__ void __launch_bounds__(THREADS) wta_kernel(wta_args a)
{
    extern __shared__ px_state st[]; // [2][W]: left, right
    const int W = a.width, D = a.D, M = a.M, y = blockIdx.x;
    px_state *L = st, *R = st + W;
    for (int i = threadIdx.x; i < 2 * W; i += THREADS) {
        st[i].best = NONE;
        st[i].second = NONE;
        st[i].lo = st[i].hi = 0;
    }
    __syncthreads();
    const size_t row = (size_t)y * W * D;
    const int n = W * D;
    const bool do_left = a.left != nullptr, do_right = a.right != nullptr;
    // Pass 1: the winners.  D is a multiple of 16, so a warp covers whole pixels
    // (D >= 32) or two pixels (D = 16).
    const int lane = threadIdx.x & 31;
    const int n4 = n / 4; // groups of 4 disparities
    // Whole warps iterate together (the shuffles need every lane); lanes past the
    // row's end take part with valid = false.
    for (int base = threadIdx.x - lane; base < n4; base += THREADS) {
        const int i = base + lane;
        const bool valid = i < n4;
        const int x = valid ? 4 * i / D : -1, kb = valid ? 4 * i - x * D : 0;
        uint32_t s[4] = {0, 0, 0, 0};
        if (valid)
            sum4(a, row + 4 * (size_t)i, s);
        if (do_left) {
            uint32_t key = NONE;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int k = kb + j;
                const bool in = valid && x - M - k >= 0 && x - M - k <= W - 1;
                key = min(key, in ? (s[j] << 16 | (uint32_t)k) : NONE);
            }
            const unsigned same = __match_any_sync(0xffffffffu, x);
            const uint32_t r = __reduce_min_sync(same, key);
            if (lane == __ffs(same) - 1 && r != NONE)
                atomicMin(&L[x].best, r);
        }
        if (do_right && valid) {
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int k = kb + j, xr = x - M - k;
                if (xr >= 0 && xr < W)
                    atomicMin(&R[xr].best, s[j] << 16 | (uint32_t)k);
            }
        }
    }
    __syncthreads();
    // Pass 2: second minima and the winners' neighbours.
    for (int base = threadIdx.x - lane; base < n4; base += THREADS) {
        const int i = base + lane;
        const bool valid = i < n4;
        const int x = valid ? 4 * i / D : -1, kb = valid ? 4 * i - x * D : 0;
        uint32_t s[4] = {0, 0, 0, 0};
        if (valid)
            sum4(a, row + 4 * (size_t)i, s);
        if (do_left) {
            const uint32_t b = valid ? L[x].best : NONE;
            const int k0 = (int)(b & 0xffff);
            uint32_t sec = NONE;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int k = kb + j;
                const bool in = valid && x - M - k >= 0 && x - M - k <= W - 1;
                if (in && b != NONE && (k < k0 - 1 || k > k0 + 1))
                    sec = min(sec, s[j]);
                if (in && b != NONE) {
                    if (k == k0 - 1)
                        L[x].lo = (uint16_t)s[j];
                    if (k == k0 + 1)
                        L[x].hi = (uint16_t)s[j];
                }
            }
            const unsigned same = __match_any_sync(0xffffffffu, x);
            const uint32_t r = __reduce_min_sync(same, sec);
            if (lane == __ffs(same) - 1 && r != NONE)
                atomicMin(&L[x].second, r);
        }
        if (do_right && valid) {
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int k = kb + j, xr = x - M - k;
                if (xr >= 0 && xr < W) {
                    const uint32_t b = R[xr].best;
                    const int k0 = (int)(b & 0xffff);
                    if (k < k0 - 1 || k > k0 + 1)
                        atomicMin(&R[xr].second, s[j]);
                    if (k == k0 - 1)
                        R[xr].lo = (uint16_t)s[j];
                    if (k == k0 + 1)
                        R[xr].hi = (uint16_t)s[j];
                }
            }
        }
    }
    __syncthreads();
    for (int x = threadIdx.x; x < W; x += THREADS) {
        if (do_left) {
            int klo = max(0, x - (W - 1) - M), khi = min(D - 1, x - M);
            a.left[(size_t)y * W + x] = finish(L[x], klo, khi, a.U, a.subpixel, M);
        }
        if (do_right) {
            int klo = max(0, -x - M), khi = min(D - 1, W - 1 - x - M);
            a.right[(size_t)y * W + x] = finish(R[x], klo, khi, a.U, a.subpixel, M);
        }
    }
}

extern "C" int gvis_cu_sgm_wta_max_width(void)
{
    return (int)((200 * 1024) / (2 * sizeof(px_state)));
}

extern "C" int gvis_cu_sgm_wta(const uint8_t *d_lr, int npaths, int width, int height, int D, int min_disp, int U,
                               int subpixel, int16_t *d_left, int16_t *d_right, void *stream)
{
    if (width <= 0 || height <= 0 || D < 16 || D % 16 || width > gvis_cu_sgm_wta_max_width())
        return (int)cudaErrorInvalidValue;
    wta_args a;
    a.lr = d_lr;
    a.vol = (size_t)width * height * D;
    a.npaths = npaths;
    a.width = width;
    a.height = height;
    a.D = D;
    a.M = min_disp;
    a.U = U;
    a.subpixel = subpixel;
    a.left = d_left;
    a.right = d_right;
    size_t smem = 2 * (size_t)width * sizeof(px_state);
    cudaError_t e = cudaFuncSetAttribute(wta_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess)
        return (int)e;
    wta_kernel<<<height, THREADS, smem, (cudaStream_t)stream>>>(a);
    return (int)cudaGetLastError();
}
