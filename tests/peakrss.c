/* peakrss LIMIT_MS LIMIT_KB CMD...: runs CMD (stdin, stdout and stderr inherited), then
 * checks that it ended within LIMIT_MS milliseconds and peaked under LIMIT_KB KiB of
 * resident memory.  Prints "peakrss: N ms, M KiB" on stderr.  Exit: 0 within both limits,
 * 3 over one of them, 4 when it cannot run CMD.  The command's own status is not judged:
 * the CLI test that calls this checks that separately. */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: peakrss LIMIT_MS LIMIT_KB CMD...\n");
        return 4;
    }
    long limit_ms = atol(argv[1]), limit_kb = atol(argv[2]);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0)
        return 4;
    if (pid == 0) {
        /* a runaway child is stopped at ten times the limit, so the test cannot hang */
        alarm((unsigned)(limit_ms * 10 / 1000 + 1));
        execvp(argv[3], argv + 3);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) < 0)
        return 4;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    fprintf(stderr, "peakrss: %ld ms, %ld KiB%s\n", ms, ru.ru_maxrss,
            WIFSIGNALED(st) ? " (killed by a signal)" : "");
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return 4;
    return ms <= limit_ms && ru.ru_maxrss <= limit_kb && !WIFSIGNALED(st) ? 0 : 3;
}
