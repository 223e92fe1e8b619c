/* Fuzz target for the stereo pair list reader of `gvis disparity --pairs FILE`
 * (read_pairs, a static function of cli/cmd_disparity.c, compiled into this target).
 * Every pair it returns names a left and a right file, non-empty, free of the
 * separators it split on. */
#include "fuzz.h"

#include "../../cli/cmd_disparity.c"

static void check_field(const char *s, const char *what, int i)
{
    FUZZ_ASSERT(s && *s, "pair %d has an empty %s", i, what);
    FUZZ_ASSERT(!strpbrk(s, " \t\r\n"), "pair %d: %s '%s' holds a separator", i, what, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pair *pairs = NULL;
    int n = 0;
    char *text = NULL;
    int rc = read_pairs(fuzz_file(data, size), &pairs, &n, &text);
    FUZZ_NOTE("pairs: %d %s (%d pairs)", rc, rc ? gvis_errmsg() : "ok", n);
    if (rc != GVIS_OK) {
        FUZZ_FAILED_WITH_MESSAGE(rc);
        return 0;
    }
    FUZZ_ASSERT(n >= 1, "accepted a list of %d pairs", n);
    for (int i = 0; i < n; i++) {
        check_field(pairs[i].left, "left", i);
        check_field(pairs[i].right, "right", i);
        if (pairs[i].gt)
            check_field(pairs[i].gt, "ground truth", i);
        FUZZ_ASSERT(pairs[i].left[0] != '#', "pair %d is a comment line", i);
    }
    free(pairs);
    free(text);
    return 0;
}
