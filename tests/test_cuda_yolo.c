/* CUDA vs CPU parity of yolo-decode: the same detections in the same order with
 * bit-identical boxes and scores, on awkward sizes (1 row, tile and sort-chunk edges,
 * several sort chunks, candidate counts past the reduce kernel's prefetch), both
 * layouts, class-aware, agnostic, fast NMS, --max-det; the same error for a NaN; and
 * the torchvision keep-lists; candidate counts about the sort's chunk edges (2048, 4096).
 * Exits 77 where no GPU is usable. */
#include <math.h>
#include <string.h>

#include "testlib.h"
#include "yolo.h"

static float *make(size_t N, int C, int layout, double density)
{
    size_t K = (size_t)C + (layout == GVIS_YOLO_V5 ? 5 : 4);
    float *p = malloc(N * K * sizeof *p);
    for (size_t r = 0; r < N; r++) {
        float v[4] = {(float)(t_uniform() * 640), (float)(t_uniform() * 640), (float)(8 + t_uniform() * 120),
                      (float)(8 + t_uniform() * 120)};
        /* clusters: every 16th row copies a nearby earlier box, quantized for exact ties */
        if (r % 16 == 5 && r > 16) {
            size_t src = r - 1 - t_rand() % 16;
            for (int k = 0; k < 4; k++)
                v[k] = layout == GVIS_YOLO_V5 ? p[src * K + k] : p[(size_t)k * N + src];
            v[0] += (float)(t_rand() % 5) * 0.5f;
        }
        for (size_t k = 0; k < K; k++) {
            float x = k < 4 ? v[k] : (float)(t_uniform() < density ? t_uniform() : t_uniform() * 0.1);
            if (k >= 4 && t_rand() % 8 == 0)
                x = 0.5f; /* ties in class scores and objectness */
            if (layout == GVIS_YOLO_V5)
                p[r * K + k] = x;
            else
                p[k * N + r] = x;
        }
    }
    return p;
}

/* A second context with --repeat 3: its calls go through the replayed CUDA graph. */
static gvis_ctx *gpu3;
static int quick, ncalls;

static void parity(gvis_ctx *gpu, const char *what, const float *p, const gvis_yolo_shape *s,
                   const gvis_yolo_params *prm)
{
    gvis_yolo_det *a = calloc((size_t)prm->max_det, sizeof *a), *b = calloc((size_t)prm->max_det, sizeof *b);
    gvis_yolo_result ra = {a, 0, 0}, rb = {b, 0, 0};
    CHECK_OK(gvis_yolo_decode_cpu(p, s, prm, &ra));
    CHECK_OK(gvis_yolo_decode(gpu, p, s, prm, &rb));
    if (getenv("GVIS_TEST_PROGRESS"))
        fprintf(stderr, "%s\n", what);
    /* under racecheck (quick 2) the graph replay is checked on every fourth call */
    if (gpu3 && s->rows <= 5000 && (quick < 2 || ncalls++ % 4 == 0)) {
        gvis_yolo_det *c = calloc((size_t)prm->max_det, sizeof *c);
        gvis_yolo_result rc = {c, 0, 0};
        CHECK_OK(gvis_yolo_decode(gpu3, p, s, prm, &rc));
        CHECKF(rc.count == rb.count && memcmp(c, b, (size_t)rb.count * sizeof *c) == 0,
               "%s: the replayed graph gives other detections (%d, %d)", what, rc.count, rb.count);
        free(c);
    }
    CHECKF(ra.count == rb.count && ra.candidates == rb.candidates, "%s: cpu %d of %zu, cuda %d of %zu", what,
           ra.count, ra.candidates, rb.count, rb.candidates);
    int n = ra.count < rb.count ? ra.count : rb.count;
    int diff = 0;
    for (int i = 0; i < n; i++)
        diff += memcmp(&a[i], &b[i], 28) != 0;
    CHECKF(diff == 0, "%s: %d of %d detections differ (first at %d)", what, diff, n, diff);
    if (diff)
        for (int i = 0; i < n; i++)
            if (memcmp(&a[i], &b[i], 28)) {
                fprintf(stderr, "  %d: cpu row %d cls %d %.9g, cuda row %d cls %d %.9g\n", i, a[i].row, a[i].cls,
                        a[i].score, b[i].row, b[i].cls, b[i].score);
                break;
            }
    free(a);
    free(b);
}

/* GVIS_TEST_QUICK=1 leaves out the large tensors, 2 also the middle ones and the
 * goldens (for compute-sanitizer runs). */
static void sizes(gvis_ctx *gpu)
{
    size_t rows[] = {1, 2, 63, 64, 65, 631, 2047, 2048, 2049, 4097, 25200, 100800};
    int classes[] = {1, 3, 80};
    for (size_t ri = 0; ri < sizeof rows / sizeof *rows; ri++)
        for (int ci = 0; ci < 3; ci++)
            for (int layout = 5; layout <= 8; layout += 3) {
                size_t N = rows[ri];
                int C = classes[ci];
                if ((N >= 25200 && (C != 80 || quick)) ||
                    (quick > 1 && (N > 2049 || C == 1 || N == 2 || N == 64 || N == 2047 || N == 2048)))
                    continue;
                float *p = make(N, C, layout, 0.3);
                gvis_yolo_shape s = {(gvis_yolo_layout)layout, N, C};
                double confs[] = {0.25, 0.0};
                for (int a = 0; a < 2; a++)
                    for (int mode = 0; mode < 4; mode++) {
                        if (N > 5000 && a == 1 && mode != 0)
                            continue;
                        gvis_yolo_params prm = {confs[a], mode == 3 ? 0.7 : 0.45, mode == 1, mode == 2,
                                                mode == 3 ? 5 : (int)(N < 300 ? 300 : N)};
                        char what[160];
                        snprintf(what, sizeof what, "v%d N=%zu C=%d conf=%g mode=%d", layout, N, C, confs[a], mode);
                        parity(gpu, what, p, &s, &prm);
                    }
                free(p);
            }
}

static void errors(gvis_ctx *gpu)
{
    size_t N = 3000;
    int C = 80;
    for (int layout = 5; layout <= 8; layout += 3) {
        float *p = make(N, C, layout, 0.3);
        size_t K = (size_t)C + (layout == 5 ? 5 : 4);
        p[1234 * K / 2 + 7] = NAN;
        p[2000 * K + 3] = INFINITY;
        gvis_yolo_shape s = {(gvis_yolo_layout)layout, N, C};
        gvis_yolo_params prm = {0.25, 0.45, 0, 0, 300};
        gvis_yolo_det d[300];
        gvis_yolo_result r = {d, 0, 0};
        CHECK(gvis_yolo_decode_cpu(p, &s, &prm, &r) == GVIS_E_FORMAT);
        char cpu_msg[256];
        snprintf(cpu_msg, sizeof cpu_msg, "%s", gvis_errmsg());
        CHECK(gvis_yolo_decode(gpu, p, &s, &prm, &r) == GVIS_E_FORMAT);
        CHECKF(strcmp(cpu_msg, gvis_errmsg()) == 0, "cpu '%s', cuda '%s'", cpu_msg, gvis_errmsg());
        free(p);
    }
}

/* A tensor of N rows of which exactly M (chosen at random) score at least 0.25, with
 * five score values among them (ties broken by row) and make()'s clustered boxes. */
static float *make_count(size_t N, int C, int layout, size_t M)
{
    float *p = make(N, C, layout, 0.3);
    size_t K = (size_t)C + (layout == GVIS_YOLO_V5 ? 5 : 4), first = layout == GVIS_YOLO_V5 ? 5 : 4;
    size_t *idx = malloc(N * sizeof *idx);
    for (size_t r = 0; r < N; r++)
        idx[r] = r;
    for (size_t i = 0; i < M; i++) { /* the first M of a random permutation */
        size_t j = i + t_rand() % (N - i), x = idx[i];
        idx[i] = idx[j];
        idx[j] = x;
    }
#define AT(r, k) (*(layout == GVIS_YOLO_V5 ? &p[(r) * K + (k)] : &p[(k) * N + (r)]))
    for (size_t r = 0; r < N; r++) {
        if (layout == GVIS_YOLO_V5)
            AT(r, 4) = 0.0f; /* objectness 0: below conf */
        for (size_t k = first; k < K; k++)
            AT(r, k) = (float)(t_uniform() * 0.1);
    }
    for (size_t i = 0; i < M; i++) {
        size_t r = idx[i];
        if (layout == GVIS_YOLO_V5)
            AT(r, 4) = 1.0f;
        size_t k = first + t_rand() % (size_t)C;
        AT(r, k) = 0.5f + 0.125f * (float)(t_rand() % 5);
    }
#undef AT
    free(idx);
    return p;
}

/* Candidate counts about the sort's chunk edges (2048 and 4096 candidates a chunk, one or
 * more chunks and the merge), each against the CPU and (N <= 5000) through the replayed
 * graph.  Counts innermost: consecutive calls differ in their data only. */
static void chunk_edges(gvis_ctx *gpu)
{
    static const size_t counts[] = {0, 1, 1024, 2047, 2048, 2049, 4095, 4096, 4097};
    const size_t N = 4800;
    for (int mode = 0; mode < 5; mode++)
        for (int lc = 0; lc < 3; lc++) {
            int layout = lc == 2 ? 8 : 5, C = lc == 1 ? 3 : 80;
            if (quick > 1 && (mode > 0 || lc > 0))
                continue;
            gvis_yolo_shape s = {(gvis_yolo_layout)layout, N, C};
            /* aware, agnostic, fast, --max-det 5 at iou 0.7, agnostic fast --max-det 100 */
            gvis_yolo_params prm = {0.25, mode == 3 ? 0.7 : 0.45, mode == 1 || mode == 4, mode == 2 || mode == 4,
                                    mode == 3 ? 5 : mode == 4 ? 100 : (int)N};
            for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
                size_t M = counts[ci];
                if (quick > 1 && M != 2048 && M != 2049)
                    continue;
                float *p = make_count(N, C, layout, M);
                gvis_yolo_det *d = calloc(N, sizeof *d);
                gvis_yolo_result r = {d, 0, 0};
                CHECK_OK(gvis_yolo_decode_cpu(p, &s, &prm, &r));
                CHECKF(r.candidates == M, "the tensor has %zu candidates, not %zu", r.candidates, M);
                char what[160];
                snprintf(what, sizeof what, "v%d N=%zu C=%d candidates=%zu mode=%d", layout, N, C, M, mode);
                parity(gpu, what, p, &s, &prm);
                free(d);
                free(p);
            }
        }
}

static int load_npy(const char *path, gvis_array *a)
{
    gvis_buf b = {0};
    int rc = gvis_read_file(path, &b, 0);
    if (!rc)
        rc = gvis_npy_decode(b.data, b.len, 0, a);
    gvis_buf_free(&b);
    return rc;
}

static void goldens(gvis_ctx *gpu)
{
    const char *dir = getenv("TESTDATA");
    static const char *cases[] = {"random", "clustered", "ties"};
    static const struct { const char *name; double iou; int agnostic; } modes[] = {
        {"aware045", 0.45, 0}, {"aware050", 0.5, 0}, {"agnostic045", 0.45, 1}, {"aware070", 0.7, 0},
    };
    int found = 0;
    for (int ci = 0; ci < 3; ci++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/yolo/%s_cands.npy", dir ? dir : "testdata", cases[ci]);
        gvis_array a;
        if (load_npy(path, &a))
            continue;
        found++;
        float *c;
        CHECK_OK(gvis_yolo_to_f32(&a, &c));
        size_t M = a.shape[0], K = 85;
        float *p = calloc(M * K, sizeof *p);
        for (size_t r = 0; r < M; r++) {
            memcpy(p + r * K, c + r * 6, 4 * sizeof *p);
            p[r * K + 4] = 1;
            p[r * K + 5 + (int)c[r * 6 + 5]] = c[r * 6 + 4];
        }
        gvis_yolo_shape s = {GVIS_YOLO_V5, M, 80};
        for (int mi = 0; mi < 4; mi++) {
            snprintf(path, sizeof path, "%s/yolo/%s_keep_%s.npy", dir ? dir : "testdata", cases[ci], modes[mi].name);
            gvis_array k;
            if (load_npy(path, &k)) {
                CHECKF(0, "%s: %s", path, gvis_errmsg());
                continue;
            }
            gvis_yolo_params prm = {0.0, modes[mi].iou, modes[mi].agnostic, 0, (int)M};
            gvis_yolo_det *d = calloc(M, sizeof *d);
            gvis_yolo_result r = {d, 0, 0};
            CHECK_OK(gvis_yolo_decode(gpu, p, &s, &prm, &r));
            size_t nk = k.shape[0], diff = 0;
            const int32_t *keep = k.data;
            CHECKF((size_t)r.count == nk, "%s: cuda keeps %d, torchvision %zu", path, r.count, nk);
            for (size_t i = 0; i < nk && i < (size_t)r.count; i++)
                diff += d[i].row != keep[i];
            CHECKF(diff == 0, "%s: %zu rows differ from torchvision's", path, diff);
            char what[1100];
            snprintf(what, sizeof what, "%s parity", path);
            parity(gpu, what, p, &s, &prm);
            free(d);
            gvis_array_free(&k);
        }
        free(p);
        free(c);
        gvis_array_free(&a);
    }
    CHECKF(found == 3, "torchvision keep-lists: %d of 3 cases found", found);
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    if (gvis_ctx_create(&gpu3, "cuda", 3, NULL, NULL, NULL) != GVIS_OK) {
        fprintf(stderr, "cuda context: %s\n", gvis_errmsg());
        return 1;
    }
    t_seed(0);
    quick = t_quick();
    sizes(gpu);
    chunk_edges(gpu);
    if (quick < 2) {
        errors(gpu);
        goldens(gpu);
    }
    gvis_ctx_free(gpu3);
    gvis_ctx_free(gpu);
    return t_done("test_cuda_yolo");
}
