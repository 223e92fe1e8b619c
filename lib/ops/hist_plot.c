/* The histogram bar chart: white background, one translucent area and an outline per
 * channel, y axis with "nice" ticks (1, 2, 5 x 10^k), x axis ticks in sample values. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "hist.h"

static void blend(gvis_image *img, int x, int y, const uint8_t rgb[3], int alpha256)
{
    if (x < 0 || y < 0 || x >= img->width || y >= img->height)
        return;
    uint8_t *p = (uint8_t *)GVIS_ROW(img, y) + (size_t)x * 3;
    for (int c = 0; c < 3; c++)
        p[c] = (uint8_t)((p[c] * (256 - alpha256) + rgb[c] * alpha256) >> 8);
}

static double nice_step(double range, int target)
{
    double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void format_count(char *s, size_t n, double v)
{
    if (v >= 1e9)
        snprintf(s, n, "%gG", v / 1e9);
    else if (v >= 1e6)
        snprintf(s, n, "%gM", v / 1e6);
    else if (v >= 1e3)
        snprintf(s, n, "%gk", v / 1e3);
    else
        snprintf(s, n, "%g", v);
}

int gvis_hist_plot(const gvis_hist *h, const char *const *names, int width, int height, gvis_image *out)
{
    if (width < 200 || height < 120 || width > 16384 || height > 16384)
        return gvis_error(GVIS_E_ARG, "plot size %dx%d out of range (200x120 to 16384x16384)", width, height);
    int rc = gvis_image_alloc(out, width, height, 3, GVIS_U8, 0);
    if (rc)
        return rc;
    for (int y = 0; y < height; y++)
        memset(GVIS_ROW(out, y), 255, (size_t)width * 3);
    static const uint8_t black[3] = {0, 0, 0}, grid[3] = {225, 225, 225}, gray[3] = {90, 90, 90};
    static const uint8_t chan_rgb[4][3] = {{220, 40, 40}, {40, 170, 40}, {40, 80, 220}, {120, 120, 120}};
    const char *default_names[4] = {"r", "g", "b", "a"};
    int left = 64, right = 16, top = 28, bottom = 40;
    int pw = width - left - right, ph = height - top - bottom;
    uint64_t maxc = 1;
    for (size_t i = 0; i < (size_t)h->channels * h->bins; i++)
        if (h->counts[i] > maxc)
            maxc = h->counts[i];
    double step = nice_step((double)maxc, 5), ymax = ceil((double)maxc / step) * step;
    char label[64];
    /* y grid and labels */
    for (double v = 0; v <= ymax + step / 2; v += step) {
        int y = top + ph - (int)lround(v / ymax * ph);
        gvis_draw_line(out, left, y, left + pw, y, grid);
        gvis_draw_line(out, left - 4, y, left, y, black);
        format_count(label, sizeof label, v);
        gvis_draw_text(out, left - 7 - gvis_text_width(label, 1), y - 3, label, black, 1);
    }
    /* bars: each bin spans [x(b), x(b+1)) */
    for (int c = 0; c < h->channels; c++) {
        const uint8_t *col = h->channels == 1 ? gray : chan_rgb[c < 4 ? c : 3];
        int alpha = h->channels == 1 ? 256 : 110;
        for (int b = 0; b < h->bins; b++) {
            int x0 = left + (int)((int64_t)b * pw / h->bins), x1 = left + (int)((int64_t)(b + 1) * pw / h->bins);
            if (x1 == x0)
                x1 = x0 + 1;
            int bar = (int)lround((double)h->counts[(size_t)c * h->bins + b] / ymax * ph);
            for (int x = x0; x < x1; x++) {
                for (int y = top + ph - bar; y < top + ph; y++)
                    blend(out, x, y, col, alpha);
                if (h->channels > 1 && bar > 0)
                    blend(out, x, top + ph - bar, col, 256);
            }
        }
    }
    /* axes */
    gvis_draw_line(out, left, top, left, top + ph, black);
    gvis_draw_line(out, left, top + ph, left + pw, top + ph, black);
    /* x ticks in sample values over [lo, hi) */
    double span = (double)h->hi - h->lo, xs = nice_step(span, 8);
    for (double v = 0; v <= span + 1e-9; v += xs) {
        int x = left + (int)lround(v / span * pw);
        gvis_draw_line(out, x, top + ph, x, top + ph + 4, black);
        snprintf(label, sizeof label, "%.0f", h->lo + v);
        gvis_draw_text(out, x - gvis_text_width(label, 1) / 2, top + ph + 8, label, black, 1);
    }
    gvis_draw_text(out, left + pw / 2 - gvis_text_width("value", 1) / 2, top + ph + 24, "value", gray, 1);
    gvis_draw_text(out, 6, 8, "count", gray, 1);
    /* legend */
    int lx = left + pw - 8;
    for (int c = h->channels - 1; c >= 0; c--) {
        const char *nm = names && names[c] ? names[c] : h->channels == 1 ? "count" : default_names[c < 4 ? c : 3];
        lx -= gvis_text_width(nm, 1) + 20;
        gvis_draw_rect(out, lx, 9, lx + 9, 18, h->channels == 1 ? gray : chan_rgb[c < 4 ? c : 3], 1, 1);
        gvis_draw_text(out, lx + 13, 10, nm, black, 1);
    }
    return GVIS_OK;
}
