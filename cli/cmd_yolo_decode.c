/* gvis yolo-decode: YOLOv5 / YOLOv8 outputs to detections (JSON Lines, JSON, CSV,
 * YOLO labels) or to boxes drawn on an image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "matrix.h"
#include "yolo.h"

enum out_kind { OUT_JSONL, OUT_JSON, OUT_CSV, OUT_TXT, OUT_IMAGE };

struct yolo_opts {
    gvis_yolo_params p;
    gvis_yolo_layout layout;
    int classes;
    int json;
    const char *matrix_path;
    const char *names_path;
    const char *draw;
    size_t shape[2];    /* --shape NxK; 0 when not given */
    int size[2];        /* --size WxH; 0 when not given */
    double inv[6];
    int have_matrix;
    char **names;
    int nnames;
    const char *format;
    int many;           /* several inputs to one stream (cli_set_stream: header, separators) */
};

static int parse_layout(const char *v, void *dst, char *err, size_t errlen)
{
    gvis_yolo_layout *l = dst;
    if (strcmp(v, "auto") == 0)
        *l = GVIS_YOLO_AUTO;
    else if (strcmp(v, "v5") == 0)
        *l = GVIS_YOLO_V5;
    else if (strcmp(v, "v8") == 0)
        *l = GVIS_YOLO_V8;
    else {
        snprintf(err, errlen, "'%s' is not a layout: auto, v5 or v8", v);
        return -1;
    }
    return 0;
}

static int parse_shape(const char *v, void *dst, char *err, size_t errlen)
{
    size_t *s = dst;
    char *end;
    if (*v == '-' || *v == '+')
        goto bad;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || (*end != 'x' && *end != 'X'))
        goto bad;
    const char *p = end + 1;
    if (*p == '-' || *p == '+')
        goto bad;
    unsigned long long k = strtoull(p, &end, 10);
    if (end == p || *end || n == 0 || k == 0 || n > 0x7fffffffULL || k > 0x7fffffffULL)
        goto bad;
    s[0] = (size_t)n;
    s[1] = (size_t)k;
    return 0;
bad:
    snprintf(err, errlen, "'%s' is not a shape NxK of positive numbers (rows x values per row)", v);
    return -1;
}

/* --names FILE: one class name a line (COCO's coco.names, data.yaml lists exported one
 * per line); blank lines count as nameless classes. */
static int load_names(struct yolo_opts *o)
{
    gvis_buf b = {0};
    int rc = gvis_read_input(o->names_path, GVIS_IN_TEXT, 1 << 24, 0, &b);
    if (rc) {
        cli_error("'%s': %s", o->names_path, gvis_errmsg());
        return EXIT_RUNTIME;
    }
    size_t cap = 16;
    o->names = malloc(cap * sizeof *o->names);
    const char *p = (const char *)b.data, *end = p + b.len;
    while (o->names && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t m = n;
        while (m && (p[m - 1] == '\r' || p[m - 1] == ' ' || p[m - 1] == '\t'))
            m--;
        if ((size_t)o->nnames == cap) {
            char **t = realloc(o->names, 2 * cap * sizeof *t);
            if (!t)
                break;
            o->names = t;
            cap *= 2;
        }
        char *s = malloc(m + 1);
        if (!s)
            break;
        memcpy(s, p, m);
        s[m] = 0;
        o->names[o->nnames++] = s;
        p += n + (nl ? 1 : 0);
    }
    int failed = !o->names || p < end;
    gvis_buf_free(&b);
    if (failed) {
        cli_error("'%s': out of memory", o->names_path);
        return EXIT_RUNTIME;
    }
    if (o->nnames == 0) {
        cli_error("'%s': no names in the file", o->names_path);
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

static void free_names(struct yolo_opts *o)
{
    for (int i = 0; i < o->nnames; i++)
        free(o->names[i]);
    free(o->names);
}

/* The shortest decimal that reads back as the same float. */
static void fmt_float(char *s, size_t n, float v)
{
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(s, n, "%.*g", prec, (double)v);
        if (strtof(s, NULL) == v)
            return;
    }
}

static const char *class_name(const struct yolo_opts *o, int cls, char *tmp, size_t n)
{
    if (cls < o->nnames && o->names[cls][0])
        return o->names[cls];
    snprintf(tmp, n, "%d", cls);
    return tmp;
}

static int csv_field(gvis_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r"))
        return gvis_buf_printf(b, "%s", s);
    int rc = gvis_buf_printf(b, "\"");
    for (const char *p = s; !rc && *p; p++)
        rc = *p == '"' ? gvis_buf_printf(b, "\"\"") : gvis_buf_append(b, p, 1);
    return rc ? rc : gvis_buf_printf(b, "\"");
}

static int det_json(gvis_buf *b, const struct yolo_opts *o, const char *in, const gvis_yolo_det *d, int with_file)
{
    char sc[32], x1[32], y1[32], x2[32], y2[32], tmp[16];
    fmt_float(sc, sizeof sc, d->score);
    fmt_float(x1, sizeof x1, d->x1);
    fmt_float(y1, sizeof y1, d->y1);
    fmt_float(x2, sizeof x2, d->x2);
    fmt_float(y2, sizeof y2, d->y2);
    int rc = gvis_buf_printf(b, "{");
    if (!rc && with_file) {
        rc = gvis_buf_printf(b, "\"file\":");
        if (!rc) rc = gvis_buf_json_string(b, in);
        if (!rc) rc = gvis_buf_printf(b, ",");
    }
    if (!rc) rc = gvis_buf_printf(b, "\"class\":%d,\"name\":", d->cls);
    if (!rc) rc = gvis_buf_json_string(b, class_name(o, d->cls, tmp, sizeof tmp));
    if (!rc)
        rc = gvis_buf_printf(b, ",\"score\":%s,\"x1\":%s,\"y1\":%s,\"x2\":%s,\"y2\":%s}", sc, x1, y1, x2, y2);
    return rc;
}

static int format_dets(struct yolo_opts *o, enum out_kind k, const char *in, const gvis_yolo_shape *s,
                       const gvis_yolo_result *r, int width, int height, gvis_buf *b)
{
    int rc = 0;
    char tmp[16];
    switch (k) {
    case OUT_JSONL:
        for (int i = 0; !rc && i < r->count; i++) {
            rc = det_json(b, o, in, &r->det[i], 1);
            if (!rc) rc = gvis_buf_printf(b, "\n");
        }
        return rc;
    case OUT_JSON:
        rc = gvis_buf_printf(b, "{\"file\":");
        if (!rc) rc = gvis_buf_json_string(b, in);
        if (!rc)
            rc = gvis_buf_printf(b, ",\"layout\":\"%s\",\"rows\":%zu,\"classes\":%d,\"candidates\":%zu,\"detections\":[",
                                 gvis_yolo_layout_name(s->layout), s->rows, s->classes, r->candidates);
        for (int i = 0; !rc && i < r->count; i++) {
            rc = gvis_buf_printf(b, "%s", i ? "," : "");
            if (!rc) rc = det_json(b, o, in, &r->det[i], 0);
        }
        if (!rc) rc = gvis_buf_printf(b, "]}%s", o->many ? "" : "\n");
        return rc;
    case OUT_CSV:
        if (!o->many) /* one per stream from the batch */
            rc = gvis_buf_printf(b, "file,class,name,score,x1,y1,x2,y2\n");
        for (int i = 0; !rc && i < r->count; i++) {
            const gvis_yolo_det *d = &r->det[i];
            char sc[32], x1[32], y1[32], x2[32], y2[32];
            fmt_float(sc, sizeof sc, d->score);
            fmt_float(x1, sizeof x1, d->x1);
            fmt_float(y1, sizeof y1, d->y1);
            fmt_float(x2, sizeof x2, d->x2);
            fmt_float(y2, sizeof y2, d->y2);
            rc = csv_field(b, in);
            if (!rc) rc = gvis_buf_printf(b, ",%d,", d->cls);
            if (!rc) rc = csv_field(b, class_name(o, d->cls, tmp, sizeof tmp));
            if (!rc) rc = gvis_buf_printf(b, ",%s,%s,%s,%s,%s\n", sc, x1, y1, x2, y2);
        }
        return rc;
    case OUT_TXT:
        /* YOLO label format: class cx cy w h, normalized by the image size */
        for (int i = 0; !rc && i < r->count; i++) {
            const gvis_yolo_det *d = &r->det[i];
            double cx = ((double)d->x1 + d->x2) / 2 / width, cy = ((double)d->y1 + d->y2) / 2 / height;
            double w = ((double)d->x2 - d->x1) / width, h = ((double)d->y2 - d->y1) / height;
            rc = gvis_buf_printf(b, "%d %.6f %.6f %.6f %.6f\n", d->cls, cx, cy, w, h);
        }
        return rc;
    case OUT_IMAGE:
        break;
    }
    return rc;
}

/* Reads the tensor of one input: NPY (float32 / float16) or raw float32 with --shape. */
static int load_tensor(gvis_ctx *ctx, const struct yolo_opts *o, const char *in, gvis_yolo_shape *s, float **pred,
                       gvis_array *arr)
{
    double t0 = gvis_now_ms();
    gvis_buf b = {0};
    memset(arr, 0, sizeof *arr);
    *pred = NULL;
    /* A tensor may hold as many elements as an image may hold pixels (--max-pixels), so a
     * stray multi-gigabyte file is refused before it is read, not after. */
    const gvis_io_opts *io = gvis_ctx_io(ctx);
    size_t max_elems = io->max_pixels ? io->max_pixels : GVIS_DEFAULT_MAX_PIXELS, max_bytes, file_limit;
    if (gvis_mul_size(max_elems, sizeof(float), &max_bytes) || max_bytes > SIZE_MAX - ((size_t)1 << 20))
        max_bytes = SIZE_MAX - ((size_t)1 << 20);
    file_limit = max_bytes + ((size_t)1 << 20); /* NPY header */
    /* with --shape the raw file's size is known: a stream is read no further */
    size_t raw_bytes;
    if (o->shape[0] && !gvis_mul_size(o->shape[0], o->shape[1], &raw_bytes) &&
        !gvis_mul_size(raw_bytes, sizeof(float), &raw_bytes) && raw_bytes < file_limit)
        file_limit = raw_bytes;
    int rc = gvis_read_input(in, o->shape[0] ? GVIS_IN_RAW : GVIS_IN_NPY, file_limit, io->max_pixels, &b);
    /* the size limits of the read, in the tensor's terms (the sniffer's own say more) */
    if (rc == GVIS_E_LIMIT && o->shape[0] && strncmp(gvis_errmsg(), "input is", 8) == 0)
        rc = gvis_error(GVIS_E_LIMIT, "raw tensor is longer than the %zu bytes of --shape %zux%zu", file_limit,
                        o->shape[0], o->shape[1]);
    else if (rc == GVIS_E_LIMIT && (strncmp(gvis_errmsg(), "file of", 7) == 0 || strncmp(gvis_errmsg(), "input is", 8) == 0))
        rc = gvis_error(GVIS_E_LIMIT, "tensor file is larger than %zu bytes (%zu float32 elements, --max-pixels)",
                        file_limit, max_elems);
    size_t shape[8] = {0};
    int ndim = 0;
    if (!rc && o->shape[0]) {
        size_t want;
        if (gvis_mul_size(o->shape[0], o->shape[1], &want) || want > max_elems ||
            gvis_mul_size(want, sizeof(float), &want))
            rc = gvis_error(GVIS_E_LIMIT, "--shape %zux%zu is larger than the limit of %zu elements (--max-pixels)",
                            o->shape[0], o->shape[1], max_elems);
        else if (b.len != want)
            rc = gvis_error(GVIS_E_FORMAT, "file has %zu bytes; --shape %zux%zu of float32 needs %zu", b.len,
                            o->shape[0], o->shape[1], want);
        if (!rc) {
            arr->dtype = GVIS_DT_F32;
            arr->ndim = 2;
            arr->shape[0] = o->shape[0];
            arr->shape[1] = o->shape[1];
            arr->data = b.data; /* the buffer becomes the array */
            arr->nbytes = b.len;
            b.data = NULL;
        }
    } else if (!rc) {
        if (b.len >= 6 && memcmp(b.data, "\x93NUMPY", 6) == 0)
            rc = gvis_npy_decode(b.data, b.len, max_bytes, arr);
        else
            rc = gvis_error(GVIS_E_FORMAT, "not an NPY file (give --shape NxK for raw float32)");
    }
    gvis_buf_free(&b);
    if (!rc) {
        ndim = arr->ndim < 8 ? arr->ndim : 8;
        for (int i = 0; i < ndim; i++)
            shape[i] = arr->shape[i];
        if (arr->dtype != GVIS_DT_F32 && arr->dtype != GVIS_DT_F16)
            rc = gvis_error(GVIS_E_FORMAT, "tensor dtype must be float32 or float16");
    }
    if (!rc)
        rc = gvis_yolo_resolve(shape, ndim, o->layout, o->classes, s);
    if (!rc && arr->dtype == GVIS_DT_F32)
        *pred = arr->data;
    else if (!rc)
        rc = gvis_yolo_to_f32(arr, pred);
    gvis_ctx_timing(ctx)->load_ms += gvis_now_ms() - t0;
    return rc;
}

static enum out_kind output_kind(const struct yolo_opts *o, const char *out)
{
    const char *f = o->format;
    if (!f && out && strcmp(out, "-") != 0) {
        const char *dot = strrchr(out, '.');
        const char *slash = strrchr(out, '/');
        f = dot && (!slash || dot > slash) ? dot + 1 : NULL;
    }
    if (o->draw)
        return OUT_IMAGE;
    if (!f)
        return o->json ? OUT_JSON : OUT_JSONL;
    if (strcmp(f, "json") == 0)
        return OUT_JSON;
    if (strcmp(f, "csv") == 0)
        return OUT_CSV;
    if (strcmp(f, "txt") == 0)
        return OUT_TXT;
    return o->json ? OUT_JSON : OUT_JSONL; /* .jsonl, .ndjson, anything else */
}

static int yolo_one(gvis_ctx *ctx, const char *in, const char *out, void *arg)
{
    struct yolo_opts *o = arg;
    gvis_yolo_shape s;
    gvis_array arr;
    float *pred = NULL;
    int rc = load_tensor(ctx, o, in, &s, &pred, &arr);
    if (!rc)
        cli_info("'%s': layout %s, %zu boxes, %d classes", in, gvis_yolo_layout_name(s.layout), s.rows, s.classes);
    if (!rc && o->nnames && o->nnames < s.classes)
        cli_warn("'%s': %d classes but %d names in '%s'", in, s.classes, o->nnames, o->names_path);
    gvis_yolo_result r = {NULL, 0, 0};
    if (!rc) {
        r.det = calloc((size_t)o->p.max_det, sizeof *r.det);
        if (!r.det)
            rc = gvis_error(GVIS_E_NOMEM, "out of memory");
    }
    if (!rc)
        rc = gvis_yolo_decode(ctx, pred, &s, &o->p, &r);
    if (pred != arr.data)
        free(pred);
    gvis_array_free(&arr);
    if (!rc)
        cli_info("'%s': %zu candidates, %d detections", in, r.candidates, r.count);
    enum out_kind k = output_kind(o, out);
    gvis_image img = {0};
    int width = o->size[0], height = o->size[1];
    if (!rc && o->draw) {
        rc = gvis_load(ctx, o->draw, &img);
        if (rc) { /* the message is about the image, printed after the tensor's name */
            char pre[1100];
            snprintf(pre, sizeof pre, "--draw image '%.1024s'", o->draw);
            gvis_error_prefix(pre);
        }
        width = img.width;
        height = img.height;
    }
    if (!rc && o->have_matrix)
        gvis_yolo_map(r.det, r.count, o->inv, width, height);
    else if (!rc && width > 0)
        gvis_yolo_clip(r.det, r.count, width, height);
    if (!rc && k == OUT_TXT && width <= 0)
        rc = gvis_error(GVIS_E_ARG, "YOLO label output (.txt) needs the image size: give --size WxH or --draw IMAGE");
    if (!rc && k == OUT_IMAGE) {
        char **labels = calloc((size_t)r.count + 1, sizeof *labels);
        for (int i = 0; labels && i < r.count; i++) {
            char tmp[16];
            const char *nm = class_name(o, r.det[i].cls, tmp, sizeof tmp);
            size_t n = strlen(nm) + 16;
            labels[i] = malloc(n);
            if (labels[i])
                snprintf(labels[i], n, "%s %.2f", nm, (double)r.det[i].score);
        }
        gvis_image pic = {0};
        rc = labels ? gvis_yolo_draw(&img, r.det, r.count, (const char *const *)labels, &pic)
                    : gvis_error(GVIS_E_NOMEM, "out of memory");
        if (!rc)
            rc = gvis_image_copy_meta(&pic, &img);
        if (!rc && gvis_same_file(out, o->draw))
            rc = gvis_error(GVIS_E_IO, "refusing to write over the image '%s'", o->draw);
        if (!rc)
            rc = gvis_save(ctx, out, o->format ? gvis_format_from_name(o->format) : GVIS_FMT_NONE, &pic);
        gvis_image_free(&pic);
        for (int i = 0; labels && i < r.count; i++)
            free(labels[i]);
        free(labels);
    } else if (!rc) {
        gvis_buf b = {0};
        rc = format_dets(o, k, in, &s, &r, width, height, &b);
        if (!rc)
            rc = cli_write_output(ctx, out ? out : "-", &b);
        gvis_buf_free(&b);
    }
    gvis_image_free(&img);
    free(r.det);
    return rc;
}

/* The checks of the options among themselves: -1 when they hold, else the usage error's
 * exit status (reported). */
static int check_opts(struct yolo_opts *o, const struct cli_args *args)
{
    if (o->classes != -1 && o->classes < 1)
        return cli_usage_error("--classes takes a positive count");
    if (o->classes == -1)
        o->classes = 0;
    if (!(o->p.conf >= 0 && o->p.conf <= 1))
        return cli_usage_error("--conf takes 0 to 1");
    if (!(o->p.iou >= 0 && o->p.iou <= 1))
        return cli_usage_error("--iou takes 0 to 1");
    if (o->p.max_det < 1 || o->p.max_det > 1 << 20)
        return cli_usage_error("--max-det takes 1 to 1048576");
    if (o->draw && !args->output)
        return cli_usage_error("--draw needs -o OUT (an image file)");
    if (o->draw && args->ninputs > 1)
        return cli_usage_error("--draw takes one input tensor");
    if (o->draw && o->json)
        return cli_usage_error("--draw writes an image; --json does not go with it");
    if (o->draw && args->format && gvis_format_from_name(args->format) == GVIS_FMT_NONE)
        return cli_usage_error("unknown image format '%s'", args->format);
    if (!o->draw && args->format && strcmp(args->format, "json") && strcmp(args->format, "jsonl") &&
        strcmp(args->format, "csv") && strcmp(args->format, "txt"))
        return cli_usage_error("--format takes jsonl, json, csv or txt");
    return -1;
}

int cmd_yolo_decode(int argc, char **argv)
{
    double t0 = gvis_now_ms();
    struct yolo_opts o;
    memset(&o, 0, sizeof o);
    o.p.conf = 0.25;
    o.p.iou = 0.45;
    o.p.max_det = 300;
    o.classes = -1; /* not given */
    const struct opt opts[] = {
        {"layout", 0, OPT_CUSTOM, &o.layout, parse_layout, "auto|v5|v8", "tensor layout (default auto: from the shape)"},
        {"classes", 0, OPT_INT, &o.classes, NULL, "C", "class count the tensor must have (default: from the shape)"},
        {"shape", 0, OPT_CUSTOM, o.shape, parse_shape, "NxK", "the input is raw float32 of N rows of K values"},
        {"conf", 0, OPT_DOUBLE, &o.p.conf, NULL, "T", "keep boxes whose score reaches T (default 0.25)"},
        {"iou", 0, OPT_DOUBLE, &o.p.iou, NULL, "T", "suppress boxes whose IoU with a kept box exceeds T (default 0.45)"},
        {"agnostic", 0, OPT_FLAG, &o.p.agnostic, NULL, NULL, "suppress across classes"},
        {"fast-nms", 0, OPT_FLAG, &o.p.fast_nms, NULL, NULL, "suppressed boxes still suppress (not torchvision's rule)"},
        {"max-det", 0, OPT_INT, &o.p.max_det, NULL, "N", "at most N detections per input (default 300)"},
        {"matrix", 0, OPT_STRING, &o.matrix_path, NULL, "FILE", "map boxes to the source image (warpaffine --save-matrix)"},
        {"size", 0, OPT_CUSTOM, o.size, cli_parse_size, "WxH", "image size: clip boxes to it, normalize .txt by it"},
        {"names", 0, OPT_STRING, &o.names_path, NULL, "FILE", "class names, one a line"},
        {"draw", 0, OPT_STRING, &o.draw, NULL, "IMAGE", "draw the boxes on IMAGE and write it to -o"},
        {"json", 0, OPT_FLAG, &o.json, NULL, NULL, "one JSON document instead of JSON Lines"},
        OPT_END,
    };
    const struct cli_cmd cmd = {"yolo-decode", "[options] PRED... [-o OUT.jsonl|OUT.json|OUT.csv|OUT.txt|DIR/]", opts, 1,
                                0, 1};
    struct cli_args args;
    int rc = cli_parse(&cmd, argc, argv, &args);
    if (rc >= 0)
        return rc;
    if ((rc = check_opts(&o, &args)) >= 0) {
        cli_args_free(&args);
        return rc;
    }
    o.format = args.format;
    if (o.matrix_path) {
        double fwd[6];
        if (gvis_matrix_read(o.matrix_path, fwd, o.inv)) {
            cli_error("'%s': %s", o.matrix_path, gvis_errmsg());
            cli_args_free(&args);
            return EXIT_RUNTIME;
        }
        o.have_matrix = 1;
    }
    if (o.names_path && (rc = load_names(&o)) != EXIT_OK) {
        free_names(&o);
        cli_args_free(&args);
        return rc;
    }
    o.many = args.ninputs > 1 && (!args.output || strcmp(args.output, "-") == 0);
    int status;
    gvis_ctx *ctx = cli_context(&status);
    if (!ctx) {
        free_names(&o);
        cli_args_free(&args);
        return status;
    }
    enum out_kind k = output_kind(&o, NULL);
    const char *ext = o.draw ? (args.format ? args.format : "png")
                      : k == OUT_JSON ? "json"
                      : k == OUT_CSV ? "csv"
                      : k == OUT_TXT ? "txt"
                                     : "jsonl";
    /* several inputs to one stream: their text in input order (on --jobs threads too);
     * JSON documents make one array, a CSV has one header */
    if (o.many)
        cli_set_stream(k == OUT_CSV ? "file,class,name,score,x1,y1,x2,y2\n" : "", k == OUT_JSON ? ",\n" : "");
    gvis_buf br = {0};
    if (o.many && k == OUT_JSON && (gvis_buf_printf(&br, "[\n") || cli_write_output(ctx, "-", &br))) {
        if (!cli_stdout_closed()) /* a reader that has gone: quiet, status 1 */
            cli_error("error writing to standard output: %s", gvis_errmsg());
        status = EXIT_RUNTIME;
    } else {
        status = cli_run_batch(&cmd, &args, ctx, yolo_one, &o, ext);
        br.len = 0;
        if (o.many && k == OUT_JSON &&
            (gvis_buf_printf(&br, cli_stream_items() ? "\n]\n" : "]\n") || cli_write_output(ctx, "-", &br))) {
            if (!cli_stdout_closed())
                cli_error("error writing to standard output: %s", gvis_errmsg());
            status = EXIT_RUNTIME;
        }
    }
    gvis_buf_free(&br);
    cli_finish(ctx, t0);
    free_names(&o);
    cli_args_free(&args);
    return status;
}
