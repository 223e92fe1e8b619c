/* JPEG encode on the GPU with nvJPEG: colour conversion, DCT, quantization and Huffman
 * coding run on the SMs; only the bitstream comes back (~1-2 MB for a 6 MP photo at q95,
 * against 18 MB of RGB that never leave the device). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvjpeg_codec.h"

#include <pthread.h>

/* One library handle per device, shared by every encoder there (nvJPEG's handle is
 * thread-safe, its encoder states are not: each encoder has its own): a batch makes one
 * encoder per compute thread, 16 a GPU, and a handle each cost start-up time. */
enum { SHARED_DEVICES = 16 };
static pthread_mutex_t shared_mu = PTHREAD_MUTEX_INITIALIZER;
static gvis_nvj_handle shared_h[SHARED_DEVICES];
static int shared_refs[SHARED_DEVICES];

struct gvis_nvjpeg_enc {
    const gvis_nvjpeg_lib *lib;
    gvis_nvj_handle h;
    int device; /* the shared handle's, -1: its own */
    gvis_nvj_enc_state st;
    gvis_nvj_enc_params params;
    cudaStream_t stream;
    int quality, css; /* what params hold now; 0/-2: nothing set yet */
    char err[256];
};

extern "C" int gvis_nvjpeg_enc_create(const gvis_nvjpeg_lib *lib, void *stream, gvis_nvjpeg_enc **out, char *why,
                                      size_t why_len)
{
    *out = NULL;
    gvis_nvjpeg_enc *e = (gvis_nvjpeg_enc *)calloc(1, sizeof *e);
    if (!e) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    e->lib = lib;
    e->stream = (cudaStream_t)stream;
    e->css = -2;
    e->device = -1;
    int dev = -1, s;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= SHARED_DEVICES) {
        cudaGetLastError();
        s = lib->CreateEx(GVIS_NVJ_BACKEND_DEFAULT, NULL, NULL, GVIS_NVJ_FLAGS_DEFAULT, &e->h);
    } else {
        pthread_mutex_lock(&shared_mu);
        s = shared_refs[dev] ? GVIS_NVJ_SUCCESS
                             : lib->CreateEx(GVIS_NVJ_BACKEND_DEFAULT, NULL, NULL, GVIS_NVJ_FLAGS_DEFAULT, &shared_h[dev]);
        if (s == GVIS_NVJ_SUCCESS) {
            shared_refs[dev]++;
            e->h = shared_h[dev];
            e->device = dev;
        }
        pthread_mutex_unlock(&shared_mu);
    }
    if (s == GVIS_NVJ_SUCCESS)
        s = lib->EncoderStateCreate(e->h, &e->st, e->stream);
    if (s == GVIS_NVJ_SUCCESS)
        s = lib->EncoderParamsCreate(e->h, &e->params, e->stream);
    if (s == GVIS_NVJ_SUCCESS)
        s = lib->EncoderParamsSetOptimizedHuffman(e->params, 0, e->stream);
    if (s != GVIS_NVJ_SUCCESS) {
        snprintf(why, why_len, "nvJPEG encoder: %s", gvis_nvjpeg_status_name(s));
        gvis_nvjpeg_enc_destroy(e);
        return -1;
    }
    *out = e;
    return 0;
}

extern "C" void gvis_nvjpeg_enc_destroy(gvis_nvjpeg_enc *e)
{
    if (!e)
        return;
    if (e->params)
        e->lib->EncoderParamsDestroy(e->params);
    if (e->st)
        e->lib->EncoderStateDestroy(e->st);
    if (e->h && e->device < 0) {
        e->lib->Destroy(e->h);
    } else if (e->h) {
        pthread_mutex_lock(&shared_mu);
        if (--shared_refs[e->device] == 0) {
            e->lib->Destroy(shared_h[e->device]);
            shared_h[e->device] = NULL;
        }
        pthread_mutex_unlock(&shared_mu);
    }
    free(e);
}

extern "C" const char *gvis_nvjpeg_enc_error(const gvis_nvjpeg_enc *e) { return e->err; }

#define NVJ(call)                                                                          \
    do {                                                                                   \
        int s_ = (call);                                                                   \
        if (s_ != GVIS_NVJ_SUCCESS) {                                                      \
            snprintf(e->err, sizeof e->err, "%s: %s", #call, gvis_nvjpeg_status_name(s_)); \
            return -1;                                                                     \
        }                                                                                  \
    } while (0)

extern "C" int gvis_nvjpeg_enc_rgb(gvis_nvjpeg_enc *e, const unsigned char *d_src, size_t pitch, int width,
                                   int height, int quality, int css, unsigned char **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    e->err[0] = 0;
    if (quality < 1 || quality > 100 || width < 1 || height < 1 ||
        (css != GVIS_NVJ_CSS_420 && css != GVIS_NVJ_CSS_422 && css != GVIS_NVJ_CSS_444)) {
        snprintf(e->err, sizeof e->err, "bad encode parameters (quality %d, %dx%d, sampling %d)", quality, width,
                 height, css);
        return -1;
    }
    const gvis_nvjpeg_lib *L = e->lib;
    if (quality != e->quality) {
        NVJ(L->EncoderParamsSetQuality(e->params, quality, e->stream));
        e->quality = quality;
    }
    if (css != e->css) {
        NVJ(L->EncoderParamsSetSamplingFactors(e->params, css, e->stream));
        e->css = css;
    }
    gvis_nvj_image src;
    memset(&src, 0, sizeof src);
    src.channel[0] = (unsigned char *)d_src;
    src.pitch[0] = pitch;
    NVJ(L->EncodeImage(e->h, e->st, e->params, &src, GVIS_NVJ_INPUT_RGBI, width, height, e->stream));
    size_t n = 0;
    NVJ(L->EncodeRetrieveBitstream(e->h, e->st, NULL, &n, e->stream));
    unsigned char *buf = (unsigned char *)malloc(n ? n : 1);
    if (!buf) {
        snprintf(e->err, sizeof e->err, "out of memory for a %zu-byte JPEG", n);
        return -1;
    }
    int s = L->EncodeRetrieveBitstream(e->h, e->st, buf, &n, e->stream);
    cudaError_t ce = cudaStreamSynchronize(e->stream);
    if (s != GVIS_NVJ_SUCCESS || ce != cudaSuccess) {
        snprintf(e->err, sizeof e->err, "nvjpegEncodeRetrieveBitstream: %s",
                 s != GVIS_NVJ_SUCCESS ? gvis_nvjpeg_status_name(s) : cudaGetErrorString(ce));
        free(buf);
        return -1;
    }
    *out = buf;
    *out_len = n;
    return 0;
}
