/* C-callable launchers of the quality stages (--aggregate cross, --refine): one stage per
 * file, each computing exactly the CPU rule (lib/stereo/cross_aggregate.c, refine.c, and
 * sgm.h step 4 over a given volume) on device buffers it is handed, on the given stream.
 * Maps and volumes are tight (W x H, W x H x D); the guide of the arms has a row pitch in
 * bytes.  Returns a cudaError_t value as int (cudaErrorInvalidValue for bad arguments).
 * tests/test_cuda_quality.c compares every stage with the CPU; tests/bench_quality.c
 * times each (docs/notes-sgm.md, the quality preset's GPU speed). */
#ifndef GVIS_QUALITY_CUDA_H
#define GVIS_QUALITY_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cross_arms.cu: the four arm lengths of every pixel (W x H x 4: left, right, up, down). */
int gvis_cu_cross_arms(const uint8_t *d_guide, size_t pitch, int width, int height, uint8_t *d_arms, void *stream);

/* cross_aggregate.cu: passes of cross aggregation of the u8 cost volume in place;
 * d_sum (at least W x H x D u16) is scratch; d_cnt is not used (may be NULL). */
int gvis_cu_cross_aggregate(uint8_t *d_cost, const uint8_t *d_arms, int width, int height, int D, int passes,
                            uint32_t *d_sum, uint32_t *d_cnt, void *stream);

/* sgm_path_volume.cu: step 4 over the cost volume d_cost (u8, [y][x][k]), paths 4 or 8,
 * P2 per guide difference from p2lut (host, gvis_sgm_p2_table), all directions added into
 * the u16 sum volume d_sum (layout and stride of gvis_cu_sgm_path_sum; zeroed first). */
int gvis_cu_sgm_path_volume(const uint8_t *d_cost, const uint8_t *d_guide, int width, int height, int D, int p1,
                            const uint8_t p2lut[256], int paths, uint16_t *d_sum, int stride, void *stream);
/* sgm_path_volume.cu: the same paths, directions dir .. dir + ndirs - 1 (one launch), each
 * into its own u8 volume d_lr + i * W*H*D ([y][x][k]: gvis_cu_sgm_wta's input). */
int gvis_cu_sgm_path_volume_lr(const uint8_t *d_cost, const uint8_t *d_guide, int width, int height, int D, int p1,
                               const uint8_t p2lut[256], int dir, int ndirs, uint8_t *d_lr, void *stream);

/* refine_classify.cu: outlier classes (GVIS_REFINE_*) of the left map; d_right may be NULL. */
int gvis_cu_refine_classify(const int16_t *d_left, const int16_t *d_right, int width, int height, int min_disp, int D,
                            uint8_t *d_label, void *stream);

/* refine_vote.cu: the voting rounds until none changes a pixel (at most max_rounds),
 * ping-ponging between d_disp and d_tmp; the result is left in d_disp.  d_counts:
 * max_rounds ints of scratch (each round's changes); d_scratch (4-byte aligned):
 * gvis_cu_refine_vote_scratch(width, height) bytes = 64 + 4 W H + 3 ceil(W / 8) ceil(H / 8)
 * (the list of the invalid pixels, the rounds' changed-tile flags).  d_right may be NULL. */
size_t gvis_cu_refine_vote_scratch(int width, int height);
int gvis_cu_refine_vote(int16_t *d_disp, int16_t *d_tmp, const int16_t *d_right, const uint8_t *d_label,
                        const uint8_t *d_arms, int width, int height, int min_disp, int D, int max_rounds,
                        int *d_counts, uint8_t *d_scratch, void *stream);

/* refine_interp.cu: interpolation of step 3, out of place (d_out != d_in); d_right may be NULL. */
int gvis_cu_refine_interp(const int16_t *d_in, const int16_t *d_right, const uint8_t *d_label, const uint8_t *d_guide,
                          int16_t *d_out, int width, int height, int min_disp, void *stream);

#ifdef __cplusplus
}
#endif
#endif
