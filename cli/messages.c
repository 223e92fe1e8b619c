/* Messages on stderr ("gvis SUB: message"), exit statuses, and standard output's state. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

#include "cli.h"

/* strerror() in the lower case of gvis messages. */
static const char *lower_strerror(int e)
{
    static char t[128];
    snprintf(t, sizeof t, "%s", strerror(e));
    if (t[0] >= 'A' && t[0] <= 'Z' && (t[1] < 'A' || t[1] > 'Z'))
        t[0] = (char)(t[0] - 'A' + 'a');
    return t;
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
    fflush(stdout);
    cli_progress_clear(); /* redrawn with the next file */
    fprintf(stderr, "gvis%s%s: %s", g_cmd ? " " : "", g_cmd ? g_cmd : "", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    if (g_opts.quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning: ", fmt, ap);
    va_end(ap);
}

void cli_info(const char *fmt, ...)
{
    if (!g_opts.verbose || g_opts.quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'gvis %s%s--help' for more information.\n", g_cmd ? g_cmd : "", g_cmd ? " " : "");
    return EXIT_USAGE;
}

int cli_exit_status(int status)
{
    return status == GVIS_OK ? EXIT_OK : status == GVIS_E_ARG ? EXIT_USAGE : EXIT_RUNTIME;
}

int cli_stdout_closed(void)
{
    /* poll() reports POLLERR on the write end of a pipe with no reader left (and
     * POLLHUP on a socket whose peer has gone); a file or terminal is writable. */
    struct pollfd p = {STDOUT_FILENO, POLLOUT, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int cli_finish_stdout(int rc)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int e = errno;
    bad |= ferror(stdout) != 0;
    if (!bad)
        return rc;
    if (e != EPIPE && !cli_stdout_closed())
        cli_error("cannot write to standard output%s%s", e ? ": " : "", e ? lower_strerror(e) : "");
    return rc == EXIT_OK ? EXIT_RUNTIME : rc;
}
