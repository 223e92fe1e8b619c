/* Unit tests of lib/ops/yolo.c: the CPU decoder against a naive
 * reference (decode every row, stable sort, O(M^2) greedy NMS), hand-made cases at the
 * IoU threshold, ties, class-aware versus agnostic, --max-det, empty results, errors,
 * and the keep-lists made once with torchvision (testdata/yolo).  The layouts, the
 * conversion, the mapping and the drawing: test_yolo_post.c. */
#include <math.h>
#include <string.h>

#include "testlib.h"
#include "yolo.h"

/* ---- the naive reference ------------------------------------------------------ */

typedef struct {
    float b[4], score;
    int cls, row;
} rcand;

static int rcmp(const void *pa, const void *pb)
{
    const rcand *a = pa, *b = pb;
    float sa = a->score == 0 ? 0.0f : a->score, sb = b->score == 0 ? 0.0f : b->score;
    if (sa != sb)
        return sa > sb ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static float ref_iou(const float *a, const float *b)
{
    float l = a[0] > b[0] ? a[0] : b[0], r = a[2] < b[2] ? a[2] : b[2];
    float t = a[1] > b[1] ? a[1] : b[1], bo = a[3] < b[3] ? a[3] : b[3];
    float w = r - l, h = bo - t;
    w = w > 0 ? w : 0;
    h = h > 0 ? h : 0;
    float inter = w * h;
    float aa = (a[2] - a[0]) * (a[3] - a[1]);
    float ab = (b[2] - b[0]) * (b[3] - b[1]);
    float u = aa + ab;
    u = u - inter;
    return inter / u;
}

/* Returns the number of detections written to out (at most p->max_det). */
static int reference(const float *pred, const gvis_yolo_shape *s, const gvis_yolo_params *p, gvis_yolo_det *out,
                     size_t *ncand)
{
    size_t N = s->rows;
    int C = s->classes;
    float conf = (float)p->conf;
    rcand *c = malloc((N ? N : 1) * sizeof *c);
    size_t m = 0;
    for (size_t r = 0; r < N; r++) {
        float v[4], obj = 1, best = 0;
        int bi = -1;
        for (int k = 0; k < 4; k++)
            v[k] = s->layout == GVIS_YOLO_V5 ? pred[r * (size_t)(C + 5) + k] : pred[(size_t)k * N + r];
        if (s->layout == GVIS_YOLO_V5)
            obj = pred[r * (size_t)(C + 5) + 4];
        for (int k = 0; k < C; k++) {
            float x = s->layout == GVIS_YOLO_V5 ? pred[r * (size_t)(C + 5) + 5 + k] : pred[(size_t)(4 + k) * N + r];
            if (bi < 0 || x > best) {
                best = x;
                bi = k;
            }
        }
        float score = s->layout == GVIS_YOLO_V5 ? obj * best : best;
        if ((s->layout == GVIS_YOLO_V5 && !(obj >= conf)) || !(score >= conf))
            continue;
        c[m].b[0] = v[0] - v[2] / 2;
        c[m].b[1] = v[1] - v[3] / 2;
        c[m].b[2] = v[0] + v[2] / 2;
        c[m].b[3] = v[1] + v[3] / 2;
        c[m].score = score;
        c[m].cls = bi;
        c[m].row = (int)r;
        m++;
    }
    *ncand = m;
    qsort(c, m, sizeof *c, rcmp);
    char *sup = calloc(m ? m : 1, 1);
    int n = 0;
    for (size_t i = 0; i < m && n < p->max_det; i++) {
        if (sup[i])
            continue;
        gvis_yolo_det *d = &out[n++];
        d->x1 = c[i].b[0];
        d->y1 = c[i].b[1];
        d->x2 = c[i].b[2];
        d->y2 = c[i].b[3];
        d->score = c[i].score;
        d->cls = c[i].cls;
        d->row = c[i].row;
        for (size_t j = i + 1; j < m; j++)
            if ((p->agnostic || c[j].cls == c[i].cls) && (double)ref_iou(c[i].b, c[j].b) > p->iou)
                sup[j] = 1;
    }
    if (p->fast_nms) { /* recompute: suppressed by any earlier candidate */
        n = 0;
        for (size_t i = 0; i < m && n < p->max_det; i++) {
            int s2 = 0;
            for (size_t j = 0; j < i && !s2; j++)
                s2 = (p->agnostic || c[j].cls == c[i].cls) && (double)ref_iou(c[j].b, c[i].b) > p->iou;
            if (s2)
                continue;
            gvis_yolo_det *d = &out[n++];
            d->x1 = c[i].b[0];
            d->y1 = c[i].b[1];
            d->x2 = c[i].b[2];
            d->y2 = c[i].b[3];
            d->score = c[i].score;
            d->cls = c[i].cls;
            d->row = c[i].row;
        }
    }
    free(sup);
    free(c);
    return n;
}

static int same_det(const gvis_yolo_det *a, const gvis_yolo_det *b)
{
    return a->row == b->row && a->cls == b->cls && memcmp(&a->score, &b->score, 4) == 0 &&
           memcmp(&a->x1, &b->x1, 16) == 0;
}

static void compare(const char *what, const float *pred, const gvis_yolo_shape *s, const gvis_yolo_params *p)
{
    gvis_yolo_det *want = calloc((size_t)p->max_det, sizeof *want);
    gvis_yolo_det *got = calloc((size_t)p->max_det, sizeof *got);
    size_t ncand;
    int n = reference(pred, s, p, want, &ncand);
    gvis_yolo_result r = {got, 0, 0};
    CHECK_OK(gvis_yolo_decode_cpu(pred, s, p, &r));
    CHECKF(r.count == n, "%s: %d detections, reference %d", what, r.count, n);
    CHECKF(r.candidates == ncand, "%s: %zu candidates, reference %zu", what, r.candidates, ncand);
    int bad = 0;
    for (int i = 0; i < n && i < r.count && !bad; i++)
        if (!same_det(&got[i], &want[i])) {
            bad = 1;
            CHECKF(0, "%s: detection %d: row %d class %d score %.9g, reference row %d class %d score %.9g", what, i,
                   got[i].row, got[i].cls, got[i].score, want[i].row, want[i].cls, want[i].score);
        }
    free(want);
    free(got);
}

/* ---- tensors ------------------------------------------------------------------- */

/* Random v5 tensor: background noise plus clusters (like torch_cv2_peers.py), values
 * quantized to 1/16 so that exact ties in scores and IoUs occur. */
static float *make_v5(size_t N, int C, int objects, int quant)
{
    size_t K = (size_t)C + 5;
    float *p = malloc(N * K * sizeof *p);
    for (size_t r = 0; r < N; r++) {
        float *q = p + r * K;
        q[0] = (float)(t_uniform() * 640);
        q[1] = (float)(t_uniform() * 640);
        q[2] = (float)(8 + t_uniform() * 192);
        q[3] = (float)(8 + t_uniform() * 192);
        q[4] = (float)pow(t_uniform(), 6);
        for (int k = 0; k < C; k++)
            q[5 + k] = (float)pow(t_uniform(), 5);
    }
    for (int o = 0; o < objects && N > 0; o++) {
        double cx = 50 + t_uniform() * 540, cy = 50 + t_uniform() * 540, w = 30 + t_uniform() * 270,
               h = 30 + t_uniform() * 270;
        int cls = (int)(t_rand() % (uint64_t)C);
        for (int k = 0; k < 60; k++) {
            float *q = p + (t_rand() % N) * K;
            q[0] = (float)(cx + (t_uniform() - 0.5) * 12);
            q[1] = (float)(cy + (t_uniform() - 0.5) * 12);
            q[2] = (float)(w * (0.9 + t_uniform() * 0.2));
            q[3] = (float)(h * (0.9 + t_uniform() * 0.2));
            q[4] = (float)(0.5 + t_uniform() * 0.49);
            q[5 + cls] = (float)(0.6 + t_uniform() * 0.39);
        }
    }
    if (quant)
        for (size_t i = 0; i < N * K; i++)
            p[i] = roundf(p[i] * 16) / 16;
    return p;
}

static float *transpose(const float *p, size_t N, size_t K)
{
    float *t = malloc(N * K * sizeof *t);
    for (size_t r = 0; r < N; r++)
        for (size_t k = 0; k < K; k++)
            t[k * N + r] = p[r * K + k];
    return t;
}

/* A v8 tensor with the same boxes and classes as a v5 one: objectness folded in. */
static float *v5_to_v8(const float *p, size_t N, int C)
{
    size_t K = (size_t)C + 5;
    float *q = malloc(N * (K - 1) * sizeof *q);
    for (size_t r = 0; r < N; r++) {
        for (int k = 0; k < 4; k++)
            q[(size_t)k * N + r] = p[r * K + k];
        for (int k = 0; k < C; k++)
            q[(size_t)(4 + k) * N + r] = p[r * K + 4] * p[r * K + 5 + k];
    }
    return q;
}

static void random_cases(void)
{
    struct { size_t n; int c, objects, quant; } cases[] = {
        {1, 1, 0, 0}, {7, 3, 1, 1}, {631, 80, 5, 0}, {631, 2, 4, 1}, {2000, 80, 20, 1}, {25200, 80, 20, 0},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        size_t N = cases[ci].n;
        int C = cases[ci].c;
        float *p = make_v5(N, C, cases[ci].objects, cases[ci].quant);
        float *q = v5_to_v8(p, N, C);
        gvis_yolo_shape s5 = {GVIS_YOLO_V5, N, C}, s8 = {GVIS_YOLO_V8, N, C};
        double confs[] = {0.25, 0.05, 0.0};
        double ious[] = {0.45, 0.5, 0.0, 1.0};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 4; b++)
                for (int mode = 0; mode < 4; mode++) {
                    if (N > 5000 && (a == 2 || mode == 3))
                        continue; /* the O(M^2) reference on every row is too slow there */
                    gvis_yolo_params p0 = {confs[a], ious[b], mode & 1, mode >> 1, mode == 2 ? 7 : 300};
                    char what[128];
                    snprintf(what, sizeof what, "N=%zu C=%d conf=%g iou=%g agnostic=%d fast=%d", N, C, confs[a],
                             ious[b], p0.agnostic, p0.fast_nms);
                    compare(what, p, &s5, &p0);
                    compare(what, q, &s8, &p0);
                }
        free(p);
        free(q);
    }
}

/* One v5 row: box (cx, cy, w, h), objectness, and a class score. */
static void row5(float *q, int C, float cx, float cy, float w, float h, float obj, int cls, float sc)
{
    q[0] = cx;
    q[1] = cy;
    q[2] = w;
    q[3] = h;
    q[4] = obj;
    for (int k = 0; k < C; k++)
        q[5 + k] = 0;
    q[5 + cls] = sc;
}

static gvis_yolo_result run(const float *p, size_t N, int C, gvis_yolo_params prm, gvis_yolo_det *buf)
{
    gvis_yolo_shape s = {GVIS_YOLO_V5, N, C};
    gvis_yolo_result r = {buf, 0, 0};
    CHECK_OK(gvis_yolo_decode_cpu(p, &s, &prm, &r));
    return r;
}

static void hand_cases(void)
{
    enum { C = 3, K = C + 5 };
    float p[8 * K];
    gvis_yolo_det d[16];
    gvis_yolo_params prm = {0.25, 0.5, 0, 0, 300};

    /* IoU exactly 0.5: [0,0,2,1] and [0,0,1,1] */
    row5(p, C, 1, 0.5f, 2, 1, 1, 0, 0.9f);
    row5(p + K, C, 0.5f, 0.5f, 1, 1, 1, 0, 0.8f);
    float a[4] = {0, 0, 2, 1}, b[4] = {0, 0, 1, 1};
    CHECK(gvis_yolo_iou(a, b) == 0.5f);
    gvis_yolo_result r = run(p, 2, C, prm, d);
    CHECKF(r.count == 2, "IoU == threshold must not suppress: %d kept", r.count);
    prm.iou = 0.49999;
    r = run(p, 2, C, prm, d);
    CHECKF(r.count == 1 && d[0].row == 0, "IoU above threshold suppresses: %d kept", r.count);
    /* a threshold between 0.5f's neighbours: 0.5 > 0.50000001 is false */
    prm.iou = 0.50000001;
    r = run(p, 2, C, prm, d);
    CHECK(r.count == 2);

    /* IoU 1/3 at --iou 1/3 (not a float): the float IoU is compared exactly with the double */
    row5(p, C, 1, 0.5f, 2, 1, 1, 0, 0.9f);        /* [0,0,2,1] */
    row5(p + K, C, 2, 0.5f, 2, 1, 1, 0, 0.8f);    /* [1,0,3,1]: inter 1, union 3 */
    float e[4] = {1, 0, 3, 1};
    float i13 = gvis_yolo_iou(a, e);
    prm.iou = 1.0 / 3;
    r = run(p, 2, C, prm, d);
    CHECKF(r.count == ((double)i13 > 1.0 / 3 ? 1 : 2), "iou 1/3: %d kept (float iou %.9g)", r.count, i13);
    CHECK(gvis_yolo_threshold(1.0 / 3) <= 1.0 / 3 && nextafterf(gvis_yolo_threshold(1.0 / 3), 1) > 1.0 / 3);
    CHECK(gvis_yolo_threshold(0.5) == 0.5f);
    CHECK((double)gvis_yolo_threshold(0.3) <= 0.3);

    /* ties: equal scores keep the lower row; the identical box of the higher row goes */
    prm.iou = 0.45;
    row5(p, C, 50, 50, 20, 20, 1, 1, 0.7f);
    row5(p + K, C, 50, 50, 20, 20, 1, 1, 0.7f);
    row5(p + 2 * K, C, 200, 50, 20, 20, 1, 1, 0.7f);
    r = run(p, 3, C, prm, d);
    CHECKF(r.count == 2 && d[0].row == 0 && d[1].row == 2, "ties: %d kept, first row %d", r.count, d[0].row);

    /* class-aware vs agnostic: the same box in two classes */
    row5(p, C, 50, 50, 20, 20, 1, 0, 0.9f);
    row5(p + K, C, 52, 50, 20, 20, 1, 2, 0.8f);
    r = run(p, 2, C, prm, d);
    CHECK(r.count == 2 && d[0].cls == 0 && d[1].cls == 2);
    prm.agnostic = 1;
    r = run(p, 2, C, prm, d);
    CHECK(r.count == 1 && d[0].row == 0);
    prm.agnostic = 0;

    /* greedy vs fast NMS: A suppresses B, B would suppress C, A does not touch C */
    row5(p, C, 10, 10, 10, 10, 1, 0, 0.9f);      /* [5,5,15,15] */
    row5(p + K, C, 16, 10, 10, 10, 1, 0, 0.8f);  /* [11,5,21,15]: IoU with A 4/16 */
    row5(p + 2 * K, C, 22, 10, 10, 10, 1, 0, 0.7f);
    prm.iou = 0.2;
    r = run(p, 3, C, prm, d);
    CHECKF(r.count == 2 && d[0].row == 0 && d[1].row == 2, "greedy: %d kept", r.count);
    prm.fast_nms = 1;
    r = run(p, 3, C, prm, d);
    CHECKF(r.count == 1 && d[0].row == 0, "fast: %d kept", r.count);
    prm.fast_nms = 0;

    /* --max-det, and the order: descending score */
    for (int i = 0; i < 8; i++)
        row5(p + i * K, C, 30.0f * (float)i, 0, 10, 10, 1, i % C, 0.3f + 0.05f * (float)i);
    prm.max_det = 3;
    r = run(p, 8, C, prm, d);
    CHECK(r.count == 3 && r.candidates == 8 && d[0].row == 7 && d[1].row == 6 && d[2].row == 5);
    prm.max_det = 300;

    /* objectness below conf drops a row although obj*cls would not matter; empty result */
    row5(p, C, 10, 10, 10, 10, 0.2f, 0, 1.0f);
    r = run(p, 1, C, prm, d);
    CHECK(r.count == 0 && r.candidates == 0);
    /* v5 score is obj*cls: 0.5*0.4 < 0.25 */
    row5(p, C, 10, 10, 10, 10, 0.5f, 0, 0.4f);
    r = run(p, 1, C, prm, d);
    CHECK(r.count == 0);
    /* score exactly at conf is kept */
    row5(p, C, 10, 10, 10, 10, 0.5f, 0, 0.5f);
    r = run(p, 1, C, prm, d);
    CHECK(r.count == 1 && d[0].score == 0.25f && d[0].x1 == 5 && d[0].y2 == 15);
    /* first of equal class scores wins */
    row5(p, C, 10, 10, 10, 10, 1, 0, 0.5f);
    p[5 + 2] = 0.5f;
    r = run(p, 1, C, prm, d);
    CHECK(r.count == 1 && d[0].cls == 0);

    /* non-finite values are errors naming the element, also in a row below conf */
    row5(p, C, 10, 10, 10, 10, 0.01f, 0, 0.5f);
    row5(p + K, C, 10, 10, 10, 10, 0.9f, 0, 0.5f);
    p[K + 6] = NAN;
    gvis_yolo_shape s = {GVIS_YOLO_V5, 2, C};
    gvis_yolo_result rr = {d, 0, 0};
    CHECK(gvis_yolo_decode_cpu(p, &s, &prm, &rr) == GVIS_E_FORMAT);
    CHECKF(strstr(gvis_errmsg(), "nan value at element [1,6]") != NULL, "%s", gvis_errmsg());
    p[K + 6] = 0;
    p[3] = -INFINITY;
    CHECK(gvis_yolo_decode_cpu(p, &s, &prm, &rr) == GVIS_E_FORMAT);
    CHECKF(strstr(gvis_errmsg(), "infinite value at element [0,3]") != NULL, "%s", gvis_errmsg());
    /* v8 element names are [channel, anchor] */
    float *t = transpose(p, 2, K); /* 8 x 2: a v8 tensor of C+1 classes */
    gvis_yolo_shape s8 = {GVIS_YOLO_V8, 2, C + 1};
    CHECK(gvis_yolo_decode_cpu(t, &s8, &prm, &rr) == GVIS_E_FORMAT);
    CHECKF(strstr(gvis_errmsg(), "infinite value at element [3,0]") != NULL, "%s", gvis_errmsg());
    free(t);

    /* bad parameters */
    p[3] = 10;
    gvis_yolo_params bp = prm;
    bp.max_det = 0;
    CHECK(gvis_yolo_decode_cpu(p, &s, &bp, &rr) == GVIS_E_ARG);
    bp = prm;
    bp.iou = 1.5;
    CHECK(gvis_yolo_decode_cpu(p, &s, &bp, &rr) == GVIS_E_ARG);
    bp = prm;
    bp.conf = -0.1;
    CHECK(gvis_yolo_decode_cpu(p, &s, &bp, &rr) == GVIS_E_ARG);
}

/* torchvision's batched_nms shifts the boxes of class c by c * (max coordinate + 1)
 * (its "coordinate trick", used below 1000 boxes on the CPU and 5000 on CUDA): the
 * shifted float coordinates are rounded, so an IoU close to the threshold can fall on
 * the other side.  gvis decides on the unshifted boxes, as batched_nms's per-class path
 * and nms() on each class do.  This finds such a pair and checks the unshifted rule. */
static void offset_case(void)
{
    enum { C = 80, K = C + 5 };
    float a[4] = {100, 100, 200, 200}, b[4], sa[4], sb[4];
    float off = 79.0f * (640.0f + 1.0f), thr = gvis_yolo_threshold(0.45);
    int found = 0, plain = 0;
    for (int k = 0; k < 20000 && !found; k++) {
        float d = 37.9f + (float)k * 1e-5f;
        /* b as the decoder builds it from cx, cy, w, h */
        float cx = 150 + d, w = 100;
        b[0] = cx - w * 0.5f, b[1] = 100, b[2] = cx + w * 0.5f, b[3] = 200;
        for (int i = 0; i < 4; i++) {
            sa[i] = a[i] + off;
            sb[i] = b[i] + off;
        }
        plain = gvis_yolo_iou(a, b) > thr;
        found = plain != (gvis_yolo_iou(sa, sb) > thr);
    }
    CHECKF(found, "no IoU near 0.45 that the class offset rounds across the threshold");
    float p[3 * K];
    row5(p, C, 150, 150, 100, 100, 1, 79, 0.9f);                                        /* a */
    row5(p + K, C, b[0] + 50, 150, 100, 100, 1, 79, 0.8f);                             /* b */
    row5(p + 2 * K, C, 620, 620, 40, 40, 1, 0, 0.7f);                                  /* max coordinate 640 */
    gvis_yolo_det d[4];
    gvis_yolo_params prm = {0.25, 0.45, 0, 0, 300};
    gvis_yolo_result r = run(p, 3, C, prm, d);
    CHECK(r.count >= 2 && d[0].row == 0);
    int b_kept = 0;
    for (int i = 0; i < r.count; i++)
        if (d[i].row == 1) {
            b_kept = 1;
            CHECK(d[i].x1 == b[0] && d[i].x2 == b[2]);
        }
    CHECKF(b_kept == !plain, "class-aware NMS must decide on the unshifted boxes (b kept %d, plain IoU > thr %d)",
           b_kept, plain);
}

/* ---- the torchvision keep-lists ----------------------------------------------- */

static int load_npy(const char *path, gvis_array *a)
{
    gvis_buf b = {0};
    int rc = gvis_read_file(path, &b, 0);
    if (!rc)
        rc = gvis_npy_decode(b.data, b.len, 0, a);
    gvis_buf_free(&b);
    return rc;
}

static void golden_cases(void)
{
    const char *dir = getenv("TESTDATA");
    char path[1024];
    static const char *cases[] = {"random", "clustered", "ties"};
    static const struct { const char *name; double iou; int agnostic; } modes[] = {
        {"aware045", 0.45, 0}, {"aware050", 0.5, 0}, {"agnostic045", 0.45, 1}, {"aware070", 0.7, 0},
    };
    int found = 0;
    for (int ci = 0; ci < 3; ci++) {
        snprintf(path, sizeof path, "%s/yolo/%s_cands.npy", dir ? dir : "testdata", cases[ci]);
        gvis_array a;
        if (load_npy(path, &a))
            continue;
        found++;
        float *c;
        CHECK_OK(gvis_yolo_to_f32(&a, &c));
        size_t M = a.shape[0];
        int C = 80;
        /* a v5 tensor: objectness 1, the class score at the candidate's class */
        size_t K = (size_t)C + 5;
        float *p = calloc(M * K, sizeof *p);
        for (size_t r = 0; r < M; r++) {
            for (int k = 0; k < 4; k++)
                p[r * K + k] = c[r * 6 + k];
            p[r * K + 4] = 1;
            p[r * K + 5 + (int)c[r * 6 + 5]] = c[r * 6 + 4];
        }
        float *q = v5_to_v8(p, M, C);
        gvis_yolo_shape s5 = {GVIS_YOLO_V5, M, C}, s8 = {GVIS_YOLO_V8, M, C};
        for (int mi = 0; mi < 4; mi++) {
            snprintf(path, sizeof path, "%s/yolo/%s_keep_%s.npy", dir ? dir : "testdata", cases[ci], modes[mi].name);
            gvis_array k;
            if (load_npy(path, &k)) {
                CHECKF(0, "%s: %s", path, gvis_errmsg());
                continue;
            }
            CHECK(k.dtype == GVIS_DT_I32);
            const int32_t *keep = k.data;
            size_t nk = k.shape[0];
            gvis_yolo_params prm = {0.0, modes[mi].iou, modes[mi].agnostic, 0, (int)(M > 0 ? M : 1)};
            gvis_yolo_det *d = calloc(M, sizeof *d);
            for (int layout = 0; layout < 2; layout++) {
                gvis_yolo_result r = {d, 0, 0};
                CHECK_OK(gvis_yolo_decode_cpu(layout ? q : p, layout ? &s8 : &s5, &prm, &r));
                CHECKF((size_t)r.count == nk, "%s: %d kept, torchvision %zu", path, r.count, nk);
                size_t diff = 0;
                for (size_t i = 0; i < nk && i < (size_t)r.count; i++)
                    diff += d[i].row != keep[i];
                CHECKF(diff == 0, "%s: %zu of %zu rows differ from torchvision's", path, diff, nk);
            }
            free(d);
            gvis_array_free(&k);
        }
        free(p);
        free(q);
        free(c);
        gvis_array_free(&a);
    }
    CHECKF(found == 3, "the torchvision keep-lists in testdata/yolo: %d of 3 cases found", found);
}

int main(void)
{
    t_seed(0);
    hand_cases();
    offset_case();
    random_cases();
    golden_cases();
    return t_done("test_yolo");
}
