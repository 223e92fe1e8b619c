/* JPEG on the GPU (cuda/io): the EXIF orientation kernel against its host map on
 * awkward sizes and pitches; the hardware decoder against the CPU decoder within the
 * documented bound (PSNR >= NVJPEG_MIN_PSNR dB, largest difference <= NVJPEG_MAX_DIFF),
 * with a corrupt and a truncated file in the batch; the GPU encoder's round trip
 * (sampling read back from the file's markers, quality near the CPU encoder's).
 * Exits 77 without a GPU, or without nvJPEG unless GVIS_NVJPEG_REQUIRED=1. */
#include <math.h>
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
#include "jpeg_orient.h"
#include "nvjpeg_codec.h"

#define NVJPEG_MIN_PSNR GVIS_NVJPEG_MIN_PSNR
#define NVJPEG_MAX_DIFF GVIS_NVJPEG_MAX_DIFF

static double psnr(const uint8_t *a, size_t ap, const uint8_t *b, size_t bp, int rowbytes, int h, int *maxd)
{
    double se = 0;
    *maxd = 0;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < rowbytes; i++) {
            int d = abs((int)a[y * ap + i] - (int)b[y * bp + i]);
            se += (double)d * d;
            if (d > *maxd)
                *maxd = d;
        }
    double mse = se / ((double)rowbytes * h);
    return mse == 0 ? 99.0 : 10 * log10(255.0 * 255.0 / mse);
}

static gvis_cu_job *job;

static void test_orient(void)
{
    const int sizes[][2] = {{1, 1}, {37, 1}, {1, 37}, {13, 11}, {631, 479}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 1; c <= 4; c++) {
            int sw = sizes[s][0], sh = sizes[s][1];
            size_t rb = (size_t)sw * c;
            uint8_t *host = malloc(rb * sh), *back = malloc(rb * sh), *want = malloc(rb * sh);
            for (size_t i = 0; i < rb * sh; i++)
                host[i] = (uint8_t)t_rand();
            void *d_src, *d_dst;
            size_t sp, dp;
            CHECK(gvis_cu_buffer2d(job, 0, rb, (size_t)sh, &d_src, &sp) == 0);
            CHECK(gvis_cu_buffer2d(job, 1, (size_t)(sw > sh ? sw : sh) * c, (size_t)(sw > sh ? sw : sh), &d_dst, &dp) == 0);
            CHECK(gvis_cu_upload2d(job, d_src, sp, host, rb, rb, (size_t)sh) == 0);
            for (int o = 1; o <= 8; o++) {
                int w, h;
                gvis_orient_size(o, sw, sh, &w, &h);
                CHECK(gvis_cu_orient(d_src, sp, sw, sh, c, o, d_dst, dp, gvis_cu_job_stream(job)) == 0);
                CHECK(gvis_cu_download2d(job, back, (size_t)w * c, d_dst, dp, (size_t)w * c, (size_t)h) == 0);
                CHECK(gvis_cu_sync(job) == 0);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        int sx, sy;
                        gvis_orient_source(o, x, y, sw, sh, &sx, &sy);
                        memcpy(want + ((size_t)y * w + x) * c, host + (size_t)sy * rb + (size_t)sx * c, (size_t)c);
                    }
                CHECKF(memcmp(back, want, rb * sh) == 0, "orientation %d on %dx%dx%d", o, sw, sh, c);
            }
            free(host), free(back), free(want);
        }
}

/* Decodes the files[0..n) the hardware takes in one batch (the others would go to the
 * CPU; a good photo-sized file must be taken), compares each good one with libjpeg-turbo. */
static void decode_and_compare(gvis_nvjpeg_dec *dec, int n, gvis_buf *files, const int *expect_ok, double *worst_psnr,
                               int *worst_diff)
{
    const uint8_t *data[16];
    size_t len[16], pitch[16];
    unsigned char *dst[16];
    int status[16], w[16], h[16], idx[16], m = 0;
    for (int i = 0; i < n; i++) {
        gvis_jpeg_info f;
        if (!gvis_nvjpeg_dec_supported(dec, files[i].data, files[i].len, &f)) {
            CHECKF(!expect_ok[i] || f.width < 64 || f.height < 64, "file %d (%dx%d) refused by the hardware decoder", i,
                   f.width, f.height);
            printf("file %d (%dx%d): not for the hardware decoder, would go to the CPU\n", i, f.width, f.height);
            continue;
        }
        idx[m] = i, data[m] = files[i].data, len[m] = files[i].len;
        w[m] = f.width, h[m] = f.height;
        void *p;
        CHECK(gvis_cu_buffer2d(job, 2 + m, (size_t)w[m] * 3, (size_t)h[m], &p, &pitch[m]) == 0);
        dst[m++] = p;
    }
    if (m == 0)
        return;
    CHECKF(gvis_nvjpeg_dec_batch(dec, m, data, len, dst, pitch, status) == 0, "batch: %s", gvis_nvjpeg_dec_error(dec));
    CHECK(gvis_cu_sync(job) == 0);
    for (int k = 0; k < m; k++) {
        int i = idx[k];
        if (!expect_ok[i]) {
            printf("bad file %d: %s\n", i, status[k] == GVIS_NVJPEG_FAILED ? "nvJPEG failed on it (reported for the CPU)"
                                                                          : "decoded (to whatever it holds)");
            continue;
        }
        CHECKF(status[k] == GVIS_NVJPEG_DECODED, "file %d: status %d", i, status[k]);
        size_t rb = (size_t)w[k] * 3;
        uint8_t *back = malloc(rb * h[k]);
        CHECK(gvis_cu_download2d(job, back, rb, dst[k], pitch[k], rb, (size_t)h[k]) == 0);
        CHECK(gvis_cu_sync(job) == 0);
        gvis_image cpu;
        gvis_io_opts o = {0};
        CHECK_OK(gvis_image_decode(data[k], len[k], &o, &cpu));
        int md;
        double p = psnr(back, rb, cpu.data, cpu.stride, (int)rb, h[k], &md);
        CHECKF(p >= NVJPEG_MIN_PSNR && md <= NVJPEG_MAX_DIFF, "file %d (%dx%d): PSNR %.2f dB, max diff %d", i, w[k],
               h[k], p, md);
        if (p < *worst_psnr)
            *worst_psnr = p;
        if (md > *worst_diff)
            *worst_diff = md;
        free(back);
        gvis_image_free(&cpu);
    }
}

static void test_decode(gvis_nvjpeg_dec *dec)
{
    const int sizes[][2] = {{631, 479}, {1920, 1080}, {64, 64}, {17, 13}, {1001, 7}, {16, 16}};
    const int ns = sizeof sizes / sizeof sizes[0];
    gvis_buf files[16];
    int ok[16];
    memset(files, 0, sizeof files);
    for (int i = 0; i < ns; i++) {
        gvis_image img;
        t_make(&img, sizes[i][0], sizes[i][1], 3, GVIS_U8, 1, 0);
        gvis_io_opts o = {0};
        o.quality = i % 2 ? 75 : 95;
        CHECK_OK(gvis_image_encode(&img, GVIS_FMT_JPEG, &o, &files[i]));
        ok[i] = 1;
        gvis_image_free(&img);
    }
    double wp = 99;
    int wd = 0;
    decode_and_compare(dec, ns, files, ok, &wp, &wd);
    printf("decode vs CPU: worst PSNR %.2f dB, largest difference %d\n", wp, wd);

    /* a batch with a corrupt file (entropy data scrambled) and a truncated one: the good
     * files still decode right; the bad ones are decoded (garbage) or reported */
    gvis_buf bad[4];
    memset(bad, 0, sizeof bad);
    gvis_buf_append(&bad[0], files[0].data, files[0].len);
    gvis_buf_append(&bad[1], files[1].data, files[1].len);
    for (size_t i = bad[1].len / 3; i < bad[1].len - 2; i += 7)
        bad[1].data[i] = (uint8_t)t_rand();
    gvis_buf_append(&bad[2], files[2].data, files[2].len / 2);
    gvis_buf_append(&bad[3], files[3].data, files[3].len);
    int bok[4] = {1, 0, 0, 1};
    for (int round = 0; round < 2; round++) /* twice: the decoder recovers after a failure */
        decode_and_compare(dec, 4, bad, bok, &wp, &wd);
    for (int i = 0; i < 4; i++)
        gvis_buf_free(&bad[i]);

    /* batch sizes change between calls */
    decode_and_compare(dec, 1, files + 4, ok, &wp, &wd);
    decode_and_compare(dec, 3, files + 1, ok, &wp, &wd);
    for (int i = 0; i < ns; i++)
        gvis_buf_free(&files[i]);
}

/* A JPEG carrying EXIF orientation o: an APP1 spliced in after SOI. */
static void with_orientation(const gvis_buf *src, int o, gvis_buf *out)
{
    static const uint8_t app1[] = {0xFF, 0xE1, 0, 34, 'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0,
                                   1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    gvis_buf_append(out, src->data, 2);
    gvis_buf_append(out, app1, sizeof app1);
    out->data[2 + 28] = (uint8_t)o; /* the SHORT value of tag 0x0112 */
    gvis_buf_append(out, src->data + 2, src->len - 2);
}

/* Decode, turn upright on the device, compare with libjpeg-turbo's upright pixels. */
static void test_decode_orientation(gvis_nvjpeg_dec *dec)
{
    gvis_image img;
    t_make(&img, 631, 479, 3, GVIS_U8, 1, 0);
    gvis_buf plain = {0};
    gvis_io_opts io = {0};
    CHECK_OK(gvis_image_encode(&img, GVIS_FMT_JPEG, &io, &plain));
    gvis_image_free(&img);
    for (int o = 1; o <= 8; o++) {
        gvis_buf f = {0};
        with_orientation(&plain, o, &f);
        gvis_jpeg_info info;
        CHECK(gvis_nvjpeg_dec_supported(dec, f.data, f.len, &info) == 1);
        CHECKF(info.orientation == o, "orientation %d read as %d", o, info.orientation);
        void *d_st, *d_up;
        size_t sp, up;
        int w, h, status = -1;
        gvis_orient_size(o, info.width, info.height, &w, &h);
        CHECK(gvis_cu_buffer2d(job, 8, (size_t)info.width * 3, (size_t)info.height, &d_st, &sp) == 0);
        CHECK(gvis_cu_buffer2d(job, 9, (size_t)w * 3, (size_t)h, &d_up, &up) == 0);
        const uint8_t *data = f.data;
        unsigned char *dst = d_st;
        CHECK(gvis_nvjpeg_dec_batch(dec, 1, &data, &f.len, &dst, &sp, &status) == 0 && status == GVIS_NVJPEG_DECODED);
        CHECK(gvis_cu_orient(d_st, sp, info.width, info.height, 3, o, d_up, up, gvis_cu_job_stream(job)) == 0);
        uint8_t *back = malloc((size_t)w * h * 3);
        CHECK(gvis_cu_download2d(job, back, (size_t)w * 3, d_up, up, (size_t)w * 3, (size_t)h) == 0);
        CHECK(gvis_cu_sync(job) == 0);
        gvis_image cpu;
        CHECK_OK(gvis_image_decode(f.data, f.len, &io, &cpu));
        CHECKF(cpu.width == w && cpu.height == h, "orientation %d: CPU %dx%d, GPU %dx%d", o, cpu.width, cpu.height, w,
               h);
        if (cpu.width == w && cpu.height == h) {
            int md;
            double p = psnr(back, (size_t)w * 3, cpu.data, cpu.stride, w * 3, h, &md);
            CHECKF(p >= NVJPEG_MIN_PSNR && md <= NVJPEG_MAX_DIFF, "orientation %d: PSNR %.2f, max diff %d", o, p, md);
        }
        free(back);
        gvis_image_free(&cpu);
        gvis_buf_free(&f);
    }
    gvis_buf_free(&plain);
}

static void test_encode(gvis_nvjpeg_enc *enc)
{
    const int sizes[][2] = {{631, 479}, {1920, 1080}, {1, 1}, {7, 3}, {1001, 7}};
    const int css[] = {GVIS_NVJ_CSS_420, GVIS_NVJ_CSS_444, GVIS_NVJ_CSS_422};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int k = 0; k < 3; k++) {
            int w = sizes[s][0], h = sizes[s][1], q = k == 2 ? 75 : 95;
            gvis_image img;
            t_make(&img, w, h, 3, GVIS_U8, 1, 0);
            void *d;
            size_t pitch;
            CHECK(gvis_cu_buffer2d(job, 0, (size_t)w * 3, (size_t)h, &d, &pitch) == 0);
            CHECK(gvis_cu_upload2d(job, d, pitch, img.data, img.stride, (size_t)w * 3, (size_t)h) == 0);
            unsigned char *out = NULL;
            size_t n = 0;
            int rc = gvis_nvjpeg_enc_rgb(enc, d, pitch, w, h, q, css[k], &out, &n);
            if (rc && w * h < 64)
                printf("encode %dx%d refused (%s): the CPU encoder takes it\n", w, h, gvis_nvjpeg_enc_error(enc));
            else
                CHECKF(rc == 0, "encode %dx%d: %s", w, h, gvis_nvjpeg_enc_error(enc));
            if (rc) {
                gvis_image_free(&img);
                continue;
            }
            gvis_jpeg_info f;
            CHECK(gvis_jpeg_scan(out, n, &f) == 0);
            CHECKF(f.sof == 0xC0 && f.width == w && f.height == h && f.components == 3 && gvis_jpeg_css(&f) == css[k],
                   "%dx%d css %d: file says sof %x %dx%d css %d", w, h, css[k], f.sof, f.width, f.height,
                   gvis_jpeg_css(&f));
            gvis_image back;
            gvis_io_opts o = {0};
            CHECK_OK(gvis_image_decode(out, n, &o, &back));
            int md;
            double p = psnr(back.data, back.stride, img.data, img.stride, w * 3, h, &md);
            /* the CPU encoder at the same quality, for scale */
            gvis_buf cb = {0};
            gvis_image cback;
            o.quality = q;
            CHECK_OK(gvis_image_encode(&img, GVIS_FMT_JPEG, &o, &cb));
            CHECK_OK(gvis_image_decode(cb.data, cb.len, &o, &cback));
            int cmd;
            double cp = psnr(cback.data, cback.stride, img.data, img.stride, w * 3, h, &cmd);
            printf("encode %dx%d q%d css %d: %zu bytes, PSNR %.2f dB (CPU encoder: %zu bytes, %.2f dB)\n", w, h, q,
                   css[k], n, p, cb.len, cp);
            /* as good as libjpeg-turbo at the same quality; 30 dB at least on images of
             * some size (on a few pixels of noise, no encoder reaches it) */
            CHECKF(p >= cp - 3.0 && (w < 64 || h < 64 || p >= 30.0), "encode %dx%d q%d: PSNR %.2f vs CPU %.2f", w, h,
                   q, p, cp);
            free(out);
            gvis_buf_free(&cb);
            gvis_image_free(&cback);
            gvis_image_free(&back);
            gvis_image_free(&img);
        }
    unsigned char *out;
    size_t n;
    CHECK(gvis_nvjpeg_enc_rgb(enc, NULL, 0, 8, 8, 0, GVIS_NVJ_CSS_420, &out, &n) == -1 && out == NULL);
}

int main(void)
{
    gvis_ctx *ctx = t_cuda_ctx_or_skip();
    char why[600];
    const gvis_nvjpeg_lib *lib = gvis_nvjpeg(why, sizeof why);
    int required = getenv("GVIS_NVJPEG_REQUIRED") && atoi(getenv("GVIS_NVJPEG_REQUIRED"));
    if (!lib) {
        printf("%s: %s\n", required ? "failed" : "skipped", why);
        gvis_ctx_free(ctx);
        return required ? 1 : 77;
    }
    printf("nvJPEG %d.%d.%d from %s\n", lib->major, lib->minor, lib->patch, lib->path);
    t_seed(17);
    CHECK(gvis_cu_job_create(0, &job) == 0);
    test_orient();
    gvis_nvjpeg_dec *dec = NULL;
    if (gvis_nvjpeg_dec_create(lib, 8, gvis_cu_job_stream(job), &dec, why, sizeof why) == 0) {
        unsigned e, c;
        gvis_nvjpeg_dec_engines(dec, &e, &c);
        printf("hardware decoder: %u engines, %u cores each\n", e, c);
        test_decode(dec);
        test_decode_orientation(dec);
        gvis_nvjpeg_dec_destroy(dec);
    } else {
        printf("no hardware decoder: %s\n", why);
        CHECKF(!required, "hardware decoder required: %s", why);
    }
    gvis_nvjpeg_enc *enc = NULL;
    CHECKF(gvis_nvjpeg_enc_create(lib, gvis_cu_job_stream(job), &enc, why, sizeof why) == 0, "encoder: %s", why);
    if (enc)
        test_encode(enc);
    gvis_nvjpeg_enc_destroy(enc);
    gvis_cu_job_destroy(job);
    gvis_ctx_free(ctx);
    return t_done("cuda_nvjpeg");
}
#endif
