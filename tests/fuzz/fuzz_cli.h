/* Running the gvis command line in-process for the fuzz targets: every cli/ source is compiled
 * into the target with main renamed gvis_main.  Standard input reads /dev/null,
 * standard output goes to /dev/null, and what gvis writes on stderr is captured to
 * check that every failure says something in gvis's format. */
#ifndef GVIS_FUZZ_CLI_H
#define GVIS_FUZZ_CLI_H

#include <fcntl.h>

#include "cli.h"
#include "fuzz.h"

int gvis_main(int argc, char **argv);

static void fuzz_cli_init(void)
{
    int fd = open("/dev/null", O_RDWR);
    if (fd < 0 || dup2(fd, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0) {
        perror("/dev/null");
        abort();
    }
    close(fd);
    setenv("GVIS_THREADS", "1", 0);
}

/* Runs gvis with argv (argv[argc] must be NULL) from a clean global state; returns
 * its exit status, with stderr's text in *err (malloc'd). */
static int fuzz_cli_run(int argc, char **argv, char **err)
{
    static const struct global_opts defaults = {"auto", 0, 1, 0, 0, 0, 0, 0, 0, 0, -1, -1}; /* as cli/opts.c */
    g_opts = defaults;
    g_cmd = NULL;
    size_t len = 0;
    *err = NULL;
    FILE *mem = open_memstream(err, &len);
    if (!mem)
        abort();
    FILE *saved = stderr;
    stderr = mem;
    int rc = gvis_main(argc, argv);
    stderr = saved;
    fclose(mem);
    if (fuzz_verbose()) {
        char line[256] = "";
        for (int i = 1; i < argc && strlen(line) < 200; i++)
            snprintf(line + strlen(line), sizeof line - strlen(line), " %s", argv[i]);
        FUZZ_NOTE("gvis%s: exit %d: %.300s", line, rc, *err ? *err : "");
    }
    FUZZ_ASSERT(rc == 0 || rc == 1 || rc == 2, "exit status %d (only 0, 1 and 2 exist)", rc);
    if (rc != 0) {
        FUZZ_ASSERT(*err && (*err)[0], "exit status %d with nothing on stderr", rc);
        FUZZ_ASSERT(strncmp(*err, "gvis", 4) == 0 || strncmp(*err, "usage: gvis", 11) == 0,
                    "message not in gvis's format: %.200s", *err);
    }
    return rc;
}

#endif
