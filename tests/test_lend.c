/* Lent image buffers (gvis_image_lend, lib/core/image.c) and their use by the image batch
 * (lib/pipeline/images.c): the first allocation that fits takes the buffer, freeing it
 * hands it back, nothing is freed twice or leaked (ASan), the batch's decoders and
 * operations land in the slots' reused buffers, and the outputs equal the operation run
 * file by file whatever the sizes (growing and shrinking) and the thread counts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gauss.h"
#include "images.h"
#include "testlib.h"

static void rules(void)
{
    size_t size = 64 * 100;
    void *buf = aligned_alloc(64, size);
    gvis_image a, b, c;
    gvis_image_lend(buf, size);
    CHECK(!gvis_image_lent_taken());
    CHECK_OK(gvis_image_alloc(&a, 101, 1, 1, GVIS_U8, 0)); /* 101 bytes: fits */
    CHECK(a.data == buf);
    CHECK(gvis_image_lent_taken());
    CHECK_OK(gvis_image_alloc(&b, 10, 10, 1, GVIS_U8, 0)); /* taken: fresh memory */
    CHECK(b.data != buf);
    gvis_image_free(&a); /* back to the lender, not freed */
    CHECK(!gvis_image_lent_taken());
    CHECK_OK(gvis_image_alloc(&c, 80, 80, 1, GVIS_U8, 0)); /* 6400 bytes: exactly the size */
    CHECK(c.data == buf);
    gvis_image_free(&c);
    CHECK_OK(gvis_image_alloc(&c, 81, 80, 1, GVIS_U8, 0)); /* too large: fresh memory */
    CHECK(c.data != buf);
    gvis_image_free(&c);
    /* a rejected allocation takes nothing */
    CHECK(gvis_image_alloc(&c, 0, 5, 1, GVIS_U8, 0) != GVIS_OK);
    CHECK(!gvis_image_lent_taken());
    CHECK_OK(gvis_image_alloc(&c, 8, 8, 4, GVIS_F32, 64));
    CHECK(c.data == buf);
    gvis_image_lend(NULL, 0); /* lending ends: c keeps buf, the lender still owns it */
    CHECK(!gvis_image_lent_taken());
    CHECK_OK(gvis_image_alloc(&a, 4, 4, 1, GVIS_U8, 0));
    CHECK(a.data != buf);
    gvis_image_free(&a);
    gvis_image_free(&b);
    c.data = NULL; /* the lender's; gvis_image_free would now free() it */
    gvis_image_free(&c);
    free(buf);
}

#define N 40

static char dir[64];
static char *ins[N], *outs[N];
static gvis_image want[N];
static gvis_gauss_params params = {1.3, 0, 0, 0, GVIS_BORDER_REFLECT101, 0};
static int lent_dst; /* operations whose result landed in the slot's lent buffer */

static int op(gvis_ctx *ctx, const gvis_image *src, gvis_image *dst, void *arg)
{
    int rc = gvis_gauss(ctx, src, arg, dst);
    lent_dst += !rc && gvis_image_lent_taken(); /* one worker: no race */
    return rc;
}

struct res {
    int next, bad_order, ok, failed;
};

static int done(void *user, int i, int status, const char *msg, int device)
{
    struct res *r = user;
    (void)msg, (void)device;
    r->bad_order |= i != r->next++;
    if (status)
        r->failed++;
    else
        r->ok++;
    return 0;
}

static void batch(int readers, int writers, int inflight)
{
    struct res r = {0};
    gvis_ctx *ctx = t_cpu_ctx();
    gvis_image_stages st = {.op = op, .arg = &params};
    lent_dst = 0;
    for (int i = 0; i < N; i++)
        unlink(outs[i]);
    gvis_image_batch b = {.n = N, .inputs = ins, .outputs = outs, .workers = 1, .ctxs = &ctx, .stages = &st,
                          .readers = readers, .writers = writers, .inflight = inflight, .done = done, .user = &r};
    int rep = gvis_image_batch_run(&b);
    CHECKF(rep == N, "r%d w%d s%d: %d reported", readers, writers, inflight, rep);
    CHECK(!r.bad_order);
    CHECKF(r.ok == N - 1 && r.failed == 1, "r%d w%d s%d: %d done, %d failed", readers, writers, inflight, r.ok,
           r.failed);
    /* reuse: a slot's buffer grows only when a larger image than it has seen comes, so
     * most results land in it */
    CHECKF(lent_dst >= (inflight <= 5 ? N / 2 : N / 4), "r%d w%d s%d: %d of %d results in a lent buffer", readers, writers, inflight, lent_dst,
           N - 1);
    for (int i = 0; i < N; i++) {
        gvis_image got;
        int rc = gvis_load(ctx, outs[i], &got);
        if (i == 17) {
            CHECKF(rc != GVIS_OK, "the corrupt input has an output");
            continue;
        }
        CHECKF(rc == GVIS_OK, "output %d: %s", i, gvis_errmsg());
        if (!rc) {
            CHECKF(t_equal(&got, &want[i]), "r%d w%d s%d: output %d differs (max %g)", readers, writers, inflight, i,
                   t_maxdiff(&got, &want[i]));
            gvis_image_free(&got);
        }
    }
    gvis_ctx_free(ctx);
}

int main(void)
{
    rules();
    t_seed(31);
    snprintf(dir, sizeof dir, "/tmp/gvis-lend.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    gvis_ctx *cpu = t_cpu_ctx();
    for (int i = 0; i < N; i++) {
        gvis_image img;
        /* sizes that grow, shrink and jump: slots must grow their buffers and fall back */
        int w = i % 7 == 0 ? 1 + (int)(t_rand() % 3) : 1 + (int)(t_rand() % (40 + 20 * i));
        int h = 1 + (int)(t_rand() % (i % 5 == 0 ? 400 : 60));
        int c = i % 3 == 0 ? 1 : i % 3 == 1 ? 3 : 4;
        t_make(&img, w, h, c, i % 4 == 3 ? GVIS_U16 : GVIS_U8, i % 2, 0);
        char in[128], out[128];
        snprintf(in, sizeof in, "%s/in%02d.png", dir, i);
        snprintf(out, sizeof out, "%s/out%02d.png", dir, i);
        ins[i] = strdup(in);
        outs[i] = strdup(out);
        CHECK_OK(gvis_save(cpu, in, GVIS_FMT_NONE, &img));
        CHECK_OK(gvis_gauss(cpu, &img, &params, &want[i]));
        gvis_image_free(&img);
    }
    FILE *f = fopen(ins[17], "wb"); /* a corrupt file in the middle */
    if (f) {
        fputs("\x89PNG\r\n\x1a\nnot really", f);
        fclose(f);
    }
    gvis_ctx_free(cpu);
    batch(1, 1, 1);
    batch(2, 2, 3);
    batch(3, 2, 5);
    batch(4, 4, 9);
    for (int i = 0; i < N; i++) {
        unlink(ins[i]);
        unlink(outs[i]);
        free(ins[i]);
        free(outs[i]);
        gvis_image_free(&want[i]);
    }
    rmdir(dir);
    return t_done("test_lend");
}
