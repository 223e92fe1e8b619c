/* gvis hist: histograms as CSV or JSON, a bar-chart plot, and equalization. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "hist.h"

struct hist_opts {
    int channel;        /* -1: all */
    int bins;           /* -1: default */
    unsigned range[2];  /* range[1] == 0: not given */
    int json;
    const char *plot;
    int plot_size[2];
    int equalize;
    int per_channel;
    int many;           /* several inputs to one stream: JSON Lines, one CSV header */
    int long_form;      /* several inputs: CSV file,channel,bin,count (cli_several_inputs) */
    const char *format;
};

static int parse_range(const char *v, void *dst, char *err, size_t errlen)
{
    unsigned *r = dst;
    char *end;
    unsigned long lo = strtoul(v, &end, 10);
    if (end == v || *end != ':' || v[0] == '-') {
        snprintf(err, errlen, "'%s' is not a range LO:HI", v);
        return -1;
    }
    const char *p = end + 1;
    unsigned long hi = strtoul(p, &end, 10);
    if (end == p || *end || *p == '-' || hi > 65536 || lo >= hi) {
        snprintf(err, errlen, "'%s' is not a range LO:HI with 0 <= LO < HI <= 65536", v);
        return -1;
    }
    r[0] = (unsigned)lo;
    r[1] = (unsigned)hi;
    return 0;
}

static const char *channel_name(int channels, int c)
{
    static const char *rgba[4] = {"r", "g", "b", "a"};
    return channels == 1 ? "count" : rgba[c];
}

/* CSV of several inputs, whatever their channels: one row per file, channel and bin, so
 * that gray, colour and RGBA files share one header (file,channel,bin,count). */
static int format_long(const struct hist_opts *o, const char *in, const gvis_image *img, const gvis_hist *h,
                       gvis_buf *b)
{
    int rc = 0;
    if (!o->many) /* one per file in -o DIR/; one per stream from the batch (cli_set_stream) */
        rc = gvis_buf_printf(b, "file,channel,bin,count\n");
    /* the file name quoted as CSV does when it holds a comma, quote or newline */
    gvis_buf name = {0};
    if (!rc && strpbrk(in, ",\"\n")) {
        rc = gvis_buf_printf(&name, "\"");
        for (const char *p = in; !rc && *p; p++)
            rc = *p == '"' ? gvis_buf_printf(&name, "\"\"") : gvis_buf_append(&name, p, 1);
        if (!rc) rc = gvis_buf_printf(&name, "\"");
    } else if (!rc) {
        rc = gvis_buf_printf(&name, "%s", in);
    }
    for (int c = 0; !rc && c < h->channels; c++) {
        int ch = o->channel >= 0 ? o->channel : c;
        const char *nm = img->channels == 1 ? "gray" : channel_name(4, ch);
        for (int k = 0; !rc && k < h->bins; k++)
            rc = gvis_buf_printf(b, "%.*s,%s,%d,%llu\n", (int)name.len, (const char *)name.data, nm, k,
                                 (unsigned long long)h->counts[(size_t)c * h->bins + k]);
    }
    gvis_buf_free(&name);
    return rc;
}

static int format_hist(const struct hist_opts *o, const char *in, const gvis_image *img, const gvis_hist *h,
                       int json, gvis_buf *b)
{
    int rc = 0;
    int chans = h->channels;
    if (json) {
        rc = gvis_buf_printf(b, "{\"file\": ");
        if (!rc) rc = gvis_buf_json_string(b, in);
        if (!rc)
            rc = gvis_buf_printf(b, ", \"width\": %d, \"height\": %d, \"channels\": %d, \"depth\": %d, \"bins\": %d, "
                                    "\"range\": [%u, %u], \"histograms\": {",
                                 img->width, img->height, img->channels, img->type == GVIS_U8 ? 8 : 16, h->bins, h->lo,
                                 h->hi);
        for (int c = 0; !rc && c < chans; c++) {
            const char *nm = o->channel >= 0 ? (img->channels == 1 ? "count" : channel_name(4, o->channel))
                                             : channel_name(chans, c);
            rc = gvis_buf_printf(b, "%s\"%s\": [", c ? ", " : "", nm);
            for (int k = 0; !rc && k < h->bins; k++)
                rc = gvis_buf_printf(b, "%s%llu", k ? ", " : "", (unsigned long long)h->counts[(size_t)c * h->bins + k]);
            if (!rc) rc = gvis_buf_printf(b, "]");
        }
        if (!rc) rc = gvis_buf_printf(b, "}}\n");
        return rc;
    }
    if (o->long_form)
        return format_long(o, in, img, h, b);
    /* CSV of one input: bin,count or bin,r,g,b[,a] */
    rc = gvis_buf_printf(b, "bin");
    for (int c = 0; !rc && c < chans; c++)
        rc = gvis_buf_printf(b, ",%s", o->channel >= 0 ? (img->channels == 1 ? "count" : channel_name(4, o->channel))
                                                        : channel_name(chans, c));
    if (!rc) rc = gvis_buf_printf(b, "\n");
    for (int k = 0; !rc && k < h->bins; k++) {
        rc = gvis_buf_printf(b, "%d", k);
        for (int c = 0; !rc && c < chans; c++)
            rc = gvis_buf_printf(b, ",%llu", (unsigned long long)h->counts[(size_t)c * h->bins + k]);
        if (!rc) rc = gvis_buf_printf(b, "\n");
    }
    return rc;
}

static int hist_one(gvis_ctx *ctx, const char *in, const char *out, void *arg)
{
    struct hist_opts *o = arg;
    if (o->plot && out && strcmp(out, "-") != 0) {
        /* the plot and the -o output must be two files: checked before anything is written */
        char *pp = o->many || o->plot[strlen(o->plot) - 1] == '/' ? cli_output_in_dir(o->plot, in, "png") : NULL;
        const char *plot = pp ? pp : o->plot;
        int same = strcmp(plot, out) == 0 || gvis_same_file(plot, out);
        free(pp);
        if (same)
            return gvis_error(GVIS_E_ARG, "-o and --plot both name '%s'", out);
    }
    gvis_image img = {0};
    int rc = gvis_load(ctx, in, &img);
    if (rc)
        return rc;
    gvis_hist_params p;
    gvis_hist_defaults(&img, &p);
    p.channel = o->channel;
    if (o->bins > 0)
        p.bins = o->bins;
    if (o->range[1])
        p.lo = o->range[0], p.hi = o->range[1];
    if (img.type == GVIS_U8 && o->range[1] > 256) {
        gvis_image_free(&img);
        return gvis_error(GVIS_E_ARG, "--range %u:%u is beyond the values of an 8-bit image (0:256)", o->range[0],
                          o->range[1]);
    }
    if (o->equalize) {
        gvis_image eq = {0};
        rc = gvis_equalize(ctx, &img, o->per_channel, &eq);
        if (!rc)
            rc = gvis_image_copy_meta(&eq, &img);
        if (!rc)
            rc = gvis_save(ctx, out, gvis_format_from_name(o->format), &eq);
        gvis_image_free(&eq);
    }
    gvis_hist h = {0};
    if (!rc && (!o->equalize || o->plot))
        rc = gvis_hist_compute(ctx, &img, &p, &h);
    /* with --plot alone the picture is the output; -o or --json add the numbers */
    int numbers = !o->equalize && (!o->plot || out || o->json);
    if (!rc && numbers) {
        gvis_format f = o->json ? GVIS_FMT_JSON : GVIS_FMT_CSV;
        if (o->format)
            f = gvis_format_from_name(o->format);
        else if (out && strcmp(out, "-") != 0 && gvis_format_from_path(out) == GVIS_FMT_JSON)
            f = GVIS_FMT_JSON;
        if (f != GVIS_FMT_CSV && f != GVIS_FMT_JSON)
            rc = gvis_error(GVIS_E_ARG, "histograms are written as CSV or JSON, not %s", gvis_format_name(f));
        gvis_buf b = {0};
        if (!rc)
            rc = format_hist(o, in, &img, &h, f == GVIS_FMT_JSON, &b);
        if (!rc)
            rc = cli_write_output(ctx, out ? out : "-", &b);
        gvis_buf_free(&b);
    }
    if (!rc && o->plot) {
        char *path = NULL;
        size_t n = strlen(o->plot);
        if (o->many || o->plot[n - 1] == '/')
            path = cli_output_in_dir(o->plot, in, "png");
        gvis_image pic = {0};
        rc = gvis_hist_plot(&h, NULL, o->plot_size[0], o->plot_size[1], &pic);
        if (!rc && gvis_same_file(path ? path : o->plot, in))
            rc = gvis_error(GVIS_E_IO, "refusing to write the plot over input file '%s'", in);
        if (!rc)
            rc = gvis_save(ctx, path ? path : o->plot, GVIS_FMT_PNG, &pic);
        gvis_image_free(&pic);
        free(path);
    }
    gvis_hist_free(&h);
    gvis_image_free(&img);
    return rc;
}

int cmd_hist(int argc, char **argv)
{
    double t0 = gvis_now_ms();
    struct hist_opts o;
    memset(&o, 0, sizeof o);
    /* "not given" is a value no user can type: -1 was accepted as one (issue 13 item 5) */
    o.channel = INT_MIN;
    o.bins = INT_MIN;
    o.plot_size[0] = 800;
    o.plot_size[1] = 400;
    const struct opt opts[] = {
        {"channel", 0, OPT_INT, &o.channel, NULL, "N", "only channel N (0 = red or gray)"},
        {"bins", 0, OPT_INT, &o.bins, NULL, "N", "number of bins (default 256)"},
        {"range", 0, OPT_CUSTOM, &o.range, parse_range, "LO:HI", "counted values (default 0:256, 16-bit 0:65536)"},
        {"json", 0, OPT_FLAG, &o.json, NULL, NULL, "JSON instead of CSV (also from -o x.json)"},
        {"plot", 0, OPT_STRING, &o.plot, NULL, "FILE.png", "a bar chart of the histogram (DIR/ for several inputs)"},
        {"plot-size", 0, OPT_CUSTOM, o.plot_size, cli_parse_size, "WxH", "size of the plot (default 800x400)"},
        {"equalize", 0, OPT_FLAG, &o.equalize, NULL, NULL, "write the equalized image to -o (OpenCV's equalizeHist)"},
        {"per-channel", 0, OPT_FLAG, &o.per_channel, NULL, NULL, "equalize each colour channel instead of luma"},
        OPT_END,
    };
    const struct cli_cmd cmd = {"hist", "[options] IN... [-o OUT.csv|OUT.json|DIR/]", opts, 1, 0, 1};
    struct cli_args args;
    int rc = cli_parse(&cmd, argc, argv, &args);
    if (rc >= 0)
        return rc;
    const char *bad = NULL;
    if (o.channel != INT_MIN && (o.channel < 0 || o.channel > 3))
        bad = "--channel takes 0 to 3";
    else if (o.bins != INT_MIN && (o.bins < 1 || o.bins > 65536))
        bad = "--bins takes 1 to 65536";
    else if (o.per_channel && !o.equalize)
        bad = "--per-channel goes with --equalize";
    else if (o.equalize && !args.output)
        bad = "--equalize needs -o OUT (an image file, DIR/ or -)";
    else if (o.plot && !*o.plot)
        bad = "--plot needs a file name";
    else if (o.plot && args.ninputs > 1 && o.plot[strlen(o.plot) - 1] != '/')
        bad = "--plot with several inputs needs a directory (--plot DIR/)";
    if (bad) {
        cli_args_free(&args);
        return cli_usage_error("%s", bad);
    }
    if (o.channel == INT_MIN)
        o.channel = -1; /* all */
    if (o.bins == INT_MIN)
        o.bins = -1; /* the default */
    o.format = args.format;
    o.many = args.ninputs > 1 && (!args.output || strcmp(args.output, "-") == 0) && !o.equalize;
    o.long_form = cli_several_inputs(&args);
    if (o.many) { /* one stream: the files' text in input order, on --jobs threads too */
        int csv = o.format ? strcmp(o.format, "csv") == 0 : !o.json;
        cli_set_stream(csv && o.long_form ? "file,channel,bin,count\n" : "", "");
    }
    int status;
    gvis_ctx *ctx = cli_context(&status);
    if (!ctx) {
        cli_args_free(&args);
        return status;
    }
    if (o.plot && o.plot[strlen(o.plot) - 1] == '/' && gvis_mkdir_p(o.plot) != GVIS_OK) {
        cli_error("%s", gvis_errmsg());
        cli_finish(ctx, t0);
        cli_args_free(&args);
        return EXIT_RUNTIME;
    }
    const char *ext = o.equalize ? NULL : (o.json || (args.format && strcmp(args.format, "json") == 0)) ? "json" : "csv";
    status = cli_run_batch(&cmd, &args, ctx, hist_one, &o, ext);
    cli_finish(ctx, t0);
    cli_args_free(&args);
    return status;
}
