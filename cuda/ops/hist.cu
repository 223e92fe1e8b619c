// Histograms of 8- and 16-bit images.
//
// Each block counts into shared-memory sub-histograms: R copies of every bin, interleaved
// (address = bin * R + lane % R), so that lanes of a warp that hit the same bin land on
// different words and, for neighbouring bins, different banks (8-bit gray: R = 32, every
// lane its own bank; 8-bit colour 16 or 32; 16-bit up to 8).  Threads walk the image by a
// grid stride and carry their row and column along (no 64-bit division per load).
//
// At the end each block adds its non-zero bins with one global atomic per bin into the
// output, which the caller hands over zeroed.  The caller alternates two buffers: each
// launch also clears the one the next launch will count into, so one launch does
// everything, with no memset and no fence or last-block ticket at the end (those cost
// several microseconds of latency on an image that takes a few to read).
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "gvis_cuda.h"

// Every kernel runs one block of THREADS a multiprocessor: 32 warps share one set of
// copies, so the clearing, the fold and the global atomics are paid once a
// multiprocessor.  With blocks of 256 (3 a multiprocessor for 8-bit gray, 2-4 for colour,
// 4 for 16-bit): 4K gray random 0.0122-0.0134 ms against 0.0106-0.0108, RGB 8K 0.046
// against 0.042, 16-bit 4K 0.029-0.033 against 0.028-0.029, 8K gray no different (H100,
// calls 79-84; docs/notes-hist.md).
#define THREADS 1024

// Blocks in flight: one a multiprocessor by default.  Fewer blocks mean fewer
// sub-histograms to clear and to add into the result (and fewer global atomics on the
// same addresses); more warps hide latency better.  GVIS_HIST_BLOCKS_PER_SM overrides the
// default for tuning (scripts/gpu-suite sweeps it).
// GVIS_HIST_BLOCKS caps the grid outright (the tests use it to make a few blocks do
// many rounds).
static int grid_limit(int per_sm_default)
{
    static int sms;
    if (!sms) {
        int dev = 0;
        cudaGetDevice(&dev);
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)
            sms = 80;
    }
    const char *e = getenv("GVIS_HIST_BLOCKS_PER_SM");
    int per = e && atoi(e) > 0 ? atoi(e) : per_sm_default;
    const char *b = getenv("GVIS_HIST_BLOCKS");
    return b && atoi(b) > 0 ? atoi(b) : sms * per;
}

struct hist_args {
    const uint8_t *src;
    size_t pitch;
    int width, height, channels;
    int channel;       // < 0: all
    int bins;
    uint32_t lo, span; // 16-bit range
    int nh;            // histograms counted
    int reps;          // R, a power of two
    uint32_t *out;     // nh * bins counts, zero on entry; blocks add into it
    uint32_t *clear;   // nh * bins counts this launch zeroes for the next one (or NULL)
};

// Block 0 clears the buffer the next launch counts into.
__device__ __forceinline__ void clear_next(const hist_args &a)
{
    if (blockIdx.x == 0 && a.clear)
        for (int i = threadIdx.x; i < a.nh * a.bins; i += blockDim.x)
            a.clear[i] = 0;
}

// Adds a block's shared sub-histograms (a.reps copies of each bin, interleaved) into the
// output.  A bin's copies are read from a rotated start (bin + r): a warp's 32 bins then
// fall on different banks (3840x2160 RGB 0.0219-0.0236 ms against 0.0232-0.0246 read in
// order, 16-bit no different: H100, calls 69-71).  The 8-bit gray kernel folds its 32 copies
// itself.
__device__ __forceinline__ void finish_block(const hist_args &a, const uint32_t *sh, int nbins)
{
    const int reps = a.reps;
    for (int bin = threadIdx.x; bin < nbins; bin += blockDim.x) {
        uint32_t s = 0;
#pragma unroll 8
        for (int r = 0; r < reps; r++)
            s += sh[bin * reps + ((r + bin) & (reps - 1))];
        if (s)
            atomicAdd(&a.out[bin], s);
    }
}

__device__ __forceinline__ void count(uint32_t *sh, int reps, int lane, uint32_t bin, uint32_t n)
{
    atomicAdd(&sh[bin * reps + (lane & (reps - 1))], n);
}

// A thread's place in the image, carried along a grid-stride walk over items (vectors of a
// row): item = y * per_row + v.  step() moves it by the stride, split once into whole
// rows dy and a remainder dv < per_row.
struct walk {
    long long y, dy;
    int v, dv, per_row;
    __device__ walk(long long first, long long stride, int per_row_) : per_row(per_row_)
    {
        y = first / per_row;
        v = (int)(first - y * per_row);
        dy = stride / per_row;
        dv = (int)(stride - dy * per_row);
    }
    __device__ __forceinline__ void step()
    {
        v += dv;
        y += dy;
        if (v >= per_row) {
            v -= per_row;
            y++;
        }
    }
};

// 8-bit gray: 16 bytes per item, two items' loads in flight before counting.  32 copies of
// every bin (word bin * 32 + lane: each lane its own bank whatever the bins, a constant
// image included) and one shared atomic a byte: an extract, an address and the atomic.  A
// kernel that kept 8 copies (~3-way conflicts on random bytes) and merged runs of equal
// bytes within a load to spare atomics issued ~17.6 warp instructions a pixel-warp and was
// bound by issuing them; this one issues ~7.6 (ncu, 8K random: 7.9 M instructions against
// 18.3 M, 19.3 us against 34.5, DRAM at 53 %; docs/notes-hist.md).  32 KiB a block.
#define LR 32

__device__ __forceinline__ void count16_gray(uint32_t *shl, uint4 q)
{
    const uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int k = 0; k < 16; k++)
        atomicAdd(shl + __byte_perm(w[k >> 2], 0u, 0x4440 + (k & 3)) * LR, 1u);
}

__global__ void __launch_bounds__(THREADS, 1) hist_gray8(hist_args a, int vec_per_row)
{
    __shared__ uint32_t sh[256 * LR];
    const int lane = threadIdx.x & 31;
    for (int i = threadIdx.x; i < 256 * LR; i += THREADS)
        sh[i] = 0;
    clear_next(a);
    __syncthreads();
    uint32_t *shl = sh + lane;
    const long long stride = (long long)gridDim.x * THREADS;
    walk w(blockIdx.x * (long long)THREADS + threadIdx.x, stride, vec_per_row);
    while (w.y < a.height) {
        walk w2 = w;
        w2.step();
        const bool in2 = w2.y < a.height;
        const uint8_t *row = a.src + (size_t)w.y * a.pitch, *row2 = a.src + (size_t)(in2 ? w2.y : w.y) * a.pitch;
        const int x0 = w.v * 16, x2 = w2.v * 16;
        const bool full = x0 + 16 <= a.width, full2 = in2 && x2 + 16 <= a.width;
        const uint4 q = full ? __ldg(reinterpret_cast<const uint4 *>(row + x0)) : make_uint4(0, 0, 0, 0);
        const uint4 q2 = full2 ? __ldg(reinterpret_cast<const uint4 *>(row2 + x2)) : make_uint4(0, 0, 0, 0);
        if (full)
            count16_gray(shl, q);
        else
            for (int x = x0; x < a.width; x++)
                atomicAdd(shl + (uint32_t)row[x] * LR, 1u);
        if (full2)
            count16_gray(shl, q2);
        else if (in2)
            for (int x = x2; x < a.width; x++)
                atomicAdd(shl + (uint32_t)row2[x] * LR, 1u);
        w = w2;
        w.step();
    }
    __syncthreads();
    // its own fold, LR and THREADS constants: through finish_block (a runtime copy count)
    // 8K random took 0.0191-0.0198 ms against 0.0170-0.0180 (H100, calls 69-70, same call)
    for (int bin = threadIdx.x; bin < 256; bin += THREADS) {
        uint32_t s = 0;
        for (int r = 0; r < LR; r++)
            s += sh[bin * LR + ((r + bin) & (LR - 1))];
        if (s)
            atomicAdd(&a.out[bin], s);
    }
}

// 8-bit colour, CH = 3 or 4 channels: the gray kernel's way (one shared atomic a byte,
// its address from an extract and a multiply-add).  An item is 16 bytes, 48 (three loads)
// for CH = 3, so that byte k of every item is channel k % CH, known when compiling: no
// channel counter a byte.  R copies of each bin (word (c * 256 + bin) * R + lane % R):
// 32 where a block's copies take at most 96 KiB (a lane its own bank: RGB 96 KiB), 16
// above (RGBA 64 KiB); ONE: only channel a.channel counts, into one histogram (32 KiB).
// A kernel that tracked each byte's channel at run time, with 8 copies, took 0.022-0.023 ms
// for 3840x2160 RGB against 0.017-0.019 (H100, calls 73-76; docs/notes-hist.md).
template <int CH, int R, bool ONE>
__global__ void __launch_bounds__(THREADS, 1) hist_color8(hist_args a, int vec_per_row)
{
    constexpr int NQ = CH == 3 ? 3 : 1, IB = 16 * NQ;
    extern __shared__ uint32_t sh[];
    const int nwords = (ONE ? 1 : CH) * 256 * R, rowbytes = a.width * CH, sel = a.channel;
    for (int i = threadIdx.x; i < nwords; i += THREADS)
        sh[i] = 0;
    clear_next(a);
    __syncthreads();
    uint32_t *shl = sh + (threadIdx.x & (R - 1));
    for (walk w(blockIdx.x * (long long)THREADS + threadIdx.x, (long long)gridDim.x * THREADS, vec_per_row);
         w.y < a.height; w.step()) {
        const uint8_t *row = a.src + (size_t)w.y * a.pitch;
        const int x0 = w.v * IB; // a multiple of CH: byte k is channel k % CH
        if (x0 + IB <= rowbytes) {
            uint32_t wd[4 * NQ];
#pragma unroll
            for (int q = 0; q < NQ; q++) {
                const uint4 v = __ldg(reinterpret_cast<const uint4 *>(row + x0) + q);
                wd[4 * q] = v.x, wd[4 * q + 1] = v.y, wd[4 * q + 2] = v.z, wd[4 * q + 3] = v.w;
            }
#pragma unroll
            for (int k = 0; k < IB; k++) {
                const uint32_t b = __byte_perm(wd[k >> 2], 0u, 0x4440 + (k & 3));
                if (!ONE)
                    atomicAdd(shl + (k % CH) * 256 * R + b * R, 1u);
                else if (k % CH == sel)
                    atomicAdd(shl + b * R, 1u);
            }
        } else {
            for (int k = 0; x0 + k < rowbytes; k++) {
                const uint32_t b = row[x0 + k];
                if (!ONE)
                    atomicAdd(shl + (k % CH) * 256 * R + b * R, 1u);
                else if (k % CH == sel)
                    atomicAdd(shl + b * R, 1u);
            }
        }
    }
    __syncthreads();
    finish_block(a, sh, (ONE ? 1 : CH) * 256);
}

// The copies a bin for CH channels counted (ONE: one): 32 up to 96 KiB a block, else 16.
// RGB with 32 (96 KiB) against 16 (48 KiB): 4K random 0.0172-0.0178 ms against
// 0.0180-0.0199, 8K 0.045-0.047 both (H100, call 74).
static int color_reps(int nh)
{
    return nh * 256 * 32 * (int)sizeof(uint32_t) <= 96 * 1024 ? 32 : 16;
}

// (shared memory above 48 KiB is asked for at each launch: the setting is the current
// device's, and the batch pipeline runs on several)
template <int CH, int R, bool ONE>
static cudaError_t color_launch(int blocks, size_t smem, cudaStream_t st, const hist_args &a, int vec_per_row)
{
    cudaError_t e;
    if (smem > 48 * 1024 &&
        (e = cudaFuncSetAttribute(hist_color8<CH, R, ONE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)smem)) != cudaSuccess)
        return e;
    hist_color8<CH, R, ONE><<<blocks, THREADS, smem, st>>>(a, vec_per_row);
    return cudaGetLastError();
}

template <int CH>
static cudaError_t color_pick(int blocks, size_t smem, cudaStream_t st, const hist_args &a, int vec_per_row)
{
    const bool one = a.nh == 1;
    if (a.reps == 32)
        return one ? color_launch<CH, 32, true>(blocks, smem, st, a, vec_per_row)
                   : color_launch<CH, 32, false>(blocks, smem, st, a, vec_per_row);
    return one ? color_launch<CH, 16, true>(blocks, smem, st, a, vec_per_row)
               : color_launch<CH, 16, false>(blocks, smem, st, a, vec_per_row);
}

__device__ __forceinline__ void count16(hist_args &a, uint32_t *sh, int lane, int shared, int c, uint32_t v)
{
    uint32_t d = v - a.lo;
    if (v < a.lo || d >= a.span || (a.channel >= 0 && c != a.channel))
        return;
    uint32_t bin = (uint32_t)(((uint64_t)d * (uint32_t)a.bins) / a.span);
    uint32_t h = a.channel >= 0 ? 0 : (uint32_t)c;
    if (shared)
        count(sh, a.reps, lane, h * a.bins + bin, 1);
    else
        atomicAdd(&a.out[h * a.bins + bin], 1u);
}

// 16-bit, any number of bins: shared sub-histograms when they fit, global atomics otherwise.
__global__ void __launch_bounds__(THREADS, 1) hist_16(hist_args a, int vec_per_row, int shared)
{
    extern __shared__ uint32_t sh[];
    const int ch = a.channels, rowsamples = a.width * ch;
    const int nwords = shared ? a.nh * a.bins * a.reps : 0;
    for (int i = threadIdx.x; i < nwords; i += THREADS)
        sh[i] = 0;
    clear_next(a);
    __syncthreads();
    const int lane = threadIdx.x & 31;
    for (walk w(blockIdx.x * (long long)THREADS + threadIdx.x, (long long)gridDim.x * THREADS, vec_per_row);
         w.y < a.height; w.step()) {
        const uint16_t *row = reinterpret_cast<const uint16_t *>(a.src + (size_t)w.y * a.pitch);
        int s0 = w.v * 8, n = min(8, rowsamples - s0);
        int c = s0 % ch;
        if (n == 8) {
            uint4 q = __ldg(reinterpret_cast<const uint4 *>(row + s0));
            uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int k = 0; k < 8; k++) {
                count16(a, sh, lane, shared, c, (w[k >> 1] >> (16 * (k & 1))) & 0xffff);
                c = c + 1 == ch ? 0 : c + 1;
            }
        } else {
            for (int k = 0; k < n; k++) {
                count16(a, sh, lane, shared, c, row[s0 + k]);
                c = c + 1 == ch ? 0 : c + 1;
            }
        }
    }
    __syncthreads();
    if (shared)
        finish_block(a, sh, a.nh * a.bins);
}

extern "C" int gvis_cu_hist(const void *d_src, size_t pitch, int width, int height, int channels, int bits,
                            int channel, int bins, uint32_t lo, uint32_t hi, uint32_t *d_hist, uint32_t *d_clear,
                            void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (width <= 0 || height <= 0 || channels < 1 || channels > 4 || bins < 1 || hi <= lo || (pitch & 15))
        return (int)cudaErrorInvalidValue;
    hist_args a;
    a.src = (const uint8_t *)d_src;
    a.pitch = pitch;
    a.width = width;
    a.height = height;
    a.channels = channels;
    a.channel = channel;
    a.bins = bins;
    a.lo = lo;
    a.span = hi - lo;
    a.nh = channel >= 0 ? 1 : channels;
    a.out = d_hist;
    a.clear = d_clear;
    // the copies a bin: 8-bit colour by color_reps; the others as many as fit 48 KiB (up
    // to 8), and 16-bit counts with global atomics where one copy does not fit (8-bit gray
    // keeps its own 32 in static shared memory)
    const bool color8 = bits == 8 && channels > 1;
    const size_t smem_budget = 48 * 1024, per_rep = sizeof(uint32_t) * (size_t)a.nh * (color8 ? 256 : bins);
    int reps = 8, shared = 1;
    if (color8) {
        reps = color_reps(a.nh);
    } else {
        while (reps > 1 && per_rep * reps > smem_budget)
            reps >>= 1;
        shared = per_rep * reps <= smem_budget;
    }
    a.reps = reps;
    const size_t smem = shared ? per_rep * reps : 0;
    // samples an item: 16 bytes (48 for 8-bit with 3 channels: color8's items), 8 u16
    int samples_per_vec = bits == 8 ? (channels == 3 ? 48 : 16) : 8;
    long long rowsamples = (long long)width * channels;
    int vec_per_row = (int)((rowsamples + samples_per_vec - 1) / samples_per_vec);
    long long items = (long long)vec_per_row * height;
    // At least two items a thread: a block's clearing and merging are paid for by more
    // than one load.
    long long want = (items + 2 * THREADS - 1) / (2 * THREADS);
    long long lim = grid_limit(1);
    int blocks = (int)(want < lim ? want : lim);
    if (bits == 8 && channels == 1)
        hist_gray8<<<blocks, THREADS, 0, st>>>(a, vec_per_row);
    else if (color8)
        return (int)(channels == 3   ? color_pick<3>(blocks, smem, st, a, vec_per_row)
                     : channels == 4 ? color_pick<4>(blocks, smem, st, a, vec_per_row)
                                     : cudaErrorInvalidValue); // images have 1, 3 or 4 channels
    else
        hist_16<<<blocks, THREADS, smem, st>>>(a, vec_per_row, shared);
    return (int)cudaGetLastError();
}
