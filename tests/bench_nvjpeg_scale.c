/* Does nvJPEG scale over threads and GPUs of one process?  (issue 20, docs/notes-nvjpeg.md)
 *   bench_nvjpeg_scale [-d LIST] [-b BATCH] [-n IMAGES] [-m dec|enc|both] FILE.jpg...
 * One thread per entry of LIST (device indices, default 0; "0,0" is two threads on GPU 0,
 * "0,1" one on each of two GPUs).  Each thread makes its own stream and hardware decoder
 * (the time it took, and when it began and ended from the common start, show whether
 * handles are made in series), decodes one batch to warm up, waits for the others, then
 * decodes IMAGES images (default 600) in batches of BATCH (default 32) cycling over the
 * photos the engines take (-m dec), GPU-encodes IMAGES images at quality 95 4:2:0 one
 * at a time (-m enc), or decodes a batch and encodes each of its images (-m both, what the
 * batch pipeline does).  Prints each thread's images/s and the sum over the slowest
 * thread's time.  Run two processes at once (CUDA_VISIBLE_DEVICES) for the other half of
 * the comparison.  Exit 0, 77 without a GPU or nvJPEG, 1 on a failure. */
#include <pthread.h>
#include <string.h>

#include "testlib.h"

#ifndef GVIS_HAVE_CUDA
int main(void)
{
    printf("skipped: built without CUDA\n");
    return 77;
}
#else
#include "gvis_cuda.h"
#include "nvjpeg_codec.h"

static double now(void) { return gvis_now_ms() / 1e3; }

enum { MODE_DEC, MODE_ENC, MODE_BOTH };

static struct {
    const gvis_nvjpeg_lib *lib;
    gvis_buf *files;
    int nfiles, batch, images, mode;
    double t0;
    pthread_barrier_t start;
} G;

typedef struct {
    int device, failed;
    double make_begin, make_end, run_s, mp;
    char why[300];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    gvis_cu_job *job = NULL;
    gvis_nvjpeg_dec *dec = NULL;
    gvis_nvjpeg_enc *enc = NULL;
    int B = G.batch, *idx = calloc(G.nfiles, sizeof *idx), nhw = 0;
    gvis_jpeg_info *info = calloc(G.nfiles, sizeof *info);
    const uint8_t **data = calloc(B, sizeof *data);
    size_t *len = calloc(B, sizeof *len), *pitch = calloc(B, sizeof *pitch), maxbytes = 0;
    unsigned char **dst = calloc(B, sizeof *dst);
    int *status = calloc(B, sizeof *status);
    void *base = NULL;
    w->make_begin = now() - G.t0;
    if (gvis_cu_job_create(w->device, &job)) {
        snprintf(w->why, sizeof w->why, "no CUDA stream on cuda:%d", w->device);
        goto fail;
    }
    gvis_cu_job_bind(job);
    if (gvis_nvjpeg_dec_create(G.lib, B, gvis_cu_job_stream(job), &dec, w->why, sizeof w->why))
        goto fail;
    if (G.mode != MODE_DEC && gvis_nvjpeg_enc_create(G.lib, gvis_cu_job_stream(job), &enc, w->why, sizeof w->why))
        goto fail;
    w->make_end = now() - G.t0;
    for (int i = 0; i < G.nfiles; i++)
        if (gvis_nvjpeg_dec_supported(dec, G.files[i].data, G.files[i].len, &info[i])) {
            idx[nhw++] = i;
            size_t b = ((size_t)info[i].width * 3 + 255) / 256 * 256 * info[i].height;
            maxbytes = b > maxbytes ? b : maxbytes;
        }
    if (!nhw) {
        snprintf(w->why, sizeof w->why, "the engines take none of the files");
        goto fail;
    }
    if (gvis_cu_buffer(job, 3, maxbytes * B, &base)) {
        snprintf(w->why, sizeof w->why, "no device memory for a batch of %d", B);
        goto fail;
    }
    for (int pass = 0; pass < 2; pass++) { /* pass 0: one batch, to warm up */
        int total = pass ? G.images : B, k0 = w->device * 7;
        if (pass) {
            pthread_barrier_wait(&G.start);
            w->run_s = now();
        }
        for (int k = 0; k < total; k += B) {
            int n = total - k < B ? total - k : B, kk = G.mode == MODE_ENC ? 0 : k; /* enc: batch 0 again */
            for (int i = 0; i < n; i++) {
                int f = idx[(k0 + kk + i) % nhw];
                data[i] = G.files[f].data, len[i] = G.files[f].len;
                dst[i] = (unsigned char *)base + (size_t)i * maxbytes;
                pitch[i] = ((size_t)info[f].width * 3 + 255) / 256 * 256;
                if (pass)
                    w->mp += (double)info[f].width * info[f].height / 1e6;
            }
            if (G.mode != MODE_ENC || !pass || k == 0) {
                if (gvis_nvjpeg_dec_batch(dec, n, data, len, dst, pitch, status) || gvis_cu_sync(job)) {
                    snprintf(w->why, sizeof w->why, "decode: %s", gvis_nvjpeg_dec_error(dec));
                    goto fail;
                }
                for (int i = 0; i < n; i++)
                    if (status[i] != GVIS_NVJPEG_DECODED) {
                        snprintf(w->why, sizeof w->why, "the engines failed on a file");
                        goto fail;
                    }
            }
            if (G.mode == MODE_DEC)
                continue;
            for (int i = 0; i < n; i++) {
                int f = idx[(k0 + kk + i) % nhw];
                unsigned char *out;
                size_t olen;
                if (gvis_nvjpeg_enc_rgb(enc, dst[i], pitch[i], info[f].width, info[f].height, 95, GVIS_NVJ_CSS_420,
                                        &out, &olen)) {
                    snprintf(w->why, sizeof w->why, "encode: %s", gvis_nvjpeg_enc_error(enc));
                    goto fail;
                }
                free(out);
            }
        }
    }
    w->run_s = now() - w->run_s;
    goto done;
fail:
    w->failed = 1;
    if (!w->run_s) /* never reached the barrier: do not leave the others waiting */
        pthread_barrier_wait(&G.start);
done:
    gvis_nvjpeg_enc_destroy(enc);
    gvis_nvjpeg_dec_destroy(dec);
    gvis_cu_job_destroy(job);
    free(idx), free(info), free(data), free(len), free(pitch), free(dst), free(status);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *list = "0", *mode = "dec";
    G.batch = 32, G.images = 600;
    int a = 1;
    for (; a + 1 < argc && argv[a][0] == '-' && argv[a][1] && !argv[a][2]; a += 2) {
        switch (argv[a][1]) {
        case 'd': list = argv[a + 1]; break;
        case 'b': G.batch = atoi(argv[a + 1]); break;
        case 'n': G.images = atoi(argv[a + 1]); break;
        case 'm': mode = argv[a + 1]; break;
        default: a = argc; break;
        }
    }
    G.mode = !strcmp(mode, "enc") ? MODE_ENC : !strcmp(mode, "both") ? MODE_BOTH : MODE_DEC;
    if (a >= argc || G.batch < 1 || G.batch > 128 || G.images < 1 ||
        (strcmp(mode, "dec") && strcmp(mode, "enc") && strcmp(mode, "both"))) {
        fprintf(stderr, "usage: bench_nvjpeg_scale [-d LIST] [-b 1..128] [-n IMAGES] [-m dec|enc|both] FILE.jpg...\n");
        return 2;
    }
    gvis_ctx *ctx = t_cuda_ctx_or_skip();
    char why[600];
    if (!(G.lib = gvis_nvjpeg(why, sizeof why))) {
        printf("skipped: %s\n", why);
        return 77;
    }
    int nw = 1;
    for (const char *p = list; *p; p++)
        nw += *p == ',';
    worker *w = calloc(nw, sizeof *w);
    pthread_t *th = calloc(nw, sizeof *th);
    const char *p = list;
    for (int i = 0; i < nw; i++) {
        w[i].device = atoi(p);
        p = strchr(p, ',');
        p = p ? p + 1 : "";
    }
    G.nfiles = argc - a;
    G.files = calloc(G.nfiles, sizeof *G.files);
    for (int i = 0; i < G.nfiles; i++)
        if (gvis_read_file(argv[a + i], &G.files[i], 0) != GVIS_OK) {
            fprintf(stderr, "cannot read %s\n", argv[a + i]);
            return 1;
        }
    pthread_barrier_init(&G.start, NULL, (unsigned)nw);
    G.t0 = now();
    for (int i = 0; i < nw; i++)
        pthread_create(&th[i], NULL, work, &w[i]);
    double slowest = 0, mp = 0;
    int failed = 0;
    for (int i = 0; i < nw; i++) {
        pthread_join(th[i], NULL);
        if (w[i].failed) {
            fprintf(stderr, "thread %d (cuda:%d): %s\n", i, w[i].device, w[i].why);
            failed = 1;
            continue;
        }
        printf("thread %d cuda:%d: made in %.0f ms (%.0f..%.0f), %d images in %.3f s = %.1f images/s, %.0f MP/s\n", i,
               w[i].device, 1e3 * (w[i].make_end - w[i].make_begin), 1e3 * w[i].make_begin, 1e3 * w[i].make_end,
               G.images, w[i].run_s, G.images / w[i].run_s, w[i].mp / w[i].run_s);
        slowest = w[i].run_s > slowest ? w[i].run_s : slowest;
        mp += w[i].mp;
    }
    if (!failed)
        printf("%s -d %s -b %d: %d threads, %d images in %.3f s = %.1f images/s, %.0f MP/s\n", mode, list, G.batch, nw,
               nw * G.images, slowest, nw * G.images / slowest, mp / slowest);
    for (int i = 0; i < G.nfiles; i++)
        gvis_buf_free(&G.files[i]);
    free(G.files), free(w), free(th);
    gvis_ctx_free(ctx);
    return failed;
}
#endif
