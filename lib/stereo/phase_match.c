/* Phase matching on the CPU (lib/stereo/phase.h rules 1-8): rows over the worker
 * threads; per row the lit rows (unlit = -inf), their running maxima for the ordered
 * search, and per pixel the candidates, the window costs and the sub-pixel position. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phase.h"

typedef struct {
    const float *own, *other; /* lit rows: unlit = -inf */
    const float *smax;        /* other's running maximum within its runs (ordered search) */
    const int *rstart;        /* the start of the run holding each position */
    int W, M, D, h, ordered, subpixel;
    float T;
} row_ctx;

static inline float window_cost(const float *A, const float *B, int W, int x, int xb, int h)
{
    if (h == 1 && x >= 1 && x + 1 < W && xb >= 1 && xb + 1 < W) {
        /* the common case, the same sum in the same order: 0 + t0 is t0 exactly */
        const float a0 = A[x - 1], a1 = A[x], a2 = A[x + 1], b0 = B[xb - 1], b1 = B[xb], b2 = B[xb + 1];
        if (a0 != -INFINITY && a2 != -INFINITY && b0 != -INFINITY && b2 != -INFINITY && a1 != -INFINITY &&
            b1 != -INFINITY)
            return (fabsf(a0 - b0) + fabsf(a1 - b1) + fabsf(a2 - b2)) / 3.0f;
    }
    float s = 0.0f;
    int n = 0;
    for (int j = -h; j <= h; j++) {
        const int xa = x + j, xc = xb + j;
        if (xa < 0 || xa >= W || xc < 0 || xc >= W)
            continue;
        const float a = A[xa], b = B[xc];
        if (a == -INFINITY || b == -INFINITY)
            continue;
        s += fabsf(a - b);
        n++;
    }
    return s / (float)n;
}

/* The first k in [lo, hi + 1) with fl(S(k) - p) >= -T (S nondecreasing), starting
 * from a guess: a few steps either way, else a binary search. */
static inline int first_at_least(const float *S, int lo, int hi, float p, float T, int guess)
{
    int k = guess < lo ? lo : guess > hi + 1 ? hi + 1 : guess;
    int steps = 0;
    if (k > hi || S[k] - p >= -T) { /* the answer is at or before k (hi + 1 stands for "none") */
        while (k > lo && S[k - 1] - p >= -T && steps++ < 8)
            k--;
        if (!(k > lo && S[k - 1] - p >= -T))
            return k;
        int a = lo, b = k; /* the answer is in [a, b) */
        while (a < b) {
            int m = a + (b - a) / 2;
            if (S[m] - p >= -T)
                b = m;
            else
                a = m + 1;
        }
        return a;
    }
    while (k <= hi && !(S[k] - p >= -T) && steps++ < 8)
        k++;
    if (k > hi || S[k] - p >= -T)
        return k;
    int a = k, b = hi + 1;
    while (a < b) {
        int m = a + (b - a) / 2;
        if (S[m] - p >= -T)
            b = m;
        else
            a = m + 1;
    }
    return a;
}

/* Rules 1-6 for pixel x of the own row; s = -1: left view (match x - d), +1: right view
 * (match x + d).  *hint carries the ordered search's position from pixel to pixel. */
static float match_px(const row_ctx *r, int x, int s, int *hint)
{
    const float *A = r->own, *B = r->other;
    const int W = r->W, M = r->M, D = r->D;
    const float p = A[x], T = r->T;
    if (p == -INFINITY)
        return NAN;
    int lo = s < 0 ? x - (M + D - 1) : x + M, hi = s < 0 ? x - M : x + M + D - 1;
    if (lo < 0)
        lo = 0;
    if (hi > W - 1)
        hi = W - 1;
    if (lo > hi)
        return NAN;
    float best = INFINITY;
    int bx = -1, bd = 0;
    /* A candidate's cost is at least fl(|e| / window): its sum holds |e| and adds only
     * terms >= 0, and the divisor is at most the window.  A candidate whose bound
     * exceeds the best cost cannot win nor tie, so its window is not summed.  Ties go
     * to the smaller d whatever the order of the visits. */
    const float nmax = (float)(2 * r->h + 1);
#define VISIT(k)                                                                                   \
    do {                                                                                           \
        const float e_ = B[k] - p;                                                                 \
        if (e_ >= -T && e_ <= T && !(fabsf(e_) / nmax > best)) {                                   \
            const float c_ = window_cost(A, B, W, x, (k), r->h);                                   \
            const int d_ = s < 0 ? x - (k) : (k) - x;                                              \
            if (c_ < best || (c_ == best && d_ < bd)) {                                            \
                best = c_;                                                                         \
                bx = (k);                                                                          \
                bd = d_;                                                                           \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    if (r->ordered) {
        /* the runs of the row (rule 5) from the right end of the range leftwards; in each
         * the lit phases do not fall, so the candidates form one stretch */
        const float *S = r->smax;
        for (int re = hi; re >= lo;) {
            const int rs = r->rstart[re], a = rs > lo ? rs : lo;
            if (S[re] - p >= -T) {
                const int kf = first_at_least(S, a, re, p, T, re == hi ? *hint : a);
                if (re == hi)
                    *hint = kf;
                /* the candidates lie in [kf, kend); the ones either side of where the
                 * phase crosses p go first, so that the bound prunes most of the others */
                int kc = kf;
                while (kc <= re && S[kc] - p < 0.0f && !(S[kc] - p > T))
                    kc++;
                int kend = kc;
                while (kend <= re && !(S[kend] - p > T))
                    kend++;
                if (kc < kend)
                    VISIT(kc);
                if (kc - 1 >= kf)
                    VISIT(kc - 1);
                for (int k = kf; k < kend; k++)
                    if (k != kc && k != kc - 1)
                        VISIT(k);
            }
            re = rs - 1;
        }
    } else {
        /* every d from M up: xb = x + s d */
        const int d0 = s < 0 ? x - hi : lo - x, d1 = s < 0 ? x - lo : hi - x;
        for (int d = d0; d <= d1; d++) {
            const int xb = x + s * d;
            VISIT(xb);
        }
    }
#undef VISIT
    if (bx < 0)
        return NAN;
    float off = 0.0f;
    if (r->subpixel) {
        const float r0 = B[bx], e = p - r0;
        if (e >= 0.0f) {
            if (bx + 1 < W && B[bx + 1] != -INFINITY && B[bx + 1] > r0) {
                float t = e / (B[bx + 1] - r0);
                off = t > 1.0f ? 1.0f : t;
            }
        } else if (bx - 1 >= 0 && B[bx - 1] != -INFINITY && B[bx - 1] < r0) {
            float t = -e / (r0 - B[bx - 1]);
            off = -(t > 1.0f ? 1.0f : t);
        }
    }
    return s < 0 ? (float)(x - bx) - off : (float)(bx - x) + off;
}

typedef struct {
    const float *a, *b;
    size_t pitch;
    int width, height;
    const gvis_phase_params *p;
    int right_view;
    float *out;
    float *scratch; /* 6 rows per task (4 float, 2 int) */
} match_job;

/* The lit row (unlit = -inf), its runs (a run starts at a lit pixel whose phase is
 * below the previous lit one's) and the running maximum within each run. */
static void lit_row(const float *src, int W, float V, float *dst, float *smax, int *rstart)
{
    float m = -INFINITY, last = -INFINITY;
    int rs = 0;
    for (int x = 0; x < W; x++) {
        const float v = src[x] > V ? src[x] : -INFINITY;
        dst[x] = v;
        if (v != -INFINITY) {
            if (v < last) {
                rs = x;
                m = -INFINITY;
            }
            last = v;
            m = v > m ? v : m;
        }
        smax[x] = m;
        rstart[x] = rs;
    }
}

static void match_task(void *arg, int index, int count)
{
    const match_job *j = arg;
    const gvis_phase_params *p = j->p;
    const int W = j->width;
    int x0 = 0, y0 = 0, x1 = W, y1 = j->height;
    if (p->have_roi)
        x0 = p->roi[0], y0 = p->roi[1], x1 = p->roi[2], y1 = p->roi[3];
    size_t r0, r1;
    gvis_split((size_t)(y1 - y0), index, count, &r0, &r1);
    if (r0 == r1)
        return;
    float *buf = j->scratch + (size_t)index * 6 * (size_t)W;
    float *la = buf, *ra = buf + W, *sl = buf + 2 * W, *sr = buf + 3 * W;
    int *rsl = (int *)(buf + 4 * W), *rsr = (int *)(buf + 5 * W);
    row_ctx L = {la, ra, sr, rsr, W, p->min_disp, p->num_disp, (p->window - 1) / 2,
                 p->search == GVIS_PHASE_ORDERED, p->subpixel, p->tol};
    row_ctx R = {ra, la, sl, rsl, W, p->min_disp, p->num_disp, (p->window - 1) / 2,
                 p->search == GVIS_PHASE_ORDERED, p->subpixel, p->tol};
    const row_ctx *own = j->right_view ? &R : &L, *oth = j->right_view ? &L : &R;
    const int s = j->right_view ? 1 : -1;
    for (size_t r = r0; r < r1; r++) {
        const size_t y = (size_t)y0 + r;
        lit_row(j->a + y * j->pitch, W, p->valid_min, la, sl, rsl);
        lit_row(j->b + y * j->pitch, W, p->valid_min, ra, sr, rsr);
        float *o = j->out + r * (size_t)(x1 - x0);
        int hint = 0, hint2 = 0;
        for (int x = x0; x < x1; x++) {
            float v = match_px(own, x, s, &hint);
            if (p->lr_check >= 0 && !isnan(v)) {
                const int xo = x + s * (int)floorf(v + 0.5f);
                if (xo < 0 || xo >= W) {
                    v = NAN;
                } else {
                    const float w = match_px(oth, xo, -s, &hint2);
                    if (isnan(w) || fabsf(v - w) > (float)p->lr_check)
                        v = NAN;
                }
            }
            o[x - x0] = v;
        }
    }
}

int gvis_phase_match_cpu(const float *a, const float *b, size_t pitch, int width, int height,
                         const gvis_phase_params *p, int right_view, float *out)
{
    const int rows = p->have_roi ? p->roi[3] - p->roi[1] : height;
    int tasks = gvis_threads() * 4;
    if (tasks > rows)
        tasks = rows;
    float *scratch = malloc(sizeof(float) * 6 * (size_t)width * (size_t)tasks);
    if (!scratch)
        return gvis_error(GVIS_E_NOMEM, "out of memory for phase matching rows");
    match_job j = {a, b, pitch, width, height, p, right_view, out, scratch};
    gvis_parallel(tasks, match_task, &j);
    free(scratch);
    return GVIS_OK;
}
