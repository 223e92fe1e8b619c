// SGM winner takes all (lib/stereo/sgm.h step 5) for the left and the right view, three
// kernels, all computing the CPU's picks exactly:
//
// wta_tile_kernel (sgm_wta_tile.cu; D = 64, 128, 256, the default there): a thread a
// pixel, scanning its sums serially from shared memory.
//
// wta_ring_kernel (D <= 256): one pass over the path volumes through a ring of sums in
// shared memory (see its comment), a warp a pixel.
//
// wta_kernel (D > 256, whose ring would not fit): one block per row, each thread 4
// disparities of a pixel (32-bit loads).  Pass 1 sums the path volumes per (x, k) and
// takes, in shared memory, the minimum of (S << 16 | k) per left pixel (a warp-wide
// reduction, then one atomic) and per right pixel x - M - k (distinct addresses across a
// warp).  Pass 2 recomputes S for the second minimum away from the winner and picks up
// the winner's two neighbours for the parabola.  Pass 3 applies uniqueness and subpixel
// exactly as the CPU does.
#include <cuda_runtime.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sgm_cuda.h"
#include "sgm_wta.cuh"

#define THREADS 512

// The sums S of 4 consecutive disparities of one cell group (4-byte aligned: D is a
// multiple of 16): one 32-bit load per path, bytes added as 16-bit pairs (8 x 255 fits).
__device__ __forceinline__ void sum4(const wta_args &a, size_t cell, uint32_t (&s)[4])
{
    if (a.sum) {
        // the sum volume: k = kb .. kb + 3 (kb % 4 = 0) are the same halves of four
        // consecutive words (a 16-byte load)
        const size_t pix = cell / a.D;
        const int kb = (int)(cell - pix * a.D);
        const uint4 v = __ldg(reinterpret_cast<const uint4 *>(a.sum + pix * a.sw + (kb >> 6) * 32 + (kb & 31)));
        const int sh = kb & 32 ? 16 : 0;
        s[0] = (v.x >> sh) & 0xffff;
        s[1] = (v.y >> sh) & 0xffff;
        s[2] = (v.z >> sh) & 0xffff;
        s[3] = (v.w >> sh) & 0xffff;
        return;
    }
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

// One pass over the volumes (D <= 256): a block walks its row in chunks of RC pixels,
// adds the path volumes once into a ring of S rows in shared memory (u16 [R][D], R = D +
// RC), and takes every left pixel of the chunk and every right pixel whose diagonal
// (x = xr + M + k, k < D) is now complete from the ring, one warp per pixel: the winner,
// then the second minimum away from it and its neighbours; then every thread finishes
// one pixel.  The two-pass kernel above reads the volumes twice (the second time from
// DRAM: a row is 2 MB at 1080p and D = 128), which cost half the WTA's time.
// GVIS_SGM_WTA_TWO_PASS=1 selects it for any D (for timing the two side by side).
#define RC 64

// The winner of one pixel from the ring, a warp: lane l holds S(k) for k = l + 32 i
// (i < KP) in registers, read from row (row0 + diag * k) mod R; values outside
// [klo, khi] do not count.  Then the second minimum away from the winner, and the
// winner's neighbours, as finish() needs.
// ALL: every k < D counts (an interior pixel); FULLD: D = 32 KP.
template <int KP, bool FULLD, bool ALL>
__device__ __forceinline__ void ring_pick_impl(const uint16_t *ring, int R, int D, int row0, int diag, int klo,
                                               int khi, int lane, px_state &st)
{
    uint32_t v[KP];
    uint32_t key = NONE;
    int row = row0 + diag * lane;
    row = row >= R ? row - R : row;
#pragma unroll
    for (int i = 0; i < KP; i++) {
        const int k = lane + 32 * i;
        const bool in = (FULLD || k < D) && (ALL || (k >= klo && k <= khi));
        v[i] = in ? ring[(size_t)row * D + k] : NONE;
        key = min(key, in ? v[i] << 16 | (uint32_t)k : NONE);
        if (diag) {
            row += 32;
            row = row >= R ? row - R : row;
        }
    }
    st.best = __reduce_min_sync(0xffffffffu, key);
    st.second = NONE;
    st.lo = st.hi = 0;
    if (st.best == NONE)
        return;
    const int k0 = (int)(st.best & 0xffff);
    uint32_t sec = NONE;
#pragma unroll
    for (int i = 0; i < KP; i++) {
        const int k = lane + 32 * i;
        if (k < k0 - 1 || k > k0 + 1)
            sec = min(sec, v[i]); // NONE where out of range
    }
    st.second = __reduce_min_sync(0xffffffffu, sec);
    auto at = [&](int k) {
        int r = row0 + diag * k;
        r = r >= R ? r - R : r;
        return ring[(size_t)r * D + k];
    };
    if (k0 - 1 >= klo)
        st.lo = at(k0 - 1);
    if (k0 + 1 <= khi)
        st.hi = at(k0 + 1);
}

template <int KP>
__device__ __forceinline__ void ring_pick(const uint16_t *ring, int R, int D, int row0, int diag, int klo, int khi,
                                          int lane, px_state &st)
{
    if (D != 32 * KP)
        ring_pick_impl<KP, false, false>(ring, R, D, row0, diag, klo, khi, lane, st);
    else if (klo == 0 && khi == D - 1)
        ring_pick_impl<KP, true, true>(ring, R, D, row0, diag, klo, khi, lane, st);
    else
        ring_pick_impl<KP, true, false>(ring, R, D, row0, diag, klo, khi, lane, st);
}

template <int KP, int NP>
__global__ void __launch_bounds__(THREADS) wta_ring_kernel(wta_args a)
{
    extern __shared__ uint16_t ring[]; // [R][D]
    __shared__ px_state st_left[RC], st_right[RC];
    const int W = a.width, D = a.D, M = a.M, y = blockIdx.x, R = D + RC;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = THREADS / 32;
    const size_t row = (size_t)y * W * D;
    // this thread's groups of 8 disparities: pixel offset xo in the chunk, first k kb;
    // it steps by THREADS groups, split into whole pixels dxo and a remainder dkb
    const int gpp = D / 8;
    const int xo0 = threadIdx.x / gpp, kb0 = (threadIdx.x % gpp) * 8;
    const int dxo = THREADS / gpp, dkb = (THREADS % gpp) * 8;
    int next_r = 0; // the first right pixel not yet taken
    int x0r = 0;    // x0 mod R
    for (int x0 = 0; x0 < W; x0 += RC) {
        const int n = min(RC, W - x0); // chunk [x0, x0 + n)
        // the sums of the chunk into the ring
        if (NP == SUMV) {
            // the sum volume (sgm_cuda.h): group q of a pixel is words 4 q .. 4 q + 3,
            // k = b .. b + 3 in their low halves and b + 32 .. b + 35 in their high ones
            // (b = 64 (q / 8) + 4 (q % 8)); D % 16 = 0, so a quad is all in or all out
            const int gps = a.sw / 4;
            const int dxs = THREADS / gps, dq = THREADS % gps;
            const uint4 *src = reinterpret_cast<const uint4 *>(a.sum + ((size_t)y * W + x0) * a.sw);
            for (int xo = threadIdx.x / gps, q = threadIdx.x % gps; xo < n;) {
                const int b = 64 * (q >> 3) + 4 * (q & 7);
                if (b < D) {
                    int r = x0r + xo;
                    r = r >= R ? r - R : r;
                    const uint4 v = __ldg(src + (size_t)xo * gps + q);
                    uint16_t *dst = ring + (size_t)r * D + b;
                    *reinterpret_cast<uint2 *>(dst) =
                        make_uint2(__byte_perm(v.x, v.y, 0x5410), __byte_perm(v.z, v.w, 0x5410));
                    if (b + 32 < D)
                        *reinterpret_cast<uint2 *>(dst + 32) =
                            make_uint2(__byte_perm(v.x, v.y, 0x7632), __byte_perm(v.z, v.w, 0x7632));
                }
                xo += dxs;
                q += dq;
                if (q >= gps) {
                    q -= gps;
                    xo++;
                }
            }
        } else
        for (int xo = xo0, kb = kb0; xo < n;) {
            int r = x0r + xo;
            r = r >= R ? r - R : r;
            *reinterpret_cast<uint4 *>(ring + (size_t)r * D + kb) = sum8<NP>(a, row + (size_t)(x0 + xo) * D + kb);
            xo += dxo;
            kb += dkb;
            if (kb >= D) {
                kb -= D;
                xo++;
            }
        }
        __syncthreads();
        // The picks, a warp a pixel, leave their states in shared memory; then every
        // thread finishes one pixel (uniqueness, subpixel), instead of lane 0 of each
        // warp with the other 31 idle.  Right pixels go in batches of RC (one batch but
        // at the first and last chunks).
        const int last = x0 + n == W ? W - 1 : min(W - 1, x0 + n - 1 - M - (D - 1));
        int rb0 = next_r;
        bool first_batch = true;
        do {
            const int rcount = a.right ? min(last - rb0 + 1, RC) : 0;
            if (first_batch && a.left)
                for (int xo = warp; xo < n; xo += nwarps) {
                    const int x = x0 + xo, klo = max(0, x - (W - 1) - M), khi = min(D - 1, x - M);
                    int r = x0r + xo;
                    r = r >= R ? r - R : r;
                    px_state st;
                    ring_pick<KP>(ring, R, D, r, 0, klo, khi, lane, st);
                    if (lane == 0)
                        st_left[xo] = st;
                }
            if (rcount > 0) {
                // the ring row of k = 0 is that of x = xr + M, possibly before the row
                // (only k >= klo are read); carried along with xr
                int r0 = (rb0 + warp + M) % R;
                r0 = r0 < 0 ? r0 + R : r0;
                for (int xr = rb0 + warp; xr < rb0 + rcount; xr += nwarps) {
                    const int klo = max(0, -xr - M), khi = min(D - 1, W - 1 - xr - M);
                    px_state st;
                    ring_pick<KP>(ring, R, D, r0, 1, klo, khi, lane, st);
                    if (lane == 0)
                        st_right[xr - rb0] = st;
                    r0 += nwarps;
                    r0 = r0 >= R ? r0 - R : r0;
                }
            }
            __syncthreads();
            for (int i = threadIdx.x; i < 2 * RC; i += THREADS) {
                if (i < RC) {
                    const int x = x0 + i;
                    if (first_batch && a.left && i < n)
                        a.left[(size_t)y * W + x] =
                            finish(st_left[i], max(0, x - (W - 1) - M), min(D - 1, x - M), a.U, a.subpixel, M);
                } else if (i - RC < rcount) {
                    const int xr = rb0 + i - RC;
                    a.right[(size_t)y * W + xr] =
                        finish(st_right[i - RC], max(0, -xr - M), min(D - 1, W - 1 - xr - M), a.U, a.subpixel, M);
                }
            }
            __syncthreads();
            first_batch = false;
            rb0 += RC;
        } while (a.right && rb0 <= last);
        if (a.right)
            next_r = max(next_r, last + 1);
        x0r += RC;
        x0r = x0r >= R ? x0r - R : x0r;
    }
}

// Shared memory of the one-pass kernel, or 0 where it does not fit (D > 256).
// The shared memory a block may have on the current device (227 KiB on an H100, 163 on
// an A100, 99 on sm_86 / sm_89), or 200 KiB when the device cannot be asked.
static size_t smem_limit()
{
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess || v <= 0)
        return 200 * 1024;
    return (size_t)v;
}

static size_t ring_bytes(int D)
{
    const size_t b = (size_t)(D + RC) * D * sizeof(uint16_t);
    return b <= 200 * 1024 && b <= smem_limit() ? b : 0;
}

template <int KP, int NP>
static int ring_launch_np(const wta_args &a, size_t bytes, void *stream)
{
    cudaError_t e =
        cudaFuncSetAttribute(wta_ring_kernel<KP, NP>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != cudaSuccess)
        return (int)e;
    wta_ring_kernel<KP, NP><<<a.height, THREADS, bytes, (cudaStream_t)stream>>>(a);
    return (int)cudaGetLastError();
}

// The path count unrolled for the two the CLI offers (4, 8), any other at run time.
template <int KP>
static int ring_launch(const wta_args &a, size_t bytes, void *stream)
{
    return a.sum           ? ring_launch_np<KP, SUMV>(a, bytes, stream)
           : a.npaths == 8 ? ring_launch_np<KP, 8>(a, bytes, stream)
           : a.npaths == 4 ? ring_launch_np<KP, 4>(a, bytes, stream)
                           : ring_launch_np<KP, 0>(a, bytes, stream);
}

// The kernel for D: GVIS_SGM_WTA=tile|ring|two-pass (read at each call, for timing them
// side by side; GVIS_SGM_WTA_TWO_PASS=1 is the older name of two-pass); by default the
// thread-a-pixel kernel where it exists (D = 64, 128, 256), else the ring (D <= 256), else
// the two-pass kernel.
enum wta_kind { WTA_TILE, WTA_RING, WTA_TWO_PASS };

static wta_kind pick_kind(int D)
{
    const char *e = getenv("GVIS_SGM_WTA");
    const bool two = getenv("GVIS_SGM_WTA_TWO_PASS") || (e && !strcmp(e, "two-pass"));
    if (two || !ring_bytes(D))
        return WTA_TWO_PASS;
    const size_t tb = wta_tile_bytes(D);
    if ((e && !strcmp(e, "ring")) || !tb || tb > smem_limit())
        return WTA_RING;
    return WTA_TILE;
}

extern "C" int gvis_cu_sgm_wta_max_width(int D)
{
    // the ring and the tile depend on D only; the two-pass kernel keeps two states a pixel
    return pick_kind(D) != WTA_TWO_PASS ? INT_MAX : (int)((200 * 1024) / (2 * sizeof(px_state)));
}

static int wta_launch(wta_args &a, void *stream)
{
    const int width = a.width, height = a.height, D = a.D;
    if (width <= 0 || height <= 0 || D < 16 || D % 16 || width > gvis_cu_sgm_wta_max_width(D))
        return (int)cudaErrorInvalidValue;
    const wta_kind kind = pick_kind(D);
    if (kind == WTA_TILE)
        return wta_tile_launch(a, stream);
    const size_t rb = ring_bytes(D);
    if (kind == WTA_RING) {
        switch ((D + 31) / 32) {
        case 1:
            return ring_launch<1>(a, rb, stream);
        case 2:
            return ring_launch<2>(a, rb, stream);
        case 3:
            return ring_launch<3>(a, rb, stream);
        case 4:
            return ring_launch<4>(a, rb, stream);
        case 5:
            return ring_launch<5>(a, rb, stream);
        case 6:
            return ring_launch<6>(a, rb, stream);
        case 7:
            return ring_launch<7>(a, rb, stream);
        default:
            return ring_launch<8>(a, rb, stream);
        }
    }
    size_t smem = 2 * (size_t)width * sizeof(px_state);
    cudaError_t e = cudaFuncSetAttribute(wta_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess)
        return (int)e;
    wta_kernel<<<height, THREADS, smem, (cudaStream_t)stream>>>(a);
    return (int)cudaGetLastError();
}

static void wta_common(wta_args &a, int width, int height, int D, int min_disp, int U, int subpixel,
                       int16_t *d_left, int16_t *d_right)
{
    a.lr = nullptr;
    a.sum = nullptr;
    a.sw = 0;
    a.vol = (size_t)width * height * D;
    a.npaths = 0;
    a.width = width;
    a.height = height;
    a.D = D;
    a.M = min_disp;
    a.U = U;
    a.subpixel = subpixel;
    a.left = d_left;
    a.right = d_right;
    a.y0 = 0;
    a.y1 = height;
    a.strip = nullptr;
    a.svol = 0;
    a.nstrip = 0;
    a.seg = 0;
    a.batch = 0;
}

extern "C" int gvis_cu_sgm_wta(const uint8_t *d_lr, int npaths, int width, int height, int D, int min_disp, int U,
                               int subpixel, int16_t *d_left, int16_t *d_right, void *stream)
{
    wta_args a;
    wta_common(a, width, height, D, min_disp, U, subpixel, d_left, d_right);
    if (!d_lr || npaths < 1 || npaths > 8)
        return (int)cudaErrorInvalidValue;
    a.lr = d_lr;
    a.npaths = npaths;
    return wta_launch(a, stream);
}

extern "C" int gvis_cu_sgm_wta_sum(const uint16_t *d_sum, int stride, int width, int height, int D, int min_disp,
                                   int U, int subpixel, int16_t *d_left, int16_t *d_right, void *stream)
{
    wta_args a;
    wta_common(a, width, height, D, min_disp, U, subpixel, d_left, d_right);
    if (!d_sum || stride % 64 || stride < (D + 63) / 64 * 64)
        return (int)cudaErrorInvalidValue;
    a.sum = reinterpret_cast<const uint32_t *>(d_sum);
    a.sw = stride / 2;
    return wta_launch(a, stream);
}

// Chunks of 128 pixels a block of the strips' winner: GVIS_SGM_WTA_SEG (0: whole rows),
// default 15.  With the batched loads (strip_batches) fewer, longer segments won: at
// 3840x2160, D = 128 on an H100, 15 (two a row) 13.83 ms against 14.21 with 8, 13.84 with
// 16, 13.94-14.33 with 10-12 and 15.9 with whole rows (call 97, docs/notes-sgm-gpu.md).
static int strip_seg(void)
{
    const char *e = getenv("GVIS_SGM_WTA_SEG");
    return e && *e ? atoi(e) < 0 ? 0 : atoi(e) : 15;
}

extern "C" int gvis_cu_sgm_wta_strip(const uint16_t *d_sum, int stride, const uint8_t *d_strip, size_t vol,
                                     int nstrip, int width, int height, int D, int min_disp, int U, int subpixel,
                                     int y0, int y1, int16_t *d_left, int16_t *d_right, void *stream)
{
    wta_args a;
    wta_common(a, width, height, D, min_disp, U, subpixel, d_left, d_right);
    if (!d_sum || stride % 64 || stride < (D + 63) / 64 * 64 || !d_strip || nstrip < 1 || nstrip > 3 || y0 < 0 ||
        y1 > height || y0 >= y1 || vol < (size_t)(y1 - y0) * width * D || width <= 0 || D < 16 || D % 16 ||
        pick_kind(D) != WTA_TILE)
        return (int)cudaErrorInvalidValue;
    a.sum = reinterpret_cast<const uint32_t *>(d_sum);
    a.sw = stride / 2;
    a.strip = d_strip;
    a.svol = vol;
    a.nstrip = nstrip;
    a.y0 = y0;
    a.y1 = y1;
    // a strip's rows are too few blocks for the device (128 at 4K, D = 128: ncu 359 us a
    // strip against 1.40 ms for the whole image's 2,160): a block a segment of the row
    a.seg = strip_seg();
    const char *e = getenv("GVIS_SGM_WTA_BATCH");
    a.batch = !(e && *e == '0');
    return wta_tile_launch(a, stream);
}

extern "C" int gvis_cu_sgm_wta_strip_ok(int D)
{
    return pick_kind(D) == WTA_TILE;
}
