/* CUDA histogram and equalization against the CPU: identical counts and pixels on random,
 * smooth, near-constant and constant images of awkward sizes, every channel mode, 16-bit
 * bins and ranges.  Exits 77 (skipped) without a usable GPU. */
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "testlib.h"

static void compare(gvis_ctx *cpu, gvis_ctx *gpu, const gvis_image *img, const gvis_hist_params *p, const char *what)
{
    gvis_hist a, b;
    int ra = gvis_hist_compute(cpu, img, p, &a), rb = gvis_hist_compute(gpu, img, p, &b);
    CHECKF(ra == GVIS_OK && rb == GVIS_OK, "%s: %s", what, gvis_errmsg());
    if (ra || rb)
        return;
    size_t n = (size_t)a.channels * a.bins;
    CHECKF(b.channels == a.channels && b.bins == a.bins && memcmp(a.counts, b.counts, n * sizeof *a.counts) == 0,
           "%s %dx%dx%d channel %d bins %d: CPU and CUDA differ", what, img->width, img->height, img->channels,
           p->channel, p->bins);
    gvis_hist_free(&a);
    gvis_hist_free(&b);
}

static void compare_eq(gvis_ctx *cpu, gvis_ctx *gpu, const gvis_image *img, int per_channel)
{
    gvis_image a, b;
    int ra = gvis_equalize(cpu, img, per_channel, &a), rb = gvis_equalize(gpu, img, per_channel, &b);
    CHECKF(ra == GVIS_OK && rb == GVIS_OK, "equalize: %s", gvis_errmsg());
    if (ra || rb)
        return;
    CHECKF(t_equal(&a, &b), "equalize %dx%dx%d per_channel %d: CPU and CUDA differ (max %g)", img->width, img->height,
           img->channels, per_channel, t_maxdiff(&a, &b));
    gvis_image_free(&a);
    gvis_image_free(&b);
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    gvis_ctx *cpu = t_cpu_ctx();
    t_seed(3);
    const int sizes[][2] = {{1, 1}, {1, 777}, {777, 1}, {15, 17}, {17, 15}, {631, 479}, {3840, 2160}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 1; c <= 4; c++) {
            if (c == 2)
                continue;
            int big = sizes[s][0] * sizes[s][1] > 1000000;
            if (big && t_quick())
                continue;
            for (int kind = 0; kind < 4; kind++) {
                if (big && c > 1 && kind > 1)
                    continue;
                gvis_image img;
                t_make(&img, sizes[s][0], sizes[s][1], c, GVIS_U8, kind, s % 2 ? 64 : 0);
                gvis_hist_params p;
                gvis_hist_defaults(&img, &p);
                compare(cpu, gpu, &img, &p, "u8");
                p.channel = c - 1;
                compare(cpu, gpu, &img, &p, "u8 one channel");
                p.bins = 7, p.lo = 13, p.hi = 250, p.channel = -1;
                compare(cpu, gpu, &img, &p, "u8 7 bins 13:250");
                compare_eq(cpu, gpu, &img, 0);
                if (c > 1)
                    compare_eq(cpu, gpu, &img, 1);
                gvis_image_free(&img);
                if (big && kind > 0)
                    continue;
                t_make(&img, sizes[s][0], sizes[s][1], c, GVIS_U16, kind, s % 2 ? 64 : 0);
                gvis_hist_defaults(&img, &p);
                compare(cpu, gpu, &img, &p, "u16");
                p.bins = 1000, p.lo = 1000, p.hi = 60001;
                compare(cpu, gpu, &img, &p, "u16 bins range");
                p.bins = 65536, p.lo = 0, p.hi = 65536, p.channel = 0;
                compare(cpu, gpu, &img, &p, "u16 65536 bins (global atomics)");
                p.bins = 7, p.lo = 32768, p.hi = 32790, p.channel = -1;
                compare(cpu, gpu, &img, &p, "u16 narrow");
                gvis_image_free(&img);
            }
        }
    /* Threads carry their row and column along a grid-stride walk: a grid of one or
     * seven blocks makes each thread take many steps, with and without a carry into the
     * next row, for every kernel (gray, colour, one channel, 16-bit). */
    static const char *blocks[] = {"1", "7"};
    const int gsizes[][2] = {{1, 1}, {1, 777}, {631, 479}, {4001, 3}, {3840, 2160}};
    for (int e = 0; e < 2; e++) {
        setenv("GVIS_HIST_BLOCKS", blocks[e], 1);
        for (int s = 0; s < 5; s++)
            for (int c = 1; c <= 3; c += 2) {
                if (s == 4 && (t_quick() || c > 1))
                    continue;
                for (int kind = 0; kind < 4; kind++) {
                    gvis_image img;
                    char what[64];
                    snprintf(what, sizeof what, "u8 GVIS_HIST_BLOCKS=%s", blocks[e]);
                    t_make(&img, gsizes[s][0], gsizes[s][1], c, GVIS_U8, kind, s % 2 ? 64 : 0);
                    gvis_hist_params p;
                    gvis_hist_defaults(&img, &p);
                    compare(cpu, gpu, &img, &p, what);
                    p.channel = c - 1;
                    compare(cpu, gpu, &img, &p, what);
                    compare_eq(cpu, gpu, &img, 0);
                    gvis_image_free(&img);
                    t_make(&img, gsizes[s][0], gsizes[s][1], c, GVIS_U16, kind, s % 2 ? 64 : 0);
                    gvis_hist_defaults(&img, &p);
                    p.bins = 1000, p.lo = 1000, p.hi = 60001;
                    snprintf(what, sizeof what, "u16 GVIS_HIST_BLOCKS=%s", blocks[e]);
                    compare(cpu, gpu, &img, &p, what);
                    gvis_image_free(&img);
                }
            }
        unsetenv("GVIS_HIST_BLOCKS");
    }
    /* 8-bit colour counts a byte's channel from its place in an item (16 bytes; 48 with 3
     * channels): 3 and 4 channels, every channel alone, row ends inside an item, the
     * default grid and one of 7 blocks walking many items. */
    const int csizes[][2] = {{1, 1}, {5, 3}, {1, 777}, {631, 479}, {4001, 3}, {17, 15}};
    for (int e = 0; e < 2; e++) {
        if (e)
            setenv("GVIS_HIST_BLOCKS", "7", 1);
        for (int s = 0; s < 6; s++)
            for (int c = 3; c <= 4; c++)
                for (int kind = 0; kind < 4; kind++) {
                    gvis_image img;
                    t_make(&img, csizes[s][0], csizes[s][1], c, GVIS_U8, kind, s % 2 ? 64 : 0);
                    gvis_hist_params p;
                    gvis_hist_defaults(&img, &p);
                    compare(cpu, gpu, &img, &p, e ? "u8 colour, 7 blocks" : "u8 colour");
                    for (p.channel = 0; p.channel < c; p.channel++)
                        compare(cpu, gpu, &img, &p, e ? "u8 colour one channel, 7 blocks" : "u8 colour one channel");
                    gvis_image_free(&img);
                }
        unsetenv("GVIS_HIST_BLOCKS");
    }
    gvis_ctx_free(gpu);
    gvis_ctx_free(cpu);
    return t_done("test_cuda_hist");
}
