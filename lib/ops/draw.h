/* Drawing on 8-bit RGB or RGBA images: rectangles, lines and text in a built-in 5x7
 * bitmap font (printable ASCII).  Everything is clipped to the image. */
#ifndef GVIS_DRAW_H
#define GVIS_DRAW_H

#include "gvis.h"

/* Filled when fill is non-zero, else a frame of thickness pixels (>= 1). */
void gvis_draw_rect(gvis_image *img, int x0, int y0, int x1, int y1, const uint8_t rgb[3], int fill, int thickness);
void gvis_draw_line(gvis_image *img, int x0, int y0, int x1, int y1, const uint8_t rgb[3]);
/* Text with its top-left corner at (x, y); each font pixel becomes scale x scale. */
void gvis_draw_text(gvis_image *img, int x, int y, const char *s, const uint8_t rgb[3], int scale);
int gvis_text_width(const char *s, int scale);  /* 6 * scale per character, less the last gap */
int gvis_text_height(int scale);                /* 7 * scale */
/* A distinct colour for class or channel k. */
void gvis_palette(int k, uint8_t rgb[3]);

#endif
