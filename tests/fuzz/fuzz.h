/* Shared by the fuzz targets: the libFuzzer entry points, an in-memory file for the
 * readers that take a path, and the one rule every reader keeps (a failure says why).
 *
 * Each target is built twice: with -Dfuzz=true (clang) it links libFuzzer; in every
 * other build it links fuzz_replay.c, a small main() that feeds it the seed corpus
 * and the regression inputs under testdata/fuzz/, so the crashes fuzzing found stay
 * fixed in every test run (the ASan/UBSan one of scripts/test included). */
#ifndef GVIS_FUZZ_H
#define GVIS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gvis.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Stops the run with a message: libFuzzer and the replay driver report the abort
 * with the input that caused it. */
#define FUZZ_ASSERT(cond, ...)                                                         \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "fuzz invariant failed at %s:%d: %s: ", __FILE__, __LINE__, \
                    #cond);                                                            \
            fprintf(stderr, __VA_ARGS__);                                              \
            fputc('\n', stderr);                                                       \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* A failure must leave a message naming the problem. */
#define FUZZ_FAILED_WITH_MESSAGE(rc) \
    FUZZ_ASSERT(gvis_errmsg()[0] != 0, "status %d with an empty message", (rc))

/* With GVIS_FUZZ_VERBOSE set (replays), says what each input did: a seed corpus
 * whose files all fail would fuzz only the error paths. */
static inline int fuzz_verbose(void)
{
    static int v = -1;
    if (v < 0)
        v = getenv("GVIS_FUZZ_VERBOSE") != NULL;
    return v;
}
#define FUZZ_NOTE(...)                              \
    do {                                            \
        if (fuzz_verbose()) {                       \
            fprintf(stderr, "fuzz: " __VA_ARGS__);  \
            fputc('\n', stderr);                   \
        }                                           \
    } while (0)

/* An anonymous in-memory file holding data, named by a path the readers can open
 * ("/proc/self/fd/N"); the same file is reused for every input. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("gvis-fuzz", MFD_CLOEXEC);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("memfd write");
        abort();
    }
    return path;
}

#endif
