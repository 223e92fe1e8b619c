/* The staged batch with JPEG on the GPU (issue 17: lib/pipeline/jpeg_batch.c,
 * images_gpu.c): readers keep the bitstreams, the compute threads decode them in shared
 * batches on the JPEG engines, blur or letterbox the device image and encode JPEG on the
 * device.  Through the gvis binary ($GVIS), on a folder of generated files with awkward
 * sizes (631x479, 1001x777, 97x131, 333x1200, 1280x720 ...), EXIF orientations 1..8 (6 and 8
 * among them), a progressive JPEG of 800x600 and a gray one (the CPU's), a tiny one, a
 * PNG, and a JPEG cut short in the middle of the list:
 *  - gauss to PNG, --jpeg-codec nvjpeg against cpu: exit 1 for the cut file alone (named),
 *    every other output present, each within the documented decode bound of the CPU
 *    run's (GVIS_NVJPEG_MIN_PSNR / MAX_DIFF), the -v counts exact (engines, fallbacks,
 *    batches);
 *  - the same with batches of 1 and 3 compute threads (GVIS_JPEG_BATCH=1,
 *    GVIS_DEVICE_WORKERS=3): byte for byte the first run's outputs (a batch's make-up
 *    changes nothing, no image lands in another's buffer);
 *  - gauss JPEG to JPEG: every output encoded by nvJPEG but the gray one, within the
 *    bound of the CPU codec's files;
 *  - warpaffine --letterbox 640x640 to .npy (HWC float32): within the bound, scaled;
 *    and to PNG (the device warp's image output, for the files decoded on the CPU too);
 *  - the decode stage's -v line (decoders warmed up, batches); the same GPU twice
 *    (cuda:0,0: one stage shared by both entries) and batches of 4 with 8 compute
 *    threads: byte for byte the first run's outputs;
 *  - --jpeg-codec auto: within the bound, the counts adding up, the cut file failing
 *    alone.
 * Exits 77 without a GPU or without nvJPEG (unless GVIS_NVJPEG_REQUIRED=1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#if !defined(GVIS_HAVE_CUDA) || !defined(GVIS_HAVE_JPEG)
int main(void)
{
    printf("skipped: built without CUDA or libjpeg-turbo\n");
    return 77;
}
#else
#include <jpeglib.h>

#include "nvjpeg_codec.h"

static char dir[64];
static const char *gvis;
static double worst_psnr = 99;
static int worst_diff;

/* PSNR and largest difference of two u8 or f32 (x 255) images of one size */
static double psnr(const gvis_image *a, const gvis_image *b, int *maxd)
{
    double se = 0, md = 0;
    size_t rb = (size_t)a->width * a->channels;
    for (int y = 0; y < a->height; y++)
        for (size_t i = 0; i < rb; i++) {
            double p, q;
            if (a->type == GVIS_F32) {
                p = 255.0 * ((const float *)GVIS_ROW(a, y))[i];
                q = 255.0 * ((const float *)GVIS_ROW(b, y))[i];
            } else {
                p = ((const uint8_t *)GVIS_ROW(a, y))[i];
                q = ((const uint8_t *)GVIS_ROW(b, y))[i];
            }
            double d = fabs(p - q);
            se += d * d;
            md = d > md ? d : md;
        }
    *maxd = (int)ceil(md - 1e-3);
    double mse = se / ((double)rb * a->height);
    return mse == 0 ? 99.0 : 10 * log10(255.0 * 255.0 / mse);
}

static void save(const char *name, const gvis_buf *b)
{
    char path[256];
    snprintf(path, sizeof path, "%s/in/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECKF(f && fwrite(b->data, 1, b->len, f) == b->len, "cannot write %s", path);
    if (f)
        fclose(f);
}

/* a photo-like w x h x c JPEG (libjpeg-turbo, q 90) with EXIF orientation o (0: none);
 * progressive when asked (the engines refuse those) */
static void make_jpeg(const char *name, int w, int h, int c, int o, int progressive, size_t cut)
{
    static uint8_t exif[] = {'E', 'x', 'i', 'f', 0, 0, 'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 1, 3, 0, 1, 0,
                             0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    exif[24] = (uint8_t)o;
    gvis_image img;
    t_make(&img, w, h, c, GVIS_U8, 1, 0);
    struct jpeg_compress_struct cs;
    struct jpeg_error_mgr err;
    cs.err = jpeg_std_error(&err);
    jpeg_create_compress(&cs);
    unsigned char *mem = NULL;
    unsigned long len = 0;
    jpeg_mem_dest(&cs, &mem, &len);
    cs.image_width = (JDIMENSION)w;
    cs.image_height = (JDIMENSION)h;
    cs.input_components = c;
    cs.in_color_space = c == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cs);
    jpeg_set_quality(&cs, 90, TRUE);
    if (progressive)
        jpeg_simple_progression(&cs);
    jpeg_start_compress(&cs, TRUE);
    if (o)
        jpeg_write_marker(&cs, JPEG_APP0 + 1, exif, sizeof exif);
    for (int y = 0; y < h; y++) {
        JSAMPROW row = (JSAMPROW)GVIS_ROW(&img, y);
        jpeg_write_scanlines(&cs, &row, 1);
    }
    jpeg_finish_compress(&cs);
    jpeg_destroy_compress(&cs);
    gvis_buf b = {mem, cut ? len * cut / 100 : len, len};
    save(name, &b);
    free(mem);
    gvis_image_free(&img);
}

static int run_on(const char *env, const char *device, const char *codec, const char *args, const char *out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s '%s' -v --device %s --jpeg-codec %s %s %s/in -o '%s/%s' 2>%s/%s.log", env, gvis,
             device, codec, args, dir, dir, out, dir, codec);
    int rc = system(cmd);
    rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
    snprintf(cmd, sizeof cmd, "cat %s/%s.log", dir, codec);
    printf("$ %s (exit %d)\n", out, rc);
    if (system(cmd))
        printf("(no log)\n");
    return rc;
}

static int run(const char *env, const char *codec, const char *args, const char *out)
{
    return run_on(env, "cuda", codec, args, out);
}

/* The decode stage lines of the last nvjpeg run's -v output: how many, and the first's
 * figures (ready ms, batches). */
static int stage_lines(double *ready, long *batches)
{
    char path[256], line[1024];
    snprintf(path, sizeof path, "%s/nvjpeg.log", dir);
    FILE *f = fopen(path, "r");
    int n = 0;
    *ready = -1;
    *batches = -1;
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "JPEG decode stage: ");
        if (!p)
            continue;
        if (n++ == 0) {
            const char *q = strstr(p, "decoders ready ");
            if (q)
                sscanf(q, "decoders ready %lf", ready);
            q = strstr(p, " queued "); /* "first file queued N ms after the batch's start; B batches" */
            if (q)
                q = strstr(q, "; ");
            if (q)
                sscanf(q, "; %ld batches", batches);
        }
    }
    if (f)
        fclose(f);
    return n;
}

/* the counts of the last nvjpeg run's -v line */
static void counts(long n[6])
{
    char path[256], line[1024];
    snprintf(path, sizeof path, "%s/nvjpeg.log", dir);
    FILE *f = fopen(path, "r");
    for (int i = 0; i < 6; i++)
        n[i] = -1;
    double mean = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "JPEG: ");
        if (p && sscanf(p,
                        "JPEG: %ld decoded by nvJPEG, %ld by libjpeg-turbo; %ld encoded by nvJPEG, %ld by "
                        "libjpeg-turbo; %ld decode batches of %lf",
                        &n[0], &n[1], &n[2], &n[3], &n[4], &mean) >= 4)
            n[5] = (long)(mean * 10 + 0.5);
    }
    if (f)
        fclose(f);
}

static int load(const char *sub, const char *name, gvis_image *img)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    gvis_buf b = {0};
    int rc = gvis_read_file(path, &b, 0);
    gvis_io_opts plain = {0};
    if (!rc)
        rc = gvis_image_decode(b.data, b.len, &plain, img);
    gvis_buf_free(&b);
    return rc;
}

/* out of a (nvJPEG) within the bound of out of b (CPU) for every name; identical where
 * exact */
static void compare(const char *a, const char *b, const char *const *names, int n, int exact)
{
    for (int i = 0; i < n; i++) {
        gvis_image x = {0}, y = {0};
        int ra = load(a, names[i], &x), rb = load(b, names[i], &y);
        CHECKF(!ra && !rb, "%s: %s/%s %s, %s/%s %s", names[i], a, names[i], ra ? "missing" : "there", b, names[i],
               rb ? "missing" : "there");
        if (!ra && !rb) {
            CHECKF(x.width == y.width && x.height == y.height && x.channels == y.channels, "%s: %dx%dx%d vs %dx%dx%d",
                   names[i], x.width, x.height, x.channels, y.width, y.height, y.channels);
            if (x.width == y.width && x.height == y.height && x.channels == y.channels) {
                int md;
                double p = psnr(&x, &y, &md);
                if (exact)
                    CHECKF(md == 0, "%s: %s and %s differ (largest difference %d)", names[i], a, b, md);
                else
                    CHECKF(p >= GVIS_NVJPEG_MIN_PSNR && md <= GVIS_NVJPEG_MAX_DIFF,
                           "%s: %s vs %s: PSNR %.2f dB, largest difference %d", names[i], a, b, p, md);
                if (!exact && p < worst_psnr)
                    worst_psnr = p;
                if (!exact && md > worst_diff)
                    worst_diff = md;
            }
        }
        gvis_image_free(&x);
        gvis_image_free(&y);
    }
}

int main(void)
{
    gvis_ctx_free(t_cuda_ctx_or_skip());
    gvis = getenv("GVIS");
    if (!gvis || !*gvis) {
        printf("skipped: GVIS (the gvis binary) not set\n");
        return 77;
    }
    gvis_io_opts io = {0};
    io.jpeg_codec = GVIS_JPEG_CODEC_NVJPEG;
    gvis_ctx *nv = NULL;
    if (gvis_ctx_create(&nv, "cuda", 1, &io, NULL, NULL) != GVIS_OK) {
        printf("%s: %s\n", getenv("GVIS_NVJPEG_REQUIRED") ? "failed" : "skipped", gvis_errmsg());
        return getenv("GVIS_NVJPEG_REQUIRED") ? 1 : 77;
    }
    gvis_ctx_free(nv);
    snprintf(dir, sizeof dir, "/tmp/gvis-nvjb-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/in", dir);
    CHECK(system(cmd) == 0);

    /* the engines' files: 3 components, baseline, sides of 64 and more */
    const int sizes[][2] = {{631, 479}, {1001, 777}, {640, 480}, {97, 131}, {1280, 720}, {333, 1200}, {64, 64}};
    enum { NPHOTO = 21 };
    const char *names[NPHOTO + 4];
    static char store[NPHOTO + 4][32];
    int n = 0;
    for (int i = 0; i < NPHOTO; i++) {
        snprintf(store[n], sizeof store[n], "p%02d.jpg", i);
        make_jpeg(store[n], sizes[i % 7][0], sizes[i % 7][1], 3, i % 9, 0, 0); /* orientations 0..8 */
        names[n] = store[n];
        n++;
        if (i == 10) { /* a file cut short, in the middle of the list: fails, alone */
            make_jpeg("p10x_cut.jpg", 800, 600, 3, 1, 0, 60);
        }
    }
    make_jpeg("q_progressive.jpg", 800, 600, 3, 6, 1, 0); /* libjpeg-turbo's */
    make_jpeg("q_gray.jpg", 300, 200, 1, 0, 0, 0);        /* libjpeg-turbo's */
    make_jpeg("q_tiny.jpg", 40, 30, 3, 8, 0, 0);          /* under GVIS_NVJPEG_MIN_SIDE */
    names[n++] = "q_progressive.jpg", names[n++] = "q_gray.jpg", names[n++] = "q_tiny.jpg";
    gvis_image png;
    t_make(&png, 321, 211, 3, GVIS_U8, 1, 0);
    gvis_buf pb = {0};
    gvis_io_opts plain = {0};
    CHECK_OK(gvis_image_encode(&png, GVIS_FMT_PNG, &plain, &pb));
    save("r_plain.png", &pb);
    gvis_buf_free(&pb);
    gvis_image_free(&png);
    names[n++] = "r_plain.png";
    const int ncpu_dec = 3, ngpu_dec = NPHOTO;

    /* 1. gauss to PNG: decode, orientation, blur on the device, download */
    static char pngs[NPHOTO + 4][40];
    const char *png_names[NPHOTO + 4];
    for (int i = 0; i < n; i++) {
        snprintf(pngs[i], sizeof pngs[i], "%.*s.png", (int)(strrchr(names[i], '.') - names[i]), names[i]);
        png_names[i] = pngs[i];
    }
    int rc = run("", "nvjpeg", "gauss --sigma 1.5 -j 4", "g_nv/{stem}.png");
    CHECKF(rc == 1, "nvjpeg run: exit %d, 1 expected (the cut file)", rc);
    long c[6];
    counts(c);
    CHECKF(c[0] == ngpu_dec && c[1] == ncpu_dec, "decoded: %ld by nvJPEG (want %d), %ld by libjpeg-turbo (want %d)",
           c[0], ngpu_dec, c[1], ncpu_dec);
    CHECKF(c[4] >= 1 && c[4] <= ngpu_dec, "%ld decode batches", c[4]);
    printf("%ld decode batches, mean size %.1f\n", c[4], c[5] / 10.0);
    double ready;
    long sb;
    int lines = stage_lines(&ready, &sb);
    CHECKF(lines == 1 && ready >= 0 && sb == c[4], "decode stage: %d lines, ready at %.0f ms, %ld batches", lines,
           ready, sb);
    snprintf(cmd, sizeof cmd, "grep -q \"p10x_cut.jpg': corrupt or truncated JPEG\" %s/nvjpeg.log", dir);
    CHECKF(system(cmd) == 0, "no message naming the cut file");
    rc = run("", "cpu", "gauss --sigma 1.5 -j 4", "g_cpu/{stem}.png");
    CHECKF(rc == 1, "cpu run: exit %d", rc);
    compare("g_nv", "g_cpu", png_names, n, 0);
    snprintf(cmd, sizeof cmd, "test ! -e %s/g_nv/p10x_cut.png && test $(ls %s/g_nv | wc -l) = %d", dir, dir, n);
    CHECKF(system(cmd) == 0, "g_nv holds other than the %d outputs", n);

    /* 2. batches of one, three compute threads: the same bytes */
    rc = run("GVIS_JPEG_BATCH=1 GVIS_DEVICE_WORKERS=3", "nvjpeg", "gauss --sigma 1.5 -j 2", "g_nv1/{stem}.png");
    CHECKF(rc == 1, "batch-1 run: exit %d", rc);
    counts(c);
    CHECKF(c[0] == ngpu_dec && c[4] == ngpu_dec, "batch 1: %ld decoded by nvJPEG in %ld batches", c[0], c[4]);
    compare("g_nv1", "g_nv", png_names, n, 1);

    /* 3. JPEG to JPEG: encoded on the device (all but the gray one) */
    rc = run("", "nvjpeg", "gauss --sigma 1.5 -j 4", "j_nv/");
    CHECKF(rc == 1, "jpeg run: exit %d", rc);
    counts(c);
    const char *jpgs[NPHOTO + 4];
    int nj = 0;
    for (int i = 0; i < n; i++)
        if (strstr(names[i], ".jpg"))
            jpgs[nj++] = names[i];
    /* the gray and the tiny one on the CPU */
    CHECKF(c[2] == nj - 2 && c[3] == 2, "encoded: %ld by nvJPEG (want %d), %ld by libjpeg-turbo (want 2)", c[2],
           nj - 2, c[3]);
    rc = run("", "cpu", "gauss --sigma 1.5 -j 4", "j_cpu/");
    compare("j_nv", "j_cpu", jpgs, nj, 0);

    /* 4. the letterbox to tensors (HWC, so that they read back as images) */
    static char npys[NPHOTO + 4][40];
    const char *npy_names[NPHOTO + 4];
    for (int i = 0; i < n; i++) {
        snprintf(npys[i], sizeof npys[i], "%.*s.npy", (int)(strrchr(names[i], '.') - names[i]), names[i]);
        npy_names[i] = npys[i];
    }
    rc = run("", "nvjpeg", "warpaffine --letterbox 640x640 --layout hwc --scale 0.00392156862745098 -j 4",
             "w_nv/{stem}.npy");
    CHECKF(rc == 1, "letterbox run: exit %d", rc);
    counts(c);
    CHECKF(c[0] == ngpu_dec, "letterbox: %ld decoded by nvJPEG", c[0]);
    rc = run("", "cpu", "warpaffine --letterbox 640x640 --layout hwc --scale 0.00392156862745098 -j 4",
             "w_cpu/{stem}.npy");
    compare("w_nv", "w_cpu", npy_names, n, 0);

    /* 5. the letterbox as an image: the device warp's own output (gvis_warp_dev) */
    rc = run("", "nvjpeg", "warpaffine --letterbox 640x640 -j 4", "l_nv/{stem}.png");
    CHECKF(rc == 1, "letterbox image run: exit %d", rc);
    rc = run("", "cpu", "warpaffine --letterbox 640x640 -j 4", "l_cpu/{stem}.png");
    compare("l_nv", "l_cpu", png_names, n, 0);

    /* 6. the same GPU twice: one decode stage for both entries; batches of 4 */
    rc = run_on("", "cuda:0,0", "nvjpeg", "gauss --sigma 1.5 -j 4", "g_nv00/{stem}.png");
    CHECKF(rc == 1, "cuda:0,0 run: exit %d", rc);
    counts(c);
    lines = stage_lines(&ready, &sb);
    CHECKF(c[0] == ngpu_dec && lines == 1, "cuda:0,0: %ld decoded by nvJPEG, %d decode stages", c[0], lines);
    compare("g_nv00", "g_nv", png_names, n, 1);
    rc = run("GVIS_JPEG_BATCH=4 GVIS_DEVICE_WORKERS=8", "nvjpeg", "gauss --sigma 1.5 -j 4", "g_nv4/{stem}.png");
    CHECKF(rc == 1, "batch-4 run: exit %d", rc);
    counts(c);
    CHECKF(c[0] == ngpu_dec && c[4] >= (ngpu_dec + 3) / 4, "batch 4: %ld decoded by nvJPEG in %ld batches", c[0],
           c[4]);
    compare("g_nv4", "g_nv", png_names, n, 1);

    /* 7. --jpeg-codec auto: the same outputs within the bound, the same files on the
     * engines as nvjpeg (the readers no longer decode while the decoders warm up), the
     * cut file failing alone */
    rc = run("", "auto", "gauss --sigma 1.5 -j 4", "g_auto/{stem}.png");
    CHECKF(rc == 1, "auto run: exit %d", rc);
    {
        char path[256], line[1024];
        snprintf(path, sizeof path, "%s/auto.log", dir);
        FILE *f = fopen(path, "r");
        long a[4] = {-1, -1, -1, -1};
        while (f && fgets(line, sizeof line, f)) {
            const char *p = strstr(line, "JPEG: ");
            if (p)
                sscanf(p, "JPEG: %ld decoded by nvJPEG, %ld by libjpeg-turbo", &a[0], &a[1]);
        }
        if (f)
            fclose(f);
        CHECKF(a[0] == ngpu_dec && a[1] == ncpu_dec, "auto: %ld by nvJPEG + %ld by libjpeg-turbo, nvjpeg %d + %d",
               a[0], a[1], ngpu_dec, ncpu_dec);
        printf("auto: %ld decoded by nvJPEG, %ld by libjpeg-turbo\n", a[0], a[1]);
    }
    compare("g_auto", "g_cpu", png_names, n, 0);
    snprintf(cmd, sizeof cmd, "test ! -e %s/g_auto/p10x_cut.png && test $(ls %s/g_auto | wc -l) = %d", dir, dir, n);
    CHECKF(system(cmd) == 0, "g_auto holds other than the %d outputs", n);

    printf("against the CPU codec: worst PSNR %.2f dB, largest difference %d (bound %.1f dB, %d)\n", worst_psnr,
           worst_diff, GVIS_NVJPEG_MIN_PSNR, GVIS_NVJPEG_MAX_DIFF);
    if (t_failures == 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK(system(cmd) == 0);
    } else {
        printf("files kept in %s\n", dir);
    }
    return t_done("test_cuda_nvjpeg_batch");
}
#endif
