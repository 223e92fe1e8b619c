/* A naive reference of lib/stereo/phase.h (rules 1-8) for the tests: a triple loop over
 * pixels, every disparity of the range and the window, written from the rule text
 * alone (no running maxima, no hints, no fast paths). */
#ifndef GVIS_PHASE_REF_H
#define GVIS_PHASE_REF_H

#include <math.h>
#include "phase.h"

static inline int ref_lit(float v, float V) { return v > V; }

/* view s = -1: left pixel x of A=left, B=right; s = +1: right pixel x of A=right, B=left */
static inline float ref_match(const float *A, const float *B, int W, const gvis_phase_params *p, int x, int s)
{
    const float V = p->valid_min, T = p->tol;
    if (!ref_lit(A[x], V))
        return NAN;
    const float ph = A[x];
    const int h = (p->window - 1) / 2;
    float best = INFINITY;
    int bx = -1;
    for (int d = p->min_disp; d <= p->min_disp + p->num_disp - 1; d++) {
        const int xb = x + s * d;
        if (xb < 0 || xb >= W || !ref_lit(B[xb], V))
            continue;
        const float e = B[xb] - ph;
        if (!(e >= -T && e <= T))
            continue;
        float sum = 0.0f;
        int n = 0;
        for (int j = -h; j <= h; j++) {
            if (x + j < 0 || x + j >= W || xb + j < 0 || xb + j >= W)
                continue;
            if (!ref_lit(A[x + j], V) || !ref_lit(B[xb + j], V))
                continue;
            sum += fabsf(A[x + j] - B[xb + j]);
            n++;
        }
        const float c = sum / (float)n;
        if (c < best) {
            best = c;
            bx = xb;
        }
    }
    if (bx < 0)
        return NAN;
    float off = 0.0f;
    if (p->subpixel) {
        const float r0 = B[bx], e = ph - r0;
        if (e >= 0.0f) {
            if (bx + 1 < W && ref_lit(B[bx + 1], V) && B[bx + 1] > r0)
                off = fminf(1.0f, e / (B[bx + 1] - r0));
        } else if (bx - 1 >= 0 && ref_lit(B[bx - 1], V) && B[bx - 1] < r0) {
            off = -fminf(1.0f, -e / (r0 - B[bx - 1]));
        }
    }
    return s < 0 ? (float)(x - bx) - off : (float)(bx - x) + off;
}

/* The map of one view over the region (tight). */
static inline void ref_phase(const float *L, const float *R, size_t pitch, int W, int H, const gvis_phase_params *p,
                      int right_view, float *out)
{
    const int x0 = p->have_roi ? p->roi[0] : 0, y0 = p->have_roi ? p->roi[1] : 0;
    const int x1 = p->have_roi ? p->roi[2] : W, y1 = p->have_roi ? p->roi[3] : H;
    const int s = right_view ? 1 : -1;
    for (int y = y0; y < y1; y++) {
        const float *l = L + (size_t)y * pitch, *r = R + (size_t)y * pitch;
        const float *own = right_view ? r : l, *oth = right_view ? l : r;
        for (int x = x0; x < x1; x++) {
            float v = ref_match(own, oth, W, p, x, s);
            if (p->lr_check >= 0 && !isnan(v)) {
                const int xo = x + s * (int)floorf(v + 0.5f);
                if (xo < 0 || xo >= W)
                    v = NAN;
                else {
                    const float w = ref_match(oth, own, W, p, xo, -s);
                    if (isnan(w) || fabsf(v - w) > (float)p->lr_check)
                        v = NAN;
                }
            }
            out[(size_t)(y - y0) * (x1 - x0) + (x - x0)] = v;
        }
    }
}

/* A random phase pair: left strictly increasing along each row with unlit pixels
 * (probability holes), right = left shifted by a smooth disparity field plus noise
 * (noise 0: right's lit phases still increase strictly); monotone 0 gives jumbled
 * phases (a full scan's test). */
static inline void ref_make_pair(float *L, float *R, size_t pitch, int W, int H, int dmin, int drange, double holes,
                          double noise, int monotone, double (*uniform)(void))
{
    for (int y = 0; y < H; y++) {
        float *l = L + (size_t)y * pitch, *r = R + (size_t)y * pitch;
        double acc = 1.0 + uniform();
        const double slope = 0.05 + 0.3 * uniform();
        for (int x = 0; x < W; x++) {
            acc += slope * (0.5 + uniform());
            l[x] = monotone ? (float)acc : (float)(1.0 + 20.0 * uniform());
        }
        const double dd = dmin + drange * uniform();
        for (int x = 0; x < W; x++) {
            /* right(x) = left(x + d), interpolated */
            const double xs = x + dd + 0.3 * sin(0.05 * x + y);
            const int xi = (int)floor(xs);
            if (xi < 0 || xi + 1 >= W) {
                r[x] = 0.0f;
                continue;
            }
            const double u = xs - xi;
            r[x] = monotone ? (float)(l[xi] + u * (l[xi + 1] - l[xi]) + noise * (uniform() - 0.5))
                            : (float)(1.0 + 20.0 * uniform());
        }
        for (int x = 0; x < W; x++) {
            if (uniform() < holes)
                l[x] = 0.0f;
            if (uniform() < holes)
                r[x] = 0.0f;
        }
    }
}

#endif
