/* Host emulation of the device's EXIF orientation kernel (cuda/io/jpeg_orient.cu): the
 * kernel's index map (jpeg_orient.h), run over the output grid as the threads would,
 * against a reference composed of three primitive moves (transpose, mirror, flip) written
 * independently and against the CPU decoders' own rotation (gvis_apply_orientation), for all
 * eight orientations, awkward sizes and 1..4 channels. */
#include <string.h>

#include "codec.h" /* gvis_apply_orientation: the CPU path's rotation */
#include "jpeg_orient.h"
#include "testlib.h"

typedef struct {
    int w, h, c;
    uint8_t *p;
} im;

static im mk(int w, int h, int c)
{
    im r = {w, h, c, calloc((size_t)w * h * c, 1)};
    return r;
}
static uint8_t *at(const im *a, int x, int y) { return a->p + ((size_t)y * a->w + x) * a->c; }

static im transpose(im a)
{
    im r = mk(a.h, a.w, a.c);
    for (int y = 0; y < r.h; y++)
        for (int x = 0; x < r.w; x++)
            memcpy(at(&r, x, y), at(&a, y, x), (size_t)a.c);
    free(a.p);
    return r;
}
static im mirror(im a) /* left-right */
{
    im r = mk(a.w, a.h, a.c);
    for (int y = 0; y < r.h; y++)
        for (int x = 0; x < r.w; x++)
            memcpy(at(&r, x, y), at(&a, a.w - 1 - x, y), (size_t)a.c);
    free(a.p);
    return r;
}
static im flip(im a) /* top-bottom */
{
    im r = mk(a.w, a.h, a.c);
    for (int y = 0; y < r.h; y++)
        memcpy(at(&r, 0, y), at(&a, 0, a.h - 1 - y), (size_t)a.w * a.c);
    free(a.p);
    return r;
}

/* EXIF 2..8 as moves of the stored image (TIFF 6.0 / EXIF 2.3 definitions). */
static im reference(const im *src, int o)
{
    im r = mk(src->w, src->h, src->c);
    memcpy(r.p, src->p, (size_t)src->w * src->h * src->c);
    switch (o) {
    case 2: return mirror(r);
    case 3: return flip(mirror(r));
    case 4: return flip(r);
    case 5: return transpose(r);
    case 6: return mirror(transpose(r)); /* 90 clockwise */
    case 7: return flip(mirror(transpose(r)));
    case 8: return flip(transpose(r)); /* 90 counter-clockwise */
    default: return r;
    }
}

/* What the kernel does, thread by thread. */
static im emulate(const im *src, int o)
{
    int w, h;
    gvis_orient_size(o, src->w, src->h, &w, &h);
    im r = mk(w, h, src->c);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int sx, sy;
            gvis_orient_source(o, x, y, src->w, src->h, &sx, &sy);
            if (sx < 0 || sy < 0 || sx >= src->w || sy >= src->h) {
                free(r.p);
                r.p = NULL;
                return r;
            }
            memcpy(at(&r, x, y), at(src, sx, sy), (size_t)src->c);
        }
    return r;
}

int main(void)
{
    t_seed(11);
    const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 3}, {13, 11}, {64, 48}, {631, 479}};
    int cases = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 1; c <= 4; c++) {
            im src = mk(sizes[s][0], sizes[s][1], c);
            for (size_t i = 0; i < (size_t)src.w * src.h * c; i++)
                src.p[i] = (uint8_t)t_rand();
            for (int o = 1; o <= 8; o++) {
                im want = reference(&src, o), got = emulate(&src, o);
                CHECKF(got.p && got.w == want.w && got.h == want.h &&
                           memcmp(got.p, want.p, (size_t)want.w * want.h * c) == 0,
                       "orientation %d on %dx%dx%d", o, src.w, src.h, c);
                if (c != 2 && got.p) { /* the CPU path: 1, 3 or 4 channels */
                    gvis_image img;
                    CHECK_OK(gvis_image_alloc(&img, src.w, src.h, c, GVIS_U8, 16));
                    for (int y = 0; y < src.h; y++)
                        memcpy(GVIS_ROW(&img, y), at(&src, 0, y), (size_t)src.w * c);
                    gvis_meta *m = gvis_meta_of(&img);
                    m->orientation = o;
                    CHECK_OK(gvis_apply_orientation(&img, NULL));
                    int same = img.width == got.w && img.height == got.h;
                    for (int y = 0; same && y < got.h; y++)
                        same = memcmp(GVIS_ROW(&img, y), at(&got, 0, y), (size_t)got.w * c) == 0;
                    CHECKF(same, "orientation %d on %dx%dx%d differs from gvis_apply_orientation", o, src.w, src.h, c);
                    CHECK(img.meta->orientation == 1);
                    gvis_image_free(&img);
                }
                free(want.p);
                free(got.p);
                cases++;
            }
            free(src.p);
        }
    /* unknown values (0, 9) leave the image as stored */
    int sx, sy, w, h;
    gvis_orient_source(0, 3, 4, 10, 10, &sx, &sy);
    gvis_orient_size(9, 10, 20, &w, &h);
    CHECK(sx == 3 && sy == 4 && w == 10 && h == 20);
    printf("%d orientation cases\n", cases);
    return t_done("jpeg_orient");
}
