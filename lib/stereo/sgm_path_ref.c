/* The naive reference of one SGM path direction (lib/stereo/sgm.h step 4), written from
 * the rule for the tests and the CUDA parity checks. */
#include <stdlib.h>
#include "sgm.h"

void gvis_sgm_path_ref(const uint64_t *cl, const uint64_t *cr, const uint8_t *guide, const uint8_t *ad_l,
                       const uint8_t *ad_r, int width, int height, const gvis_sgm_params *prm, int dir, uint8_t *lr)
{
    const int D = prm->max_disp, p1 = prm->p1;
    /* the ad-census tables once (gvis_sgm_cost_ref builds them at every call: 64 exp() a
     * cost, which made test_cuda_sgm's references take minutes) */
    uint8_t lc[64], la[64];
    const int adc = prm->cost == GVIS_COST_ADCENSUS;
    if (adc)
        gvis_sgm_cost_luts(prm->census, lc, la);
    const int rx = gvis_sgm_dirs[dir][0], ry = gvis_sgm_dirs[dir][1];
    /* Visit pixels so that p - r is always done before p. */
    const int ys = ry >= 0 ? 0 : height - 1, ye = ry >= 0 ? height : -1, yst = ry >= 0 ? 1 : -1;
    const int xs = rx >= 0 ? 0 : width - 1, xe = rx >= 0 ? width : -1, xst = rx >= 0 ? 1 : -1;
    for (int y = ys; y != ye; y += yst)
        for (int x = xs; x != xe; x += xst) {
            uint8_t *o = lr + ((size_t)y * width + x) * D;
            const int px = x - rx, py = y - ry;
            const int has_prev = px >= 0 && px < width && py >= 0 && py < height;
            const uint8_t *p = has_prev ? lr + ((size_t)py * width + px) * D : NULL;
            int m = 1 << 30, p2 = prm->p2;
            if (has_prev && prm->p2_adapt > 0) {
                int di = abs(guide[(size_t)y * width + x] - guide[(size_t)py * width + px]);
                p2 = prm->p2 * prm->p2_adapt / (prm->p2_adapt + di);
                if (p2 < p1)
                    p2 = p1;
            }
            if (has_prev)
                for (int k = 0; k < D; k++)
                    if (p[k] < m)
                        m = p[k];
            for (int k = 0; k < D; k++) {
                int xr = x - prm->min_disp - k;
                xr = xr < 0 ? 0 : xr >= width ? width - 1 : xr;
                const size_t li = (size_t)y * width + x, ri = (size_t)y * width + xr;
                int c = adc ? gvis_sgm_cost_adcensus_ref(cl[li], cr[ri], ad_l[li], ad_r[ri], lc, la)
                            : __builtin_popcountll(cl[li] ^ cr[ri]);
                int v = c;
                if (has_prev) {
                    int t = p[k] - m;
                    if (k > 0 && p[k - 1] - m + p1 < t)
                        t = p[k - 1] - m + p1;
                    if (k + 1 < D && p[k + 1] - m + p1 < t)
                        t = p[k + 1] - m + p1;
                    if (p2 < t)
                        t = p2;
                    v = c + t;
                }
                o[k] = (uint8_t)v;
            }
        }
}
