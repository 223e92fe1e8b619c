/* YOLOv5 / YOLOv8 decoding and greedy NMS: the public entry point, the CPU
 * implementation and the CUDA glue.  The arithmetic is spelled out in yolo.h; this
 * file is compiled as ISO C11, where GCC contracts no multiply-add (-ffp-contract=off),
 * and the CUDA side uses the _rn intrinsics, so both round every operation alike.
 * What comes after the decode (mapping, clipping, conversion, drawing): yolo_post.c; the
 * tensor's layout and the parameters' checks: yolo_shape.c. */
#include "yolo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "internal.h"
#ifdef GVIS_HAVE_CUDA
#include "../../cuda/ops/yolo.h"
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

typedef uint32_t __attribute__((may_alias)) u32_alias;

static inline float fmax_(float a, float b) { return a > b ? a : b; }
static inline float fmin_(float a, float b) { return a < b ? a : b; }

/* The IoU of yolo.h; aa and ab are the boxes' areas (x2 - x1) * (y2 - y1). */
static inline float iou_area(const float *a, float aa, const float *b, float ab)
{
    float w = fmax_(fmin_(a[2], b[2]) - fmax_(a[0], b[0]), 0.0f);
    float h = fmax_(fmin_(a[3], b[3]) - fmax_(a[1], b[1]), 0.0f);
    float inter = w * h;
    float uni = (aa + ab) - inter;
    return inter / uni;
}

static inline float box_area(const float *b)
{
    float w = b[2] - b[0];
    float h = b[3] - b[1];
    return w * h;
}

float gvis_yolo_iou(const float a[4], const float b[4])
{
    return iou_area(a, box_area(a), b, box_area(b));
}

/* Float -> key whose ascending order is the descending order of the scores (-0 == +0). */
static inline uint32_t desc_key(float s)
{
    uint32_t u;
    memcpy(&u, &s, 4);
    if (u == 0x80000000u)
        u = 0;
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ~u;
}

/* ---- CPU decode ----------------------------------------------------------------- */

typedef struct {
    float box[4];
    float area;
    float score;
    int32_t cls;
    int32_t row;
} cand;

struct cpu_job {
    const float *pred;
    const gvis_yolo_shape *s;
    const gvis_yolo_params *p;
    float conf;
    int parts;
    cand *cands;       /* rows entries; part k writes from its first row on */
    size_t *count;     /* per part */
    uint64_t *bad;     /* per part: first non-finite flat index, UINT64_MAX when none */
    uint64_t *keys, *keys_tmp;
    uint32_t *idx, *idx_tmp;
    int32_t *chain;    /* per candidate: the previous kept/seen candidate of its class, -1 */
    int32_t *head;     /* per class (or one when agnostic): the last kept/seen candidate */
    gvis_yolo_result *out;
};

/* First flat index in [0, n) whose value is NaN or infinite, or n. */
HOT static size_t first_nonfinite(const float *p, size_t n)
{
    const u32_alias *u = (const u32_alias *)p;
    for (size_t i0 = 0; i0 < n; i0 += 2048) {
        size_t m = n - i0 < 2048 ? n - i0 : 2048;
        uint32_t acc = 0;
        for (size_t i = 0; i < m; i++) {
            uint32_t x = u[i0 + i] & 0x7fffffffu;
            acc = x > acc ? x : acc;
        }
        if (acc >= 0x7f800000u)
            for (size_t i = 0; i < m; i++)
                if ((u[i0 + i] & 0x7f800000u) == 0x7f800000u)
                    return i0 + i;
    }
    return n;
}

static inline void make_cand(cand *c, float cx, float cy, float w, float h, float score, int cls, size_t row)
{
    float hw = w * 0.5f, hh = h * 0.5f;
    c->box[0] = cx - hw;
    c->box[1] = cy - hh;
    c->box[2] = cx + hw;
    c->box[3] = cy + hh;
    c->area = box_area(c->box);
    c->score = score;
    c->cls = cls;
    c->row = (int32_t)row;
}

static void decode_v5_part(struct cpu_job *j, size_t r0, size_t r1, int part)
{
    size_t K = (size_t)j->s->classes + 5;
    const float *pred = j->pred;
    size_t bad = first_nonfinite(pred + r0 * K, (r1 - r0) * K);
    j->bad[part] = bad < (r1 - r0) * K ? (uint64_t)(r0 * K + bad) : UINT64_MAX;
    cand *c = j->cands + r0;
    size_t n = 0;
    int C = j->s->classes;
    float conf = j->conf;
    for (size_t r = r0; r < r1; r++) {
        const float *q = pred + r * K;
        float obj = q[4];
        if (!(obj >= conf))
            continue;
        const float *cl = q + 5;
        float best = cl[0];
        int bi = 0;
        for (int k = 1; k < C; k++)
            if (cl[k] > best) {
                best = cl[k];
                bi = k;
            }
        float score = obj * best;
        if (score >= conf)
            make_cand(&c[n++], q[0], q[1], q[2], q[3], score, bi, r);
    }
    j->count[part] = n;
}

/* Columns [n0, n0+m) of a (4+C) x N tensor: the best class of each column.  Groups of
 * G columns keep their running maximum while the class rows stream by (a vectorized
 * compare-and-select); the tail goes column by column. */
HOT static void v8_block(const float *pred, size_t N, int C, size_t n0, size_t m, float *best, int32_t *bi)
{
    enum { G = 16 };
    size_t g = 0;
    for (; g + G <= m; g += G) {
        float b[G];
        int32_t x[G];
        const float *row = pred + 4 * N + n0 + g;
        for (int i = 0; i < G; i++) {
            b[i] = row[i];
            x[i] = 0;
        }
        for (int k = 1; k < C; k++) {
            row = pred + (4 + (size_t)k) * N + n0 + g;
            for (int i = 0; i < G; i++) {
                float v = row[i];
                int gt = v > b[i];
                b[i] = gt ? v : b[i];
                x[i] = gt ? k : x[i];
            }
        }
        for (int i = 0; i < G; i++) {
            best[g + i] = b[i];
            bi[g + i] = x[i];
        }
    }
    for (; g < m; g++) {
        const float *col = pred + 4 * N + n0 + g;
        float b = col[0];
        int32_t x = 0;
        for (int k = 1; k < C; k++)
            if (col[(size_t)k * N] > b) {
                b = col[(size_t)k * N];
                x = k;
            }
        best[g] = b;
        bi[g] = x;
    }
}

/* The finite check streams each row once (sequential, prefetched), which also brings
 * the part's columns into the cache for the class pass. */
static void decode_v8_part(struct cpu_job *j, size_t n0, size_t n1, int part)
{
    size_t N = j->s->rows;
    int C = j->s->classes;
    const float *pred = j->pred;
    uint64_t bad = UINT64_MAX;
    for (size_t k = 0; k < (size_t)C + 4 && bad == UINT64_MAX; k++) {
        size_t f = first_nonfinite(pred + k * N + n0, n1 - n0);
        if (f < n1 - n0)
            bad = (uint64_t)(k * N + n0 + f);
    }
    j->bad[part] = bad;
    enum { BLK = 256 };
    float best[BLK];
    int32_t bi[BLK];
    cand *c = j->cands + n0;
    size_t n = 0;
    float conf = j->conf;
    for (size_t b0 = n0; b0 < n1; b0 += BLK) {
        size_t m = n1 - b0 < BLK ? n1 - b0 : BLK;
        v8_block(pred, N, C, b0, m, best, bi);
        for (size_t i = 0; i < m; i++)
            if (best[i] >= conf) {
                size_t col = b0 + i;
                make_cand(&c[n++], pred[col], pred[N + col], pred[2 * N + col], pred[3 * N + col], best[i], bi[i], col);
            }
    }
    j->count[part] = n;
}

static void decode_task(void *arg, int index, int count)
{
    struct cpu_job *j = arg;
    size_t b, e;
    gvis_split(j->s->rows, index, count, &b, &e);
    if (j->s->layout == GVIS_YOLO_V5)
        decode_v5_part(j, b, e, index);
    else
        decode_v8_part(j, b, e, index);
}

/* LSD radix sort of (key, idx) by key, 8-bit digits, skipping digits all keys share. */
static void radix_sort(uint64_t *k, uint32_t *v, uint64_t *kt, uint32_t *vt, size_t n)
{
    size_t hist[256];
    for (int shift = 0; shift < 64; shift += 8) {
        memset(hist, 0, sizeof hist);
        for (size_t i = 0; i < n; i++)
            hist[(k[i] >> shift) & 255]++;
        if (n == 0 || hist[(k[0] >> shift) & 255] == n)
            continue;
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t t = hist[d];
            hist[d] = sum;
            sum += t;
        }
        for (size_t i = 0; i < n; i++) {
            size_t pos = hist[(k[i] >> shift) & 255]++;
            kt[pos] = k[i];
            vt[pos] = v[i];
        }
        memcpy(k, kt, n * sizeof *k);
        memcpy(v, vt, n * sizeof *v);
    }
}

static void emit(gvis_yolo_result *out, const cand *c)
{
    gvis_yolo_det *d = &out->det[out->count++];
    d->x1 = c->box[0];
    d->y1 = c->box[1];
    d->x2 = c->box[2];
    d->y2 = c->box[3];
    d->score = c->score;
    d->cls = c->cls;
    d->row = c->row;
    d->pad = 0;
}

static int cpu_once(void *arg)
{
    struct cpu_job *j = arg;
    gvis_parallel(j->parts, decode_task, j);
    uint64_t bad = UINT64_MAX;
    for (int k = 0; k < j->parts; k++)
        bad = j->bad[k] < bad ? j->bad[k] : bad;
    if (bad != UINT64_MAX) {
        const gvis_yolo_shape *s = j->s;
        size_t K = (size_t)s->classes + (s->layout == GVIS_YOLO_V5 ? 5 : 4);
        size_t r = s->layout == GVIS_YOLO_V5 ? bad / K : bad / s->rows;
        size_t c = s->layout == GVIS_YOLO_V5 ? bad % K : bad % s->rows;
        float v = j->pred[bad];
        return gvis_error(GVIS_E_FORMAT, "%s value at element [%zu,%zu] of the tensor",
                          isnan(v) ? "nan" : "infinite", r, c);
    }
    /* gather the parts' candidates in row order */
    size_t m = 0;
    for (int k = 0; k < j->parts; k++) {
        size_t b, e;
        gvis_split(j->s->rows, k, j->parts, &b, &e);
        if (m != b)
            memmove(j->cands + m, j->cands + b, j->count[k] * sizeof(cand));
        m += j->count[k];
    }
    gvis_yolo_result *out = j->out;
    out->count = 0;
    out->candidates = m;
    for (size_t i = 0; i < m; i++) {
        j->keys[i] = (uint64_t)desc_key(j->cands[i].score) << 32 | (uint32_t)j->cands[i].row;
        j->idx[i] = (uint32_t)i;
    }
    radix_sort(j->keys, j->idx, j->keys_tmp, j->idx_tmp, m);

    const gvis_yolo_params *p = j->p;
    float thr = gvis_yolo_threshold(p->iou);
    int nheads = p->agnostic ? 1 : j->s->classes;
    for (int c = 0; c < nheads; c++)
        j->head[c] = -1;
    for (size_t t = 0; t < m && out->count < p->max_det; t++) {
        const cand *a = &j->cands[j->idx[t]];
        int h = p->agnostic ? 0 : a->cls;
        int suppressed = 0;
        /* chain: the kept (greedy) or all earlier (fast) candidates of this class */
        for (int32_t q = j->head[h]; q >= 0; q = j->chain[q]) {
            const cand *b = &j->cands[j->idx[q]];
            if (iou_area(b->box, b->area, a->box, a->area) > thr) {
                suppressed = 1;
                break;
            }
        }
        if (!suppressed)
            emit(out, a);
        if (!suppressed || p->fast_nms) {
            j->chain[t] = j->head[h];
            j->head[h] = (int32_t)t;
        }
    }
    return GVIS_OK;
}

struct call {
    const float *pred;
    const gvis_yolo_shape *s;
    const gvis_yolo_params *p;
    gvis_yolo_result *out;
};

static int cpu_run(gvis_ctx *ctx, struct call *c)
{
    const gvis_yolo_shape *s = c->s;
    struct cpu_job j;
    memset(&j, 0, sizeof j);
    j.pred = c->pred;
    j.s = s;
    j.p = c->p;
    j.conf = (float)c->p->conf;
    j.out = c->out;
    size_t n = s->rows;
    j.parts = gvis_threads();
    if ((size_t)j.parts > n)
        j.parts = (int)n;
    if (j.parts < 1)
        j.parts = 1;
    size_t bytes;
    if (gvis_mul_size(n, sizeof(cand) + 2 * sizeof(uint64_t) + 2 * sizeof(uint32_t) + sizeof(int32_t), &bytes))
        return gvis_error(GVIS_E_LIMIT, "tensor too large");
    j.cands = malloc(n * sizeof(cand));
    j.keys = malloc(n * sizeof(uint64_t));
    j.keys_tmp = malloc(n * sizeof(uint64_t));
    j.idx = malloc(n * sizeof(uint32_t));
    j.idx_tmp = malloc(n * sizeof(uint32_t));
    j.chain = malloc(n * sizeof(int32_t));
    j.head = malloc((size_t)s->classes * sizeof(int32_t));
    j.count = calloc((size_t)j.parts, sizeof(size_t));
    j.bad = calloc((size_t)j.parts, sizeof(uint64_t));
    int rc;
    if (!j.cands || !j.keys || !j.keys_tmp || !j.idx || !j.idx_tmp || !j.chain || !j.head || !j.count || !j.bad)
        rc = gvis_error(GVIS_E_NOMEM, "out of memory for %zu candidate boxes", n);
    else if (ctx)
        rc = gvis_time_cpu(ctx, cpu_once, &j);
    else
        rc = cpu_once(&j);
    free(j.cands);
    free(j.keys);
    free(j.keys_tmp);
    free(j.idx);
    free(j.idx_tmp);
    free(j.chain);
    free(j.head);
    free(j.count);
    free(j.bad);
    return rc;
}

static int yolo_cpu(gvis_ctx *ctx, void *arg)
{
    return cpu_run(ctx, arg);
}

#ifdef GVIS_HAVE_CUDA
struct launch {
    const float *d_pred;
    const gvis_yolo_shape *s;
    const gvis_yolo_params *p;
    gvis_cu_yolo_scratch sc;
    void *d_out;
};

static int yolo_launch(void *arg, void *stream)
{
    struct launch *l = arg;
    return gvis_cu_yolo_run(l->d_pred, l->s->layout, l->s->rows, l->s->classes, (float)l->p->conf,
                            gvis_yolo_threshold(l->p->iou), l->p->agnostic, l->p->fast_nms, l->p->max_det, &l->sc,
                            l->d_out, stream);
}

static int device_buffer(gvis_ctx *ctx, int slot, size_t bytes, void **d, const char *what)
{
    int err = gvis_cu_buffer(ctx->job, slot, bytes, d);
    if (err == GVIS_CUDA_ERR_NOMEM)
        return gvis_error(GVIS_E_DEVICE_NOMEM, "out of device memory allocating %zu bytes for %s", bytes, what);
    return gvis_cuda_status(err, what);
}

static int yolo_cuda(gvis_ctx *ctx, void *arg)
{
    struct call *c = arg;
    const gvis_yolo_shape *s = c->s;
    size_t K = (size_t)s->classes + (s->layout == GVIS_YOLO_V5 ? 5 : 4);
    size_t in_bytes, out_bytes;
    if (gvis_mul_size(s->rows * K, sizeof(float), &in_bytes) ||
        gvis_mul_size((size_t)c->p->max_det, sizeof(gvis_cu_yolo_det), &out_bytes))
        return gvis_error(GVIS_E_LIMIT, "tensor too large");
    out_bytes += sizeof(gvis_cu_yolo_hdr);
    size_t scratch = gvis_cu_yolo_layout(NULL, s->rows, NULL);
    if (!scratch)
        return gvis_error(GVIS_E_LIMIT, "%zu boxes are too many for the GPU's NMS bitmask", s->rows);
    struct launch l = {NULL, s, c->p, {0}, NULL};
    void *d_scratch, *h_out;
    int rc;
    if ((rc = device_buffer(ctx, 0, in_bytes, (void **)&l.d_pred, "the tensor")) ||
        (rc = device_buffer(ctx, 1, scratch, &d_scratch, "the NMS scratch")) ||
        (rc = device_buffer(ctx, 2, out_bytes, &l.d_out, "the detections")))
        return rc;
    if ((rc = gvis_cuda_status(gvis_cu_host_buffer(ctx->job, 0, out_bytes, &h_out), "pinned buffer")))
        return rc;
    gvis_cu_yolo_layout(d_scratch, s->rows, &l.sc);
    double t0 = gvis_now_ms();
    int err = gvis_cu_upload2d(ctx->job, (void *)l.d_pred, in_bytes, c->pred, in_bytes, in_bytes, 1);
    if (!err)
        err = gvis_cu_sync(ctx->job);
    ctx->timing.upload_ms += gvis_now_ms() - t0;
    if ((rc = gvis_cuda_status(err, "upload")))
        return rc;
    /* The whole of d_out comes back, detections past the kept count too: give those
     * bytes a value once (outside the timed runs), not whatever the buffer held. */
    if ((rc = gvis_cuda_status(gvis_cu_memset(ctx->job, l.d_out, 0, out_bytes), "memset")))
        return rc;
    if ((rc = gvis_time_cuda(ctx, yolo_launch, &l)))
        return rc;
    if ((rc = gvis_cuda_download(ctx, h_out, l.d_out, out_bytes)))
        return rc;
    gvis_cu_yolo_hdr hdr;
    memcpy(&hdr, h_out, sizeof hdr);
    if (hdr.bad) {
        uint64_t bad = UINT64_MAX - hdr.bad;
        size_t r = s->layout == GVIS_YOLO_V5 ? bad / K : bad / s->rows;
        size_t col = s->layout == GVIS_YOLO_V5 ? bad % K : bad % s->rows;
        return gvis_error(GVIS_E_FORMAT, "%s value at element [%zu,%zu] of the tensor",
                          isnan(c->pred[bad]) ? "nan" : "infinite", r, col);
    }
    if (hdr.kept > (uint32_t)c->p->max_det)
        return gvis_error(GVIS_E_DEVICE, "the GPU kept %u boxes, more than --max-det", hdr.kept);
    c->out->count = (int)hdr.kept;
    c->out->candidates = hdr.candidates;
    memcpy(c->out->det, (char *)h_out + sizeof hdr, hdr.kept * sizeof(gvis_yolo_det));
    return GVIS_OK;
}
_Static_assert(sizeof(gvis_cu_yolo_det) == sizeof(gvis_yolo_det), "detection layouts differ");
_Static_assert(sizeof(gvis_cu_yolo_hdr) == 16, "header layout");
#else
#define yolo_cuda NULL
#endif

static int check_call(const gvis_yolo_shape *s, const gvis_yolo_params *p)
{
    int rc = gvis_yolo_check_params(p);
    if (rc)
        return rc;
    if (s->classes < 1 || s->rows < 1 || s->rows > 0x7fffffff ||
        (s->layout != GVIS_YOLO_V5 && s->layout != GVIS_YOLO_V8))
        return gvis_error(GVIS_E_ARG, "bad tensor shape");
    size_t K = (size_t)s->classes + 5, total;
    if (gvis_mul_size(s->rows, K, &total) || gvis_mul_size(total, sizeof(float), &total))
        return gvis_error(GVIS_E_LIMIT, "tensor too large");
    return GVIS_OK;
}

int gvis_yolo_decode_cpu(const float *pred, const gvis_yolo_shape *s, const gvis_yolo_params *p,
                         gvis_yolo_result *out)
{
    out->count = 0;
    out->candidates = 0;
    int rc = check_call(s, p);
    if (rc)
        return rc;
    struct call c = {pred, s, p, out};
    return cpu_run(NULL, &c);
}

int gvis_yolo_decode(gvis_ctx *ctx, const float *pred, const gvis_yolo_shape *s, const gvis_yolo_params *p,
                     gvis_yolo_result *out)
{
    out->count = 0;
    out->candidates = 0;
    int rc = check_call(s, p);
    if (rc)
        return rc;
    struct call c = {pred, s, p, out};
    return gvis_dispatch(ctx, "yolo decode", yolo_cpu, yolo_cuda, &c);
}
