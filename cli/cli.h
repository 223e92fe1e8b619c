/* The gvis command line: option parsing, batches over inputs, messages.
 *
 * Adding a subcommand (the checklist):
 *   1. cli/cmd_NAME.c with `int cmd_NAME(int argc, char **argv)`: an option table,
 *      cli_parse(), cli_context(), cli_run_batch() with a per-file function.
 *   2. An entry in the commands[] table of cli/main.c (name, function, summary).
 *   3. The source in cli/meson.build; the lib/ and cuda/ files in theirs.
 *   4. Tests: unit (tests/test_NAME.c), CLI (tests/cli/NAME.sh), CUDA parity.
 *   5. man/gvis-NAME.1 (listed in man/meson.build) and an example in README.md.
 */
#ifndef GVIS_CLI_H
#define GVIS_CLI_H

#include <stddef.h>
#include "gvis.h"

/* Exit statuses (DESIGN.md section 2). */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

enum opt_type {
    OPT_FLAG,   /* int*: --name sets 1, --no-name sets 0 */
    OPT_INT,    /* int* */
    OPT_DOUBLE, /* double* (finite) */
    OPT_STRING, /* const char ** */
    OPT_CUSTOM, /* parse(value, dst, err, errlen) */
};

struct opt {
    const char *name;  /* long name, no dashes */
    char short_name;   /* 0: none */
    enum opt_type type;
    void *dst;
    int (*parse)(const char *value, void *dst, char *err, size_t errlen); /* OPT_CUSTOM: 0 = ok */
    const char *metavar; /* value placeholder for --help; NULL for flags */
    const char *help;    /* one line */
};
#define OPT_END { NULL, 0, OPT_FLAG, NULL, NULL, NULL, NULL }

struct cli_cmd {
    const char *name;      /* "hist" */
    const char *synopsis;  /* "[options] IN... [-o OUT]" */
    const struct opt *opts;/* terminated by OPT_END; -o, --format, --quality and the global options are added */
    int min_inputs;        /* positional arguments required (1 for most) */
    int max_inputs;        /* 0: no limit */
    int parallel;          /* 1: the per-file function may run on several threads at once (--jobs) */
};

/* What every subcommand gets after parsing. */
struct cli_args {
    char **inputs;
    int ninputs;
    const char *output;   /* -o, NULL when absent */
    const char *format;   /* --format NAME, NULL when absent */
    int quality;          /* --quality, 0 when absent */
    int no_autorotate;    /* --no-autorotate */
    int strip;            /* --strip */
    int png_level;        /* --png-level N as N + 1; 0 when absent */
    int lossless;         /* --lossless (WebP) */
    int page;             /* --page N (TIFF), 0 when absent */
    const char *list;     /* --list FILE|-, NULL when absent */
    int expanded;         /* folders or --list made the input list */
};

/* Global options (DESIGN.md section 2); they may stand before or after the subcommand. */
struct global_opts {
    const char *device;   /* "auto" */
    int timing;           /* 0 none, 1 text, 2 json */
    int repeat;
    int quiet, verbose;
    double max_pixels;    /* 0: default */
    int jobs;             /* --jobs N; 0: all cores */
    int fail_fast;        /* --fail-fast */
    int shard_k, shard_n; /* --shard K/N; 0/0: all */
    int jpeg_codec;       /* --jpeg-codec: GVIS_JPEG_CODEC_AUTO, _CPU or _NVJPEG; -1: not given (GVIS_JPEG_CODEC) */
    int progress;         /* --progress 1, --no-progress 0, -1: on a terminal */
};
extern struct global_opts g_opts;
extern const char *g_cmd; /* the running subcommand's name, for messages */

/* Parses argv (argv[0] is the subcommand).  Returns -1 on success, else an exit status
 * to return at once (0 after --help, 2 after a usage error, already reported).  After
 * success the caller frees args->inputs; after a return of 0 or 2 there is nothing to free. */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, struct cli_args *args);
/* Parses the global options that stand before the subcommand; returns the index of
 * the subcommand in argv, or -(exit status + 1) when the program must stop. */
int cli_parse_globals(int argc, char **argv);
void cli_usage(const struct cli_cmd *cmd, int to_stdout);

/* Creates the context from the global options; NULL after reporting an error (*status set). */
gvis_ctx *cli_context(int *status);
/* The same on the entry-th device of a --device list (cuda:all, cuda:0,1). */
gvis_ctx *cli_context_on(int *status, int entry);
/* The same without the -v lines and touching no global: for a batch worker's thread. */
gvis_ctx *cli_context_quiet(int *status, int entry);
/* Prints --timing output and frees the context. */
void cli_finish(gvis_ctx *ctx, double t0_ms);

/* Per-file work: in is an input path ("-" = stdin), out the output path for it
 * (NULL when no -o was given, "-" for stdout).  Returns a gvis_status. */
typedef int (*cli_file_fn)(gvis_ctx *ctx, const char *in, const char *out, void *arg);

/* Runs fn over every input.  Output names: with -o DIR/ (or an existing directory) each
 * input gets DIR/BASENAME.EXT, EXT being out_ext, else --format, else the input's
 * extension; with -o FILE there must be one input.  An output that names one of the
 * inputs is refused.  A failing file is reported as `gvis SUB: 'FILE': message` and the
 * batch goes on.  Returns the exit status (0, 1, or 2 for a usage error). */
int cli_run_batch(const struct cli_cmd *cmd, const struct cli_args *args, gvis_ctx *ctx, cli_file_fn fn,
                  void *arg, const char *out_ext);
/* A subcommand's image operation alone (src -> dst, allocating dst), set before
 * cli_run_batch: its batches then run staged (reader threads decode, device workers run
 * op, writer threads encode); without one, the per-file function runs whole on each
 * worker.  arg is the per-file function's. */
typedef int (*cli_op_fn)(gvis_ctx *ctx, const gvis_image *src, gvis_image *dst, void *arg);
void cli_set_image_op(cli_op_fn op);
/* The same operation on a device image (the nvJPEG batch keeps images on the GPU). */
typedef int (*cli_op_dev_fn)(gvis_ctx *ctx, const gvis_dev_image *src, gvis_dev_image *dst, void *arg);
void cli_set_image_op_dev(cli_op_dev_fn op);
/* ... and the bytes of an output that is not an image (GVIS_OP_IMAGE: it is one). */
typedef int (*cli_op_file_fn)(gvis_ctx *ctx, const gvis_image *src, const gvis_dev_image *dsrc, const char *out,
                              gvis_buf *bytes, void *arg);
void cli_set_image_op_file(cli_op_file_fn op);
/* The entries of the --device list a batch on ctx spreads over (0 on the CPU). */
int cli_device_entries(const gvis_ctx *ctx);
/* Device workers of a staged batch on ctx: one on the CPU (the operation itself runs on
 * every core), one per entry of a device list, two on a single GPU (copies of one overlap
 * the kernels of the other).  Measured on 2 x H100 (BENCHMARKS, 2026-11-25): one worker
 * per 4 jobs instead gave 123-135 images/s on cuda:0 at -j 32 where these give 227-239,
 * and 205-217 on cuda:all where these give 272. */
int cli_device_workers(const gvis_ctx *ctx);
/* ctxs[0] = ctx and a context of its own on entry w for each worker w >= 1 ("device ..."
 * said once).  EXIT_OK, else the exit status, with the contexts made so far left in
 * ctxs for the caller to free. */
int cli_worker_contexts(gvis_ctx *ctx, gvis_ctx **ctxs, int workers);
/* The files of a batch on several workers (batch_run.c): outs[i] is input i's output. */
int cli_run_jobs(const struct cli_cmd *cmd, const struct cli_args *args, gvis_ctx *ctx, cli_file_fn fn, void *arg,
                 char **outs, int jobs);
/* 1 when the run has several inputs, 0 for one: the one place that decides, so that an
 * output whose shape tells inputs apart (hist's long CSV) keys on the command line, not on
 * what the inputs hold.  Where folders and --list come in (the batch pipeline), they are
 * to count as several here, however many files they turn out to hold. */
int cli_several_inputs(const struct cli_args *args);
/* Frees the input list (and its strings where folders or --list made it). */
void cli_args_free(struct cli_args *args);
/* Folders become their image files (sorted by name) and --list FILE|- adds its lines.
 * Returns -1 when done, else an exit status (the problem reported). */
int cli_expand_inputs(struct cli_args *args);
/* Derives the output path for in with extension ext inside dir (malloc'd). */
char *cli_output_in_dir(const char *dir, const char *in, const char *ext);
/* Output templates (cli/outname.c): -o 'out/{stem}_blur.png' with {stem}, {name}, {ext},
 * {index} (from 1 in the whole list, --shard or not; {index:W} zero-padded) and {dir} (the
 * input's folder); '{{' and '}}' are braces.  cli_is_template: o holds a '{'.
 * cli_check_template: -1 when o is no template or a valid one, else 2 (reported). */
int cli_is_template(const char *o);
int cli_check_template(const char *o);
/* The output of input i (malloc'd): o expanded when a template, else cli_output_in_dir. */
char *cli_output_path(const char *o, const char *in, int i, const char *ext);
/* Before any work: o (DIR/ or template) gives every input its own output (else a usage
 * error naming two inputs) and a template's folders exist.  -1 when all is well. */
int cli_plan_outputs(const char *o, char *const *inputs, int n, const char *ext);
/* cli_plan_outputs's check alone, making no folder: two different inputs with one base name
 * (a/x.png, b/x.png) would both be written to DIR/x.png (or one expanded template), the
 * second over the first: refuses that (a usage error, reported).  Returns -1 when every
 * output is distinct, else the exit status to return. */
int cli_distinct_outputs(const char *o, char *const *inputs, int n, const char *ext);

/* disparity --left-dir L --right-dir R (cli/pairs.c): the image files of L and R of one name,
 * sorted, as paths[2i] (left) and paths[2i+1] (right), i < *npairs, pointing into *text
 * (free both).  A file without a partner is reported and counted in *missing; no pair at
 * all is a usage error.  Returns -1 when done, else the exit status (reported). */
int cli_pair_dirs(const char *ldir, const char *rdir, char ***paths, int *npairs, char **text, int *missing);

/* Progress of a batch (cli/progress.c): begin(total) on the main thread, step() once per
 * file as it is reported, end() when the batch stops; clear() before a message;
 * written() when a file's outputs are reported in place.  The line
 * shows under --progress, or with stderr a terminal unless --no-progress or -q, for two
 * files or more.  interrupted() is for the signal handler: "interrupted: N of M files
 * done" (N written), for two files or more. */
void cli_progress_begin(int total);
void cli_progress_step(void);
void cli_progress_written(void);
void cli_progress_end(void);
void cli_progress_clear(void);
void cli_progress_interrupted(void);

/* The name among names[0..n) that word (len bytes) most likely misspells: at most two
 * edits away (one for words under five letters), else the one name it is a prefix of;
 * NULL when none is close.  For "did you mean" after an unknown subcommand or option. */
const char *cli_did_you_mean(const char *word, size_t len, const char *const *names, int n);

/* Messages on stderr: "gvis SUB: message". */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Reports a usage error and returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Maps a gvis_status to an exit status (GVIS_E_ARG -> 2, others -> 1). */
int cli_exit_status(int status);
/* 1 when standard output is a pipe or socket whose reader has gone (a closed pipe:
 * writes fail with EPIPE, SIGPIPE being ignored); gvis then stops quietly with status 1. */
int cli_stdout_closed(void);
/* Flushes standard output at exit: a closed pipe is quiet, another write error is
 * reported; returns rc, or 1 when rc was 0 and stdout could not be written. */
int cli_finish_stdout(int rc);

/* Writes a buffer to path ("-": stdout) atomically, timed as save; returns a status.
 * Under cli_set_stream, "-" goes to the stream (below). */
int cli_write_output(gvis_ctx *ctx, const char *path, const gvis_buf *b);

/* One stream of several inputs' text on standard output (cli/stream.c), set before
 * cli_run_batch: each file's writes to "-" are kept and written to standard output when
 * the file is reported, in input order, so that the files may run on --jobs threads
 * (output byte-identical to -j 1).  head is written before the first file that wrote
 * (a CSV header), sep before each later one (",\n" between JSON documents).
 * cli_stream_items: the files that wrote (after the batch). */
void cli_set_stream(const char *head, const char *sep);
int cli_stream_on(void);
int cli_stream_items(void);
/* For the batch: this thread's writes to "-" go to b (*wrote set) until called with NULL;
 * flush writes what a file kept, after head or sep (main thread, input order). */
void cli_stream_capture(gvis_buf *b, int *wrote);
int cli_stream_capturing(void);
int cli_stream_take(const gvis_buf *b);
int cli_stream_flush(gvis_ctx *ctx, const gvis_buf *b, int wrote);

/* Common value parsers for OPT_CUSTOM. */
int cli_parse_size(const char *v, void *dst, char *err, size_t errlen);   /* "WxH" -> int[2] */
int cli_parse_doubles(const char *v, double *out, int n, char *err, size_t errlen); /* "a,b,c" or "a b c" */

/* The subcommands. */
int cmd_info(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_disparity(int argc, char **argv);
int cmd_gauss(int argc, char **argv);
int cmd_warpaffine(int argc, char **argv);
int cmd_yolo_decode(int argc, char **argv);

#endif
