/* Compile-time check of cuda/io/nvjpeg_abi.h against NVIDIA's nvjpeg.h, built where the
 * toolkit has the header (meson test 'nvjpeg_abi', and scripts/gpu-nvjpeg-check on the GPU
 * machine).  Values and struct layout are compared directly; each entry point's
 * signature is checked twice: against a signature written here in nvjpeg.h's own types
 * (arity, order, pointer levels), and type by type for size against ours (our enums are
 * int, our handles pointers to other incomplete structs). */
#include <stddef.h>

#include <nvjpeg.h>

#include "nvjpeg_abi.h"

#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " != " #b)
SAME(GVIS_NVJ_SUCCESS, NVJPEG_STATUS_SUCCESS);
SAME(GVIS_NVJ_NOT_INITIALIZED, NVJPEG_STATUS_NOT_INITIALIZED);
SAME(GVIS_NVJ_INVALID_PARAMETER, NVJPEG_STATUS_INVALID_PARAMETER);
SAME(GVIS_NVJ_BAD_JPEG, NVJPEG_STATUS_BAD_JPEG);
SAME(GVIS_NVJ_JPEG_NOT_SUPPORTED, NVJPEG_STATUS_JPEG_NOT_SUPPORTED);
SAME(GVIS_NVJ_ALLOCATOR_FAILURE, NVJPEG_STATUS_ALLOCATOR_FAILURE);
SAME(GVIS_NVJ_EXECUTION_FAILED, NVJPEG_STATUS_EXECUTION_FAILED);
SAME(GVIS_NVJ_ARCH_MISMATCH, NVJPEG_STATUS_ARCH_MISMATCH);
SAME(GVIS_NVJ_INTERNAL_ERROR, NVJPEG_STATUS_INTERNAL_ERROR);
SAME(GVIS_NVJ_IMPLEMENTATION_NOT_SUPPORTED, NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED);
SAME(GVIS_NVJ_INCOMPLETE_BITSTREAM, NVJPEG_STATUS_INCOMPLETE_BITSTREAM);
SAME(GVIS_NVJ_CSS_444, NVJPEG_CSS_444);
SAME(GVIS_NVJ_CSS_422, NVJPEG_CSS_422);
SAME(GVIS_NVJ_CSS_420, NVJPEG_CSS_420);
SAME(GVIS_NVJ_CSS_440, NVJPEG_CSS_440);
SAME(GVIS_NVJ_CSS_411, NVJPEG_CSS_411);
SAME(GVIS_NVJ_CSS_410, NVJPEG_CSS_410);
SAME(GVIS_NVJ_CSS_GRAY, NVJPEG_CSS_GRAY);
SAME(GVIS_NVJ_CSS_UNKNOWN, NVJPEG_CSS_UNKNOWN);
SAME(GVIS_NVJ_OUTPUT_RGBI, NVJPEG_OUTPUT_RGBI);
SAME(GVIS_NVJ_INPUT_RGBI, NVJPEG_INPUT_RGBI);
SAME(GVIS_NVJ_BACKEND_DEFAULT, NVJPEG_BACKEND_DEFAULT);
SAME(GVIS_NVJ_BACKEND_HARDWARE, NVJPEG_BACKEND_HARDWARE);
SAME(GVIS_NVJ_MAJOR_VERSION, MAJOR_VERSION);
SAME(GVIS_NVJ_MINOR_VERSION, MINOR_VERSION);
SAME(GVIS_NVJ_PATCH_LEVEL, PATCH_LEVEL);
SAME(GVIS_NVJ_FLAGS_DEFAULT, NVJPEG_FLAGS_DEFAULT);
SAME(GVIS_NVJ_MAX_COMPONENT, NVJPEG_MAX_COMPONENT);
_Static_assert(sizeof(gvis_nvj_image) == sizeof(nvjpegImage_t), "nvjpegImage_t size");
_Static_assert(offsetof(gvis_nvj_image, pitch) == offsetof(nvjpegImage_t, pitch), "nvjpegImage_t layout");
/* enum parameters passed as int, handles as pointers, cudaStream_t as void * */
_Static_assert(sizeof(nvjpegStatus_t) == sizeof(int) && sizeof(nvjpegBackend_t) == sizeof(int) &&
                   sizeof(nvjpegChromaSubsampling_t) == sizeof(int) && sizeof(nvjpegOutputFormat_t) == sizeof(int) &&
                   sizeof(nvjpegInputFormat_t) == sizeof(int) && sizeof(libraryPropertyType) == sizeof(int),
               "enum sizes");
_Static_assert(sizeof(nvjpegHandle_t) == sizeof(gvis_nvj_handle) && sizeof(cudaStream_t) == sizeof(void *),
               "handle sizes");

/* Each entry point has the signature written here in nvjpeg.h's own types, and ours takes
 * as many parameters (a call with that many zeros compiles through both). */
#define SIG(name, type, ...)                                                                         \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&nvjpeg##name), type), "nvjpeg" #name);  \
    _Static_assert(sizeof(nvjpeg##name(__VA_ARGS__)) == sizeof(((gvis_nvj_##name##_fn)0)(__VA_ARGS__)), #name)
SIG(GetProperty, nvjpegStatus_t (*)(libraryPropertyType, int *), 0, 0);
SIG(CreateEx, nvjpegStatus_t (*)(nvjpegBackend_t, nvjpegDevAllocator_t *, nvjpegPinnedAllocator_t *, unsigned int,
                                 nvjpegHandle_t *), 0, 0, 0, 0, 0);
SIG(Destroy, nvjpegStatus_t (*)(nvjpegHandle_t), 0);
SIG(GetHardwareDecoderInfo, nvjpegStatus_t (*)(nvjpegHandle_t, unsigned int *, unsigned int *), 0, 0, 0);
SIG(GetImageInfo, nvjpegStatus_t (*)(nvjpegHandle_t, const unsigned char *, size_t, int *,
                                     nvjpegChromaSubsampling_t *, int *, int *), 0, 0, 0, 0, 0, 0, 0);
SIG(JpegStateCreate, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegJpegState_t *), 0, 0);
SIG(JpegStateDestroy, nvjpegStatus_t (*)(nvjpegJpegState_t), 0);
SIG(Decode, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegJpegState_t, const unsigned char *, size_t, nvjpegOutputFormat_t,
                               nvjpegImage_t *, cudaStream_t), 0, 0, 0, 0, 0, 0, 0);
SIG(JpegStreamCreate, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegJpegStream_t *), 0, 0);
SIG(JpegStreamDestroy, nvjpegStatus_t (*)(nvjpegJpegStream_t), 0);
SIG(JpegStreamParse, nvjpegStatus_t (*)(nvjpegHandle_t, const unsigned char *, size_t, int, int, nvjpegJpegStream_t),
    0, 0, 0, 0, 0, 0);
SIG(DecodeBatchedSupported, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegJpegStream_t, int *), 0, 0, 0);
SIG(DecodeBatchedInitialize, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegJpegState_t, int, int, nvjpegOutputFormat_t),
    0, 0, 0, 0, 0);
SIG(DecodeBatched, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegJpegState_t, const unsigned char *const *, const size_t *,
                                      nvjpegImage_t *, cudaStream_t), 0, 0, 0, 0, 0, 0);
SIG(EncoderStateCreate, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegEncoderState_t *, cudaStream_t), 0, 0, 0);
SIG(EncoderStateDestroy, nvjpegStatus_t (*)(nvjpegEncoderState_t), 0);
SIG(EncoderParamsCreate, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegEncoderParams_t *, cudaStream_t), 0, 0, 0);
SIG(EncoderParamsDestroy, nvjpegStatus_t (*)(nvjpegEncoderParams_t), 0);
SIG(EncoderParamsSetQuality, nvjpegStatus_t (*)(nvjpegEncoderParams_t, const int, cudaStream_t), 0, 0, 0);
SIG(EncoderParamsSetSamplingFactors, nvjpegStatus_t (*)(nvjpegEncoderParams_t, const nvjpegChromaSubsampling_t,
                                                        cudaStream_t), 0, 0, 0);
SIG(EncoderParamsSetOptimizedHuffman, nvjpegStatus_t (*)(nvjpegEncoderParams_t, const int, cudaStream_t), 0, 0, 0);
SIG(EncodeImage, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegEncoderState_t, const nvjpegEncoderParams_t,
                                    const nvjpegImage_t *, nvjpegInputFormat_t, int, int, cudaStream_t),
    0, 0, 0, 0, 0, 0, 0, 0);
SIG(EncodeRetrieveBitstream, nvjpegStatus_t (*)(nvjpegHandle_t, nvjpegEncoderState_t, unsigned char *, size_t *,
                                                cudaStream_t), 0, 0, 0, 0, 0);

/* and nothing in the symbol list is left unchecked: one SIG per entry (by count) */
#define COUNT(name, required) +1
_Static_assert(0 GVIS_NVJ_SYMBOLS(COUNT) == 23, "a symbol was added to GVIS_NVJ_SYMBOLS: add its SIG here");

int main(void) { return 0; }
