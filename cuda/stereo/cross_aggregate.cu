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
// memory, scans them into prefix sums (CA_TY segments of the line, 32 disparities side by
// side: conflict-free), and each output is P[hi + 1] - P[lo].  The windows (and in stage 2
// the counts N and 1 / N) are worked out once an output, not once a disparity; the
// rounded mean divides through the float reciprocal with an exact integer correction.
// Global reads and writes are 32 disparities of one pixel: contiguous.
#include <cuda_runtime.h>
#include <stdint.h>

#include "quality_cuda.h"

#define CA_T 256               /* outputs a block along its line */
#define CA_R 34                /* the longest arm (L1 of the rule) */
#define CA_N (CA_T + 2 * CA_R) /* positions a block loads: 324 */
#ifndef CA_TY
#define CA_TY 8 /* threads along the line (8: 0.70 ms for both passes at 1242x375 D 128 on an H100, 16: 0.78) */
#endif
#define CA_SEG ((CA_N + CA_TY - 1) / CA_TY) /* positions a thread scans */
#define CA_KC 32                            /* disparities a block */

// STAGE 1: in u8 costs, out u16 sums.  STAGE 2: in u16 sums, out u8 rounded means.
// vert: this stage's lines are columns (positions along y, arms up/down), else rows.
template <int STAGE>
__global__ void __launch_bounds__(CA_KC * CA_TY) cross_stage_kernel(const void *in_, void *out_, const uint8_t *arms,
                                                                     int W, int H, int D, int vert)
{
    __shared__ uint32_t P[(CA_N + 1) * CA_KC];
    __shared__ uint32_t tot[CA_TY][CA_KC];
    __shared__ uint32_t cnt[CA_N + 1]; /* stage 2: prefix sums of the first stage's counts n(q) */
    __shared__ uint32_t win[CA_T];     /* an output's window: local lo | hi << 16 */
    __shared__ uint32_t nn[CA_T];      /* stage 2: its count N */
    __shared__ float rn[CA_T];         /* stage 2: 1 / N */
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * CA_KC + tx;
    const int line = blockIdx.x, t0 = blockIdx.y * CA_T, k = blockIdx.z * CA_KC + tx;
    const int len = vert ? H : W;
    const size_t pstep = vert ? (size_t)W : 1, pix0 = vert ? (size_t)line : (size_t)line * W;
    const int a0 = vert ? 2 : 0; /* this stage's arms: a0, a0 + 1 */
    const int b0 = vert ? 0 : 2; /* the first stage's (stage 2's counts) */
    const int base = t0 - CA_R;  /* the line position of local index 0 */
    const bool kin = k < D;
    // the outputs' windows, and in stage 2 the counts n(q) of the first stage
    for (int li = tid; li < CA_N; li += CA_KC * CA_TY) {
        const int q = base + li;
        uchar4 aq = make_uchar4(0, 0, 0, 0);
        const bool in_line = q >= 0 && q < len;
        if (in_line)
            aq = *reinterpret_cast<const uchar4 *>(arms + (pix0 + (size_t)q * pstep) * 4);
        const int o = li - CA_R;
        if (o >= 0 && o < CA_T) {
            const int lo = li - (a0 == 0 ? aq.x : aq.z), hi = li + (a0 == 0 ? aq.y : aq.w);
            win[o] = (uint32_t)lo | (uint32_t)hi << 16;
        }
        if (STAGE == 2)
            cnt[li + 1] = in_line ? (uint32_t)(b0 == 0 ? aq.x : aq.z) + (b0 == 0 ? aq.y : aq.w) + 1 : 0u;
    }
    // this thread's segment of the line: values, then its running sums
    const int l0 = ty * CA_SEG;
    const char *src = static_cast<const char *>(in_) +
                      (((long long)pix0 + (long long)base * (long long)pstep) * D + k) * (STAGE == 1 ? 1 : 2);
    const long long step = (long long)pstep * D * (STAGE == 1 ? 1 : 2); /* bytes a position */
    uint32_t val[CA_SEG];
#pragma unroll
    for (int i = 0; i < CA_SEG; i++) {
        const int li = l0 + i, q = base + li;
        uint32_t v = 0;
        if (kin && li < CA_N && q >= 0 && q < len) {
            const char *a = src + (long long)li * step;
            v = STAGE == 1 ? (uint32_t)__ldg(reinterpret_cast<const uint8_t *>(a))
                           : (uint32_t)__ldg(reinterpret_cast<const uint16_t *>(a));
        }
        val[i] = v;
    }
    uint32_t run = 0;
#pragma unroll
    for (int i = 0; i < CA_SEG; i++) {
        const int li = l0 + i;
        run += val[i];
        if (li < CA_N)
            P[(li + 1) * CA_KC + tx] = run;
    }
    tot[ty][tx] = run;
    if (tid < CA_KC)
        P[tid] = 0;
    __syncthreads(); /* segment totals, the counts and windows are in */
    if (STAGE == 2 && tid < 32) {
        /* the counts' prefix sums: one warp, 32 positions a step */
        uint32_t carry = 0;
        if (tid == 0)
            cnt[0] = 0;
        for (int c = 1; c <= CA_N; c += 32) {
            const int li = c + tid;
            uint32_t v = li <= CA_N ? cnt[li] : 0;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const uint32_t u = __shfl_up_sync(0xffffffffu, v, o);
                if (tid >= o)
                    v += u;
            }
            if (li <= CA_N)
                cnt[li] = v + carry;
            carry += __shfl_sync(0xffffffffu, v, 31);
        }
    }
    uint32_t off = 0;
    for (int s = 0; s < ty; s++)
        off += tot[s][tx];
    if (ty > 0)
#pragma unroll
        for (int i = 0; i < CA_SEG; i++) {
            const int li = l0 + i;
            if (li < CA_N)
                P[(li + 1) * CA_KC + tx] += off;
        }
    if (STAGE == 2) {
        __syncthreads(); /* the counts' prefix sums are in */
        for (int o = tid; o < CA_T; o += CA_KC * CA_TY) {
            const uint32_t w = win[o], n = cnt[(w >> 16) + 1] - cnt[w & 0xffff];
            nn[o] = n;
            rn[o] = 1.0f / (float)(n ? n : 1);
        }
    }
    __syncthreads();
    if (!kin)
        return;
    // outputs: window [lo, hi] of local indices, P[hi + 1] - P[lo]
    char *dst = static_cast<char *>(out_) +
                (((long long)pix0 + (long long)t0 * (long long)pstep) * D + k) * (STAGE == 1 ? 2 : 1);
    const long long ostep = (long long)pstep * D * (STAGE == 1 ? 2 : 1);
    const int count = min(CA_T, len - t0);
#pragma unroll 4
    for (int o = ty; o < count; o += CA_TY) {
        const uint32_t w = win[o];
        const uint32_t s = P[((w >> 16) + 1) * CA_KC + tx] - P[(w & 0xffff) * CA_KC + tx];
        if (STAGE == 1) {
            *reinterpret_cast<uint16_t *>(dst + (long long)o * ostep) = (uint16_t)s;
        } else {
            /* floor((s + n / 2) / n) through the float reciprocal, corrected to the exact
             * quotient (x < 2^24: the estimate is off by at most one) */
            const uint32_t n = nn[o], x = s + n / 2;
            uint32_t q = (uint32_t)((float)x * rn[o]);
            q -= q * n > x;
            q += (q + 1) * n <= x;
            *reinterpret_cast<uint8_t *>(dst + (long long)o * ostep) = (uint8_t)q;
        }
    }
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
