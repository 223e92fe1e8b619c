/* gvis info: version, build features and the CUDA devices seen, or why none is usable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gvis_config.h"

static const char *synopsis = "[--json]";

static void version_text(char *s, size_t n, int v)
{
    snprintf(s, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* The image formats and the library that reads and writes each in this build. */
static const gvis_format image_formats[] = {GVIS_FMT_PNG, GVIS_FMT_JPEG, GVIS_FMT_TIFF, GVIS_FMT_WEBP, GVIS_FMT_BMP,
                                            GVIS_FMT_TGA,  GVIS_FMT_PGM,  GVIS_FMT_PPM,  GVIS_FMT_PFM,  GVIS_FMT_NPY};
#define N_FORMATS (sizeof image_formats / sizeof image_formats[0])

static void codecs_text(gvis_buf *b)
{
    gvis_buf_printf(b, "formats (read / write):\n");
    for (size_t i = 0; i < N_FORMATS; i++) {
        const char *r = gvis_codec_name(image_formats[i], 0), *w = gvis_codec_name(image_formats[i], 1);
        if (!r && !w)
            gvis_buf_printf(b, "  %-5s not in this build\n", gvis_format_name(image_formats[i]));
        else if (r && w && strcmp(r, w) == 0)
            gvis_buf_printf(b, "  %-5s %s\n", gvis_format_name(image_formats[i]), r);
        else
            gvis_buf_printf(b, "  %-5s %s / %s\n", gvis_format_name(image_formats[i]), r ? r : "-", w ? w : "-");
    }
}

static void codecs_json(gvis_buf *b)
{
    gvis_buf_printf(b, ", \"formats\": {");
    for (size_t i = 0; i < N_FORMATS; i++) {
        const char *r = gvis_codec_name(image_formats[i], 0), *w = gvis_codec_name(image_formats[i], 1);
        gvis_buf_printf(b, "%s\"%s\": {\"read\": ", i ? ", " : "", gvis_format_name(image_formats[i]));
        if (r)
            gvis_buf_json_string(b, r);
        else
            gvis_buf_printf(b, "null");
        gvis_buf_printf(b, ", \"write\": ");
        if (w)
            gvis_buf_json_string(b, w);
        else
            gvis_buf_printf(b, "null");
        gvis_buf_printf(b, "}");
    }
    gvis_buf_printf(b, "}");
}

int cmd_info(int argc, char **argv)
{
    int json = 0;
    const struct opt opts[] = {
        {"json", 0, OPT_FLAG, &json, NULL, NULL, "one JSON document"},
        OPT_END,
    };
    const struct cli_cmd cmd = {"info", synopsis, opts, 0, 0, 0};
    struct cli_args args;
    int rc = cli_parse(&cmd, argc, argv, &args);
    if (rc >= 0)
        return rc;
    int ninputs = args.ninputs;
    const char *out = args.output ? args.output : "-"; /* -o FILE was ignored (issue 13 item 5) */
    cli_args_free(&args);
    if (ninputs > 0)
        return cli_usage_error("takes no inputs");
    int n = 0;
    char why[256] = "";
    gvis_cuda_devices(&n, why, sizeof why);
    gvis_buf b = {0};
    char drv[32], rt[32];
    if (json) {
        gvis_buf_printf(&b, "{\"version\": \"%s\", \"cuda\": %s, \"gpu_archs\": ", GVIS_VERSION_STRING,
                        gvis_build_has_cuda() ? "true" : "false");
        gvis_buf_json_string(&b, gvis_build_cuda_archs());
        gvis_buf_printf(&b, ", \"cpu_threads\": %d, \"devices\": [", gvis_threads());
        for (int i = 0; i < n; i++) {
            gvis_device_info d;
            if (gvis_cuda_device_info(i, &d))
                continue;
            version_text(drv, sizeof drv, d.driver_version);
            version_text(rt, sizeof rt, d.runtime_version);
            gvis_buf_printf(&b, "%s{\"index\": %d, \"name\": ", i ? ", " : "", i);
            gvis_buf_json_string(&b, d.name);
            gvis_buf_printf(&b,
                            ", \"compute_capability\": \"%d.%d\", \"multiprocessors\": %d, \"memory_bytes\": %zu, "
                            "\"driver\": \"%s\", \"runtime\": \"%s\"}",
                            d.major, d.minor, d.multiprocessors, d.memory_bytes, drv, rt);
        }
        gvis_buf_printf(&b, "]");
        codecs_json(&b);
        gvis_nvjpeg_info nj;
        gvis_nvjpeg_query(&nj);
        gvis_buf_printf(&b, ", \"nvjpeg\": {\"found\": %s", nj.found ? "true" : "false");
        if (nj.found) {
            gvis_buf_printf(&b, ", \"version\": \"%d.%d.%d\", \"path\": ", nj.major, nj.minor, nj.patch);
            gvis_buf_json_string(&b, nj.path);
            gvis_buf_printf(&b, ", \"hardware_engines\": %d", nj.engines);
        }
        if (nj.why[0]) {
            gvis_buf_printf(&b, ", \"reason\": ");
            gvis_buf_json_string(&b, nj.why);
        }
        gvis_buf_printf(&b, "}");
        if (n == 0) {
            gvis_buf_printf(&b, ", \"no_device_reason\": ");
            gvis_buf_json_string(&b, why);
        }
        gvis_buf_printf(&b, "}\n");
    } else {
        gvis_buf_printf(&b, "gvis %s\n", GVIS_VERSION_STRING);
        if (gvis_build_has_cuda())
            gvis_buf_printf(&b, "build: CUDA, GPU architectures %s\n", gvis_build_cuda_archs());
        else
            gvis_buf_printf(&b, "build: CPU only (built without CUDA)\n");
        gvis_buf_printf(&b, "cpu threads: %d\n", gvis_threads());
        codecs_text(&b);
        gvis_nvjpeg_info nj;
        gvis_nvjpeg_query(&nj);
        if (!nj.found)
            gvis_buf_printf(&b, "nvJPEG: not used (%s): JPEG is decoded and encoded on the CPU\n", nj.why);
        else if (nj.engines > 0)
            gvis_buf_printf(&b, "nvJPEG: %d.%d.%d (%s), %d hardware decode engines\n", nj.major, nj.minor, nj.patch,
                            nj.path, nj.engines);
        else
            gvis_buf_printf(&b, "nvJPEG: %d.%d.%d (%s), no hardware decoder%s%s%s\n", nj.major, nj.minor, nj.patch,
                            nj.path, nj.why[0] ? " (" : "", nj.why, nj.why[0] ? ")" : "");
        for (int i = 0; i < n; i++) {
            gvis_device_info d;
            if (gvis_cuda_device_info(i, &d)) {
                gvis_buf_printf(&b, "cuda:%d: %s\n", i, gvis_errmsg());
                continue;
            }
            version_text(drv, sizeof drv, d.driver_version);
            version_text(rt, sizeof rt, d.runtime_version);
            gvis_buf_printf(&b,
                            "cuda:%d: %s, compute capability %d.%d, %d multiprocessors, %.1f GiB, driver %s, "
                            "runtime %s\n",
                            i, d.name, d.major, d.minor, d.multiprocessors, (double)d.memory_bytes / (1 << 30), drv, rt);
        }
        if (n == 0)
            gvis_buf_printf(&b, "no usable CUDA device: %s; gvis runs on the CPU\n", why);
    }
    int wrc = gvis_write_file_atomic(out, b.data ? (const void *)b.data : "", b.len);
    gvis_buf_free(&b);
    if (wrc) {
        cli_error("%s", gvis_errmsg());
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}
