// SGM background fill (lib/stereo/sgm.h step 8): per row, each run of invalid pixels
// takes the smaller of the valid values beside it.  One warp per row walks it in
// 32-pixel chunks; a ballot gives every lane the nearest valid pixel before it
// (the chunk's last one carried on), and the valid lane that ends a run fills it.
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"

#define ROWS 8

__global__ void fill_kernel(int16_t *disp, int width, int height, int16_t inv)
{
    const int y = blockIdx.x * ROWS + threadIdx.y, lane = threadIdx.x;
    if (y >= height)
        return;
    int16_t *r = disp + (size_t)y * width;
    int carry = -1; // the last valid pixel of the chunks done
    for (int x0 = 0; x0 < width; x0 += 32) {
        const int x = x0 + lane;
        const bool in = x < width;
        const int16_t v = in ? r[x] : inv;
        const bool ok = in && v != inv;
        const unsigned bal = __ballot_sync(0xffffffffu, ok);
        // nearest valid at or before this lane inside the chunk
        const unsigned upto = bal & (0xffffffffu >> (31 - lane));
        const int lastL = upto ? x0 + 31 - __clz(upto) : carry;
        // lanes that are valid and whose predecessor is invalid close a run
        // every lane takes part in the shuffle; lane 0 then uses the carry instead
        const int up = __shfl_up_sync(0xffffffffu, lastL, 1);
        const int prev_valid = lane > 0 ? up : carry;
        __syncwarp();
        if (ok && prev_valid != x - 1) {
            // run [prev_valid + 1, x): fill with min of the two sides (or this side)
            const int16_t vl = prev_valid >= 0 ? r[prev_valid] : v;
            const int16_t fv = min(vl, v);
            for (int i = prev_valid + 1; i < x; i++)
                r[i] = fv;
        }
        __syncwarp();
        carry = __shfl_sync(0xffffffffu, lastL, 31);
    }
    // a run reaching the row's end takes its left neighbour
    if (lane == 0 && carry >= 0)
        for (int i = carry + 1; i < width; i++)
            r[i] = r[carry];
}

extern "C" int gvis_cu_sgm_fill(int16_t *d_disp, int width, int height, int16_t invalid, void *stream)
{
    if (width <= 0 || height <= 0)
        return (int)cudaErrorInvalidValue;
    dim3 block(32, ROWS), grid((height + ROWS - 1) / ROWS);
    fill_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(d_disp, width, height, invalid);
    return (int)cudaGetLastError();
}
