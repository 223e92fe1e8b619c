/* gvis disparity's --method and the phase matching options (--method phase): the
 * option rows, their check and the run, kept here so that cmd_disparity.c only calls
 * them. */
#ifndef GVIS_DISPARITY_PHASE_H
#define GVIS_DISPARITY_PHASE_H

#include "cli.h"
#include "phase.h"
#include "sgm.h"

enum { DISP_SGM = 0, DISP_PHASE = 1 };

struct disp_method {
    int method;            /* DISP_* */
    gvis_phase_params ph;  /* --method phase; range, sub-pixel and LR check come from the SGM options */
    const char *given;     /* a phase option given (its name), for the message under sgm */
};

void disp_method_init(struct disp_method *m);
int disp_parse_method(const char *v, void *dst, char *err, size_t errlen);
int disp_parse_phase_scale(const char *v, void *dst, char *err, size_t errlen);
int disp_parse_phase_tol(const char *v, void *dst, char *err, size_t errlen);
int disp_parse_window(const char *v, void *dst, char *err, size_t errlen);
int disp_parse_valid_min(const char *v, void *dst, char *err, size_t errlen);
int disp_parse_roi(const char *v, void *dst, char *err, size_t errlen);
int disp_parse_search(const char *v, void *dst, char *err, size_t errlen);

#define DISP_METHOD_OPTS(m)                                                                                       \
    {"method", 0, OPT_CUSTOM, &(m), disp_parse_method, "sgm|phase", "sgm (images) or phase (phase maps) (sgm)"},  \
    {"phase-scale", 0, OPT_CUSTOM, &(m), disp_parse_phase_scale, "S", "phase: value x S for 8/16-bit maps (1)"}, \
    {"phase-tol", 0, OPT_CUSTOM, &(m), disp_parse_phase_tol, "T", "phase: largest phase difference of a match (0.5)"}, \
    {"window", 0, OPT_CUSTOM, &(m), disp_parse_window, "W", "phase: odd window along the row (3)"},              \
    {"valid-min", 0, OPT_CUSTOM, &(m), disp_parse_valid_min, "V", "phase: phases <= V are unlit (0.001)"},       \
    {"roi", 0, OPT_CUSTOM, &(m), disp_parse_roi, "x0,y0,x1,y1", "phase: match only this region of the left map"}, \
    {"search", 0, OPT_CUSTOM, &(m), disp_parse_search, "ordered|full", "phase: ordered (phase rises along rows) or full scan (ordered)"}

/* After parsing: takes the range, sub-pixel and LR options into the phase
 * parameters and checks them; GVIS_E_ARG with a message. */
int disp_method_check(struct disp_method *m, const gvis_sgm_params *p);
/* Matches one pair with the chosen method.  gt (may be NULL): under --roi, a
 * ground truth of the whole image is cropped to the region. */
int disp_method_run(gvis_ctx *ctx, const struct disp_method *m, const gvis_sgm_params *p, const gvis_image *left,
                    const gvis_image *right, gvis_image *gt, gvis_disp *out_left, gvis_disp *out_right);

#endif
