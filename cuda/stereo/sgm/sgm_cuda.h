/* C-callable launchers of the SGM stages (cuda/sgm_*.cu): one stage per file, each
 * computing exactly the rule of lib/stereo/sgm.h on device buffers it is handed, on the
 * given stream.  Returns a cudaError_t value as int. */
#ifndef GVIS_SGM_CUDA_H
#define GVIS_SGM_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* sgm_census.cu: census (lib/stereo/sgm.h step 2) of a one-channel u8 (bytes 1) or u16
 * (bytes 2) image with row pitch in bytes, into d_out (W x H, tight); when d_guide
 * is not NULL, also the 8-bit guide of step 4 (W x H, tight). */
int gvis_cu_sgm_census(const void *d_img, size_t pitch, int bytes, int width, int height, int census,
                       uint64_t *d_out, uint8_t *d_guide, void *stream);
/* Both views in one launch, the same size and type; with remap (host, 256 bytes) the right
 * guide mapped through it (gvis_cu_sgm_remap_u8's result), and with pack (symmetric census
 * only) the right guide also in bits 32-39 of its codes (gvis_cu_sgm_pack_guide's). */
int gvis_cu_sgm_census_pair(const void *d_left, size_t lpitch, const void *d_right, size_t rpitch, int bytes,
                            int width, int height, int census, uint64_t *d_cl, uint8_t *d_guide, uint64_t *d_cr,
                            uint8_t *d_guide_r, const uint8_t *remap, int pack, void *stream);

/* sgm_path.cu: path costs Lr (step 4) of directions dir .. dir + ndirs - 1 (0..7,
 * lib/stereo/sgm.h's gvis_sgm_dirs), direction dir + i into d_lr + i * W*H*D (u8,
 * [y][x][k]); costs from the censuses (census: 0 9x7, 1 centre-symmetric, whose codes
 * fit 32 bits), P2 adapted with the guide (p2_adapt 0: constant).  All directions run
 * in one launch. */
int gvis_cu_sgm_path(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, int width, int height,
                     int D, int min_disp, int census, int p1, int p2, int p2_adapt, int dir, int ndirs,
                     uint8_t *d_lr, void *stream);

/* sgm_pack_guide.cu: the 8-bit guide d_guide (n values) into bits 32-39 of the
 * symmetric census codes d_c (whose bits 31-63 are zero), in place. */
int gvis_cu_sgm_pack_guide(uint64_t *d_c, const uint8_t *d_guide, size_t n, void *stream);

/* sgm_path.cu, any cost: with luts (host, 128 bytes: gvis_sgm_cost_luts's census table then
 * its AD table) the ad-census cost of step 3 from both views' guides: the right view's is
 * d_guide_r (W x H, tight) with the 9x7 census (census 0); with the symmetric census
 * (census 1) it must be packed into d_cr by gvis_cu_sgm_pack_guide (one load a disparity
 * for both) and d_guide_r is not read (it may be NULL).  luts NULL: census costs, as
 * gvis_cu_sgm_path.  The census table is not read: it is the identity for the codes of
 * gvis_cu_sgm_census (at most 31 or 62 bits set), and the kernels add the distance itself
 * (here and in gvis_cu_sgm_cost_adcensus, which takes unpacked codes). */
int gvis_cu_sgm_path_cost(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                          const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D, int min_disp,
                          int census, int p1, int p2, int p2_adapt, int dir, int ndirs, uint8_t *d_lr, void *stream);

/* sgm_path.cu: the same path costs (any cost, as gvis_cu_sgm_path_cost), added into ONE
 * u16 volume of the sums S (step 4) instead of a u8 volume a direction: the pipeline's
 * way (2 bytes a pixel and disparity instead of 1 a path).  add = 0 starts the volume
 * afresh: the last direction of the range is stored first (every word, halves k >= D as
 * 0), the others added in a second launch (with a stride above D rounded up to 64, a
 * cudaMemsetAsync zeroes the volume and all directions add); add = 1 adds to what is
 * there (the tests build S from several launches).
 * Layout: stride u16 a pixel (stride % 64 = 0, stride >= D rounded up to 64: the
 * pipeline uses GVIS_SGM_SUM_STRIDE(D) of sgm.h); S(p, k) sits at u16 index
 *     p * stride + 64 (k / 64) + 2 (k % 32) + (k / 32) % 2
 * i.e. 32-bit word 32 (k / 64) + k % 32 of the pixel holds k in its low half and k + 32
 * in its high half (the pairs a warp lane holds); the halves of k >= D stay 0.  Exact:
 * each Lr <= 255, so S <= 8 x 255 never carries from one half into the other. */
int gvis_cu_sgm_path_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                         const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D, int min_disp,
                         int census, int p1, int p2, int p2_adapt, int dir, int ndirs, int add, uint16_t *d_sum,
                         int stride, void *stream);

/* sgm_rows.cu: the two row directions, (1, 0) and (-1, 0), stored into the sum volume
 * (every word of every pixel, the halves of k >= D 0): the same words as
 * gvis_cu_sgm_path_sum with dir 0, ndirs 2, add 0, in one launch whose lanes walk each row
 * both ways at once (the second visit of a pixel adds to the first with plain loads and
 * stores).  Only for the symmetric census (census 1; luts: ad-census, the right guide packed
 * in the codes), 64 < D <= 128 and stride 128: gvis_cu_sgm_rows_ok says so (0 too where
 * GVIS_SGM_ROWS2=0), else cudaErrorInvalidValue. */
int gvis_cu_sgm_rows_ok(int D, int census, int stride);
int gvis_cu_sgm_rows_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, const uint8_t *luts,
                         int width, int height, int D, int min_disp, int census, int p1, int p2, int p2_adapt,
                         uint16_t *d_sum, int stride, void *stream);

/* sgm_down.cu: the downward directions ((0, 1), and with paths 8 (1, 1) and (-1, 1)) added
 * into the sum volume, whose every word gvis_cu_sgm_rows_sum stored first: a pixel's
 * directions summed on the chip, then one plain load-add-store.  Bit-identical to the same
 * directions of gvis_cu_sgm_path_sum.  The conditions of gvis_cu_sgm_rows_ok (and not where
 * GVIS_SGM_DOWN=0: gvis_cu_sgm_down_ok).  With paths 8 the tiles of columns exchange path
 * costs through d_ring (gvis_cu_sgm_down_ring_bytes, ring_bytes its size) and must all be
 * resident: -1 where the device cannot hold them (nothing done: the caller walks the bands),
 * else 0 or a CUDA error. */
int gvis_cu_sgm_down_ok(int D, int census, int stride);
size_t gvis_cu_sgm_down_ring_bytes(int width);
int gvis_cu_sgm_down_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, const uint8_t *luts,
                         int width, int height, int D, int min_disp, int census, int p1, int p2, int p2_adapt,
                         int paths, uint16_t *d_sum, int stride, uint32_t *d_ring, size_t ring_bytes, void *stream);
/* The upward directions (0, -1), (-1, -1) and (1, -1) the same way: the same pass over the
 * image flipped, its rows walked from the bottom (after the downward ones added theirs;
 * GVIS_SGM_UP=0: gvis_cu_sgm_up_ok false).  The same arguments and returns. */
int gvis_cu_sgm_up_ok(int D, int census, int stride);
/* Both at once, 8 paths: the downward tiles and the upward ones in one cooperative launch,
 * each row's two visits adding in turn (d_ring: gvis_cu_sgm_band_state_bytes).  -1 where not
 * taken (4 paths, one tile, one row, GVIS_SGM_UPDOWN=0 or GVIS_SGM_DOWN_PF=0, or the grid
 * does not fit): nothing done. */
int gvis_cu_sgm_updown_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, const uint8_t *luts,
                           int width, int height, int D, int min_disp, int census, int p1, int p2, int p2_adapt,
                           int paths, uint16_t *d_sum, int stride, uint32_t *d_ring, size_t ring_bytes, void *stream);
int gvis_cu_sgm_up_sum(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide, const uint8_t *luts,
                       int width, int height, int D, int min_disp, int census, int p1, int p2, int p2_adapt, int paths,
                       uint16_t *d_sum, int stride, uint32_t *d_ring, size_t ring_bytes, void *stream);

/* sgm_path_band.cu: the same sum volume as gvis_cu_sgm_path_sum with add = 0 over all
 * `paths` (4 or 8) directions, the vertical and diagonal ones walked in bands of `band` rows
 * (>= 1) so that a band of the volume stays in L2 for its 3 directions: the horizontal
 * directions over whole rows (gvis_cu_sgm_rows_sum first where gvis_cu_sgm_rows_ok; else
 * (-1, 0) first and (1, 0) on a second stream of the current device beside the bands, unless
 * GVIS_SGM_OVERLAP=0; the stream waits for it before returning), then the downward
 * directions band by band from the top (after gvis_cu_sgm_rows_sum: gvis_cu_sgm_down_sum's
 * fused pass instead, where it runs), then the upward ones from the bottom (fused too:
 * gvis_cu_sgm_up_sum; with passes 2 and 8 paths both fused passes at once first,
 * gvis_cu_sgm_updown_sum).  d_state
 * (gvis_cu_sgm_band_state_bytes) carries each line's path costs from one band to the next.  Bit-identical to gvis_cu_sgm_path_sum.
 * passes 2: all of that; passes 1: the upward directions are left out. */
size_t gvis_cu_sgm_band_state_bytes(int width, int height, int stride);
int gvis_cu_sgm_path_sum_band(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                              const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D,
                              int min_disp, int census, int p1, int p2, int p2_adapt, int paths, int band,
                              int passes, uint16_t *d_sum, int stride, uint32_t *d_state, void *stream);

/* sgm_strips.cu: the same sum volume and maps as gvis_cu_sgm_path_sum_band (paths 4 or 8,
 * `band` rows a strip) followed by gvis_cu_sgm_wta_sum, bit-identical, with fewer
 * reductions: the rows as there; the downward directions strip by strip from the top into
 * u8 volumes of the strip's rows (gvis_cu_sgm_path_strip), added into the sum by
 * gvis_cu_sgm_strip_sum; the upward ones from the bottom, never added into the sum: the
 * winner of each strip's rows (step 5: d_left, d_right, U and subpixel as for
 * gvis_cu_sgm_wta) reads the sum and the strip's volumes (gvis_cu_sgm_wta_strip).  The
 * sums and winners run on a second stream beside the next strip's walk, the (1, 0) rows on a
 * third; the caller's stream waits for both before returning.  d_strips: nsets (1 to 8) sets
 * of gvis_cu_sgm_strip_bytes; d_cost as for gvis_cu_sgm_path_strip for `band` rows; d_state
 * as for the bands.  D 64, 128 or 256 (gvis_cu_sgm_wta_strip_ok). */
size_t gvis_cu_sgm_strip_bytes(int width, int band, int D, int paths);
int gvis_cu_sgm_sum_strips(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                           const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D, int min_disp,
                           int census, int p1, int p2, int p2_adapt, int paths, int band, uint16_t *d_sum, int stride,
                           uint32_t *d_state, uint8_t *d_strips, int nsets, uint16_t *d_cost, int U, int subpixel,
                           int16_t *d_left, int16_t *d_right, void *stream);

/* sgm_strip_sum.cu: nstrip (1 to 3) u8 volumes of rows y0 .. y1 - 1 (d_strip + i * vol,
 * [y - y0][x][k], D a pixel) added into those rows of the sum volume (stride and layout
 * of gvis_cu_sgm_path_sum) with 32-bit reductions: other reductions may add at once; with
 * plain, by loads and stores (nothing else may write those words meanwhile). */
int gvis_cu_sgm_strip_sum(uint16_t *d_sum, int stride, const uint8_t *d_strip, size_t vol, int nstrip, int width,
                          int y0, int y1, int D, int plain, void *stream);

/* sgm_path_strip.cu: one strip of gvis_cu_sgm_sum_strips: the downward directions ((0, 1),
 * and (1, 1), (-1, 1) with 8 paths) or, down 0, the upward ones ((0, -1), (-1, -1),
 * (1, -1)) over rows y0 .. y1 - 1 (the strips before walked first in the same direction,
 * their line states in d_state), direction i into d_strip + i * vol as u8 [y - y0][x][k]
 * (D a pixel; vol >= (y1 - y0) x W x D).
 * With d_cost (gvis_cu_sgm_strip_cost_bytes for y1 - y0 rows; 0 bytes: not used, may be
 * NULL) the strip's costs are made there first and walked in the run layout (64 < D <= 128). */
size_t gvis_cu_sgm_strip_cost_bytes(int width, int rows, int D);
int gvis_cu_sgm_path_strip(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                           const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D, int min_disp,
                           int census, int p1, int p2, int p2_adapt, int paths, int down, int y0, int y1,
                           uint8_t *d_strip, size_t vol, uint16_t *d_cost, uint32_t *d_state, void *stream);

/* sgm_cost_pairs.cu: the costs of step 3 (any cost and census, d_cr, d_guide_r and luts as
 * for gvis_cu_sgm_path_cost) of rows y0 .. y1 - 1 into d_cost, (y1 - y0) x W pixels of
 * GVIS_SGM_SUM_STRIDE(D) / 2 u16 words: word 32 (k / 64) + k % 32 of a pixel holds the
 * cost of k (k % 64 < 32) in its low byte and of k + 32 in its high byte (the sum
 * volume's pairs), 0 for k >= D: the layout the path kernels' lanes read. */
int gvis_cu_sgm_cost_pairs(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_guide,
                           const uint8_t *d_guide_r, const uint8_t *luts, int width, int height, int D, int min_disp,
                           int census, int y0, int y1, uint16_t *d_cost, void *stream);

/* sgm_path_pairs.cu: the path costs of directions dir .. dir + ndirs - 1 (one u8 volume a
 * direction, as gvis_cu_sgm_path_cost) from the whole image's cost volume of
 * gvis_cu_sgm_cost_pairs (rows 0 .. H - 1). */
int gvis_cu_sgm_path_pairs(const uint16_t *d_cost, const uint8_t *d_guide, int width, int height, int D, int p1,
                           int p2, int p2_adapt, int dir, int ndirs, uint8_t *d_lr, void *stream);

/* sgm_cost_adcensus.cu: the ad-census cost volume of step 3 (u8, [y][x][k], W x H x D) from
 * the censuses and the 8-bit guides of both views; luts as for gvis_cu_sgm_path_cost. */
int gvis_cu_sgm_cost_adcensus(const uint64_t *d_cl, const uint64_t *d_cr, const uint8_t *d_gl, const uint8_t *d_gr,
                              int width, int height, int D, int min_disp, const uint8_t luts[128], uint8_t *d_cost,
                              void *stream);

/* sgm_cost_adcensus.cu: n bytes mapped through lut (256 entries, host) in place: R of step 3. */
int gvis_cu_sgm_remap_u8(uint8_t *d_img, size_t n, const uint8_t lut[256], void *stream);

/* sgm_wta.cu: sums npaths volumes d_lr + i * W*H*D and takes the winner (step 5)
 * for the left (d_left) and/or the right view (d_right); either may be NULL.
 * U = round(256 uniqueness).  Width at most gvis_cu_sgm_wta_max_width(D) (no limit for D <= 256)
 * (cudaErrorInvalidValue beyond). */
int gvis_cu_sgm_wta_max_width(int D);
int gvis_cu_sgm_wta(const uint8_t *d_lr, int npaths, int width, int height, int D, int min_disp, int U,
                    int subpixel, int16_t *d_left, int16_t *d_right, void *stream);
/* The same from the sum volume of gvis_cu_sgm_path_sum (its stride and layout). */
int gvis_cu_sgm_wta_sum(const uint16_t *d_sum, int stride, int width, int height, int D, int min_disp, int U,
                        int subpixel, int16_t *d_left, int16_t *d_right, void *stream);
/* The same for rows y0 .. y1 - 1 only, from the sum volume plus nstrip u8 volumes of those
 * rows (d_strip + i * vol, [y - y0][x][k], D a pixel: gvis_cu_sgm_path_strip's); D 64, 128
 * or 256 (the thread-a-pixel kernel: gvis_cu_sgm_wta_strip_ok), else cudaErrorInvalidValue. */
int gvis_cu_sgm_wta_strip_ok(int D);
int gvis_cu_sgm_wta_strip(const uint16_t *d_sum, int stride, const uint8_t *d_strip, size_t vol, int nstrip,
                          int width, int height, int D, int min_disp, int U, int subpixel, int y0, int y1,
                          int16_t *d_left, int16_t *d_right, void *stream);

/* sgm_median.cu: 3x3 median (step 6), d_out != d_in; median2 also d_in2 into d_out2 (both
 * NULL or neither) in the same launch. */
int gvis_cu_sgm_median(const int16_t *d_in, int16_t *d_out, int width, int height, void *stream);
int gvis_cu_sgm_median2(const int16_t *d_in, int16_t *d_out, const int16_t *d_in2, int16_t *d_out2, int width,
                        int height, void *stream);

/* sgm_lrcheck.cu: left-right check (step 7), out of place; d_right_out may be NULL. */
int gvis_cu_sgm_lrcheck(const int16_t *d_left, const int16_t *d_right, int16_t *d_left_out,
                        int16_t *d_right_out, int width, int height, int min_disp, int tolerance, void *stream);

/* sgm_fill.cu: background fill (step 8) in place. */
int gvis_cu_sgm_fill(int16_t *d_disp, int width, int height, int16_t invalid, void *stream);

#ifdef __cplusplus
}
#endif
#endif
