/* Running a subcommand's per-file function over every input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "cli.h"

/* --list FILE: the most bytes read (some 2.5 million paths of 100 characters) */
#define CLI_LIST_MAX ((size_t)256 << 20)

char *cli_output_in_dir(const char *dir, const char *in, const char *ext)
{
    const char *base = strcmp(in, "-") == 0 ? "stdin" : in;
    const char *slash = strrchr(base, '/');
    if (slash)
        base = slash + 1;
    size_t stem = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        stem = (size_t)(dot - base);
    if (!ext)
        ext = dot && dot != base ? dot + 1 : "png";
    size_t dl = strlen(dir);
    int need_slash = dl && dir[dl - 1] != '/';
    size_t n = dl + 1 + stem + 1 + strlen(ext) + 1;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s%s%.*s.%s", dir, need_slash ? "/" : "", (int)stem, base, ext);
    return out;
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

void cli_args_free(struct cli_args *args)
{
    if (args->expanded)
        for (int i = 0; i < args->ninputs; i++)
            free(args->inputs[i]);
    free(args->inputs);
    args->inputs = NULL;
    args->ninputs = 0;
}

int cli_several_inputs(const struct cli_args *args) { return args->ninputs > 1 || args->list || args->expanded; }

struct strv {
    char **v;
    int n, cap;
};

static int strv_push(struct strv *s, char *p)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        char **v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = p;
    return 0;
}

static void strv_free(struct strv *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int image_name(const char *name)
{
    gvis_format f = gvis_format_from_path(name);
    return f != GVIS_FMT_NONE && f != GVIS_FMT_CSV && f != GVIS_FMT_JSON && f != GVIS_FMT_TXT && f != GVIS_FMT_PLY;
}

/* A folder's image files (by extension), sorted by name, appended to s. */
static int add_folder(struct strv *s, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("'%s': %s", dir, strerror(errno));
        return EXIT_RUNTIME;
    }
    int first = s->n;
    struct dirent *e;
    size_t dl = strlen(dir);
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !image_name(e->d_name))
            continue;
        size_t len = dl + 1 + strlen(e->d_name) + 1;
        char *p = malloc(len);
        if (!p || (snprintf(p, len, "%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", e->d_name), 0) ||
            is_dir(p) || strv_push(s, p)) {
            free(p);
            continue;
        }
    }
    closedir(d);
    if (s->n == first) {
        cli_error("'%s': is a directory with no image files", dir);
        return EXIT_RUNTIME;
    }
    qsort(s->v + first, (size_t)(s->n - first), sizeof *s->v, cmp_str);
    return -1;
}

int cli_expand_inputs(struct cli_args *args)
{
    int any_dir = 0;
    for (int i = 0; i < args->ninputs && !any_dir; i++)
        any_dir = strcmp(args->inputs[i], "-") != 0 && is_dir(args->inputs[i]);
    if (!any_dir && !args->list && !g_opts.shard_n)
        return -1;
    struct strv s = {0};
    for (int i = 0; i < args->ninputs; i++) {
        int rc = -1;
        if (strcmp(args->inputs[i], "-") != 0 && is_dir(args->inputs[i])) {
            rc = add_folder(&s, args->inputs[i]);
        } else { /* every string of an expanded list is owned, so cli_args_free frees them all */
            char *p = strdup(args->inputs[i]);
            if (!p || strv_push(&s, p)) {
                free(p);
                rc = EXIT_RUNTIME;
            }
        }
        if (rc >= 0) {
            strv_free(&s);
            return rc;
        }
    }
    if (args->list) { /* a stream is sniffed as text and bounded, as --pairs is (issue 13) */
        gvis_buf b = {0};
        int rc = gvis_read_input(args->list, GVIS_IN_TEXT, CLI_LIST_MAX, 0, &b);
        if (!rc)
            rc = gvis_buf_append(&b, "", 1);
        if (rc) {
            cli_error("'%s': %s", args->list, gvis_errmsg());
            strv_free(&s);
            return cli_exit_status(rc);
        }
        for (char *line = (char *)b.data, *next; line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next++ = 0;
            size_t len = strlen(line);
            while (len > 0 && line[len - 1] == '\r')
                line[--len] = 0;
            if (len == 0)
                continue;
            char *p = strdup(line);
            if (!p || strv_push(&s, p)) {
                free(p);
                gvis_buf_free(&b);
                strv_free(&s);
                cli_error("out of memory reading '%s'", args->list);
                return EXIT_RUNTIME;
            }
        }
        gvis_buf_free(&b);
    }
    if (g_opts.shard_n) { /* interleaved: item i (from 0) goes to shard i % N + 1 */
        int m = 0;
        for (int i = 0; i < s.n; i++) {
            if (i % g_opts.shard_n == g_opts.shard_k - 1)
                s.v[m++] = s.v[i];
            else
                free(s.v[i]);
        }
        s.n = m;
    }
    if (strv_push(&s, NULL)) {
        strv_free(&s);
        return EXIT_RUNTIME;
    }
    free(args->inputs);
    args->inputs = s.v;
    args->ninputs = s.n - 1;
    args->expanded = 1;
    return -1;
}

/* Several files at once (--jobs, --device cuda:all): batch_run.c */
static int run_parallel(const struct cli_cmd *cmd, const struct cli_args *args, gvis_ctx *ctx, cli_file_fn fn,
                        void *arg, const char *dir, const char *ext, int jobs)
{
    int n = args->ninputs;
    char **outs = calloc((size_t)n, sizeof *outs);
    int status = EXIT_OK;
    if (!outs) {
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < n; i++) /* no dir: the stream (standard output), each out as given */
        if (dir ? !(outs[i] = cli_output_path(dir, args->inputs[i], i, ext))
                : args->output && !(outs[i] = strdup(args->output))) {
            cli_error("out of memory");
            status = EXIT_RUNTIME;
            goto out;
        }
    status = cli_run_jobs(cmd, args, ctx, fn, arg, outs, jobs);
out:
    for (int i = 0; i < n; i++)
        free(outs[i]);
    free(outs);
    return status;
}

int cli_run_batch(const struct cli_cmd *cmd, const struct cli_args *args, gvis_ctx *ctx, cli_file_fn fn, void *arg,
                  const char *out_ext)
{
    int stdin_uses = 0;
    for (int i = 0; i < args->ninputs; i++)
        stdin_uses += strcmp(args->inputs[i], "-") == 0;
    if (stdin_uses > 1)
        return cli_usage_error("standard input ('-') can be read only once");
    const char *o = args->output;
    int to_dir = 0;
    if (o && strcmp(o, "-") != 0) {
        size_t n = strlen(o);
        int tmpl = cli_is_template(o);
        to_dir = tmpl || o[n - 1] == '/' || is_dir(o);
        if (!to_dir && args->ninputs > 1)
            return cli_usage_error("%d inputs need -o DIR/ (a directory, one output per input) or a template such "
                                   "as -o 'OUT/{stem}.png'",
                                   args->ninputs);
        if (to_dir) { /* outputs distinct; a template's folders made */
            double t0 = gvis_now_ms();
            int rc = cli_plan_outputs(o, args->inputs, args->ninputs, out_ext ? out_ext : args->format);
            gvis_trace_phase("plan the outputs", t0, gvis_now_ms());
            if (rc >= 0)
                return rc;
        }
        if (to_dir && !tmpl && !is_dir(o) && gvis_mkdir_p(o) != GVIS_OK) {
            cli_error("%s", gvis_errmsg());
            return EXIT_RUNTIME;
        }
    }
    if (o && strcmp(o, "-") == 0 && args->ninputs > 1 && out_ext == NULL && !args->format)
        cli_info("writing %d outputs one after another to standard output", args->ninputs);
    const char *ext = out_ext ? out_ext : args->format;
    int jobs = g_opts.jobs ? g_opts.jobs : gvis_threads();
    if (jobs > args->ninputs)
        jobs = args->ninputs;
    cli_progress_begin(args->ninputs);
    /* one stream of several inputs' text: on threads too, written in input order */
    int stream = cli_stream_on() && (!o || strcmp(o, "-") == 0);
    if (cmd->parallel && (to_dir || stream) && (jobs > 1 || cli_device_entries(ctx) > 1) && stdin_uses == 0) {
        int st = run_parallel(cmd, args, ctx, fn, arg, to_dir ? o : NULL, ext, jobs);
        cli_progress_end();
        return st;
    }
    int status = EXIT_OK;
    gvis_fileset *inputs = gvis_fileset_new((const char *const *)args->inputs, (size_t)args->ninputs);
    if (!inputs) {
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < args->ninputs; i++) {
        const char *in = args->inputs[i];
        char *owned = NULL;
        const char *out = o;
        if (to_dir) {
            owned = cli_output_path(o, in, i, ext);
            if (!owned) {
                cli_error("out of memory");
                gvis_fileset_free(inputs);
                return EXIT_RUNTIME;
            }
            out = owned;
        }
        int rc;
        if (out && gvis_fileset_has(inputs, out)) {
            rc = gvis_error(GVIS_E_IO, "refusing to write over input file '%s'", out);
        } else {
            cli_info("%s%s%s", in, out ? " -> " : "", out ? out : "");
            /* each input's outputs are one set: all of them or none (issue 13) */
            gvis_outset *set = gvis_outset_begin();
            gvis_buf text = {0};
            int wrote = 0;
            if (stream)
                cli_stream_capture(&text, &wrote);
            rc = set ? fn(ctx, in, out, arg) : gvis_error(GVIS_E_NOMEM, "out of memory");
            if (stream)
                cli_stream_capture(NULL, NULL);
            if (set && !rc)
                rc = gvis_outset_commit(set);
            else
                gvis_outset_abort(set);
            if (stream && !rc) /* a file's text goes with its other outputs: all or none */
                rc = cli_stream_flush(ctx, &text, wrote);
            gvis_buf_free(&text);
            if (!rc)
                cli_progress_written();
        }
        cli_progress_step();
        if (rc && cli_stdout_closed()) {
            /* The reader of our output has gone (`gvis ... | head`): the rest of the
             * batch has nowhere to go.  Stop quietly with status 1. */
            free(owned);
            if (status < EXIT_RUNTIME)
                status = EXIT_RUNTIME;
            break;
        }
        if (rc) {
            if (rc != GVIS_E_INTERRUPTED)
                cli_error("'%s': %s", in, gvis_errmsg());
            int s = cli_exit_status(rc);
            if (s > status)
                status = s;
            if (rc == GVIS_E_INTERRUPTED || g_opts.fail_fast) {
                free(owned);
                break;
            }
        }
        free(owned);
    }
    gvis_fileset_free(inputs);
    cli_progress_end();
    (void)cmd;
    return status;
}
