/* gvis disparity's pieces (cli/cmd_disparity.c parses, disparity_out.c writes one pair's
 * outputs, disparity_run.c runs the pairs): what they share. */
#ifndef GVIS_CLI_DISPARITY_H
#define GVIS_CLI_DISPARITY_H

#include <stdio.h>

#include "cli.h"
#include "disparity_phase.h"
#include "sgm.h"
#include "stereo_out.h"

enum { OUT_KITTI = 1, OUT_PFM, OUT_CV16, OUT_TIFF };

struct disp_opts {
    gvis_sgm_params p;
    struct disp_method m; /* --method and the phase options (cli/disparity_phase.c) */
    const char *format;   /* png | pfm | cv16 */
    const char *right_out, *preview, *ply, *qfile, *gt, *pairs;
    const char *left_dir, *right_dir; /* paired by file name (cli/pairs.c) */
    double focal, baseline, cx, cy, gt_scale;
    int gt_border, json;
    double q[16];
    int have_q;
    /* the run */
    int many;
    double sum_bad1, sum_bad2, sum_density, sum_mae;
    int scored;
    FILE *score_out;
};

/* What matching one pair gives beside its files: kept per pair, so that pairs run on
 * several threads (--jobs) and are reported, scores printed and summed in input order. */
struct disp_result {
    const char *fail_file; /* the file a failure is about */
    char *msg;             /* the failure's message */
    gvis_disp_score_t s;
    double scale;
    int scored;
};

struct pair {
    char *left, *right, *gt;
};

/* The map's format from --format, else the path's extension; 0 when neither says. */
int disp_out_kind(const char *format, const char *path);
const char *disp_kind_ext(int kind);
/* Prints one pair's scores (to o->score_out). */
void disp_print_score(struct disp_opts *o, const struct pair *pr, const gvis_disp_score_t *s, double scale);
/* Matches one pair and writes its outputs as one set: all or none (issue 13). */
int disparity_one_set(gvis_ctx *ctx, const struct disp_opts *o, const struct pair *pr, const char *out,
                      struct disp_result *res);

/* The run over every pair: disp_pair_one on a worker's context, disp_pair_report on the
 * main thread in input order (cli_run_pairs). */
struct disp_run {
    struct disp_opts *o;
    const struct pair *pairs;
    const char *output, *ext;
    struct disp_result *res;
    int status;
};
int disp_pair_one(gvis_ctx *ctx, int i, void *arg);
int disp_pair_report(int i, int rc, void *arg);

#endif
