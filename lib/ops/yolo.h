/* YOLOv5 / YOLOv8 output decoding with greedy non-maximum suppression.
 *
 * The decision rule is torchvision's batched_nms: candidates in descending score,
 * equal scores in ascending row order; a candidate is dropped when its IoU with an
 * already kept box of the same class (any class with agnostic) exceeds the threshold.
 * The float arithmetic is fixed (below) and done alike on the CPU and the GPU, so both
 * keep the same boxes in the same order with bit-identical coordinates and scores.
 *
 *   box:   x1 = cx - w*0.5f, y1 = cy - h*0.5f, x2 = cx + w*0.5f, y2 = cy + h*0.5f
 *   score: v5: obj * cls[best] (one float product), v8: cls[best]; best is the first
 *          index of the largest class score; a row is a candidate when score >= conf
 *          (and, for v5, obj >= conf), conf being rounded to float as torch does
 *   IoU:   inter = max(min(ax2,bx2) - max(ax1,bx1), 0) * max(min(ay2,by2) - max(ay1,by1), 0)
 *          iou = inter / ((area_a + area_b) - inter), area = (x2 - x1) * (y2 - y1),
 *          every operation rounded to float32 (no fused multiply-add); a box is
 *          suppressed when iou > threshold, compared exactly against the double threshold.
 */
#ifndef GVIS_YOLO_H
#define GVIS_YOLO_H

#include <stddef.h>
#include <stdint.h>
#include "gvis.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { GVIS_YOLO_AUTO = 0, GVIS_YOLO_V5 = 5, GVIS_YOLO_V8 = 8 } gvis_yolo_layout;

/* The tensor as the decoder sees it. */
typedef struct {
    gvis_yolo_layout layout; /* V5: rows x (5+C) row-major; V8: (4+C) x rows */
    size_t rows;             /* candidate boxes (anchors) */
    int classes;             /* C >= 1 */
} gvis_yolo_shape;

/* Decides the layout from a tensor shape: [N,K], [1,N,K] (and [K,N], [1,K,N]).  want
 * AUTO: the longer dimension counts the boxes (v5 when the rows outnumber the columns,
 * v8 otherwise); an equal pair is ambiguous.  classes > 0 must agree with the shape and,
 * under AUTO, picks the layout it fits when only one does; 0 infers it.  GVIS_E_FORMAT
 * when the shape fits no layout, gives no class, or disagrees with classes; GVIS_E_ARG
 * when it is ambiguous (the message asks for --layout). */
int gvis_yolo_resolve(const size_t *shape, int ndim, gvis_yolo_layout want, int classes, gvis_yolo_shape *out);
const char *gvis_yolo_layout_name(gvis_yolo_layout l); /* "v5", "v8", "auto" */

typedef struct {
    double conf;     /* score threshold: kept when score >= (float)conf */
    double iou;      /* IoU threshold in [0, 1]: suppressed when iou > iou */
    int agnostic;    /* suppress across classes */
    int fast_nms;    /* "fast NMS": suppressed boxes still suppress (not torchvision's rule) */
    int max_det;     /* at most this many detections, >= 1 */
} gvis_yolo_params;

/* One detection, in the input tensor's coordinates (network input pixels). */
typedef struct {
    float x1, y1, x2, y2;
    float score;
    int32_t cls;
    int32_t row;  /* the anchor's row in the tensor */
    int32_t pad;
} gvis_yolo_det;

typedef struct {
    gvis_yolo_det *det; /* max_det entries, in descending score */
    int count;
    size_t candidates;  /* rows whose score reached conf */
} gvis_yolo_result;

/* Decodes pred (float32, C order, the layout of s) and runs NMS on the context's device.
 * out->det must hold p->max_det entries.  A NaN or infinite value anywhere in the tensor
 * is GVIS_E_FORMAT naming the first one.  Timed into the context's compute_ms. */
int gvis_yolo_decode(gvis_ctx *ctx, const float *pred, const gvis_yolo_shape *s, const gvis_yolo_params *p,
                     gvis_yolo_result *out);
/* The CPU implementation alone (no timing), for tests. */
int gvis_yolo_decode_cpu(const float *pred, const gvis_yolo_shape *s, const gvis_yolo_params *p,
                         gvis_yolo_result *out);

/* Checks the parameters (GVIS_E_ARG with a message naming the option). */
int gvis_yolo_check_params(const gvis_yolo_params *p);

/* IoU of two boxes with the arithmetic above (float x1, y1, x2, y2). */
float gvis_yolo_iou(const float a[4], const float b[4]);
/* The largest float that is <= t: iou > t and iou > gvis_yolo_threshold(t) agree for
 * every float iou. */
float gvis_yolo_threshold(double t);

/* Maps boxes through the 2x3 matrix inv (network input -> source pixels): each box
 * becomes the bounding box of its four mapped corners.  inv has pixel centres at
 * integer coordinates (OpenCV's warpAffine, gvis warpaffine), boxes have pixel edges
 * there (YOLO's), so a corner p maps to inv(p - 0.5) + 0.5; for a letterbox this is
 * ultralytics' scale_boxes: (p - pad) / gain.  When width and height are > 0
 * the boxes are then clipped to [0, width] x [0, height]. */
void gvis_yolo_map(gvis_yolo_det *det, int n, const double inv[6], int width, int height);
/* Clips boxes to [0, width] x [0, height]. */
void gvis_yolo_clip(gvis_yolo_det *det, int n, int width, int height);

/* The box lines' width and the labels' font scale (each font pixel scale x scale) for an
 * image: lines round(0.3 % of the mean side), at least 1; font scale round(0.6 x that),
 * at least 1 (the tag is 9 x scale pixels high). */
void gvis_yolo_draw_sizes(int width, int height, int *line, int *text_scale);

/* Draws the detections on a copy of img made 8-bit RGB (RGBA stays RGBA): boxes in
 * class colours, lines and labels sized by gvis_yolo_draw_sizes, labels[i] (may be NULL)
 * on a filled tag above box i. */
int gvis_yolo_draw(const gvis_image *img, const gvis_yolo_det *det, int n, const char *const *labels,
                   gvis_image *out);

/* Converts a float16 or float32 array into float32 (malloc'd into *out).
 * Other dtypes are GVIS_E_FORMAT. */
int gvis_yolo_to_f32(const gvis_array *a, float **out);

#ifdef __cplusplus
}
#endif
#endif
