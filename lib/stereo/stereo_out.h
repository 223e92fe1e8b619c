/* Disparity map outputs and scoring for gvis disparity: KITTI 16-bit PNG, PFM,
 * OpenCV-style int16 (NPY), a turbo colour preview, PLY point clouds, and the
 * bad-N / density / mean-error score against ground truth. */
#ifndef GVIS_STEREO_OUT_H
#define GVIS_STEREO_OUT_H

#include "gvis.h"
#include "sgm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* KITTI: u16 gray, value = disparity x 256, 0 = invalid.  Valid disparities of 0
 * (counted in *zero) and below (in *negative) become 0; those above 65535/256
 * become 65535 (counted in *clipped). */
int gvis_disp_kitti(const gvis_disp *d, gvis_image *out, size_t *zero, size_t *negative, size_t *clipped);
/* f32 gray in pixels, +infinity = invalid (Middlebury PFM). */
int gvis_disp_float(const gvis_disp *d, gvis_image *out);
/* The int16 map as it is (x16, invalid = 16 (min_disp - 1)) in an NPY file ('<i2', H x W). */
int gvis_disp_encode_cv16(const gvis_disp *d, gvis_buf *b);
/* 8-bit RGB: the turbo colour map over [lo, hi] pixels (hi <= lo: over the map's own
 * range of valid disparities), invalid black. */
int gvis_disp_preview(const gvis_disp *d, double lo, double hi, gvis_image *out);

/* OpenCV's reprojection matrix Q (row major) from focal length, baseline and
 * principal point: [X Y Z W] = Q [x y d 1], point = (X, Y, Z) / W. */
void gvis_disp_q(double focal, double baseline, double cx, double cy, double q[16]);
/* Reads 16 numbers (whitespace, commas or brackets between them) from text. */
int gvis_disp_parse_q(const char *text, double q[16]);
/* GVIS_E_ARG when Q cannot give a point cloud: an entry not finite, the W row all zero
 * (every point at infinity) or the X, Y and Z rows all zero (every point at the origin). */
int gvis_disp_q_check(const double q[16]);
/* Binary little-endian PLY of the valid pixels whose point is finite in float32, coloured
 * from the left image (any channels, u8 or u16; NULL: white).  *points: written;
 * *left_out (may be NULL): valid pixels whose point is not finite in float32. */
int gvis_disp_ply(const gvis_disp *d, const gvis_image *left, const double q[16], gvis_buf *b, size_t *points,
                  size_t *left_out);

typedef struct {
    size_t scored;  /* pixels with known truth inside the border */
    size_t valid;   /* of those, with a valid disparity */
    double bad1, bad2, density; /* percentages; invalid counts as bad */
    double mae;     /* mean |d - truth| over the valid scored pixels, pixels */
} gvis_disp_score_t;

/* Scores d against truth gt (one channel; u8/u16: disparity = value / scale, 0 =
 * unknown; f32: value / scale, non-finite or <= 0 unknown), ignoring border pixels
 * along each edge. */
int gvis_disp_score(const gvis_disp *d, const gvis_image *gt, double scale, int border, gvis_disp_score_t *s);

/* The ground truth's scale (its value per pixel of disparity) as the files show it, for
 * when none is given: the median of gt / d over the pixels inside the border where both
 * are known and d >= 1, which must lie within 20 % of a power of two from 1 to 256 (PFM
 * and most float truths 1, Middlebury 2003 4, 2001 8 or 16, KITTI PNG 256); *scale is
 * that power.  *ratio (may be NULL) gets the median, or 0 when no pixel counts.
 * GVIS_E_FORMAT with a message saying why when there is no such pixel or the median is
 * near no power of two (a truth of another size or kind). */
int gvis_disp_gt_scale(const gvis_disp *d, const gvis_image *gt, int border, double *scale, double *ratio);

#ifdef __cplusplus
}
#endif
#endif
