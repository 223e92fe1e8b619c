// YOLO decode + compaction: one pass over the tensor that checks every value, scores
// each row and appends the rows that reach conf to the candidate list.  The float
// operations are the _rn intrinsics (never contracted into FMA), in the order of
// lib/yolo.c, so the CPU and the GPU produce the same bits.
#include <cuda_runtime.h>
#include <stdint.h>

#include "yolo.h"

namespace {

__device__ __forceinline__ uint32_t desc_key(float s)
{
    uint32_t u = __float_as_uint(s);
    if (u == 0x80000000u)
        u = 0;
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ~u;
}

__device__ __forceinline__ bool nonfinite(float v)
{
    return (__float_as_uint(v) & 0x7f800000u) == 0x7f800000u;
}

__device__ __forceinline__ void store_candidate(const gvis_cu_yolo_scratch &s, uint32_t slot, uint32_t row,
                                                float cx, float cy, float w, float h, float score, int cls)
{
    float hw = __fmul_rn(w, 0.5f), hh = __fmul_rn(h, 0.5f);
    float4 b = make_float4(__fsub_rn(cx, hw), __fsub_rn(cy, hh), __fadd_rn(cx, hw), __fadd_rn(cy, hh));
    reinterpret_cast<float4 *>(s.box_by_row)[row] = b;
    reinterpret_cast<int2 *>(s.rec_by_row)[row] = make_int2(cls, __float_as_int(score));
    s.keys[slot] = (uint64_t)desc_key(score) << 32 | row;
    s.rank[slot] = 0; // counted up by yolo_sort.cu's rank_count where the candidates are few
}

// The better of two (value, index) pairs: larger value, then lower index; index
// INT32_MAX marks "none".  Gives the first index of the maximum, as the CPU's loop.
__device__ __forceinline__ void better(float &v, int &i, float v2, int i2)
{
    if (i2 != INT32_MAX && (i == INT32_MAX || v2 > v || (v2 == v && i2 < i))) {
        v = v2;
        i = i2;
    }
}

// v5: one warp per row (rows of 5+C floats are read coalesced), grid-stride.
__global__ void decode_v5(const float *__restrict__ pred, uint32_t rows, int K, float conf,
                          gvis_cu_yolo_scratch s, gvis_cu_yolo_hdr *hdr)
{
    int lane = threadIdx.x & 31;
    uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    uint32_t nwarps = (gridDim.x * blockDim.x) >> 5;
    for (uint32_t r = warp; r < rows; r += nwarps) {
        const float *p = pred + (size_t)r * K;
        float best = 0.0f;
        int bi = INT32_MAX;
        int bad = INT32_MAX;
        for (int c = lane; c < K; c += 32) {
            float v = __ldg(p + c);
            if (nonfinite(v) && bad == INT32_MAX)
                bad = c;
            if (c >= 5 && (bi == INT32_MAX || v > best)) {
                best = v;
                bi = c;
            }
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            float v2 = __shfl_xor_sync(0xffffffffu, best, o);
            int i2 = __shfl_xor_sync(0xffffffffu, bi, o);
            better(best, bi, v2, i2);
            bad = min(bad, __shfl_xor_sync(0xffffffffu, bad, o));
        }
        if (lane == 0) {
            if (bad != INT32_MAX)
                atomicMax((unsigned long long *)&hdr->bad, (unsigned long long)(UINT64_MAX - ((uint64_t)r * K + bad)));
            float obj = __ldg(p + 4);
            if (obj >= conf) {
                float score = __fmul_rn(obj, best);
                if (score >= conf) {
                    uint32_t slot = atomicAdd(&hdr->candidates, 1u);
                    store_candidate(s, slot, r, __ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3), score, bi - 5);
                }
            }
        }
    }
}

// v8: one thread per anchor (column); the class rows are read coalesced across the warp.
__global__ void decode_v8(const float *__restrict__ pred, uint32_t rows, int C, float conf,
                          gvis_cu_yolo_scratch s, gvis_cu_yolo_hdr *hdr)
{
    uint32_t stride = gridDim.x * blockDim.x;
    // the loop bound is rounded up to whole warps so that the ballot sees every lane
    uint32_t limit = (rows + 31) & ~31u;
    for (uint32_t n = blockIdx.x * blockDim.x + threadIdx.x; n < limit; n += stride) {
        bool in = n < rows;
        float cx = 0, cy = 0, w = 0, h = 0, best = 0;
        int bi = 0;
        int bad = INT32_MAX;
        if (in) {
            cx = __ldg(pred + n);
            cy = __ldg(pred + rows + n);
            w = __ldg(pred + 2 * (size_t)rows + n);
            h = __ldg(pred + 3 * (size_t)rows + n);
            if (nonfinite(cx))
                bad = 0;
            else if (nonfinite(cy))
                bad = 1;
            else if (nonfinite(w))
                bad = 2;
            else if (nonfinite(h))
                bad = 3;
            const float *q = pred + 4 * (size_t)rows + n;
            best = __ldg(q);
            if (nonfinite(best) && bad == INT32_MAX)
                bad = 4;
            for (int c = 1; c < C; c++) {
                float v = __ldg(q + (size_t)c * rows);
                if (nonfinite(v) && bad == INT32_MAX)
                    bad = 4 + c;
                if (v > best) {
                    best = v;
                    bi = c;
                }
            }
            if (bad != INT32_MAX)
                atomicMax((unsigned long long *)&hdr->bad,
                          (unsigned long long)(UINT64_MAX - ((uint64_t)bad * rows + n)));
        }
        bool keep = in && best >= conf;
        unsigned ballot = __ballot_sync(0xffffffffu, keep);
        if (ballot) {
            int lane = threadIdx.x & 31;
            uint32_t base = 0;
            int leader = __ffs(ballot) - 1;
            if (lane == leader)
                base = atomicAdd(&hdr->candidates, (uint32_t)__popc(ballot));
            base = __shfl_sync(0xffffffffu, base, leader);
            if (keep)
                store_candidate(s, base + __popc(ballot & ((1u << lane) - 1)), n, cx, cy, w, h, best, bi);
        }
    }
}

} // namespace

extern "C" int gvis_cu_yolo_decode(const float *d_pred, int layout, size_t rows, int classes, float conf,
                                   const gvis_cu_yolo_scratch *s, void *d_out, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    gvis_cu_yolo_hdr *hdr = (gvis_cu_yolo_hdr *)d_out;
    cudaError_t err = cudaMemsetAsync(hdr, 0, sizeof *hdr, st);
    if (err != cudaSuccess)
        return (int)err;
    if (rows == 0)
        return 0;
    // the grid only caps the grid-stride loops: the multiprocessor count of the first
    // device asked is good enough for any later one
    static int sms = 0;
    if (!sms) {
        int dev = 0, n = 0;
        if (cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess && n > 0)
            sms = n;
        else
            sms = 132;
    }
    if (layout == 5) {
        size_t blocks = (rows + 7) / 8; // 8 warps of 256 threads, one row each
        size_t cap = (size_t)sms * 16;
        decode_v5<<<(unsigned)(blocks < cap ? blocks : cap), 256, 0, st>>>(d_pred, (uint32_t)rows, classes + 5,
                                                                          conf, *s, hdr);
    } else {
        size_t blocks = (rows + 255) / 256;
        size_t cap = (size_t)sms * 16;
        decode_v8<<<(unsigned)(blocks < cap ? blocks : cap), 256, 0, st>>>(d_pred, (uint32_t)rows, classes, conf,
                                                                          *s, hdr);
    }
    return (int)cudaGetLastError();
}
