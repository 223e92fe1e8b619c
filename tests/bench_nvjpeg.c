/* nvJPEG on real photos: which files the hardware decoder takes, how far its pixels are
 * from libjpeg-turbo's (after EXIF orientation on the device), images/s of batched
 * hardware decode (batch 32 and 128) and of GPU encode (the CPU path's quality 95, 4:2:0,
 * and quality 90 as in issue 17's table), and libjpeg-turbo on one core for scale.
 *   bench_nvjpeg [-r ROUNDS] FILE.jpg...
 * Every file is decoded ROUNDS times (default 20) in each timed run.  Exit 0 when all
 * went well and every accepted photo is within the bound of nvjpeg_codec.h; 77 without
 * a GPU or nvJPEG; 1 otherwise. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "testlib.h"

#ifndef GVIS_HAVE_CUDA
int main(void)
{
    printf("skipped: built without CUDA\n");
    return 77;
}
#else
#include "gvis_cuda.h"
#include "jpeg_orient.h"
#include "nvjpeg_codec.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
    const char *name;
    gvis_buf data;
    gvis_jpeg_info info;
    int hw;
} photo;

static int failures;
#define FAIL(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), failures++)

/* Timed batched decode of the accepted photos, rounds times each, batch at a time. */
static void bench_decode(gvis_nvjpeg_dec *dec, gvis_cu_job *job, photo **hw, int nhw, int rounds, int batch,
                         size_t maxbytes)
{
    void *base;
    if (gvis_cu_buffer(job, 3, maxbytes * batch, &base)) {
        FAIL("no device memory for a batch of %d", batch);
        return;
    }
    const uint8_t **data = calloc(batch, sizeof *data);
    size_t *len = calloc(batch, sizeof *len), *pitch = calloc(batch, sizeof *pitch);
    unsigned char **dst = calloc(batch, sizeof *dst);
    int *status = calloc(batch, sizeof *status);
    for (int pass = 0; pass < 2; pass++) { /* pass 0 warms up: one batch */
        int total = pass ? nhw * rounds : batch;
        double t0 = now(), px = 0;
        int bad = 0;
        for (int k = 0; k < total; k += batch) {
            int n = total - k < batch ? total - k : batch;
            for (int i = 0; i < n; i++) {
                photo *p = hw[(k + i) % nhw];
                data[i] = p->data.data, len[i] = p->data.len;
                dst[i] = (unsigned char *)base + (size_t)i * maxbytes;
                pitch[i] = (size_t)p->info.width * 3;
                px += (double)p->info.width * p->info.height;
            }
            if (gvis_nvjpeg_dec_batch(dec, n, data, len, dst, pitch, status)) {
                FAIL("batch: %s", gvis_nvjpeg_dec_error(dec));
                break;
            }
            for (int i = 0; i < n; i++)
                bad += status[i] != GVIS_NVJPEG_DECODED;
        }
        gvis_cu_sync(job);
        double t = now() - t0;
        if (bad)
            FAIL("%d images failed in batches of %d", bad, batch);
        if (pass)
            printf("hardware decode, batch %3d: %d images in %.3f s = %.1f images/s, %.0f MP/s\n", batch, total, t,
                   total / t, px / t / 1e6);
    }
    free(data), free(len), free(pitch), free(dst), free(status);
}

static void bench_encode(gvis_nvjpeg_enc *enc, gvis_cu_job *job, photo **hw, int nhw, int rounds, int quality,
                         size_t maxbytes, void *d_images)
{
    int total = nhw * rounds;
    double t0 = now(), bytes = 0, px = 0;
    for (int k = -1; k < total; k++) { /* k = -1: warm-up */
        photo *p = hw[(k < 0 ? 0 : k) % nhw];
        unsigned char *out;
        size_t n;
        const unsigned char *src = (const unsigned char *)d_images + (size_t)((k < 0 ? 0 : k) % nhw) * maxbytes;
        if (gvis_nvjpeg_enc_rgb(enc, src, (size_t)p->info.width * 3, p->info.width, p->info.height, quality,
                                GVIS_NVJ_CSS_420, &out, &n)) {
            FAIL("encode %s: %s", p->name, gvis_nvjpeg_enc_error(enc));
            return;
        }
        free(out);
        if (k < 0) {
            t0 = now();
            continue;
        }
        bytes += n, px += (double)p->info.width * p->info.height;
    }
    double t = now() - t0;
    printf("GPU encode q%d 4:2:0 (one stream, synchronized each): %d images in %.3f s = %.1f images/s, %.0f MP/s, "
           "mean %.0f KB\n", quality, total, t, total / t, px / t / 1e6, bytes / total / 1024);
    (void)job;
}

int main(int argc, char **argv)
{
    int rounds = 20, first = 1;
    if (argc > 2 && strcmp(argv[1], "-r") == 0)
        rounds = atoi(argv[2]), first = 3;
    if (first >= argc || rounds < 1) {
        fprintf(stderr, "usage: bench_nvjpeg [-r ROUNDS] FILE.jpg...\n");
        return 2;
    }
    gvis_ctx *ctx = t_cuda_ctx_or_skip();
    char why[600];
    const gvis_nvjpeg_lib *lib = gvis_nvjpeg(why, sizeof why);
    if (!lib) {
        printf("skipped: %s\n", why);
        return 77;
    }
    gvis_cu_job *job;
    if (gvis_cu_job_create(0, &job)) {
        fprintf(stderr, "no CUDA job\n");
        return 1;
    }
    gvis_nvjpeg_dec *dec;
    if (gvis_nvjpeg_dec_create(lib, 128, gvis_cu_job_stream(job), &dec, why, sizeof why)) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    unsigned engines, cores;
    gvis_nvjpeg_dec_engines(dec, &engines, &cores);
    printf("nvJPEG %d.%d.%d (%s): %u hardware engines, %u cores each\n", lib->major, lib->minor, lib->patch,
           lib->path, engines, cores);

    int n = argc - first, nhw = 0;
    photo *ph = calloc(n, sizeof *ph);
    photo **hw = calloc(n, sizeof *hw);
    size_t maxbytes = 0;
    double mp = 0, cpu_time = 0;
    for (int i = 0; i < n; i++) {
        photo *p = &ph[i];
        p->name = argv[first + i];
        if (gvis_read_file(p->name, &p->data, 0) != GVIS_OK) {
            FAIL("cannot read %s", p->name);
            continue;
        }
        p->hw = gvis_nvjpeg_dec_supported(dec, p->data.data, p->data.len, &p->info);
        if (!p->hw) {
            printf("CPU: %s (%s, %d components, sampling %d)\n", p->name,
                   p->info.progressive ? "progressive" : p->info.sof ? "not for the engines" : "not a JPEG",
                   p->info.components, gvis_jpeg_css(&p->info));
            continue;
        }
        hw[nhw++] = p;
        size_t b = (size_t)p->info.width * p->info.height * 3;
        if (b > maxbytes)
            maxbytes = b;
        mp += p->info.width * (double)p->info.height / 1e6;
    }
    printf("%d files, hardware accepts %d (mean %.2f MP)\n", n, nhw, nhw ? mp / nhw : 0);
    if (!nhw) {
        printf("nothing to measure\n");
        return 1;
    }
    maxbytes = (maxbytes + 255) & ~(size_t)255;

    /* accuracy: each accepted photo decoded on the device, turned upright there, against
     * libjpeg-turbo (which turns it upright on the CPU); libjpeg-turbo timed on the way */
    void *d_all, *d_up;
    if (gvis_cu_buffer(job, 4, maxbytes * nhw, &d_all) || gvis_cu_buffer(job, 5, maxbytes, &d_up)) {
        fprintf(stderr, "no device memory for %d photos\n", nhw);
        return 1;
    }
    double worst = 99;
    int worstd = 0;
    const char *worstname = "";
    for (int i = 0; i < nhw; i++) {
        photo *p = hw[i];
        unsigned char *dst = (unsigned char *)d_all + (size_t)i * maxbytes;
        size_t pitch = (size_t)p->info.width * 3;
        const uint8_t *data = p->data.data;
        int status;
        if (gvis_nvjpeg_dec_batch(dec, 1, &data, &p->data.len, &dst, &pitch, &status) || status) {
            FAIL("%s: the hardware decoder failed", p->name);
            continue;
        }
        int o = p->info.orientation, w, h;
        gvis_orient_size(o, p->info.width, p->info.height, &w, &h);
        gvis_cu_orient(dst, pitch, p->info.width, p->info.height, 3, o, d_up, (size_t)w * 3, gvis_cu_job_stream(job));
        uint8_t *back = malloc((size_t)w * h * 3);
        gvis_cu_download2d(job, back, (size_t)w * 3, d_up, (size_t)w * 3, (size_t)w * 3, (size_t)h);
        gvis_cu_sync(job);
        gvis_image cpu;
        gvis_io_opts io = {0};
        double t0 = now();
        if (gvis_image_decode(p->data.data, p->data.len, &io, &cpu) != GVIS_OK) {
            FAIL("%s: libjpeg-turbo failed: %s", p->name, gvis_errmsg());
            free(back);
            continue;
        }
        cpu_time += now() - t0;
        if (cpu.width != w || cpu.height != h || cpu.channels != 3) {
            FAIL("%s: CPU %dx%dx%d, GPU %dx%dx3", p->name, cpu.width, cpu.height, cpu.channels, w, h);
        } else {
            double se = 0;
            int md = 0;
            for (int y = 0; y < h; y++) {
                const uint8_t *a = back + (size_t)y * w * 3, *b = GVIS_ROW(&cpu, y);
                for (int x = 0; x < w * 3; x++) {
                    int d = abs(a[x] - b[x]);
                    se += d * d;
                    md = d > md ? d : md;
                }
            }
            double ps = se ? 10 * log10(255.0 * 255 * w * h * 3 / se) : 99;
            if (ps < worst)
                worst = ps, worstname = p->name;
            worstd = md > worstd ? md : worstd;
            if (ps < GVIS_NVJPEG_MIN_PSNR || md > GVIS_NVJPEG_MAX_DIFF)
                FAIL("%s: PSNR %.2f dB, largest difference %d: outside the bound", p->name, ps, md);
        }
        free(back);
        gvis_image_free(&cpu);
    }
    printf("hardware decode vs libjpeg-turbo: worst PSNR %.2f dB (%s), largest difference %d "
           "(bound: >= %.0f dB, <= %d)\n", worst, worstname, worstd, GVIS_NVJPEG_MIN_PSNR, GVIS_NVJPEG_MAX_DIFF);
    printf("libjpeg-turbo decode, one core: %.1f images/s\n", nhw / cpu_time);

    bench_decode(dec, job, hw, nhw, rounds, 32, maxbytes);
    bench_decode(dec, job, hw, nhw, rounds, 128, maxbytes);

    gvis_nvjpeg_enc *enc;
    if (gvis_nvjpeg_enc_create(lib, gvis_cu_job_stream(job), &enc, why, sizeof why)) {
        FAIL("%s", why);
    } else {
        /* d_all still holds every accepted photo, as stored */
        bench_encode(enc, job, hw, nhw, rounds, 95, maxbytes, d_all);
        bench_encode(enc, job, hw, nhw, rounds, 90, maxbytes, d_all);
        gvis_nvjpeg_enc_destroy(enc);
    }
    gvis_nvjpeg_dec_destroy(dec);
    gvis_cu_job_destroy(job);
    gvis_ctx_free(ctx);
    for (int i = 0; i < n; i++)
        gvis_buf_free(&ph[i].data);
    free(ph), free(hw);
    printf("%s\n", failures ? "bench_nvjpeg: FAILED" : "bench_nvjpeg: ok");
    return failures ? 1 : 0;
}
#endif
