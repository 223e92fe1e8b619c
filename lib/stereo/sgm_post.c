/* SGM steps 6 to 8: 3x3 median, left-right check, background fill, CPU. */
#include <string.h>
#include "sgm.h"

typedef struct {
    const int16_t *in;
    int16_t *out;
    int width, height;
} med_job;

#define SORT2(a, b) do { int16_t lo_ = a < b ? a : b; int16_t hi_ = a < b ? b : a; a = lo_; b = hi_; } while (0)

/* Median of nine by the 19-exchange network (Devillard's opt_med9), vectorized over x. */
__attribute__((target_clones("arch=x86-64-v3", "default")))
static void median_row(const int16_t *r0, const int16_t *r1, const int16_t *r2, int16_t *o, int n)
{
    for (int x = 0; x < n; x++) {
        int16_t p0 = r0[x], p1 = r0[x + 1], p2 = r0[x + 2];
        int16_t p3 = r1[x], p4 = r1[x + 1], p5 = r1[x + 2];
        int16_t p6 = r2[x], p7 = r2[x + 1], p8 = r2[x + 2];
        SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8); SORT2(p0, p1); SORT2(p3, p4); SORT2(p6, p7);
        SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8); SORT2(p0, p3); SORT2(p5, p8); SORT2(p4, p7);
        SORT2(p3, p6); SORT2(p1, p4); SORT2(p2, p5); SORT2(p4, p7); SORT2(p4, p2); SORT2(p6, p4);
        SORT2(p4, p2);
        o[x] = p4;
    }
}

static void median_task(void *arg, int index, int count)
{
    med_job *j = arg;
    const int W = j->width, H = j->height;
    size_t y0, y1;
    gvis_split((size_t)H, index, count, &y0, &y1);
    for (size_t y = y0; y < y1; y++) {
        const int16_t *src = j->in + y * W;
        int16_t *dst = j->out + y * W;
        if (y == 0 || (int)y == H - 1 || W < 3) {
            memcpy(dst, src, sizeof(int16_t) * (size_t)W);
            continue;
        }
        dst[0] = src[0];
        dst[W - 1] = src[W - 1];
        median_row(src - W, src, src + W, dst + 1, W - 2);
    }
}

void gvis_sgm_median(const int16_t *in, int16_t *out, int width, int height)
{
    med_job j = {in, out, width, height};
    int tasks = gvis_threads() * 2;
    gvis_parallel(tasks < height ? tasks : height, median_task, &j);
}

/* floor((v + 8) / 16): the nearest whole disparity of a x16 value. */
static int round16(int v)
{
    v += 8;
    return v >= 0 ? v / 16 : -((-v + 15) / 16);
}

typedef struct {
    const int16_t *left, *right;
    int16_t *left_out, *right_out;
    int width, height, min_disp, tolerance;
} lr_job;

static void lrcheck_task(void *arg, int index, int count)
{
    lr_job *j = arg;
    const int width = j->width;
    const int16_t inv = GVIS_SGM_INVALID(j->min_disp);
    const int tol = 16 * j->tolerance;
    size_t y0, y1;
    gvis_split((size_t)j->height, index, count, &y0, &y1);
    for (size_t y = y0; y < y1; y++) {
        const int16_t *l = j->left + y * width, *r = j->right + y * width;
        int16_t *lo = j->left_out + y * width;
        int16_t *ro = j->right_out ? j->right_out + y * width : NULL;
        for (int x = 0; x < width; x++) {
            int v = l[x], keep = 0;
            if (v != inv) {
                int xr = x - round16(v);
                if (xr >= 0 && xr < width && r[xr] != inv) {
                    int dv = v - r[xr];
                    keep = (dv < 0 ? -dv : dv) <= tol;
                }
            }
            lo[x] = keep ? (int16_t)v : inv;
            if (ro) {
                int w = r[x];
                keep = 0;
                if (w != inv) {
                    int xl = x + round16(w);
                    if (xl >= 0 && xl < width && l[xl] != inv) {
                        int dv = w - l[xl];
                        keep = (dv < 0 ? -dv : dv) <= tol;
                    }
                }
                ro[x] = keep ? (int16_t)w : inv;
            }
        }
    }
}

void gvis_sgm_lrcheck(const int16_t *left, const int16_t *right, int16_t *left_out, int16_t *right_out,
                      int width, int height, int min_disp, int tolerance)
{
    lr_job j = {left, right, left_out, right_out, width, height, min_disp, tolerance};
    int tasks = gvis_threads() * 2;
    gvis_parallel(tasks < height ? tasks : height, lrcheck_task, &j);
}

void gvis_sgm_fill(int16_t *disp, int width, int height, int16_t invalid)
{
    for (int y = 0; y < height; y++) {
        int16_t *r = disp + (size_t)y * width;
        int x = 0;
        while (x < width) {
            if (r[x] != invalid) {
                x++;
                continue;
            }
            int a = x;
            while (x < width && r[x] == invalid)
                x++;
            /* run [a, x) */
            int has_l = a > 0, has_r = x < width;
            if (!has_l && !has_r)
                continue;
            int16_t v = !has_l ? r[x] : !has_r ? r[a - 1] : (r[a - 1] < r[x] ? r[a - 1] : r[x]);
            for (int i = a; i < x; i++)
                r[i] = v;
        }
    }
}
