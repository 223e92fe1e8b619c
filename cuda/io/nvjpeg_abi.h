/* The part of nvJPEG's C ABI that gvis calls, declared here so that the build needs no
 * nvjpeg.h (the development machine's CUDA toolkit lacks it).  Names carry a gvis_nvj
 * prefix so that this header and NVIDIA's can be included together: tests/nvjpeg_abi_check.c
 * compares every type, value and signature below against nvjpeg.h where the toolkit has it.
 *
 * Values and signatures follow the nvJPEG documentation (CUDA 11-13); the library is
 * loaded at run time by cuda/io/nvjpeg_load.c.  Plain C: no CUDA header is needed either
 * (a cudaStream_t is passed as void *, which is what it is). */
#ifndef GVIS_NVJPEG_ABI_H
#define GVIS_NVJPEG_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* nvjpegStatus_t */
enum {
    GVIS_NVJ_SUCCESS = 0,
    GVIS_NVJ_NOT_INITIALIZED = 1,
    GVIS_NVJ_INVALID_PARAMETER = 2,
    GVIS_NVJ_BAD_JPEG = 3,
    GVIS_NVJ_JPEG_NOT_SUPPORTED = 4,
    GVIS_NVJ_ALLOCATOR_FAILURE = 5,
    GVIS_NVJ_EXECUTION_FAILED = 6,
    GVIS_NVJ_ARCH_MISMATCH = 7,
    GVIS_NVJ_INTERNAL_ERROR = 8,
    GVIS_NVJ_IMPLEMENTATION_NOT_SUPPORTED = 9,
    GVIS_NVJ_INCOMPLETE_BITSTREAM = 10,
};
/* nvjpegChromaSubsampling_t */
enum {
    GVIS_NVJ_CSS_444 = 0,
    GVIS_NVJ_CSS_422 = 1,
    GVIS_NVJ_CSS_420 = 2,
    GVIS_NVJ_CSS_440 = 3,
    GVIS_NVJ_CSS_411 = 4,
    GVIS_NVJ_CSS_410 = 5,
    GVIS_NVJ_CSS_GRAY = 6,
    GVIS_NVJ_CSS_UNKNOWN = -1,
};
/* nvjpegOutputFormat_t (the one gvis uses) */
enum { GVIS_NVJ_OUTPUT_RGBI = 5 };
/* nvjpegInputFormat_t (the one gvis uses) */
enum { GVIS_NVJ_INPUT_RGBI = 5 };
/* nvjpegBackend_t */
enum { GVIS_NVJ_BACKEND_DEFAULT = 0, GVIS_NVJ_BACKEND_HARDWARE = 3 };
/* libraryPropertyType (library_types.h) */
enum { GVIS_NVJ_MAJOR_VERSION = 0, GVIS_NVJ_MINOR_VERSION = 1, GVIS_NVJ_PATCH_LEVEL = 2 };
#define GVIS_NVJ_FLAGS_DEFAULT 0u
#define GVIS_NVJ_MAX_COMPONENT 4

/* nvjpegImage_t */
typedef struct {
    unsigned char *channel[GVIS_NVJ_MAX_COMPONENT];
    size_t pitch[GVIS_NVJ_MAX_COMPONENT];
} gvis_nvj_image;

/* Opaque handles: pointers to incomplete structs in nvjpeg.h; only passed through here. */
typedef struct gvis_nvj_handle_s *gvis_nvj_handle;
typedef struct gvis_nvj_state_s *gvis_nvj_state;
typedef struct gvis_nvj_stream_s *gvis_nvj_stream;
typedef struct gvis_nvj_enc_state_s *gvis_nvj_enc_state;
typedef struct gvis_nvj_enc_params_s *gvis_nvj_enc_params;
typedef void *gvis_nvj_cuda_stream; /* cudaStream_t */

/* Enum parameters are int-sized in the C ABI; int is used for them throughout. */
typedef int (*gvis_nvj_GetProperty_fn)(int type, int *value);
typedef int (*gvis_nvj_CreateEx_fn)(int backend, void *dev_allocator, void *pinned_allocator, unsigned int flags,
                                    gvis_nvj_handle *handle);
typedef int (*gvis_nvj_Destroy_fn)(gvis_nvj_handle handle);
typedef int (*gvis_nvj_GetHardwareDecoderInfo_fn)(gvis_nvj_handle handle, unsigned int *num_engines,
                                                  unsigned int *num_cores_per_engine);
typedef int (*gvis_nvj_GetImageInfo_fn)(gvis_nvj_handle handle, const unsigned char *data, size_t length,
                                        int *components, int *subsampling, int *widths, int *heights);
typedef int (*gvis_nvj_JpegStateCreate_fn)(gvis_nvj_handle handle, gvis_nvj_state *state);
typedef int (*gvis_nvj_JpegStateDestroy_fn)(gvis_nvj_state state);
typedef int (*gvis_nvj_Decode_fn)(gvis_nvj_handle handle, gvis_nvj_state state, const unsigned char *data,
                                  size_t length, int output_format, gvis_nvj_image *destination,
                                  gvis_nvj_cuda_stream stream);
typedef int (*gvis_nvj_JpegStreamCreate_fn)(gvis_nvj_handle handle, gvis_nvj_stream *stream);
typedef int (*gvis_nvj_JpegStreamDestroy_fn)(gvis_nvj_stream stream);
typedef int (*gvis_nvj_JpegStreamParse_fn)(gvis_nvj_handle handle, const unsigned char *data, size_t length,
                                           int save_metadata, int save_stream, gvis_nvj_stream stream);
typedef int (*gvis_nvj_DecodeBatchedSupported_fn)(gvis_nvj_handle handle, gvis_nvj_stream stream,
                                                  int *is_supported);
typedef int (*gvis_nvj_DecodeBatchedInitialize_fn)(gvis_nvj_handle handle, gvis_nvj_state state, int batch_size,
                                                   int max_cpu_threads, int output_format);
typedef int (*gvis_nvj_DecodeBatched_fn)(gvis_nvj_handle handle, gvis_nvj_state state,
                                         const unsigned char *const *data, const size_t *lengths,
                                         gvis_nvj_image *destinations, gvis_nvj_cuda_stream stream);
typedef int (*gvis_nvj_EncoderStateCreate_fn)(gvis_nvj_handle handle, gvis_nvj_enc_state *state,
                                              gvis_nvj_cuda_stream stream);
typedef int (*gvis_nvj_EncoderStateDestroy_fn)(gvis_nvj_enc_state state);
typedef int (*gvis_nvj_EncoderParamsCreate_fn)(gvis_nvj_handle handle, gvis_nvj_enc_params *params,
                                               gvis_nvj_cuda_stream stream);
typedef int (*gvis_nvj_EncoderParamsDestroy_fn)(gvis_nvj_enc_params params);
typedef int (*gvis_nvj_EncoderParamsSetQuality_fn)(gvis_nvj_enc_params params, const int quality,
                                                   gvis_nvj_cuda_stream stream);
typedef int (*gvis_nvj_EncoderParamsSetSamplingFactors_fn)(gvis_nvj_enc_params params, const int subsampling,
                                                           gvis_nvj_cuda_stream stream);
typedef int (*gvis_nvj_EncoderParamsSetOptimizedHuffman_fn)(gvis_nvj_enc_params params, const int optimized,
                                                            gvis_nvj_cuda_stream stream);
typedef int (*gvis_nvj_EncodeImage_fn)(gvis_nvj_handle handle, gvis_nvj_enc_state state,
                                       const gvis_nvj_enc_params params, const gvis_nvj_image *source,
                                       int input_format, int width, int height, gvis_nvj_cuda_stream stream);
typedef int (*gvis_nvj_EncodeRetrieveBitstream_fn)(gvis_nvj_handle handle, gvis_nvj_enc_state state,
                                                   unsigned char *data, size_t *length,
                                                   gvis_nvj_cuda_stream stream);

/* The X-macro list of entry points: name, required (1) or optional (0). */
#define GVIS_NVJ_SYMBOLS(X)                      \
    X(GetProperty, 1)                            \
    X(CreateEx, 1)                               \
    X(Destroy, 1)                                \
    X(GetHardwareDecoderInfo, 0)                 \
    X(GetImageInfo, 1)                           \
    X(JpegStateCreate, 1)                        \
    X(JpegStateDestroy, 1)                       \
    X(Decode, 1)                                 \
    X(JpegStreamCreate, 1)                       \
    X(JpegStreamDestroy, 1)                      \
    X(JpegStreamParse, 1)                        \
    X(DecodeBatchedSupported, 1)                 \
    X(DecodeBatchedInitialize, 1)                \
    X(DecodeBatched, 1)                          \
    X(EncoderStateCreate, 1)                     \
    X(EncoderStateDestroy, 1)                    \
    X(EncoderParamsCreate, 1)                    \
    X(EncoderParamsDestroy, 1)                   \
    X(EncoderParamsSetQuality, 1)                \
    X(EncoderParamsSetSamplingFactors, 1)        \
    X(EncoderParamsSetOptimizedHuffman, 1)       \
    X(EncodeImage, 1)                            \
    X(EncodeRetrieveBitstream, 1)

#ifdef __cplusplus
}
#endif
#endif
