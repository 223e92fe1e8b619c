// Cross-based cost aggregation (lib/stereo/cross_aggregate.c's rule, exactly), by window
// sums of prefix sums, as the CPU does.  A pass is two launches of one kernel: stage 1
// sums the u8 costs along the first direction's arms into a u16 volume H (a sum of at
// most 69 costs <= 69 x 255 = 17595 fits 16 bits); stage 2 sums H along the other
// direction's arms, with the segment lengths n(q) = arms + 1 of the first direction, and
// rounds the mean into the u8 volume (S <= 69 x 17595 and N <= 69 x 69 fit 32 bits, so
// the CPU's 64-bit sums give the same integers).
//
// A block takes one line (a row or a column), a tile of T positions along it and 32
// disparities: it loads the tile and the arms' reach (R = 34) on both sides into shared
// memory, scans them into prefix sums (8 segments of the line, 32 disparities side by
// side: conflict-free), and each output is P[hi + 1] - P[lo].  Global reads and writes
// are 32 disparities of one pixel: contiguous.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality_cuda.h"

#define CA_T 256                 /* outputs a block along its line */
#define CA_R 34                  /* the longest arm (L1 of the rule) */
#define CA_N (CA_T + 2 * CA_R)   /* positions a block loads: 324 */
#define CA_TY 8                  /* threads along the line */
#define CA_SEG ((CA_N + CA_TY - 1) / CA_TY) /* positions a thread scans: 41 */
#define CA_KC 32                 /* disparities a block */
#define CA_W (CA_KC + 1)         /* words a position in shared memory: 32 sums, 1 count */

// STAGE 1: in u8 costs, out u16 sums.  STAGE 2: in u16 sums, out u8 rounded means.
// vert: this stage's lines are columns (positions along y, arms up/down), else rows.
template <int STAGE>
__global__ void __launch_bounds__(CA_KC * CA_TY) cross_stage_kernel(const void *in_, void *out_, const uint8_t *arms,
                                                                     int W, int H, int D, int vert)
{
    __shared__ uint32_t P[(CA_N + 1) * CA_W];
    __shared__ uint32_t tot[CA_TY][CA_W];
    __shared__ uchar2 arm[CA_T]; /* the outputs' arms along this stage's direction */
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * CA_KC + tx;
    const int line = blockIdx.x, t0 = blockIdx.y * CA_T, k = blockIdx.z * CA_KC + tx;
    const int len = vert ? H : W;
    const size_t pstep = vert ? (size_t)W : 1, pix0 = vert ? (size_t)line : (size_t)line * W;
    const int a0 = vert ? 2 : 0, a1 = a0 + 1;  /* this stage's arms */
    const int b0 = vert ? 0 : 2, b1 = b0 + 1;  /* the first stage's (stage 2's counts) */
    const int base = t0 - CA_R;                /* the line position of local index 0 */
    const bool kin = k < D;
    // the arms: this stage's of the outputs (t0 + o, o < CA_T), and in stage 2 the counts
    // n(q) of the first stage into column CA_KC (the output loop then reads shared memory only)
    for (int li = tid; li < CA_N; li += CA_KC * CA_TY) {
        const int q = base + li;
        uchar4 aq = make_uchar4(0, 0, 0, 0);
        if (q >= 0 && q < len)
            aq = *reinterpret_cast<const uchar4 *>(arms + (pix0 + (size_t)q * pstep) * 4);
        const int o = li - CA_R;
        if (o >= 0 && o < CA_T)
            arm[o] = a0 == 0 ? make_uchar2(aq.x, aq.y) : make_uchar2(aq.z, aq.w);
        if (STAGE == 2) {
            const int u = b0 == 0 ? aq.x : aq.z, v = b0 == 0 ? aq.y : aq.w;
            P[(li + 1) * CA_W + CA_KC] = q >= 0 && q < len ? (uint32_t)u + v + 1 : 0u;
        }
    }
    // this thread's segment of the line: values, then its running sums
    const int l0 = ty * CA_SEG;
    uint32_t val[CA_SEG];
#pragma unroll
    for (int i = 0; i < CA_SEG; i++) {
        const int li = l0 + i, q = base + li;
        uint32_t v = 0;
        if (kin && li < CA_N && q >= 0 && q < len) {
            const size_t cell = (pix0 + (size_t)q * pstep) * D + k;
            v = STAGE == 1 ? (uint32_t)__ldg(static_cast<const uint8_t *>(in_) + cell)
                           : (uint32_t)__ldg(static_cast<const uint16_t *>(in_) + cell);
        }
        val[i] = v;
    }
    __syncthreads(); /* the counts are in */
    uint32_t run = 0, runc = 0;
#pragma unroll
    for (int i = 0; i < CA_SEG; i++) {
        const int li = l0 + i;
        if (li < CA_N) {
            run += val[i];
            P[(li + 1) * CA_W + tx] = run;
            if (STAGE == 2 && tx == 0) {
                runc += P[(li + 1) * CA_W + CA_KC];
                P[(li + 1) * CA_W + CA_KC] = runc;
            }
        }
    }
    tot[ty][tx] = run;
    if (STAGE == 2 && tx == 0)
        tot[ty][CA_KC] = runc;
    if (tid < CA_W)
        P[tid] = 0;
    __syncthreads();
    uint32_t off = 0, offc = 0;
    for (int s = 0; s < ty; s++) {
        off += tot[s][tx];
        if (STAGE == 2)
            offc += tot[s][CA_KC];
    }
    if (ty > 0)
        for (int i = 0; i < CA_SEG; i++) {
            const int li = l0 + i;
            if (li < CA_N) {
                P[(li + 1) * CA_W + tx] += off;
                if (STAGE == 2 && tx == 0)
                    P[(li + 1) * CA_W + CA_KC] += offc;
            }
        }
    __syncthreads();
    // outputs: window [p - arm a0, p + arm a1] of local indices [lo, hi]
    if (!kin)
        return;
#pragma unroll 4
    for (int o = ty; o < CA_T; o += CA_TY) {
        const int p = t0 + o;
        if (p >= len)
            break;
        const size_t pix = pix0 + (size_t)p * pstep;
        const uchar2 ap = arm[o];
        const int lo = o + CA_R - ap.x, hi = o + CA_R + ap.y;
        const uint32_t s = P[(hi + 1) * CA_W + tx] - P[lo * CA_W + tx];
        if (STAGE == 1) {
            static_cast<uint16_t *>(out_)[pix * D + k] = (uint16_t)s;
        } else {
            const uint32_t n = P[(hi + 1) * CA_W + CA_KC] - P[lo * CA_W + CA_KC];
            static_cast<uint8_t *>(out_)[pix * D + k] = (uint8_t)((s + n / 2) / n);
        }
    }
    (void)a1;
    (void)b1;
}

extern "C" int gvis_cu_cross_aggregate(uint8_t *d_cost, const uint8_t *d_arms, int width, int height, int D, int passes,
                                       uint32_t *d_sum, uint32_t *d_cnt, void *stream)
{
    (void)d_cnt; /* the counts come from the arms in stage 2; kept for the callers */
    if (width <= 0 || height <= 0 || D < 1 || D > 512 || passes < 0 || !d_cost || !d_arms || !d_sum)
        return (int)cudaErrorInvalidValue;
    const unsigned kc = (unsigned)((D + CA_KC - 1) / CA_KC);
    const unsigned tiles_row = (unsigned)((width + CA_T - 1) / CA_T), tiles_col = (unsigned)((height + CA_T - 1) / CA_T);
    if (tiles_row > 65535 || tiles_col > 65535)
        return (int)cudaErrorInvalidValue;
    const dim3 block(CA_KC, CA_TY);
    const dim3 g_rows((unsigned)height, tiles_row, kc), g_cols((unsigned)width, tiles_col, kc);
    uint16_t *h = reinterpret_cast<uint16_t *>(d_sum); /* W x H x D u16 of the u32 scratch */
    cudaStream_t s = (cudaStream_t)stream;
    for (int p = 0; p < passes; p++) {
        const int vf = p & 1; /* the first direction: rows (0) or columns (1) */
        cross_stage_kernel<1><<<vf ? g_cols : g_rows, block, 0, s>>>(d_cost, h, d_arms, width, height, D, vf);
        cross_stage_kernel<2><<<vf ? g_rows : g_cols, block, 0, s>>>(h, d_cost, d_arms, width, height, D, !vf);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            return (int)e;
    }
    return (int)cudaSuccess;
}
