/* gvis disparity: one pair matched and its outputs written (map, right map, preview,
 * PLY) and its scores printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disparity.h"

/* The map's format from --format, else the path's extension; 0 when neither says. */
int disp_out_kind(const char *format, const char *path)
{
    if (format)
        return strcmp(format, "png") == 0 ? OUT_KITTI : strcmp(format, "pfm") == 0 ? OUT_PFM
                                                      : strcmp(format, "tif") == 0 ? OUT_TIFF : OUT_CV16;
    switch (gvis_format_from_path(path)) {
    case GVIS_FMT_PNG: return OUT_KITTI;
    case GVIS_FMT_PFM: return OUT_PFM;
    case GVIS_FMT_NPY: return OUT_CV16;
    case GVIS_FMT_TIFF: return OUT_TIFF;
    default: return 0;
    }
}

const char *disp_kind_ext(int kind)
{
    return kind == OUT_PFM ? "pfm" : kind == OUT_CV16 ? "npy" : kind == OUT_TIFF ? "tif" : "png";
}

static int save_map(gvis_ctx *ctx, const struct disp_opts *o, const char *path, const gvis_disp *d)
{
    int kind = disp_out_kind(o->format, path);
    if (!kind && gvis_format_from_path(path))
        return gvis_error(GVIS_E_ARG, "disparity maps are written as .png (KITTI), .pfm, .tif or .npy, not '%s'", path);
    if (!kind) { /* "-", /dev/stdout, no known extension: the natural format (issue 12 item 2) */
        kind = OUT_KITTI;
        gvis_log(ctx, GVIS_LOG_INFO, "'%s': no format from the name; writing png (KITTI 16-bit)", path);
    }
    gvis_image img = {0};
    int rc;
    if (kind == OUT_KITTI) {
        size_t nz = 0, np = 0, cl = 0;
        rc = gvis_disp_kitti(d, &img, &nz, &np, &cl);
        if (!rc && nz)
            gvis_log(ctx, GVIS_LOG_INFO, "%s: %zu pixels of disparity 0 written as 0 (invalid in KITTI PNG)", path,
                     nz);
        if (!rc && np)
            gvis_log(ctx, GVIS_LOG_WARN, "%s: %zu pixels of negative disparity written as 0 (invalid in KITTI PNG)",
                     path, np);
        if (!rc && cl)
            gvis_log(ctx, GVIS_LOG_WARN, "%s: %zu pixels above 255.996 clipped (KITTI PNG)", path, cl);
        if (!rc)
            rc = gvis_save(ctx, path, GVIS_FMT_PNG, &img);
    } else if (kind == OUT_PFM || kind == OUT_TIFF) { /* float32, the same values in either */
        rc = gvis_disp_float(d, &img);
        if (!rc)
            rc = gvis_save(ctx, path, kind == OUT_PFM ? GVIS_FMT_PFM : GVIS_FMT_TIFF, &img);
    } else {
        gvis_buf b = {0};
        rc = gvis_disp_encode_cv16(d, &b);
        if (!rc)
            rc = cli_write_output(ctx, path, &b);
        gvis_buf_free(&b);
    }
    gvis_image_free(&img);
    return rc;
}

/* An output path for this pair: the option as given for one pair, else DIR/stem.ext. */
static char *out_path(const char *opt, const struct pair *pr, const char *ext, const struct disp_opts *o)
{
    if (!o->many)
        return strdup(opt);
    return cli_output_path(opt, pr->left, o->list ? (int)(pr - o->list) : 0, ext);
}

static int refuse_input(const char *out, const struct pair *pr)
{
    if (!out || strcmp(out, "-") == 0)
        return GVIS_OK;
    const char *ins[3] = {pr->left, pr->right, pr->gt};
    for (int i = 0; i < 3; i++)
        if (ins[i] && (gvis_same_file(out, ins[i]) || strcmp(out, ins[i]) == 0))
            return gvis_error(GVIS_E_IO, "refusing to write over input file '%s'", ins[i]);
    return GVIS_OK;
}

void disp_print_score(struct disp_opts *o, const struct pair *pr, const gvis_disp_score_t *s, double scale)
{
    FILE *f = o->score_out;
    if (o->json) {
        gvis_buf b = {0};
        gvis_buf_printf(&b, "{\"left\": ");
        gvis_buf_json_string(&b, pr->left);
        gvis_buf_printf(&b, ", \"right\": ");
        gvis_buf_json_string(&b, pr->right);
        gvis_buf_printf(&b, ", \"gt\": ");
        gvis_buf_json_string(&b, pr->gt);
        gvis_buf_printf(&b,
                        ", \"bad1\": %.4f, \"bad2\": %.4f, \"density\": %.4f, \"mae\": %.4f, \"scored\": %zu, "
                        "\"valid\": %zu, \"gt_scale\": %g}\n",
                        s->bad1, s->bad2, s->density, s->mae, s->scored, s->valid, scale);
        if (b.data)
            fputs((const char *)b.data, f);
        gvis_buf_free(&b);
    } else {
        fprintf(f, "%s: bad-1 %.2f%%  bad-2 %.2f%%  density %.2f%%  mae %.3f px  (%zu pixels scored, gt scale %g)\n",
                pr->left, s->bad1, s->bad2, s->density, s->mae, s->scored, scale);
    }
    fflush(f);
}

void disp_item_clear(struct disp_item *it)
{
    gvis_image_free(&it->L);
    gvis_image_free(&it->R);
    gvis_image_free(&it->G);
    gvis_disp_free(&it->dl);
    gvis_disp_free(&it->dr);
    free(it->out);
    free(it->right);
    free(it->preview);
    free(it->ply);
    free(it->res.msg);
    memset(it, 0, sizeof *it);
}

int disp_pair_read(gvis_ctx *ctx, const struct disp_opts *o, const struct pair *pr, struct disp_item *it)
{
    struct disp_result *res = &it->res;
    const char *out = it->out;
    const char *main_ext = disp_kind_ext(o->format ? disp_out_kind(o->format, NULL) : out && !o->many ? disp_out_kind(NULL, out) : OUT_KITTI);
    if (o->right_out)
        it->right = out_path(o->right_out, pr, main_ext, o);
    if (o->preview)
        it->preview = out_path(o->preview, pr, "png", o);
    if (o->ply)
        it->ply = out_path(o->ply, pr, "ply", o);
    if ((o->right_out && !it->right) || (o->preview && !it->preview) || (o->ply && !it->ply))
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    int rc = GVIS_OK;
    const char *outs[4] = {out, it->right, it->preview, it->ply};
    for (int i = 0; i < 4 && !rc; i++)
        rc = refuse_input(outs[i], pr);
    /* two outputs given one name: the second would replace the first */
    for (int i = 0; i < 4 && !rc; i++)
        for (int k = i + 1; k < 4 && !rc && outs[i] && strcmp(outs[i], "-") != 0; k++)
            if (outs[k] && (strcmp(outs[i], outs[k]) == 0 || gvis_same_file(outs[i], outs[k])))
                rc = gvis_error(GVIS_E_ARG, "'%s' is named for two outputs", outs[k]);
    /* every check that can fail runs before the matching (issue 13): each output's folder */
    for (int i = 0; i < 4 && !rc; i++)
        if (outs[i])
            rc = gvis_outset_check(outs[i]);
    if (rc)
        return rc;
    res->fail_file = pr->left;
    if ((rc = gvis_load(ctx, pr->left, &it->L)))
        return rc;
    res->fail_file = pr->right;
    if ((rc = gvis_load(ctx, pr->right, &it->R)))
        return rc;
    res->fail_file = pr->gt;
    if (pr->gt && (rc = gvis_load(ctx, pr->gt, &it->G)))
        return rc;
    /* was found only after matching (issue 13); --method phase checks its own, with --roi */
    if (pr->gt && o->m.method == DISP_SGM && (it->G.width != it->L.width || it->G.height != it->L.height))
        return gvis_error(GVIS_E_FORMAT, "ground truth is %dx%d but the images are %dx%d", it->G.width, it->G.height,
                          it->L.width, it->L.height);
    res->fail_file = pr->left;
    return GVIS_OK;
}

int disp_pair_compute(gvis_ctx *ctx, const struct disp_opts *o, const struct pair *pr, struct disp_item *it)
{
    it->res.fail_file = pr->left;
    return disp_method_run(ctx, &o->m, &o->p, &it->L, &it->R, pr->gt ? &it->G : NULL, &it->dl,
                           it->right ? &it->dr : NULL);
}

/* The writes of disp_pair_write, inside its output set. */
static int write_outputs(gvis_ctx *ctx, const struct disp_opts *o, const struct pair *pr, struct disp_item *it)
{
    struct disp_result *res = &it->res;
    int rc;
    if (it->out && (rc = save_map(ctx, o, it->out, &it->dl)))
        return rc;
    if (it->right && (rc = save_map(ctx, o, it->right, &it->dr)))
        return rc;
    if (it->preview) {
        gvis_image pv = {0};
        rc = gvis_disp_preview(&it->dl, 0, 0, &pv);
        if (!rc)
            rc = gvis_save(ctx, it->preview, GVIS_FMT_PNG, &pv);
        gvis_image_free(&pv);
        if (rc)
            return rc;
    }
    if (it->ply) {
        double q[16];
        if (o->have_q)
            memcpy(q, o->q, sizeof q);
        else
            gvis_disp_q(o->focal, o->baseline, isnan(o->cx) ? (it->L.width - 1) / 2.0 : o->cx,
                        isnan(o->cy) ? (it->L.height - 1) / 2.0 : o->cy, q);
        gvis_buf b = {0};
        size_t np = 0, dropped = 0;
        rc = gvis_disp_q_check(q);
        if (!rc)
            rc = gvis_disp_ply(&it->dl, &it->L, q, &b, &np, &dropped);
        if (!rc)
            rc = cli_write_output(ctx, it->ply, &b);
        gvis_buf_free(&b);
        if (rc)
            return rc;
        gvis_log(ctx, GVIS_LOG_INFO, "%s: %zu points", it->ply, np);
        if (dropped) /* the rest of issue 13 item 4: said, never written as inf */
            gvis_log(ctx, GVIS_LOG_WARN, "%s: %zu points left out: not finite in float32 (see --focal, --baseline, --cx, --cy or --q)",
                     it->ply, dropped);
    }
    if (pr->gt) {
        /* one rule for --gt and the third column of --pairs: without --gt-scale the scale
         * the files show, else a warning where they show another */
        double scale = o->gt_scale, guess = 1, ratio = 0;
        res->fail_file = pr->gt;
        if (isnan(scale)) {
            if ((rc = gvis_disp_gt_scale(&it->dl, &it->G, o->gt_border, &scale, &ratio)))
                return rc;
            cli_info("'%s': ground-truth scale %g (its values are %.3g times the disparities found; --gt-scale sets it)",
                     pr->gt, scale, ratio);
        } else if (gvis_disp_gt_scale(&it->dl, &it->G, o->gt_border, &guess, &ratio) == GVIS_OK &&
                   (guess > 1.5 * scale || scale > 1.5 * guess)) {
            cli_warn("'%s': --gt-scale %g, but its values are %.3g times the disparities found (scale %g?)", pr->gt,
                     scale, ratio, guess);
        }
        gvis_disp_score_t s;
        if ((rc = gvis_disp_score(&it->dl, &it->G, scale, o->gt_border, &s)))
            return rc;
        res->fail_file = pr->left;
        res->s = s;
        res->scale = scale;
        res->scored = 1;
    }
    return GVIS_OK;
}

int disp_pair_write(gvis_ctx *ctx, const struct disp_opts *o, const struct pair *pr, struct disp_item *it)
{
    gvis_outset *set = gvis_outset_begin();
    if (!set)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    int rc = write_outputs(ctx, o, pr, it);
    if (!rc)
        return gvis_outset_commit(set);
    gvis_outset_abort(set);
    return rc;
}
