// Bitmask NMS over 64-box tiles, on candidates already sorted by score.
//
// mask_tiles: word (i, t) holds bit j when box 64t+j comes after box i and overlaps it
// (IoU > threshold, same class unless agnostic); only tiles t >= tile(i) are written.
// reduce: one block walks the tiles in order.  For tile t it ORs column t of the mask
// over the boxes kept so far (all earlier boxes for fast NMS), then one thread settles
// the tile: the lowest box not suppressed is kept and its own word removes the later
// boxes of the tile, so the serial cost is one step per kept box.  Column t+1 is
// loaded while tile t is settled.  The IoU uses the _rn intrinsics in the order of
// lib/yolo.c (no FMA), so the decisions are the CPU's.
#include <cuda_runtime.h>
#include <stdint.h>

#include "yolo.h"

namespace {

constexpr int REDUCE_THREADS = 512;
constexpr int PREFETCH = 4; // rows per thread held in registers: M <= 2048 fully prefetched

__device__ __forceinline__ float fmax_(float a, float b) { return a > b ? a : b; }
__device__ __forceinline__ float fmin_(float a, float b) { return a < b ? a : b; }

__device__ __forceinline__ float area(float4 b)
{
    return __fmul_rn(__fsub_rn(b.z, b.x), __fsub_rn(b.w, b.y));
}

// The IoU of lib/ops/yolo.h: a is the earlier (higher-scored) box.
__device__ __forceinline__ float iou(float4 a, float aa, float4 b, float ab)
{
    float w = fmax_(__fsub_rn(fmin_(a.z, b.z), fmax_(a.x, b.x)), 0.0f);
    float h = fmax_(__fsub_rn(fmin_(a.w, b.w), fmax_(a.y, b.y)), 0.0f);
    float inter = __fmul_rn(w, h);
    float uni = __fsub_rn(__fadd_rn(aa, ab), inter);
    return __fdiv_rn(inter, uni);
}

__global__ void __launch_bounds__(64) mask_tiles(gvis_cu_yolo_scratch s, const gvis_cu_yolo_hdr *hdr, float thr,
                                                 int agnostic)
{
    __shared__ float4 sb[64];
    __shared__ float sa[64];
    __shared__ int sc[64];
    uint32_t m = hdr->candidates;
    uint32_t tiles = (m + 63) / 64;
    const float4 *box = reinterpret_cast<const float4 *>(s.sbox);
    const int2 *rec = reinterpret_cast<const int2 *>(s.srec);
    uint64_t pairs = (uint64_t)tiles * tiles;
    for (uint64_t p = blockIdx.x; p < pairs; p += gridDim.x) {
        uint32_t rt = (uint32_t)(p / tiles), ct = (uint32_t)(p % tiles);
        if (ct < rt)
            continue; // uniform across the block
        uint32_t j = ct * 64 + threadIdx.x;
        if (j < m) {
            float4 b = box[j];
            sb[threadIdx.x] = b;
            sa[threadIdx.x] = area(b);
            sc[threadIdx.x] = rec[j].x;
        }
        __syncthreads();
        uint32_t i = rt * 64 + threadIdx.x;
        if (i < m) {
            float4 a = box[i];
            float aa = area(a);
            int ac = rec[i].x;
            uint64_t bits = 0;
            uint32_t n = min(64u, m - ct * 64);
            for (uint32_t k = rt == ct ? threadIdx.x + 1 : 0; k < n; k++)
                if ((agnostic || sc[k] == ac) && iou(a, aa, sb[k], sa[k]) > thr)
                    bits |= 1ull << k;
            s.mask[(size_t)i * tiles + ct] = bits;
        }
        __syncthreads();
    }
}

__device__ __forceinline__ uint64_t warp_or(uint64_t v)
{
    uint32_t lo = __reduce_or_sync(0xffffffffu, (uint32_t)v);
    uint32_t hi = __reduce_or_sync(0xffffffffu, (uint32_t)(v >> 32));
    return (uint64_t)hi << 32 | lo;
}

// smem: the kept bits and per-tile bases live in dynamic shared memory (the host sized
// it from the row count); else in the scratch's global arrays.
__global__ void __launch_bounds__(REDUCE_THREADS) reduce(gvis_cu_yolo_scratch s, gvis_cu_yolo_hdr *hdr, int fast,
                                                         int max_det, int smem, gvis_cu_yolo_det *out)
{
    extern __shared__ uint64_t s_dyn[];
    __shared__ uint64_t s_diag[64];
    __shared__ uint64_t s_warp[REDUCE_THREADS / 32];
    __shared__ int s_stop;
    uint32_t m = hdr->candidates;
    uint32_t tiles = (m + 63) / 64;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    uint64_t *kept = smem ? s_dyn : s.kept;
    int32_t *base = smem ? (int32_t *)(s_dyn + tiles) : s.base;
    for (uint32_t t = tid; t < tiles; t += REDUCE_THREADS)
        kept[t] = 0;
    if (tid == 0)
        s_stop = 0;
    __syncthreads();
    const uint64_t *mask = s.mask;
    uint64_t cur[PREFETCH], nxt[PREFETCH];
#pragma unroll
    for (int k = 0; k < PREFETCH; k++) {
        uint32_t j = tid + k * REDUCE_THREADS;
        cur[k] = tiles && j < min(m, 64u) ? mask[(size_t)j * tiles] : 0;
    }
    int nkept = 0; // thread 0's count
    for (uint32_t rt = 0; rt < tiles; rt++) {
        uint32_t lo = rt * 64, hi = min(m, lo + 64);
        // column rt+1 for the next round, rows below its end
#pragma unroll
        for (int k = 0; k < PREFETCH; k++) {
            uint32_t j = tid + k * REDUCE_THREADS;
            nxt[k] = rt + 1 < tiles && j < min(m, hi + 64) ? mask[(size_t)j * tiles + rt + 1] : 0;
        }
        uint64_t acc = 0;
#pragma unroll
        for (int k = 0; k < PREFETCH; k++) {
            uint32_t j = tid + k * REDUCE_THREADS;
            if (j < hi) {
                if (j >= lo)
                    s_diag[j - lo] = cur[k];
                else if (fast || (kept[j >> 6] >> (j & 63) & 1))
                    acc |= cur[k];
            }
        }
        for (uint32_t j = tid + PREFETCH * REDUCE_THREADS; j < hi; j += REDUCE_THREADS) {
            uint64_t v = mask[(size_t)j * tiles + rt];
            if (j >= lo)
                s_diag[j - lo] = v;
            else if (fast || (kept[j >> 6] >> (j & 63) & 1))
                acc |= v;
        }
        acc = warp_or(acc);
        if (lane == 0)
            s_warp[warp] = acc;
        __syncthreads();
        if (tid == 0) {
            uint64_t rem = 0;
            for (int w = 0; w < REDUCE_THREADS / 32; w++)
                rem |= s_warp[w];
            uint32_t n = hi - lo;
            uint64_t valid = n == 64 ? ~0ull : (1ull << n) - 1;
            uint64_t keep = 0;
            if (fast) {
                for (uint32_t b = 0; b < n; b++)
                    rem |= s_diag[b];
                keep = ~rem & valid;
                while (__popcll(keep) > max_det - nkept) // drop the highest bits past max_det
                    keep &= ~(1ull << (63 - __clzll(keep)));
            } else {
                uint64_t avail = ~rem & valid;
                while (avail && nkept + __popcll(keep) < max_det) {
                    int b = __ffsll(avail) - 1;
                    keep |= 1ull << b;
                    avail &= ~(s_diag[b] | 1ull << b);
                }
            }
            kept[rt] = keep;
            base[rt] = nkept;
            nkept += __popcll(keep);
            if (nkept >= max_det)
                s_stop = 1;
        }
        __syncthreads();
        if (s_stop)
            break;
#pragma unroll
        for (int k = 0; k < PREFETCH; k++)
            cur[k] = nxt[k];
    }
    const float4 *box = reinterpret_cast<const float4 *>(s.sbox);
    const int2 *rec = reinterpret_cast<const int2 *>(s.srec);
    for (uint32_t i = tid; i < m; i += REDUCE_THREADS) {
        uint64_t kw = kept[i >> 6];
        uint32_t b = i & 63;
        if (!(kw >> b & 1))
            continue;
        int pos = base[i >> 6] + __popcll(kw & ((1ull << b) - 1));
        float4 bx = box[i];
        int2 r = rec[i];
        gvis_cu_yolo_det d;
        d.x1 = bx.x;
        d.y1 = bx.y;
        d.x2 = bx.z;
        d.y2 = bx.w;
        d.score = __int_as_float(r.y);
        d.cls = r.x;
        d.row = s.srow[i];
        d.pad = 0;
        out[pos] = d;
    }
    if (tid == 0)
        hdr->kept = (uint32_t)nkept;
}

} // namespace

extern "C" int gvis_cu_yolo_nms(size_t rows, float iou_thr, int agnostic, int fast, int max_det,
                                const gvis_cu_yolo_scratch *s, void *d_out, void *stream)
{
    if (rows == 0)
        return 0;
    cudaStream_t st = (cudaStream_t)stream;
    gvis_cu_yolo_hdr *hdr = (gvis_cu_yolo_hdr *)d_out;
    size_t tiles = (rows + 63) / 64;
    size_t pairs = tiles * (tiles + 1) / 2;
    mask_tiles<<<(unsigned)(pairs < 2048 ? pairs : 2048), 64, 0, st>>>(*s, hdr, iou_thr, agnostic);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return (int)err;
    // up to 262144 rows the kept bits and bases (12 bytes a tile) fit the default 48 KB
    size_t dyn = tiles * (sizeof(uint64_t) + sizeof(int32_t));
    int smem = dyn <= 48 * 1024 - 1024;
    reduce<<<1, REDUCE_THREADS, smem ? dyn : 0, st>>>(*s, hdr, fast, max_det, smem,
                                                      (gvis_cu_yolo_det *)((char *)d_out + sizeof(gvis_cu_yolo_hdr)));
    return (int)cudaGetLastError();
}
