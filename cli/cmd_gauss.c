/* gvis gauss: separable Gaussian blur (cv2.GaussianBlur semantics). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gauss.h"

struct gauss_opts {
    gvis_gauss_params p;
    const char *format;
};

static int parse_one_ksize(const char *s, const char **end, int *k, char *err, size_t errlen, const char *v)
{
    char *e;
    long n = strtol(s, &e, 10);
    if (e == s || n < 0 || n > GVIS_GAUSS_MAX_KSIZE || (n && !(n & 1))) {
        snprintf(err, errlen, "'%s': kernel sizes are odd numbers from 1 to %d (0: from the sigma)", v,
                 GVIS_GAUSS_MAX_KSIZE);
        return -1;
    }
    *k = (int)n;
    *end = e;
    return 0;
}

/* K or KXxKY */
static int parse_ksize(const char *v, void *dst, char *err, size_t errlen)
{
    int *k = dst;
    const char *e;
    if (parse_one_ksize(v, &e, &k[0], err, errlen, v))
        return -1;
    if (!*e) {
        k[1] = k[0];
        return 0;
    }
    if (*e != 'x' && *e != 'X') {
        snprintf(err, errlen, "'%s' is not a kernel size K or KXxKY (odd, 1 to %d)", v, GVIS_GAUSS_MAX_KSIZE);
        return -1;
    }
    if (parse_one_ksize(e + 1, &e, &k[1], err, errlen, v))
        return -1;
    if (*e) {
        snprintf(err, errlen, "'%s' is not a kernel size K or KXxKY (odd, 1 to %d)", v, GVIS_GAUSS_MAX_KSIZE);
        return -1;
    }
    return 0;
}

static int parse_border(const char *v, void *dst, char *err, size_t errlen)
{
    static const char *names[] = {"reflect101", "replicate", "constant", "reflect", "wrap"};
    int *b = dst;
    for (int i = 0; i < 5; i++)
        if (!strcmp(v, names[i])) {
            *b = i;
            return 0;
        }
    if (!strcmp(v, "reflect_101") || !strcmp(v, "default")) { /* OpenCV's spellings */
        *b = GVIS_BORDER_REFLECT101;
        return 0;
    }
    snprintf(err, errlen, "'%s' is not a border mode (reflect101, replicate, constant, reflect, wrap)", v);
    return -1;
}

static int gauss_one(gvis_ctx *ctx, const char *in, const char *out, void *arg)
{
    struct gauss_opts *o = arg;
    gvis_image img = {0};
    /* blurred in its own pixels: one image held, not two (peak RSS, issue 14) */
    int rc = gvis_load(ctx, in, &img);
    if (!rc)
        rc = gvis_gauss_inplace(ctx, &img, &o->p);
    if (!rc)
        rc = gvis_save(ctx, out, o->format ? gvis_format_from_name(o->format) : GVIS_FMT_NONE, &img);
    gvis_image_free(&img);
    return rc;
}

/* The operation alone, for the staged batch (decode and encode by the pipeline). */
static int gauss_op(gvis_ctx *ctx, const gvis_image *src, gvis_image *dst, void *arg)
{
    struct gauss_opts *o = arg;
    int rc = gvis_gauss(ctx, src, &o->p, dst);
    if (!rc && (rc = gvis_image_copy_meta(dst, src)))
        gvis_image_free(dst);
    return rc;
}

static int gauss_op_dev(gvis_ctx *ctx, const gvis_dev_image *src, gvis_dev_image *dst, void *arg)
{
    struct gauss_opts *o = arg;
    return gvis_gauss_dev(ctx, src, &o->p, dst);
}

int cmd_gauss(int argc, char **argv)
{
    double t0 = gvis_now_ms();
    struct gauss_opts o;
    memset(&o, 0, sizeof o);
    o.p.border = GVIS_BORDER_REFLECT101;
    int ksize[2] = {0, 0};
    const struct opt opts[] = {
        {"sigma", 0, OPT_DOUBLE, &o.p.sigma_x, NULL, "S", "standard deviation in x (0: from the kernel size)"},
        {"sigma-y", 0, OPT_DOUBLE, &o.p.sigma_y, NULL, "S", "standard deviation in y (default: --sigma)"},
        {"ksize", 0, OPT_CUSTOM, ksize, parse_ksize, "K|KXxKY",
         "kernel size, odd, to max(1023, 8 x longer side + 1) (default: from sigma)"},
        {"border", 0, OPT_CUSTOM, &o.p.border, parse_border, "MODE",
         "reflect101 (default), replicate, constant, reflect or wrap"},
        {"border-value", 0, OPT_DOUBLE, &o.p.border_value, NULL, "V", "the value outside the image for constant (0)"},
        OPT_END,
    };
    const struct cli_cmd cmd = {"gauss", "[options] IN... -o OUT|DIR/|-", opts, 1, 0, 1};
    struct cli_args args;
    int rc = cli_parse(&cmd, argc, argv, &args);
    if (rc >= 0)
        return rc;
    o.p.ksize_x = ksize[0];
    o.p.ksize_y = ksize[1];
    o.format = args.format;
    /* what does not depend on the image: sizes, signs, a sigma or a size given (the size
     * limit that depends on the image is checked per file, for the largest image here) */
    gvis_gauss_kernel k = {0};
    if (o.p.sigma_x < 0)
        rc = cli_usage_error("--sigma must be 0 or more");
    else if (o.p.sigma_y < 0)
        rc = cli_usage_error("--sigma-y must be 0 or more");
    else if (gvis_gauss_make_kernel(&o.p, GVIS_GAUSS_MAX_KSIZE, GVIS_GAUSS_MAX_KSIZE, GVIS_U8, &k) != GVIS_OK)
        rc = cli_usage_error("%s", gvis_errmsg());
    else if (!args.output)
        rc = cli_usage_error("no output: give -o OUT (an image, DIR/ or -)");
    else if (args.format && gvis_format_from_name(args.format) == GVIS_FMT_NONE)
        rc = cli_usage_error("unknown --format '%s'", args.format);
    gvis_gauss_kernel_free(&k);
    if (rc >= 0) {
        cli_args_free(&args);
        return rc;
    }
    int status;
    gvis_ctx *ctx = cli_context(&status);
    if (!ctx) {
        cli_args_free(&args);
        return status;
    }
    cli_set_image_op(gauss_op);
    cli_set_image_op_dev(gauss_op_dev);
    status = cli_run_batch(&cmd, &args, ctx, gauss_one, &o, NULL);
    cli_finish(ctx, t0);
    cli_args_free(&args);
    return status;
}
