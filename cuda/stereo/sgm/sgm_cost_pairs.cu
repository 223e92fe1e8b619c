// The matching costs of step 3 (lib/stereo/sgm.h) for rows y0 .. y1 - 1, stored once in the
// layout the path kernel's lanes hold them (sgm_path_kernel.cuh, VOL), so that a path step
// reads a pair of costs with one 16-bit load instead of computing both from the census
// codes: u16 word w = 32 b + r of a pixel (GVIS_SGM_SUM_STRIDE(D) / 2 words) holds the cost
// of k = 64 b + r in its low byte and of k + 32 in its high byte, 0 for k >= D.  The
// pairs are those of the sum volume's words (sgm_cuda.h), the same for every lane count.
// A block makes CP_PX pixels of one row: the right codes (and, for ad-census with the 9x7
// census, the right guide) they match, CP_PX + D - 1 of them with the clamp of step 3
// applied, and the block's own left codes and guide go to shared memory once; a warp then
// makes one pixel's words at a time (a lane two adjacent words: 128 contiguous bytes a
// store).
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "sgm_cuda.h"
#include "sgm_path_kernel.cuh" /* hamming */

#define CP_THREADS 256
#define CP_PX 128 /* pixels a block */
static_assert(CP_THREADS == 256 && CP_PX <= CP_THREADS, "a thread an AD table entry, a left code");

struct cp_args {
    const uint64_t *cl, *cr;
    const uint8_t *guide, *guide_r;
    uint8_t luts[128];
    int width, D, min_disp, y0, rows, nb; // nb: blocks of 64 disparities (words / 32), 1 .. 8
    uint16_t *cost;
};

// NB blocks of 64 disparities (D <= 64 NB; FULL: D = 64 NB, no halves past D).  A lane makes
// two adjacent words of a pixel (w = 64 q + 2 lane and w + 1: k0 = 64 b + r, k0 + 1, k0 + 32,
// k0 + 33 for b = 2 q + lane / 16, r = 2 (lane % 16)) and stores them as one 32-bit word;
// the block's left codes and guide bytes go to shared memory with the right ones (no global
// load in the pixel loop); the AD table is widened to 256 entries so that |gl - gr| indexes
// it without the clamp to 63.  (The first version, a lane a word, 16-bit stores, the left
// codes loaded a pixel at a time, 64 pixels a block: 162 M instructions and 0.257 ms at
// 1920x1080 D 128 under ncu against 107 M and 0.247 ms; docs/notes-sgm-gpu.md.)
template <bool NARROW, bool ADC, int NB, bool FULL>
__global__ void __launch_bounds__(CP_THREADS) cost_pairs_kernel(cp_args a)
{
    // CP_PX + D - 1 right codes, CP_PX left codes, then the right and left guide bytes
    extern __shared__ uint64_t rc[];
    __shared__ uint8_t ad[256];
    const int W = a.width, D = a.D, nr = CP_PX + D - 1;
    uint64_t *lc = rc + nr;
    uint8_t *rg = reinterpret_cast<uint8_t *>(lc + CP_PX), *lg = rg + nr;
    if (ADC)
        ad[threadIdx.x] = a.luts[64 + min((int)threadIdx.x, 63)];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int x0 = blockIdx.x * CP_PX, npx = min(CP_PX, W - x0);
    const int s0 = x0 - a.min_disp - (D - 1);
    // k of the lane's first cost for q = 0; right code i matches k at i = px + D - 1 - k
    const int k0 = 64 * (lane >> 4) + 2 * (lane & 15);
    for (int yy = blockIdx.y; yy < a.rows; yy += gridDim.y) {
        const size_t row = (size_t)(a.y0 + yy) * W;
        __syncthreads(); // the previous row's codes are no longer read (and the table is in)
        for (int i = threadIdx.x; i < nr; i += CP_THREADS) {
            const int xr = min(max(s0 + i, 0), W - 1);
            rc[i] = __ldg(a.cr + row + xr);
            if (ADC && !NARROW)
                rg[i] = __ldg(a.guide_r + row + xr);
        }
        if (threadIdx.x < npx) {
            lc[threadIdx.x] = __ldg(a.cl + row + x0 + threadIdx.x);
            if (ADC)
                lg[threadIdx.x] = __ldg(a.guide + row + x0 + threadIdx.x);
        }
        __syncthreads();
        for (int px = warp; px < npx; px += CP_THREADS / 32) {
            const uint64_t l = lc[px];
            const int gl = ADC ? (int)lg[px] : 0;
            const int ib = px + D - 1 - k0;
            uint32_t *out = reinterpret_cast<uint32_t *>(a.cost + ((size_t)yy * W + x0 + px) * (32 * NB)) + lane;
#pragma unroll
            for (int q = 0; q < (NB + 1) / 2; q++) {
                if (NB % 2 && q == NB / 2 && lane >= 16)
                    break; // b = NB: past the pixel's words
                uint32_t c[4];
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const int dk = 128 * q + (e & 1) + 32 * (e >> 1); // k - k0
                    c[e] = 0;
                    if (FULL || k0 + dk < D) {
                        const uint64_t r = rc[ib - dk];
                        const uint32_t hm = hamming<NARROW>(l, r);
                        c[e] = ADC ? hm + ad[abs(gl - (NARROW ? (int)(r >> 32) : (int)rg[ib - dk]))] : hm;
                    }
                }
                // bytes k0, k0 + 32 (word w), k0 + 1, k0 + 33 (word w + 1)
                out[32 * q] = c[0] | c[2] << 8 | c[1] << 16 | c[3] << 24;
            }
        }
    }
}

template <bool NARROW, bool ADC, int NB>
static void cp_launch_nb(dim3 grid, size_t smem, cudaStream_t s, const cp_args &a)
{
    if (a.D == 64 * NB)
        cost_pairs_kernel<NARROW, ADC, NB, true><<<grid, CP_THREADS, smem, s>>>(a);
    else
        cost_pairs_kernel<NARROW, ADC, NB, false><<<grid, CP_THREADS, smem, s>>>(a);
}

template <bool NARROW, bool ADC>
static void cp_launch_adc(dim3 grid, size_t smem, cudaStream_t s, const cp_args &a)
{
    switch (a.nb) {
    case 1: cp_launch_nb<NARROW, ADC, 1>(grid, smem, s, a); break;
    case 2: cp_launch_nb<NARROW, ADC, 2>(grid, smem, s, a); break;
    case 3: cp_launch_nb<NARROW, ADC, 3>(grid, smem, s, a); break;
    case 4: cp_launch_nb<NARROW, ADC, 4>(grid, smem, s, a); break;
    case 5: cp_launch_nb<NARROW, ADC, 5>(grid, smem, s, a); break;
    case 6: cp_launch_nb<NARROW, ADC, 6>(grid, smem, s, a); break;
    case 7: cp_launch_nb<NARROW, ADC, 7>(grid, smem, s, a); break;
    default: cp_launch_nb<NARROW, ADC, 8>(grid, smem, s, a); break;
    }
}

template <bool NARROW>
static void cp_launch(bool adc, dim3 grid, size_t smem, cudaStream_t s, const cp_args &a)
{
    if (adc)
        cp_launch_adc<NARROW, true>(grid, smem, s, a);
    else
        cp_launch_adc<NARROW, false>(grid, smem, s, a);
}

extern "C" int gvis_cu_sgm_cost_pairs(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                                      const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D,
                                      int min_disp, int census, int y0, int y1, uint16_t *d_cost, void *stream)
{
    if (width <= 0 || height <= 0 || D < 1 || D > 512 || (census != 0 && census != 1) || y0 < 0 || y1 > height ||
        y0 >= y1 || !d_cl || !d_cr || !d_cost || (luts && (!d_guide || (census != 1 && !d_guide_r))))
        return (int)cudaErrorInvalidValue;
    cp_args a;
    memset(&a, 0, sizeof a);
    a.cl = d_cl;
    a.cr = d_cr;
    a.guide = d_guide;
    a.guide_r = d_guide_r;
    if (luts)
        memcpy(a.luts, luts, sizeof a.luts);
    a.width = width;
    a.D = D;
    a.min_disp = min_disp;
    a.y0 = y0;
    a.cost = d_cost;
    a.nb = (D + 63) / 64;
    a.rows = y1 - y0;
    const dim3 grid((unsigned)((width + CP_PX - 1) / CP_PX), (unsigned)(a.rows < 65535 ? a.rows : 65535));
    const size_t smem = (size_t)(CP_PX + D - 1 + CP_PX) * (sizeof(uint64_t) + 1);
    cudaStream_t s = (cudaStream_t)stream;
    if (census == 1)
        cp_launch<true>(luts != nullptr, grid, smem, s, a);
    else
        cp_launch<false>(luts != nullptr, grid, smem, s, a);
    return (int)cudaGetLastError();
}
