/* The JPEG codec of a CUDA context (lib/io/nvjpeg_io.c, --jpeg-codec): a context with
 * --jpeg-codec nvjpeg against one with cpu, both on the device, over
 *  - the JPEGs of testdata (tiny, gray, CMYK, progressive, broken: mostly the CPU's, and
 *    whatever the engines take within the bound), same outcome and same metadata;
 *  - photo-like JPEGs of several sizes with EXIF orientation 1..8, an ICC profile and a
 *    resolution: decoded by the engines (counted), upright, within the documented bound
 *    (GVIS_NVJPEG_MIN_PSNR / _MAX_DIFF, cuda/io/nvjpeg_codec.h), the same metadata;
 *  - a cut-short file: refused by both with libjpeg-turbo's message; a file that is RGB
 *    by its component ids: libjpeg-turbo's;
 *  - encoding: nvJPEG's file decodes near the image (as near as libjpeg-turbo's, within
 *    3 dB, as in test_cuda_nvjpeg) and carries the metadata libjpeg-turbo's carries, none
 *    with strip; images with a side under GVIS_NVJPEG_MIN_SIDE stay on the CPU;
 *  - a batch through the gvis binary ($GVIS): gauss -j 4 over a folder with both codecs,
 *    outputs within the bound of each other, nvJPEG used (its -v count line).
 * GVIS_TEST_QUICK: fewer sizes (for compute-sanitizer).
 * Exits 77 without a GPU, or without nvJPEG unless GVIS_NVJPEG_REQUIRED=1. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#ifndef GVIS_HAVE_CUDA
int main(void)
{
    printf("skipped: built without CUDA\n");
    return 77;
}
#else
#include "nvjpeg_codec.h"

static double worst_psnr = 99;
static int worst_diff;

static double psnr(const gvis_image *a, const gvis_image *b, int *maxd)
{
    double se = 0;
    *maxd = 0;
    size_t rb = (size_t)a->width * a->channels;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *p = GVIS_ROW(a, y), *q = GVIS_ROW(b, y);
        for (size_t i = 0; i < rb; i++) {
            int d = abs((int)p[i] - (int)q[i]);
            se += (double)d * d;
            if (d > *maxd)
                *maxd = d;
        }
    }
    double mse = se / ((double)rb * a->height);
    return mse == 0 ? 99.0 : 10 * log10(255.0 * 255.0 / mse);
}

/* a and b (same file, two decoders) within the bound, with the same metadata */
static void same_image(const gvis_image *a, const gvis_image *b, const char *what)
{
    CHECKF(a->width == b->width && a->height == b->height && a->channels == b->channels && a->type == b->type,
           "%s: nvJPEG %dx%dx%d, CPU %dx%dx%d", what, a->width, a->height, a->channels, b->width, b->height,
           b->channels);
    if (a->width != b->width || a->height != b->height || a->channels != b->channels)
        return;
    int md;
    double p = psnr(a, b, &md);
    CHECKF(p >= GVIS_NVJPEG_MIN_PSNR && md <= GVIS_NVJPEG_MAX_DIFF, "%s: PSNR %.2f dB, largest difference %d", what,
           p, md);
    if (p < worst_psnr)
        worst_psnr = p;
    if (md > worst_diff)
        worst_diff = md;
    const gvis_meta *m = a->meta, *n = b->meta;
    CHECKF(!m == !n, "%s: metadata on one side only", what);
    if (m && n) {
        CHECKF(m->orientation == n->orientation, "%s: orientation %d vs %d", what, m->orientation, n->orientation);
        CHECKF(m->exif_len == n->exif_len && (!m->exif_len || !memcmp(m->exif, n->exif, m->exif_len)),
               "%s: EXIF differs", what);
        CHECKF(m->icc_len == n->icc_len && (!m->icc_len || !memcmp(m->icc, n->icc, m->icc_len)), "%s: ICC differs",
               what);
        CHECKF(m->xres == n->xres && m->yres == n->yres, "%s: resolution %g x %g vs %g x %g", what, m->xres, m->yres,
               n->xres, n->yres);
    }
}

enum { KEEP = 1, STRIP = 2 };

static gvis_ctx *context(int codec, int flags)
{
    gvis_io_opts io = {0};
    io.jpeg_codec = codec;
    io.no_autorotate = !!(flags & KEEP);
    io.strip = !!(flags & STRIP);
    gvis_ctx *c = NULL;
    if (gvis_ctx_create(&c, "cuda", 1, &io, NULL, NULL) != GVIS_OK) {
        if (codec == GVIS_JPEG_CODEC_NVJPEG && !getenv("GVIS_NVJPEG_REQUIRED")) {
            printf("skipped: %s\n", gvis_errmsg());
            exit(77);
        }
        fprintf(stderr, "context: %s\n", gvis_errmsg());
        exit(1);
    }
    return c;
}

static long gpu_decoded(gvis_ctx *c)
{
    gvis_jpeg_counts n;
    gvis_ctx_jpeg_counts(c, &n);
    return n.gpu_decoded;
}

/* decodes data with both contexts: the same outcome; where both decode, same_image */
static int both(gvis_ctx *nv, gvis_ctx *cpu, const uint8_t *d, size_t len, const char *what)
{
    gvis_image a = {0}, b = {0};
    long before = gpu_decoded(nv);
    int ra = gvis_ctx_decode(nv, d, len, &a);
    char ma[512];
    snprintf(ma, sizeof ma, "%s", gvis_errmsg());
    int rb = gvis_ctx_decode(cpu, d, len, &b);
    CHECKF(ra == rb, "%s: nvJPEG context %d (%s), CPU %d (%s)", what, ra, ra ? ma : "", rb, rb ? gvis_errmsg() : "");
    if (!ra && !rb)
        same_image(&a, &b, what);
    int on_gpu = gpu_decoded(nv) > before;
    printf("%-40s %s\n", what, ra ? "refused by both" : on_gpu ? "decoded by nvJPEG" : "decoded by libjpeg-turbo");
    gvis_image_free(&a);
    gvis_image_free(&b);
    return on_gpu;
}

static void test_testdata(gvis_ctx *nv, gvis_ctx *cpu)
{
    const char *dirs[] = {"codec", "fuzz/jpeg_markers", "fuzz/jpeg"};
    const char *root = getenv("TESTDATA") ? getenv("TESTDATA") : "testdata";
    int n = 0;
    for (int k = 0; k < 3; k++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/%s", root, dirs[k]);
        DIR *dp = opendir(dir);
        CHECKF(dp != NULL, "cannot open %s", dir);
        struct dirent *e;
        while (dp && (e = readdir(dp))) {
            size_t l = strlen(e->d_name);
            if (l < 5 || strcmp(e->d_name + l - 4, ".jpg"))
                continue;
            char path[2048];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            gvis_buf f = {0};
            CHECK_OK(gvis_read_file(path, &f, 0));
            both(nv, cpu, f.data, f.len, path + strlen(root) + 1);
            gvis_buf_free(&f);
            n++;
        }
        if (dp)
            closedir(dp);
    }
    CHECKF(n >= 20, "only %d JPEGs under %s", n, root);
}

/* a photo-like w x h JPEG (q, 4:2:0, libjpeg-turbo) with EXIF orientation o, an ICC
 * profile and a resolution */
static void make_jpeg(int w, int h, int o, int q, gvis_buf *out, gvis_image *src)
{
    static uint8_t exif[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 1, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    exif[18] = (uint8_t)o;
    t_make(src, w, h, 3, GVIS_U8, 1, 0);
    gvis_meta *m = calloc(1, sizeof *m);
    m->exif = malloc(sizeof exif);
    memcpy(m->exif, exif, sizeof exif);
    m->exif_len = sizeof exif;
    m->orientation = o;
    m->icc_len = 300;
    m->icc = calloc(1, 300);
    for (int i = 0; i < 300; i++)
        m->icc[i] = (uint8_t)(i * 7);
    m->xres = 300, m->yres = 150;
    src->meta = m;
    gvis_io_opts io = {0};
    io.quality = q;
    CHECK_OK(gvis_image_encode(src, GVIS_FMT_JPEG, &io, out));
}

/* f without its JFIF segment and with component ids 'R', 'G', 'B': libjpeg-turbo reads
 * such a file's samples as RGB; it must not reach the engines, which would take them
 * for YCbCr */
static void rgb_by_ids(const gvis_buf *f, gvis_buf *out)
{
    gvis_buf_append(out, f->data, 2);
    size_t at = 2;
    if (f->data[3] == 0xe0)
        at += 2 + ((size_t)f->data[4] << 8 | f->data[5]);
    gvis_buf_append(out, f->data + at, f->len - at);
    for (size_t i = 2; i + 19 < out->len; i++)
        if (out->data[i] == 0xff && out->data[i + 1] == 0xc0 && out->data[i + 9] == 3) {
            out->data[i + 10] = 'R', out->data[i + 13] = 'G', out->data[i + 16] = 'B';
            break;
        }
}

static void test_photos(gvis_ctx *nv, gvis_ctx *cpu, gvis_ctx *nv_keep, gvis_ctx *cpu_keep)
{
    const int sizes[][2] = {{640, 480}, {1001, 777}, {1920, 1080}, {64, 64}, {2000, 67}};
    int on_gpu = 0, n = 0; /* of the first three sizes, which the engines must take */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int o = 1; o <= 8; o++) {
            if ((s >= 3 && o % 3) || (t_quick() && (s == 2 || o % 2 == 0 || o == 7)))
                continue; /* GVIS_TEST_QUICK (under memcheck): fewer sizes and orientations */
            gvis_buf f = {0};
            gvis_image src;
            make_jpeg(sizes[s][0], sizes[s][1], o, o % 2 ? 95 : 80, &f, &src);
            char what[128];
            snprintf(what, sizeof what, "%dx%d orientation %d", sizes[s][0], sizes[s][1], o);
            int g = both(nv, cpu, f.data, f.len, what);
            if (s < 3)
                on_gpu += g, n++;
            if (o == 6 || o == 3) { /* --no-autorotate: the stored pixels and orientation */
                snprintf(what, sizeof what, "%dx%d orientation %d kept", sizes[s][0], sizes[s][1], o);
                both(nv_keep, cpu_keep, f.data, f.len, what);
            }
            if (s == 0 && o == 1) {
                gvis_buf r = {0};
                rgb_by_ids(&f, &r);
                CHECK(both(nv, cpu, r.data, r.len, "640x480 RGB by component ids") == 0);
                gvis_buf_free(&r);
            }
            if (s == 1 && o == 1) { /* cut short: refused by both, with libjpeg-turbo's words */
                gvis_image a = {0};
                int rc = gvis_ctx_decode(nv, f.data, f.len * 2 / 3, &a);
                CHECKF(rc == GVIS_E_FORMAT && strstr(gvis_errmsg(), "corrupt or truncated JPEG"),
                       "truncated file: %d (%s)", rc, gvis_errmsg());
                gvis_image_free(&a);
            }
            gvis_image_free(&src);
            gvis_buf_free(&f);
        }
    CHECKF(on_gpu == n, "only %d of %d photo-like JPEGs decoded by nvJPEG", on_gpu, n);
}

static void test_encode(gvis_ctx *nvs[2], gvis_ctx *cpus[2])
{
    const int sizes[][2] = {{640, 480}, {1920, 1080}, {333, 17}, {1, 1}, {64, 100}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int strip = 0; strip < 2; strip++) {
            if (t_quick() && s == 1)
                continue;
            gvis_buf f = {0}, a = {0}, b = {0};
            gvis_image src, da = {0}, db = {0};
            make_jpeg(sizes[s][0], sizes[s][1], 1, 95, &f, &src);
            gvis_ctx *nv = nvs[strip], *cpu = cpus[strip]; /* quality: the default, 95 */
            gvis_jpeg_counts c0, c1;
            gvis_ctx_jpeg_counts(nv, &c0);
            CHECK_OK(gvis_ctx_encode(nv, &src, GVIS_FMT_JPEG, &a));
            gvis_ctx_jpeg_counts(nv, &c1);
            CHECK_OK(gvis_ctx_encode(cpu, &src, GVIS_FMT_JPEG, &b));
            gvis_io_opts plain = {0};
            CHECK_OK(gvis_image_decode(a.data, a.len, &plain, &da));
            CHECK_OK(gvis_image_decode(b.data, b.len, &plain, &db));
            int big = sizes[s][0] >= GVIS_NVJPEG_MIN_SIDE && sizes[s][1] >= GVIS_NVJPEG_MIN_SIDE, ma, mb;
            CHECKF(c1.gpu_encoded == c0.gpu_encoded + big, "%dx%d: %ld encoded by nvJPEG", sizes[s][0], sizes[s][1],
                   c1.gpu_encoded - c0.gpu_encoded);
            if (da.data && db.data && da.width == src.width && db.width == src.width) {
                double pa = psnr(&da, &src, &ma), pb = psnr(&db, &src, &mb);
                printf("encode %dx%d: nvJPEG %zu bytes %.2f dB, libjpeg-turbo %zu bytes %.2f dB\n", sizes[s][0],
                       sizes[s][1], a.len, pa, b.len, pb);
                CHECKF(pa >= pb - 3.0, "%dx%d: nvJPEG's file %.2f dB from the image, libjpeg-turbo's %.2f dB",
                       sizes[s][0], sizes[s][1], pa, pb);
                CHECKF(!da.meta == !db.meta, "%dx%d strip %d: metadata on one side only", sizes[s][0], sizes[s][1],
                       strip);
                if (da.meta && db.meta)
                    CHECKF(da.meta->exif_len == db.meta->exif_len && da.meta->icc_len == db.meta->icc_len &&
                               da.meta->xres == db.meta->xres,
                           "%dx%d: metadata differs from libjpeg-turbo's", sizes[s][0], sizes[s][1]);
            } else {
                CHECKF(0, "%dx%d: encoded files do not decode to the image's size", sizes[s][0], sizes[s][1]);
            }
            gvis_image_free(&src), gvis_image_free(&da), gvis_image_free(&db);
            gvis_buf_free(&f), gvis_buf_free(&a), gvis_buf_free(&b);
        }
}

static void test_batch(const char *gvis)
{
    char tmpl[] = "/tmp/gvis-jpeg-codec-XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL);
    if (!dir)
        return;
    char cmd[4096], path[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/in %s/gpu %s/cpu && cp '%s/codec/cv_progressive.jpg' '%s/codec/cv_gray.jpg' "
                              "'%s/codec/orient_6.jpg' %s/in/",
             dir, dir, dir, getenv("TESTDATA") ? getenv("TESTDATA") : "testdata",
             getenv("TESTDATA") ? getenv("TESTDATA") : "testdata", getenv("TESTDATA") ? getenv("TESTDATA") : "testdata",
             dir);
    CHECK(system(cmd) == 0);
    const int sizes[][2] = {{640, 480}, {1280, 720}, {1001, 777}, {800, 1200}, {1920, 1080}, {97, 131}};
    int nfiles = 3;
    for (int i = 0; i < 12; i++, nfiles++) {
        gvis_buf f = {0};
        gvis_image src;
        make_jpeg(sizes[i % 6][0], sizes[i % 6][1], 1 + i % 8, 90, &f, &src);
        snprintf(path, sizeof path, "%s/in/photo%02d.jpg", dir, i);
        FILE *fp = fopen(path, "wb");
        CHECK(fp && fwrite(f.data, 1, f.len, fp) == f.len);
        if (fp)
            fclose(fp);
        gvis_image_free(&src);
        gvis_buf_free(&f);
    }
    const char *codec[2] = {"nvjpeg", "cpu"}, *out[2] = {"gpu", "cpu"};
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "'%s' -v --device cuda --jpeg-codec %s gauss --sigma 2 -j 4 %s/in -o %s/%s/ 2>%s/%s.log", gvis,
                 codec[k], dir, dir, out[k], dir, out[k]);
        int rc = system(cmd);
        snprintf(path, sizeof path, "cat %s/%s.log", dir, out[k]);
        if (rc) {
            CHECKF(0, "%s: exit %d", cmd, rc);
            if (system(path))
                printf("(no log)\n");
        }
    }
    /* nvJPEG did the work: the -v count line */
    snprintf(path, sizeof path, "%s/gpu.log", dir);
    FILE *lf = fopen(path, "r");
    long gd = -1, cd = -1, ge = -1, ce = -1;
    char line[1024];
    while (lf && fgets(line, sizeof line, lf)) {
        const char *p = strstr(line, "JPEG: ");
        if (p)
            sscanf(p, "JPEG: %ld decoded by nvJPEG, %ld by libjpeg-turbo; %ld encoded by nvJPEG, %ld", &gd, &cd, &ge,
                   &ce);
    }
    if (lf)
        fclose(lf);
    printf("batch: %ld decoded by nvJPEG, %ld by libjpeg-turbo; %ld encoded by nvJPEG, %ld by libjpeg-turbo\n", gd, cd,
           ge, ce);
    CHECKF(gd >= 10 && gd + cd == nfiles && ge >= 12, "batch counts: %ld + %ld decoded, %ld + %ld encoded of %d", gd,
           cd, ge, ce, nfiles);
    /* every output of one within the bound of the other's */
    snprintf(path, sizeof path, "%s/in", dir);
    DIR *dp = opendir(path);
    struct dirent *e;
    int compared = 0;
    while (dp && (e = readdir(dp))) {
        if (e->d_name[0] == '.')
            continue;
        gvis_image im[2] = {{0}, {0}};
        gvis_io_opts plain = {0};
        for (int k = 0; k < 2; k++) {
            gvis_buf f = {0};
            snprintf(path, sizeof path, "%s/%s/%s", dir, out[k], e->d_name);
            CHECKF(gvis_read_file(path, &f, 0) == GVIS_OK, "no output %s", path);
            if (f.data)
                CHECK_OK(gvis_image_decode(f.data, f.len, &plain, &im[k]));
            gvis_buf_free(&f);
        }
        if (im[0].data && im[1].data) {
            same_image(&im[0], &im[1], e->d_name);
            compared++;
        }
        gvis_image_free(&im[0]);
        gvis_image_free(&im[1]);
    }
    if (dp)
        closedir(dp);
    CHECKF(compared == nfiles, "%d of %d outputs compared", compared, nfiles);
    if (t_failures == 0) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        CHECK(system(cmd) == 0);
    } else {
        printf("batch files kept in %s\n", dir);
    }
}

int main(void)
{
    gvis_ctx_free(t_cuda_ctx_or_skip());
    gvis_ctx *nv = context(GVIS_JPEG_CODEC_NVJPEG, 0), *cpu = context(GVIS_JPEG_CODEC_CPU, 0);
    gvis_ctx *nv_keep = context(GVIS_JPEG_CODEC_NVJPEG, KEEP), *cpu_keep = context(GVIS_JPEG_CODEC_CPU, KEEP);
    gvis_jpeg_counts c;
    gvis_ctx_jpeg_counts(cpu, &c);
    CHECK(c.nvjpeg == 0);
    test_testdata(nv, cpu);
    test_photos(nv, cpu, nv_keep, cpu_keep);
    gvis_ctx *nvs[2] = {nv, context(GVIS_JPEG_CODEC_NVJPEG, STRIP)}, *cpus[2] = {cpu, context(GVIS_JPEG_CODEC_CPU, STRIP)};
    test_encode(nvs, cpus);
    gvis_ctx_free(nvs[1]), gvis_ctx_free(cpus[1]);
    printf("decode vs CPU: worst PSNR %.2f dB, largest difference %d (bound: %.1f dB, %d)\n", worst_psnr, worst_diff,
           GVIS_NVJPEG_MIN_PSNR, GVIS_NVJPEG_MAX_DIFF);
    gvis_ctx_free(nv), gvis_ctx_free(cpu), gvis_ctx_free(nv_keep), gvis_ctx_free(cpu_keep);
    const char *gvis = getenv("GVIS");
    if (gvis && *gvis)
        test_batch(gvis);
    else
        printf("batch part skipped: GVIS (the gvis binary) not set\n");
    return t_done("test_cuda_jpeg_codec");
}
#endif
