/* The context of a run from the global options, --timing output at its end, and
 * whole-buffer outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"

static void log_to_stderr(void *user, int level, const char *msg)
{
    if (level == GVIS_LOG_WARN)
        cli_warn("%s", msg);
    else if (!user || !strstr(msg, ": context started")) /* a batch worker's: said by the first */
        cli_info("%s", msg);
}

/* --jpeg-codec; else GVIS_JPEG_CODEC, a default that yields to --device cpu and is
 * warned about (once) when it is not a codec; else cpu: nvJPEG file by file in a batch
 * measured 2.5 to 5 times slower than libjpeg-turbo on the cores (2 x H100, 2026-11-25,
 * docs/notes-nvjpeg.md), so it is asked for, not the default, until that is fixed */
static int jpeg_codec(void)
{
    static int warned;
    if (g_opts.jpeg_codec >= 0)
        return g_opts.jpeg_codec;
    const char *e = getenv("GVIS_JPEG_CODEC");
    int c = GVIS_JPEG_CODEC_CPU;
    char err[256];
    if (e && *e && cli_parse_jpeg_codec(e, &c, err, sizeof err)) {
        if (!warned++)
            cli_warn("GVIS_JPEG_CODEC='%s' is not auto, cpu or nvjpeg; using cpu", e);
        c = GVIS_JPEG_CODEC_CPU;
    }
    if (c == GVIS_JPEG_CODEC_NVJPEG && strcmp(g_opts.device, "cpu") == 0)
        c = GVIS_JPEG_CODEC_CPU;
    return c;
}

gvis_ctx *cli_context(int *status) { return cli_context_on(status, 0); }

static gvis_ctx *context_on(int *status, int entry, int quiet);

gvis_ctx *cli_context_on(int *status, int entry) { return context_on(status, entry, 0); }

/* The same without the -v lines, for a batch worker's context made on its own thread
 * (g_opts.verbose is not touched: other threads read it). */
gvis_ctx *cli_context_quiet(int *status, int entry) { return context_on(status, entry, 1); }

static gvis_ctx *context_on(int *status, int entry, int quiet)
{
    const struct cli_args *cur_args = cli_current_args();
    gvis_io_opts io = {.max_pixels = 0};
    io.max_pixels = (size_t)g_opts.max_pixels;
    io.quality = cur_args ? cur_args->quality : 0;
    if (cur_args) {
        io.png_level = cur_args->png_level;
        io.lossless = cur_args->lossless;
        io.strip = cur_args->strip;
        io.no_autorotate = cur_args->no_autorotate;
        io.page = cur_args->page;
    }
    io.jpeg_codec = jpeg_codec();
    if (io.jpeg_codec == GVIS_JPEG_CODEC_NVJPEG && strcmp(g_opts.device, "cpu") == 0) {
        *status = cli_usage_error("--jpeg-codec nvjpeg runs on a CUDA device: it cannot go with --device cpu");
        return NULL;
    }
    gvis_ctx *ctx = NULL;
    static int quiet_mark; /* the log's user: a worker's context (its start not said again) */
    int rc = gvis_ctx_create_on(&ctx, g_opts.device, entry, g_opts.repeat, &io, log_to_stderr,
                                quiet ? &quiet_mark : NULL);
    if (rc) {
        if (!quiet) /* a worker's: its file reports it */
            cli_error("%s", gvis_errmsg());
        *status = cli_exit_status(rc);
        return NULL;
    }
    if (quiet) {
        *status = EXIT_OK;
        return ctx;
    }
    cli_info("device %s", gvis_ctx_device_name(ctx));
    static int said; /* once, not once per batch worker */
    gvis_jpeg_counts j;
    gvis_ctx_jpeg_counts(ctx, &j);
    if (j.nvjpeg && !said++)
        cli_info("JPEG through nvJPEG on the device (libjpeg-turbo for what its engines refuse)");
    *status = EXIT_OK;
    return ctx;
}

void cli_finish(gvis_ctx *ctx, double t0_ms)
{
    if (!ctx)
        return;
    const gvis_timing *t = gvis_ctx_timing(ctx);
    double total = gvis_now_ms() - t0_ms;
    if (g_opts.timing == 2) {
        gvis_buf b = {0};
        gvis_buf_printf(&b, "{\"device\": ");
        gvis_buf_json_string(&b, gvis_ctx_device_name(ctx));
        gvis_buf_printf(&b,
                        ", \"repeat\": %d, \"load_ms\": %.4f, \"upload_ms\": %.4f, \"compute_ms\": %.4f, "
                        "\"download_ms\": %.4f, \"save_ms\": %.4f, \"total_ms\": %.4f}\n",
                        t->repeat, t->load_ms, t->upload_ms, t->compute_ms, t->download_ms, t->save_ms, total);
        if (b.data)
            fputs((const char *)b.data, stderr);
        gvis_buf_free(&b);
    } else if (g_opts.timing == 1) {
        fprintf(stderr,
                "gvis %s: %s: load %.3f ms, upload %.3f ms, compute %.3f ms (median of %d), download %.3f ms, "
                "save %.3f ms, total %.3f ms\n",
                g_cmd, gvis_ctx_device_name(ctx), t->load_ms, t->upload_ms, t->compute_ms, t->repeat, t->download_ms,
                t->save_ms, total);
    }
    gvis_jpeg_counts j;
    gvis_jpeg_counts_total(&j);
    if (j.nvjpeg && g_opts.verbose && !g_opts.quiet) {
        char batches[96] = "";
        if (j.batches)
            snprintf(batches, sizeof batches, "; %ld decode batches of %.1f on average", j.batches,
                     (double)j.batched / (double)j.batches);
        cli_info("JPEG: %ld decoded by nvJPEG, %ld by libjpeg-turbo; %ld encoded by nvJPEG, %ld by libjpeg-turbo%s",
                 j.gpu_decoded, j.cpu_decoded, j.gpu_encoded, j.cpu_encoded, batches);
    }
    gvis_ctx_free(ctx);
}

int cli_write_output(gvis_ctx *ctx, const char *path, const gvis_buf *b)
{
    if (strcmp(path, "-") == 0 && cli_stream_capturing()) /* kept for the stream, in input order */
        return cli_stream_take(b);
    double t0 = gvis_now_ms();
    int rc = gvis_write_file_atomic(path, b->data ? (const void *)b->data : "", b->len);
    gvis_ctx_timing(ctx)->save_ms += gvis_now_ms() - t0;
    return rc;
}
