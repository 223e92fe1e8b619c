// SGM census transform (lib/stereo/sgm.h step 2), 9x7 or centre-symmetric, on u8 or u16.
// A block stages its tile plus the 4x3 apron in shared memory (clamped at the
// image edges), then each thread builds its pixel's code in the order of sgm.h.
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"

#define TX 32
#define TY 8
#define RX 4
#define RY 3

// One image of a launch: its census codes and guide, and for the right view of ad-census
// the guide mapped through R of step 3 (lut) and, with the symmetric census, packed into
// bits 32-39 of the codes (pack): gvis_cu_sgm_remap_u8 and gvis_cu_sgm_pack_guide folded in.
struct census_img {
    const uint8_t *img;
    size_t pitch;
    uint64_t *out;
    uint8_t *guide;
    int remap, pack;
    uint8_t lut[256];
};

struct census_pair {
    census_img v[2]; // blockIdx.z = i takes v[i]
};

template <typename T>
__global__ void __launch_bounds__(TX *TY) census_kernel(census_pair pr, int width, int height, int sym)
{
    __shared__ uint16_t tile[TY + 2 * RY][TX + 2 * RX];
    const census_img &im = pr.v[blockIdx.z];
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    for (int i = threadIdx.y * TX + threadIdx.x; i < (TY + 2 * RY) * (TX + 2 * RX); i += TX * TY) {
        int ty = i / (TX + 2 * RX), tx = i % (TX + 2 * RX);
        int sy = min(max(y0 + ty - RY, 0), height - 1), sx = min(max(x0 + tx - RX, 0), width - 1);
        tile[ty][tx] = reinterpret_cast<const T *>(im.img + (size_t)sy * im.pitch)[sx];
    }
    __syncthreads();
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int cx = threadIdx.x + RX, cy = threadIdx.y + RY;
    const unsigned c = tile[cy][cx];
    uint64_t code = 0;
    if (!sym) {
#pragma unroll
        for (int dy = -RY; dy <= RY; dy++)
#pragma unroll
            for (int dx = -RX; dx <= RX; dx++)
                if (dy != 0 || dx != 0)
                    code = (code << 1) | (uint64_t)(tile[cy + dy][cx + dx] < c);
    } else {
#pragma unroll
        for (int dy = -RY; dy <= 0; dy++)
#pragma unroll
            for (int dx = -RX; dx <= RX; dx++)
                if (dy < 0 || dx < 0)
                    code = (code << 1) | (uint64_t)(tile[cy + dy][cx + dx] >= tile[cy - dy][cx - dx]);
    }
    uint8_t g = (uint8_t)(sizeof(T) == 1 ? c : c >> 8);
    if (im.remap)
        g = im.lut[g];
    if (im.pack)
        code |= (uint64_t)g << 32;
    im.out[(size_t)y * width + x] = code;
    if (im.guide)
        im.guide[(size_t)y * width + x] = g;
}

static void census_side(census_img &im, const void *d_img, size_t pitch, uint64_t *d_out, uint8_t *d_guide,
                        const uint8_t *lut, int pack)
{
    im.img = static_cast<const uint8_t *>(d_img);
    im.pitch = pitch;
    im.out = d_out;
    im.guide = d_guide;
    im.remap = lut != nullptr;
    im.pack = pack;
    for (int i = 0; i < 256; i++)
        im.lut[i] = lut ? lut[i] : (uint8_t)i;
}

static int census_launch(const census_pair &pr, int n, int bytes, int width, int height, int census, void *stream)
{
    dim3 block(TX, TY), grid((width + TX - 1) / TX, (height + TY - 1) / TY, n);
    cudaStream_t s = (cudaStream_t)stream;
    if (bytes == 1)
        census_kernel<uint8_t><<<grid, block, 0, s>>>(pr, width, height, census != 0);
    else
        census_kernel<uint16_t><<<grid, block, 0, s>>>(pr, width, height, census != 0);
    return (int)cudaGetLastError();
}

extern "C" int gvis_cu_sgm_census(const void *d_img, size_t pitch, int bytes, int width, int height, int census,
                                  uint64_t *d_out, uint8_t *d_guide, void *stream)
{
    if (width <= 0 || height <= 0 || (bytes != 1 && bytes != 2) || !d_img || !d_out)
        return (int)cudaErrorInvalidValue;
    census_pair pr;
    census_side(pr.v[0], d_img, pitch, d_out, d_guide, nullptr, 0);
    pr.v[1] = pr.v[0];
    return census_launch(pr, 1, bytes, width, height, census, stream);
}

extern "C" int gvis_cu_sgm_census_pair(const void *d_left, size_t lpitch, const void *d_right, size_t rpitch, int bytes,
                                       int width, int height, int census, uint64_t *d_cl, uint8_t *d_guide,
                                       uint64_t *d_cr, uint8_t *d_guide_r, const uint8_t *remap, int pack,
                                       void *stream)
{
    if (width <= 0 || height <= 0 || (bytes != 1 && bytes != 2) || !d_left || !d_right || !d_cl || !d_cr ||
        (pack && census != 1))
        return (int)cudaErrorInvalidValue;
    census_pair pr;
    census_side(pr.v[0], d_left, lpitch, d_cl, d_guide, nullptr, 0);
    census_side(pr.v[1], d_right, rpitch, d_cr, d_guide_r, remap, pack);
    return census_launch(pr, 2, bytes, width, height, census, stream);
}
