/* gvis disparity: the pairs of a run on --jobs workers, reported in input order. */
#include <stdlib.h>
#include <string.h>

#include "disparity.h"

int disp_pair_one(gvis_ctx *ctx, int i, void *arg)
{
    struct disp_run *r = arg;
    struct disp_result *res = &r->res[i];
    char *out = NULL;
    if (r->output)
        out = r->o->many ? cli_output_path(r->output, r->pairs[i].left, i, r->ext) : strdup(r->output);
    int rc = r->output && !out ? gvis_error(GVIS_E_NOMEM, "out of memory")
                               : disparity_one_set(ctx, r->o, &r->pairs[i], out, res);
    if (rc)
        res->msg = strdup(gvis_errmsg());
    free(out);
    return rc;
}

int disp_pair_report(int i, int rc, void *arg)
{
    struct disp_run *r = arg;
    struct disp_result *res = &r->res[i];
    struct disp_opts *o = r->o;
    if (rc) {
        cli_error("'%s': %s", res->fail_file ? res->fail_file : r->pairs[i].left, res->msg ? res->msg : "failed");
        int st = cli_exit_status(rc);
        if (st > r->status)
            r->status = st;
    } else {
        cli_progress_written();
        if (res->scored) {
            disp_print_score(o, &r->pairs[i], &res->s, res->scale);
            o->sum_bad1 += res->s.bad1;
            o->sum_bad2 += res->s.bad2;
            o->sum_density += res->s.density;
            o->sum_mae += res->s.mae;
            o->scored++;
        }
    }
    free(res->msg);
    res->msg = NULL;
    cli_progress_step();
    return rc && (rc == GVIS_E_INTERRUPTED || g_opts.fail_fast);
}
