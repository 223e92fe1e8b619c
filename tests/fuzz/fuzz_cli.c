/* Fuzz target for the command line: the option parser of every subcommand and the
 * global options, and then whatever the parsed command does, run in-process on a
 * sandbox directory of small files.  The input is split at NUL bytes into arguments.
 *
 * Run libFuzzer with an absolute -artifact_prefix: a crash happens while the working
 * directory is the sandbox.
 *
 * What keeps it safe: inputs with an argument holding a '/' (other than one at the
 * end, "-o DIR/"), "..", "help" (which would exec man), "--repeat" (slow, not
 * interesting), "max-pixels" or ".gvis-" (the temporary files' mark) are skipped, so every path gvis opens lies in the
 * sandbox; the harness puts --max-pixels 1048576 first, which keeps every output within
 * the fuzzer's memory limit; standard input and output are /dev/null.  After each run
 * the sandbox is put back: what gvis wrote is removed and the seed files written again.
 *
 * What it checks: exit status 0, 1 or 2; a failure prints a message in gvis's format;
 * no temporary output file (.NAME.gvis-XXXXXX) is left behind. */
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>

#include "fuzz_cli.h"

#define MAX_ARGS 24
#define MAX_ARG_LEN 96

static char sandbox[256];
static int sandbox_fd = -1, home_fd = -1;

struct seed {
    const char *name;
    gvis_buf bytes;
};
static struct seed seeds[] = {
    {"a.png", {0}}, {"r.png", {0}}, {"c.png", {0}}, {"w.png", {0}}, {"f.pfm", {0}},
    {"g.pgm", {0}}, {"t.npy", {0}}, {"m.txt", {0}}, {"p.txt", {0}}, {"n.txt", {0}},
};
#define NSEEDS (sizeof seeds / sizeof seeds[0])

static void make_image(gvis_buf *b, int w, int h, int c, gvis_type t, gvis_format f, unsigned salt)
{
    gvis_image img;
    if (gvis_image_alloc(&img, w, h, c, t, 0))
        abort();
    size_t n = img.stride * (size_t)h;
    uint8_t *p = img.data;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)((i * 37u + salt * 11u) ^ (i >> 3));
    if (t == GVIS_F32) {
        float *q = img.data;
        for (size_t i = 0; i < n / 4; i++)
            q[i] = (float)(i % 17) * 0.25f;
    }
    if (gvis_image_encode(&img, f, NULL, b))
        abort();
    gvis_image_free(&img);
}

static void make_seeds(void)
{
    make_image(&seeds[0].bytes, 24, 12, 1, GVIS_U8, GVIS_FMT_PNG, 1);
    make_image(&seeds[1].bytes, 24, 12, 1, GVIS_U8, GVIS_FMT_PNG, 2);
    make_image(&seeds[2].bytes, 9, 7, 3, GVIS_U8, GVIS_FMT_PNG, 3);
    make_image(&seeds[3].bytes, 8, 6, 1, GVIS_U16, GVIS_FMT_PNG, 4);
    make_image(&seeds[4].bytes, 8, 6, 1, GVIS_F32, GVIS_FMT_PFM, 5);
    make_image(&seeds[5].bytes, 8, 6, 1, GVIS_U8, GVIS_FMT_PGM, 6);
    /* a YOLOv5 tensor [1, 20, 7]: boxes around (i*3, i*2), two classes */
    float t[20 * 7];
    for (int i = 0; i < 20; i++) {
        float *r = t + i * 7;
        r[0] = 10.0f + (float)i * 3;
        r[1] = 8.0f + (float)i * 2;
        r[2] = 12;
        r[3] = 9;
        r[4] = 0.2f + 0.04f * (float)i;
        r[5] = (float)(i % 3) * 0.4f;
        r[6] = 1.0f - r[5];
    }
    gvis_array a = {GVIS_DT_F32, 3, {1, 20, 7}, t, sizeof t};
    if (gvis_npy_encode(&a, &seeds[6].bytes))
        abort();
    const char *m = "# fuzz seed\n0.5 0 4\n0 0.5 2\n";
    const char *p = "a.png r.png\n# comment\nc.png c.png\n";
    const char *n = "person\ncar\n";
    gvis_buf_append(&seeds[7].bytes, m, strlen(m));
    gvis_buf_append(&seeds[8].bytes, p, strlen(p));
    gvis_buf_append(&seeds[9].bytes, n, strlen(n));
}

static void write_seeds(void)
{
    for (size_t i = 0; i < NSEEDS; i++) {
        FILE *f = fopen(seeds[i].name, "wb");
        if (!f || fwrite(seeds[i].bytes.data, 1, seeds[i].bytes.len, f) != seeds[i].bytes.len || fclose(f) != 0) {
            perror(seeds[i].name);
            abort();
        }
    }
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    if (ftw->level > 0)
        remove(path);
    return 0;
}

static int remove_all(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    remove(path);
    return 0;
}

static void remove_sandbox(void)
{
    if (chdir("/") == 0)
        nftw(sandbox, remove_all, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_cli_init();
    const char *tmp = getenv("TMPDIR");
    snprintf(sandbox, sizeof sandbox, "%s/gvis-fuzz-cli.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    /* gvis runs in the sandbox; between runs the working directory is the caller's
     * again, where libFuzzer and the replay find their corpus. */
    if (!mkdtemp(sandbox) || (sandbox_fd = open(sandbox, O_RDONLY | O_DIRECTORY)) < 0 ||
        (home_fd = open(".", O_RDONLY | O_DIRECTORY)) < 0) {
        perror("sandbox");
        abort();
    }
    atexit(remove_sandbox);
    make_seeds();
    if (fchdir(sandbox_fd) != 0)
        abort();
    write_seeds();
    if (fchdir(home_fd) != 0)
        abort();
    return 0;
}

static int arg_allowed(const char *a)
{
    size_t n = strlen(a);
    const char *slash = strchr(a, '/');
    if (slash && (slash != a + n - 1 || n == 1))
        return 0;
    /* ".gvis-" is the mark of gvis's temporary files, which must not be left behind: an
     * output the fuzzer names so would look like one */
    return !strstr(a, "..") && strcmp(a, "help") != 0 && strncmp(a, "--repeat", 8) != 0 &&
           !strstr(a, "max-pixels") && !strstr(a, ".gvis-");
}

/* No temporary output may be left: they are named .NAME.gvis-XXXXXX. */
static int temp_check(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    FUZZ_ASSERT(!strstr(path + ftw->base, ".gvis-"), "temporary file left behind: %s", path);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char buf[MAX_ARGS][MAX_ARG_LEN + 1];
    char *argv[MAX_ARGS + 4];
    int argc = 0;
    argv[argc++] = "gvis";
    /* a pixel limit that keeps every output (warpaffine --size ...) within the fuzzer's
     * memory limit; the fuzzed arguments cannot change it */
    argv[argc++] = "--max-pixels";
    argv[argc++] = "1048576";
    size_t pos = 0;
    while (pos < size && argc < MAX_ARGS + 3) {
        size_t end = pos;
        while (end < size && data[end] != 0)
            end++;
        size_t len = end - pos;
        if (len > MAX_ARG_LEN)
            return 0;
        char *a = buf[argc - 3];
        memcpy(a, data + pos, len);
        a[len] = 0;
        if (!arg_allowed(a))
            return 0;
        argv[argc++] = a;
        pos = end + 1;
    }
    if (pos < size)
        return 0; /* more arguments than MAX_ARGS */
    argv[argc] = NULL;
    if (fchdir(sandbox_fd) != 0)
        abort();
    char *err = NULL;
    fuzz_cli_run(argc, argv, &err);
    free(err);
    nftw(".", temp_check, 16, FTW_PHYS);
    nftw(".", remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    write_seeds();
    if (fchdir(home_fd) != 0)
        abort();
    return 0;
}
