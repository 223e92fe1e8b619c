/* The ad-census cost stage (cuda/stereo/sgm/sgm_cost_adcensus.cu) against the CPU's cost rows
 * (lib/stereo/cost_adcensus.c) and the rule, exactly, on random censuses and grey images
 * of awkward sizes: 1x1, odd widths, 631x479, D not a multiple of 32, min-disp of every
 * sign, both census kinds.  Exits 77 (skipped) without a usable GPU. */
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
#include "sgm_cuda.h"
#include "cuda_testlib.h"

static void check(int W, int H, int D, int M, int census)
{
    const size_t n = (size_t)W * H, cells = n * D;
    uint64_t *cl = malloc(n * 8), *cr = malloc(n * 8);
    uint8_t *gl = malloc(n), *gr = malloc(n), *cpu = malloc(cells), *gpu = malloc(cells);
    const uint64_t mask = census == GVIS_CENSUS_9X7 ? (1ull << 62) - 1 : (1ull << 31) - 1;
    for (size_t i = 0; i < n; i++) {
        cl[i] = t_rand() & mask;
        gl[i] = (uint8_t)t_rand();
    }
    /* the right view: mostly the left shifted by 3 with small changes, so that low costs occur */
    for (size_t i = 0; i < n; i++) {
        const size_t s = i + 3 < n ? i + 3 : i;
        cr[i] = t_rand() % 3 ? cl[s] ^ (1ull << (t_rand() % 31)) : t_rand() & mask;
        gr[i] = (uint8_t)(t_rand() % 3 ? gl[s] + t_rand() % 9 - 4 : t_rand());
    }
    uint8_t lc[64], la[64], luts[128];
    gvis_sgm_cost_luts(census, lc, la);
    memcpy(luts, lc, 64);
    memcpy(luts + 64, la, 64);
    uint8_t *scratch = malloc(gvis_sgm_cost_row_scratch(W, D));
    for (int y = 0; y < H; y++) {
        const size_t r = (size_t)y * W;
        gvis_sgm_cost_row_adcensus(cl + r, cr + r, gl + r, gr + r, W, D, M, census, lc, la, cpu + r * D, scratch);
    }
    /* the rule itself at a sample of cells */
    size_t badref = 0;
    for (size_t i = 0; i < cells; i += 1 + cells / 5000) {
        const size_t pix = i / D;
        const int k = (int)(i % D), x = (int)(pix % W), y = (int)(pix / W);
        int xr = x - M - k;
        xr = xr < 0 ? 0 : xr >= W ? W - 1 : xr;
        badref += cpu[i] != gvis_sgm_cost_adcensus_ref(cl[pix], cr[(size_t)y * W + xr], gl[pix], gr[(size_t)y * W + xr],
                                                      lc, la);
    }
    CHECKF(badref == 0, "%dx%d D %d M %d census %d: CPU rows differ from the rule at %zu cells", W, H, D, M, census,
           badref);
    uint64_t *d_cl = dev(0, n * 8), *d_cr = dev(1, n * 8);
    uint8_t *d_gl = dev(2, n), *d_gr = dev(3, n), *d_cost = dev(4, cells);
    up(d_cl, cl, n * 8);
    up(d_cr, cr, n * 8);
    up(d_gl, gl, n);
    up(d_gr, gr, n);
    CHECK(gvis_cu_sgm_cost_adcensus(d_cl, d_cr, d_gl, d_gr, W, H, D, M, luts, d_cost, gvis_cu_job_stream(job)) == 0);
    CHECK(gvis_cu_download2d(job, gpu, cells, d_cost, cells, cells, 1) == 0);
    CHECK(gvis_cu_sync(job) == 0);
    size_t bad = 0;
    for (size_t i = 0; i < cells; i++)
        bad += cpu[i] != gpu[i];
    CHECKF(bad == 0, "%dx%d D %d M %d census %d: %zu of %zu costs differ between CPU and CUDA", W, H, D, M, census, bad,
           cells);
    free(cl), free(cr), free(gl), free(gr), free(cpu), free(gpu), free(scratch);
}

/* R of step 3 on the device: every byte through the table, odd lengths. */
static void check_remap(size_t n)
{
    uint8_t lut[256], *h = malloc(n ? n : 1), *g = malloc(n ? n : 1);
    for (int i = 0; i < 256; i++)
        lut[i] = (uint8_t)t_rand();
    for (size_t i = 0; i < n; i++)
        h[i] = (uint8_t)t_rand();
    uint8_t *d = dev(5, n);
    up(d, h, n);
    CHECK(gvis_cu_sgm_remap_u8(d, n, lut, gvis_cu_job_stream(job)) == 0);
    CHECK(gvis_cu_download2d(job, g, n ? n : 1, d, n ? n : 1, n, 1) == 0);
    CHECK(gvis_cu_sync(job) == 0);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += g[i] != lut[h[i]];
    CHECKF(bad == 0, "remap of %zu bytes: %zu differ", n, bad);
    free(h), free(g);
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    job = gpu->job;
    t_seed(19);
    const int sizes[][2] = {{1, 1}, {1, 7}, {17, 1}, {33, 5}, {101, 13}, {631, 479}};
    const int Ds[] = {16, 48, 64, 128};
    const int Ms[] = {0, -16, 5};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t di = 0; di < sizeof Ds / sizeof Ds[0]; di++)
            for (int census = 0; census < 2; census++)
                check(sizes[s][0], sizes[s][1], Ds[di], Ms[(s + di + census) % 3], census);
    check(37, 11, 512, 5, 1); /* a thread-block's width of threads for one pixel */
    check(300, 3, 512, -7, 0);
    const size_t lens[] = {1, 255, 631 * 479, 4096 * 256 * 3 + 7};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++)
        check_remap(lens[i]);
    gvis_ctx_free(gpu);
    return t_done("test_cuda_sgm_cost");
}
#endif
