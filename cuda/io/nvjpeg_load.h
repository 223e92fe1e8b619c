/* nvJPEG, loaded at run time with dlopen (cuda/io/nvjpeg_load.c): one gvis binary runs
 * with or without the library.  GVIS_NVJPEG_LIBRARY=PATH loads that file only;
 * GVIS_NVJPEG_LIBRARY=none never loads it.  Otherwise libnvjpeg.so.13, .12, libnvjpeg.so,
 * then the same names under $CUDA_HOME/lib64 and /usr/local/cuda/lib64. */
#ifndef GVIS_NVJPEG_LOAD_H
#define GVIS_NVJPEG_LOAD_H

#include "nvjpeg_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    void *dl;
    char path[512];
    int major, minor, patch; /* nvjpegGetProperty */
#define GVIS_NVJ_FIELD(name, required) gvis_nvj_##name##_fn name;
    GVIS_NVJ_SYMBOLS(GVIS_NVJ_FIELD)
#undef GVIS_NVJ_FIELD
} gvis_nvjpeg_lib;

/* Opens spec ("none", a path, or NULL for the search above) into lib.  0 on success; else
 * -1 with a one-line reason in why (library not found, a required entry point missing,
 * disabled).  Never prints. */
int gvis_nvjpeg_open(const char *spec, gvis_nvjpeg_lib *lib, char *why, size_t why_len);
void gvis_nvjpeg_close(gvis_nvjpeg_lib *lib);

/* The process-wide library, loaded once from GVIS_NVJPEG_LIBRARY (thread-safe); NULL when
 * unavailable, with the reason copied into why (may be NULL). */
const gvis_nvjpeg_lib *gvis_nvjpeg(char *why, size_t why_len);

/* "nvJPEG status N (NAME)" text of a status value. */
const char *gvis_nvjpeg_status_name(int status);

#ifdef __cplusplus
}
#endif
#endif
