/* JPEG on the GPU with nvJPEG (loaded by nvjpeg_load.c): the batched hardware decoder
 * (nvjpeg_decode.cu) and the GPU encoder (nvjpeg_encode.cu).  Both work on device
 * buffers the caller owns, in the stored orientation; jpeg_orient.h turns them upright.
 * Plain C.  Functions return 0 or an nvJPEG status (gvis_nvjpeg_status_name) or, where
 * said, -1 with a message in the object (gvis_nvjpeg_*_error). */
#ifndef GVIS_NVJPEG_CODEC_H
#define GVIS_NVJPEG_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "jpeg_markers.h"
#include "nvjpeg_load.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How far the hardware decoder's pixels may stray from libjpeg-turbo's on the same file
 * (IDCT rounding, and chroma upsampling: libjpeg-turbo interpolates chroma, the engines
 * do not, so the two part at sharp colour edges).  Measured on an H100 (2026-11-25,
 * scripts/gpu-nvjpeg-check, 16 wallpaper photos the engines take, 1 to 14.7 MP): worst
 * PSNR 37.78 dB, largest difference 116 (one 5120x2880 photo); bound set with a margin.
 * tests/test_cuda_nvjpeg.c and tests/bench_nvjpeg.c (real photos) check it; man/gvis.1
 * documents it. */
#define GVIS_NVJPEG_MIN_PSNR 36.0
#define GVIS_NVJPEG_MAX_DIFF 128
/* Images with a side under this many pixels decode on the CPU: on such tiny images the
 * engines' chroma strayed furthest (17x13 noise: 28 dB on the H100) and the CPU decodes
 * them in microseconds anyway. */
#define GVIS_NVJPEG_MIN_SIDE 64

/* Per-image outcome of a batch. */
enum {
    GVIS_NVJPEG_DECODED = 0, /* the device buffer holds the RGB pixels */
    GVIS_NVJPEG_FAILED = 1,  /* nvJPEG failed on this file: decode it on the CPU (it may be bad) */
};

typedef struct gvis_nvjpeg_dec gvis_nvjpeg_dec;

/* A hardware-backend decoder for batches of up to max_batch images on stream (a
 * cudaStream_t of the current device).  -1 with why when the backend is unavailable
 * (no JPEG engines on this GPU, or the library refuses). */
int gvis_nvjpeg_dec_create(const gvis_nvjpeg_lib *lib, int max_batch, void *stream, gvis_nvjpeg_dec **dec,
                           char *why, size_t why_len);
/* The same sharing share's library handle (one hardware handle for several decoders;
 * destroy share last); NULL share: a handle of its own. */
int gvis_nvjpeg_dec_create_from(const gvis_nvjpeg_lib *lib, int max_batch, void *stream, const gvis_nvjpeg_dec *share,
                                gvis_nvjpeg_dec **dec, char *why, size_t why_len);
void gvis_nvjpeg_dec_destroy(gvis_nvjpeg_dec *dec);
/* From now on every batch of fewer than max_batch files is filled up with jpeg (a tiny
 * JPEG the decoder takes, at most 64 rows), each copy decoded into its own 64 rows of
 * d_scratch (max_batch x 64 rows of pitch bytes): nvjpegDecodeBatchedInitialize then
 * runs once, for max_batch, instead of once per batch size (measured slow on an H200:
 * more sizes, more time).  jpeg and d_scratch must outlive the decoder. */
void gvis_nvjpeg_dec_set_pad(gvis_nvjpeg_dec *dec, const uint8_t *jpeg, size_t len, void *d_scratch, size_t pitch);
/* Number of hardware engines and cores per engine; 0 when the library does not say. */
void gvis_nvjpeg_dec_engines(const gvis_nvjpeg_dec *dec, unsigned *engines, unsigned *cores);

/* 1 when the hardware decoder takes this JPEG (our marker walk says 8-bit baseline
 * Huffman YCbCr with 3 components, and nvjpegDecodeBatchedSupported agrees), filling
 * info; 0 when it goes to the CPU. */
int gvis_nvjpeg_dec_supported(gvis_nvjpeg_dec *dec, const uint8_t *data, size_t len, gvis_jpeg_info *info);

/* Decodes n (1..max_batch) JPEGs accepted by gvis_nvjpeg_dec_supported into d_dst[i]
 * (interleaved RGB, the stored width x height, pitch[i] >= 3 * width).  A batch that
 * nvJPEG refuses is decoded again one image at a time, so that status[i] names the
 * files at fault.  Work is queued on the stream: data must stay valid and d_dst is
 * ready only after the stream is synchronized (gvis_nvjpeg_dec_batch synchronizes when
 * it had to split a batch).  Returns 0, or a CUDA error as -1 (see the message). */
int gvis_nvjpeg_dec_batch(gvis_nvjpeg_dec *dec, int n, const uint8_t *const *data, const size_t *len,
                          unsigned char *const *d_dst, const size_t *pitch, int *status);
const char *gvis_nvjpeg_dec_error(const gvis_nvjpeg_dec *dec);

/* Device memory for the decode stage's pool (lib/pipeline/jpeg_batch.c): bytes on CUDA
 * device `device` (the calling thread's current device is kept); a CUDA error as int. */
int gvis_nvjpeg_dev_alloc(int device, size_t bytes, void **d);
void gvis_nvjpeg_dev_free(int device, void *d);
/* rows x rowbytes from src (pitch spitch, on device sdev) to dst (dpitch, on ddev),
 * queued on stream (a stream of ddev); the two devices may differ (a peer copy, staged
 * by the driver where the GPUs have no peer access).  A CUDA error as int. */
int gvis_nvjpeg_copy2d(void *dst, size_t dpitch, int ddev, const void *src, size_t spitch, int sdev, size_t rowbytes,
                       size_t rows, void *stream);

/* Hardware decode engines of the current device: creates and drops a hardware-backend
 * handle.  0 or -1 with why (the backend unavailable). */
int gvis_nvjpeg_hw_engines(const gvis_nvjpeg_lib *lib, unsigned *engines, char *why, size_t why_len);

typedef struct gvis_nvjpeg_enc gvis_nvjpeg_enc;

int gvis_nvjpeg_enc_create(const gvis_nvjpeg_lib *lib, void *stream, gvis_nvjpeg_enc **enc, char *why,
                           size_t why_len);
void gvis_nvjpeg_enc_destroy(gvis_nvjpeg_enc *enc);
/* Encodes the width x height interleaved RGB u8 device image d_src (pitch bytes a row)
 * at quality 1..100 with chroma sampling css (GVIS_NVJ_CSS_420, _422 or _444), standard
 * Huffman tables (as libjpeg's default).  *out (malloc'd, the caller frees) holds the
 * JPEG file, *out_len bytes; the stream is synchronized.  0, or -1 with the message. */
int gvis_nvjpeg_enc_rgb(gvis_nvjpeg_enc *enc, const unsigned char *d_src, size_t pitch, int width, int height,
                        int quality, int css, unsigned char **out, size_t *out_len);
const char *gvis_nvjpeg_enc_error(const gvis_nvjpeg_enc *enc);

#ifdef __cplusplus
}
#endif
#endif
