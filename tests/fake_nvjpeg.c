/* A stand-in shared library with nvJPEG's entry-point names, for the loader tests
 * (test_nvjpeg_load.c) on machines without nvJPEG.  Built twice: whole, and with
 * -DFAKE_PARTIAL lacking nvjpegDecodeBatched (a wrong or too old library).  Every entry
 * point but nvjpegGetProperty answers "not initialized": it decodes nothing. */
#include <stddef.h>

#define FAKE_MAJOR 13
#define NOT_INITIALIZED 1

int nvjpegGetProperty(int type, int *value)
{
    *value = type == 0 ? FAKE_MAJOR : type == 1 ? 0 : 7;
    return 0;
}

#define STUB(name) \
    int name(void) { return NOT_INITIALIZED; }
STUB(nvjpegCreateEx)
STUB(nvjpegDestroy)
STUB(nvjpegGetImageInfo)
STUB(nvjpegJpegStateCreate)
STUB(nvjpegJpegStateDestroy)
STUB(nvjpegDecode)
STUB(nvjpegJpegStreamCreate)
STUB(nvjpegJpegStreamDestroy)
STUB(nvjpegJpegStreamParse)
STUB(nvjpegDecodeBatchedSupported)
STUB(nvjpegDecodeBatchedInitialize)
#ifndef FAKE_PARTIAL
STUB(nvjpegDecodeBatched)
#endif
STUB(nvjpegEncoderStateCreate)
STUB(nvjpegEncoderStateDestroy)
STUB(nvjpegEncoderParamsCreate)
STUB(nvjpegEncoderParamsDestroy)
STUB(nvjpegEncoderParamsSetQuality)
STUB(nvjpegEncoderParamsSetSamplingFactors)
STUB(nvjpegEncoderParamsSetOptimizedHuffman)
STUB(nvjpegEncodeImage)
STUB(nvjpegEncodeRetrieveBitstream)
