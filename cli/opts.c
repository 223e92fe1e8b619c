/* Option parsing shared by every subcommand: value parsers, the option tables, --help.
 * Messages are in messages.c, the context and --timing in context.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"

struct global_opts g_opts = {"auto", 0, 1, 0, 0, 0, 0, 0, 0, 0, -1, -1};
const char *g_cmd = NULL;

const char *cli_command_summary(const char *name); /* main.c */

/* ---- value parsers ---- */

static int parse_int(const char *v, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!*v || *end || errno || n < -2147483647L || n > 2147483647L)
        return -1;
    *out = (int)n;
    return 0;
}

static int parse_double(const char *v, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    /* an underflow (1e-308, 1e-400) is a number, near enough to 0; an overflow is not */
    if (!*v || *end || (errno && !(errno == ERANGE && fabs(d) <= 1)) || !isfinite(d))
        return -1;
    *out = d;
    return 0;
}

int cli_parse_size(const char *v, void *dst, char *err, size_t errlen)
{
    int *wh = dst;
    char *end;
    long w = strtol(v, &end, 10);
    if (end == v || (*end != 'x' && *end != 'X')) {
        snprintf(err, errlen, "'%s' is not a size WxH", v);
        return -1;
    }
    const char *p = end + 1;
    long h = strtol(p, &end, 10);
    if (end == p || *end || w <= 0 || h <= 0 || w > 1 << 20 || h > 1 << 20) {
        snprintf(err, errlen, "'%s' is not a size WxH of positive numbers", v);
        return -1;
    }
    wh[0] = (int)w;
    wh[1] = (int)h;
    return 0;
}

int cli_parse_doubles(const char *v, double *out, int n, char *err, size_t errlen)
{
    const char *p = v;
    for (int i = 0; i < n; i++) {
        while (*p == ' ' || *p == ',' || *p == '\t')
            p++;
        char *end;
        errno = 0;
        double d = strtod(p, &end);
        if (end == p || errno || !isfinite(d)) {
            snprintf(err, errlen, "'%s' is not a list of %d finite numbers", v, n);
            return -1;
        }
        out[i] = d;
        p = end;
    }
    while (*p == ' ' || *p == ',' || *p == '\t')
        p++;
    if (*p) {
        snprintf(err, errlen, "'%s' has more than %d numbers", v, n);
        return -1;
    }
    return 0;
}

/* ---- option tables ---- */

static struct cli_args *cur_args;

const struct cli_args *cli_current_args(void) { return cur_args; }

static int parse_timing(const char *v, void *dst, char *err, size_t errlen)
{
    int *t = dst;
    if (!v || !*v)
        *t = 1;
    else if (strcmp(v, "json") == 0)
        *t = 2;
    else if (strcmp(v, "text") == 0)
        *t = 1;
    else {
        snprintf(err, errlen, "--timing takes no value or '=json'");
        return -1;
    }
    return 0;
}

static int parse_device(const char *v, void *dst, char *err, size_t errlen)
{
    /* the syntax only (the devices are looked up when the context is made) */
    int ok = !strcmp(v, "auto") || !strcmp(v, "cpu") || !strcmp(v, "cuda") || !strcmp(v, "cuda:all");
    if (!ok && strncmp(v, "cuda:", 5) == 0) {
        const char *p = v + 5;
        int count = 0;
        for (ok = 1; ok;) {
            char *end;
            if (*p < '0' || *p > '9')
                ok = 0;
            else if (strtol(p, &end, 10) >= 1024 || ++count > GVIS_MAX_DEVICE_LIST)
                ok = 0;
            else if (*end == ',')
                p = end + 1;
            else if (*end)
                ok = 0;
            else
                break;
        }
    }
    if (!ok) {
        snprintf(err, errlen, "bad device '%s' (auto, cpu, cuda, cuda:N, cuda:all or a list cuda:N,M,...)", v);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

static int parse_cpu(const char *v, void *dst, char *err, size_t errlen)
{
    *(const char **)dst = "cpu";
    return 0;
}

static int parse_repeat(const char *v, void *dst, char *err, size_t errlen)
{
    int n;
    if (parse_int(v, &n) || n < 1 || n > 100000) {
        snprintf(err, errlen, "--repeat takes a whole number from 1 to 100000, not '%s'", v);
        return -1;
    }
    *(int *)dst = n;
    return 0;
}

static int parse_max_pixels(const char *v, void *dst, char *err, size_t errlen)
{
    double d;
    if (parse_double(v, &d) || d < 1 || d > 4294967295.0 || d != floor(d)) {
        snprintf(err, errlen, "--max-pixels takes a whole number from 1 to 4294967295, not '%s'", v);
        return -1;
    }
    *(double *)dst = d;
    return 0;
}

static int parse_quality(const char *v, void *dst, char *err, size_t errlen)
{
    int n;
    if (parse_int(v, &n) || n < 1 || n > 100) {
        snprintf(err, errlen, "--quality takes a whole number from 1 to 100, not '%s'", v);
        return -1;
    }
    *(int *)dst = n;
    return 0;
}

static int parse_png_level(const char *v, void *dst, char *err, size_t errlen)
{
    int n;
    if (parse_int(v, &n) || n < 0 || n > 9) {
        snprintf(err, errlen, "takes a zlib level from 0 (none) to 9 (smallest), not '%s'", v);
        return -1;
    }
    *(int *)dst = n + 1;
    return 0;
}

static int parse_page(const char *v, void *dst, char *err, size_t errlen)
{
    int n;
    if (parse_int(v, &n) || n < 0 || n > 65535) {
        snprintf(err, errlen, "takes a page number from 0 (the first), not '%s'", v);
        return -1;
    }
    *(int *)dst = n;
    return 0;
}

static int parse_format(const char *v, void *dst, char *err, size_t errlen)
{
    if (gvis_format_from_name(v) == GVIS_FMT_NONE) {
        snprintf(err, errlen, "unknown format '%s' (png, jpg, tif, webp, bmp, tga, pgm, ppm, pfm, npy, csv, json, txt)", v);
        return -1;
    }
    *(const char **)dst = v;
    return 0;
}

static int parse_jobs(const char *v, void *dst, char *err, size_t errlen)
{
    int n;
    if (parse_int(v, &n) || n < 1 || n > 1024) {
        snprintf(err, errlen, "takes a thread count from 1 to 1024, not '%s'", v);
        return -1;
    }
    *(int *)dst = n;
    return 0;
}

static int parse_shard(const char *v, void *dst, char *err, size_t errlen)
{
    int k, n, used = 0;
    if (sscanf(v, "%d/%d%n", &k, &n, &used) != 2 || v[used] || n < 1 || k < 1 || k > n) {
        snprintf(err, errlen, "takes K/N with 1 <= K <= N (the K-th of N slices), not '%s'", v);
        return -1;
    }
    ((int *)dst)[0] = k;
    ((int *)dst)[1] = n;
    return 0;
}

int cli_parse_jpeg_codec(const char *v, void *dst, char *err, size_t errlen)
{
    int *c = dst;
    if (strcmp(v, "auto") == 0)
        *c = GVIS_JPEG_CODEC_AUTO;
    else if (strcmp(v, "cpu") == 0)
        *c = GVIS_JPEG_CODEC_CPU;
    else if (strcmp(v, "nvjpeg") == 0 || strcmp(v, "gpu") == 0)
        *c = GVIS_JPEG_CODEC_NVJPEG;
    else {
        snprintf(err, errlen, "bad JPEG codec '%s' (auto, cpu or nvjpeg)", v);
        return -1;
    }
    return 0;
}

/* The flags that take no value; "timing" takes an optional one after '='. */
static const struct opt global_table[] = {
    {"device", 0, OPT_CUSTOM, &g_opts.device, parse_device, "DEV", "auto, cpu, cuda, cuda:N, cuda:all or cuda:N,M,... (default auto)"},
    {"cpu", 0, OPT_CUSTOM, &g_opts.device, parse_cpu, NULL, "same as --device cpu"},
    {"timing", 0, OPT_CUSTOM, &g_opts.timing, parse_timing, NULL, "stage times on stderr (--timing=json: one JSON object)"},
    {"repeat", 0, OPT_CUSTOM, &g_opts.repeat, parse_repeat, "N", "run the operation N times; report the median"},
    {"max-pixels", 0, OPT_CUSTOM, &g_opts.max_pixels, parse_max_pixels, "N", "refuse larger images (default 268435456)"},
    {"quiet", 'q', OPT_FLAG, &g_opts.quiet, NULL, NULL, "no warnings"},
    {"verbose", 'v', OPT_FLAG, &g_opts.verbose, NULL, NULL, "say what is done"},
    {"jobs", 'j', OPT_CUSTOM, &g_opts.jobs, parse_jobs, "N", "files processed at once (default: all cores)"},
    {"shard", 0, OPT_CUSTOM, &g_opts.shard_k, parse_shard, "K/N", "only the K-th of N interleaved slices of the sorted inputs"},
    {"fail-fast", 0, OPT_FLAG, &g_opts.fail_fast, NULL, NULL, "stop at the first file that fails"},
    {"jpeg-codec", 0, OPT_CUSTOM, &g_opts.jpeg_codec, cli_parse_jpeg_codec, "C",
     "JPEG on a CUDA device: auto (nvJPEG where it loads), cpu or nvjpeg"},
    {"progress", 0, OPT_FLAG, &g_opts.progress, NULL, NULL, "progress line on stderr (default: on a terminal)"},
    OPT_END,
};

static int takes_no_value(const struct opt *o)
{
    return o->type == OPT_FLAG || o->parse == parse_cpu || o->parse == parse_timing;
}

static const struct opt *find_long(const struct opt *t, const char *name, size_t len, int *negated)
{
    *negated = 0;
    for (; t && t->name; t++) {
        if (strlen(t->name) == len && strncmp(t->name, name, len) == 0)
            return t;
        if (t->type == OPT_FLAG && len > 3 && strncmp(name, "no-", 3) == 0 && strlen(t->name) == len - 3 &&
            strncmp(t->name, name + 3, len - 3) == 0) {
            *negated = 1;
            return t;
        }
    }
    return NULL;
}

/* Optimal string alignment distance (edits, one transposition counting one) of two short words. */
static int edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    if (la > 63 || lb > 63)
        return 64;
    int d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *cli_did_you_mean(const char *word, size_t len, const char *const *names, int n)
{
    const char *best = NULL, *prefixed = NULL;
    int best_d = len >= 5 ? 3 : 2, prefixes = 0; /* accepted: at most 2 edits (1 for short words) */
    for (int i = 0; i < n; i++) {
        size_t ln = strlen(names[i]);
        int d = edit_distance(word, len, names[i], ln);
        if (d < best_d)
            best = names[i], best_d = d;
        if (len >= 2 && ln > len && strncmp(names[i], word, len) == 0)
            prefixed = names[i], prefixes++;
    }
    if (best && best_d > 0)
        return best;
    return prefixes == 1 ? prefixed : NULL;
}

static const struct opt *find_short(const struct opt *t, char c)
{
    for (; t && t->name; t++)
        if (t->short_name == c)
            return t;
    return NULL;
}

static int apply(const struct opt *o, const char *value, int negated, const char *spelled)
{
    char err[256] = "";
    switch (o->type) {
    case OPT_FLAG:
        *(int *)o->dst = !negated;
        return 0;
    case OPT_INT:
        if (parse_int(value, (int *)o->dst))
            return cli_usage_error("%s takes a whole number, not '%s'", spelled, value);
        return 0;
    case OPT_DOUBLE:
        if (parse_double(value, (double *)o->dst))
            return cli_usage_error("%s takes a finite number, not '%s'", spelled, value);
        return 0;
    case OPT_STRING:
        *(const char **)o->dst = value;
        return 0;
    case OPT_CUSTOM:
        if (o->parse(value, o->dst, err, sizeof err)) {
            /* a message that names its option already ("--quality takes ...") stands alone */
            size_t n = strlen(spelled);
            if (strncmp(err, spelled, n) == 0 && err[n] == ' ')
                return cli_usage_error("%s", err);
            return cli_usage_error("%s: %s", spelled, err[0] ? err : "bad value");
        }
        return 0;
    }
    return 0;
}

/* The options every subcommand has besides its own. */
static struct opt io_table[] = {
    {"output", 'o', OPT_STRING, NULL, NULL, "OUT", "output file, DIR/ for one output per input, - for stdout"},
    {"format", 0, OPT_CUSTOM, NULL, parse_format, "FMT", "output format (for -o - or to override the extension)"},
    {"quality", 0, OPT_CUSTOM, NULL, parse_quality, "Q", "JPEG / lossy WebP quality 1..100 (default 95 / 90)"},
    {"png-level", 0, OPT_CUSTOM, NULL, parse_png_level, "N", "PNG zlib level 0..9 (default: fast, OpenCV's)"},
    {"lossless", 0, OPT_FLAG, NULL, NULL, NULL, "lossless WebP"},
    {"strip", 0, OPT_FLAG, NULL, NULL, NULL, "write no metadata (EXIF, ICC profile, resolution)"},
    {"no-autorotate", 0, OPT_FLAG, NULL, NULL, NULL, "keep the stored EXIF orientation (default: turn upright)"},
    {"page", 0, OPT_CUSTOM, NULL, parse_page, "N", "the page of a multi-page TIFF to read, from 0"},
    {"list", 0, OPT_STRING, NULL, NULL, "FILE", "read input paths from FILE, one a line (- for stdin)"},
    OPT_END,
};

static int parse_one(const struct cli_cmd *cmd, int argc, char **argv, int *i, int *help)
{
    const char *a = argv[*i];
    const struct opt *tables[3] = {cmd ? cmd->opts : NULL, cmd ? io_table : NULL, global_table};
    if (a[1] == '-') {
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        if (len == 4 && strncmp(name, "help", 4) == 0) {
            *help = 1;
            return 0;
        }
        const struct opt *o = NULL;
        int neg = 0;
        for (int t = 0; t < 3 && !o; t++)
            o = find_long(tables[t], name, len, &neg);
        if (!o) {
            const char *names[256];
            int nn = 0;
            for (int t = 0; t < 3; t++)
                for (const struct opt *q = tables[t]; q && q->name && nn < 256; q++)
                    names[nn++] = q->name;
            const char *near = cli_did_you_mean(name, len, names, nn);
            if (near)
                return cli_usage_error("unknown option '--%.*s'; did you mean '--%s'?", (int)len, name, near);
            return cli_usage_error("unknown option '--%.*s'", (int)len, name);
        }
        char spelled[80];
        snprintf(spelled, sizeof spelled, "--%.*s", (int)len, name);
        if (takes_no_value(o)) {
            if (eq && o->parse != parse_timing)
                return cli_usage_error("%s takes no value", spelled);
            return apply(o, eq ? eq + 1 : NULL, neg, spelled);
        }
        if (neg)
            return cli_usage_error("unknown option '%s'", a);
        const char *v = eq ? eq + 1 : NULL;
        if (!v) {
            if (*i + 1 >= argc)
                return cli_usage_error("%s needs a value", spelled);
            v = argv[++*i];
        }
        return apply(o, v, 0, spelled);
    }
    /* short options: -q, -v, -o FILE, -oFILE, combined flags -qv */
    for (const char *p = a + 1; *p; p++) {
        if (*p == 'h') {
            *help = 1;
            return 0;
        }
        const struct opt *o = NULL;
        for (int t = 0; t < 3 && !o; t++)
            o = find_short(tables[t], *p);
        if (!o)
            return cli_usage_error("unknown option '-%c'", *p);
        char spelled[4] = {'-', *p, 0, 0};
        if (takes_no_value(o)) {
            int rc = apply(o, NULL, 0, spelled);
            if (rc)
                return rc;
            continue;
        }
        const char *v = p[1] ? p + 1 : NULL;
        if (!v) {
            if (*i + 1 >= argc)
                return cli_usage_error("%s needs a value", spelled);
            v = argv[++*i];
        }
        return apply(o, v, 0, spelled);
    }
    return 0;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, struct cli_args *args)
{
    memset(args, 0, sizeof *args);
    cur_args = args;
    io_table[0].dst = &args->output;
    io_table[1].dst = &args->format;
    io_table[2].dst = &args->quality;
    io_table[3].dst = &args->png_level;
    io_table[4].dst = &args->lossless;
    io_table[5].dst = &args->strip;
    io_table[6].dst = &args->no_autorotate;
    io_table[7].dst = &args->page;
    io_table[8].dst = &args->list;
    args->inputs = calloc((size_t)argc + 1, sizeof *args->inputs);
    if (!args->inputs) {
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    int help = 0, only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_positional && strcmp(a, "--") == 0) {
            only_positional = 1;
            continue;
        }
        if (only_positional || a[0] != '-' || a[1] == 0) {
            args->inputs[args->ninputs++] = argv[i];
            continue;
        }
        int rc = parse_one(cmd, argc, argv, &i, &help);
        if (rc || help) {
            if (help)
                cli_usage(cmd, 1);
            cli_args_free(args);
            return rc;
        }
    }
    if (cmd->max_inputs == 0) {
        double t0 = gvis_now_ms();
        int rc = cli_expand_inputs(args);
        gvis_trace_phase("list the inputs", t0, gvis_now_ms());
        if (rc >= 0) {
            cli_args_free(args);
            return rc;
        }
    }
    const char *problem = NULL;
    if (args->ninputs < cmd->min_inputs)
        problem = cmd->min_inputs == 1 ? "no input given" : "more inputs needed";
    else if (cmd->max_inputs && args->ninputs > cmd->max_inputs)
        problem = "too many inputs";
    else if (args->output && !*args->output)
        problem = "-o needs a file name";
    if (problem) {
        cli_args_free(args);
        return cli_usage_error("%s", problem);
    }
    return -1;
}

int cli_parse_globals(int argc, char **argv)
{
    int help = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == 0)
            return i;
        if (strcmp(a, "--version") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return i;
        int rc = parse_one(NULL, argc, argv, &i, &help);
        if (rc)
            return -(rc + 1);
    }
    return argc;
}

static void print_table(FILE *f, const struct opt *t)
{
    for (; t && t->name; t++) {
        char left[64];
        if (t->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", t->short_name, t->name, t->metavar ? " " : "",
                     t->metavar ? t->metavar : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", t->name, t->metavar ? " " : "", t->metavar ? t->metavar : "");
        fprintf(f, "  %-26s %s\n", left, t->help ? t->help : "");
    }
}

void cli_usage(const struct cli_cmd *cmd, int to_stdout)
{
    FILE *f = to_stdout ? stdout : stderr;
    const char *summary = cli_command_summary(cmd->name);
    fprintf(f, "usage: gvis %s %s\n", cmd->name, cmd->synopsis);
    if (summary)
        fprintf(f, "\n%s.\n", summary);
    fprintf(f, "\nOptions:\n");
    print_table(f, cmd->opts);
    print_table(f, io_table);
    fprintf(f, "\nGlobal options:\n");
    print_table(f, global_table);
    fprintf(f, "\nSee 'gvis help %s' for the manual page.\n", cmd->name);
}
