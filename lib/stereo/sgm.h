/* Semi-global matching (gvis disparity): the public API and the exact integer
 * algorithm that both the CPU (lib/sgm_*.c) and the CUDA stages (cuda/sgm_*.cu)
 * compute.  Every stage is integer arithmetic, so the two devices agree bit for bit.
 *
 * Notation: W x H image, D = max_disp disparities (a multiple of 16, 16..512),
 * M = min_disp, disparity index k in [0, D) stands for disparity d = M + k.
 * A left pixel x matches right pixel x - d.
 *
 * 1. Grey.  Gray input is used as is.  RGB(A) u8 and u16 (alpha ignored) become
 *    Y = (4899 R + 9617 G + 1868 B + 8192) >> 14 (BT.601 in OpenCV's 14-bit
 *    fixed point, cv::cvtColor RGB2GRAY), in 32-bit unsigned arithmetic, same type.
 *    Left and right must have the same size and sample type (u8 or u16).
 *
 * 2. Census (a 64-bit code per pixel; coordinates outside the image are clamped
 *    to the nearest edge pixel, I(y, x) = I(clamp(y), clamp(x))).
 *    9x7: for dy = -3..3, dx = -4..4, skipping (0, 0), in that order (dy outer):
 *         c = (c << 1) | (I(y+dy, x+dx) < I(y, x));            62 bits
 *    sym (centre-symmetric): for dy = -3..0, dx = -4..4 with dy < 0 or dx < 0:
 *         c = (c << 1) | (I(y+dy, x+dx) >= I(y-dy, x-dx));     31 bits
 *
 * 3. Matching cost (8-bit), with xr = clamp(x - M - k) and h = popcount(cL(y, x) ^ cR(y, xr)):
 *    census:    C(x, y, k) = h, 0..Cmax with Cmax = 62 (9x7) or 31 (sym).
 *    ad-census: C(x, y, k) = Tc[h] + Ta[min(|GL(y, x) - R[GR(y, xr)]|, 63)], with GL, GR
 *    the 8-bit guides of step 4 of both views, R the table of gvis_sgm_ad_remap_lut (the
 *    right guide mapped to the left's mean and standard deviation), and the integer tables
 *    of gvis_sgm_cost_luts: Tc[i] = min(i, B), Ta[i] = floor(A (1 - exp(-i / 10)) + 0.5),
 *    B = 31, A = 4 (sym) or B = 62, A = 8 (9x7) (Mei et al.'s robust AD term, at 1/8 of
 *    the census range); Cmax = B + A.
 *
 * 4. Path aggregation along r = (dx, dy) (4 paths: the horizontal and vertical
 *    directions; 8 paths: the diagonals too).  At the first pixel of a path
 *    Lr(p, k) = C(p, k); after it, with m = min_j Lr(p - r, j):
 *         Lr(p, k) = C(p, k) + min(Lr(p-r, k) - m, Lr(p-r, k-1) - m + P1,
 *                                  Lr(p-r, k+1) - m + P1, P2)
 *    (the terms with k-1 < 0 or k+1 >= D are left out).  P2 adapts to the
 *    intensity step along the path (Hirschmueller 2008): with the guide G = the
 *    left grey image in 8 bits (u16: I >> 8) and T = p2_adapt (0: off),
 *         P2(p, r) = max(P1, floor(P2 T / (T + |G(p) - G(p - r)|))),
 *    so P1 <= P2(p, r) <= P2.  Since the min term is at most P2(p, r),
 *    Lr <= Cmax + P2: with the required 0 <= P1 <= P2 <= 255 - Cmax
 *    (193 for 9x7, 224 for sym) every Lr fits in 8 bits exactly, and no value
 *    ever saturates or wraps (intermediate sums above 255 can only lose the min
 *    against P2, so 8-bit saturating adds give the same result).
 *    S(p, k) = sum over the paths of Lr(p, k), 16-bit (at most 8 x 255).
 *
 * 5. Winner takes all.  Left pixel x may take k in [klo, khi] with
 *    klo = max(0, x - (W-1) - M), khi = min(D-1, x - M) (its match must lie in the
 *    right image); when klo > khi the pixel is invalid.  k0 = the smallest k with
 *    the least S.  Uniqueness u in (0, 1], U = round(256 u): the pixel is invalid
 *    when some k in [klo, khi] with |k - k0| > 1 has 256 S(k0) > U S(k)
 *    (u = 1 never rejects).  Output is fixed point x16 (int16):
 *         disp16 = 16 (M + k0) + off,
 *    off = 0 without subpixel or when k0 - 1 < klo or k0 + 1 > khi; else with
 *    a = S(k0-1), b = S(k0+1), c = S(k0), num = a - b, den = a + b - 2c:
 *    off = 0 when den = 0, else sign(num) ((16 |num| + den) / (2 den)) (integer
 *    division; the parabola's vertex, |off| <= 8).
 *    The right view: right pixel x takes k with left pixel x + M + k in the
 *    image, cost SR(x, k) = S(x + M + k, k), same rules.
 *    Invalid = 16 (M - 1) (GVIS_SGM_INVALID), below every valid value.
 *
 * 6. Median: 3x3 median of the int16 map (invalid included as its value);
 *    pixels of the outer one-pixel frame are copied.  Applied to both views.
 *
 * 7. Left-right check with tolerance N pixels: a valid left value v at x maps to
 *    xr = x - floor((v + 8) / 16); it stays valid when 0 <= xr < W, the right
 *    value w at xr is valid and |v - w| <= 16 N; the right view symmetrically
 *    (xl = x + floor((w + 8) / 16)).  Both use the maps before the check.
 *
 * 8. Fill (background): per row, each maximal run of invalid pixels takes the
 *    smaller of the valid values on its two sides (the one side where only one
 *    exists; a row with no valid pixel stays invalid).
 *
 * Pipeline: grey, census L and R, costs and aggregation, WTA (left; right when
 * the LR check is on or the right view is wanted), median, LR check, fill.
 * Quality stages: aggregate = cross puts the cost volume through
 * lib/stereo/cross_aggregate.c's rule between steps 3 and 4; refine runs
 * lib/stereo/refine.c's rule on the left map after step 7 (before step 8).  On the GPU
 * (cuda/stereo/quality_cuda.h: cross_arms, cross_aggregate, sgm_path_volume,
 * refine_*.cu) the same integer rules, checked against these by tests/test_cuda_quality
 * on an H100 (1494 checks, 2026-11-26).
 */
#ifndef GVIS_SGM_H
#define GVIS_SGM_H

#include <stdint.h>
#include "gvis.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GVIS_CENSUS_9X7 = 0, GVIS_CENSUS_SYM = 1 };
enum { GVIS_FILL_NONE = 0, GVIS_FILL_BACKGROUND = 1 };
enum { GVIS_COST_CENSUS = 0, GVIS_COST_ADCENSUS = 1 };
enum { GVIS_AGGREGATE_NONE = 0, GVIS_AGGREGATE_CROSS = 1 };

#define GVIS_SGM_MAX_D 512
#define GVIS_SGM_MAX_ABS_MIN 1024
#define GVIS_SGM_INVALID(min_disp) ((int16_t)(16 * ((min_disp) - 1)))

typedef struct {
    int max_disp;      /* D, multiple of 16 in [16, 512]; default 128 */
    int min_disp;      /* M, |M| <= 1024; default 0 */
    int paths;         /* 4 or 8; default 8 */
    int p1, p2;        /* default 10, 120 */
    int p2_adapt;      /* T of step 4, 0..255 (0: constant P2); default 8 */
    int census;        /* GVIS_CENSUS_*; default sym */
    int cost;          /* GVIS_COST_*; default ad-census */
    int aggregate;     /* GVIS_AGGREGATE_*: cross-based cost aggregation before the paths; default none */
    int refine;        /* AD-Census refinement of the left map (lib/stereo/refine.c); default 0 */
    double uniqueness; /* (0, 1]; default 0.95 */
    int subpixel;      /* default 1 */
    int lr_check;      /* tolerance in pixels, < 0: off; default 1 */
    int median;        /* default 1 */
    int fill;          /* GVIS_FILL_*; default none */
} gvis_sgm_params;

/* A disparity map: int16 fixed point x16, tight rows, invalid = GVIS_SGM_INVALID.
 * Methods with finer disparities (phase) also fill fdata (float pixels, NaN invalid,
 * tight); the outputs that can hold it (KITTI PNG, PFM, PLY, scores) then read it. */
typedef struct {
    int width, height;
    int min_disp;
    int16_t *data;
    float *fdata; /* NULL for SGM */
} gvis_disp;

void gvis_sgm_defaults(gvis_sgm_params *p);
/* Checks the parameters for a W x H pair; GVIS_E_ARG with a message. */
int gvis_sgm_check(const gvis_sgm_params *p, int width, int height);
/* The largest matching cost Cmax of step 3 under these parameters (cost and census). */
int gvis_sgm_cost_max(const gvis_sgm_params *p);
/* Converts an 8- or 16-bit image to one-channel grey (step 1); gray is allocated. */
int gvis_sgm_gray(const gvis_image *src, gvis_image *gray);

/* The whole pipeline on the context's device.  right may be NULL.  The maps are
 * allocated (free with gvis_disp_free).  Inputs: any channels, u8 or u16. */
int gvis_sgm(gvis_ctx *ctx, const gvis_image *left, const gvis_image *right, const gvis_sgm_params *p,
             gvis_disp *out_left, gvis_disp *out_right);
int gvis_disp_alloc(gvis_disp *d, int width, int height, int min_disp);
void gvis_disp_free(gvis_disp *d);
/* Device bytes the CUDA pipeline allocates for a W x H pair (printed by -v; the
 * device-memory test checks the real use against it).  per_path: the per-path u8
 * volumes (paths x W x H x D bytes) instead of the one u16 sum
 * volume (W x H x GVIS_SGM_SUM_STRIDE(D) x 2 bytes; in bands, its line states too:
 * 3 x (W + H - 1) x GVIS_SGM_SUM_STRIDE(D) x 2 bytes, and the strips of
 * gvis_sgm_cuda_strips). */
size_t gvis_sgm_cuda_bytes(int width, int height, const gvis_sgm_params *p, int per_path);
/* u16 values a pixel of the CUDA sum volume (cuda/stereo/sgm/sgm_cuda.h): D rounded up to 64. */
#define GVIS_SGM_SUM_STRIDE(D) (((D) + 63) / 64 * 64)
/* Whether the CUDA pipeline keeps per-path volumes for a W x H pair: where they keep
 * the whole call under GVIS_SGM_PER_PATH_MAX bytes (faster), else the one sum volume
 * (a quarter of the memory); GVIS_SGM_PER_PATH=1 or 0 in the environment forces
 * either (to time the two side by side). */
#define GVIS_SGM_PER_PATH_MAX ((size_t)5 << 29) /* 2.5 GiB */
int gvis_sgm_cuda_per_path(int width, int height, const gvis_sgm_params *p);
/* Whether the CUDA pipeline's per-path volumes take their costs from one cost volume made
 * once (cuda/stereo/sgm/sgm_cost_pairs.cu: W x H x GVIS_SGM_SUM_STRIDE(D) bytes more) rather
 * than computing them from the census codes in every direction: per path, no cross
 * aggregation, and 65 to 128 disparities at any size, or the ad-census cost or the 9x7
 * census with at least GVIS_SGM_COSTVOL_MIN pixels x disparities (measured faster there,
 * slower below); GVIS_SGM_COSTVOL=1 or 0 in
 * the environment forces either where the per-path volumes are used (to time the two
 * side by side). */
#define GVIS_SGM_COSTVOL_MIN ((size_t)120 << 20)
int gvis_sgm_cuda_costvol(int width, int height, const gvis_sgm_params *p, int per_path);
/* Rows a band of the CUDA sum volume's vertical and diagonal paths (cuda/stereo/
 * sgm_path_band.cu), 0 for whole-image walks: as many rows as GVIS_SGM_BAND_BYTES of the
 * volume hold, at least 1, at most the height; GVIS_SGM_BAND=N in the environment sets N
 * rows (0: whole-image walks, to time the two side by side).  0 with --aggregate cross.
 * 120 MiB, 128 rows at 3840x2160 with D = 128, measured fastest on an H100 (bands of 8 to
 * 128 rows: docs/notes-sgm-gpu.md); the warps of a launch walk their band nearly in step,
 * so the rows in L2 are those the launch's first wave is at, not the whole band. */
#define GVIS_SGM_BAND_BYTES ((size_t)120 << 20)
int gvis_sgm_cuda_band(int width, int height, const gvis_sgm_params *p);
/* Sets of strip volumes for the CUDA sum volume in strips with the winner fused into the
 * upward pass (cuda/stereo/paths/sgm_strips.cu), 0 for the bands: where the bands would be used
 * (gvis_sgm_cuda_band > 0) and D = 128 (measured faster there; GVIS_SGM_STRIPS=1 in the
 * environment also takes them for D = 64 or 256, =0 never).  *rows: the strip's rows, as
 * many as GVIS_SGM_STRIP_BYTES of the sum volume hold (96 at 3840x2160 with D = 128), or N
 * with GVIS_SGM_STRIP=N.  A set is 3 (8 paths) or 1 u8 volumes of rows x W x D bytes;
 * GVIS_SGM_STRIP_SETS sets (1 to 8, default GVIS_SGM_STRIP_SETS_DEF); for 64 < D <= 128
 * also a strip's costs, rows x W x 128 bytes.  3 sets of 96 rows measured fastest at 4K
 * (15.2 ms against 15.9 with 2 of 128; docs/notes-sgm-gpu.md). */
#define GVIS_SGM_STRIP_SETS_DEF 3
#define GVIS_SGM_STRIP_BYTES ((size_t)90 << 20)
int gvis_sgm_cuda_strips(int width, int height, const gvis_sgm_params *p, int *rows);
/* The bytes of those strips: every set and a strip's costs (0 without strips). */
size_t gvis_sgm_cuda_strip_bytes(int width, int height, const gvis_sgm_params *p);

/* ---- stages (CPU), exposed for the tests and the CUDA parity checks ---- */

/* Census of a one-channel u8 (bytes 1) or u16 (bytes 2) image. */
void gvis_sgm_census(const void *img, size_t stride, int bytes, int width, int height, int census,
                     uint64_t *out);
/* The 8-bit guide G of step 4 from the left grey image (W x H, tight). */
void gvis_sgm_guide(const gvis_image *gray, uint8_t *guide);
/* P2 per guide difference 0..255 (step 4). */
void gvis_sgm_p2_table(const gvis_sgm_params *p, uint8_t lut[256]);
/* ad-census cost (step 3, lib/stereo/cost_adcensus.c): the tables, their Cmax, one cost
 * (the reference), and one image row of costs (out: W x D, [x][k]; scratch of
 * gvis_sgm_cost_row_scratch bytes, or NULL for the scalar path). */
void gvis_sgm_cost_luts(int census, uint8_t lut_census[64], uint8_t lut_ad[64]);
int gvis_sgm_cost_luts_max(const uint8_t lut_census[64], const uint8_t lut_ad[64]);
uint8_t gvis_sgm_cost_adcensus_ref(uint64_t cl, uint64_t cr, int gl, int gr, const uint8_t lut_census[64],
                                   const uint8_t lut_ad[64]);
size_t gvis_sgm_cost_row_scratch(int width, int D);
/* R of step 3 from the histograms of both guides (gvis_sgm_guide_hist: the 8-bit guide
 * values of a grey image), and R applied in place. */
void gvis_sgm_guide_hist(const gvis_image *gray, uint64_t hist[256]);
void gvis_sgm_ad_remap_lut(const uint64_t hist_l[256], const uint64_t hist_r[256], uint8_t lut[256]);
void gvis_sgm_ad_remap(uint8_t *img, size_t n, const uint8_t lut[256]);
void gvis_sgm_cost_row_adcensus(const uint64_t *cl, const uint64_t *cr, const uint8_t *gl, const uint8_t *gr,
                                int width, int D, int M, int census, const uint8_t lut_census[64],
                                const uint8_t lut_ad[64], uint8_t *out, uint8_t *scratch);
/* The matching cost C(x, y, k) of step 3 by the rule, for references. */
int gvis_sgm_cost_ref(const uint64_t *cl, const uint64_t *cr, const uint8_t *ad_l, const uint8_t *ad_r, int width,
                      const gvis_sgm_params *p, int x, int y, int k);
/* Costs and aggregation over p->paths paths into sum (W x H x D, u16, [y][x][k]);
 * cl and cr are censuses of kind p->census; ad_l and ad_r, the images whose absolute
 * differences the ad-census cost takes, are read for that cost only (may be NULL otherwise).
 * With sum2 non-NULL, the paths are split over sum and sum2 (S = sum + sum2;
 * saves a pass: gvis_sgm_wta adds them).  GVIS_E_NOMEM on allocation failure. */
int gvis_sgm_aggregate(const uint64_t *cl, const uint64_t *cr, const uint8_t *guide, const uint8_t *ad_l,
                       const uint8_t *ad_r, int width, int height, const gvis_sgm_params *p, uint16_t *sum, uint16_t *sum2);
/* The volume of step 3's costs (W x H x D, u8, [y][x][k]). */
void gvis_sgm_cost_volume(const uint64_t *cl, const uint64_t *cr, const uint8_t *ad_l, const uint8_t *ad_r, int width,
                          int height, const gvis_sgm_params *p, uint8_t *cost);
/* Step 4 over a given cost volume (as gvis_sgm_aggregate otherwise). */
int gvis_sgm_aggregate_volume(const uint8_t *cost, const uint8_t *guide, int width, int height,
                              const gvis_sgm_params *p, uint16_t *sum, uint16_t *sum2);
/* Cross-based aggregation (lib/stereo/cross_aggregate.c, the rule at its top): the four arm
 * lengths of every pixel (W x H x 4: left, right, up, down) from the 8-bit guide, and
 * passes of aggregation of the cost volume in place. */
void gvis_cross_arms(const uint8_t *guide, int width, int height, uint8_t *arms);
int gvis_cross_aggregate(uint8_t *cost, const uint8_t *arms, int width, int height, int D, int passes);
/* AD-Census refinement of a left map in place (lib/stereo/refine.c, the rule at its top):
 * right, the right map before the LR check (NULL: every outlier counts as occluded), guide
 * the left 8-bit guide, tmp W x H scratch.  GVIS_E_NOMEM on allocation failure.  Its stages:
 * the outlier classes (label: GVIS_REFINE_*), one voting round (out of place; returns how
 * many pixels it set) and the interpolation (out of place); right may be NULL in each. */
enum { GVIS_REFINE_VALID = 0, GVIS_REFINE_OCCLUDED = 1, GVIS_REFINE_MISMATCH = 2 };
/* The voting rounds stop when one changes nothing, after this many at most. */
#define GVIS_REFINE_ROUNDS_MAX 64
extern const int gvis_refine_dirs[16][2];
int gvis_refine(int16_t *disp, const int16_t *right, int16_t *tmp, const uint8_t *arms, const uint8_t *guide,
                int width, int height, int min_disp, int D);
void gvis_refine_classify(const int16_t *left, const int16_t *right, int width, int height, int min_disp, int D,
                          uint8_t *label);
int gvis_refine_vote(const int16_t *in, const int16_t *right, const uint8_t *label, int16_t *out,
                     const uint8_t *arms, int width, int height, int min_disp, int D);
void gvis_refine_interp(const int16_t *in, const int16_t *right, const uint8_t *label, const uint8_t *guide,
                        int16_t *out, int width, int height, int min_disp);
/* Path direction index 0..7: (1,0) (-1,0) (0,1) (0,-1) (1,1) (-1,-1) (-1,1) (1,-1). */
extern const int gvis_sgm_dirs[8][2];
/* Naive reference of one path direction into lr (W x H x D, u8). */
void gvis_sgm_path_ref(const uint64_t *cl, const uint64_t *cr, const uint8_t *guide, const uint8_t *ad_l,
                       const uint8_t *ad_r, int width, int height, const gvis_sgm_params *p, int dir, uint8_t *lr);
/* Winner takes all (step 5) from S = sum (+ sum2 when not NULL); left and/or
 * right may be NULL.  GVIS_E_NOMEM on allocation failure. */
int gvis_sgm_wta(const uint16_t *sum, const uint16_t *sum2, int width, int height, int D, int min_disp,
                 double uniqueness, int subpixel, int16_t *left, int16_t *right);
int gvis_sgm_uniqueness_fixed(double uniqueness); /* U = round(256 u) */
void gvis_sgm_median(const int16_t *in, int16_t *out, int width, int height);
/* Left-right check (step 7), out of place; right_out may be NULL. */
void gvis_sgm_lrcheck(const int16_t *left, const int16_t *right, int16_t *left_out, int16_t *right_out,
                      int width, int height, int min_disp, int tolerance);
void gvis_sgm_fill(int16_t *disp, int width, int height, int16_t invalid);

/* Scratch blocks kept between calls (lib/stereo/sgm_scratch.c): take returns a block of at
 * least bytes (NULL when out of memory); give hands it back with the size asked for. */
void *gvis_sgm_scratch_take(size_t bytes);
void gvis_sgm_scratch_give(void *p, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
