/* YOLO results after the decode: boxes mapped back through a letterbox's inverse
 * matrix and clipped, half and double tensors converted to float, detections drawn. */
#include "yolo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "internal.h"

static inline float fmax_(float a, float b) { return a > b ? a : b; }
static inline float fmin_(float a, float b) { return a < b ? a : b; }

/* ---- mapping back to the source image ------------------------------------------- */

void gvis_yolo_clip(gvis_yolo_det *det, int n, int width, int height)
{
    float w = (float)width, h = (float)height;
    for (int i = 0; i < n; i++) {
        gvis_yolo_det *d = &det[i];
        d->x1 = fmin_(fmax_(d->x1, 0.0f), w);
        d->x2 = fmin_(fmax_(d->x2, 0.0f), w);
        d->y1 = fmin_(fmax_(d->y1, 0.0f), h);
        d->y2 = fmin_(fmax_(d->y2, 0.0f), h);
    }
}

void gvis_yolo_map(gvis_yolo_det *det, int n, const double inv[6], int width, int height)
{
    for (int i = 0; i < n; i++) {
        gvis_yolo_det *d = &det[i];
        /* the matrix has pixel centres at integers (OpenCV's warpAffine), boxes have
         * pixel edges there (YOLO's): shift by half a pixel on both sides */
        double xs[2] = {d->x1 - 0.5, d->x2 - 0.5}, ys[2] = {d->y1 - 0.5, d->y2 - 0.5};
        double lx = INFINITY, ly = INFINITY, hx = -INFINITY, hy = -INFINITY;
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                double X = inv[0] * xs[a] + inv[1] * ys[b] + inv[2] + 0.5;
                double Y = inv[3] * xs[a] + inv[4] * ys[b] + inv[5] + 0.5;
                lx = X < lx ? X : lx;
                hx = X > hx ? X : hx;
                ly = Y < ly ? Y : ly;
                hy = Y > hy ? Y : hy;
            }
        d->x1 = (float)lx;
        d->y1 = (float)ly;
        d->x2 = (float)hx;
        d->y2 = (float)hy;
    }
    if (width > 0 && height > 0)
        gvis_yolo_clip(det, n, width, height);
}

/* ---- input conversion ------------------------------------------------------------ */

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, u;
    if (e == 0) {
        if (m == 0) {
            u = sign;
        } else { /* subnormal: normalise */
            e = 113;
            while (!(m & 1024)) {
                m <<= 1;
                e--;
            }
            u = sign | e << 23 | (m & 1023) << 13;
        }
    } else if (e == 31) {
        u = sign | 0x7f800000u | m << 13;
    } else {
        u = sign | (e + 112) << 23 | m << 13;
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

int gvis_yolo_to_f32(const gvis_array *a, float **out)
{
    *out = NULL;
    size_t n = a->nbytes / (a->dtype ? gvis_dtype_size(a->dtype) : 1);
    if (a->dtype != GVIS_DT_F32 && a->dtype != GVIS_DT_F16)
        return gvis_error(GVIS_E_FORMAT, "tensor dtype must be float32 or float16");
    float *f = malloc(n ? n * sizeof(float) : 1);
    if (!f)
        return gvis_error(GVIS_E_NOMEM, "out of memory for %zu values", n);
    if (a->dtype == GVIS_DT_F32) {
        memcpy(f, a->data, n * sizeof(float));
    } else {
        const uint16_t *h = a->data;
        for (size_t i = 0; i < n; i++)
            f[i] = half_to_float(h[i]);
    }
    *out = f;
    return GVIS_OK;
}

/* ---- drawing ---------------------------------------------------------------------- */

static uint8_t to_u8(const gvis_image *img, const void *row, size_t i)
{
    if (img->type == GVIS_U8)
        return ((const uint8_t *)row)[i];
    if (img->type == GVIS_U16)
        return (uint8_t)(((const uint16_t *)row)[i] >> 8);
    float v = ((const float *)row)[i];
    return (uint8_t)(v >= 1.0f ? 255 : v > 0.0f ? (int)(v * 255.0f + 0.5f) : 0);
}

void gvis_yolo_draw_sizes(int width, int height, int *line, int *text_scale)
{
    /* 0.3 % of the mean side, as Ultralytics' annotator draws: 2 pixels at 640x480, 6 at
     * 2560x1600; the font's pixels 0.6 of that (a tag 7 to 77 pixels high) */
    long lw = lround(0.0015 * ((double)width + height));
    if (lw < 1)
        lw = 1;
    if (lw > 200)
        lw = 200;
    long ts = lround(0.6 * (double)lw);
    *line = (int)lw;
    *text_scale = ts < 1 ? 1 : (int)ts;
}

int gvis_yolo_draw(const gvis_image *img, const gvis_yolo_det *det, int n, const char *const *labels, gvis_image *out)
{
    int ch = img->channels == 4 ? 4 : 3;
    int rc = gvis_image_alloc(out, img->width, img->height, ch, GVIS_U8, 0);
    if (rc)
        return rc;
    for (int y = 0; y < img->height; y++) {
        const void *src = GVIS_ROW(img, y);
        uint8_t *d = GVIS_ROW(out, y);
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < ch; c++)
                d[(size_t)x * ch + c] = to_u8(img, src, (size_t)x * img->channels + (img->channels == 1 ? 0 : c));
    }
    int thick, scale;
    gvis_yolo_draw_sizes(img->width, img->height, &thick, &scale);
    /* lowest score first, so that the best boxes and labels end on top */
    for (int i = n - 1; i >= 0; i--) {
        const gvis_yolo_det *d = &det[i];
        if (!(d->x2 >= d->x1 && d->y2 >= d->y1))
            continue;
        double lim = 4.0 * (img->width + img->height);
        int x0 = (int)floor(fmax(fmin(d->x1, lim), -lim)), y0 = (int)floor(fmax(fmin(d->y1, lim), -lim));
        int x1 = (int)floor(fmax(fmin(d->x2, lim), -lim)), y1 = (int)floor(fmax(fmin(d->y2, lim), -lim));
        uint8_t col[3];
        gvis_palette(d->cls, col);
        gvis_draw_rect(out, x0, y0, x1, y1, col, 0, thick);
        if (labels && labels[i] && labels[i][0]) {
            int tw = gvis_text_width(labels[i], scale) + 2 * scale, th = gvis_text_height(scale) + 2 * scale;
            int ly = y0 - th >= 0 ? y0 - th : y0; /* above the box, inside at the top edge */
            gvis_draw_rect(out, x0, ly, x0 + tw - 1, ly + th - 1, col, 1, 1);
            int luma = 299 * col[0] + 587 * col[1] + 114 * col[2];
            const uint8_t black[3] = {0, 0, 0}, white[3] = {255, 255, 255};
            gvis_draw_text(out, x0 + scale, ly + scale, labels[i], luma > 128000 ? black : white, scale);
        }
    }
    return GVIS_OK;
}
