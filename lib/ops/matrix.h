/* 2x3 affine matrices: inversion as OpenCV does it, and the text file that
 * `gvis warpaffine --save-matrix` writes and `gvis yolo-decode --matrix` reads. */
#ifndef GVIS_MATRIX_H
#define GVIS_MATRIX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Inverts the 2x3 affine matrix m = [a b c; d e f] (row-major) into inv, with the
 * arithmetic of cv2.invertAffineTransform / cv2.warpAffine, so that sampling positions
 * agree with OpenCV's bit for bit.  GVIS_E_ARG when m is singular or not finite. */
int gvis_affine_invert(const double m[6], double inv[6]);

/* Reads a matrix file: blank lines and lines starting with '#' are skipped; the numbers
 * (separated by blanks or commas) are either 12 (the forward matrix, then its inverse:
 * what gvis_matrix_write writes) or 6 (a forward matrix alone, as numpy.savetxt writes a
 * 2x3 array; its inverse is computed).  fwd maps source to destination pixel coordinates,
 * inv destination to source.  "-" is standard input.  GVIS_E_IO when unreadable,
 * GVIS_E_FORMAT when malformed, singular or not finite. */
int gvis_matrix_read(const char *path, double fwd[6], double inv[6]);

/* Formats both matrices into text (a comment line, then one matrix per line, %.17g). */
int gvis_matrix_format(const double fwd[6], const double inv[6], char *out, size_t outlen);

/* Writes both matrices to path atomically ("-": standard output). */
int gvis_matrix_write(const char *path, const double fwd[6], const double inv[6]);

#ifdef __cplusplus
}
#endif
#endif
