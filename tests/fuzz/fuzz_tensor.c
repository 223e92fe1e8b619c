/* Fuzz target for the tensor readers of `gvis yolo-decode`: NPY (float32 / float16 /
 * float64, any shape) and raw float32 with --shape NxK, through the whole command
 * (layout resolution, NaN/inf checks, decoding, NMS, output) run in-process.
 * Input: byte 0 picks the mode (bit 0 raw, bits 1-2 the layout, bit 3 --conf 0 so every
 * box reaches NMS, bit 4 class-agnostic NMS), bytes 1-4 the raw shape N and K (16 bits
 * each, little-endian), the rest is the file. */
#include "fuzz_cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_cli_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    unsigned mode = data[0];
    unsigned n = data[1] | data[2] << 8, k = data[3] | data[4] << 8;
    const char *path = fuzz_file(data + 5, size - 5);
    char shape[32];
    char *argv[16];
    int argc = 0;
    argv[argc++] = "gvis";
    argv[argc++] = "yolo-decode";
    argv[argc++] = "--cpu";
    static const char *layouts[4] = {"auto", "v5", "v8", "auto"};
    argv[argc++] = "--layout";
    argv[argc++] = (char *)layouts[(mode >> 1) & 3];
    if (mode & 1) {
        snprintf(shape, sizeof shape, "%ux%u", n, k);
        argv[argc++] = "--shape";
        argv[argc++] = shape;
    }
    if (mode & 8) {
        argv[argc++] = "--conf";
        argv[argc++] = "0";
    }
    if (mode & 16)
        argv[argc++] = "--agnostic";
    argv[argc++] = (char *)path;
    argv[argc++] = "-o";
    argv[argc++] = "/dev/null";
    argv[argc] = NULL;
    char *err = NULL;
    int rc = fuzz_cli_run(argc, argv, &err);
    /* a run-time failure names the file (a usage error, say --shape 0x6, need not) */
    if (rc == 1)
        FUZZ_ASSERT(strstr(err, path) != NULL, "a failure that does not name the file: %.300s", err);
    free(err);
    return 0;
}
