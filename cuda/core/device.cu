// Device enumeration for `gvis info` and device selection.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "gvis_cuda.h"

extern "C" int gvis_cu_device_count(int *count)
{
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e != cudaSuccess) {
        cudaGetLastError(); // clear the sticky-free error so later calls start clean
        *count = 0;
    }
    return (int)e;
}

extern "C" int gvis_cu_device_props(int index, char *name, size_t name_len, int *major, int *minor, int *mps,
                                    size_t *mem, int *driver, int *runtime)
{
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, index);
    if (e != cudaSuccess)
        return (int)e;
    snprintf(name, name_len, "%s", p.name);
    *major = p.major;
    *minor = p.minor;
    *mps = p.multiProcessorCount;
    *mem = p.totalGlobalMem;
    cudaDriverGetVersion(driver);
    cudaRuntimeGetVersion(runtime);
    return 0;
}

extern "C" void gvis_cu_versions(int *driver, int *runtime)
{
    *driver = *runtime = 0;
    if (cudaDriverGetVersion(driver) != cudaSuccess) // 0 where no libcuda.so can be loaded
        *driver = 0;
    cudaRuntimeGetVersion(runtime);
    cudaGetLastError();
}

// Lets device `from` read device `to`'s memory directly (NVLink or PCIe peer to peer),
// so that a copy between them is one DMA instead of two through host memory.  Returns 1
// when the access is on, 0 when the pair cannot (the copies then go through the host).
extern "C" int gvis_cu_peer_enable(int from, int to)
{
    int can = 0, prev = 0;
    if (from == to)
        return 1;
    if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess || !can) {
        cudaGetLastError();
        return 0;
    }
    cudaGetDevice(&prev);
    int on = 0;
    if (cudaSetDevice(from) == cudaSuccess) {
        cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
        on = e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled;
    }
    cudaGetLastError();
    cudaSetDevice(prev);
    return on;
}

// How host threads wait for device work on `device` (0 auto, 1 spin, 2 yield, 3 block on
// an interrupt); set before the device's context does work.
extern "C" int gvis_cu_device_wait_mode(int device, int mode)
{
    static const unsigned flags[] = {cudaDeviceScheduleAuto, cudaDeviceScheduleSpin, cudaDeviceScheduleYield,
                                     cudaDeviceScheduleBlockingSync};
    if (mode < 0 || mode > 3)
        return (int)cudaErrorInvalidValue;
    int prev = 0;
    cudaGetDevice(&prev);
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess)
        e = cudaSetDeviceFlags(flags[mode]);
    cudaGetLastError();
    cudaSetDevice(prev);
    return (int)e;
}

extern "C" const char *gvis_cu_strerror(int err) { return cudaGetErrorString((cudaError_t)err); }
