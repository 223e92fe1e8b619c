// Refinement step 2 (lib/stereo/refine.c, exactly): region voting rounds until none
// changes a pixel.  Only the pixels invalid before the first round can change: a first
// launch lists them, and each round gives list entry i to warp i % (warps of the grid),
// which spreads the costly runs of invalid pixels (the left border, occlusions) over the
// whole chip.  (With 32 consecutive pixels a warp, the warps that drew the border's runs
// ran on while the rest of the chip idled: 10 % occupancy, 0.49 ms for the first round at
// 1242x375 on an H100.)  A warp walks its pixel's cross region row by row (the horizontal
// arms of 32 rows fetched at once, one a lane; two rows' values loaded before either is
// counted), adding the votes' weights into a histogram in shared memory (integer sums:
// the order does not change them); the heaviest disparity (the smallest on a tie) is a
// warp-wide maximum of weight * 1024 + 1023 - d.
//
// Skipping what cannot change: a pixel's vote reads only its cross region of the previous
// map (the right map, classes and arms do not change between rounds), so a pixel that a
// round left invalid stays invalid in the next unless some pixel of its region changed.
// Each round marks the 8x8 tiles where it set a pixel; the next round votes only for the
// pixels whose region's bounding box (rows of the vertical arm, x +- 34) meets a marked
// tile, and leaves the others invalid at once (the same result, exactly).  Three flag
// planes rotate: the previous round's (read), this round's (set), the one before (cleared
// here for the next round).  A round reads the previous round's count on the device:
// after a round that changed nothing both buffers hold the same map, so the later rounds
// return at once and the host never waits between rounds.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality_cuda.h"
#include "refine.cuh"

#define VOTE_MIN 20
#define VOTE_SHARE10 4
#define WARPS 4
#define TILE 8
#define REACH 34 /* the longest arm */

__device__ __forceinline__ void vote_add(int *hist, int v, int16_t inval, int M, int D, const int16_t *rrow, int x,
                                         int W, int &mine)
{
    if (v == inval)
        return;
    const int d = rf_round16(v) - M;
    if (d < 0 || d >= D)
        return;
    const int wgt = rrow ? rf_hidden_weight(rrow, x, d + M, W, inval) : 2;
    if (wgt) {
        atomicAdd(&hist[d], wgt);
        mine += wgt;
    }
}

// The pixels invalid before the first round, in no particular order (each pixel's
// result depends on the maps alone): only they can change.
__global__ void refine_list_kernel(const int16_t *in, int16_t inval, size_t n, int *len, int *list)
{
    const int lane = threadIdx.x & 31;
    for (size_t c0 = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) & ~(size_t)31; c0 < n;
         c0 += (size_t)gridDim.x * blockDim.x) {
        const size_t p = c0 + lane;
        const bool bad = p < n && in[p] == inval;
        const unsigned m = __ballot_sync(0xffffffffu, bad);
        int base = 0;
        if (lane == 0 && m)
            base = atomicAdd(len, __popc(m));
        base = __shfl_sync(0xffffffffu, base, 0);
        if (bad)
            list[base + __popc(m & ((1u << lane) - 1))] = (int)p;
    }
}

__global__ void __launch_bounds__(WARPS * 32)
    refine_vote_kernel(const int16_t *in, int16_t *out, const int16_t *right, const uint8_t *label,
                       const uint8_t *arms, int W, int H, int M, int D, const int *prev_count, int *count,
                       const int *len, const int *list, const uint8_t *flags_prev, uint8_t *flags_cur,
                       uint8_t *flags_clear)
{
    __shared__ int hist[WARPS][512];
    if (prev_count && *prev_count == 0)
        return; /* the last round changed nothing: in == out already */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int TW = (W + TILE - 1) / TILE, TH = (H + TILE - 1) / TILE;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)TW * TH;
         i += (size_t)gridDim.x * blockDim.x)
        flags_clear[i] = 0;
    const int16_t inval = (int16_t)(16 * (M - 1));
    const int nlist = *len, nwarps = gridDim.x * WARPS;
    int changed = 0;
    /* list entry i to warp i % nwarps: the costly pixels (runs of them) spread over all warps */
    for (int i = blockIdx.x * WARPS + warp; i < nlist; i += nwarps) {
        const size_t p = (size_t)list[i];
        const int16_t v = in[p];
        if (v != inval) { /* set by an earlier round: the other buffer may still hold invalid */
            if (lane == 0)
                out[p] = v;
            continue;
        }
        const int x = (int)(p % W), y = (int)(p / W);
        const int y0 = y - arms[p * 4 + 2], y1 = y + arms[p * 4 + 3];
        if (flags_prev) { /* did anything in the region change in the last round? */
            const int tx0 = max(x - REACH, 0) / TILE, tx1 = min(x + REACH, W - 1) / TILE;
            const int ty0 = y0 / TILE, ty1 = y1 / TILE, ntx = tx1 - tx0 + 1;
            const int tiles = ntx * (ty1 - ty0 + 1);
            bool hit = false;
            for (int t = lane; t < tiles; t += 32)
                hit |= flags_prev[(size_t)(ty0 + t / ntx) * TW + tx0 + t % ntx] != 0;
            if (!__any_sync(0xffffffffu, hit)) {
                if (lane == 0)
                    out[p] = inval;
                continue;
            }
        }
        for (int d = lane; d < D; d += 32)
            hist[warp][d] = 0;
        __syncwarp();
        const int16_t *rrow = right && label[p] == RF_OCCLUDED ? right + (size_t)y * W : NULL;
        int mine = 0;
        for (int r0 = y0; r0 <= y1; r0 += 32) {
            /* the horizontal arms of rows r0 .. r0 + 31, one a lane */
            int la = 0, ra = -1;
            if (r0 + lane <= y1) {
                const uchar2 ar = *reinterpret_cast<const uchar2 *>(arms + ((size_t)(r0 + lane) * W + x) * 4);
                la = ar.x;
                ra = ar.y;
            }
            const int nr = min(32, y1 - r0 + 1);
            for (int i = 0; i < nr; i += 2) {
                /* two rows' values (at most 69 a row: 3 a lane) loaded, then counted */
                int16_t val[2][3];
                int lo[2], hi[2];
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int ii = min(i + h, nr - 1);
                    lo[h] = x - __shfl_sync(0xffffffffu, la, ii);
                    hi[h] = i + h < nr ? x + __shfl_sync(0xffffffffu, ra, ii) : lo[h] - 1;
                    const int16_t *row = in + (size_t)(r0 + ii) * W;
#pragma unroll
                    for (int c = 0; c < 3; c++) {
                        const int qx = lo[h] + lane + 32 * c;
                        val[h][c] = qx <= hi[h] ? row[qx] : inval;
                    }
                }
#pragma unroll
                for (int h = 0; h < 2; h++)
#pragma unroll
                    for (int c = 0; c < 3; c++)
                        vote_add(hist[warp], val[h][c], inval, M, D, rrow, x, W, mine);
            }
        }
        const int total = (int)__reduce_add_sync(0xffffffffu, (unsigned)mine);
        __syncwarp();
        unsigned key = 0;
        for (int d = lane; d < D; d += 32)
            key = max(key, (unsigned)hist[warp][d] << 10 | (unsigned)(1023 - d));
        key = __reduce_max_sync(0xffffffffu, key);
        int16_t o = inval;
        if (total > 2 * VOTE_MIN) {
            const int best = 1023 - (int)(key & 1023u), w = (int)(key >> 10);
            if (w * 10 > total * VOTE_SHARE10) {
                o = (int16_t)(16 * (best + M));
                changed++;
            }
        }
        if (lane == 0) {
            out[p] = o;
            if (o != inval)
                flags_cur[(size_t)(y / TILE) * TW + x / TILE] = 1;
        }
        __syncwarp();
    }
    if (lane == 0 && changed)
        atomicAdd(count, changed);
}

/* scratch: the list's length (64 bytes), the list (4 n), three flag planes */
static size_t flag_plane(int width, int height)
{
    return (size_t)((width + TILE - 1) / TILE) * (size_t)((height + TILE - 1) / TILE);
}

extern "C" size_t gvis_cu_refine_vote_scratch(int width, int height)
{
    if (width <= 0 || height <= 0)
        return 0;
    return 64 + 4 * (size_t)width * height + 3 * flag_plane(width, height);
}

extern "C" int gvis_cu_refine_vote(int16_t *d_disp, int16_t *d_tmp, const int16_t *d_right, const uint8_t *d_label,
                                   const uint8_t *d_arms, int width, int height, int min_disp, int D, int max_rounds,
                                   int *d_counts, uint8_t *d_scratch, void *stream)
{
    if (width <= 0 || height <= 0 || D < 1 || D > 512 || max_rounds < 0 || !d_disp || !d_tmp || !d_label ||
        !d_arms || (max_rounds && (!d_counts || !d_scratch)) || d_disp == d_tmp ||
        (size_t)width * height > 0x7fffffffu || ((uintptr_t)d_scratch & 3))
        return (int)cudaErrorInvalidValue;
    if (max_rounds == 0)
        return (int)cudaSuccess;
    cudaStream_t s = (cudaStream_t)stream;
    const size_t n = (size_t)width * height;
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return (int)e;
    /* enough warps to fill the chip (the weight histograms allow 16 blocks an SM at D = 512) */
    const size_t want = (n + 32 * WARPS - 1) / (32 * WARPS), cap = (size_t)(sms > 0 ? sms : 1) * 16;
    const unsigned blocks = (unsigned)(want < cap ? want : cap);
    const size_t plane = flag_plane(width, height);
    int *len = reinterpret_cast<int *>(d_scratch), *list = reinterpret_cast<int *>(d_scratch + 64);
    uint8_t *flags = d_scratch + 64 + 4 * n;
    e = cudaMemsetAsync(d_counts, 0, sizeof(int) * (size_t)max_rounds, s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(d_scratch, 0, 64, s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(flags, 0, 3 * plane, s);
    /* both buffers hold the map: a round writes only the listed pixels */
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(d_tmp, d_disp, n * sizeof(int16_t), cudaMemcpyDeviceToDevice, s);
    if (e != cudaSuccess)
        return (int)e;
    refine_list_kernel<<<blocks, 32 * WARPS, 0, s>>>(d_disp, (int16_t)(16 * (min_disp - 1)), n, len, list);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return (int)e;
    int16_t *a = d_disp, *b = d_tmp;
    for (int r = 0; r < max_rounds; r++) {
        refine_vote_kernel<<<blocks, 32 * WARPS, 0, s>>>(
            a, b, d_right, d_label, d_arms, width, height, min_disp, D, r ? d_counts + r - 1 : NULL, d_counts + r,
            len, list, r ? flags + plane * ((r + 2) % 3) : NULL, flags + plane * (r % 3), flags + plane * ((r + 1) % 3));
        if ((e = cudaGetLastError()) != cudaSuccess)
            return (int)e;
        int16_t *t = a;
        a = b;
        b = t;
    }
    /* a holds the last round's map (after an early stop both buffers hold it) */
    if (a != d_disp)
        e = cudaMemcpyAsync(d_disp, a, n * sizeof(int16_t), cudaMemcpyDeviceToDevice, s);
    return (int)e;
}
