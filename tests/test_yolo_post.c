/* Unit tests of YOLO decoding's surroundings: the tensor layouts and their errors
 * (lib/ops/yolo_shape.c), float16 conversion, mapping boxes back through the inverse of
 * a warp, and drawing in proportion to the image (lib/ops/yolo_post.c).  The decoder
 * itself: test_yolo.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "yolo.h"

static void resolve_cases(void)
{
    gvis_yolo_shape s;
    size_t a[3] = {1, 25200, 85};
    CHECK_OK(gvis_yolo_resolve(a, 3, GVIS_YOLO_AUTO, 0, &s));
    CHECK(s.layout == GVIS_YOLO_V5 && s.rows == 25200 && s.classes == 80);
    size_t b[3] = {1, 84, 8400};
    CHECK_OK(gvis_yolo_resolve(b, 3, GVIS_YOLO_AUTO, 0, &s));
    CHECK(s.layout == GVIS_YOLO_V8 && s.rows == 8400 && s.classes == 80);
    CHECK_OK(gvis_yolo_resolve(b + 1, 2, GVIS_YOLO_AUTO, 80, &s));
    CHECK(s.layout == GVIS_YOLO_V8);
    size_t c[2] = {85, 85};
    CHECK(gvis_yolo_resolve(c, 2, GVIS_YOLO_AUTO, 0, &s) == GVIS_E_ARG);
    CHECK(strstr(gvis_errmsg(), "--layout") != NULL);
    CHECK_OK(gvis_yolo_resolve(c, 2, GVIS_YOLO_AUTO, 80, &s)); /* 85 = 5+80: v5 only */
    CHECK(s.layout == GVIS_YOLO_V5 && s.rows == 85);
    CHECK_OK(gvis_yolo_resolve(c, 2, GVIS_YOLO_V8, 0, &s));
    CHECK(s.layout == GVIS_YOLO_V8 && s.classes == 81);
    size_t d[2] = {3, 85}; /* three rows of a v5 output: v8 would need 4+C = 3 */
    CHECK_OK(gvis_yolo_resolve(d, 2, GVIS_YOLO_AUTO, 0, &s));
    CHECK(s.layout == GVIS_YOLO_V5 && s.rows == 3);
    CHECK(gvis_yolo_resolve(a, 3, GVIS_YOLO_AUTO, 79, &s) == GVIS_E_FORMAT);
    CHECK(gvis_yolo_resolve(a, 3, GVIS_YOLO_V5, 79, &s) == GVIS_E_FORMAT);
    CHECK(gvis_yolo_resolve(a, 3, GVIS_YOLO_AUTO, -1, &s) == GVIS_E_ARG);
    size_t e[3] = {2, 25200, 85};
    CHECK(gvis_yolo_resolve(e, 3, GVIS_YOLO_AUTO, 0, &s) == GVIS_E_FORMAT);
    size_t g[2] = {100, 5}; /* a v5 row of 5 values has no class */
    CHECK(gvis_yolo_resolve(g, 2, GVIS_YOLO_V5, 0, &s) == GVIS_E_FORMAT);
    CHECK(strstr(gvis_errmsg(), "gives 0 classes") != NULL);
    size_t h[2] = {4, 100};
    CHECK(gvis_yolo_resolve(h, 2, GVIS_YOLO_V8, 0, &s) == GVIS_E_FORMAT);
    size_t f[2] = {4, 5};
    CHECK(gvis_yolo_resolve(f, 2, GVIS_YOLO_AUTO, 0, &s) == GVIS_E_FORMAT);
    CHECK(gvis_yolo_resolve(f, 1, GVIS_YOLO_AUTO, 0, &s) == GVIS_E_FORMAT);
    size_t r4[4] = {1, 1, 10, 85};
    CHECK(gvis_yolo_resolve(r4, 4, GVIS_YOLO_AUTO, 0, &s) == GVIS_E_FORMAT);
    CHECK(strstr(gvis_errmsg(), "[1,1,10,85]") != NULL);
}

static void convert_cases(void)
{
    uint16_t h[6] = {0x3c00, 0xc000, 0x0001, 0x7bff, 0x3555, 0x8000};
    gvis_array a = {GVIS_DT_F16, 1, {6}, h, sizeof h};
    float *f;
    CHECK_OK(gvis_yolo_to_f32(&a, &f));
    CHECK(f[0] == 1.0f && f[1] == -2.0f && f[2] == ldexpf(1, -24) && f[3] == 65504.0f &&
          f[4] == 0.333251953125f && f[5] == 0 && signbit(f[5]));
    free(f);
    int32_t i[2] = {1, 2};
    gvis_array b = {GVIS_DT_I32, 1, {2}, i, sizeof i};
    CHECK(gvis_yolo_to_f32(&b, &f) == GVIS_E_FORMAT);
}

static void map_cases(void)
{
    /* letterbox 1280x720 -> 640x640 as gvis warpaffine writes it (pixel centres at
     * integers): forward 0.5 0 -0.25 0 0.5 139.75; on box edges: x*2, (y-140)*2 */
    double inv[6] = {2, 0, 0.5, 0, 2, -279.5};
    gvis_yolo_det d[2] = {{10, 150, 20, 160, 0.9f, 0, 0, 0}, {-5, 100, 700, 200, 0.5f, 1, 1, 0}};
    gvis_yolo_map(d, 2, inv, 1280, 720);
    CHECK(d[0].x1 == 20 && d[0].y1 == 20 && d[0].x2 == 40 && d[0].y2 == 40);
    CHECK(d[1].x1 == 0 && d[1].y1 == 0 && d[1].x2 == 1280 && d[1].y2 == 120);
    /* a rotation by 90 degrees maps a box to the bounding box of its corners:
     * X = 100 - (y - 0.5) + 0.5, Y = x */
    double rot[6] = {0, -1, 100, 1, 0, 0};
    gvis_yolo_det e = {10, 20, 30, 60, 1, 0, 0, 0};
    gvis_yolo_map(&e, 1, rot, 0, 0);
    CHECK(e.x1 == 41 && e.x2 == 81 && e.y1 == 10 && e.y2 == 30);
}

/* Boxes and labels drawn in proportion to the image (issue 12: one pixel on 2560x1600). */
static void draw_cases(void)
{
    const int sizes[][3] = {{100, 80, 1}, {640, 480, 2}, {1920, 1080, 5}, {2560, 1600, 6}, {7680, 4320, 18}};
    for (int i = 0; i < 5; i++) {
        int w = sizes[i][0], h = sizes[i][1], line, scale;
        gvis_yolo_draw_sizes(w, h, &line, &scale);
        CHECKF(line == sizes[i][2], "%dx%d: lines of %d pixels, wanted %d", w, h, line, sizes[i][2]);
        CHECKF(scale >= 1 && scale == (int)lround(0.6 * line > 1 ? 0.6 * line : 1), "%dx%d: font scale %d", w, h, scale);
        /* on a black image: the left edge's width at mid-height and the tag's height above */
        gvis_image img, out;
        gvis_image_alloc(&img, w, h, 3, GVIS_U8, 0);
        for (int y = 0; y < h; y++)
            memset(GVIS_ROW(&img, y), 0, (size_t)w * 3);
        gvis_yolo_det d = {(float)(w / 4), (float)(h / 2), (float)(w * 3 / 4), (float)(h * 3 / 4), 0.9f, 0, 0, 0};
        const char *labels[1] = {"person 0.90"};
        CHECK_OK(gvis_yolo_draw(&img, &d, 1, labels, &out));
        const uint8_t *row = GVIS_ROW(&out, h * 5 / 8);
        int edge = 0;
        for (int x = w / 4; x < w && (row[x * 3] | row[x * 3 + 1] | row[x * 3 + 2]); x++)
            edge++;
        CHECKF(edge == line, "%dx%d: left edge %d pixels wide, wanted %d", w, h, edge, line);
        int tag = 0;
        for (int y = h / 2 - 1; y >= 0; y--, tag++) {
            const uint8_t *p = (const uint8_t *)GVIS_ROW(&out, y) + (size_t)(w / 4) * 3;
            if (!(p[0] | p[1] | p[2]))
                break;
        }
        CHECKF(tag == 9 * scale, "%dx%d: label tag %d pixels high, wanted %d", w, h, tag, 9 * scale);
        gvis_image_free(&out);
        gvis_image_free(&img);
    }
}

int main(void)
{
    draw_cases();
    resolve_cases();
    convert_cases();
    map_cases();
    return t_done("test_yolo_post");
}
