/* EXIF orientation as an index map, shared by the CUDA kernel (jpeg_orient.cu) and its
 * host emulation test (tests/test_jpeg_orient.c): output pixel (x, y) of the upright
 * image takes source pixel (*sx, *sy) of the stored sw x sh image.  Orientations 5..8
 * swap width and height. */
#ifndef GVIS_JPEG_ORIENT_H
#define GVIS_JPEG_ORIENT_H

#ifdef __CUDACC__
#define GVIS_HD __host__ __device__ __forceinline__
#else
#define GVIS_HD static inline
#endif

GVIS_HD void gvis_orient_source(int orient, int x, int y, int sw, int sh, int *sx, int *sy)
{
    switch (orient) {
    case 2: *sx = sw - 1 - x; *sy = y; break;          /* mirrored */
    case 3: *sx = sw - 1 - x; *sy = sh - 1 - y; break; /* turned 180 */
    case 4: *sx = x; *sy = sh - 1 - y; break;          /* flipped */
    case 5: *sx = y; *sy = x; break;                   /* transposed */
    case 6: *sx = y; *sy = sh - 1 - x; break;          /* stored turned left: turn right */
    case 7: *sx = sw - 1 - y; *sy = sh - 1 - x; break; /* transverse */
    case 8: *sx = sw - 1 - y; *sy = x; break;          /* stored turned right: turn left */
    default: *sx = x; *sy = y; break;
    }
}

/* Upright size of a stored sw x sh image. */
GVIS_HD void gvis_orient_size(int orient, int sw, int sh, int *w, int *h)
{
    int swap = orient >= 5 && orient <= 8;
    *w = swap ? sh : sw;
    *h = swap ? sw : sh;
}

#ifdef __cplusplus
extern "C" {
#endif
/* cuda/io/jpeg_orient.cu: d_dst (upright, gvis_orient_size) from d_src (stored sw x sh),
 * channels 1..4 bytes per pixel, on stream.  Returns a cudaError_t as int. */
int gvis_cu_orient(const unsigned char *d_src, size_t spitch, int sw, int sh, int channels, int orient,
                   unsigned char *d_dst, size_t dpitch, void *stream);
#ifdef __cplusplus
}
#endif
#endif
