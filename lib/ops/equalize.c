/* Histogram equalization with OpenCV's equalizeHist mapping, bit for bit:
 *   i0 = first non-empty bin; if it holds every pixel the image becomes i0;
 *   scale = 255.f / (total - hist[i0]) in float; lut[i0] = 0 and, for j > i0,
 *   lut[j] = round-half-even(float(sum_{i0<k<=j} hist[k]) * scale), saturated to 0..255.
 * Colour images are equalized on the luma of OpenCV's 8-bit YCrCb conversion
 * (14-bit fixed point), or per channel. */
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void gvis_equalize_lut(const uint32_t hist[256], uint32_t total, uint8_t lut[256])
{
    int i = 0;
    memset(lut, 0, 256);
    while (i < 256 && !hist[i])
        i++;
    if (i == 256)
        return;
    if (hist[i] == total) {
        for (int k = 0; k < 256; k++)
            lut[k] = (uint8_t)i;
        return;
    }
    float scale = 255.f / (float)(total - hist[i]);
    uint32_t sum = 0;
    for (lut[i++] = 0; i < 256; i++) {
        sum += hist[i];
        long v = lrintf((float)sum * scale);
        lut[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

/* OpenCV's RGB2YCrCb_i / YCrCb2RGB_i for 8 bits (yuv_shift 14). */
enum { SHIFT = 14, HALF = 1 << (SHIFT - 1) };
static inline uint8_t sat8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }
static inline int luma(int r, int g, int b) { return (r * 4899 + g * 9617 + b * 1868 + HALF) >> SHIFT; }

void gvis_rgb_to_ycrcb(const uint8_t rgb[3], uint8_t out[3])
{
    int y = luma(rgb[0], rgb[1], rgb[2]);
    out[0] = sat8(y);
    out[1] = sat8(((rgb[0] - y) * 11682 + (128 << SHIFT) + HALF) >> SHIFT);
    out[2] = sat8(((rgb[2] - y) * 9241 + (128 << SHIFT) + HALF) >> SHIFT);
}

void gvis_ycrcb_to_rgb(const uint8_t in[3], uint8_t rgb[3])
{
    int y = in[0], cr = in[1] - 128, cb = in[2] - 128;
    rgb[0] = sat8(y + ((cr * 22987 + HALF) >> SHIFT));
    rgb[1] = sat8(y + ((cb * -5636 + cr * -11698 + HALF) >> SHIFT));
    rgb[2] = sat8(y + ((cb * 29049 + HALF) >> SHIFT));
}

/* One task's counters: on their own cache lines, with a gap before the next task's,
 * so that the two cores never write to one line. */
typedef struct {
    _Alignas(64) uint32_t h[GVIS_COUNT_REPLICAS][256];
    uint32_t gap[16];
} eq_counts;

struct eq_job {
    const gvis_image *in;
    gvis_image *out;
    int per_channel;
    eq_counts *partial; /* per task: replicas (gray, luma) or one per channel */
    uint8_t lut[4][256];
    uint16_t *pair;     /* gray: the LUT of byte pairs, pair[a | b << 8] = lut[a] | lut[b] << 8 */
};

static void pair_task(void *arg, int index, int count)
{
    struct eq_job *j = arg;
    size_t b0, b1;
    gvis_split(256, index, count, &b0, &b1);
    for (size_t b = b0; b < b1; b++)
        for (int a = 0; a < 256; a++)
            j->pair[a | b << 8] = (uint16_t)(j->lut[0][a] | j->lut[0][b] << 8);
}

static void eq_hist_task(void *arg, int index, int count)
{
    struct eq_job *j = arg;
    const gvis_image *in = j->in;
    size_t y0, y1;
    gvis_split((size_t)in->height, index, count, &y0, &y1);
    uint32_t (*h)[256] = j->partial[index].h;
    memset(h, 0, sizeof j->partial[index].h);
    int ch = in->channels;
    for (size_t y = y0; y < y1; y++) {
        const uint8_t *p = GVIS_ROW(in, y);
        if (ch == 1) {
            gvis_count_u8(p, (size_t)in->width, h[0]);
        } else if (j->per_channel) {
            for (int x = 0; x < in->width; x++, p += ch)
                for (int c = 0; c < 3; c++)
                    h[c][p[c]]++;
        } else {
            for (int x = 0; x < in->width; x++, p += ch)
                h[x & 3][sat8(luma(p[0], p[1], p[2]))]++;
        }
    }
}

static void eq_apply_task(void *arg, int index, int count)
{
    struct eq_job *j = arg;
    const gvis_image *in = j->in;
    size_t y0, y1;
    gvis_split((size_t)in->height, index, count, &y0, &y1);
    int ch = in->channels;
    uint8_t lut0[256]; /* a local copy: the stores below cannot alias it */
    memcpy(lut0, j->lut[0], sizeof lut0);
    for (size_t y = y0; y < y1; y++) {
        const uint8_t *restrict p = GVIS_ROW(in, y);
        uint8_t *restrict q = GVIS_ROW(j->out, y);
        if (ch == 1) {
            /* two bytes per lookup in the pair table, four lookups per 8-byte load and store */
            const uint16_t *restrict pair = j->pair;
            int x = 0;
            for (; x + 8 <= in->width; x += 8) {
                uint64_t v;
                memcpy(&v, p + x, 8);
                uint64_t r = (uint64_t)pair[v & 0xffff] | (uint64_t)pair[(v >> 16) & 0xffff] << 16 |
                             (uint64_t)pair[(v >> 32) & 0xffff] << 32 | (uint64_t)pair[v >> 48] << 48;
                memcpy(q + x, &r, 8);
            }
            for (; x < in->width; x++)
                q[x] = lut0[p[x]];
        } else if (j->per_channel) {
            for (int x = 0; x < in->width; x++, p += ch, q += ch) {
                q[0] = j->lut[0][p[0]], q[1] = j->lut[1][p[1]], q[2] = j->lut[2][p[2]];
                if (ch == 4)
                    q[3] = p[3];
            }
        } else {
            for (int x = 0; x < in->width; x++, p += ch, q += ch) {
                uint8_t ycc[3];
                gvis_rgb_to_ycrcb(p, ycc);
                ycc[0] = lut0[ycc[0]];
                gvis_ycrcb_to_rgb(ycc, q);
                if (ch == 4)
                    q[3] = p[3];
            }
        }
    }
}

struct eq_call {
    const gvis_image *in;
    gvis_image *out;
    int per_channel;
};

static int eq_cpu_once(void *arg)
{
    struct eq_call *c = arg;
    int tasks = gvis_threads();
    if (tasks > c->in->height)
        tasks = c->in->height;
    struct eq_job j = {c->in, c->out, c->per_channel, NULL, {{0}}, NULL};
    j.partial = aligned_alloc(64, sizeof *j.partial * (size_t)tasks);
    if (!j.partial)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    gvis_parallel(tasks, eq_hist_task, &j);
    int nl = c->in->channels > 1 && c->per_channel ? 3 : 1;
    uint32_t total = (uint32_t)c->in->width * (uint32_t)c->in->height;
    for (int l = 0; l < nl; l++) {
        uint32_t h[256] = {0};
        for (int t = 0; t < tasks; t++)
            for (int r = 0; r < (nl == 1 ? GVIS_COUNT_REPLICAS : 1); r++)
                for (int b = 0; b < 256; b++)
                    h[b] += j.partial[t].h[nl == 1 ? r : l][b];
        gvis_equalize_lut(h, total, j.lut[l]);
    }
    free(j.partial);
    if (c->in->channels == 1) {
        /* 128 KiB, filled in parallel: pays off from about 100k pixels */
        j.pair = malloc(65536 * sizeof *j.pair);
        if (!j.pair)
            return gvis_error(GVIS_E_NOMEM, "out of memory");
        gvis_parallel(tasks, pair_task, &j);
    }
    gvis_parallel(tasks, eq_apply_task, &j);
    free(j.pair);
    return GVIS_OK;
}

static int eq_cpu(gvis_ctx *ctx, void *arg) { return gvis_time_cpu(ctx, eq_cpu_once, arg); }

#ifdef GVIS_HAVE_CUDA
struct eq_launch {
    const uint8_t *d_src;
    uint8_t *d_dst;
    size_t spitch, dpitch;
    void *d_scratch;
    const struct eq_call *c;
};

static int eq_launch(void *arg, void *stream)
{
    struct eq_launch *l = arg;
    return gvis_cu_equalize(l->d_src, l->spitch, l->d_dst, l->dpitch, l->c->in->width, l->c->in->height,
                            l->c->in->channels, l->c->per_channel, l->d_scratch, stream);
}

static int eq_cuda(gvis_ctx *ctx, void *arg)
{
    struct eq_call *c = arg;
    struct eq_launch l = {NULL, NULL, 0, 0, NULL, c};
    int rc = gvis_cuda_upload_image(ctx, 0, c->in, (void **)&l.d_src, &l.spitch);
    size_t row = (size_t)c->in->width * c->in->channels;
    if (!rc)
        rc = gvis_cuda_status(gvis_cu_buffer2d(ctx->job, 1, row, (size_t)c->in->height, (void **)&l.d_dst, &l.dpitch),
                              "output buffer");
    if (!rc)
        rc = gvis_cuda_status(gvis_cu_buffer(ctx->job, 2, gvis_cu_equalize_scratch(), &l.d_scratch), "scratch buffer");
    /* the kernels leave the scratch zeroed; clear it once, outside the timed runs */
    if (!rc)
        rc = gvis_cuda_status(gvis_cu_memset(ctx->job, l.d_scratch, 0, gvis_cu_equalize_scratch()), "scratch buffer");
    if (!rc)
        rc = gvis_time_cuda(ctx, eq_launch, &l);
    if (!rc)
        rc = gvis_cuda_download_image(ctx, l.d_dst, l.dpitch, c->out);
    return rc;
}
#else
#define eq_cuda NULL
#endif

int gvis_equalize(gvis_ctx *ctx, const gvis_image *in, int per_channel, gvis_image *out)
{
    out->data = NULL;
    if (in->type != GVIS_U8)
        return gvis_error(GVIS_E_FORMAT, "equalization needs an 8-bit image, this one is %s", gvis_type_name(in->type));
    if ((uint64_t)in->width * in->height > INT32_MAX)
        return gvis_error(GVIS_E_LIMIT, "image has more than 2^31-1 pixels");
    int rc = gvis_image_alloc(out, in->width, in->height, in->channels, GVIS_U8, 0);
    if (rc)
        return rc;
    struct eq_call c = {in, out, per_channel};
    rc = gvis_dispatch(ctx, "equalization", eq_cpu, eq_cuda, &c);
    if (rc)
        gvis_image_free(out);
    return rc;
}
