/* The AD-Census quality stages on the CPU against naive references written from the
 * rules at the top of lib/stereo/cross_aggregate.c and lib/stereo/refine.c: arms, cross
 * aggregation (one and two passes), region voting; random data of awkward sizes; and the
 * quality pipeline on a shifted pair. */
#include <stdlib.h>
#include <string.h>

#include "sgm.h"
#include "testlib.h"

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A grey image of flat patches with noise, so that arms have every length. */
static void make_guide(uint8_t *g, int W, int H)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int patch = ((x / 9) * 7 + (y / 6) * 13) % 5;
            g[(size_t)y * W + x] = (uint8_t)clampi(40 * patch + (int)(t_rand() % 7) - 3 + (t_rand() % 50 == 0 ? 60 : 0), 0, 255);
        }
}

static int arm_ref(const uint8_t *g, int W, int H, int x, int y, int dx, int dy)
{
    const int c = g[(size_t)y * W + x];
    int len = 0;
    for (int i = 1; i <= 34; i++) {
        int qx = x + i * dx, qy = y + i * dy;
        if (qx < 0 || qx >= W || qy < 0 || qy >= H)
            break;
        int v = g[(size_t)qy * W + qx], pv = g[(size_t)(qy - dy) * W + qx - dx];
        if (abs(v - c) >= 10 || abs(v - pv) >= 10 || (i > 17 && abs(v - c) >= 4))
            break;
        len = i;
    }
    return len;
}

/* One pass by the rule: sums over the union of the first direction's segments along the
 * second direction's arm, rounded mean. */
static void pass_ref(const uint8_t *in, uint8_t *out, const uint8_t *arms, int W, int H, int D, int vf)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const size_t p = (size_t)y * W + x;
            const int s0 = vf ? arms[p * 4] : arms[p * 4 + 2], s1 = vf ? arms[p * 4 + 1] : arms[p * 4 + 3];
            for (int k = 0; k < D; k++) {
                uint64_t sum = 0, n = 0;
                for (int i = -s0; i <= s1; i++) {
                    const int qx = vf ? x + i : x, qy = vf ? y : y + i;
                    const size_t q = (size_t)qy * W + qx;
                    const int f0 = vf ? arms[q * 4 + 2] : arms[q * 4], f1 = vf ? arms[q * 4 + 3] : arms[q * 4 + 1];
                    for (int j = -f0; j <= f1; j++) {
                        const size_t r = vf ? (size_t)(qy + j) * W + qx : (size_t)qy * W + qx + j;
                        sum += in[r * D + k];
                        n++;
                    }
                }
                out[p * D + k] = (uint8_t)((sum + n / 2) / n);
            }
        }
}

static void test_cross(void)
{
    const int sizes[][2] = {{1, 1}, {17, 5}, {5, 17}, {63, 41}, {80, 3}};
    const int Ds[] = {16, 48};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t di = 0; di < 2; di++) {
            const int W = sizes[s][0], H = sizes[s][1], D = Ds[di];
            const size_t n = (size_t)W * H;
            uint8_t *g = malloc(n), *arms = malloc(n * 4), *c = malloc(n * D), *a = malloc(n * D), *r1 = malloc(n * D),
                    *r2 = malloc(n * D);
            make_guide(g, W, H);
            gvis_cross_arms(g, W, H, arms);
            size_t bad = 0;
            static const int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++)
                    for (int q = 0; q < 4; q++)
                        bad += arms[((size_t)y * W + x) * 4 + q] != arm_ref(g, W, H, x, y, dx[q], dy[q]);
            CHECKF(bad == 0, "arms %dx%d: %zu differ", W, H, bad);
            for (size_t i = 0; i < n * D; i++)
                c[i] = (uint8_t)(t_rand() % 71);
            for (int passes = 1; passes <= 2; passes++) {
                memcpy(a, c, n * D);
                CHECK_OK(gvis_cross_aggregate(a, arms, W, H, D, passes));
                pass_ref(c, r1, arms, W, H, D, 0);
                if (passes == 2)
                    pass_ref(r1, r2, arms, W, H, D, 1);
                const uint8_t *want = passes == 2 ? r2 : r1;
                bad = 0;
                for (size_t i = 0; i < n * D; i++)
                    bad += a[i] != want[i];
                CHECKF(bad == 0, "cross aggregation %dx%d D %d, %d passes: %zu of %zu differ", W, H, D, passes, bad,
                       n * D);
            }
            free(g), free(arms), free(c), free(a), free(r1), free(r2);
        }
}

static int round16_ref(int v) { return v + 8 >= 0 ? (v + 8) / 16 : -((-(v + 8) + 15) / 16); }

/* 2: the right view puts a nearer surface (or the image's edge) where p at disparity d
 * would be seen; 1: it does not know; 0: it sees that surface itself. */
static int hidden_ref(const int16_t *right, int W, int y, int x, int d, int inval)
{
    if (x - d < 0 || x - d >= W)
        return 2;
    const int w = right[(size_t)y * W + x - d];
    if (w == inval)
        return 1;
    return round16_ref(w) > d ? 2 : 0;
}

/* The rule of lib/stereo/refine.c, naively: classes, voting rounds, interpolation, then the
 * library's fill and median (tested in test_sgm). */
static void refine_ref(int16_t *d, const int16_t *right, const uint8_t *g, const uint8_t *arms, int W, int H, int M,
                       int D)
{
    const int16_t inval = GVIS_SGM_INVALID(M);
    const size_t n = (size_t)W * H;
    int16_t *next = malloc(n * 2), *tmp = malloc(n * 2);
    uint8_t *label = malloc(n);
    int *hist = calloc((size_t)D, sizeof(int));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const size_t p = (size_t)y * W + x;
            label[p] = d[p] != inval;
            if (label[p])
                continue;
            int mism = 0;
            for (int dd = M; right && dd < M + D; dd++)
                if (x - dd >= 0 && x - dd < W && right[(size_t)y * W + x - dd] != inval &&
                    round16_ref(right[(size_t)y * W + x - dd]) == dd)
                    mism = 1;
            label[p] = mism ? 3 : 2; /* 1 valid, 2 occluded, 3 mismatched */
        }
    for (int round = 0, changed = 1; round < 64 && changed; round++) {
        changed = 0;
        memcpy(next, d, n * 2);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                const size_t p = (size_t)y * W + x;
                if (d[p] != inval)
                    continue;
                memset(hist, 0, sizeof(int) * (size_t)D);
                int total = 0;
                for (int qy = y - arms[p * 4 + 2]; qy <= y + arms[p * 4 + 3]; qy++) {
                    const size_t q = (size_t)qy * W + x;
                    for (int qx = x - arms[q * 4]; qx <= x + arms[q * 4 + 1]; qx++) {
                        const int v = d[(size_t)qy * W + qx];
                        if (v == inval)
                            continue;
                        int k = round16_ref(v) - M;
                        if (k < 0 || k >= D)
                            continue;
                        const int w = right && label[p] == 2 ? hidden_ref(right, W, y, x, k + M, inval) : 2;
                        hist[k] += w;
                        total += w;
                    }
                }
                int best = 0;
                for (int k = 1; k < D; k++)
                    if (hist[k] > hist[best])
                        best = k;
                if (total > 40 && hist[best] * 10 > total * 4) {
                    next[p] = (int16_t)(16 * (best + M));
                    changed = 1;
                }
            }
        memcpy(d, next, n * 2);
    }
    memcpy(next, d, n * 2);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const size_t p = (size_t)y * W + x;
            if (d[p] != inval)
                continue;
            if (label[p] == 3) {
                int best = inval, bestd = 1000;
                for (int k = 0; k < 16; k++) {
                    const int dx = gvis_refine_dirs[k][0], dy = gvis_refine_dirs[k][1];
                    for (int s = 1;; s++) {
                        const int qx = x + s * dx, qy = y + s * dy;
                        if (qx < 0 || qx >= W || qy < 0 || qy >= H)
                            break;
                        const size_t q = (size_t)qy * W + qx;
                        if (d[q] == inval)
                            continue;
                        if (abs(g[q] - g[p]) < bestd)
                            bestd = abs(g[q] - g[p]), best = d[q];
                        break;
                    }
                }
                next[p] = (int16_t)best;
            } else {
                int l = x - 1, r = x + 1;
                while (l >= 0 && d[(size_t)y * W + l] == inval)
                    l--;
                while (r < W && d[(size_t)y * W + r] == inval)
                    r++;
                int v = inval;
                if (l >= 0)
                    v = d[(size_t)y * W + l];
                if (r < W && (v == inval || d[(size_t)y * W + r] < v))
                    v = d[(size_t)y * W + r];
                if (right && l >= 0 && r < W) {
                    const int a = d[(size_t)y * W + l], b = d[(size_t)y * W + r];
                    const int ha = hidden_ref(right, W, y, x, round16_ref(a), inval) == 2;
                    const int hb = hidden_ref(right, W, y, x, round16_ref(b), inval) == 2;
                    if (ha && !hb)
                        v = a;
                    if (hb && !ha)
                        v = b;
                }
                next[p] = (int16_t)v;
            }
        }
    memcpy(d, next, n * 2);
    gvis_sgm_fill(d, W, H, inval);
    gvis_sgm_median(d, tmp, W, H);
    memcpy(d, tmp, n * 2);
    free(next), free(tmp), free(hist), free(label);
}

static void test_refine(void)
{
    const int sizes[][2] = {{1, 1}, {19, 7}, {64, 45}, {131, 33}};
    const int Ms[] = {0, -8, 5};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t mi = 0; mi < 3; mi++)
            for (int with_right = 0; with_right < 2; with_right++) {
                const int W = sizes[s][0], H = sizes[s][1], M = Ms[mi], D = 32;
                const size_t n = (size_t)W * H;
                uint8_t *g = malloc(n), *arms = malloc(n * 4);
                int16_t *a = malloc(n * 2), *b = malloc(n * 2), *tmp = malloc(n * 2), *r = malloc(n * 2);
                make_guide(g, W, H);
                gvis_cross_arms(g, W, H, arms);
                for (size_t i = 0; i < n; i++) {
                    /* piecewise disparities with subpixel parts, a third invalid */
                    int k = (int)(g[i] / 40) * 5 % D;
                    a[i] = t_rand() % 3 == 0 ? GVIS_SGM_INVALID(M) : (int16_t)(16 * (M + k) + (int)(t_rand() % 15) - 7);
                    r[i] = t_rand() % 4 == 0 ? GVIS_SGM_INVALID(M) : (int16_t)(16 * (M + (int)(t_rand() % D)) + (int)(t_rand() % 15) - 7);
                }
                memcpy(b, a, n * 2);
                CHECK_OK(gvis_refine(a, with_right ? r : NULL, tmp, arms, g, W, H, M, D));
                refine_ref(b, with_right ? r : NULL, g, arms, W, H, M, D);
                size_t bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += a[i] != b[i];
                CHECKF(bad == 0, "refine %dx%d M %d right %d: %zu of %zu differ", W, H, M, with_right, bad, n);
                free(g), free(arms), free(a), free(b), free(tmp), free(r);
            }
}

/* The quality pipeline on a pair whose right view is the left shifted by 4: dense and right. */
static void test_pipeline(gvis_ctx *ctx)
{
    const int W = 96, H = 40;
    gvis_image L, R;
    CHECK_OK(gvis_image_alloc(&L, W, H, 1, GVIS_U8, 0));
    CHECK_OK(gvis_image_alloc(&R, W, H, 1, GVIS_U8, 0));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            ((uint8_t *)GVIS_ROW(&L, y))[x] = (uint8_t)(t_rand() % 256);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            ((uint8_t *)GVIS_ROW(&R, y))[x] = ((uint8_t *)GVIS_ROW(&L, y))[x + 4 < W ? x + 4 : W - 1];
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    p.max_disp = 16;
    p.aggregate = GVIS_AGGREGATE_CROSS;
    p.refine = 1;
    gvis_disp d;
    CHECK_OK(gvis_sgm(ctx, &L, &R, &p, &d, NULL));
    size_t good = 0, invalid = 0;
    for (int y = 0; y < H; y++)
        for (int x = 8; x < W - 8; x++) {
            good += abs(d.data[(size_t)y * W + x] - 64) <= 8;
            invalid += d.data[(size_t)y * W + x] == GVIS_SGM_INVALID(0);
        }
    CHECKF(invalid == 0, "quality pipeline left %zu pixels invalid", invalid);
    CHECKF(good * 100 >= (size_t)(W - 16) * H * 95, "quality pipeline: %zu of %d within half a pixel", good,
           (W - 16) * H);
    gvis_disp_free(&d);
    p.aggregate = 7;
    CHECK(gvis_sgm_check(&p, W, H) == GVIS_E_ARG);
    gvis_image_free(&L);
    gvis_image_free(&R);
}

int main(void)
{
    gvis_ctx *ctx = t_cpu_ctx();
    t_seed(1911);
    test_cross();
    test_refine();
    test_pipeline(ctx);
    gvis_ctx_free(ctx);
    return t_done("test_sgm_quality");
}
