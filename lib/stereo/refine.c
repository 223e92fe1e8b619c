/* --refine: AD-Census's refinement of a left map (Mei et al. 2011, step 4), CPU.
 * The rule (integer):
 *
 * 1. Outliers: the pixels left invalid by the uniqueness test and the left-right check.
 * 2. Iterative region voting, VOTE_ROUNDS rounds, each reading the previous round's map:
 *    an invalid pixel p collects the whole-pixel disparities floor((v + 8) / 16) of the
 *    valid pixels of its cross region (the union of the horizontal arms of the pixels on
 *    its vertical arm, arms of gvis_cross_arms); with n votes in all and m for the most
 *    voted disparity d (the smallest such d on a tie), p takes 16 d when n > VOTE_MIN and
 *    m * 10 > n * VOTE_SHARE10.
 * 3. Interpolation: what is still invalid takes, per row, the smaller of the valid values
 *    beside its run (gvis_sgm_fill: occluded pixels belong to the background).
 * 4. A 3x3 median (gvis_sgm_median) smooths the filled runs' edges.
 */
#include <stdlib.h>
#include <string.h>
#include "sgm.h"

#define VOTE_ROUNDS 5
#define VOTE_MIN 20
#define VOTE_SHARE10 4 /* 0.4 */

typedef struct {
    const int16_t *in;
    int16_t *out;
    const uint8_t *arms;
    int W, H, M, D;
    int changed;
} vote_job;

static void vote_task(void *arg, int index, int count)
{
    vote_job *j = arg;
    const int W = j->W, D = j->D, M = j->M;
    const int16_t inval = GVIS_SGM_INVALID(M);
    size_t y0, y1;
    gvis_split((size_t)j->H, index, count, &y0, &y1);
    int hist[GVIS_SGM_MAX_D] = {0};
    int changed = 0;
    for (size_t y = y0; y < y1; y++)
        for (int x = 0; x < W; x++) {
            const size_t p = y * W + x;
            j->out[p] = j->in[p];
            if (j->in[p] != inval)
                continue;
            const int up = j->arms[p * 4 + 2], down = j->arms[p * 4 + 3];
            int n = 0;
            for (int qy = (int)y - up; qy <= (int)y + down; qy++) {
                const size_t q = (size_t)qy * W + x;
                const int l = j->arms[q * 4], r = j->arms[q * 4 + 1];
                const int16_t *row = j->in + (size_t)qy * W;
                for (int qx = x - l; qx <= x + r; qx++) {
                    const int v = row[qx];
                    if (v == inval)
                        continue;
                    int d = (v + 8 + 16 * 4096) / 16 - 4096 - M; /* floor((v + 8) / 16) - M */
                    if (d < 0 || d >= D)
                        continue;
                    hist[d]++;
                    n++;
                }
            }
            if (n > VOTE_MIN) {
                int best = 0;
                for (int d = 1; d < D; d++)
                    if (hist[d] > hist[best])
                        best = d;
                if (hist[best] * 10 > n * VOTE_SHARE10) {
                    j->out[p] = (int16_t)(16 * (best + M));
                    changed++;
                }
            }
            if (n)
                memset(hist, 0, sizeof(int) * (size_t)D);
        }
    __atomic_add_fetch(&j->changed, changed, __ATOMIC_RELAXED);
}

int gvis_refine(int16_t *disp, int16_t *tmp, const uint8_t *arms, int W, int H, int min_disp, int D)
{
    vote_job j = {disp, tmp, arms, W, H, min_disp, D, 0};
    const int tasks = gvis_threads() * 2;
    for (int r = 0; r < VOTE_ROUNDS; r++) {
        j.changed = 0;
        gvis_parallel(tasks < H ? tasks : H, vote_task, &j);
        memcpy(disp, tmp, sizeof(int16_t) * (size_t)W * H);
        if (!j.changed)
            break;
    }
    gvis_sgm_fill(disp, W, H, GVIS_SGM_INVALID(min_disp));
    gvis_sgm_median(disp, tmp, W, H);
    memcpy(disp, tmp, sizeof(int16_t) * (size_t)W * H);
    return GVIS_OK;
}
