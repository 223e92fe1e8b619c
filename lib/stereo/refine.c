/* --refine: AD-Census's refinement of a left map (Mei et al. 2011, step 4), CPU.
 * The rule (integer):
 *
 * 1. Outliers: the pixels left invalid by the uniqueness test and the left-right check.
 *    Each is classed (gvis_refine_classify) as mismatched when the right map (before the
 *    check) has a pixel on its row that maps back onto it, i.e. some disparity d of the
 *    range with xr = x - d inside the image, R(xr) valid and floor((R(xr) + 8) / 16) = d;
 *    otherwise as occluded (no right pixel sees it).  Without a right map: all occluded.
 * 2. Iterative region voting, rounds until no pixel changes (at most VOTE_ROUNDS_MAX),
 *    each reading the previous round's map: an invalid pixel p = (x, y) collects the
 *    whole-pixel disparities d = floor((v + 8) / 16) (d - M in [0, D)) of the valid pixels
 *    of its cross region (the union of the horizontal arms of the pixels on its vertical
 *    arm, arms of gvis_cross_arms).  A vote weighs 2, except for an occluded p with a
 *    right map, where it must agree with p being hidden at d: with xr = x - d inside the
 *    image, it weighs 2 when R(xr) is valid and floor((R(xr) + 8) / 16) > d (a nearer
 *    surface hides p), 1 when R(xr) is invalid (unknown), 0 otherwise (the right view
 *    sees that surface there itself); xr outside the image: 2.  With n the total weight
 *    and m the weight of the heaviest disparity d (the smallest such d on a tie), p
 *    takes 16 d when n > 2 VOTE_MIN and m * 10 > n * VOTE_SHARE10.
 * 3. Interpolation (gvis_refine_interp), reading the voted map: an occluded pixel takes,
 *    per row, the smaller of the valid values a, b beside its run of invalid pixels
 *    (gvis_sgm_fill's rule: occluded pixels belong to the background), except that with a
 *    right map, when exactly one of a, b agrees with p being hidden (the test of step 2
 *    for d = floor((v + 8) / 16): xr < 0, or R(xr) valid and nearer), p takes that one;
 *    a mismatched pixel takes, of the first valid pixels met along the 16 directions
 *    (dx, dy) of gvis_refine_dirs (steps of that vector), the one whose guide value is the
 *    closest to its own (the first direction on a tie; none met: it stays invalid).
 *    Occluded runs are bounded by valid pixels and the row's ends only (mismatched pixels
 *    in between count as part of the run).  Whatever is still invalid then is filled by
 *    gvis_sgm_fill.
 * 4. A 3x3 median (gvis_sgm_median) smooths the filled runs' edges.
 */
#include <stdlib.h>
#include <string.h>
#include "sgm.h"

/* Rounds run until none changes a pixel: 10 to 16 on the Middlebury and synthetic scenes
 * (docs/notes-sgm.md); the bound (GVIS_REFINE_ROUNDS_MAX) only keeps a pathological input
 * finite. */
#define VOTE_ROUNDS_MAX GVIS_REFINE_ROUNDS_MAX
#define VOTE_MIN 20
#define VOTE_SHARE10 4 /* 0.4 */

const int gvis_refine_dirs[16][2] = {{1, 0},  {-1, 0}, {0, 1},   {0, -1}, {1, 1},   {-1, -1}, {1, -1}, {-1, 1},
                                     {2, 1},  {-2, -1}, {2, -1}, {-2, 1}, {1, 2},   {-1, -2}, {1, -2}, {-1, 2}};

static int round16(int v)
{
    v += 8;
    return v >= 0 ? v / 16 : -((-v + 15) / 16);
}

typedef struct {
    const int16_t *left, *right;
    uint8_t *label;
    int W, H, M, D;
} class_job;

static void class_task(void *arg, int index, int count)
{
    class_job *j = arg;
    const int W = j->W, M = j->M, D = j->D;
    const int16_t inval = GVIS_SGM_INVALID(M);
    size_t y0, y1;
    gvis_split((size_t)j->H, index, count, &y0, &y1);
    for (size_t y = y0; y < y1; y++)
        for (int x = 0; x < W; x++) {
            const size_t p = y * W + x;
            if (j->left[p] != inval) {
                j->label[p] = GVIS_REFINE_VALID;
                continue;
            }
            int cls = GVIS_REFINE_OCCLUDED;
            if (j->right)
                for (int k = 0; k < D; k++) {
                    const int d = M + k, xr = x - d;
                    if (xr < 0 || xr >= W)
                        continue;
                    const int w = j->right[y * W + xr];
                    if (w != inval && round16(w) == d) {
                        cls = GVIS_REFINE_MISMATCH;
                        break;
                    }
                }
            j->label[p] = (uint8_t)cls;
        }
}

void gvis_refine_classify(const int16_t *left, const int16_t *right, int W, int H, int M, int D, uint8_t *label)
{
    class_job j = {left, right, label, W, H, M, D};
    const int tasks = gvis_threads() * 2;
    gvis_parallel(tasks < H ? tasks : H, class_task, &j);
}

/* The weight of a vote for disparity d (absolute) from an occluded pixel at x: whether
 * the right view agrees that p is hidden at d (step 2 of the rule). */
static int hidden_weight(const int16_t *rrow, int x, int d, int W, int16_t inval)
{
    const int xr = x - d;
    if (xr < 0 || xr >= W)
        return 2;
    const int w = rrow[xr];
    return w == inval ? 1 : round16(w) > d ? 2 : 0;
}

typedef struct {
    const int16_t *in, *right;
    int16_t *out;
    const uint8_t *arms, *label;
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
            const int16_t *rrow = j->right && j->label[p] == GVIS_REFINE_OCCLUDED ? j->right + y * W : NULL;
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
                    const int d = round16(v) - M;
                    if (d < 0 || d >= D)
                        continue;
                    const int wgt = rrow ? hidden_weight(rrow, x, d + M, W, inval) : 2;
                    hist[d] += wgt;
                    n += wgt;
                }
            }
            if (n > 2 * VOTE_MIN) {
                int best = 0;
                for (int d = 1; d < D; d++)
                    if (hist[d] > hist[best])
                        best = d;
                if (hist[best] * 10 > n * VOTE_SHARE10) {
                    j->out[p] = (int16_t)(16 * (best + M));
                    changed++;
                }
            }
            memset(hist, 0, sizeof(int) * (size_t)D);
        }
    __atomic_add_fetch(&j->changed, changed, __ATOMIC_RELAXED);
}

int gvis_refine_vote(const int16_t *in, const int16_t *right, const uint8_t *label, int16_t *out,
                     const uint8_t *arms, int W, int H, int M, int D)
{
    vote_job j = {in, right, out, arms, label, W, H, M, D, 0};
    const int tasks = gvis_threads() * 2;
    gvis_parallel(tasks < H ? tasks : H, vote_task, &j);
    return j.changed;
}

typedef struct {
    const int16_t *in, *right;
    int16_t *out;
    const uint8_t *label, *guide;
    int W, H, M;
} interp_job;

static void interp_task(void *arg, int index, int count)
{
    interp_job *j = arg;
    const int W = j->W, H = j->H;
    const int16_t inval = GVIS_SGM_INVALID(j->M);
    size_t y0, y1;
    gvis_split((size_t)H, index, count, &y0, &y1);
    for (size_t y = y0; y < y1; y++) {
        const int16_t *row = j->in + y * W, *rrow = j->right ? j->right + y * W : NULL;
        int16_t *o = j->out + y * W;
        int x = 0;
        while (x < W) {
            if (row[x] != inval) {
                o[x] = row[x];
                x++;
                continue;
            }
            int a = x;
            while (x < W && row[x] == inval)
                x++;
            /* run [a, x): occluded pixels take the background side */
            const int has_l = a > 0, has_r = x < W;
            const int16_t bg = !has_l && !has_r ? inval
                               : !has_l       ? row[x]
                               : !has_r       ? row[a - 1]
                                              : (row[a - 1] < row[x] ? row[a - 1] : row[x]);
            for (int i = a; i < x; i++) {
                const size_t p = y * W + i;
                if (j->label[p] != GVIS_REFINE_MISMATCH) {
                    o[i] = bg;
                    if (rrow && has_l && has_r) {
                        const int ha = hidden_weight(rrow, i, round16(row[a - 1]), W, inval) == 2;
                        const int hb = hidden_weight(rrow, i, round16(row[x]), W, inval) == 2;
                        if (ha != hb)
                            o[i] = ha ? row[a - 1] : row[x];
                    }
                    continue;
                }
                const int g = j->guide[p];
                int best = inval, bestd = 256;
                for (int d = 0; d < 16; d++) {
                    const int dx = gvis_refine_dirs[d][0], dy = gvis_refine_dirs[d][1];
                    int qx = i + dx, qy = (int)y + dy;
                    while (qx >= 0 && qx < W && qy >= 0 && qy < H && j->in[(size_t)qy * W + qx] == inval)
                        qx += dx, qy += dy;
                    if (qx < 0 || qx >= W || qy < 0 || qy >= H)
                        continue;
                    const size_t q = (size_t)qy * W + qx;
                    const int diff = abs((int)j->guide[q] - g);
                    if (diff < bestd) {
                        bestd = diff;
                        best = j->in[q];
                    }
                }
                o[i] = (int16_t)best;
            }
        }
    }
}

void gvis_refine_interp(const int16_t *in, const int16_t *right, const uint8_t *label, const uint8_t *guide,
                        int16_t *out, int W, int H, int M)
{
    interp_job j = {in, right, out, label, guide, W, H, M};
    const int tasks = gvis_threads() * 2;
    gvis_parallel(tasks < H ? tasks : H, interp_task, &j);
}

int gvis_refine(int16_t *disp, const int16_t *right, int16_t *tmp, const uint8_t *arms, const uint8_t *guide,
                int W, int H, int min_disp, int D)
{
    const size_t n = (size_t)W * H;
    uint8_t *label = malloc(n);
    if (!label)
        return gvis_error(GVIS_E_NOMEM, "out of memory for refinement of %dx%d", W, H);
    gvis_refine_classify(disp, right, W, H, min_disp, D, label);
    for (int r = 0; r < VOTE_ROUNDS_MAX; r++) {
        const int changed = gvis_refine_vote(disp, right, label, tmp, arms, W, H, min_disp, D);
        memcpy(disp, tmp, sizeof(int16_t) * n);
        if (!changed)
            break;
    }
    gvis_refine_interp(disp, right, label, guide, tmp, W, H, min_disp);
    memcpy(disp, tmp, sizeof(int16_t) * n);
    gvis_sgm_fill(disp, W, H, GVIS_SGM_INVALID(min_disp));
    gvis_sgm_median(disp, tmp, W, H);
    memcpy(disp, tmp, sizeof(int16_t) * n);
    free(label);
    return GVIS_OK;
}
