// The right view's 8-bit guide packed into its symmetric census codes (bits 32-39; the
// codes use bits 0-30 only), for the ad-census path kernels: one 8-byte load a disparity
// then gives both the code and the guide value that the AD term compares (sgm_path.cu).
#include <cuda_runtime.h>
#include <stdint.h>

#include "sgm_cuda.h"

__global__ void pack_guide_kernel(uint64_t *c, const uint8_t *g, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c[i] = (c[i] & 0xffffffffu) | (uint64_t)__ldg(g + i) << 32;
}

extern "C" int gvis_cu_sgm_pack_guide(uint64_t *d_c, const uint8_t *d_guide, size_t n, void *stream)
{
    if (!d_c || !d_guide)
        return (int)cudaErrorInvalidValue;
    if (n == 0)
        return 0;
    const size_t blocks = (n + 255) / 256;
    pack_guide_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, (cudaStream_t)stream>>>(d_c, d_guide, n);
    return (int)cudaGetLastError();
}
