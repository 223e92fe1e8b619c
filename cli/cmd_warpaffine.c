/* gvis warpaffine: affine warp and letterbox of images, written as an image or as a
 * float32 tensor (.npy), and the matrices for yolo-decode. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "images.h"
#include "matrix.h"
#include "warp.h"

struct warp_opts {
    double matrix[6];
    int have_matrix;
    const char *matrix_file;
    int letterbox[2];
    int size[2];
    int inverse;
    int interp;
    int border;
    double fill[4];
    int nfill;
    const char *save_matrix;
    int save_dir;       /* several inputs: --save-matrix DIR/ */
    int layout;
    int bgr;
    double scale;
    int have_scale, have_layout;
    double mean[4], std[4];
    int nmean, nstd;
    const char *format;
};

/* A list of 1, 3 or 4 finite numbers, separated by commas or blanks. */
static int parse_list(const char *v, double *out, int *n, char *err, size_t errlen)
{
    const char *p = v;
    int k = 0;
    for (;;) {
        while (*p == ' ' || *p == ',' || *p == '\t')
            p++;
        if (!*p)
            break;
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno || !isfinite(d) || k == 4) {
            snprintf(err, errlen, "'%s' is not a list of 1, 3 or 4 finite numbers", v);
            return -1;
        }
        out[k++] = d;
        p = end;
    }
    if (k != 1 && k != 3 && k != 4) {
        snprintf(err, errlen, "'%s' is not a list of 1, 3 or 4 finite numbers", v);
        return -1;
    }
    *n = k;
    return 0;
}

static struct warp_opts *cur;

static int opt_matrix(const char *v, void *dst, char *err, size_t errlen)
{
    if (cli_parse_doubles(v, dst, 6, err, errlen))
        return -1;
    cur->have_matrix = 1;
    return 0;
}

static int opt_interp(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "nearest") == 0)
        *(int *)dst = GVIS_WARP_NEAREST;
    else if (strcmp(v, "bilinear") == 0 || strcmp(v, "linear") == 0)
        *(int *)dst = GVIS_WARP_BILINEAR;
    else {
        snprintf(err, errlen, "--interp takes nearest or bilinear, not '%s'", v);
        return -1;
    }
    return 0;
}

static int opt_border(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "constant") == 0)
        *(int *)dst = GVIS_WARP_CONSTANT;
    else if (strcmp(v, "replicate") == 0)
        *(int *)dst = GVIS_WARP_REPLICATE;
    else {
        snprintf(err, errlen, "--border takes constant or replicate, not '%s'", v);
        return -1;
    }
    return 0;
}

static int opt_layout(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "chw") == 0)
        *(int *)dst = GVIS_TENSOR_CHW;
    else if (strcmp(v, "hwc") == 0)
        *(int *)dst = GVIS_TENSOR_HWC;
    else {
        snprintf(err, errlen, "--layout takes chw or hwc, not '%s'", v);
        return -1;
    }
    cur->have_layout = 1;
    return 0;
}

static int opt_fill(const char *v, void *dst, char *err, size_t errlen)
{
    return parse_list(v, cur->fill, &cur->nfill, err, errlen);
}
static int opt_mean(const char *v, void *dst, char *err, size_t errlen)
{
    return parse_list(v, cur->mean, &cur->nmean, err, errlen);
}
static int opt_std(const char *v, void *dst, char *err, size_t errlen)
{
    if (parse_list(v, cur->std, &cur->nstd, err, errlen))
        return -1;
    for (int i = 0; i < cur->nstd; i++)
        if (cur->std[i] == 0) {
            snprintf(err, errlen, "--std '%s' has a zero", v);
            return -1;
        }
    return 0;
}
static int opt_scale(const char *v, void *dst, char *err, size_t errlen)
{
    /* "1/255" is accepted as well as 0.00392156862745098 */
    char *end;
    errno = 0;
    double a = strtod(v, &end), b = 1;
    if (end != v && *end == '/') {
        const char *p = end + 1;
        b = strtod(p, &end);
        if (end == p)
            end = (char *)v;
    }
    if (end == v || *end || errno || !isfinite(a) || !isfinite(b) || b == 0 || !isfinite(a / b)) {
        snprintf(err, errlen, "--scale takes a finite number or a fraction like 1/255, not '%s'", v);
        return -1;
    }
    *(double *)dst = a / b;
    cur->have_scale = 1;
    return 0;
}

/* Per-channel values: 1 given applies to every channel; else there must be one per channel
 * (with 3 given for a 4-channel image, the fourth is dflt4). */
static int expand(const double *v, int n, int channels, double dflt4, double out[4], const char *what)
{
    if (n == 0)
        return 0;
    if (n == 1) {
        for (int c = 0; c < 4; c++)
            out[c] = v[0];
        return 0;
    }
    if (n == channels || (n == 3 && channels == 4)) {
        for (int c = 0; c < 4; c++)
            out[c] = c < n ? v[c] : dflt4;
        return 0;
    }
    return gvis_error(GVIS_E_ARG, "%s has %d values for an image of %d channel%s", what, n, channels,
                      channels == 1 ? "" : "s");
}

static int is_tensor_output(const struct warp_opts *o, const char *out)
{
    if (o->format)
        return gvis_format_from_name(o->format) == GVIS_FMT_NPY;
    return out && strcmp(out, "-") != 0 && gvis_format_from_path(out) == GVIS_FMT_NPY;
}

/* The warp of one image of this size, channels and type: the letterbox's matrix, or the
 * one given, and the border's fill. */
static int warp_params(const struct warp_opts *o, int w, int h, int channels, gvis_type type, gvis_warp_params *p)
{
    memset(p, 0, sizeof *p);
    p->interp = o->interp;
    p->border = o->border;
    const double maxv = type == GVIS_U8 ? 255 : type == GVIS_U16 ? 65535 : 1;
    for (int c = 0; c < 4; c++)
        p->fill[c] = o->letterbox[0] ? 114 : 0;
    if (channels == 4 && o->letterbox[0])
        p->fill[3] = maxv; /* the letterbox's border is opaque */
    int rc = expand(o->fill, o->nfill, channels, maxv, p->fill, "--fill");
    if (!rc && o->letterbox[0]) {
        p->width = o->letterbox[0];
        p->height = o->letterbox[1];
        gvis_letterbox_matrix(w, h, p->width, p->height, p->m);
    } else if (!rc) {
        memcpy(p->m, o->matrix, sizeof p->m);
        p->inverse = o->inverse;
        p->width = o->size[0] ? o->size[0] : w;
        p->height = o->size[0] ? o->size[1] : h;
    }
    return rc;
}

static int tensor_params(const struct warp_opts *o, int channels, gvis_tensor_params *t)
{
    memset(t, 0, sizeof *t);
    t->layout = o->layout;
    t->bgr = o->bgr;
    t->scale = o->scale;
    for (int c = 0; c < 4; c++)
        t->std[c] = 1;
    int rc = expand(o->mean, o->nmean, channels, 0, t->mean, "--mean");
    if (!rc)
        rc = expand(o->std, o->nstd, channels, 1, t->std, "--std");
    return rc;
}

/* The staged batch's operations (no --save-matrix): the image, on the host or on the
 * device, and the tensor output's bytes. */
static int warp_op(gvis_ctx *ctx, const gvis_image *src, gvis_image *dst, void *arg)
{
    gvis_warp_params p;
    int rc = warp_params(arg, src->width, src->height, src->channels, src->type, &p);
    if (!rc && !(rc = gvis_warp(ctx, src, &p, dst)) && (rc = gvis_image_copy_meta(dst, src)))
        gvis_image_free(dst);
    return rc;
}

static int warp_op_dev(gvis_ctx *ctx, const gvis_dev_image *src, gvis_dev_image *dst, void *arg)
{
    gvis_warp_params p;
    int rc = warp_params(arg, src->width, src->height, src->channels, src->type, &p);
    return rc ? rc : gvis_warp_dev(ctx, src, &p, dst);
}

static int warp_op_file(gvis_ctx *ctx, const gvis_image *src, const gvis_dev_image *dsrc, const char *out,
                        gvis_buf *bytes, void *arg)
{
    struct warp_opts *o = arg;
    if (!is_tensor_output(o, out))
        return GVIS_OP_IMAGE;
    int w = src ? src->width : dsrc->width, h = src ? src->height : dsrc->height;
    int ch = src ? src->channels : dsrc->channels;
    gvis_warp_params p;
    gvis_tensor_params t;
    gvis_array a = {0};
    int rc = warp_params(o, w, h, ch, src ? src->type : dsrc->type, &p);
    if (!rc)
        rc = tensor_params(o, ch, &t);
    if (!rc)
        rc = src ? gvis_warp_tensor(ctx, src, &p, &t, &a) : gvis_warp_tensor_dev(ctx, dsrc, &p, &t, &a);
    if (!rc)
        rc = gvis_npy_encode(&a, bytes);
    gvis_array_free(&a);
    return rc;
}

static int warp_one(gvis_ctx *ctx, const char *in, const char *out, void *arg)
{
    struct warp_opts *o = arg;
    /* Refuse a matrix file that would replace the input or the image before writing
     * anything: a failing input leaves no output behind. */
    if (o->save_matrix && !o->save_dir && strcmp(o->save_matrix, "-") != 0) {
        if (gvis_same_file(o->save_matrix, in))
            return gvis_error(GVIS_E_IO, "refusing to write the matrix over input file '%s'", in);
        if (out && strcmp(out, "-") != 0 && (strcmp(out, o->save_matrix) == 0 || gvis_same_file(out, o->save_matrix)))
            return gvis_error(GVIS_E_ARG, "'%s' is named for two outputs", out);
    }
    gvis_image img = {0};
    int rc = gvis_load(ctx, in, &img);
    if (rc)
        return rc;
    gvis_warp_params p;
    rc = warp_params(o, img.width, img.height, img.channels, img.type, &p);
    double fwd[6], inv[6];
    if (!rc)
        rc = gvis_warp_prepare(&p, fwd, inv);
    if (!rc && out) {
        if (is_tensor_output(o, out)) {
            gvis_tensor_params t;
            rc = tensor_params(o, img.channels, &t);
            gvis_array a = {0};
            if (!rc)
                rc = gvis_warp_tensor(ctx, &img, &p, &t, &a);
            gvis_buf b = {0};
            if (!rc)
                rc = gvis_npy_encode(&a, &b);
            if (!rc)
                rc = cli_write_output(ctx, out, &b);
            gvis_buf_free(&b);
            gvis_array_free(&a);
        } else {
            gvis_image dst = {0};
            rc = gvis_warp(ctx, &img, &p, &dst);
            if (!rc)
                rc = gvis_image_copy_meta(&dst, &img);
            if (!rc)
                rc = gvis_save(ctx, out, o->format ? gvis_format_from_name(o->format) : GVIS_FMT_NONE, &dst);
            gvis_image_free(&dst);
        }
    }
    gvis_image_free(&img);
    if (!rc && o->save_matrix) {
        char *path = o->save_dir ? cli_output_in_dir(o->save_matrix, in, "txt") : NULL;
        const char *mp = path ? path : o->save_matrix;
        if (o->save_dir && !path)
            rc = gvis_error(GVIS_E_NOMEM, "out of memory");
        else if (strcmp(mp, "-") != 0 && gvis_same_file(mp, in))
            rc = gvis_error(GVIS_E_IO, "refusing to write the matrix over input file '%s'", in);
        else if ((rc = gvis_matrix_write(mp, fwd, inv)) != 0)
            gvis_error_prefix(mp);
        free(path);
    }
    return rc;
}

static int warp_main(struct warp_opts *o, const struct cli_cmd *cmd, struct cli_args *args, double t0);

int cmd_warpaffine(int argc, char **argv)
{
    double t0 = gvis_now_ms();
    struct warp_opts o;
    memset(&o, 0, sizeof o);
    o.interp = GVIS_WARP_BILINEAR;
    o.border = GVIS_WARP_CONSTANT;
    o.scale = 1;
    cur = &o;
    const struct opt opts[] = {
        {"matrix", 0, OPT_CUSTOM, o.matrix, opt_matrix, "\"a b c d e f\"",
         "2x3 matrix mapping source to destination pixels (cv2.warpAffine's M)"},
        {"matrix-file", 0, OPT_STRING, &o.matrix_file, NULL, "FILE", "read the matrix from FILE (6 numbers, or a --save-matrix file)"},
        {"inverse", 0, OPT_FLAG, &o.inverse, NULL, NULL, "the matrix maps destination to source (cv2.WARP_INVERSE_MAP)"},
        {"letterbox", 0, OPT_CUSTOM, o.letterbox, cli_parse_size, "WxH",
         "scale to fit WxH keeping the aspect ratio, centred, border 114"},
        {"size", 0, OPT_CUSTOM, o.size, cli_parse_size, "WxH", "output size (default: the input's)"},
        {"interp", 0, OPT_CUSTOM, &o.interp, opt_interp, "MODE", "nearest or bilinear (default)"},
        {"border", 0, OPT_CUSTOM, &o.border, opt_border, "MODE", "constant (default) or replicate"},
        {"fill", 0, OPT_CUSTOM, o.fill, opt_fill, "V|R,G,B[,A]", "constant border value (default 0; 114 with --letterbox)"},
        {"save-matrix", 0, OPT_STRING, &o.save_matrix, NULL, "FILE",
         "write the forward and inverse matrices (for yolo-decode --matrix); DIR/ for several inputs"},
        {"layout", 0, OPT_CUSTOM, &o.layout, opt_layout, "chw|hwc", ".npy tensor layout (default chw)"},
        {"bgr", 0, OPT_FLAG, &o.bgr, NULL, NULL, ".npy tensor: reverse the channel order (RGB to BGR)"},
        {"scale", 0, OPT_CUSTOM, &o.scale, opt_scale, "S", ".npy tensor: multiply samples by S (1/255 ...)"},
        {"mean", 0, OPT_CUSTOM, o.mean, opt_mean, "a,b,c", ".npy tensor: subtract after scaling (tensor channel order)"},
        {"std", 0, OPT_CUSTOM, o.std, opt_std, "a,b,c", ".npy tensor: then divide by these"},
        OPT_END,
    };
    const struct cli_cmd cmd = {"warpaffine",
                                "[options] (--matrix M | --matrix-file F | --letterbox WxH) IN... -o OUT|DIR/",
                                opts, 1, 0, 1};
    struct cli_args args;
    int rc = cli_parse(&cmd, argc, argv, &args);
    if (rc >= 0)
        return rc;
    rc = warp_main(&o, &cmd, &args, t0);
    cli_args_free(&args);
    return rc;
}

static int warp_main(struct warp_opts *op, const struct cli_cmd *cmdp, struct cli_args *argsp, double t0)
{
    struct warp_opts o = *op;
    const struct cli_cmd cmd = *cmdp;
    struct cli_args args = *argsp;
    int rc;
    int nsrc = o.have_matrix + (o.matrix_file != NULL) + (o.letterbox[0] != 0);
    rc = EXIT_OK;
    o.format = args.format;
    if (nsrc != 1)
        rc = cli_usage_error(nsrc ? "give only one of --matrix, --matrix-file and --letterbox"
                                  : "give --matrix, --matrix-file or --letterbox");
    else if (o.letterbox[0] && (o.size[0] || o.inverse))
        rc = cli_usage_error("--letterbox WxH sets the output size and the matrix: no --size or --inverse with it");
    else if (!args.output && !o.save_matrix)
        rc = cli_usage_error("no output: give -o OUT (an image, a .npy tensor, DIR/ or -) or --save-matrix");
    else if (o.save_matrix && !*o.save_matrix)
        rc = cli_usage_error("--save-matrix needs a file name");
    else if (o.size[0] > GVIS_WARP_MAX_SIDE || o.size[1] > GVIS_WARP_MAX_SIDE || o.letterbox[0] > GVIS_WARP_MAX_SIDE ||
             o.letterbox[1] > GVIS_WARP_MAX_SIDE)
        rc = cli_usage_error("output sides are at most %d pixels", GVIS_WARP_MAX_SIDE);
    if (rc)
        return rc;
    int stdin_input = 0;
    for (int i = 0; i < args.ninputs; i++)
        stdin_input |= strcmp(args.inputs[i], "-") == 0;
    if (o.matrix_file && strcmp(o.matrix_file, "-") == 0 && stdin_input)
        return cli_usage_error("--matrix-file - and an input from standard input cannot share it");
    if (o.save_matrix && strcmp(o.save_matrix, "-") == 0 && args.output && strcmp(args.output, "-") == 0)
        return cli_usage_error("--save-matrix - and -o - would mix on standard output");
    if (o.save_matrix) {
        size_t n = strlen(o.save_matrix);
        o.save_dir = o.save_matrix[n - 1] == '/';
        if (args.ninputs > 1 && !o.save_dir) {
                return cli_usage_error("--save-matrix with several inputs needs a directory (--save-matrix DIR/)");
        }
    }
    /* Tensor options need a tensor output; a directory output with them gets .npy files. */
    int tensor_opts = o.have_scale || o.have_layout || o.bgr || o.nmean || o.nstd;
    const char *out_ext = NULL;
    if (args.output) {
        size_t n = strlen(args.output);
        int dir = args.output[n - 1] == '/';
        struct stat sb;
        if (!dir && stat(args.output, &sb) == 0 && S_ISDIR(sb.st_mode))
            dir = 1;
        if (dir && tensor_opts && !args.format)
            out_ext = "npy";
        else if (tensor_opts && !is_tensor_output(&o, args.output)) {
                return cli_usage_error("--layout, --bgr, --scale, --mean and --std are for a tensor output (.npy)");
        }
    }
    if (o.have_matrix || o.matrix_file) {
        double fwd[6], inv[6];
        if (o.matrix_file) {
            int st = gvis_matrix_read(o.matrix_file, fwd, inv);
            if (st) {
                /* a file's content is data: a bad one is a failure at run time (status 1) */
                cli_error("'%s': %s", o.matrix_file, gvis_errmsg());
                return EXIT_RUNTIME;
            }
            /* the file's first matrix, read as --matrix would be (--inverse applies to it) */
            memcpy(o.matrix, fwd, sizeof o.matrix);
        }
        /* A singular or non-finite matrix is a usage error, found before any file is read. */
        gvis_warp_params p;
        memset(&p, 0, sizeof p);
        memcpy(p.m, o.matrix, sizeof p.m);
        p.inverse = o.inverse;
        p.width = p.height = 1;
        if (gvis_warp_prepare(&p, NULL, NULL)) {
            /* singular or not finite: a usage error when given as --matrix, bad data in a file */
            if (o.matrix_file) {
                cli_error("'%s': %s", o.matrix_file, gvis_errmsg());
                return EXIT_RUNTIME;
            }
            return cli_usage_error("%s", gvis_errmsg());
        }
    }
    int status;
    gvis_ctx *ctx = cli_context(&status);
    if (!ctx) {
        return status;
    }
    if (o.save_dir && gvis_mkdir_p(o.save_matrix) != GVIS_OK) {
        cli_error("%s", gvis_errmsg());
        cli_finish(ctx, t0);
        return EXIT_RUNTIME;
    }
    if (!o.save_matrix) { /* the staged batch; with matrices to write, the file chain */
        cli_set_image_op(warp_op);
        cli_set_image_op_dev(warp_op_dev);
        cli_set_image_op_file(warp_op_file);
    }
    status = cli_run_batch(&cmd, &args, ctx, warp_one, &o, out_ext);
    cli_finish(ctx, t0);
    return status;
}
