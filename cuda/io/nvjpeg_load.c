/* Loads nvJPEG with dlopen and resolves the entry points of nvjpeg_abi.h.  A library that
 * lacks one of the required ones is refused whole (a wrong file, or an nvJPEG too old for
 * the batched hardware decoder), so that callers test one pointer: the table itself. */
#include "nvjpeg_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int try_open(const char *path, gvis_nvjpeg_lib *lib, char *why, size_t why_len)
{
    memset(lib, 0, sizeof *lib);
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *e = dlerror();
        snprintf(why, why_len, "cannot load %s: %s", path, e ? e : "not found");
        return -1;
    }
    lib->dl = dl;
    snprintf(lib->path, sizeof lib->path, "%s", path);
#define GVIS_NVJ_RESOLVE(name, required)                                                        \
    {                                                                                           \
        void *sym = dlsym(dl, "nvjpeg" #name);                                                  \
        if (!sym && required) {                                                                 \
            snprintf(why, why_len, "%s lacks nvjpeg" #name " (not nvJPEG, or older than 11)", path); \
            dlclose(dl);                                                                        \
            memset(lib, 0, sizeof *lib);                                                        \
            return -1;                                                                          \
        }                                                                                       \
        memcpy(&lib->name, &sym, sizeof sym);                                                   \
    }
    GVIS_NVJ_SYMBOLS(GVIS_NVJ_RESOLVE)
#undef GVIS_NVJ_RESOLVE
    if (lib->GetProperty(GVIS_NVJ_MAJOR_VERSION, &lib->major) != GVIS_NVJ_SUCCESS ||
        lib->GetProperty(GVIS_NVJ_MINOR_VERSION, &lib->minor) != GVIS_NVJ_SUCCESS ||
        lib->GetProperty(GVIS_NVJ_PATCH_LEVEL, &lib->patch) != GVIS_NVJ_SUCCESS) {
        snprintf(why, why_len, "%s: nvjpegGetProperty failed", path);
        dlclose(dl);
        memset(lib, 0, sizeof *lib);
        return -1;
    }
    if (lib->major < 11) {
        snprintf(why, why_len, "%s is nvJPEG %d.%d; gvis needs 11 or newer", path, lib->major, lib->minor);
        dlclose(dl);
        memset(lib, 0, sizeof *lib);
        return -1;
    }
    return 0;
}

int gvis_nvjpeg_open(const char *spec, gvis_nvjpeg_lib *lib, char *why, size_t why_len)
{
    char scratch[8];
    if (!why)
        why = scratch, why_len = sizeof scratch;
    memset(lib, 0, sizeof *lib);
    if (spec && strcmp(spec, "none") == 0) {
        snprintf(why, why_len, "nvJPEG disabled by GVIS_NVJPEG_LIBRARY=none");
        return -1;
    }
    if (spec && *spec)
        return try_open(spec, lib, why, why_len);
    static const char *names[] = {"libnvjpeg.so.13", "libnvjpeg.so.12", "libnvjpeg.so.11", "libnvjpeg.so"};
    const char *dirs[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    char first[512] = "";
    for (size_t d = 0; d <= sizeof dirs / sizeof dirs[0]; d++) {
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            char path[512];
            if (d == 0)
                snprintf(path, sizeof path, "%s", names[i]);
            else if (dirs[d - 1] && *dirs[d - 1])
                snprintf(path, sizeof path, "%s/lib64/%s", dirs[d - 1], names[i]);
            else
                continue;
            if (try_open(path, lib, why, why_len) == 0)
                return 0;
            if (!first[0])
                snprintf(first, sizeof first, "%s", why);
        }
    }
    snprintf(why, why_len, "%s", first);
    return -1;
}

void gvis_nvjpeg_close(gvis_nvjpeg_lib *lib)
{
    if (lib && lib->dl)
        dlclose(lib->dl);
    if (lib)
        memset(lib, 0, sizeof *lib);
}

static gvis_nvjpeg_lib g_lib;
static int g_ok;
static char g_why[600];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void load_once(void)
{
    g_ok = gvis_nvjpeg_open(getenv("GVIS_NVJPEG_LIBRARY"), &g_lib, g_why, sizeof g_why) == 0;
}

const gvis_nvjpeg_lib *gvis_nvjpeg(char *why, size_t why_len)
{
    pthread_once(&g_once, load_once);
    if (!g_ok && why && why_len)
        snprintf(why, why_len, "%s", g_why);
    return g_ok ? &g_lib : NULL;
}

const char *gvis_nvjpeg_status_name(int status)
{
    static const char *names[] = {"success", "not initialized", "invalid parameter", "bad JPEG",
                                  "JPEG not supported", "allocator failure", "execution failed",
                                  "architecture mismatch", "internal error", "implementation not supported",
                                  "incomplete bitstream"};
    if (status >= 0 && status < (int)(sizeof names / sizeof names[0]))
        return names[status];
    return "unknown status";
}
