/* gvis: a command-line stereo and vision toolbox.  The commands[] table below is the
 * one list of subcommands: `gvis --help` prints it and main() dispatches through it. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "cli.h"
#include "gvis_config.h"

static const struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"disparity", cmd_disparity, "Semi-global matching of rectified stereo pairs: disparity maps, previews, point clouds, scores"},
    {"hist", cmd_hist, "Histograms of 8- and 16-bit images as CSV, JSON or a plot; histogram equalization"},
    {"gauss", cmd_gauss, "Separable Gaussian blur (cv2.GaussianBlur): any sigma, five borders"},
    {"warpaffine", cmd_warpaffine, "Affine warp and letterbox; images or a float32 tensor (.npy) in one pass"},
    {"yolo-decode", cmd_yolo_decode, "YOLOv5 / YOLOv8 outputs to detections: score filter, greedy NMS, boxes drawn"},
    {"info", cmd_info, "Version, build features and the CUDA devices this machine offers"},
};

const char *cli_command_summary(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].summary;
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gvis [global options] SUBCOMMAND [options] INPUT... [-o OUTPUT]\n\nSubcommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "  %-12s %s\n", "help", "Show the manual page of a subcommand (gvis help SUBCOMMAND)");
    fprintf(f,
            "\nGlobal options (before or after the subcommand):\n"
            "  --device DEV   auto, cpu, cuda, cuda:N (default auto: the first usable GPU, else the CPU);\n"
            "                 cuda:all or cuda:0,1 spread a batch's files over those GPUs\n"
            "  --cpu          same as --device cpu\n"
            "  --timing       stage times on stderr; --timing=json prints one JSON object\n"
            "  --repeat N     run the operation N times and report the median time\n"
            "  --max-pixels N refuse images with more pixels (default 268435456)\n"
            "  -q, -v         quieter, more verbose\n"
            "  --help, --version\n"
            "\nExit status: 0 success, 1 failure at run time, 2 usage error.\n"
            "See 'gvis SUBCOMMAND --help' and 'gvis help SUBCOMMAND'.\n");
}

static pthread_t main_thread;

/* The temporaries are removed on the main thread, the one that makes them: a signal the
 * kernel gave to a worker or a CUDA driver thread is passed to it, so that the main thread
 * is stopped where it is and cannot create a file while the handler runs. */
static void on_signal(int sig)
{
    if (!pthread_equal(pthread_self(), main_thread)) {
        pthread_kill(main_thread, sig);
        return;
    }
    cli_progress_interrupted(); /* before the removal: it and raise() stay back to back */
    gvis_remove_temp_files();
    signal(sig, SIG_DFL);
    raise(sig);
}

static int show_man(const char *sub)
{
    if (sub && !cli_command_summary(sub) && strcmp(sub, "gvis") != 0) {
        const char *names[sizeof commands / sizeof commands[0]];
        for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
            names[k] = commands[k].name;
        const char *near = cli_did_you_mean(sub, strlen(sub), names, (int)(sizeof commands / sizeof commands[0]));
        fprintf(stderr, "gvis help: unknown subcommand '%s'%s%s%s\nTry 'gvis --help' for the list.\n", sub,
                near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return EXIT_USAGE;
    }
    char page[64], path[4096];
    snprintf(page, sizeof page, "gvis%s%s", sub && strcmp(sub, "gvis") ? "-" : "", sub && strcmp(sub, "gvis") ? sub : "");
    /* The installed page; then beside this executable (PREFIX/bin/gvis ->
     * PREFIX/share/man/man1, or a build or copied folder two levels under a source tree,
     * build/cli/gvis -> man/); last the source tree this binary was built from. */
    char exe[4000], rel[2][4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[len > 0 ? len : 0] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    snprintf(rel[0], sizeof rel[0], "%s/../share/man/man1", slash ? exe : ".");
    snprintf(rel[1], sizeof rel[1], "%s/../../man", slash ? exe : ".");
    const char *dirs[] = {GVIS_MAN_DIR, rel[0], rel[1], GVIS_SOURCE_MAN_DIR};
    path[0] = 0;
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0] && !path[0]; k++) {
        snprintf(path, sizeof path, "%s/%s.1", dirs[k], page);
        if (access(path, R_OK) != 0)
            path[0] = 0;
    }
    if (!path[0]) {
        fprintf(stderr, "gvis help: no manual page %s.1 found in %s, beside the executable or in %s\n", page,
                GVIS_MAN_DIR, GVIS_SOURCE_MAN_DIR);
        return EXIT_RUNTIME;
    }
    fflush(stdout);
    execlp("man", "man", "-l", path, (char *)NULL);
    execlp("mandoc", "mandoc", path, (char *)NULL);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gvis help: cannot read %s\n", path);
        return EXIT_RUNTIME;
    }
    char line[1024];
    while (fgets(line, sizeof line, f))
        fputs(line, stdout);
    fclose(f);
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    main_thread = pthread_self();
    gvis_trace_main(); /* GVIS_TRACE's clock starts with the process */
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    /* A closed pipe shows up as EPIPE from write(), reported quietly with status 1. */
    signal(SIGPIPE, SIG_IGN);
    /* Over a file-size limit (ulimit -f) a write fails with EFBIG and is reported, and
     * the temporary output removed, instead of the process being killed mid-file. */
    signal(SIGXFSZ, SIG_IGN);

    int i = cli_parse_globals(argc, argv);
    if (i < 0)
        return -i - 1;
    if (i >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[i];
    if (strcmp(name, "--version") == 0) {
        printf("gvis %s%s\n", GVIS_VERSION_STRING, gvis_build_has_cuda() ? " (CUDA)" : " (CPU only)");
        return cli_finish_stdout(EXIT_OK);
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        usage(stdout);
        return cli_finish_stdout(EXIT_OK);
    }
    if (strcmp(name, "help") == 0)
        return show_man(i + 1 < argc ? argv[i + 1] : NULL);
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        if (strcmp(commands[k].name, name) == 0) {
            g_cmd = commands[k].name;
            int nthreads;
            if (gvis_threads_env(&nthreads) != GVIS_OK)
                cli_warn("%s; using the %d online CPUs", gvis_errmsg(), gvis_threads());
            /* whatever the command writes outside a batch item's own set lands here:
             * in place only when the command succeeds (issue 13) */
            gvis_outset *set = gvis_outset_begin();
            gvis_outset_pass_streams(set, 1);
            double t_cmd = gvis_now_ms();
            int status = commands[k].fn(argc - i, argv + i);
            gvis_trace_phase("the command", t_cmd, gvis_now_ms());
            if (status == EXIT_OK && set && gvis_outset_commit(set) != GVIS_OK) {
                cli_error("%s", gvis_errmsg());
                status = EXIT_RUNTIME;
            } else if (status != EXIT_OK) {
                gvis_outset_abort(set);
            }
            if (gvis_trace_write())
                cli_warn("cannot write the timeline GVIS_TRACE names: %s", strerror(errno));
            return cli_finish_stdout(status);
        }
    }
    const char *names[sizeof commands / sizeof commands[0] + 1];
    int nn = 0;
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        names[nn++] = commands[k].name;
    names[nn++] = "help";
    const char *near = cli_did_you_mean(name, strlen(name), names, nn);
    if (near)
        fprintf(stderr, "gvis: unknown subcommand '%s'; did you mean '%s'?\nTry 'gvis --help' for the list.\n", name,
                near);
    else
        fprintf(stderr, "gvis: unknown subcommand '%s'\nTry 'gvis --help' for the list.\n", name);
    return EXIT_USAGE;
}
