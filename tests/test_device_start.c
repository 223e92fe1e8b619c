/* The device start (lib/core/bgtask.c, used by ctx.c for the CUDA context): a slow
 * initialiser on a thread of its own overlaps the caller's work, its status comes back
 * at the join (again at a second join), in series it runs at once; and on a machine
 * without a usable GPU, contexts behave as they always did (auto: the CPU, said once;
 * cuda: an error that says why; cpu: not a word). */
#include <string.h>
#include <time.h>

#include "internal.h"
#include "testlib.h"

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

struct fake {
    int ms, status, ran;
};

static int slow_init(void *arg) /* a CUDA context start standing in: sleeps, then answers */
{
    struct fake *f = arg;
    sleep_ms(f->ms);
    f->ran = 1;
    return f->status;
}

static char logged[4096];
static int nlogged;
static void log_fn(void *user, int level, const char *msg)
{
    (void)user;
    nlogged++;
    size_t n = strlen(logged);
    snprintf(logged + n, sizeof logged - n, "%d:%s\n", level, msg);
}

int main(void)
{
    /* overlapped: 150 ms of start beside 150 ms of "decoding" take ~150, not ~300 */
    struct fake f = {150, 0, 0};
    gvis_bgtask t;
    double t0 = gvis_now_ms();
    gvis_bgtask_start(&t, slow_init, &f, 1);
    CHECK(t.threaded == 1);
    sleep_ms(150);
    CHECK(gvis_bgtask_join(&t) == 0);
    double total = gvis_now_ms() - t0;
    CHECK(f.ran == 1);
    CHECKF(total < 280, "overlapped start and work took %.1f ms", total);
    CHECKF(t.run_ms >= 140, "run_ms %.1f", t.run_ms);
    CHECKF(t.waited_ms < t.run_ms, "waited %.1f of %.1f ms", t.waited_ms, t.run_ms);
    CHECK(gvis_bgtask_join(&t) == 0); /* a second join: the same answer, no second pthread_join */

    /* joined at once: the caller waits for the whole start, and its status comes back */
    struct fake g = {80, 35, 0};
    gvis_bgtask_start(&t, slow_init, &g, 1);
    CHECK(gvis_bgtask_join(&t) == 35);
    CHECK(g.ran == 1);
    CHECKF(t.waited_ms >= 60, "waited %.1f ms", t.waited_ms);
    CHECK(gvis_bgtask_join(&t) == 35);

    /* in series (GVIS_CUDA_START=serial): done when start returns, all of it waited for */
    struct fake s = {60, 7, 0};
    t0 = gvis_now_ms();
    gvis_bgtask_start(&t, slow_init, &s, 0);
    CHECK(s.ran == 1);
    CHECK(t.threaded == 0);
    CHECK(gvis_now_ms() - t0 >= 55);
    CHECK(t.waited_ms == t.run_ms);
    CHECK(gvis_bgtask_join(&t) == 7);

    /* contexts: cpu never asks for a device; without a usable GPU auto runs on the CPU
     * (one info line) and cuda is a device error saying why */
    gvis_ctx *c = NULL;
    CHECK_OK(gvis_ctx_create(&c, "cpu", 1, NULL, log_fn, NULL));
    CHECK(c && !gvis_ctx_on_cuda(c) && strcmp(gvis_ctx_device_name(c), "cpu") == 0);
    CHECK(nlogged == 0);
    gvis_ctx_free(c);
    int count = 0;
    char why[256] = "";
    gvis_cuda_devices(&count, why, sizeof why);
    if (count == 0) {
        c = NULL;
        CHECK_OK(gvis_ctx_create(&c, "auto", 1, NULL, log_fn, NULL));
        CHECK(c && !gvis_ctx_on_cuda(c) && gvis_ctx_device_index(c) == -1);
        CHECK(c && strcmp(gvis_ctx_device_name(c), "cpu") == 0);
        CHECKF(nlogged == 1 && strstr(logged, "running on the CPU: ") && strstr(logged, why), "log: %s", logged);
        gvis_ctx_free(c);
        c = NULL;
        CHECK(gvis_ctx_create(&c, "cuda", 1, NULL, log_fn, NULL) == GVIS_E_DEVICE);
        CHECK(c == NULL);
        CHECKF(strstr(gvis_errmsg(), "no usable CUDA device: ") != NULL, "%s", gvis_errmsg());
        CHECK(gvis_ctx_create(&c, "cuda:0", 1, NULL, log_fn, NULL) == GVIS_E_DEVICE && c == NULL);
    } else {
        /* a GPU: the first context starts it on a thread; settled by the accessor */
        c = NULL;
        CHECK_OK(gvis_ctx_create(&c, "cuda", 1, NULL, log_fn, NULL));
        CHECK(c && gvis_ctx_on_cuda(c) && gvis_ctx_device_index(c) >= 0);
        CHECKF(strstr(logged, "context started") != NULL, "%s", logged);
        gvis_ctx_free(c);
        c = NULL; /* one made and never used: freed without a leak or a hang */
        CHECK_OK(gvis_ctx_create(&c, "auto", 1, NULL, log_fn, NULL));
        gvis_ctx_free(c);
    }
    return t_done("test_device_start");
}
