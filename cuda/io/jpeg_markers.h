/* What the GPU JPEG path needs to know of a JPEG before it hands it to nvJPEG: the frame
 * type (baseline / extended / progressive / lossless, Huffman or arithmetic), size,
 * components and their sampling, the restart interval and the EXIF orientation.
 * A marker walk up to the first scan (cuda/io/jpeg_markers.c); no entropy data is read. */
#ifndef GVIS_JPEG_MARKERS_H
#define GVIS_JPEG_MARKERS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int sof;         /* frame marker, 0xC0..0xCF (not C4, C8, CC) */
    int progressive; /* SOF2, 6, 10, 14 */
    int arithmetic;  /* SOF9..15 */
    int lossless;    /* SOF3, 7, 11, 15 */
    int precision;   /* sample bits, 8 or 12 (16 for lossless) */
    int width, height, components;
    int h[4], v[4];  /* sampling factors of the first four components */
    int restart;     /* DRI interval in MCUs; 0: none */
    int orientation; /* EXIF orientation 1..8; 0: no EXIF or no orientation tag */
    int adobe;       /* Adobe APP14 transform 0..2; -1: no Adobe marker */
} gvis_jpeg_info;

/* 0 when data is a JPEG whose markers up to the first SOS are well formed; -1 otherwise. */
int gvis_jpeg_scan(const uint8_t *data, size_t len, gvis_jpeg_info *info);

/* The nvJPEG chroma subsampling (GVIS_NVJ_CSS_*) of the frame; -1 for others. */
int gvis_jpeg_css(const gvis_jpeg_info *info);

/* 1 when the frame is one nvJPEG's batched decoder may take at all (8-bit Huffman DCT,
 * 1 or 3 components, YCbCr): others go to the CPU without asking the library. */
int gvis_jpeg_gpu_candidate(const gvis_jpeg_info *info);

#ifdef __cplusplus
}
#endif
#endif
