/* gvis disparity: semi-global matching of rectified stereo pairs; disparity maps
 * as KITTI PNG, PFM or OpenCV int16, a colour preview, a PLY point cloud, and
 * scores against ground truth. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "disparity.h"

static int parse_census(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "9x7") == 0)
        *(int *)dst = GVIS_CENSUS_9X7;
    else if (strcmp(v, "sym") == 0)
        *(int *)dst = GVIS_CENSUS_SYM;
    else {
        snprintf(err, errlen, "'%s' is not 9x7 or sym", v);
        return -1;
    }
    return 0;
}

static int parse_cost(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "census") == 0)
        *(int *)dst = GVIS_COST_CENSUS;
    else if (strcmp(v, "ad-census") == 0 || strcmp(v, "adcensus") == 0)
        *(int *)dst = GVIS_COST_ADCENSUS;
    else {
        snprintf(err, errlen, "'%s' is not census or ad-census", v);
        return -1;
    }
    return 0;
}

static int parse_aggregate(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "none") == 0)
        *(int *)dst = GVIS_AGGREGATE_NONE;
    else if (strcmp(v, "cross") == 0)
        *(int *)dst = GVIS_AGGREGATE_CROSS;
    else {
        snprintf(err, errlen, "'%s' is not none or cross", v);
        return -1;
    }
    return 0;
}

enum { PRESET_DEFAULT = 0, PRESET_FAST, PRESET_QUALITY };

static int parse_preset(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "default") == 0)
        *(int *)dst = PRESET_DEFAULT;
    else if (strcmp(v, "fast") == 0)
        *(int *)dst = PRESET_FAST;
    else if (strcmp(v, "quality") == 0)
        *(int *)dst = PRESET_QUALITY;
    else {
        snprintf(err, errlen, "'%s' is not fast, default or quality", v);
        return -1;
    }
    return 0;
}

/* The preset's values for the options left unset (-1): an option given on the command
 * line wins wherever it stands. */
static void apply_preset(gvis_sgm_params *p, int preset)
{
    gvis_sgm_params d;
    gvis_sgm_defaults(&d);
    if (preset == PRESET_FAST) { /* libSGM's setting: census, 4 paths */
        d.cost = GVIS_COST_CENSUS;
        d.paths = 4;
    } else if (preset == PRESET_QUALITY) { /* AD-Census: cross aggregation and refinement */
        d.aggregate = GVIS_AGGREGATE_CROSS;
        d.refine = 1;
    }
    if (p->cost < 0)
        p->cost = d.cost;
    if (p->paths < 0)
        p->paths = d.paths;
    if (p->aggregate < 0)
        p->aggregate = d.aggregate;
    if (p->refine < 0)
        p->refine = d.refine;
}

static int parse_lr(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "off") == 0) {
        *(int *)dst = -1;
        return 0;
    }
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 0 || n > 1000) {
        snprintf(err, errlen, "'%s' is not a tolerance 0..1000 or off", v);
        return -1;
    }
    *(int *)dst = (int)n;
    return 0;
}

static int parse_fill(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "none") == 0)
        *(int *)dst = GVIS_FILL_NONE;
    else if (strcmp(v, "background") == 0)
        *(int *)dst = GVIS_FILL_BACKGROUND;
    else {
        snprintf(err, errlen, "'%s' is not none or background", v);
        return -1;
    }
    return 0;
}

static int parse_dformat(const char *v, void *dst, char *err, size_t errlen)
{
    if (strcmp(v, "png") && strcmp(v, "pfm") && strcmp(v, "cv16") && strcmp(v, "npy") && strcmp(v, "tif")) {
        snprintf(err, errlen, "'%s' is not png (KITTI 16-bit), pfm, tif (float32) or cv16", v);
        return -1;
    }
    *(const char **)dst = strcmp(v, "npy") == 0 ? "cv16" : v;
    return 0;
}

/* --pairs FILE: LEFT RIGHT [GT] per line; blank lines and lines starting with # skipped. */
static int read_pairs(const char *path, struct pair **out, int *n, char **text)
{
    gvis_buf b = {0};
    int rc = gvis_read_input(path, GVIS_IN_TEXT, (size_t)64 << 20, 0, &b);
    if (rc)
        return rc;
    if (gvis_buf_append(&b, "", 1)) {
        gvis_buf_free(&b);
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    }
    char *s = (char *)b.data;
    int cap = 16, cnt = 0, line = 0;
    struct pair *v = malloc(sizeof *v * cap);
    if (!v) {
        gvis_buf_free(&b);
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    }
    char *save = NULL;
    for (char *ln = strtok_r(s, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
        line++;
        char *f[4] = {0};
        int k = 0;
        char *save2 = NULL;
        for (char *t = strtok_r(ln, " \t\r", &save2); t && k < 4; t = strtok_r(NULL, " \t\r", &save2))
            f[k++] = t;
        if (k == 0 || f[0][0] == '#')
            continue;
        if (k < 2 || k > 3) {
            free(v);
            gvis_buf_free(&b);
            return gvis_error(GVIS_E_FORMAT, "line %d: expected LEFT RIGHT [GT], found %d field%s", line, k,
                              k == 1 ? "" : "s");
        }
        if (cnt == cap) {
            struct pair *nv = realloc(v, sizeof *v * (cap *= 2));
            if (!nv) {
                free(v);
                gvis_buf_free(&b);
                return gvis_error(GVIS_E_NOMEM, "out of memory");
            }
            v = nv;
        }
        v[cnt].left = f[0];
        v[cnt].right = f[1];
        v[cnt].gt = k == 3 ? f[2] : NULL;
        cnt++;
    }
    if (!cnt) {
        free(v);
        gvis_buf_free(&b);
        return gvis_error(GVIS_E_FORMAT, "no pairs in the file");
    }
    *out = v;
    *n = cnt;
    *text = s; /* owns the strings */
    return GVIS_OK;
}

static int is_dir_arg(const char *p)
{
    if (!p)
        return 0;
    size_t n = strlen(p);
    struct stat st;
    return (n && p[n - 1] == '/') || (stat(p, &st) == 0 && S_ISDIR(st.st_mode));
}

int cmd_disparity(int argc, char **argv)
{
    double t0 = gvis_now_ms();
    struct disp_opts o;
    memset(&o, 0, sizeof o);
    gvis_sgm_defaults(&o.p);
    int preset = PRESET_DEFAULT;
    o.p.cost = o.p.paths = o.p.aggregate = o.p.refine = -1; /* set by --preset unless given */
    disp_method_init(&o.m);
    o.focal = NAN;
    o.baseline = NAN;
    o.cx = NAN;
    o.cy = NAN;
    o.gt_scale = NAN; /* from the files (gvis_disp_gt_scale) */
    o.gt_border = 10;
    const struct opt opts[] = {
        {"max-disp", 0, OPT_INT, &o.p.max_disp, NULL, "D", "number of disparities: sgm a multiple of 16 up to 512, phase any up to the width (128)"},
        {"min-disp", 0, OPT_INT, &o.p.min_disp, NULL, "M", "smallest disparity, may be negative (0)"},
        {"preset", 0, OPT_CUSTOM, &preset, parse_preset, "fast|default|quality", "fast: census, 4 paths; quality: AD-Census (cross aggregation, refinement)"},
        {"paths", 0, OPT_INT, &o.p.paths, NULL, "4|8", "aggregation directions (8)"},
        {"p1", 0, OPT_INT, &o.p.p1, NULL, "N", "penalty for a disparity change of 1 (10)"},
        {"p2", 0, OPT_INT, &o.p.p2, NULL, "N", "penalty for larger changes (120; at most 255 - the largest cost)"},
        {"p2-adapt", 0, OPT_INT, &o.p.p2_adapt, NULL, "T", "P2 falls as P2*T/(T+|dI|) at intensity edges; 0 off (8)"},
        {"census", 0, OPT_CUSTOM, &o.p.census, parse_census, "9x7|sym", "census window: full 9x7 or centre-symmetric (sym)"},
        {"cost", 0, OPT_CUSTOM, &o.p.cost, parse_cost, "census|ad-census", "matching cost: census alone, or census plus absolute difference (ad-census)"},
        {"aggregate", 0, OPT_CUSTOM, &o.p.aggregate, parse_aggregate, "none|cross", "cost aggregation over cross-shaped regions before the paths (none)"},
        {"refine", 0, OPT_FLAG, &o.p.refine, NULL, NULL, "region voting and interpolation of invalid pixels (off; implies a fill)"},
        {"uniqueness", 0, OPT_DOUBLE, &o.p.uniqueness, NULL, "U", "best cost must beat the others by this ratio (0.95)"},
        {"subpixel", 0, OPT_FLAG, &o.p.subpixel, NULL, NULL, "parabola-fit subpixel disparities (on; --no-subpixel)"},
        {"lr-check", 0, OPT_CUSTOM, &o.p.lr_check, parse_lr, "N|off", "left-right check tolerance in pixels (1)"},
        {"median", 0, OPT_FLAG, &o.p.median, NULL, NULL, "3x3 median filter (on; --no-median)"},
        {"fill", 0, OPT_CUSTOM, &o.p.fill, parse_fill, "none|background", "fill invalid pixels along rows (none)"},
        {"right", 0, OPT_STRING, &o.right_out, NULL, "OUT2", "also write the right view's disparity"},
        {"format", 0, OPT_CUSTOM, &o.format, parse_dformat, "png|pfm|tif|cv16", "map format (default: from -o's extension)"},
        {"preview", 0, OPT_STRING, &o.preview, NULL, "FILE.png", "an 8-bit colour view (turbo, invalid black)"},
        {"ply", 0, OPT_STRING, &o.ply, NULL, "FILE.ply", "a coloured point cloud (needs --focal and --baseline, or --q)"},
        {"focal", 0, OPT_DOUBLE, &o.focal, NULL, "F", "focal length in pixels (for --ply)"},
        {"baseline", 0, OPT_DOUBLE, &o.baseline, NULL, "B", "baseline in the unit wanted for the points (for --ply)"},
        {"cx", 0, OPT_DOUBLE, &o.cx, NULL, "X", "principal point x (default: the image centre)"},
        {"cy", 0, OPT_DOUBLE, &o.cy, NULL, "Y", "principal point y (default: the image centre)"},
        {"q", 0, OPT_STRING, &o.qfile, NULL, "FILE", "OpenCV's 4x4 reprojection matrix Q (16 numbers) for --ply"},
        {"gt", 0, OPT_STRING, &o.gt, NULL, "FILE", "ground truth: print bad-1, bad-2, density and mean error"},
        {"gt-scale", 0, OPT_DOUBLE, &o.gt_scale, NULL, "S", "ground-truth value per pixel of disparity (default: from the files)"},
        {"gt-border", 0, OPT_INT, &o.gt_border, NULL, "N", "pixels along each edge left out of the score (10)"},
        {"json", 0, OPT_FLAG, &o.json, NULL, NULL, "scores as JSON lines"},
        {"pairs", 0, OPT_STRING, &o.pairs, NULL, "FILE", "pairs to match: LEFT RIGHT [GT] per line"},
        {"left-dir", 0, OPT_STRING, &o.left_dir, NULL, "DIR", "left images, paired by file name with --right-dir's"},
        {"right-dir", 0, OPT_STRING, &o.right_dir, NULL, "DIR", "right images of the --left-dir pairs"},
        DISP_METHOD_OPTS(o.m),
        OPT_END,
    };
    const struct cli_cmd cmd = {"disparity", "[options] LEFT RIGHT [-o OUT.png|OUT.pfm|OUT.tif|OUT.npy] | --pairs FILE -o DIR/",
                                opts, 0, 2, 0};
    struct cli_args args;
    int rc = cli_parse(&cmd, argc, argv, &args);
    if (rc >= 0)
        return rc;
    apply_preset(&o.p, preset);
    const char *bad = NULL;
    char msg[300];
    if (disp_method_check(&o.m, &o.p)) {
        snprintf(msg, sizeof msg, "%s", gvis_errmsg());
        bad = msg;
    } else if (!o.left_dir != !o.right_dir)
        bad = "--left-dir and --right-dir go together";
    else if (o.left_dir && (o.pairs || args.ninputs))
        bad = "give the pairs one way: LEFT RIGHT, --pairs FILE, or --left-dir and --right-dir";
    else if (o.left_dir && o.gt)
        bad = "--gt scores one pair; --pairs FILE names a ground truth per pair";
    else if (!o.pairs && !o.left_dir && args.ninputs != 2)
        bad = "needs LEFT and RIGHT images (or --pairs FILE)";
    else if (o.pairs && args.ninputs)
        bad = "give the pairs either as LEFT RIGHT or with --pairs, not both";
    else if (o.pairs && o.gt)
        bad = "with --pairs, name the ground truth in a third column";
    else if (!args.output && !o.right_out && !o.preview && !o.ply && !o.gt && !o.pairs)
        bad = "nothing to write: give -o OUT, --preview, --ply or --gt";
    else if (o.ply && !o.qfile && (isnan(o.focal) || isnan(o.baseline)))
        bad = "--ply needs --focal and --baseline, or --q FILE";
    else if (o.ply && o.qfile && (!isnan(o.focal) || !isnan(o.baseline)))
        bad = "--q and --focal/--baseline exclude each other";
    else if (!isnan(o.focal) && !(o.focal > 0))
        bad = "--focal must be positive";
    else if (!isnan(o.baseline) && o.baseline == 0)
        bad = "--baseline must not be 0";
    /* issue 13 item 4: parameters that put every point beyond float32 fail here, before matching */
    else if ((!isnan(o.focal) && o.focal > 1e30) || (!isnan(o.baseline) && (fabs(o.baseline) > 1e30 || fabs(o.baseline) < 1e-30)) ||
             (!isnan(o.focal) && !isnan(o.baseline) && o.focal * fabs(o.baseline) > 1e30))
        bad = "--focal, --baseline and their product must lie within 1e-30 to 1e30 (the points are float32)";
    else if ((!isnan(o.cx) && fabs(o.cx) > 1e30) || (!isnan(o.cy) && fabs(o.cy) > 1e30))
        bad = "--cx and --cy must lie within -1e30 to 1e30 (the points are float32)";
    else if (args.output && strcmp(args.output, "-") != 0 && !is_dir_arg(args.output) && !o.format &&
             gvis_format_from_path(args.output) && !disp_out_kind(NULL, args.output))
        bad = "disparity maps are written as .png (KITTI), .pfm, .tif (float32) or .npy: give one of them or --format";
    else if (!isnan(o.gt_scale) && !(o.gt_scale > 0))
        bad = "--gt-scale must be positive";
    else if (o.gt_border < 0)
        bad = "--gt-border must not be negative";
    if (bad) {
        cli_args_free(&args);
        return cli_usage_error("%s", bad);
    }
    /* the pairs */
    struct pair one, *pairs = &one;
    int npairs = 1;
    char *pairs_text = NULL;
    int unpaired = 0;
    if (o.left_dir) {
        char **v;
        if ((rc = cli_pair_dirs(o.left_dir, o.right_dir, &v, &npairs, &pairs_text, &unpaired)) >= 0) {
            cli_args_free(&args);
            return rc;
        }
        if (!(pairs = calloc((size_t)npairs, sizeof *pairs))) {
            free(v);
            free(pairs_text);
            cli_args_free(&args);
            cli_error("out of memory");
            return EXIT_RUNTIME;
        }
        for (int i = 0; i < npairs; i++)
            pairs[i] = (struct pair){v[2 * i], v[2 * i + 1], NULL};
        free(v);
    } else if (o.pairs) {
        if ((rc = read_pairs(o.pairs, &pairs, &npairs, &pairs_text))) {
            cli_error("'%s': %s", o.pairs, gvis_errmsg());
            cli_args_free(&args);
            return cli_exit_status(rc);
        }
    } else {
        one.left = args.inputs[0];
        one.right = args.inputs[1];
        one.gt = (char *)o.gt;
    }
    o.many = npairs > 1 || o.left_dir || (args.output && (is_dir_arg(args.output) || cli_is_template(args.output)));
    if (o.many) {
        const char *need_dir = NULL;
        if (args.output && !is_dir_arg(args.output) && !cli_is_template(args.output))
            need_dir = "-o";
        else if (o.right_out && !is_dir_arg(o.right_out) && !cli_is_template(o.right_out))
            need_dir = "--right";
        else if (o.preview && !is_dir_arg(o.preview) && !cli_is_template(o.preview))
            need_dir = "--preview";
        else if (o.ply && !is_dir_arg(o.ply) && !cli_is_template(o.ply))
            need_dir = "--ply";
        if (need_dir) {
            if (pairs != &one)
                free(pairs);
            free(pairs_text);
            cli_args_free(&args);
            return cli_usage_error("%s with several pairs (or -o DIR/) needs a directory or a template (%s DIR/ "
                                   "or %s 'DIR/{stem}_{index}.EXT')", need_dir, need_dir, need_dir);
        }
    }
    if (o.qfile) {
        gvis_buf b = {0};
        rc = gvis_read_input(o.qfile, GVIS_IN_TEXT, 1 << 20, 0, &b);
        if (!rc)
            rc = gvis_buf_append(&b, "", 1);
        if (!rc)
            rc = gvis_disp_parse_q((const char *)b.data, o.q);
        if (!rc)
            rc = gvis_disp_q_check(o.q); /* degenerate: exit 2 before matching */
        gvis_buf_free(&b);
        if (rc) {
            cli_error("'%s': %s", o.qfile, gvis_errmsg());
            if (pairs != &one)
                free(pairs);
            free(pairs_text);
            cli_args_free(&args);
            return cli_exit_status(rc);
        }
        o.have_q = 1;
    }
    o.score_out = args.output && strcmp(args.output, "-") == 0 ? stderr : stdout;
    int status;
    gvis_ctx *ctx = cli_context(&status);
    if (!ctx) {
        if (pairs != &one)
            free(pairs);
        free(pairs_text);
        cli_args_free(&args);
        return status;
    }
    /* Before any work and before any folder is made: each output kind (map, right map,
     * preview, cloud) gives every pair its own file; two left images of one base name would
     * write one DIR/NAME. */
    const char *ext = disp_kind_ext(o.format ? disp_out_kind(o.format, NULL) : OUT_KITTI);
    const char *outs[4] = {args.output, o.right_out, o.preview, o.ply}, *exts[4] = {ext, ext, "png", "ply"};
    o.list = pairs;
    char **lefts = NULL;
    if (o.many && !(lefts = malloc(sizeof *lefts * (size_t)npairs))) {
        cli_error("out of memory");
        status = EXIT_RUNTIME;
    }
    for (int i = 0; lefts && i < npairs; i++)
        lefts[i] = pairs[i].left;
    for (int k = 0; lefts && k < 4 && status == EXIT_OK; k++)
        if (outs[k] && (npairs > 1 || cli_is_template(outs[k]))) {
            int st = cli_distinct_outputs(outs[k], lefts, npairs, exts[k]);
            if (st >= 0)
                status = st;
        }
    /* then make the directories asked for (a template's, each once) */
    for (int k = 0; lefts && k < 4 && status == EXIT_OK; k++) {
        if (!outs[k])
            continue;
        if (cli_is_template(outs[k])) {
            int st = cli_plan_outputs(outs[k], lefts, npairs, exts[k]);
            if (st >= 0)
                status = st;
        } else if (gvis_mkdir_p(outs[k]) != GVIS_OK) {
            cli_error("%s", gvis_errmsg());
            status = EXIT_RUNTIME;
        }
    }
    free(lefts);
    const int dirs_failed = status != EXIT_OK;
    cli_progress_begin(dirs_failed ? 0 : npairs);
    if (!dirs_failed) {
        struct disp_run run = {&o, pairs, args.output, ext};
        int st = disp_run_pairs(ctx, &run, npairs);
        if (st > status)
            status = st;
    }
    cli_progress_end();
    if (unpaired && status < EXIT_RUNTIME) /* each reported by cli_pair_dirs */
        status = EXIT_RUNTIME;
    if (o.scored > 1) {
        const double n = o.scored;
        if (o.json)
            fprintf(o.score_out,
                    "{\"mean\": {\"pairs\": %d, \"bad1\": %.4f, \"bad2\": %.4f, \"density\": %.4f, \"mae\": %.4f}}\n",
                    o.scored, o.sum_bad1 / n, o.sum_bad2 / n, o.sum_density / n, o.sum_mae / n);
        else
            fprintf(o.score_out, "mean of %d: bad-1 %.2f%%  bad-2 %.2f%%  density %.2f%%  mae %.3f px\n", o.scored,
                    o.sum_bad1 / n, o.sum_bad2 / n, o.sum_density / n, o.sum_mae / n);
    }
    if (fflush(o.score_out) != 0 || ferror(o.score_out)) {
        cli_error("error writing the scores: %s", strerror(errno));
        status = EXIT_RUNTIME;
    }
    cli_finish(ctx, t0);
    if (pairs != &one)
        free(pairs);
    free(pairs_text);
    cli_args_free(&args);
    return status;
}
