/* SGM step 2: the census transform (9x7 or centre-symmetric), CPU. */
#include <stdlib.h>
#include <string.h>
#include "sgm.h"

#define CW 4 /* half width of the 9x7 window */
#define CH 3 /* half height */

typedef struct {
    const uint8_t *img;
    size_t stride;
    int bytes, width, height, census;
    uint64_t *out;
} census_job;

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* One output row from seven clamped, 4-pixel-padded source rows: the comparisons
 * run in byte planes (32 or 16 pixels per instruction), then the planes are packed.
 * One copy per sample type, so that 8-bit images compare 32 pixels at a time. */
#define CENSUS_ROW(NAME, T)                                                                        \
    __attribute__((target_clones("avx2", "default"))) static void NAME(                           \
        const T *const rows[2 * CH + 1], int width, int census, uint8_t *planes, uint64_t *out)    \
    {                                                                                              \
        const T *ctr = rows[CH] + CW;                                                              \
        memset(planes, 0, (size_t)8 * width);                                                      \
        int pos = census == GVIS_CENSUS_9X7 ? 61 : 30;                                             \
        for (int dy = -CH; dy <= (census == GVIS_CENSUS_9X7 ? CH : 0); dy++) {                    \
            for (int dx = -CW; dx <= CW; dx++) {                                                   \
                if (census == GVIS_CENSUS_9X7) {                                                   \
                    if (dy == 0 && dx == 0)                                                        \
                        continue;                                                                  \
                } else if (!(dy < 0 || dx < 0)) {                                                  \
                    continue;                                                                      \
                }                                                                                  \
                uint8_t *pl = planes + (size_t)(pos >> 3) * width;                                 \
                const int sh = pos & 7;                                                            \
                const T *a = rows[CH + dy] + CW + dx;                                              \
                if (census == GVIS_CENSUS_9X7) {                                                   \
                    for (int x = 0; x < width; x++)                                                \
                        pl[x] |= (uint8_t)((a[x] < ctr[x]) << sh);                                 \
                } else {                                                                           \
                    const T *b = rows[CH - dy] + CW - dx;                                          \
                    for (int x = 0; x < width; x++)                                                \
                        pl[x] |= (uint8_t)((a[x] >= b[x]) << sh);                                  \
                }                                                                                  \
                pos--;                                                                             \
            }                                                                                      \
        }                                                                                          \
        for (int x = 0; x < width; x++) {                                                          \
            uint64_t c = 0;                                                                        \
            for (int b = 0; b < 8; b++)                                                            \
                c |= (uint64_t)planes[(size_t)b * width + x] << (8 * b);                           \
            out[x] = c;                                                                            \
        }                                                                                          \
    }

CENSUS_ROW(census_row8, uint8_t)
CENSUS_ROW(census_row16, uint16_t)

static void census_task(void *arg, int index, int count)
{
    census_job *j = arg;
    size_t y0, y1;
    gvis_split((size_t)j->height, index, count, &y0, &y1);
    if (y0 >= y1)
        return;
    const int pw = j->width + 2 * CW;
    /* A ring of padded rows (u16) and the byte planes, per task. */
    uint16_t *ring = malloc(sizeof(uint16_t) * (size_t)pw * (2 * CH + 1) + (size_t)8 * j->width);
    if (!ring) {
        /* Without scratch, compute directly (slow path, same result). */
        for (size_t y = y0; y < y1; y++)
            for (int x = 0; x < j->width; x++) {
                uint64_t c = 0;
#define PIX(yy, xx) (j->bytes == 1 ? (unsigned)j->img[(size_t)clampi(yy, 0, j->height - 1) * j->stride + clampi(xx, 0, j->width - 1)] \
    : (unsigned)((const uint16_t *)(j->img + (size_t)clampi(yy, 0, j->height - 1) * j->stride))[clampi(xx, 0, j->width - 1)])
                for (int dy = -CH; dy <= CH; dy++)
                    for (int dx = -CW; dx <= CW; dx++) {
                        if (j->census == GVIS_CENSUS_9X7) {
                            if (dy == 0 && dx == 0)
                                continue;
                            c = (c << 1) | (PIX((int)y + dy, x + dx) < PIX((int)y, x));
                        } else if (dy < 0 || (dy == 0 && dx < 0)) {
                            c = (c << 1) | (PIX((int)y + dy, x + dx) >= PIX((int)y - dy, x - dx));
                        }
                    }
#undef PIX
                j->out[y * (size_t)j->width + x] = c;
            }
        return;
    }
    uint8_t *planes = (uint8_t *)(ring + (size_t)pw * (2 * CH + 1));
    uint8_t *ring8 = (uint8_t *)ring; /* 8-bit images: the ring holds bytes */
    for (size_t y = y0; y < y1; y++) {
        const uint16_t *rows[2 * CH + 1];
        const uint8_t *rows8[2 * CH + 1];
        for (int i = 0; i < 2 * CH + 1; i++) {
            int sy = clampi((int)y + i - CH, 0, j->height - 1);
            const uint8_t *src = j->img + (size_t)sy * j->stride;
            if (j->bytes == 1) {
                uint8_t *r = ring8 + (size_t)i * pw;
                memcpy(r + CW, src, (size_t)j->width);
                memset(r, r[CW], CW);
                memset(r + CW + j->width, r[CW + j->width - 1], CW);
                rows8[i] = r;
            } else {
                uint16_t *r = ring + (size_t)i * pw;
                memcpy(r + CW, src, sizeof(uint16_t) * (size_t)j->width);
                for (int x = 0; x < CW; x++) {
                    r[x] = r[CW];
                    r[CW + j->width + x] = r[CW + j->width - 1];
                }
                rows[i] = r;
            }
        }
        if (j->bytes == 1)
            census_row8(rows8, j->width, j->census, planes, j->out + y * (size_t)j->width);
        else
            census_row16(rows, j->width, j->census, planes, j->out + y * (size_t)j->width);
    }
    free(ring);
}

void gvis_sgm_census(const void *img, size_t stride, int bytes, int width, int height, int census, uint64_t *out)
{
    census_job j = {img, stride, bytes, width, height, census, out};
    int tasks = gvis_threads() * 2;
    if (tasks > height)
        tasks = height;
    gvis_parallel(tasks, census_task, &j);
}
