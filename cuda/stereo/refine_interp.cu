// Refinement step 3 (lib/stereo/refine.c, exactly): invalid pixels interpolated, one
// thread per pixel.  Occluded: the run of invalid pixels around it on its row, the smaller
// of the valid values beside it, or the one the right map confirms as hidden where exactly
// one is; mismatched: of the first valid pixels along the 16 directions, the value of the
// one whose guide value is the closest.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality_cuda.h"
#include "refine.cuh"

__constant__ int ri_dirs[16][2] = {{1, 0},  {-1, 0},  {0, 1},  {0, -1}, {1, 1},  {-1, -1}, {1, -1},  {-1, 1},
                                   {2, 1},  {-2, -1}, {2, -1}, {-2, 1}, {1, 2},  {-1, -2}, {1, -2},  {-1, 2}};

__global__ void refine_interp_kernel(const int16_t *in, const int16_t *right, const uint8_t *label,
                                     const uint8_t *guide, int16_t *out, int W, int H, int M)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= W || y >= H)
        return;
    const int16_t inval = (int16_t)(16 * (M - 1));
    const size_t p = (size_t)y * W + x;
    const int16_t *row = in + (size_t)y * W;
    if (row[x] != inval) {
        out[p] = row[x];
        return;
    }
    if (label[p] != RF_MISMATCH) {
        int a = x, b = x;
        while (a > 0 && row[a - 1] == inval)
            a--;
        while (b + 1 < W && row[b + 1] == inval)
            b++;
        const int has_l = a > 0, has_r = b + 1 < W;
        int16_t v = !has_l && !has_r ? inval : !has_l ? row[b + 1] : !has_r ? row[a - 1]
                                                  : (row[a - 1] < row[b + 1] ? row[a - 1] : row[b + 1]);
        if (right && has_l && has_r) {
            const int16_t *rrow = right + (size_t)y * W;
            const int ha = rf_hidden_weight(rrow, x, rf_round16(row[a - 1]), W, inval) == 2;
            const int hb = rf_hidden_weight(rrow, x, rf_round16(row[b + 1]), W, inval) == 2;
            if (ha != hb)
                v = ha ? row[a - 1] : row[b + 1];
        }
        out[p] = v;
        return;
    }
    const int g = guide[p];
    int best = inval, bestd = 256;
    for (int d = 0; d < 16; d++) {
        const int dx = ri_dirs[d][0], dy = ri_dirs[d][1];
        int qx = x + dx, qy = y + dy;
        while (qx >= 0 && qx < W && qy >= 0 && qy < H && in[(size_t)qy * W + qx] == inval)
            qx += dx, qy += dy;
        if (qx < 0 || qx >= W || qy < 0 || qy >= H)
            continue;
        const size_t q = (size_t)qy * W + qx;
        const int diff = abs((int)guide[q] - g);
        if (diff < bestd) {
            bestd = diff;
            best = in[q];
        }
    }
    out[p] = (int16_t)best;
}

extern "C" int gvis_cu_refine_interp(const int16_t *d_in, const int16_t *d_right, const uint8_t *d_label,
                                     const uint8_t *d_guide, int16_t *d_out, int width, int height, int min_disp,
                                     void *stream)
{
    if (width <= 0 || height <= 0 || height > 65535 || !d_in || !d_label || !d_guide || !d_out || d_in == d_out)
        return (int)cudaErrorInvalidValue;
    const dim3 grid((unsigned)((width + 127) / 128), (unsigned)height);
    refine_interp_kernel<<<grid, 128, 0, (cudaStream_t)stream>>>(d_in, d_right, d_label, d_guide, d_out, width,
                                                                  height, min_disp);
    return (int)cudaGetLastError();
}
