/* Output names of a batch: -o DIR/ and output templates (-o 'out/{stem}_blur.png'). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const placeholders[] = {"stem", "name", "ext", "index", "dir"};
#define NPLACE ((int)(sizeof placeholders / sizeof placeholders[0]))

int cli_is_template(const char *o)
{
    return o && strcmp(o, "-") != 0 && strchr(o, '{') != NULL;
}

/* The placeholder at p (just after '{'): its number, the width of {index:W} in *width
 * and the length up to and with the '}' in *len; -1 when it is none of ours. */
static int placeholder(const char *p, int *width, size_t *len)
{
    const char *close = strchr(p, '}');
    if (!close)
        return -1;
    size_t n = (size_t)(close - p);
    *width = 0;
    *len = n + 1;
    for (int k = 0; k < NPLACE; k++) {
        size_t kl = strlen(placeholders[k]);
        if (n == kl && strncmp(p, placeholders[k], kl) == 0)
            return k;
        if (k == 3 && n > kl + 1 && strncmp(p, "index:", kl + 1) == 0) {
            int w = 0;
            for (size_t j = kl + 1; j < n; j++) {
                if (p[j] < '0' || p[j] > '9' || w > 9)
                    return -1;
                w = 10 * w + (p[j] - '0');
            }
            if (w < 1 || w > 9)
                return -1;
            *width = w;
            return k;
        }
    }
    return -1;
}

int cli_check_template(const char *o)
{
    if (!cli_is_template(o))
        return -1;
    size_t n = strlen(o);
    if (o[n - 1] == '/')
        return cli_usage_error("output template '%s' ends in '/': end it with a file name such as {stem}.png", o);
    for (const char *p = o; *p; p++) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            p++;
            continue;
        }
        if (*p == '}')
            return cli_usage_error("output template '%s': a '}' without its '{' (write '}}' for a brace)", o);
        if (*p != '{')
            continue;
        int w;
        size_t len;
        if (placeholder(p + 1, &w, &len) < 0) {
            const char *close = strchr(p, '}');
            return cli_usage_error("output template '%s': unknown placeholder '%.*s'; known: {stem}, {name}, {ext}, "
                                   "{index}, {index:W}, {dir} ('{{' for a brace)",
                                   o, close ? (int)(close - p + 1) : (int)strlen(p), p);
        }
        p += len;
    }
    return -1;
}

/* The index of input i of this run in the whole list: --shard K/N keeps items
 * K-1, K-1+N, ..., so {index} names a file the same in every shard (from 1). */
static long global_index(int i)
{
    return g_opts.shard_n ? (long)i * g_opts.shard_n + g_opts.shard_k : (long)i + 1;
}

static char *expand(const char *o, const char *in, int i)
{
    const char *path = strcmp(in, "-") == 0 ? "stdin" : in;
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    if (dot == name)
        dot = NULL;
    size_t stem_len = dot ? (size_t)(dot - name) : strlen(name);
    const char *ext = dot ? dot + 1 : "";
    int dir_len = slash ? (slash == path ? 1 : (int)(slash - path)) : 1;
    const char *dir = slash ? path : ".";
    gvis_buf b = {0};
    int rc = 0;
    for (const char *p = o; !rc && *p; p++) {
        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            rc = gvis_buf_append(&b, p, 1);
            p++;
            continue;
        }
        int w;
        size_t len;
        int k = *p == '{' ? placeholder(p + 1, &w, &len) : -1;
        if (k < 0) {
            rc = gvis_buf_append(&b, p, 1);
            continue;
        }
        switch (k) {
        case 0: rc = gvis_buf_printf(&b, "%.*s", (int)stem_len, name); break;
        case 1: rc = gvis_buf_printf(&b, "%s", name); break;
        case 2: rc = gvis_buf_printf(&b, "%s", ext); break;
        case 3: rc = gvis_buf_printf(&b, "%0*ld", w, global_index(i)); break;
        default: rc = gvis_buf_printf(&b, "%.*s", dir_len, dir); break;
        }
        p += len;
    }
    if (!rc)
        rc = gvis_buf_append(&b, "", 1);
    if (rc) {
        gvis_buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

char *cli_output_path(const char *o, const char *in, int i, const char *ext)
{
    return cli_is_template(o) ? expand(o, in, i) : cli_output_in_dir(o, in, ext);
}

struct named_output {
    char *out;
    int input;
};

static int cmp_output(const void *a, const void *b)
{
    const struct named_output *x = a, *y = b;
    int c = strcmp(x->out, y->out);
    return c ? c : x->input - y->input;
}

/* The folder part of path (its length; 0 when it has none). */
static size_t parent_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

static int plan(const char *o, char *const *inputs, int n, const char *ext, int make)
{
    int status = cli_check_template(o);
    int tmpl = cli_is_template(o);
    if (status >= 0 || n < 1 || (n < 2 && !tmpl))
        return status;
    struct named_output *v = calloc((size_t)n, sizeof *v);
    if (!v) {
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < n && status < 0; i++) {
        v[i].input = i;
        if (!(v[i].out = cli_output_path(o, inputs[i], i, ext))) {
            cli_error("out of memory");
            status = EXIT_RUNTIME;
        }
    }
    if (status < 0) {
        qsort(v, (size_t)n, sizeof *v, cmp_output);
        for (int i = 1; i < n && status < 0; i++) {
            const char *a = inputs[v[i - 1].input], *b = inputs[v[i].input];
            /* the same file named twice (a list with duplicates) is processed twice, into one output */
            if (strcmp(v[i - 1].out, v[i].out) == 0 && strcmp(a, b) != 0 && !gvis_same_file(a, b))
                status = cli_usage_error("'%s' and '%s' would both be written to '%s'; tell them apart with {index} "
                                         "or {dir} in an output template (-o 'OUT/{dir}/{name}' or -o "
                                         "'OUT/{stem}_{index}.%s')",
                                         a, b, v[i].out, ext ? ext : "png");
        }
    }
    /* a template's folders are made before any work; sorted, each once */
    for (int i = 0; make && tmpl && i < n && status < 0; i++) {
        size_t pl = parent_len(v[i].out);
        if (pl == 0 || (i > 0 && parent_len(v[i - 1].out) == pl && strncmp(v[i - 1].out, v[i].out, pl) == 0))
            continue;
        char *dir = strndup(v[i].out, pl);
        if (!dir || gvis_mkdir_p(dir) != GVIS_OK) {
            cli_error("%s", dir ? gvis_errmsg() : "out of memory");
            status = EXIT_RUNTIME;
        }
        free(dir);
    }
    for (int i = 0; i < n; i++)
        free(v[i].out);
    free(v);
    return status;
}

int cli_plan_outputs(const char *o, char *const *inputs, int n, const char *ext)
{
    return plan(o, inputs, n, ext, 1);
}

int cli_distinct_outputs(const char *o, char *const *inputs, int n, const char *ext)
{
    return plan(o, inputs, n, ext, 0);
}
