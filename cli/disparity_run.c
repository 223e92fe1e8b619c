/* gvis disparity: the pairs of a run on the staged pipeline (lib/pipeline): reader
 * threads load each pair, device workers match it, writer threads write its outputs;
 * each pair is reported, its scores printed and summed in input order.  A GPU of a
 * device list that fails mid-batch has its pairs matched on another entry of the list
 * (as gauss's, lib/pipeline/images.c), and a batch ends with a summary line. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disparity.h"
#include "images.h"
#include "pipeline.h"

struct run {
    const struct disp_run *d;
    struct disp_item *slots; /* inflight of them: item i in slots[i % inflight] */
    int inflight;
    gvis_ctx **rctx, **wctx, **ctxs; /* readers', writers', device workers' */
    gvis_ctx **fallback;             /* per worker: on another entry, after its own failed */
    atomic_int *broken;              /* per device-list entry: its GPU failed */
    int entries;                     /* of the device list (0: not a CUDA run) */
    int *dev;                        /* per slot: the CUDA device that matched it, -1 none */
    char **warn;                     /* per slot: its retry warnings, said in input order */
    int per_device[GVIS_MAX_DEVICE_LIST + 1]; /* pairs done per CUDA device; [MAX]: on the CPU */
    int status, done_ok, failed, stopped;
};

static int st_read(void *v, int thread, int i, int slot)
{
    struct run *r = v;
    const struct disp_run *d = r->d;
    struct disp_item *it = &r->slots[slot];
    disp_item_clear(it);
    if (d->output) {
        it->out = d->o->many ? cli_output_path(d->output, d->pairs[i].left, i, d->ext) : strdup(d->output);
        if (!it->out)
            return gvis_error(GVIS_E_NOMEM, "out of memory");
    }
    return disp_pair_read(r->rctx[thread], d->o, &d->pairs[i], it);
}

/* Appends a retry warning to the slot's (said by report(), in input order). */
static void add_warn(struct run *r, int slot, const char *pair, const gvis_ctx *c, const char *why)
{
    char line[1024];
    int len = snprintf(line, sizeof line, "'%s' failed on %s (%s): retrying on another device of the list", pair,
                       gvis_ctx_device_name(c), why);
    if (len < 0)
        return;
    char *old = r->warn[slot];
    size_t n = old ? strlen(old) + 1 : 0;
    char *w = realloc(old, n + strlen(line) + 1);
    if (!w)
        return; /* out of memory: the retry goes on unsaid */
    if (n)
        w[n - 1] = '\n';
    strcpy(w + n, line);
    r->warn[slot] = w;
}

/* A context on the next entry after c's that is not known broken, NULL when none is left. */
static gvis_ctx *next_device(struct run *r, const gvis_ctx *c)
{
    int own = gvis_ctx_device_entry(c);
    for (int k = 1; k < r->entries; k++) {
        int e = (own + k) % r->entries, st;
        if (atomic_load(&r->broken[e]))
            continue;
        gvis_ctx *n = cli_context_quiet(&st, e);
        if (n)
            return n;
        atomic_store(&r->broken[e], 1);
    }
    return NULL;
}

static int st_compute(void *v, int worker, int i, int slot)
{
    struct run *r = v;
    struct disp_item *it = &r->slots[slot];
    const struct pair *pr = &r->d->pairs[i];
    gvis_ctx *c = r->fallback && r->fallback[worker] ? r->fallback[worker] : r->ctxs[worker];
    r->dev[slot] = -1;
    int rc = disp_pair_compute(c, r->d->o, pr, it);
    /* a GPU that fails: its entry is marked, and this worker goes on with a context on
     * the next entry not known broken (this pair first); with none left the pair fails */
    while (rc == GVIS_E_DEVICE && r->entries > 1 && r->fallback && gvis_ctx_on_cuda(c)) {
        int own = gvis_ctx_device_entry(c);
        if (own >= 0 && own < r->entries)
            atomic_store(&r->broken[own], 1);
        add_warn(r, slot, pr->left, c, gvis_errmsg());
        char *why = strdup(gvis_errmsg());
        gvis_ctx *n = next_device(r, c);
        if (!n) {
            rc = gvis_error(GVIS_E_DEVICE, "%s: no device of the list left", why ? why : "device failure");
            free(why);
            break;
        }
        free(why);
        if (r->fallback[worker]) {
            gvis_timing_add(gvis_ctx_timing(r->ctxs[worker]), gvis_ctx_timing(r->fallback[worker]));
            gvis_ctx_free(r->fallback[worker]);
        }
        r->fallback[worker] = c = n;
        gvis_disp_free(&it->dl);
        gvis_disp_free(&it->dr);
        rc = disp_pair_compute(c, r->d->o, pr, it);
    }
    if (!rc)
        r->dev[slot] = gvis_ctx_device_index(c);
    return rc;
}

static int st_write(void *v, int thread, int i, int slot)
{
    struct run *r = v;
    return disp_pair_write(r->wctx[thread], r->d->o, &r->d->pairs[i], &r->slots[slot]);
}

/* A failing stage keeps its message with the item (the next gvis_error is another's). */
static int keep_msg(struct run *r, int slot, int rc)
{
    if (rc) {
        free(r->slots[slot].res.msg);
        r->slots[slot].res.msg = strdup(gvis_errmsg());
    }
    return rc;
}

static int k_read(void *v, int t, int i, int slot) { return keep_msg(v, slot, st_read(v, t, i, slot)); }
static int k_compute(void *v, int t, int i, int slot) { return keep_msg(v, slot, st_compute(v, t, i, slot)); }
static int k_write(void *v, int t, int i, int slot) { return keep_msg(v, slot, st_write(v, t, i, slot)); }

static int report(void *v, int i, int rc)
{
    struct run *r = v;
    struct disp_item *it = &r->slots[i % r->inflight];
    struct disp_result *res = &it->res;
    struct disp_opts *o = r->d->o;
    const struct pair *pr = &r->d->pairs[i];
    int slot = i % r->inflight, stop = 0;
    if (r->warn[slot]) { /* its retries on another GPU, before its outcome: a line each */
        for (char *w = r->warn[slot], *nl; w; w = nl ? nl + 1 : NULL) {
            if ((nl = strchr(w, '\n')))
                *nl = 0;
            cli_warn("%s", w);
        }
        free(r->warn[slot]);
        r->warn[slot] = NULL;
    }
    if (rc == GVIS_PIPE_CANCELLED) { /* stopped before it was finished: nothing written */
    } else if (rc) {
        cli_error("'%s': %s", res->fail_file ? res->fail_file : pr->left, res->msg ? res->msg : "failed");
        int st = cli_exit_status(rc);
        if (st > r->status)
            r->status = st;
        r->failed++;
        stop = rc == GVIS_E_INTERRUPTED || g_opts.fail_fast;
        r->stopped |= stop;
    } else {
        int d = r->dev[slot];
        r->done_ok++;
        r->per_device[d >= 0 && d < GVIS_MAX_DEVICE_LIST ? d : GVIS_MAX_DEVICE_LIST]++;
        cli_progress_written();
        if (res->scored) {
            disp_print_score(o, pr, &res->s, res->scale);
            o->sum_bad1 += res->s.bad1;
            o->sum_bad2 += res->s.bad2;
            o->sum_density += res->s.density;
            o->sum_mae += res->s.mae;
            o->scored++;
        }
    }
    disp_item_clear(it);
    cli_progress_step();
    return stop;
}

/* One pair after another on the main thread (-j 1 on one device). */
static void run_inline(struct run *r, int n)
{
    for (int i = 0; i < n; i++) {
        int rc = k_read(r, 0, i, 0);
        if (!rc)
            rc = k_compute(r, 0, i, 0);
        if (!rc)
            rc = k_write(r, 0, i, 0);
        if (report(r, i, rc))
            break;
    }
}

/* The batch's last line, as gauss's (cli/batch_run.c), in pairs: with -v, or when a pair
 * failed or the run stopped; with a device list, each GPU's count of pairs. */
static void summary(const struct run *r, gvis_ctx *ctx, int n, int jobs, double secs)
{
    if (n < 2 || g_opts.quiet || !(g_opts.verbose || r->failed || r->stopped))
        return;
    char per[1024] = "";
    size_t len = 0;
    for (int d = 0; d <= GVIS_MAX_DEVICE_LIST && r->entries; d++)
        if (r->per_device[d] && len < sizeof per) {
            int k = d < GVIS_MAX_DEVICE_LIST
                        ? snprintf(per + len, sizeof per - len, "%scuda:%d %d", len ? ", " : "; ", d, r->per_device[d])
                        : snprintf(per + len, sizeof per - len, "%scpu %d", len ? ", " : "; ", r->per_device[d]);
            len += k > 0 ? (size_t)k : 0;
        }
    cli_progress_clear();
    fprintf(stderr, "gvis %s: %d of %d pairs done, %d failed, %.2f s, %.1f pairs/s, %d jobs on %s%s\n", g_cmd,
            r->done_ok, n, r->failed, secs, secs > 0 ? r->done_ok / secs : 0.0, jobs,
            r->entries > 1 ? g_opts.device : gvis_ctx_device_name(ctx), per);
}

static int run_pairs(struct run *r, gvis_ctx *ctx, int n, int jobs, int workers);

int disp_run_pairs(gvis_ctx *ctx, const struct disp_run *d, int n)
{
    int jobs = g_opts.jobs ? g_opts.jobs : gvis_threads();
    if (jobs > n)
        jobs = n;
    if (jobs < 1)
        jobs = 1;
    int workers = cli_device_workers(ctx); /* as gauss's: the matching itself runs on every core */
    if (workers > n)
        workers = n;
    struct run r = {.d = d, .status = EXIT_OK, .entries = cli_device_entries(ctx)};
    double t0 = gvis_now_ms();
    int status = run_pairs(&r, ctx, n, jobs, workers);
    if (status < 0) /* it ran */
        summary(&r, ctx, n, jobs, (gvis_now_ms() - t0) / 1000.0);
    return status < 0 ? r.status : status;
}

/* Returns the exit status, or -1 for r->status (the run went through). */
static int run_pairs(struct run *r, gvis_ctx *ctx, int n, int jobs, int workers)
{
    if (jobs <= 1 && r->entries <= 1) {
        struct disp_item one = {0};
        gvis_ctx *c1[1] = {ctx};
        int dev1[1] = {-1};
        char *warn1[1] = {NULL};
        r->slots = &one;
        r->inflight = 1;
        r->rctx = r->wctx = r->ctxs = c1;
        r->dev = dev1;
        r->warn = warn1;
        run_inline(r, n);
        disp_item_clear(&one);
        free(warn1[0]);
        return -1;
    }
    r->inflight = 2 * jobs + workers; /* each reader, worker and writer busy */
    r->slots = calloc((size_t)r->inflight, sizeof *r->slots);
    r->dev = calloc((size_t)r->inflight, sizeof *r->dev);
    r->warn = calloc((size_t)r->inflight, sizeof *r->warn);
    r->ctxs = calloc((size_t)workers, sizeof *r->ctxs);
    r->fallback = calloc((size_t)workers, sizeof *r->fallback);
    r->broken = calloc((size_t)(r->entries > 0 ? r->entries : 1), sizeof *r->broken);
    r->rctx = calloc((size_t)jobs, sizeof *r->rctx);
    r->wctx = calloc((size_t)jobs, sizeof *r->wctx);
    int status = -1;
    if (!r->slots || !r->dev || !r->warn || !r->ctxs || !r->fallback || !r->broken || !r->rctx || !r->wctx) {
        cli_error("out of memory");
        status = EXIT_RUNTIME;
        goto out;
    }
    int st = cli_worker_contexts(ctx, r->ctxs, workers);
    if (st != EXIT_OK)
        status = st;
    for (int t = 0; t < jobs && status < 0; t++)
        if (!(r->rctx[t] = gvis_io_ctx(ctx)) || !(r->wctx[t] = gvis_io_ctx(ctx))) {
            cli_error("out of memory");
            status = EXIT_RUNTIME;
        }
    if (status < 0) {
        gvis_pipe_stages ps = {{k_read, k_compute, k_write}, {jobs, workers, jobs}, r->inflight, report, r};
        if (gvis_pipeline_run_stages(n, &ps) < 0) {
            cli_error("cannot start worker threads");
            status = EXIT_RUNTIME;
        }
    }
out:
    /* --timing: every thread's load, compute and save */
    for (int w = 0; r->fallback && w < workers; w++)
        if (r->fallback[w]) {
            gvis_timing_add(gvis_ctx_timing(ctx), gvis_ctx_timing(r->fallback[w]));
            gvis_ctx_free(r->fallback[w]);
        }
    for (int w = 1; r->ctxs && w < workers; w++)
        if (r->ctxs[w]) {
            gvis_timing_add(gvis_ctx_timing(ctx), gvis_ctx_timing(r->ctxs[w]));
            gvis_ctx_free(r->ctxs[w]);
        }
    for (int t = 0; t < jobs; t++) {
        gvis_ctx *io[2] = {r->rctx ? r->rctx[t] : NULL, r->wctx ? r->wctx[t] : NULL};
        for (int k = 0; k < 2; k++)
            if (io[k]) {
                gvis_timing_add(gvis_ctx_timing(ctx), gvis_ctx_timing(io[k]));
                gvis_ctx_free(io[k]);
            }
    }
    for (int i = 0; r->slots && i < r->inflight; i++) {
        disp_item_clear(&r->slots[i]);
        if (r->warn)
            free(r->warn[i]);
    }
    free(r->slots);
    free(r->dev);
    free(r->warn);
    free(r->ctxs);
    free(r->fallback);
    free((void *)r->broken);
    free(r->rctx);
    free(r->wctx);
    return status;
}
