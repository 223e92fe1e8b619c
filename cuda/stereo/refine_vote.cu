// Refinement step 2 (lib/stereo/refine.c, exactly): region voting rounds until none
// changes a pixel.  A warp takes 32 consecutive pixels at a time (a fixed grid of warps
// strides over the map): it copies the valid ones and votes for each invalid one in turn,
// its lanes walking the pixel's cross region (the horizontal arms of the 32 rows at a
// time of its vertical arm are fetched at once, one row a lane) and adding the votes'
// weights into a histogram in shared memory (integer atomics: the order does not change
// the sums); the heaviest disparity (the smallest on a tie) is a warp-wide maximum of
// weight * 1024 + 1023 - d.  A round reads the previous round's count on the device:
// after a round that changed nothing both buffers hold the same map, so the later rounds
// return at once and the host never waits between rounds.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality_cuda.h"
#include "refine.cuh"

#define VOTE_MIN 20
#define VOTE_SHARE10 4
#define WARPS 4

__global__ void __launch_bounds__(WARPS * 32) refine_vote_kernel(const int16_t *in, int16_t *out, const int16_t *right,
                                                                 const uint8_t *label, const uint8_t *arms, int W,
                                                                 int H, int M, int D, const int *prev_count,
                                                                 int *count)
{
    __shared__ int hist[WARPS][512];
    if (prev_count && *prev_count == 0)
        return; /* the last round changed nothing: in == out already */
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const size_t n = (size_t)W * H;
    const int16_t inval = (int16_t)(16 * (M - 1));
    int changed = 0;
    for (size_t c0 = ((size_t)blockIdx.x * WARPS + warp) * 32; c0 < n; c0 += (size_t)gridDim.x * WARPS * 32) {
        const size_t pl = c0 + lane;
        const int16_t v = pl < n ? in[pl] : inval;
        if (pl < n && v != inval)
            out[pl] = v;
        unsigned todo = __ballot_sync(0xffffffffu, pl < n && v == inval);
        while (todo) {
            const size_t p = c0 + (__ffs(todo) - 1);
            todo &= todo - 1;
            for (int d = lane; d < D; d += 32)
                hist[warp][d] = 0;
            __syncwarp();
            const int x = (int)(p % W), y = (int)(p / W);
            const int16_t *rrow = right && label[p] == RF_OCCLUDED ? right + (size_t)y * W : NULL;
            const int y0 = y - arms[p * 4 + 2], y1 = y + arms[p * 4 + 3];
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
                for (int i = 0; i < nr; i++) {
                    const int l = __shfl_sync(0xffffffffu, la, i), r = __shfl_sync(0xffffffffu, ra, i);
                    const int16_t *row = in + (size_t)(r0 + i) * W;
                    for (int qx = x - l + lane; qx <= x + r; qx += 32) {
                        const int vq = row[qx];
                        if (vq == inval)
                            continue;
                        const int d = rf_round16(vq) - M;
                        if (d < 0 || d >= D)
                            continue;
                        const int wgt = rrow ? rf_hidden_weight(rrow, x, d + M, W, inval) : 2;
                        if (wgt) {
                            atomicAdd(&hist[warp][d], wgt);
                            mine += wgt;
                        }
                    }
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
            if (lane == 0)
                out[p] = o;
            __syncwarp();
        }
    }
    if (lane == 0 && changed)
        atomicAdd(count, changed);
}

extern "C" int gvis_cu_refine_vote(int16_t *d_disp, int16_t *d_tmp, const int16_t *d_right, const uint8_t *d_label,
                                   const uint8_t *d_arms, int width, int height, int min_disp, int D, int max_rounds,
                                   int *d_counts, void *stream)
{
    if (width <= 0 || height <= 0 || D < 1 || D > 512 || max_rounds < 0 || !d_disp || !d_tmp || !d_label ||
        !d_arms || (max_rounds && !d_counts) || d_disp == d_tmp)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    const size_t n = (size_t)width * height, chunks = (n + 31) / 32;
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return (int)e;
    /* enough warps to fill the chip (the weight histograms allow 16 blocks an SM at D = 512) */
    const size_t want = (chunks + WARPS - 1) / WARPS, cap = (size_t)(sms > 0 ? sms : 1) * 16;
    const unsigned blocks = (unsigned)(want < cap ? want : cap);
    if (max_rounds == 0)
        return (int)cudaSuccess;
    e = cudaMemsetAsync(d_counts, 0, sizeof(int) * (size_t)max_rounds, s);
    if (e != cudaSuccess)
        return (int)e;
    int16_t *a = d_disp, *b = d_tmp;
    for (int r = 0; r < max_rounds; r++) {
        refine_vote_kernel<<<blocks, 32 * WARPS, 0, s>>>(a, b, d_right, d_label, d_arms, width, height, min_disp, D,
                                                         r ? d_counts + r - 1 : NULL, d_counts + r);
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
