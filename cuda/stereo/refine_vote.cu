// Refinement step 2 (lib/stereo/refine.c, exactly): region voting rounds until none
// changes a pixel.  One warp per pixel: the warp's lanes walk the pixel's cross region
// and add the votes' weights into a histogram in shared memory (integer atomics: the
// order does not change the sums), lane 0 picks the heaviest disparity (the smallest on
// a tie).  A round reads the previous round's count on the device and only copies its
// input once a round changed nothing, so the host never waits between rounds.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality_cuda.h"
#include "refine.cuh"

#define VOTE_MIN 20
#define VOTE_SHARE10 4
#define WARPS 4

__global__ void refine_vote_kernel(const int16_t *in, int16_t *out, const int16_t *right, const uint8_t *label,
                                   const uint8_t *arms, int W, int H, int M, int D, const int *prev_count,
                                   int *count)
{
    __shared__ int hist[WARPS][512];
    __shared__ int total[WARPS];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const size_t n = (size_t)W * H;
    const size_t p = (size_t)blockIdx.x * WARPS + warp;
    const int16_t inval = (int16_t)(16 * (M - 1));
    /* every lane of the block reaches the same barriers: no early return before them */
    const int active = p < n;
    const int16_t v0 = active ? in[p] : 0;
    const int stop = prev_count && *prev_count == 0;
    const int work = active && !stop && v0 == inval;
    for (int d = lane; d < D; d += 32)
        hist[warp][d] = 0;
    if (lane == 0)
        total[warp] = 0;
    __syncwarp();
    if (work) {
        const int x = (int)(p % W), y = (int)(p / W);
        const int16_t *rrow = right && label[p] == RF_OCCLUDED ? right + (size_t)y * W : NULL;
        const int up = arms[p * 4 + 2], down = arms[p * 4 + 3];
        int mine = 0;
        for (int qy = y - up; qy <= y + down; qy++) {
            const size_t q = (size_t)qy * W + x;
            const int l = arms[q * 4], r = arms[q * 4 + 1];
            const int16_t *row = in + (size_t)qy * W;
            for (int qx = x - l + lane; qx <= x + r; qx += 32) {
                const int v = row[qx];
                if (v == inval)
                    continue;
                const int d = rf_round16(v) - M;
                if (d < 0 || d >= D)
                    continue;
                const int wgt = rrow ? rf_hidden_weight(rrow, x, d + M, W, inval) : 2;
                if (wgt) {
                    atomicAdd(&hist[warp][d], wgt);
                    mine += wgt;
                }
            }
        }
        atomicAdd(&total[warp], mine);
    }
    __syncwarp();
    if (active && lane == 0) {
        int16_t o = v0;
        if (work && total[warp] > 2 * VOTE_MIN) {
            int best = 0;
            for (int d = 1; d < D; d++)
                if (hist[warp][d] > hist[warp][best])
                    best = d;
            if (hist[warp][best] * 10 > total[warp] * VOTE_SHARE10) {
                o = (int16_t)(16 * (best + M));
                atomicAdd(count, 1);
            }
        }
        out[p] = o;
    }
}

extern "C" int gvis_cu_refine_vote(int16_t *d_disp, int16_t *d_tmp, const int16_t *d_right, const uint8_t *d_label,
                                   const uint8_t *d_arms, int width, int height, int min_disp, int D, int max_rounds,
                                   int *d_counts, void *stream)
{
    if (width <= 0 || height <= 0 || D < 1 || D > 512 || max_rounds < 0 || !d_disp || !d_tmp || !d_label ||
        !d_arms || (max_rounds && !d_counts))
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    const size_t n = (size_t)width * height, blocks = (n + WARPS - 1) / WARPS;
    if (blocks > 0x7fffffffu)
        return (int)cudaErrorInvalidValue;
    cudaError_t e = cudaMemsetAsync(d_counts, 0, sizeof(int) * (size_t)(max_rounds ? max_rounds : 1), s);
    if (e != cudaSuccess)
        return (int)e;
    int16_t *a = d_disp, *b = d_tmp;
    for (int r = 0; r < max_rounds; r++) {
        refine_vote_kernel<<<(unsigned)blocks, 32 * WARPS, 0, s>>>(a, b, d_right, d_label, d_arms, width, height,
                                                                   min_disp, D, r ? d_counts + r - 1 : NULL,
                                                                   d_counts + r);
        if ((e = cudaGetLastError()) != cudaSuccess)
            return (int)e;
        int16_t *t = a;
        a = b;
        b = t;
    }
    if (a != d_disp)
        e = cudaMemcpyAsync(d_disp, a, n * sizeof(int16_t), cudaMemcpyDeviceToDevice, s);
    return (int)e;
}
