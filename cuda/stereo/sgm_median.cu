// SGM 3x3 median of a disparity map (lib/stereo/sgm.h step 6), the frame copied; the left
// and right maps in one launch (gvis_cu_sgm_median2).
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"

#define SORT2(a, b) do { int16_t lo_ = min(a, b), hi_ = max(a, b); a = lo_; b = hi_; } while (0)

struct median_pair {
    const int16_t *in[2];
    int16_t *out[2]; // blockIdx.z = i filters in[i] into out[i]
};

__global__ void median_kernel(median_pair mp, int width, int height)
{
    const int16_t *in = mp.in[blockIdx.z];
    int16_t *out = mp.out[blockIdx.z];
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const size_t i = (size_t)y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        out[i] = in[i];
        return;
    }
    const int16_t *r0 = in + i - width, *r1 = in + i, *r2 = in + i + width;
    int16_t p0 = r0[-1], p1 = r0[0], p2 = r0[1], p3 = r1[-1], p4 = r1[0], p5 = r1[1], p6 = r2[-1], p7 = r2[0],
            p8 = r2[1];
    // Devillard's opt_med9, the same network as the CPU.
    SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8); SORT2(p0, p1); SORT2(p3, p4); SORT2(p6, p7);
    SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8); SORT2(p0, p3); SORT2(p5, p8); SORT2(p4, p7);
    SORT2(p3, p6); SORT2(p1, p4); SORT2(p2, p5); SORT2(p4, p7); SORT2(p4, p2); SORT2(p6, p4);
    SORT2(p4, p2);
    out[i] = p4;
}

extern "C" int gvis_cu_sgm_median2(const int16_t *d_in, int16_t *d_out, const int16_t *d_in2, int16_t *d_out2,
                                   int width, int height, void *stream)
{
    if (width <= 0 || height <= 0 || !d_in || !d_out || (!d_in2) != (!d_out2))
        return (int)cudaErrorInvalidValue;
    const median_pair mp = {{d_in, d_in2}, {d_out, d_out2}};
    dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8, d_in2 ? 2 : 1);
    median_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(mp, width, height);
    return (int)cudaGetLastError();
}

extern "C" int gvis_cu_sgm_median(const int16_t *d_in, int16_t *d_out, int width, int height, void *stream)
{
    return gvis_cu_sgm_median2(d_in, d_out, nullptr, nullptr, width, height, stream);
}
