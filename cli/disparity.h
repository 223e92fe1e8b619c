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
    const struct pair *list; /* every pair: an output template's {index} is the place in it */
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
/* One pair in flight: its output paths, images, maps and result. */
struct disp_item {
    char *out, *right, *preview, *ply; /* NULL: not written */
    gvis_image L, R, G;
    gvis_disp dl, dr;
    struct disp_result res;
};
void disp_item_clear(struct disp_item *it);
/* The three stages of a pair (disparity_out.c), each a gvis status: read checks the
 * outputs (it->out set by the caller) and loads the images; compute matches them on
 * ctx's device; write writes every output as one set (all or none, issue 13) and scores
 * against the ground truth.  res.fail_file names the file a failure is about. */
int disp_pair_read(gvis_ctx *ctx, const struct disp_opts *o, const struct pair *pr, struct disp_item *it);
int disp_pair_compute(gvis_ctx *ctx, const struct disp_opts *o, const struct pair *pr, struct disp_item *it);
int disp_pair_write(gvis_ctx *ctx, const struct disp_opts *o, const struct pair *pr, struct disp_item *it);

/* The run over every pair (disparity_run.c): reader, device and writer threads of the
 * staged pipeline (--jobs, --device lists), each pair reported, its scores printed and
 * summed on the calling thread in input order.  Returns the exit status. */
struct disp_run {
    struct disp_opts *o;
    const struct pair *pairs;
    const char *output, *ext;
};
int disp_run_pairs(gvis_ctx *ctx, const struct disp_run *run, int n);

#endif
