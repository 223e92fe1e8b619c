/* C-callable launchers of the YOLO decode pipeline: decode + compaction
 * (yolo_decode.cu), sort by score (yolo_sort.cu), bitmask NMS (yolo_nms.cu).
 *
 * The candidate count never leaves the device between the stages: every kernel reads
 * it from the header at the start of d_out, so the launches are sized from the row
 * count alone and the host sees nothing before the final copy of d_out.
 * Plain C, like gvis_cuda.h; every entry point returns a cudaError_t as int.
 */
#ifndef GVIS_CUDA_YOLO_H
#define GVIS_CUDA_YOLO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The start of d_out.  bad: 0 when every value was finite, else UINT64_MAX minus the
 * flat index (in the tensor's memory order) of the first NaN or infinity. */
typedef struct {
    uint32_t candidates; /* rows whose score reached conf */
    uint32_t kept;       /* detections written after the header */
    uint64_t bad;
} gvis_cu_yolo_hdr;

/* One detection, after the header: the layout of gvis_yolo_det (lib/ops/yolo.h). */
typedef struct {
    float x1, y1, x2, y2;
    float score;
    int32_t cls;
    int32_t row;
    int32_t pad;
} gvis_cu_yolo_det;

/* The caller-owned scratch, carved by gvis_cu_yolo_layout for rows anchors. */
typedef struct {
    uint64_t *keys;      /* rows: (descending score key << 32) | row, compacted then sorted */
    float *box_by_row;   /* rows x 4 */
    int32_t *rec_by_row; /* rows x 2: class, score bits */
    float *sbox;         /* rows x 4, in sorted order */
    int32_t *srec;       /* rows x 2: class, score bits, in sorted order */
    int32_t *srow;       /* rows, in sorted order */
    uint32_t *rank;      /* rows: each candidate's place in the sorted order (few candidates) */
    uint64_t *kept;      /* ceil(rows/64): kept bits per 64-box tile */
    int32_t *base;       /* ceil(rows/64): detections before each tile */
    uint64_t *mask;      /* rows x ceil(rows/64): bit j of word (i, t): box 64t+j suppressed by box i */
} gvis_cu_yolo_scratch;

/* Bytes of scratch for rows anchors (0 on overflow); with d_scratch, carves it into s. */
static inline size_t gvis_cu_yolo_layout(void *d_scratch, size_t rows, gvis_cu_yolo_scratch *s)
{
    if (rows == 0 || rows > 0x7fffffffu)
        return 0;
    size_t tiles = (rows + 63) / 64;
    if (tiles > SIZE_MAX / 8 / rows)
        return 0;
    size_t sizes[10] = {rows * 8, rows * 16, rows * 8, rows * 16, rows * 8, rows * 4, tiles * 8, tiles * 4,
                        rows * tiles * 8, rows * 4};
    size_t off[10], total = 0;
    for (int i = 0; i < 10; i++) {
        off[i] = total;
        size_t a = (sizes[i] + 255) & ~(size_t)255;
        if (a < sizes[i] || total > SIZE_MAX - a)
            return 0;
        total += a;
    }
    if (d_scratch && s) {
        char *b = (char *)d_scratch;
        s->keys = (uint64_t *)(b + off[0]);
        s->box_by_row = (float *)(b + off[1]);
        s->rec_by_row = (int32_t *)(b + off[2]);
        s->sbox = (float *)(b + off[3]);
        s->srec = (int32_t *)(b + off[4]);
        s->srow = (int32_t *)(b + off[5]);
        s->kept = (uint64_t *)(b + off[6]);
        s->base = (int32_t *)(b + off[7]);
        s->mask = (uint64_t *)(b + off[8]);
        s->rank = (uint32_t *)(b + off[9]);
    }
    return total;
}

/* cuda/ops/yolo_decode.cu: zeroes the header, decodes every row (layout 5: rows x (5+classes),
 * layout 8: (4+classes) x rows), records the first non-finite value, and appends each row
 * whose score reaches conf to s->keys (order unspecified) with its box and class by row. */
int gvis_cu_yolo_decode(const float *d_pred, int layout, size_t rows, int classes, float conf,
                        const gvis_cu_yolo_scratch *s, void *d_out, void *stream);

/* cuda/ops/yolo_sort.cu: sorts the candidates' keys (descending score, then ascending row)
 * and gathers their boxes, classes, scores and rows into sorted order. */
int gvis_cu_yolo_sort(size_t rows, const gvis_cu_yolo_scratch *s, void *d_out, void *stream);

/* cuda/ops/yolo_nms.cu: the 64x64 IoU bitmask tiles, then greedy NMS (fast != 0: "fast NMS",
 * suppressed boxes still suppress) in one block; writes at most max_det detections and
 * the kept count after the header.  iou_thr is compared with a float IoU by >. */
int gvis_cu_yolo_nms(size_t rows, float iou_thr, int agnostic, int fast, int max_det,
                     const gvis_cu_yolo_scratch *s, void *d_out, void *stream);

/* cuda/ops/yolo_graph.cu: the three stages above as one CUDA graph, captured on the first
 * call with these arguments and replayed while they stay the same (else launched one
 * by one).  Thread-safe. */
int gvis_cu_yolo_run(const float *d_pred, int layout, size_t rows, int classes, float conf, float iou_thr,
                     int agnostic, int fast, int max_det, const gvis_cu_yolo_scratch *s, void *d_out, void *stream);

#ifdef __cplusplus
}
#endif
#endif
