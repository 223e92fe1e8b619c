/* The staged image batch (lib/pipeline/images.c) on the GPU: device workers on "cuda:0,0"
 * (one GPU twice: two contexts and streams), pinned upload slots, results equal to the
 * CPU's gauss bit for bit (u8 and u16: exact), reported in order; a worker whose device
 * faults (GVIS_TEST_FAIL_DEVICE) has its files retried on the other entry, and with
 * one entry every file fails with a message, none lost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gauss.h"
#include "images.h"
#include "pipeline.h"
#include "testlib.h"

#define N 23

static char dir[64];
static char *ins[N], *outs[N];
static gvis_image want[N];
static gvis_gauss_params params = {1.7, 0, 0, 0, GVIS_BORDER_REFLECT101, 0};

struct res {
    const char *device;
    int next, bad_order, ok, failed, on_gpu;
    char msg[256];
};

static int op(gvis_ctx *ctx, const gvis_image *src, gvis_image *dst, void *arg)
{
    return gvis_gauss(ctx, src, arg, dst);
}

static gvis_ctx *make(void *user, int entry)
{
    struct res *r = user;
    gvis_ctx *c = NULL;
    return gvis_ctx_create_on(&c, r->device, entry, 1, NULL, NULL, NULL) ? NULL : c;
}

static int done(void *user, int i, int status, const char *msg, int device)
{
    struct res *r = user;
    r->bad_order |= i != r->next++;
    if (status) {
        r->failed++;
        snprintf(r->msg, sizeof r->msg, "%s", msg);
    } else {
        r->ok++;
        r->on_gpu += device >= 0;
    }
    return 0;
}

static void run(const char *device, int workers, int readers, int writers, int inflight, int want_ok)
{
    struct res r = {.device = device};
    gvis_ctx *ctxs[4] = {0};
    for (int w = 0; w < workers; w++)
        CHECK_OK(gvis_ctx_create_on(&ctxs[w], device, w, 1, NULL, NULL, NULL));
    int idx[8], entries = 0;
    CHECK_OK(gvis_device_list(device, idx, 8, &entries));
    gvis_image_stages st[4];
    for (int w = 0; w < workers; w++)
        st[w] = (gvis_image_stages){.op = op, .arg = &params};
    for (int i = 0; i < N; i++)
        unlink(outs[i]);
    gvis_image_batch b = {.n = N, .inputs = ins, .outputs = outs, .workers = workers, .ctxs = ctxs, .stages = st,
                          .readers = readers, .writers = writers, .inflight = inflight, .entries = entries,
                          .make_ctx = make, .done = done, .user = &r};
    int rep = gvis_image_batch_run(&b);
    CHECKF(rep == N, "%s: %d reported", device, rep);
    CHECKF(!r.bad_order, "%s: out of order", device);
    CHECKF(r.ok == want_ok, "%s: %d done, want %d (%s)", device, r.ok, want_ok, r.msg);
    CHECKF(r.on_gpu == r.ok, "%s: %d of %d on the GPU", device, r.on_gpu, r.ok);
    if (want_ok < N)
        CHECKF(strstr(r.msg, "injected device fault") != NULL, "%s: message '%s'", device, r.msg);
    gvis_ctx *cpu = t_cpu_ctx();
    for (int i = 0; i < N; i++) {
        gvis_image got;
        int rc = gvis_load(cpu, outs[i], &got);
        if (want_ok < N) {
            CHECKF(rc != GVIS_OK, "%s: a failed file has an output", device);
            continue;
        }
        CHECKF(rc == GVIS_OK, "%s: output %d: %s", device, i, gvis_errmsg());
        if (!rc) {
            CHECKF(t_equal(&got, &want[i]), "%s: output %d differs from the CPU (max %g)", device, i,
                   t_maxdiff(&got, &want[i]));
            gvis_image_free(&got);
        }
    }
    gvis_ctx_free(cpu);
    for (int w = 0; w < workers; w++)
        gvis_ctx_free(ctxs[w]);
}

int main(void)
{
    gvis_ctx *gpu = t_cuda_ctx_or_skip();
    gvis_ctx_free(gpu);
    t_seed(15);
    snprintf(dir, sizeof dir, "/tmp/gvis-cuda-batch.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    gvis_ctx *cpu = t_cpu_ctx();
    for (int i = 0; i < N; i++) {
        gvis_image img;
        int w = 1 + (int)(t_rand() % 700), h = 1 + (int)(t_rand() % 300), c = i % 3 == 0 ? 1 : i % 3 == 1 ? 3 : 4;
        t_make(&img, w, h, c, i % 4 == 3 ? GVIS_U16 : GVIS_U8, i % 2, i % 5 ? 0 : 64);
        ins[i] = malloc(128);
        outs[i] = malloc(128);
        snprintf(ins[i], 128, "%s/in%02d.png", dir, i);
        snprintf(outs[i], 128, "%s/out%02d.png", dir, i);
        CHECK_OK(gvis_save(cpu, ins[i], GVIS_FMT_NONE, &img));
        gvis_image_alloc(&want[i], w, h, c, img.type, 0);
        CHECK_OK(gvis_gauss_cpu(&img, &params, &want[i]));
        gvis_image_free(&img);
    }
    gvis_ctx_free(cpu);
    run("cuda:0,0", 2, 2, 2, 5, N);  /* one GPU twice */
    run("cuda:all", 3, 1, 3, 2, N);  /* round robin over every GPU, few slots */
    run("cuda:0", 1, 3, 1, 1, N);    /* one slot: strictly one image at a time */
    setenv("GVIS_TEST_FAIL_DEVICE", "1:3", 1);
    run("cuda:0,0", 2, 2, 2, 6, N);  /* entry 1 faults after 3 files: retried on entry 0 */
    setenv("GVIS_TEST_FAIL_DEVICE", "0", 1);
    run("cuda:0,0", 2, 2, 2, 6, N);  /* entry 0 faults at once */
    run("cuda:0", 2, 2, 2, 6, 0);    /* no other entry: every file fails with a message */
    unsetenv("GVIS_TEST_FAIL_DEVICE");
    for (int i = 0; i < N; i++) {
        unlink(ins[i]);
        unlink(outs[i]);
        free(ins[i]);
        free(outs[i]);
        gvis_image_free(&want[i]);
    }
    rmdir(dir);
    return t_done("test_cuda_batch");
}
