/* What `gvis info` says of nvJPEG: the run-time loader's answer (cuda/io/nvjpeg_load.c)
 * and, on a usable device, the hardware decoder's engine count. */
#include <stdio.h>
#include <string.h>

#include "gvis.h"
#include "nvjpeg_load.h"
#ifdef GVIS_HAVE_CUDA
#include "nvjpeg_codec.h"
#endif

void gvis_nvjpeg_query(gvis_nvjpeg_info *info)
{
    memset(info, 0, sizeof *info);
#ifndef GVIS_HAVE_CUDA
    snprintf(info->why, sizeof info->why, "built without CUDA");
#else
    const gvis_nvjpeg_lib *lib = gvis_nvjpeg(info->why, sizeof info->why);
    if (!lib)
        return;
    info->found = 1;
    info->major = lib->major, info->minor = lib->minor, info->patch = lib->patch;
    snprintf(info->path, sizeof info->path, "%s", lib->path);
    int n = 0;
    char why[256];
    if (gvis_cuda_devices(&n, why, sizeof why) != GVIS_OK || n == 0) {
        snprintf(info->why, sizeof info->why, "no usable CUDA device");
        return;
    }
    unsigned engines = 0;
    if (gvis_nvjpeg_hw_engines(lib, &engines, info->why, sizeof info->why) == 0)
        info->engines = (int)engines;
#endif
}
