/* Progress of a batch on stderr (done/total, images/s, ETA, one line rewritten with \r)
 * and the count that an interrupt reports ("interrupted: N of M files done"). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Read by the signal handler: plain ints written by the main thread only. */
static volatile sig_atomic_t p_done, p_total, p_shown;
static int p_written; /* atomic: outputs put in place, from any thread */
static int p_on;
static double p_t0, p_last;

void cli_progress_begin(int total)
{
    p_done = 0;
    __atomic_store_n(&p_written, 0, __ATOMIC_SEQ_CST);
    p_total = total;
    p_shown = 0;
    p_t0 = p_last = gvis_now_ms();
    int want = g_opts.progress;
    if (want < 0) /* auto: a terminal, a batch, not -q */
        want = isatty(STDERR_FILENO) && !g_opts.quiet;
    p_on = want && total > 1;
}

static void draw(void)
{
    double now = gvis_now_ms(), secs = (now - p_t0) / 1000.0;
    double rate = secs > 0 ? p_done / secs : 0;
    char eta[32] = "--:--";
    if (rate > 0) {
        long left = (long)((p_total - p_done) / rate + 0.5);
        if (left >= 3600)
            snprintf(eta, sizeof eta, "%ld:%02ld:%02ld", left / 3600, left / 60 % 60, left % 60);
        else
            snprintf(eta, sizeof eta, "%ld:%02ld", left / 60, left % 60);
    }
    fprintf(stderr, "\rgvis %s: %d/%d files, %.1f images/s, ETA %s\033[K", g_cmd ? g_cmd : "", (int)p_done,
            (int)p_total, rate, eta);
    fflush(stderr);
    p_shown = 1;
    p_last = now;
}

void cli_progress_clear(void)
{
    if (p_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p_shown = 0;
    }
}

void cli_progress_written(void) { __atomic_add_fetch(&p_written, 1, __ATOMIC_SEQ_CST); }

void cli_progress_step(void)
{
    p_done = p_done + 1;
    if (!p_on)
        return;
    if (p_done >= p_total) {
        cli_progress_clear();
        return;
    }
    /* the first file at once, then at most ten times a second */
    if (p_done == 1 || gvis_now_ms() - p_last >= 100)
        draw();
}

void cli_progress_end(void)
{
    cli_progress_clear();
    p_on = 0;
    p_total = 0;
}

static size_t put_int(char *s, long v)
{
    char t[24];
    size_t n = 0, k = 0;
    do
        t[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 && n < sizeof t);
    while (n)
        s[k++] = t[--n];
    return k;
}

/* From the signal handler: async-signal-safe (write(2) only). */
void cli_progress_interrupted(void)
{
    if (p_total < 2)
        return;
    char line[256];
    size_t n = 0;
    const char *cmd = g_cmd ? g_cmd : "";
    if (p_shown) {
        memcpy(line, "\r\033[K", 4);
        n = 4;
    }
    memcpy(line + n, "gvis ", 5);
    n += 5;
    size_t cl = strlen(cmd);
    if (cl > 64)
        cl = 64;
    memcpy(line + n, cmd, cl);
    n += cl;
    memcpy(line + n, ": interrupted: ", 15);
    n += 15;
    n += put_int(line + n, __atomic_load_n(&p_written, __ATOMIC_SEQ_CST));
    memcpy(line + n, " of ", 4);
    n += 4;
    n += put_int(line + n, p_total);
    memcpy(line + n, " files done\n", 12);
    n += 12;
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w;
}
