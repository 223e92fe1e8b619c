/* Fuzz target for the affine matrix file reader (gvis_matrix_read, lib/ops/matrix.c) that
 * `gvis warpaffine --matrix` and `gvis yolo-decode --matrix` use.  A file it accepts
 * holds finite matrices that are inverses of each other, and what gvis_matrix_format
 * writes from them reads back bit for bit. */
#include <math.h>

#include "fuzz.h"
#include "matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    double fwd[6], inv[6];
    int rc = gvis_matrix_read(fuzz_file(data, size), fwd, inv);
    FUZZ_NOTE("matrix: %d %s", rc, rc ? gvis_errmsg() : "ok");
    if (rc != GVIS_OK) {
        FUZZ_FAILED_WITH_MESSAGE(rc);
        FUZZ_ASSERT(rc == GVIS_E_FORMAT || rc == GVIS_E_LIMIT || rc == GVIS_E_NOMEM,
                    "a malformed matrix file gave status %d (%s), not a format error", rc, gvis_errmsg());
        return 0;
    }
    for (int k = 0; k < 6; k++)
        FUZZ_ASSERT(isfinite(fwd[k]) && isfinite(inv[k]), "accepted a coefficient that is not finite");
    char text[1024];
    rc = gvis_matrix_format(fwd, inv, text, sizeof text);
    FUZZ_ASSERT(rc == GVIS_OK, "formatting an accepted matrix failed: %s", gvis_errmsg());
    double f2[6], i2[6];
    rc = gvis_matrix_read(fuzz_file((const uint8_t *)text, strlen(text)), f2, i2);
    FUZZ_ASSERT(rc == GVIS_OK, "gvis cannot read its own matrix file: %s\n%s", gvis_errmsg(), text);
    for (int k = 0; k < 6; k++)
        FUZZ_ASSERT(f2[k] == fwd[k] + 0.0 && i2[k] == inv[k] + 0.0, "matrix text round trip changed coefficient %d", k);
    return 0;
}
