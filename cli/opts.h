/* Between the option parser (opts.c) and the context it configures (context.c). */
#ifndef GVIS_CLI_OPTS_H
#define GVIS_CLI_OPTS_H

#include "cli.h"

/* The arguments of the last cli_parse() (their I/O options go into each context); NULL before. */
const struct cli_args *cli_current_args(void);
/* --jpeg-codec's value (auto, cpu, nvjpeg) as OPT_CUSTOM; also reads GVIS_JPEG_CODEC. */
int cli_parse_jpeg_codec(const char *v, void *dst, char *err, size_t errlen);

#endif
