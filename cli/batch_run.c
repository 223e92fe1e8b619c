/* Several files at once (--jobs, --device cuda:all or a list): the staged pipeline of
 * lib/pipeline, one context per device worker, messages and the summary in input order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "images.h"
#include "pipeline.h"

#include "cli.h"

static cli_op_fn image_op;
static cli_op_dev_fn image_op_dev;

void cli_set_image_op(cli_op_fn op) { image_op = op; }
void cli_set_image_op_dev(cli_op_dev_fn op) { image_op_dev = op; }
static cli_op_file_fn image_op_file;
void cli_set_image_op_file(cli_op_file_fn op) { image_op_file = op; }

struct jobs_run {
    const struct cli_args *args;
    gvis_ctx **ctxs;
    cli_file_fn fn;
    void *arg;
    char **outs;
    char **msgs;   /* whole-chain path: each item's failure message */
    gvis_buf *text; /* whole-chain path to the stream (cli_set_stream): each item's text */
    int *wrote;     /* ... and whether it wrote any */
    int stream;
    int *device;   /* whole-chain path: the CUDA device of the worker that ran it */
    gvis_fileset *inputs; /* the inputs, that no output may overwrite */
    int per_device[GVIS_MAX_DEVICE_LIST + 1]; /* files done per CUDA device; [MAX]: on the CPU */
    int status, done_ok, failed, cancelled, stopped;
    int closed; /* the stream's reader has gone */
};

static int refuses_input(struct jobs_run *r, int i)
{
    const char *out = r->outs[i];
    if (!out || strcmp(out, "-") == 0)
        return 0;
    if (gvis_fileset_has(r->inputs, out))
        return gvis_error(GVIS_E_IO, "refusing to write over input file '%s'", out);
    return 0;
}

/* One item's report; a non-zero return stops the run (pipeline.h). */
static int report(struct jobs_run *r, int i, int rc, const char *msg, int device)
{
    const char *in = r->args->inputs[i];
    cli_progress_step();
    if (!rc) /* reported: a file finished in flight may be in place before it is counted */
        cli_progress_written();
    if (rc == GVIS_PIPE_CANCELLED) { /* stopped before it was finished: no output */
        r->cancelled++;
    } else if (!rc) {
        cli_info("%s%s%s", in, r->outs[i] ? " -> " : "", r->outs[i] ? r->outs[i] : "");
        r->done_ok++;
        r->per_device[device >= 0 && device < GVIS_MAX_DEVICE_LIST ? device : GVIS_MAX_DEVICE_LIST]++;
    } else {
        r->failed++;
        if (rc != GVIS_E_INTERRUPTED)
            cli_error("'%s': %s", in, msg);
        int s = cli_exit_status(rc);
        if (s > r->status)
            r->status = s;
    }
    if (rc && rc != GVIS_PIPE_CANCELLED && (rc == GVIS_E_INTERRUPTED || g_opts.fail_fast)) {
        r->stopped = 1;
        return 1;
    }
    return 0;
}

/* ---- a subcommand with a whole per-file function: one stage ---- */

static int chain_work(void *v, int worker, int i, int slot)
{
    struct jobs_run *r = v;
    (void)slot;
    int rc = refuses_input(r, i);
    if (!rc) {
        gvis_outset *set = gvis_outset_begin();
        if (r->stream)
            cli_stream_capture(&r->text[i], &r->wrote[i]);
        rc = set ? r->fn(r->ctxs[worker], r->args->inputs[i], r->outs[i], r->arg)
                 : gvis_error(GVIS_E_NOMEM, "out of memory");
        if (r->stream)
            cli_stream_capture(NULL, NULL);
        if (set && !rc)
            rc = gvis_outset_commit(set);
        else
            gvis_outset_abort(set);
    }
    r->device[i] = gvis_ctx_device_index(r->ctxs[worker]);
    if (rc)
        r->msgs[i] = strdup(gvis_errmsg());
    return rc;
}

static int chain_done(void *v, int i, int rc)
{
    struct jobs_run *r = v;
    if (r->stream) { /* the file's text in input order, with its other outputs: all or none */
        if (r->stopped && rc != GVIS_PIPE_CANCELLED) /* finished in flight after a stop: -j 1 */
            rc = GVIS_PIPE_CANCELLED;                /* would not have written it */
        if (!rc && (rc = cli_stream_flush(r->ctxs[0], &r->text[i], r->wrote[i])))
            r->msgs[i] = strdup(gvis_errmsg());
        gvis_buf_free(&r->text[i]);
        if (rc && rc != GVIS_PIPE_CANCELLED && cli_stdout_closed()) { /* the reader has gone: quiet, status 1 */
            free(r->msgs[i]);
            r->msgs[i] = NULL;
            cli_progress_step();
            if (r->status < EXIT_RUNTIME)
                r->status = EXIT_RUNTIME;
            r->closed = r->stopped = 1;
            return 1;
        }
    }
    int stop = report(r, i, rc, r->msgs[i] ? r->msgs[i] : "failed", rc ? -1 : r->device[i]);
    free(r->msgs[i]);
    r->msgs[i] = NULL;
    return stop;
}

/* ---- a subcommand with an image operation: read, compute, write stages ---- */

static int img_check(void *user, int i) { return refuses_input(user, i); }

static int img_done(void *user, int i, int rc, const char *msg, int device)
{
    return report(user, i, rc, msg, device);
}

/* A worker's context, made on its thread: a fallback after a device failed, or (image
 * batches) its own, at its first item, so that many workers per GPU start at once. */
static gvis_ctx *fallback_ctx(void *user, int entry)
{
    (void)user;
    int st;
    return cli_context_quiet(&st, entry);
}

int cli_device_entries(const gvis_ctx *ctx)
{
    int idx[GVIS_MAX_DEVICE_LIST], entries = 0;
    if (!gvis_ctx_on_cuda(ctx) || gvis_device_list(g_opts.device, idx, GVIS_MAX_DEVICE_LIST, &entries))
        return 0;
    return entries;
}

/* Compute threads of a staged batch on each GPU of the list: 2 (one uploads or downloads
 * while the other's kernels run), or GVIS_DEVICE_WORKERS (1..64; anything else is warned
 * about once and the default kept). */
static int env_count(const char *name, int dflt, int max)
{
    static const char *warned[4]; /* each variable warned about once */
    const char *e = getenv(name);
    if (!e || !*e)
        return dflt;
    char *end;
    long v = strtol(e, &end, 10);
    if (*end || v < 1 || v > max) {
        int k = 0;
        while (k < 4 && warned[k] && strcmp(warned[k], name))
            k++;
        if (k < 4 && !warned[k]) {
            warned[k] = name;
            if (dflt > 0)
                cli_warn("%s='%s' is not a whole number from 1 to %d: using %d", name, e, max, dflt);
            else
                cli_warn("%s='%s' is not a whole number from 1 to %d: using the default", name, e, max);
        }
        return dflt;
    }
    return (int)v;
}

/* Where JPEG goes through nvJPEG, a GPU's compute threads take their files from its
 * decode stage (lib/pipeline/jpeg_batch.c), whose batches hold up to GVIS_JPEG_BATCH files
 * (1..128; 0, the default: as many as the GPU's compute threads, 16 unless
 * GVIS_DEVICE_WORKERS says otherwise). */
static int jpeg_batch_size(void) { return env_count("GVIS_JPEG_BATCH", 0, 128); }

int cli_device_workers(const gvis_ctx *ctx)
{
    int entries = cli_device_entries(ctx);
    gvis_jpeg_counts j;
    gvis_ctx_jpeg_counts(ctx, &j);
    return entries ? entries * env_count("GVIS_DEVICE_WORKERS", j.nvjpeg ? 16 : 2, 64) : 1;
}

int cli_worker_contexts(gvis_ctx *ctx, gvis_ctx **ctxs, int workers)
{
    int status = EXIT_OK, saved = g_opts.verbose;
    ctxs[0] = ctx;
    g_opts.verbose = 0; /* "device ..." once, not per worker */
    for (int w = 1; w < workers && status == EXIT_OK; w++)
        if (!(ctxs[w] = cli_context_on(&status, w)) && status == EXIT_OK)
            status = EXIT_RUNTIME;
    g_opts.verbose = saved;
    return status;
}

int cli_run_jobs(const struct cli_cmd *cmd, const struct cli_args *args, gvis_ctx *ctx, cli_file_fn fn, void *arg,
                 char **outs, int jobs)
{
    (void)cmd;
    int n = args->ninputs;
    int entries = cli_device_entries(ctx);
    /* workers: a whole-chain subcommand one per job (at least one per device entry), an
     * image operation cli_device_workers() */
    int workers = image_op ? cli_device_workers(ctx) : entries > jobs ? entries : jobs;
    if (workers > n)
        workers = n;
    struct jobs_run r = {.args = args, .fn = fn, .arg = arg, .outs = outs};
    r.ctxs = calloc((size_t)workers, sizeof *r.ctxs);
    r.msgs = calloc((size_t)n, sizeof *r.msgs);
    r.device = calloc((size_t)n, sizeof *r.device);
    r.inputs = gvis_fileset_new((const char *const *)args->inputs, (size_t)n);
    r.stream = !image_op && cli_stream_on() && (!outs[0] || strcmp(outs[0], "-") == 0);
    if (r.stream) {
        r.text = calloc((size_t)n, sizeof *r.text);
        r.wrote = calloc((size_t)n, sizeof *r.wrote);
    }
    int status = EXIT_OK;
    if (!r.ctxs || !r.msgs || !r.device || !r.inputs || (r.stream && (!r.text || !r.wrote))) {
        cli_error("out of memory");
        status = EXIT_RUNTIME;
        goto out;
    }
    if (image_op) /* the others are made by their threads (lib/pipeline/images.c) */
        r.ctxs[0] = ctx;
    else if ((status = cli_worker_contexts(ctx, r.ctxs, workers)) != EXIT_OK)
        goto out;
    double t0 = gvis_now_ms();
    int reported;
    if (image_op) {
        gvis_image_stages *st = calloc((size_t)workers, sizeof *st);
        if (!st) {
            cli_error("out of memory");
            status = EXIT_RUNTIME;
            goto out;
        }
        for (int w = 0; w < workers; w++) /* per device: a GPU codec would go here */
            st[w] = (gvis_image_stages){NULL, image_op, NULL, arg, image_op_dev, image_op_file};
        gvis_image_batch b = {.n = n,
                              .inputs = args->inputs,
                              .outputs = outs,
                              .format = args->format ? gvis_format_from_name(args->format) : GVIS_FMT_NONE,
                              .workers = workers,
                              .ctxs = r.ctxs,
                              .stages = st,
                              .readers = jobs,
                              .writers = jobs,
                              .inflight = 2 * jobs + workers, /* each reader, worker and writer busy */
                              .entries = entries,
                              .make_ctx = fallback_ctx,
                              .check = img_check,
                              .done = img_done,
                              .user = &r,
                              .jpeg_batch = entries ? jpeg_batch_size() : 0};
        reported = gvis_image_batch_run(&b);
        free(st);
    } else {
        gvis_pipe_stages st = {{NULL, chain_work, NULL}, {0, workers, 0}, 2 * workers, chain_done, &r};
        reported = gvis_pipeline_run_stages(n, &st);
        for (int w = 1; w < workers; w++) /* --timing: every worker's times */
            gvis_timing_add(gvis_ctx_timing(ctx), gvis_ctx_timing(r.ctxs[w]));
    }
    double secs = (gvis_now_ms() - t0) / 1000.0;
    if (reported < 0) {
        cli_error("cannot start worker threads");
        status = EXIT_RUNTIME;
        goto out;
    }
    status = r.status;
    if (!g_opts.quiet && !r.closed && (g_opts.verbose || r.failed || r.stopped)) {
        char per[1024] = "";
        size_t len = 0;
        for (int d = 0; d <= GVIS_MAX_DEVICE_LIST && entries; d++)
            if (r.per_device[d] && len < sizeof per) {
                if (d < GVIS_MAX_DEVICE_LIST)
                    len += (size_t)snprintf(per + len, sizeof per - len, "%scuda:%d %d", len ? ", " : "; ", d,
                                            r.per_device[d]);
                else
                    len += (size_t)snprintf(per + len, sizeof per - len, "%scpu %d", len ? ", " : "; ",
                                            r.per_device[d]);
            }
        fprintf(stderr, "gvis %s: %d of %d files done, %d failed, %.2f s, %.1f images/s, %d jobs on %s%s\n", g_cmd,
                r.done_ok, n, r.failed, secs, secs > 0 ? r.done_ok / secs : 0.0, jobs,
                entries > 1 ? g_opts.device : gvis_ctx_device_name(ctx), per);
    }
out:
    if (r.ctxs)
        for (int w = 1; w < workers; w++)
            if (r.ctxs[w])
                gvis_ctx_free(r.ctxs[w]);
    if (r.msgs)
        for (int i = 0; i < n; i++)
            free(r.msgs[i]);
    free(r.ctxs);
    free(r.msgs);
    free(r.device);
    gvis_fileset_free(r.inputs);
    if (r.text)
        for (int i = 0; i < n; i++)
            gvis_buf_free(&r.text[i]);
    free(r.text);
    free(r.wrote);
    return status;
}
