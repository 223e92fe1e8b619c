/* The codecs behind gvis_image_decode / gvis_image_encode: one file per library (png.c,
 * png_write.c, jpeg.c, tiff.c, webp.c through libpng, libjpeg-turbo, libtiff and libwebp;
 * stb.c and stb_write.c through stb, the fallback of a build without them; pnm.c for
 * what gvis writes itself) and exif.c for the metadata they share.  Internal to lib/io. */
#ifndef GVIS_CODEC_H
#define GVIS_CODEC_H

#include "gvis.h"

/* Refuses a zero or over-limit size (from a header, before any pixel memory). */
int gvis_check_size(size_t w, size_t h, const gvis_io_opts *o);
size_t gvis_max_pixels(const gvis_io_opts *o);
/* Image data an in-memory encoder takes at most (bytes of pixel rows). */
#define GVIS_ENCODE_MAX ((size_t)INT32_MAX)
int gvis_too_large(const char *format, size_t bytes, size_t limit);

/* Each decoder fills img (and img->meta where the file carries metadata); each encoder
 * appends the file to b and writes img->meta where the format holds it unless o->strip. */
typedef int (*gvis_decode_fn)(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
typedef int (*gvis_encode_fn)(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);

/* One row per format: who reads and writes it in this build (NULL: nobody). */
typedef struct {
    gvis_format fmt;
    const char *label;     /* "PNG" */
    gvis_decode_fn decode;
    const char *reader;    /* "libpng 1.6.39" */
    gvis_encode_fn encode;
    const char *writer;
} gvis_codec;

const gvis_codec *gvis_codec_of(gvis_format f);

int gvis_png_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
int gvis_png_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
const char *gvis_png_version(void);
int gvis_jpeg_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
int gvis_jpeg_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
const char *gvis_jpeg_version(void);
/* jpeg.c: the size check and the metadata of gvis_jpeg_decode, no pixels (for nvJPEG). */
int gvis_jpeg_read_header(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
/* jpeg_meta.c: the file libjpeg-turbo writes with img's metadata, from a JPEG stream s of
 * another encoder (nvJPEG): SOI, a JFIF APP0 with the resolution, the EXIF APP1 and the
 * ICC APP2 chunks that gvis_jpeg_encode writes (gvis_meta_to_write's rules), then s
 * after its SOI and any JFIF APP0.  Appends to b. */
int gvis_jpeg_splice_meta(const uint8_t *s, size_t n, const gvis_meta *m, gvis_buf *b);
int gvis_tiff_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
int gvis_tiff_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
const char *gvis_tiff_version(void);
int gvis_webp_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
int gvis_webp_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
const char *gvis_webp_version(void);

/* stb.c / stb_write.c: PNG, JPEG, BMP, TGA through stb (after gvis's own checks of what
 * stb trusts); PNG 16-bit written by gvis with stb's zlib. */
int gvis_stb_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
int gvis_stb_is_tga(const uint8_t *d, size_t len);
int gvis_stb_png_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
int gvis_stb_jpeg_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
int gvis_stb_bmp_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
int gvis_stb_tga_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);

/* pnm.c: PGM/PPM 8/16, PFM, NPY images. */
int gvis_pnm_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
int gvis_pfm_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
int gvis_npy_image_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img);
int gvis_pgm_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
int gvis_ppm_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
int gvis_pfm_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);
int gvis_npy_image_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b);

#ifdef GVIS_HAVE_TIFF
/* tiff_exif.c: an EXIF block's EXIF and GPS sub-IFDs written as libtiff custom
 * directories (before the image's own; *_at 0 where none), and IFD0's text tags set on
 * the current directory. */
struct tiff;
int gvis_tiff_exif_subdirs(struct tiff *t, const uint8_t *p, size_t n, uint64_t *exif_at, uint64_t *gps_at);
void gvis_tiff_exif_text(struct tiff *t, const uint8_t *p, size_t n);
/* tiff_exif_read.c: the EXIF block of the TIFF file d (IFD0's text tags and orientation,
 * its EXIF and GPS directories) of the directory at ifd_off, into img->meta; nothing when
 * the file holds none of them or they are broken (not an error). */
int gvis_tiff_exif_read(const uint8_t *d, size_t len, uint64_t ifd_off, gvis_image *img);
#endif

/* exif.c */
/* A new, empty gvis_meta on img (kept when there is one); NULL when out of memory. */
gvis_meta *gvis_meta_of(gvis_image *img);
/* Takes a copy of an EXIF block (with or without the "Exif\0\0" prefix) into m and reads
 * its orientation; a block that is not TIFF-structured is dropped (not an error). */
int gvis_meta_set_exif(gvis_meta *m, const uint8_t *p, size_t n);
int gvis_meta_set_icc(gvis_meta *m, const uint8_t *p, size_t n);
/* EXIF orientation of a TIFF-structured block: 1..8, 0 when none; *at (may be NULL) gets
 * the offset of its 16-bit value. */
int gvis_exif_orientation(const uint8_t *p, size_t n, size_t *at);
/* Turns img's pixels upright by its meta->orientation (2..8) unless o->no_autorotate,
 * then records orientation 1 in the meta and its EXIF block. */
int gvis_apply_orientation(gvis_image *img, const gvis_io_opts *o);
/* The meta side of that: resolutions swapped for 5..8, orientation 1 in m and its EXIF. */
void gvis_meta_mark_upright(gvis_meta *m);
/* The metadata an encoder writes: NULL when there is none or o->strip. */
const gvis_meta *gvis_meta_to_write(const gvis_image *img, const gvis_io_opts *o);

#endif
