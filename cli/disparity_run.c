/* gvis disparity: the pairs of a run on the staged pipeline (lib/pipeline): reader
 * threads load each pair, device workers match it, writer threads write its outputs;
 * each pair is reported, its scores printed and summed in input order. */
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
    int status;
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

static int st_compute(void *v, int worker, int i, int slot)
{
    struct run *r = v;
    return disp_pair_compute(r->ctxs[worker], r->d->o, &r->d->pairs[i], &r->slots[slot]);
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
    int stop = 0;
    if (rc == GVIS_PIPE_CANCELLED) { /* stopped before it was finished: nothing written */
    } else if (rc) {
        cli_error("'%s': %s", res->fail_file ? res->fail_file : pr->left, res->msg ? res->msg : "failed");
        int st = cli_exit_status(rc);
        if (st > r->status)
            r->status = st;
        stop = rc == GVIS_E_INTERRUPTED || g_opts.fail_fast;
    } else {
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

int disp_run_pairs(gvis_ctx *ctx, const struct disp_run *d, int n)
{
    int jobs = g_opts.jobs ? g_opts.jobs : gvis_threads();
    if (jobs > n)
        jobs = n;
    int entries = cli_device_entries(ctx);
    int workers = cli_device_workers(ctx); /* as gauss's: the matching itself runs on every core */
    if (workers > n)
        workers = n;
    struct run r = {.d = d, .status = EXIT_OK};
    if (jobs <= 1 && entries <= 1) {
        struct disp_item one = {0};
        gvis_ctx *c1[1] = {ctx};
        r.slots = &one;
        r.inflight = 1;
        r.rctx = r.wctx = r.ctxs = c1;
        run_inline(&r, n);
        disp_item_clear(&one);
        return r.status;
    }
    r.inflight = 2 * jobs + workers; /* each reader, worker and writer busy */
    r.slots = calloc((size_t)r.inflight, sizeof *r.slots);
    r.ctxs = calloc((size_t)workers, sizeof *r.ctxs);
    r.rctx = calloc((size_t)jobs, sizeof *r.rctx);
    r.wctx = calloc((size_t)jobs, sizeof *r.wctx);
    int status = -1;
    if (!r.slots || !r.ctxs || !r.rctx || !r.wctx) {
        cli_error("out of memory");
        status = EXIT_RUNTIME;
        goto out;
    }
    int st = cli_worker_contexts(ctx, r.ctxs, workers);
    if (st != EXIT_OK)
        status = st;
    for (int t = 0; t < jobs && status < 0; t++)
        if (!(r.rctx[t] = gvis_io_ctx(ctx)) || !(r.wctx[t] = gvis_io_ctx(ctx))) {
            cli_error("out of memory");
            status = EXIT_RUNTIME;
        }
    if (status < 0) {
        gvis_pipe_stages st = {{k_read, k_compute, k_write}, {jobs, workers, jobs}, r.inflight, report, &r};
        if (gvis_pipeline_run_stages(n, &st) < 0) {
            cli_error("cannot start worker threads");
            status = EXIT_RUNTIME;
        } else {
            status = r.status;
        }
    }
out:
    /* --timing: every thread's load, compute and save */
    for (int w = 1; r.ctxs && w < workers; w++)
        if (r.ctxs[w]) {
            gvis_timing_add(gvis_ctx_timing(ctx), gvis_ctx_timing(r.ctxs[w]));
            gvis_ctx_free(r.ctxs[w]);
        }
    for (int t = 0; t < jobs; t++) {
        gvis_ctx *io[2] = {r.rctx ? r.rctx[t] : NULL, r.wctx ? r.wctx[t] : NULL};
        for (int k = 0; k < 2; k++)
            if (io[k]) {
                gvis_timing_add(gvis_ctx_timing(ctx), gvis_ctx_timing(io[k]));
                gvis_ctx_free(io[k]);
            }
    }
    for (int i = 0; r.slots && i < r.inflight; i++)
        disp_item_clear(&r.slots[i]);
    free(r.slots);
    free(r.ctxs);
    free(r.rctx);
    free(r.wctx);
    return status;
}
