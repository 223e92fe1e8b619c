/* Batched JPEG decode on nvJPEG's hardware backend (the GPU's JPEG engines), straight
 * into device buffers.  Bytes: the bitstream goes host to device once (~1.5 MB for a
 * 6 MP photo at q90); the engines write 3 bytes a pixel (18 MB).  No kernel of ours. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvjpeg_codec.h"

struct gvis_nvjpeg_dec {
    const gvis_nvjpeg_lib *lib;
    gvis_nvj_handle h;
    /* one state per batch size, made and initialized (DecodeBatchedInitialize) at its
     * first batch of that size: a shared batcher's batches vary in size, and initializing
     * one state again at every change may allocate each time */
    gvis_nvj_state *st;
    unsigned char *inited; /* st[n] initialized for batches of n */
    gvis_nvj_stream js;
    cudaStream_t stream;
    int max_batch;
    int owner; /* the handle is this decoder's (not shared from another) */
    /* padding (gvis_nvjpeg_dec_set_pad): every batch is filled up to max_batch with a tiny
     * JPEG decoded into pad_dst, so that one state initialized once serves every batch */
    const uint8_t *pad;
    size_t pad_len, pad_pitch;
    unsigned char *pad_dst;
    const uint8_t **data_all;
    size_t *len_all;
    unsigned engines, cores;
    gvis_nvj_image *dst;
    char err[256];
};

extern "C" int gvis_nvjpeg_dec_create(const gvis_nvjpeg_lib *lib, int max_batch, void *stream,
                                      gvis_nvjpeg_dec **out, char *why, size_t why_len)
{
    return gvis_nvjpeg_dec_create_from(lib, max_batch, stream, NULL, out, why, why_len);
}

extern "C" int gvis_nvjpeg_dec_create_from(const gvis_nvjpeg_lib *lib, int max_batch, void *stream,
                                           const gvis_nvjpeg_dec *share, gvis_nvjpeg_dec **out, char *why,
                                           size_t why_len)
{
    *out = NULL;
    gvis_nvjpeg_dec *d = (gvis_nvjpeg_dec *)calloc(1, sizeof *d);
    if (!d || max_batch < 1) {
        snprintf(why, why_len, "out of memory");
        free(d);
        return -1;
    }
    d->lib = lib;
    d->stream = (cudaStream_t)stream;
    d->max_batch = max_batch;
    d->dst = (gvis_nvj_image *)calloc((size_t)max_batch, sizeof *d->dst);
    d->st = (gvis_nvj_state *)calloc((size_t)max_batch + 1, sizeof *d->st);
    d->inited = (unsigned char *)calloc((size_t)max_batch + 1, 1);
    d->data_all = (const uint8_t **)calloc((size_t)max_batch, sizeof *d->data_all);
    d->len_all = (size_t *)calloc((size_t)max_batch, sizeof *d->len_all);
    int ok = d->dst && d->st && d->inited && d->data_all && d->len_all;
    d->owner = !share;
    int s = !ok ? 5 : share ? GVIS_NVJ_SUCCESS
                            : lib->CreateEx(GVIS_NVJ_BACKEND_HARDWARE, NULL, NULL, GVIS_NVJ_FLAGS_DEFAULT, &d->h);
    if (ok && share)
        d->h = share->h;
    if (s != GVIS_NVJ_SUCCESS) {
        snprintf(why, why_len, "nvJPEG hardware backend unavailable (%s)", gvis_nvjpeg_status_name(s));
        free(d->dst);
        free(d->st);
        free(d->inited);
        free(d->data_all);
        free(d->len_all);
        free(d);
        return -1;
    }
    if ((s = lib->JpegStreamCreate(d->h, &d->js)) != GVIS_NVJ_SUCCESS) {
        snprintf(why, why_len, "nvJPEG decoder state: %s", gvis_nvjpeg_status_name(s));
        gvis_nvjpeg_dec_destroy(d);
        return -1;
    }
    if (share) { /* the handle's figures: asked once */
        d->engines = share->engines;
        d->cores = share->cores;
    } else if (lib->GetHardwareDecoderInfo) {
        lib->GetHardwareDecoderInfo(d->h, &d->engines, &d->cores);
    }
    *out = d;
    return 0;
}

extern "C" void gvis_nvjpeg_dec_destroy(gvis_nvjpeg_dec *d)
{
    if (!d)
        return;
    if (d->js)
        d->lib->JpegStreamDestroy(d->js);
    for (int n = 0; n <= d->max_batch; n++)
        if (d->st[n])
            d->lib->JpegStateDestroy(d->st[n]);
    if (d->h && d->owner)
        d->lib->Destroy(d->h);
    free(d->data_all);
    free(d->len_all);
    free(d->dst);
    free(d->st);
    free(d->inited);
    free(d);
}

extern "C" void gvis_nvjpeg_dec_engines(const gvis_nvjpeg_dec *d, unsigned *engines, unsigned *cores)
{
    *engines = d->engines;
    *cores = d->cores;
}

extern "C" const char *gvis_nvjpeg_dec_error(const gvis_nvjpeg_dec *d) { return d->err; }

extern "C" int gvis_nvjpeg_dec_supported(gvis_nvjpeg_dec *d, const uint8_t *data, size_t len, gvis_jpeg_info *info)
{
    if (gvis_jpeg_scan(data, len, info) != 0 || !gvis_jpeg_gpu_candidate(info) || info->components != 3 ||
        info->width < GVIS_NVJPEG_MIN_SIDE || info->height < GVIS_NVJPEG_MIN_SIDE)
        return 0;
    int unsupported = 1;
    if (d->lib->JpegStreamParse(d->h, data, len, 0, 0, d->js) != GVIS_NVJ_SUCCESS ||
        d->lib->DecodeBatchedSupported(d->h, d->js, &unsupported) != GVIS_NVJ_SUCCESS)
        return 0;
    return unsupported == 0; /* nvJPEG answers 0 for "supported" */
}

extern "C" void gvis_nvjpeg_dec_set_pad(gvis_nvjpeg_dec *d, const uint8_t *jpeg, size_t len, void *d_scratch,
                                        size_t pitch)
{
    d->pad = jpeg;
    d->pad_len = len;
    d->pad_dst = (unsigned char *)d_scratch;
    d->pad_pitch = pitch;
}

static int run(gvis_nvjpeg_dec *d, int n, const uint8_t *const *data, const size_t *len,
               unsigned char *const *d_dst, const size_t *pitch)
{
    if (d->pad && n < d->max_batch) { /* filled up with the tiny JPEG: one state for all */
        for (int i = 0; i < d->max_batch; i++) {
            d->data_all[i] = i < n ? data[i] : d->pad;
            d->len_all[i] = i < n ? len[i] : d->pad_len;
            memset(&d->dst[i], 0, sizeof d->dst[i]);
            d->dst[i].channel[0] = i < n ? d_dst[i] : d->pad_dst + (size_t)(i - n) * 64 * d->pad_pitch;
            d->dst[i].pitch[0] = i < n ? pitch[i] : d->pad_pitch;
        }
        n = d->max_batch;
        data = d->data_all;
        len = d->len_all;
    } else {
        for (int i = 0; i < n; i++) {
            memset(&d->dst[i], 0, sizeof d->dst[i]);
            d->dst[i].channel[0] = d_dst[i];
            d->dst[i].pitch[0] = pitch[i];
        }
    }
    if (!d->st[n]) {
        int s = d->lib->JpegStateCreate(d->h, &d->st[n]);
        if (s != GVIS_NVJ_SUCCESS) {
            d->st[n] = NULL;
            return s;
        }
    }
    if (!d->inited[n]) {
        int s = d->lib->DecodeBatchedInitialize(d->h, d->st[n], n, 1, GVIS_NVJ_OUTPUT_RGBI);
        if (s != GVIS_NVJ_SUCCESS)
            return s;
        d->inited[n] = 1;
    }
    int s = d->lib->DecodeBatched(d->h, d->st[n], (const unsigned char *const *)data, len, d->dst, d->stream);
    if (s != GVIS_NVJ_SUCCESS)
        d->inited[n] = 0; /* the documentation asks for a new initialization after a failure */
    return s;
}

extern "C" int gvis_nvjpeg_dec_batch(gvis_nvjpeg_dec *d, int n, const uint8_t *const *data, const size_t *len,
                                     unsigned char *const *d_dst, const size_t *pitch, int *status)
{
    d->err[0] = 0;
    if (n < 1 || n > d->max_batch) {
        snprintf(d->err, sizeof d->err, "batch of %d outside 1..%d", n, d->max_batch);
        return -1;
    }
    if (run(d, n, data, len, d_dst, pitch) == GVIS_NVJ_SUCCESS) {
        for (int i = 0; i < n; i++)
            status[i] = GVIS_NVJPEG_DECODED;
    } else {
        /* one bad file fails the batch: find it, one image at a time */
        cudaError_t e = cudaStreamSynchronize(d->stream);
        if (e != cudaSuccess) {
            snprintf(d->err, sizeof d->err, "CUDA: %s", cudaGetErrorString(e));
            return -1;
        }
        for (int i = 0; i < n; i++)
            status[i] = run(d, 1, data + i, len + i, d_dst + i, pitch + i) == GVIS_NVJ_SUCCESS ? GVIS_NVJPEG_DECODED
                                                                                              : GVIS_NVJPEG_FAILED;
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(d->err, sizeof d->err, "CUDA: %s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

extern "C" int gvis_nvjpeg_hw_engines(const gvis_nvjpeg_lib *lib, unsigned *engines, char *why, size_t why_len)
{
    gvis_nvj_handle h;
    unsigned cores = 0;
    *engines = 0;
    int s = lib->CreateEx(GVIS_NVJ_BACKEND_HARDWARE, NULL, NULL, GVIS_NVJ_FLAGS_DEFAULT, &h);
    if (s != GVIS_NVJ_SUCCESS) {
        snprintf(why, why_len, "no hardware JPEG decoder (%s)", gvis_nvjpeg_status_name(s));
        return -1;
    }
    if (lib->GetHardwareDecoderInfo)
        lib->GetHardwareDecoderInfo(h, engines, &cores);
    lib->Destroy(h);
    return 0;
}

extern "C" int gvis_nvjpeg_dev_alloc(int device, size_t bytes, void **d)
{
    *d = NULL;
    int cur = -1;
    cudaGetDevice(&cur);
    cudaError_t e = cur == device ? cudaSuccess : cudaSetDevice(device);
    if (e == cudaSuccess)
        e = cudaMalloc(d, bytes ? bytes : 1);
    /* zeroed once, as the jobs' buffers are: the engines write each row's pixels, not the
     * pitch's padding, which vector loads straddling a row's end read */
    if (e == cudaSuccess && (e = cudaMemset(*d, 0, bytes ? bytes : 1)) != cudaSuccess)
        cudaFree(*d);
    if (e != cudaSuccess) {
        *d = NULL;
        cudaGetLastError();
    }
    if (cur >= 0 && cur != device)
        cudaSetDevice(cur);
    return (int)e;
}

extern "C" void gvis_nvjpeg_dev_free(int device, void *d)
{
    if (!d)
        return;
    int cur = -1;
    cudaGetDevice(&cur);
    if (cur != device)
        cudaSetDevice(device);
    cudaFree(d);
    cudaGetLastError();
    if (cur >= 0 && cur != device)
        cudaSetDevice(cur);
}

extern "C" int gvis_nvjpeg_copy2d(void *dst, size_t dpitch, int ddev, const void *src, size_t spitch, int sdev,
                                  size_t rowbytes, size_t rows, void *stream)
{
    cudaError_t e;
    if (ddev == sdev) {
        e = cudaMemcpy2DAsync(dst, dpitch, src, spitch, rowbytes, rows, cudaMemcpyDeviceToDevice,
                              (cudaStream_t)stream);
    } else {
        cudaMemcpy3DPeerParms p;
        memset(&p, 0, sizeof p);
        p.srcPtr = make_cudaPitchedPtr((void *)src, spitch, rowbytes, rows);
        p.srcDevice = sdev;
        p.dstPtr = make_cudaPitchedPtr(dst, dpitch, rowbytes, rows);
        p.dstDevice = ddev;
        p.extent = make_cudaExtent(rowbytes, rows, 1);
        e = cudaMemcpy3DPeerAsync(&p, (cudaStream_t)stream);
    }
    if (e != cudaSuccess)
        cudaGetLastError();
    return (int)e;
}
