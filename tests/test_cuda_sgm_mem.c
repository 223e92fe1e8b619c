/* Device memory of SGM on CUDA at 3840x2160 (issue 18): with the paths added into one
 * u16 sum volume, D = 128 must take at most 2.8 GiB (the per-path u8 volumes took 8.3),
 * and D = 256 and D = 512 must run.  Measured with cudaMemGetInfo before and after each
 * call (the job keeps its buffers, so "after" holds everything the call allocated);
 * also checked against gvis_sgm_cuda_bytes, the figure -v prints.  The maps must be
 * right (a random pair shifted by 7 pixels) and identical to the per-path pipeline's
 * (GVIS_SGM_PER_PATH=1).  Exits 77 (skipped) without a usable GPU and under
 * GVIS_TEST_QUICK. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sgm.h"
#include "testlib.h"

#ifndef GVIS_HAVE_CUDA
int main(void)
{
    printf("skipped: built without CUDA\n");
    return 77;
}
#else
#define W 3840
#define H 2160
#define SHIFT 7
#define GIB (1024.0 * 1024.0 * 1024.0)

static gvis_cu_job *job;

static size_t free_bytes(void)
{
    size_t f = 0, t = 0;
    CHECK(gvis_cu_sync(job) == 0);
    CHECK(gvis_cu_mem_info(job, &f, &t) == 0);
    return f;
}

static size_t before; /* free bytes after the warm-up call */
static size_t strips_held; /* the largest strip volumes a call has allocated (they stay) */

/* One call at D; returns the device bytes in use since the warm-up (the job's buffers
 * only grow, and every buffer of a larger D is at least as large, so this is what
 * the call at D holds). */
static size_t run(gvis_ctx *gpu, const gvis_image *L, const gvis_image *R, int D, gvis_disp *out, gvis_disp *out_r)
{
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    p.max_disp = D;
    double t0 = gvis_now_ms();
    int rc = gvis_sgm(gpu, L, R, &p, out, out_r);
    CHECKF(rc == GVIS_OK, "%dx%d D %d: %s", W, H, D, gvis_errmsg());
    const size_t after = free_bytes();
    const size_t used = before > after ? before - after : 0;
    const size_t want = gvis_sgm_cuda_bytes(W, H, &p, gvis_sgm_cuda_per_path(W, H, &p));
    printf("%dx%d D %d%s: %.3f GiB in use (gvis_sgm_cuda_bytes %.3f GiB), %.0f ms\n", W, H, D,
           gvis_sgm_cuda_per_path(W, H, &p) ? " per path" : "", used / GIB, want / GIB, gvis_now_ms() - t0);
    /* the reported figure is what the call allocates: within 64 MiB (pitch, the
     * allocator's granules) above, and not far below; the upward pass's strip volumes of
     * an earlier call stay allocated where this call has smaller ones or none */
    const size_t strips = gvis_sgm_cuda_per_path(W, H, &p) ? 0 : gvis_sgm_cuda_strip_bytes(W, H, &p);
    strips_held = strips > strips_held ? strips : strips_held;
    CHECKF(used <= want - strips + strips_held + ((size_t)64 << 20), "D %d: %zu bytes in use, %zu reported", D, used,
           want);
    CHECKF(used >= want / 2, "D %d: only %zu bytes in use, %zu reported: a stale measurement?", D, used, want);
    if (rc == GVIS_OK) {
        /* the true disparity is SHIFT everywhere the match is inside the image */
        size_t good = 0, n = 0;
        for (int y = 0; y < H; y++)
            for (int x = SHIFT + 8; x < W - 8; x++, n++)
                good += abs(out->data[(size_t)y * W + x] - 16 * SHIFT) <= 8;
        CHECKF(good > n * 9 / 10, "D %d: only %zu of %zu pixels at disparity %d", D, good, n, SHIFT);
    }
    return used;
}

/* The maps of a call with the environment's `name` set to `value` against want, wantr. */
static void same_maps(gvis_ctx *gpu, const gvis_image *L, const gvis_image *R, const gvis_sgm_params *p,
                      const char *name, const char *value, const gvis_disp *want, const gvis_disp *wantr)
{
    gvis_disp d, dr;
    setenv(name, value, 1);
    CHECK_OK(gvis_sgm(gpu, L, R, p, &d, &dr));
    CHECKF(memcmp(d.data, want->data, (size_t)W * H * 2) == 0 && memcmp(dr.data, wantr->data, (size_t)W * H * 2) == 0,
           "D %d with %s=%s: the maps differ from the default's", p->max_disp, name, value);
    gvis_disp_free(&d), gvis_disp_free(&dr);
    unsetenv(name);
}

int main(void)
{
    if (getenv("GVIS_TEST_QUICK")) {
        /* under compute-sanitizer: 4K volumes would take many minutes; test_cuda_sgm
         * covers the same kernels on smaller images */
        printf("skipped: GVIS_TEST_QUICK (4K volumes)\n");
        return 77;
    }
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    job = gpu->job;
    t_seed(18);
    gvis_image L, R, wide;
    t_make(&wide, W + SHIFT, H, 1, GVIS_U8, 1, 0);
    t_make(&L, W, H, 1, GVIS_U8, 0, 0);
    t_make(&R, W, H, 1, GVIS_U8, 0, 0);
    for (int y = 0; y < H; y++) {
        const uint8_t *s = GVIS_ROW(&wide, y);
        memcpy(GVIS_ROW(&L, y), s, W);
        memcpy(GVIS_ROW(&R, y), s + SHIFT, W); /* R(x) = L(x + SHIFT): disparity SHIFT */
    }
    unsetenv("GVIS_SGM_PER_PATH");
    /* a small call first: context, kernels and the job's buffers exist before measuring */
    {
        gvis_image l, r;
        t_make(&l, 64, 32, 1, GVIS_U8, 1, 0);
        t_make(&r, 64, 32, 1, GVIS_U8, 1, 0);
        gvis_sgm_params p;
        gvis_sgm_defaults(&p);
        p.max_disp = 16;
        gvis_disp a, b;
        CHECK_OK(gvis_sgm(gpu, &l, &r, &p, &a, &b));
        gvis_disp_free(&a), gvis_disp_free(&b);
        gvis_image_free(&l), gvis_image_free(&r);
    }
    before = free_bytes();
    gvis_disp d128, d128r, d, dr;
    const size_t used = run(gpu, &L, &R, 128, &d128, &d128r);
    CHECKF(used <= (size_t)(2.8 * GIB), "3840x2160 D 128: %.3f GiB of device memory, goal at most 2.8", used / GIB);
    for (int D = 256; D <= 512; D *= 2) {
        run(gpu, &L, &R, D, &d, &dr);
        gvis_disp_free(&d), gvis_disp_free(&dr);
    }
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    /* (the default: the rows and both vertical passes fused at once, in bands' stead) the two
     * fused passes in turn, the upward strips with the winner fused, the downward pass in
     * strips too, the sum in bands and the sum walked whole give the same maps */
    same_maps(gpu, &L, &R, &p, "GVIS_SGM_UPDOWN", "0", &d128, &d128r);
    same_maps(gpu, &L, &R, &p, "GVIS_SGM_UP", "0", &d128, &d128r);
    same_maps(gpu, &L, &R, &p, "GVIS_SGM_STRIP_DOWN", "1", &d128, &d128r);
    same_maps(gpu, &L, &R, &p, "GVIS_SGM_STRIPS", "0", &d128, &d128r);
    same_maps(gpu, &L, &R, &p, "GVIS_SGM_BAND", "0", &d128, &d128r);
    /* the per-path pipeline (the old way) gives the same maps */
    setenv("GVIS_SGM_PER_PATH", "1", 1);
    if (gvis_sgm(gpu, &L, &R, &p, &d, &dr) == GVIS_OK) {
        const size_t n = (size_t)W * H;
        CHECKF(memcmp(d.data, d128.data, n * 2) == 0 && memcmp(dr.data, d128r.data, n * 2) == 0,
               "D 128: the sum volume's maps differ from the per-path volumes' maps");
        gvis_disp_free(&d), gvis_disp_free(&dr);
    } else {
        printf("per-path pipeline at 3840x2160 D 128: %s (not compared)\n", gvis_errmsg());
    }
    unsetenv("GVIS_SGM_PER_PATH");
    gvis_disp_free(&d128), gvis_disp_free(&d128r);
    gvis_image_free(&L), gvis_image_free(&R), gvis_image_free(&wide);
    gvis_ctx_free(gpu);
    return t_done("test_cuda_sgm_mem");
}
#endif
