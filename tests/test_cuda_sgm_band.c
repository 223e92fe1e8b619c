/* The sum volume of the SGM paths walked in bands (cuda/stereo/sgm_path_band.cu) against
 * the naive paths summed on the CPU, at the edges: every band height from 1 to past H (a
 * sample on taller images), so that bands divide H or not, H smaller than a band, H = 1 and
 * W = 1, and the diagonals' lines cross band edges, enter through the side inside a band
 * and leave through it; then the whole pipeline on the sum volume against the CPU, in
 * bands and whole.  Exits 77 (skipped) without a usable GPU. */
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
#include "sgm_cuda_testlib.h"

static void *stream;

/* Heights 1 .. H + 1: all of them on small images, a sample on taller ones. */
static int next_height(int h, int H)
{
    return h + (H <= 12 ? 1 : h < 4 ? 1 : h < H - 2 ? (H + 5) / 6 : 1);
}

static void check_edges(int W, int H, int D, int paths, int cost, int census)
{
    gvis_sgm_params p;
    gvis_sgm_defaults(&p);
    p.max_disp = D;
    p.min_disp = -3;
    p.paths = paths;
    p.cost = cost;
    p.census = census;
    const int stride = GVIS_SGM_SUM_STRIDE(D);
    const size_t n = (size_t)W * H, bytes = n * stride * 2;
    gvis_image L, R;
    t_make(&L, W, H, 1, GVIS_U8, 1, 0);
    t_make(&R, W, H, 1, GVIS_U8, 1, 0);
    uint64_t *cl = malloc(n * 8), *cr = malloc(n * 8);
    uint8_t *gl = malloc(n), *gr = malloc(n), *lr = malloc(n * D), luts[128];
    uint16_t *ref = calloc(n * D, 2), *vol = malloc(bytes);
    gvis_sgm_census(L.data, L.stride, 1, W, H, census, cl);
    gvis_sgm_census(R.data, R.stride, 1, W, H, census, cr);
    gvis_sgm_guide(&L, gl);
    gvis_sgm_guide(&R, gr);
    gvis_sgm_cost_luts(census, luts, luts + 64);
    for (int dir = 0; dir < paths; dir++) {
        gvis_sgm_path_ref(cl, cr, gl, gl, gr, W, H, &p, dir, lr);
        for (size_t i = 0; i < n * D; i++)
            ref[i] = (uint16_t)(ref[i] + lr[i]);
    }
    uint64_t *d_cl = dev(1, n * 8), *d_cr = dev(2, n * 8);
    uint8_t *d_gl = dev(3, n), *d_gr = dev(10, n);
    uint16_t *d_vol = dev(11, bytes);
    const size_t sbytes = gvis_cu_sgm_band_state_bytes(W, H, stride);
    uint32_t *d_state = dev(12, sbytes);
    up(d_cl, cl, n * 8);
    up(d_cr, cr, n * 8);
    up(d_gl, gl, n);
    up(d_gr, gr, n);
    const uint8_t *tab = cost == GVIS_COST_ADCENSUS ? luts : NULL;
    if (tab && census == GVIS_CENSUS_SYM) /* the path kernels read the right guide from the codes */
        CHECK(gvis_cu_sgm_pack_guide(d_cr, d_gr, n, stream) == 0);
    for (int h = 1; h <= H + 1; h = next_height(h, H)) {
        /* garbage in the volume and the line states first */
        CHECK(gvis_cu_memset(job, d_vol, 0xa7, bytes) == 0 && gvis_cu_memset(job, d_state, 0x5c, sbytes) == 0);
        setenv("GVIS_SGM_LANES", h % 2 ? "32" : "8", 1);
        CHECK(gvis_cu_sgm_path_sum_band(d_cl, d_cr, d_gl, d_gr, tab, W, H, D, p.min_disp, census, p.p1, p.p2,
                                        p.p2_adapt, paths, h, d_vol, stride, d_state, stream) == 0);
        unsetenv("GVIS_SGM_LANES");
        down(vol, d_vol, bytes);
        size_t bad = sum_diff(vol, stride, n, D, ref, NULL);
        CHECKF(bad == 0, "band edges %dx%d D %d paths %d %s: bands of %d rows: %zu of %zu values differ", W, H, D,
               paths, cost == GVIS_COST_ADCENSUS ? "ad-census" : "census", h, bad, n * stride);
    }
    free(cl), free(cr), free(gl), free(gr), free(lr), free(ref), free(vol);
    gvis_image_free(&L);
    gvis_image_free(&R);
}

/* The pipeline on the sum volume (the 4K policy) against the CPU with GVIS_SGM_BAND=band:
 * D 128 and 64, min-disp 0 and -16, 8 and 4 paths, both costs and censuses, both lane
 * layouts. */
static void check_sum_pipelines(gvis_ctx *cpu, gvis_ctx *gpu, const char *band)
{
    setenv("GVIS_SGM_BAND", band, 1);
    for (int variant = 0; variant < 4; variant++) {
        gvis_sgm_params p;
        gvis_sgm_defaults(&p);
        p.max_disp = variant % 2 ? 64 : 128;
        p.min_disp = variant == 2 ? -16 : 0;
        p.paths = variant == 3 ? 4 : 8;
        p.cost = variant == 1 ? GVIS_COST_CENSUS : GVIS_COST_ADCENSUS;
        p.census = variant == 2 ? GVIS_CENSUS_9X7 : GVIS_CENSUS_SYM;
        setenv("GVIS_SGM_LANES", variant % 2 ? "32" : "8", 1);
        check_pipeline(cpu, gpu, 203 + variant, 97 - 2 * variant, 1, GVIS_U8, &p);
        unsetenv("GVIS_SGM_LANES");
    }
    unsetenv("GVIS_SGM_BAND");
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    gvis_ctx *cpu = t_cpu_ctx();
    job = gpu->job;
    stream = gvis_cu_job_stream(job);
    progress("start");
    t_seed(67);

    const int edges[][2] = {{1, 37}, {40, 1}, {29, 2}, {17, 53}, {131, 9}, {70, 33}};
    const size_t ne = sizeof edges / sizeof edges[0];
    for (size_t e = 0; e < ne; e++) {
        check_edges(edges[e][0], edges[e][1], e % 2 ? 16 : 48, e == 3 ? 4 : 8,
                    e % 3 == 1 ? GVIS_COST_CENSUS : GVIS_COST_ADCENSUS, (int)(e % 2));
        check_edges(edges[e][0], edges[e][1], e < 3 ? 80 : 144, 8, GVIS_COST_ADCENSUS, (int)(e + 1) % 2);
    }
    check_edges(9, 14, 512, 8, GVIS_COST_CENSUS, GVIS_CENSUS_SYM);
    progress("band edges done");

    /* the pipeline on the sum volume: bands of 5 rows, one band, whole */
    setenv("GVIS_SGM_PER_PATH", "0", 1);
    check_sum_pipelines(cpu, gpu, "5");
    check_sum_pipelines(cpu, gpu, "1000");
    check_sum_pipelines(cpu, gpu, "0");
    unsetenv("GVIS_SGM_PER_PATH");
    progress("pipelines done");

    gvis_ctx_free(gpu);
    gvis_ctx_free(cpu);
    return t_done("test_cuda_sgm_band");
}
#endif
