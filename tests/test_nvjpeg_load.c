/* nvJPEG's run-time loader: a missing library, a library lacking an entry point,
 * GVIS_NVJPEG_LIBRARY=none, and a library with the whole symbol set (a stand-in built
 * from fake_nvjpeg.c), each giving the right answer and a one-line reason. */
#include <stdlib.h>
#include <string.h>

#include "nvjpeg_load.h"
#include "testlib.h"

int main(int argc, char **argv)
{
    const char *whole = getenv("FAKE_NVJPEG"), *partial = getenv("FAKE_NVJPEG_PARTIAL");
    CHECKF(whole && partial, "FAKE_NVJPEG and FAKE_NVJPEG_PARTIAL must name the stand-in libraries");
    if (!whole || !partial)
        return t_done("nvjpeg_load");
    gvis_nvjpeg_lib lib;
    char why[600];

    /* disabled */
    CHECK(gvis_nvjpeg_open("none", &lib, why, sizeof why) == -1);
    CHECKF(strstr(why, "GVIS_NVJPEG_LIBRARY=none") != NULL, "reason: %s", why);
    CHECK(lib.dl == NULL && lib.DecodeBatched == NULL);

    /* missing file */
    CHECK(gvis_nvjpeg_open("/nonexistent/libnvjpeg.so.13", &lib, why, sizeof why) == -1);
    CHECKF(strstr(why, "cannot load /nonexistent/libnvjpeg.so.13") != NULL, "reason: %s", why);

    /* not a shared library at all */
    CHECK(gvis_nvjpeg_open(argv[0], &lib, why, sizeof why) == -1);
    CHECKF(strstr(why, "cannot load") != NULL, "reason: %s", why);

    /* wrong symbol set: one required entry point missing, the library is refused whole */
    CHECK(gvis_nvjpeg_open(partial, &lib, why, sizeof why) == -1);
    CHECKF(strstr(why, "lacks nvjpegDecodeBatched") != NULL, "reason: %s", why);
    CHECK(lib.dl == NULL && lib.CreateEx == NULL);

    /* the whole set: every required pointer resolved, the optional one absent, version read */
    CHECKF(gvis_nvjpeg_open(whole, &lib, why, sizeof why) == 0, "whole stand-in refused: %s", why);
    CHECK(lib.dl != NULL && lib.CreateEx && lib.DecodeBatched && lib.EncodeRetrieveBitstream);
    CHECK(lib.GetHardwareDecoderInfo == NULL);
    CHECKF(lib.major == 13 && lib.minor == 0 && lib.patch == 7, "version %d.%d.%d", lib.major, lib.minor,
           lib.patch);
    gvis_nvj_handle h = NULL;
    CHECK(lib.CreateEx(GVIS_NVJ_BACKEND_HARDWARE, NULL, NULL, 0, &h) == GVIS_NVJ_NOT_INITIALIZED);
    CHECK(strcmp(gvis_nvjpeg_status_name(GVIS_NVJ_NOT_INITIALIZED), "not initialized") == 0);
    CHECK(strcmp(gvis_nvjpeg_status_name(99), "unknown status") == 0);
    gvis_nvjpeg_close(&lib);
    CHECK(lib.dl == NULL);

    /* the process-wide table follows GVIS_NVJPEG_LIBRARY and is loaded once */
    setenv("GVIS_NVJPEG_LIBRARY", "none", 1);
    CHECK(gvis_nvjpeg(why, sizeof why) == NULL);
    CHECKF(strstr(why, "=none") != NULL, "reason: %s", why);
    setenv("GVIS_NVJPEG_LIBRARY", whole, 1);
    CHECK(gvis_nvjpeg(NULL, 0) == NULL); /* cached: still the first answer */
    return t_done("nvjpeg_load");
}
