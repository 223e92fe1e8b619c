/* --aggregate cross: cross-based cost aggregation (Mei et al. 2011, after Zhang et al. 2009),
 * CPU.  The rule (integer, so that a device port can match it exactly):
 *
 * Arms.  From pixel p along each of the four directions, the arm takes q = p + i r for
 * i = 1, 2, ... while q is inside the image, i <= L1 (34), |G(q) - G(p)| < T1 (10) and
 * |G(q) - G(q - r)| < T1, and, for i > L2 (17), |G(q) - G(p)| < T2 (4); G = the left
 * view's 8-bit guide.  The arm length is the last i taken (0: none).
 *
 * One pass (horizontal first): H(p, k) = sum of C(q, k) over q on p's row from
 * p - left(p) to p + right(p), n(p) = left + right + 1; then for every pixel, S(p, k) =
 * sum of H(q, k), N(p) = sum of n(q), over q on p's column from p - up(p) to p + down(p),
 * and the result is floor((S + N / 2) / N).  The second pass does the same with the roles
 * of rows and columns swapped (vertical first), on the first pass's result; Mei et al.
 * alternate the two orders for four passes, two suffice here (measured: notes-sgm). */
#include <stdlib.h>
#include <string.h>
#include "sgm.h"

/* Mei et al.'s lengths; their colour thresholds (20, 6: the largest channel difference)
 * halved for 8-bit grey, whose differences are smaller: measured on the Middlebury and
 * synthetic scenes against 20/6 and 7/3 (docs/notes-sgm.md). */
#define L1 34
#define L2 17
#define T1 10
#define T2 4

static int absi(int v) { return v < 0 ? -v : v; }

void gvis_cross_arms(const uint8_t *g, int W, int H, uint8_t *arms)
{
    static const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int c = g[(size_t)y * W + x];
            for (int a = 0; a < 4; a++) {
                int i = 1, prev = c;
                for (; i <= L1; i++) {
                    const int qx = x + i * dx[a], qy = y + i * dy[a];
                    if (qx < 0 || qx >= W || qy < 0 || qy >= H)
                        break;
                    const int v = g[(size_t)qy * W + qx], d = absi(v - c);
                    if (d >= T1 || absi(v - prev) >= T1 || (i > L2 && d >= T2))
                        break;
                    prev = v;
                }
                arms[((size_t)y * W + x) * 4 + a] = (uint8_t)(i - 1);
            }
        }
}

typedef struct {
    uint8_t *cost; /* in and out, W x H x D */
    const uint8_t *arms;
    int W, H, D, vertical_first;
    uint32_t *sum;  /* W x H x D: first-direction sums */
    uint32_t *cnt;  /* W x H */
    int failed;
} pass_job;

/* Along lines of direction 1 (rows, or columns when vertical_first), window sums by prefix
 * sums: line i of this task's share. */
static void first_task(void *arg, int index, int count)
{
    pass_job *j = arg;
    const int W = j->W, H = j->H, D = j->D, vf = j->vertical_first;
    const int lines = vf ? W : H, len = vf ? H : W;
    const int a0 = vf ? 2 : 0, a1 = vf ? 3 : 1; /* arms towards the line's start and end */
    size_t l0, l1;
    gvis_split((size_t)lines, index, count, &l0, &l1);
    uint32_t *pre = malloc(sizeof(uint32_t) * (size_t)(len + 1) * D);
    if (!pre) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (size_t l = l0; l < l1; l++) {
        memset(pre, 0, sizeof(uint32_t) * D);
        for (int i = 0; i < len; i++) {
            const size_t pix = vf ? (size_t)i * W + l : l * W + (size_t)i;
            const uint8_t *c = j->cost + pix * D;
            const uint32_t *pp = pre + (size_t)i * D;
            uint32_t *pn = pre + (size_t)(i + 1) * D;
            for (int k = 0; k < D; k++)
                pn[k] = pp[k] + c[k];
        }
        for (int i = 0; i < len; i++) {
            const size_t pix = vf ? (size_t)i * W + l : l * W + (size_t)i;
            const int lo = i - j->arms[pix * 4 + a0], hi = i + j->arms[pix * 4 + a1];
            const uint32_t *a = pre + (size_t)lo * D, *b = pre + (size_t)(hi + 1) * D;
            uint32_t *s = j->sum + pix * D;
            for (int k = 0; k < D; k++)
                s[k] = b[k] - a[k];
            j->cnt[pix] = (uint32_t)(hi - lo + 1);
        }
    }
    free(pre);
}

/* Along the other direction: sums of the first sums over each pixel's arm, normalised. */
static void second_task(void *arg, int index, int count)
{
    pass_job *j = arg;
    const int W = j->W, H = j->H, D = j->D, vf = j->vertical_first;
    const int lines = vf ? H : W, len = vf ? W : H;
    const int a0 = vf ? 0 : 2, a1 = vf ? 1 : 3;
    size_t l0, l1;
    gvis_split((size_t)lines, index, count, &l0, &l1);
    uint64_t *pre = malloc(sizeof(uint64_t) * (size_t)(len + 1) * (D + 1));
    if (!pre) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    const size_t st = (size_t)D + 1; /* D sums and the count */
    for (size_t l = l0; l < l1; l++) {
        memset(pre, 0, sizeof(uint64_t) * st);
        for (int i = 0; i < len; i++) {
            const size_t pix = vf ? l * W + (size_t)i : (size_t)i * W + l;
            const uint32_t *s = j->sum + pix * D;
            const uint64_t *pp = pre + (size_t)i * st;
            uint64_t *pn = pre + (size_t)(i + 1) * st;
            for (int k = 0; k < D; k++)
                pn[k] = pp[k] + s[k];
            pn[D] = pp[D] + j->cnt[pix];
        }
        for (int i = 0; i < len; i++) {
            const size_t pix = vf ? l * W + (size_t)i : (size_t)i * W + l;
            const int lo = i - j->arms[pix * 4 + a0], hi = i + j->arms[pix * 4 + a1];
            const uint64_t *a = pre + (size_t)lo * st, *b = pre + (size_t)(hi + 1) * st;
            const uint64_t n = b[D] - a[D];
            uint8_t *o = j->cost + pix * D;
            for (int k = 0; k < D; k++)
                o[k] = (uint8_t)((b[k] - a[k] + n / 2) / n);
        }
    }
    free(pre);
}

int gvis_cross_aggregate(uint8_t *cost, const uint8_t *arms, int W, int H, int D, int passes)
{
    const size_t n = (size_t)W * H;
    pass_job j = {cost, arms, W, H, D, 0, NULL, NULL, 0};
    j.sum = malloc(sizeof(uint32_t) * n * D);
    j.cnt = malloc(sizeof(uint32_t) * n);
    if (!j.sum || !j.cnt) {
        free(j.sum);
        free(j.cnt);
        return gvis_error(GVIS_E_NOMEM, "out of memory for cross aggregation of %dx%dx%d", W, H, D);
    }
    const int tasks = gvis_threads() * 2;
    for (int p = 0; p < passes; p++) {
        j.vertical_first = p & 1;
        gvis_parallel(tasks, first_task, &j);
        if (!j.failed)
            gvis_parallel(tasks, second_task, &j);
    }
    free(j.sum);
    free(j.cnt);
    if (j.failed)
        return gvis_error(GVIS_E_NOMEM, "out of memory for cross aggregation of %dx%dx%d", W, H, D);
    return GVIS_OK;
}
