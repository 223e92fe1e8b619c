/* YOLO decoding's inputs: which layout a prediction tensor has (v5 rows of
 * 5 + classes, v8 channels of 4 + classes, transposed or not), its rows and classes,
 * and the parameters' checks and float thresholds (yolo.h).  The decode itself:
 * yolo.c. */
#include "yolo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char *gvis_yolo_layout_name(gvis_yolo_layout l)
{
    return l == GVIS_YOLO_V5 ? "v5" : l == GVIS_YOLO_V8 ? "v8" : "auto";
}

int gvis_yolo_resolve(const size_t *shape, int ndim, gvis_yolo_layout want, int classes, gvis_yolo_shape *out)
{
    memset(out, 0, sizeof *out);
    if (classes < 0)
        return gvis_error(GVIS_E_ARG, "the class count must be positive");
    if (ndim >= 2 && ndim <= 3) {
        size_t a0 = shape[ndim - 2], b0 = shape[ndim - 1];
        if (want == GVIS_YOLO_V5 && b0 <= 5)
            return gvis_error(GVIS_E_FORMAT, "shape [%zu,%zu] as v5 [N,5+C] gives %d classes", a0, b0, (int)b0 - 5);
        if (want == GVIS_YOLO_V8 && a0 <= 4)
            return gvis_error(GVIS_E_FORMAT, "shape [%zu,%zu] as v8 [4+C,N] gives %d classes", a0, b0, (int)a0 - 4);
    }
    size_t a, b;
    if (ndim == 2) {
        a = shape[0];
        b = shape[1];
    } else if (ndim == 3 && shape[0] == 1) {
        a = shape[1];
        b = shape[2];
    } else {
        char s[96] = "";
        size_t n = 0;
        for (int i = 0; i < ndim && i < 8 && n < sizeof s - 24; i++)
            n += (size_t)snprintf(s + n, sizeof s - n, "%s%zu", i ? "," : "", shape[i]);
        return gvis_error(GVIS_E_FORMAT, "tensor shape [%s] is neither [N,K] nor [1,N,K]", s);
    }
    /* v5: a rows of 5+C, v8: 4+C rows of b anchors */
    int v5_ok = b >= 6 && b - 5 <= 0x7fffffff && a >= 1 && a <= 0x7fffffff;
    int v8_ok = a >= 5 && a - 4 <= 0x7fffffff && b >= 1 && b <= 0x7fffffff;
    if (classes > 0) {
        v5_ok = v5_ok && b - 5 == (size_t)classes;
        v8_ok = v8_ok && a - 4 == (size_t)classes;
    }
    gvis_yolo_layout l = want;
    if (want == GVIS_YOLO_V5 && !v5_ok) {
        if (classes > 0 && b >= 6)
            return gvis_error(GVIS_E_FORMAT, "shape [%zu,%zu] has %zu classes as v5, not %d", a, b, b - 5, classes);
        return gvis_error(GVIS_E_FORMAT, "shape [%zu,%zu] is no v5 output [N,5+C]", a, b);
    }
    if (want == GVIS_YOLO_V8 && !v8_ok) {
        if (classes > 0 && a >= 5)
            return gvis_error(GVIS_E_FORMAT, "shape [%zu,%zu] has %zu classes as v8, not %d", a, b, a - 4, classes);
        return gvis_error(GVIS_E_FORMAT, "shape [%zu,%zu] is no v8 output [4+C,N]", a, b);
    }
    if (want == GVIS_YOLO_AUTO) {
        if (v5_ok && v8_ok) {
            if (a == b)
                return gvis_error(GVIS_E_ARG, "shape [%zu,%zu] is ambiguous: give --layout v5 or v8", a, b);
            l = a > b ? GVIS_YOLO_V5 : GVIS_YOLO_V8;
        } else if (v5_ok) {
            l = GVIS_YOLO_V5;
        } else if (v8_ok) {
            l = GVIS_YOLO_V8;
        } else if (classes > 0) {
            return gvis_error(GVIS_E_FORMAT, "shape [%zu,%zu] fits %d classes neither as v5 [N,5+C] nor as v8 [4+C,N]",
                              a, b, classes);
        } else {
            return gvis_error(GVIS_E_FORMAT, "shape [%zu,%zu] is neither a v5 [N,5+C] nor a v8 [4+C,N] output", a, b);
        }
    } else if (want != GVIS_YOLO_V5 && want != GVIS_YOLO_V8) {
        return gvis_error(GVIS_E_ARG, "unknown layout");
    }
    out->layout = l;
    out->rows = l == GVIS_YOLO_V5 ? a : b;
    out->classes = (int)(l == GVIS_YOLO_V5 ? b - 5 : a - 4);
    return GVIS_OK;
}

int gvis_yolo_check_params(const gvis_yolo_params *p)
{
    if (!(p->conf >= 0 && p->conf <= 1))
        return gvis_error(GVIS_E_ARG, "--conf must be in [0, 1]");
    if (!(p->iou >= 0 && p->iou <= 1))
        return gvis_error(GVIS_E_ARG, "--iou must be in [0, 1]");
    if (p->max_det < 1)
        return gvis_error(GVIS_E_ARG, "--max-det must be at least 1");
    return GVIS_OK;
}

float gvis_yolo_threshold(double t)
{
    float f = (float)t;
    if ((double)f > t)
        f = nextafterf(f, -INFINITY);
    return f;
}
