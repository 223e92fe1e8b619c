/* Stopping the batch's threads from a signal handler (pipeline.h: gvis_pipeline_freeze).
 *
 * Why: an interrupted batch removes its temporary output files in the main thread's
 * handler (cli/main.c) and then ends the process.  Writer threads run on meanwhile: one
 * that makes its temporary file after the handler's removal pass left it behind (the
 * name is registered before the file is created, but the removal of a name not yet
 * created removes nothing).  So the handler first parks every pipeline thread in a
 * signal handler of its own and waits until each is parked or gone; a thread stopped
 * anywhere in a write has either not created its temporary (and never will) or has it
 * registered, so one removal pass then finds every temporary that will ever exist.
 *
 * Each pipeline thread takes a slot in a fixed table when it starts and leaves it when it
 * ends; a thread that starts while a freeze is under way parks itself. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipeline.h"

#define FREEZE_SIGNAL SIGUSR2
#define MAX_THREADS 1024

enum { FREE, CLAIMED, RUNNING, PARKED };

static pthread_t tids[MAX_THREADS];
static int state[MAX_THREADS];
static int freezing;
static _Thread_local int my_slot = -1;

static void park(void)
{
    if (my_slot >= 0)
        __atomic_store_n(&state[my_slot], PARKED, __ATOMIC_SEQ_CST);
    for (;;)
        pause(); /* until the process ends */
}

static void on_freeze(int sig)
{
    (void)sig;
    if (!__atomic_load_n(&freezing, __ATOMIC_SEQ_CST))
        return; /* a SIGUSR2 from outside: ignored */
    int saved = errno;
    park();
    errno = saved;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_freeze;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(FREEZE_SIGNAL, &sa, NULL);
}

void gvis_pipe_install_freeze(void) { pthread_once(&once, install); }

void gvis_pipe_thread_enter(void)
{
    for (int i = 0; i < MAX_THREADS; i++) {
        int expect = FREE;
        if (__atomic_compare_exchange_n(&state[i], &expect, CLAIMED, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            tids[i] = pthread_self();
            my_slot = i;
            __atomic_store_n(&state[i], RUNNING, __ATOMIC_SEQ_CST);
            /* a freeze that began before the slot was RUNNING may not have signalled it */
            if (__atomic_load_n(&freezing, __ATOMIC_SEQ_CST))
                park();
            return;
        }
    }
    /* the table is full: this thread is not stopped by a freeze (not expected: it holds
     * far more threads than --jobs gives) */
}

void gvis_pipe_thread_leave(void)
{
    int i = my_slot;
    if (i < 0)
        return;
    my_slot = -1;
    __atomic_store_n(&state[i], FREE, __ATOMIC_SEQ_CST);
}

void gvis_pipeline_freeze(void)
{
    if (__atomic_exchange_n(&freezing, 1, __ATOMIC_SEQ_CST))
        return; /* a second signal: the first handler does it */
    for (int i = 0; i < MAX_THREADS; i++)
        if (i != my_slot && __atomic_load_n(&state[i], __ATOMIC_SEQ_CST) == RUNNING)
            pthread_kill(tids[i], FREEZE_SIGNAL);
    /* wait until none is running (or about to): parked, gone, or never there; at most
     * about 2 s, so that a thread stuck in a system call cannot hold the exit for ever */
    struct timespec ms = {0, 1000000};
    for (int round = 0; round < 2000; round++) {
        int busy = 0;
        for (int i = 0; i < MAX_THREADS && !busy; i++) {
            int s = __atomic_load_n(&state[i], __ATOMIC_SEQ_CST);
            busy = i != my_slot && (s == RUNNING || s == CLAIMED);
        }
        if (!busy)
            return;
        nanosleep(&ms, NULL);
    }
}
