/* CPU time per gvis_sgm() call on the Middlebury scenes (D = 64, defaults), the
 * load-independent figure of docs/notes-sgm.md; compare with OpenCV's SGBM_3WAY by
 * scripts/sgm_cpu_time_opencv.py.  Build and run from the repository root:
 *   cc -O2 -Ilib -Ibuild-sgm-cpu scripts/sgm_cpu_time.c build-sgm-cpu/libgvis.a -lm -lpthread \
 *      $(pkg-config --libs --static stb) -o /tmp/sgm_cpu_time && /tmp/sgm_cpu_time [STEREO_DIR]
 */
#include <stdio.h>
#include <time.h>

#include "sgm.h"

static double ms(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../shared/data/stereo";
    const char *scenes[4][2] = {{"tsukuba/im3.png", "tsukuba/im4.png"}, {"venus/im2.png", "venus/im6.png"},
                                {"teddy/im2.png", "teddy/im6.png"}, {"cones/im2.png", "cones/im6.png"}};
    gvis_ctx *ctx;
    if (gvis_ctx_create(&ctx, "cpu", 1, NULL, NULL, NULL)) {
        fprintf(stderr, "%s\n", gvis_errmsg());
        return 1;
    }
    for (int s = 0; s < 4; s++) {
        char a[512], b[512];
        snprintf(a, sizeof a, "%s/%s", dir, scenes[s][0]);
        snprintf(b, sizeof b, "%s/%s", dir, scenes[s][1]);
        gvis_image L, R;
        if (gvis_load(ctx, a, &L) || gvis_load(ctx, b, &R)) {
            fprintf(stderr, "%s\n", gvis_errmsg());
            return 1;
        }
        gvis_sgm_params p;
        gvis_sgm_defaults(&p);
        p.max_disp = 64;
        gvis_disp d;
        if (gvis_sgm(ctx, &L, &R, &p, &d, NULL)) { /* warm-up */
            fprintf(stderr, "%s\n", gvis_errmsg());
            return 1;
        }
        gvis_disp_free(&d);
        const int n = 30;
        double c0 = ms(CLOCK_PROCESS_CPUTIME_ID), w0 = ms(CLOCK_MONOTONIC);
        for (int i = 0; i < n; i++) {
            gvis_sgm(ctx, &L, &R, &p, &d, NULL);
            gvis_disp_free(&d);
        }
        printf("%-16s cpu %6.2f ms/call  wall %6.2f ms/call\n", scenes[s][0], (ms(CLOCK_PROCESS_CPUTIME_ID) - c0) / n,
               (ms(CLOCK_MONOTONIC) - w0) / n);
        gvis_image_free(&L);
        gvis_image_free(&R);
    }
    gvis_ctx_free(ctx);
    return 0;
}
