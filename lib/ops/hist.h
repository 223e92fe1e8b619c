/* Histograms, histogram equalization and the histogram plot. */
#ifndef GVIS_HIST_H
#define GVIS_HIST_H

#include "gvis.h"

typedef struct {
    int channel;     /* -1: every channel; else only this one */
    int bins;        /* 1..65536 (default 256) */
    uint32_t lo, hi; /* counted values [lo, hi), hi <= 256 for 8-bit: bin = (v - lo) * bins / (hi - lo) */
} gvis_hist_params;

typedef struct {
    int channels;     /* number of histograms */
    int bins;
    uint32_t lo, hi;
    uint64_t *counts; /* counts[c * bins + b] */
} gvis_hist;

/* Default parameters for an image: 8-bit 256 bins over 0:256, 16-bit 256 bins over 0:65536. */
void gvis_hist_defaults(const gvis_image *img, gvis_hist_params *p);
/* Histogram of an 8- or 16-bit image on the context's device. */
int gvis_hist_compute(gvis_ctx *ctx, const gvis_image *img, const gvis_hist_params *p, gvis_hist *out);
void gvis_hist_free(gvis_hist *h);

/* OpenCV's equalizeHist mapping for a 256-bin histogram of total pixels. */
void gvis_equalize_lut(const uint32_t hist[256], uint32_t total, uint8_t lut[256]);
/* Equalization of an 8-bit image: gray directly; colour on luma (YCrCb, OpenCV's integer
 * conversion) or, with per_channel, each colour channel on its own (alpha is kept). */
int gvis_equalize(gvis_ctx *ctx, const gvis_image *in, int per_channel, gvis_image *out);
/* OpenCV's 8-bit RGB <-> YCrCb conversions (exposed for tests). */
void gvis_rgb_to_ycrcb(const uint8_t rgb[3], uint8_t ycrcb[3]);
void gvis_ycrcb_to_rgb(const uint8_t ycrcb[3], uint8_t rgb[3]);

/* A bar chart of h as an RGB image: one colour per channel (names label the legend,
 * NULL: "count" / r, g, b, a), axes with ticks and labels. */
int gvis_hist_plot(const gvis_hist *h, const char *const *names, int width, int height, gvis_image *out);

#endif
