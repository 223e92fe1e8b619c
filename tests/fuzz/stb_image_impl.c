/* stb_image and stb_image_write compiled into the fuzz build, with the fuzzer's coverage
 * and the sanitizers, in place of the uninstrumented copies in Debian's libstb: libFuzzer
 * then sees which branches of each decoder an input reaches, ASan checks every access the
 * coders make, and MemorySanitizer (-Db_sanitize=memory) does not take the bytes stb
 * writes for uninitialised.  Only -Dfuzz=true builds use it; gvis itself links libstb
 * (DESIGN.md 7). */
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
