/* Structured-light phase matching (gvis disparity --method phase): the public API and
 * the exact rule that the CPU (lib/stereo/phase_match.c) and the CUDA kernel
 * (cuda/stereo/phase_match.cu) both compute, in the same float operations in the same
 * order, so that the two devices agree bit for bit.
 *
 * Input: two W x H phase maps A (left) and B (right), float, finite.  A pixel is lit
 * when its phase is > V (valid_min); unlit pixels are never matched or compared.
 * Range: disparities d in [M, M + D - 1] (M = min_disp, D = num_disp); left pixel x
 * matches right pixel x - d.
 *
 * 1. Candidates of left pixel x (lit, phase p): right pixels xr = x - d, d in the
 *    range, 0 <= xr < W, lit, with e = fl(B(xr) - p) in [-T, T] (T = tol).
 * 2. Cost of a candidate: with h = (window - 1) / 2, over j = -h .. h in that order,
 *    the pairs (x + j, xr + j) inside the image with both pixels lit:
 *    s += fabsf(A(x + j) - B(xr + j)), n += 1; cost = s / n (float).
 * 3. The winner: the least cost; among equal costs the smallest d.  No candidate:
 *    invalid (NaN).
 * 4. Sub-pixel (on by default): r0 = B(xr), e = fl(p - r0).  e >= 0: when xr + 1 < W
 *    is lit with r1 = B(xr + 1) > r0, t = min(1, e / (r1 - r0)) and the position is
 *    xr + t; e < 0: when xr - 1 >= 0 is lit with r1 = B(xr - 1) < r0,
 *    t = min(1, -e / (r0 - r1)), position xr - t.  Disparity = (float)(x - xr) - t
 *    or + t (0 without refinement).
 * 5. Searches.  full: every d of the range, as the rule says.  ordered: the other row
 *    is cut into runs: a run starts at a lit pixel whose phase is below the previous
 *    lit pixel's (and at x = 0); within a run the lit phases never fall.  S(k) = the
 *    largest lit phase from the start of k's run to k (-inf before its first lit
 *    pixel) does not fall within a run, so per run (from the range's right end
 *    leftwards) a binary search finds the first k with fl(S(k) - p) >= -T and the
 *    scan stops at the first k with fl(S(k) - p) > T; inside, the candidates of rule 1
 *    are tested as in full.  Every candidate of full lies in such a stretch, so the two
 *    searches give the same map whatever the phases; ordered costs one run per
 *    monotone stretch of the row (one when the phase rises along the whole row).
 *    Ties of rule 3 are broken by (cost, d), so the order of the visits does not
 *    matter.
 * 6. The right view (--right, and the left-right check) swaps the roles: right pixel x
 *    matches left pixel x + d, same rules (smallest d on ties), disparity
 *    (float)(xl - x) +/- t.
 * 7. Left-right check with tolerance N: a valid left disparity v at x maps to
 *    xr = x - (int)floorf(v + 0.5f); it stays valid when 0 <= xr < W and the right
 *    view's disparity w at xr (rule 6, searched over the whole row) is valid with
 *    fabsf(v - w) <= N.
 * 8. Region (--roi): the maps cover x0 <= x < x1, y0 <= y < y1 of the left image;
 *    windows and candidates still see the whole rows.
 */
#ifndef GVIS_PHASE_H
#define GVIS_PHASE_H

#include "gvis.h"
#include "sgm.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GVIS_PHASE_FULL = 0, GVIS_PHASE_ORDERED = 1 };
#define GVIS_PHASE_MAX_ABS_DISP 2047 /* disparities stay representable in int16 x16 */

typedef struct {
    int min_disp, num_disp; /* M, D: disparities M .. M + D - 1 */
    float tol;              /* T: largest |phase difference| of a candidate (0.5) */
    int window;             /* odd, >= 1 (3) */
    float valid_min;        /* V: lit when phase > V (0.001) */
    double scale;           /* phase = value x scale for 8/16-bit inputs (1) */
    int roi[4];             /* x0, y0, x1, y1 (exclusive); have_roi 0: the whole image */
    int have_roi;
    int search;             /* GVIS_PHASE_* (ordered) */
    int subpixel;           /* 1 */
    int lr_check;           /* tolerance in pixels, < 0 off */
} gvis_phase_params;

void gvis_phase_defaults(gvis_phase_params *p);
/* Checks the parameters (width, height 0: those that do not need the image). */
int gvis_phase_check(const gvis_phase_params *p, int width, int height);
/* A one-channel phase map as float: f32 as it is, u8/u16 times scale.  Refuses
 * NaN and infinite phases (GVIS_E_FORMAT). */
int gvis_phase_to_float(const gvis_image *src, double scale, gvis_image *out);

/* The whole matching on the context's device.  out_right may be NULL.  The maps
 * (region sized) carry the float plane (NaN invalid) and its int16 x16 copy. */
int gvis_phase(gvis_ctx *ctx, const gvis_image *left, const gvis_image *right, const gvis_phase_params *p,
               gvis_disp *out_left, gvis_disp *out_right);

/* The CPU matcher on float rows (pitch in floats): one view (right_view 0: left map
 * over the region; 1: right map over the region), NaN = invalid, out tight (region
 * width x height).  GVIS_E_NOMEM when the row scratch cannot be had. */
int gvis_phase_match_cpu(const float *a, const float *b, size_t pitch, int width, int height,
                         const gvis_phase_params *p, int right_view, float *out);
/* For the tests: the most the matcher's grouped search may use (0 none, 1 SSE2, 2 AVX2,
 * each where the build and the processor have it; 2 at the start).  Not thread-safe. */
void gvis_phase_cpu_simd(int level);

#ifdef __cplusplus
}
#endif
#endif
