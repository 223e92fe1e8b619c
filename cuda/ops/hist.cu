// Histograms of 8- and 16-bit images.
//
// Each block counts into shared-memory sub-histograms: R copies of every bin, interleaved
// (address = bin * R + lane % R), so that lanes of a warp that hit the same bin land on
// different words and, for neighbouring bins, different banks (8-bit gray: R = 32, every
// lane its own bank).  Threads walk the image by a grid stride and carry their row and
// column along (no 64-bit division per load).
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

#define THREADS 256

// Blocks in flight: a few per multiprocessor.  Fewer blocks mean fewer sub-histograms
// to clear and to add into the result (and fewer global atomics on the same 256
// addresses); more blocks hide latency better.  GVIS_HIST_BLOCKS_PER_SM overrides the
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

__global__ void __launch_bounds__(THREADS) hist_gray8(hist_args a, int vec_per_row)
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

// 8-bit colour (all channels or one): 16 bytes per item, channel of each byte tracked.
__global__ void __launch_bounds__(THREADS) hist_color8(hist_args a, int vec_per_row)
{
    extern __shared__ uint32_t sh[];
    const int reps = a.reps, nwords = a.nh * 256 * reps, ch = a.channels;
    const int rowbytes = a.width * ch;
    for (int i = threadIdx.x; i < nwords; i += THREADS)
        sh[i] = 0;
    clear_next(a);
    __syncthreads();
    const int lane = threadIdx.x & 31;
    for (walk w(blockIdx.x * (long long)THREADS + threadIdx.x, (long long)gridDim.x * THREADS, vec_per_row);
         w.y < a.height; w.step()) {
        const uint8_t *row = a.src + (size_t)w.y * a.pitch;
        int x0 = w.v * 16, n = min(16, rowbytes - x0);
        int c = x0 % ch;
        if (n == 16) {
            uint4 q = __ldg(reinterpret_cast<const uint4 *>(row + x0));
            uint32_t w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int k = 0; k < 16; k++) {
                uint32_t byte = (w[k >> 2] >> (8 * (k & 3))) & 255;
                if (a.channel < 0)
                    count(sh, reps, lane, (uint32_t)c * 256 + byte, 1);
                else if (c == a.channel)
                    count(sh, reps, lane, byte, 1);
                c = c + 1 == ch ? 0 : c + 1;
            }
        } else {
            for (int k = 0; k < n; k++) {
                uint32_t byte = row[x0 + k];
                if (a.channel < 0)
                    count(sh, reps, lane, (uint32_t)c * 256 + byte, 1);
                else if (c == a.channel)
                    count(sh, reps, lane, byte, 1);
                c = c + 1 == ch ? 0 : c + 1;
            }
        }
    }
    __syncthreads();
    finish_block(a, sh, a.nh * 256);
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
__global__ void __launch_bounds__(THREADS) hist_16(hist_args a, int vec_per_row, int shared)
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
    const size_t smem_budget = 48 * 1024;
    size_t per_rep = sizeof(uint32_t) * (size_t)a.nh * bins;
    int reps = 8;
    while (reps > 1 && per_rep * reps > smem_budget)
        reps >>= 1;
    a.reps = reps;
    int shared = per_rep * reps <= smem_budget;
    size_t smem = shared ? per_rep * reps : 0;
    int samples_per_vec = bits == 8 ? 16 : 8;
    long long rowsamples = (long long)width * channels;
    int vec_per_row = (int)((rowsamples + samples_per_vec - 1) / samples_per_vec);
    long long items = (long long)vec_per_row * height;
    // At least two items a thread: a block's clearing and merging are paid for by more
    // than one load (1080p: 2 blocks a multiprocessor measured 15 % faster than 4).
    long long want = (items + 2 * THREADS - 1) / (2 * THREADS);
    // 8-bit gray: 3 blocks a multiprocessor (4K random 0.0118 ms against 0.0144 with 4, 8K
    // 0.0172 against 0.0171, 1080p 0.0107 against 0.0101: H100, call 60); the others 4
    long long lim = grid_limit(bits == 8 && channels == 1 ? 3 : 4);
    int blocks = (int)(want < lim ? want : lim);
    if (bits == 8 && channels == 1)
        hist_gray8<<<blocks, THREADS, 0, st>>>(a, vec_per_row);
    else if (bits == 8)
        hist_color8<<<blocks, THREADS, smem, st>>>(a, vec_per_row);
    else
        hist_16<<<blocks, THREADS, smem, st>>>(a, vec_per_row, shared);
    return (int)cudaGetLastError();
}
