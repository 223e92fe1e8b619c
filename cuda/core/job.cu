// A job: one device, one stream, device and pinned host buffers reused across repeats
// and files, and a pair of events for timing.
#include <cuda_runtime.h>
#include <stdlib.h>

#include "gvis_cuda.h"

#define DEV_SLOTS 16
#define HOST_SLOTS 8

struct gvis_cu_job {
    int device;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *dev[DEV_SLOTS];
    size_t dev_size[DEV_SLOTS];
    void *host[HOST_SLOTS];
    size_t host_size[HOST_SLOTS];
};

extern "C" int gvis_cu_job_create(int device, gvis_cu_job **out)
{
    *out = NULL;
    gvis_cu_job *j = (gvis_cu_job *)calloc(1, sizeof *j);
    if (!j)
        return (int)cudaErrorMemoryAllocation;
    j->device = device;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess)
        e = cudaStreamCreateWithFlags(&j->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess)
        e = cudaEventCreate(&j->start);
    if (e == cudaSuccess)
        e = cudaEventCreate(&j->stop);
    if (e != cudaSuccess) {
        free(j);
        cudaGetLastError();
        return (int)e;
    }
    *out = j;
    return 0;
}

extern "C" void gvis_cu_job_destroy(gvis_cu_job *j)
{
    if (!j)
        return;
    cudaSetDevice(j->device);
    cudaStreamSynchronize(j->stream);
    for (int i = 0; i < DEV_SLOTS; i++)
        if (j->dev[i])
            cudaFree(j->dev[i]);
    for (int i = 0; i < HOST_SLOTS; i++)
        if (j->host[i])
            cudaFreeHost(j->host[i]);
    cudaEventDestroy(j->start);
    cudaEventDestroy(j->stop);
    cudaStreamDestroy(j->stream);
    free(j);
}

extern "C" void *gvis_cu_job_stream(gvis_cu_job *j) { return (void *)j->stream; }

extern "C" int gvis_cu_buffer(gvis_cu_job *j, int slot, size_t bytes, void **d)
{
    if (slot < 0 || slot >= DEV_SLOTS)
        return (int)cudaErrorInvalidValue;
    if (bytes == 0)
        bytes = 1;
    if (j->dev_size[slot] < bytes) {
        if (j->dev[slot]) {
            cudaStreamSynchronize(j->stream);
            cudaFree(j->dev[slot]);
            j->dev[slot] = NULL;
            j->dev_size[slot] = 0;
        }
        cudaError_t e = cudaMalloc(&j->dev[slot], bytes);
        if (e != cudaSuccess) {
            cudaGetLastError();
            j->dev[slot] = NULL;
            return (int)e;
        }
        // Zeroed once: uploads write only the rows' bytes, and kernels that load a
        // vector straddling a row's end (then ignore the part past it) would otherwise
        // read the pitch padding uninitialised (compute-sanitizer initcheck; a float
        // NaN there would survive a zero weight).
        e = cudaMemsetAsync(j->dev[slot], 0, bytes, j->stream);
        if (e != cudaSuccess) {
            cudaGetLastError();
            cudaFree(j->dev[slot]);
            j->dev[slot] = NULL;
            return (int)e;
        }
        j->dev_size[slot] = bytes;
    }
    *d = j->dev[slot];
    return 0;
}

extern "C" int gvis_cu_buffer2d(gvis_cu_job *j, int slot, size_t rowbytes, size_t rows, void **d, size_t *pitch)
{
    // 256-byte pitch: every row starts aligned for 16-byte vector loads and whole sectors.
    size_t p = (rowbytes + 255) / 256 * 256;
    if (p < rowbytes || (rows && p > (size_t)-1 / rows))
        return (int)cudaErrorInvalidValue;
    *pitch = p;
    return gvis_cu_buffer(j, slot, p * rows, d);
}

extern "C" int gvis_cu_host_buffer(gvis_cu_job *j, int slot, size_t bytes, void **h)
{
    if (slot < 0 || slot >= HOST_SLOTS)
        return (int)cudaErrorInvalidValue;
    if (j->host_size[slot] < bytes) {
        if (j->host[slot]) {
            cudaStreamSynchronize(j->stream);
            cudaFreeHost(j->host[slot]);
            j->host[slot] = NULL;
            j->host_size[slot] = 0;
        }
        cudaError_t e = cudaMallocHost(&j->host[slot], bytes);
        if (e != cudaSuccess) {
            cudaGetLastError();
            j->host[slot] = NULL;
            return (int)e;
        }
        j->host_size[slot] = bytes;
    }
    *h = j->host[slot];
    return 0;
}

extern "C" int gvis_cu_upload2d(gvis_cu_job *j, void *d, size_t dpitch, const void *h, size_t hpitch, size_t rowbytes,
                                size_t rows)
{
    return (int)cudaMemcpy2DAsync(d, dpitch, h, hpitch, rowbytes, rows, cudaMemcpyHostToDevice, j->stream);
}

extern "C" int gvis_cu_download2d(gvis_cu_job *j, void *h, size_t hpitch, const void *d, size_t dpitch,
                                  size_t rowbytes, size_t rows)
{
    return (int)cudaMemcpy2DAsync(h, hpitch, d, dpitch, rowbytes, rows, cudaMemcpyDeviceToHost, j->stream);
}

extern "C" int gvis_cu_memset(gvis_cu_job *j, void *d, int value, size_t bytes)
{
    return (int)cudaMemsetAsync(d, value, bytes, j->stream);
}

extern "C" int gvis_cu_mem_info(gvis_cu_job *j, size_t *free_bytes, size_t *total_bytes)
{
    cudaError_t e = cudaSetDevice(j->device);
    if (e == cudaSuccess)
        e = cudaMemGetInfo(free_bytes, total_bytes);
    return (int)e;
}

extern "C" int gvis_cu_sync(gvis_cu_job *j)
{
    cudaError_t e = cudaStreamSynchronize(j->stream);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return (int)e;
}

extern "C" int gvis_cu_timer_start(gvis_cu_job *j) { return (int)cudaEventRecord(j->start, j->stream); }

extern "C" int gvis_cu_timer_stop(gvis_cu_job *j, float *ms)
{
    cudaError_t e = cudaEventRecord(j->stop, j->stream);
    if (e == cudaSuccess)
        e = cudaEventSynchronize(j->stop);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaEventElapsedTime(ms, j->start, j->stop);
    return (int)e;
}

extern "C" int gvis_cu_job_bind(gvis_cu_job *j)
{
    int cur = -1;
    cudaError_t e = cudaGetDevice(&cur);
    if (e == cudaSuccess && cur != j->device)
        e = cudaSetDevice(j->device);
    return (int)e;
}

extern "C" int gvis_cu_pinned_alloc(size_t bytes, void **h)
{
    *h = NULL;
    // portable: a batch slot's buffer is uploaded by whichever GPU's worker takes the item
    cudaError_t e = cudaHostAlloc(h, bytes ? bytes : 1, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        cudaGetLastError();
        *h = NULL;
    }
    return (int)e;
}

extern "C" void gvis_cu_pinned_free(void *h)
{
    if (h)
        cudaFreeHost(h);
}
