/* Running a subcommand's per-file function over every input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

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
        to_dir = o[n - 1] == '/' || is_dir(o);
        if (!to_dir && args->ninputs > 1)
            return cli_usage_error("%d inputs need -o DIR/ (a directory, one output per input)", args->ninputs);
        if (to_dir && !is_dir(o) && mkdir(o, 0777) != 0) {
            cli_error("'%s': cannot create directory: %s", o, strerror(errno));
            return EXIT_RUNTIME;
        }
    }
    if (o && strcmp(o, "-") == 0 && args->ninputs > 1 && out_ext == NULL && !args->format)
        cli_info("writing %d outputs one after another to standard output", args->ninputs);
    const char *ext = out_ext ? out_ext : args->format;
    int status = EXIT_OK;
    for (int i = 0; i < args->ninputs; i++) {
        const char *in = args->inputs[i];
        char *owned = NULL;
        const char *out = o;
        if (to_dir) {
            owned = cli_output_in_dir(o, in, ext);
            if (!owned) {
                cli_error("out of memory");
                return EXIT_RUNTIME;
            }
            out = owned;
        }
        int clash = 0;
        for (int k = 0; out && k < args->ninputs && !clash; k++)
            clash = gvis_same_file(out, args->inputs[k]) || strcmp(out, args->inputs[k]) == 0;
        int rc;
        if (clash && strcmp(out, "-") != 0) {
            rc = gvis_error(GVIS_E_IO, "refusing to write over input file '%s'", out);
        } else {
            cli_info("%s%s%s", in, out ? " -> " : "", out ? out : "");
            rc = fn(ctx, in, out, arg);
        }
        if (rc) {
            if (rc != GVIS_E_INTERRUPTED)
                cli_error("'%s': %s", in, gvis_errmsg());
            int s = cli_exit_status(rc);
            if (s > status)
                status = s;
            if (rc == GVIS_E_INTERRUPTED) {
                free(owned);
                break;
            }
        }
        free(owned);
    }
    (void)cmd;
    return status;
}
