/* The context: device choice, repeat count, I/O limits, timing, logging. */
#include "internal.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gvis_config.h"
#include "trace.h"

double gvis_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int gvis_build_has_cuda(void)
{
#ifdef GVIS_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

const char *gvis_build_cuda_archs(void) { return GVIS_CUDA_ARCHS; }

int gvis_cuda_devices(int *count, char *reason, size_t reason_len)
{
    *count = 0;
#ifdef GVIS_HAVE_CUDA
    int n = 0, err = gvis_cu_device_count(&n);
    if (err) {
        /* 35 (insufficient driver) is also what the runtime says where there is no driver at
         * all, and 34 (the driver placeholder library) means none: the driver's version tells
         * "install one" from "update it" */
        int drv = 0, rt = 0;
        gvis_cu_versions(&drv, &rt);
        if (err == 34 || ((err == 35 || err == 100) && drv == 0))
            snprintf(reason, reason_len, "no NVIDIA driver found");
        else if (err == 35)
            snprintf(reason, reason_len, "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d runtime of this gvis: update the driver",
                     drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
        else if (err == 100)
            snprintf(reason, reason_len, "no CUDA device found (%s)", gvis_cu_strerror(err));
        else
            snprintf(reason, reason_len, "CUDA initialisation failed: %s", gvis_cu_strerror(err));
        return GVIS_OK;
    }
    if (n == 0)
        snprintf(reason, reason_len, "no CUDA device found");
    *count = n;
#else
    snprintf(reason, reason_len, "this gvis was built without CUDA");
#endif
    return GVIS_OK;
}

int gvis_cuda_device_info(int index, gvis_device_info *info)
{
    memset(info, 0, sizeof *info);
#ifdef GVIS_HAVE_CUDA
    int err = gvis_cu_device_props(index, info->name, sizeof info->name, &info->major, &info->minor,
                                   &info->multiprocessors, &info->memory_bytes, &info->driver_version,
                                   &info->runtime_version);
    if (err)
        return gvis_error(GVIS_E_DEVICE, "cuda:%d: %s", index, gvis_cu_strerror(err));
    return GVIS_OK;
#else
    (void)index;
    return gvis_error(GVIS_E_DEVICE, "this gvis was built without CUDA");
#endif
}

/* The entries of a list "N,N,..." (after "cuda:"); 0 and *n set, or -1 when malformed. */
static int parse_index_list(const char *s, int *idx, int max, int *n)
{
    *n = 0;
    for (;;) {
        if (*s < '0' || *s > '9')
            return -1;
        char *end;
        long v = strtol(s, &end, 10);
        if (v < 0 || v >= 1024 || *n >= max)
            return -1;
        idx[(*n)++] = (int)v;
        if (!*end)
            return 0;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

#define BAD_DEVICE "bad device '%s' (auto, cpu, cuda, cuda:N, cuda:all or a list cuda:N,M,...)"

/* want: 0 auto, 1 cpu, 2 cuda; *all for "cuda:all"; idx[0..*n) the listed devices ("cuda"
 * and "auto": none listed, the first usable one) */
static int parse_device(const char *spec, int *want, int *all, int *idx, int max, int *n)
{
    *all = 0;
    *n = 0;
    if (!spec || strcmp(spec, "auto") == 0) {
        *want = 0;
        return GVIS_OK;
    }
    if (strcmp(spec, "cpu") == 0) {
        *want = 1;
        return GVIS_OK;
    }
    if (strncmp(spec, "cuda", 4) == 0) {
        *want = 2;
        if (spec[4] == 0)
            return GVIS_OK;
        if (spec[4] == ':' && strcmp(spec + 5, "all") == 0) {
            *all = 1;
            return GVIS_OK;
        }
        if (spec[4] == ':' && parse_index_list(spec + 5, idx, max, n) == 0)
            return GVIS_OK;
    }
    *n = 0;
    return gvis_error(GVIS_E_ARG, BAD_DEVICE, spec);
}

int gvis_device_list(const char *spec, int *idx, int max, int *n)
{
    *n = 0;
    int want, all, listed = 0;
    int tmp[GVIS_MAX_DEVICE_LIST];
    int rc = parse_device(spec, &want, &all, tmp, GVIS_MAX_DEVICE_LIST, &listed);
    if (rc)
        return rc;
    if (want == 1)
        return GVIS_OK;
    int count = 0;
    char why[256] = "";
    gvis_cuda_devices(&count, why, sizeof why);
    if (count == 0) {
        if (want == 2)
            return gvis_error(GVIS_E_DEVICE, "no usable CUDA device: %s", why);
        return GVIS_OK; /* auto: the CPU */
    }
    if (all) {
        for (int i = 0; i < count && i < max; i++)
            idx[(*n)++] = i;
        return GVIS_OK;
    }
    if (listed == 0) { /* auto, cuda: the first device */
        idx[(*n)++] = 0;
        return GVIS_OK;
    }
    for (int i = 0; i < listed; i++) {
        if (tmp[i] >= count) {
            *n = 0;
            if (want == 0)
                return GVIS_OK;
            return gvis_error(GVIS_E_DEVICE, "no CUDA device %d (%d found)", tmp[i], count);
        }
        if (*n < max)
            idx[(*n)++] = tmp[i];
    }
    return GVIS_OK;
}

#ifdef GVIS_HAVE_CUDA
/* A device's name, asked of the runtime once per device: a batch makes a context per
 * thread (dozens on a GPU machine), and cudaGetDeviceProperties is slow. */
static void device_name(int index, char *name, size_t len)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static char cache[GVIS_MAX_DEVICE_LIST][sizeof ((gvis_device_info *)0)->name];
    static int known[GVIS_MAX_DEVICE_LIST];
    gvis_device_info info;
    if (index < 0 || index >= GVIS_MAX_DEVICE_LIST) {
        gvis_cuda_device_info(index, &info);
        snprintf(name, len, "%s", info.name);
        return;
    }
    pthread_mutex_lock(&mu);
    if (!known[index]) {
        gvis_cuda_device_info(index, &info);
        snprintf(cache[index], sizeof cache[index], "%s", info.name);
        known[index] = 1;
    }
    snprintf(name, len, "%s", cache[index]);
    pthread_mutex_unlock(&mu);
}

/* GVIS_TEST_FAIL_DEVICE=E[:K] (tests only): contexts made for entry E of the device list
 * fail every computation on the GPU from their K-th on (default 0), as a GPU that faults
 * in the middle of a batch. */
static int injected_fault_after(int entry)
{
    const char *f = getenv("GVIS_TEST_FAIL_DEVICE");
    if (!f || !*f)
        return -1;
    char *end;
    long e = strtol(f, &end, 10);
    if (e != entry)
        return -1;
    long k = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
    return k < 0 ? 0 : (int)k;
}
#endif

int gvis_ctx_create(gvis_ctx **out, const char *device, int repeat, const gvis_io_opts *io, gvis_log_fn log,
                    void *log_user)
{
    return gvis_ctx_create_on(out, device, 0, repeat, io, log, log_user);
}

#ifdef GVIS_HAVE_CUDA
/* GVIS_CUDA_WAIT=spin|yield|block: how threads wait for the device (CUDA's own choice
 * otherwise); set once per device, before its context works. */
static void wait_mode(int device)
{
    static atomic_int set[GVIS_MAX_DEVICE_LIST + 1];
    const char *e = getenv("GVIS_CUDA_WAIT");
    if (!e || !*e || device < 0 || device > GVIS_MAX_DEVICE_LIST || atomic_exchange(&set[device], 1))
        return;
    int mode = strcmp(e, "spin") == 0 ? 1 : strcmp(e, "yield") == 0 ? 2 : strcmp(e, "block") == 0 ? 3 : 0;
    if (mode)
        gvis_cu_device_wait_mode(device, mode);
}

static int start_job(void *arg)
{
    gvis_ctx *c = arg;
    double t0 = gvis_now_ms();
    wait_mode(c->cuda_index);
    int err = gvis_cu_job_create(c->cuda_index, &c->job);
    gvis_trace_span("start CUDA", t0, gvis_now_ms(), c->cuda_index);
    return err;
}

/* GVIS_CUDA_START=serial starts the device in series, as before the thread (to time both). */
static int start_on_thread(const gvis_ctx *c)
{
    static atomic_int first = 1; /* later contexts find the device's context made */
    const char *e = getenv("GVIS_CUDA_START");
    if ((e && strcmp(e, "serial") == 0) || c->io.jpeg_codec == GVIS_JPEG_CODEC_NVJPEG)
        return 0;
    return atomic_exchange(&first, 0);
}
#endif

/* Joins the device start (at once where it ran in series): GVIS_OK with on_cuda, job and
 * device_name final, or, for --device cuda whose start failed, that error again.  Under
 * auto a failed start is a warning and the CPU, as it always was. */
static int settle(gvis_ctx *c)
{
#ifdef GVIS_HAVE_CUDA
    pthread_mutex_lock(&c->start_mu);
    if (c->start_pending) {
        c->start_pending = 0;
        int err = gvis_bgtask_join(&c->start);
        if (c->start.threaded)
            gvis_log(c, GVIS_LOG_INFO, "cuda:%d: context started on a thread of its own in %.1f ms, %.1f ms of it waited for",
                     c->cuda_index, c->start.run_ms, c->start.waited_ms);
        else
            gvis_log(c, GVIS_LOG_INFO, "cuda:%d: context started in %.1f ms", c->cuda_index, c->start.run_ms);
        if (err) {
            c->on_cuda = 0;
            c->job = NULL;
            snprintf(c->device_name, sizeof c->device_name, "cpu");
            if (c->want == 2) {
                snprintf(c->start_msg, sizeof c->start_msg, "cuda:%d: %s", c->cuda_index, gvis_cu_strerror(err));
                c->start_rc = GVIS_E_DEVICE;
            } else {
                gvis_log(c, GVIS_LOG_WARN, "cuda:%d unusable (%s), running on the CPU", c->cuda_index,
                         gvis_cu_strerror(err));
            }
        } else {
            c->fail_after = injected_fault_after(c->entry);
            gvis_cu_job_bind(c->job); /* the caller's current device, as a start in series left it */
        }
    }
    pthread_mutex_unlock(&c->start_mu);
    if (c->start_rc)
        return gvis_error(c->start_rc, "%s", c->start_msg);
#else
    (void)c;
#endif
    return GVIS_OK;
}

int gvis_ctx_create_on(gvis_ctx **out, const char *device, int entry, int repeat, const gvis_io_opts *io,
                       gvis_log_fn log, void *log_user)
{
    *out = NULL;
    gvis_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    pthread_mutex_init(&c->start_mu, NULL);
    c->repeat = repeat < 1 ? 1 : repeat;
    c->timing.repeat = c->repeat;
    c->fail_after = -1;
    if (io)
        c->io = *io;
    c->log = log;
    c->log_user = log_user;
    int all, listed, idx[GVIS_MAX_DEVICE_LIST];
    int rc = parse_device(device, &c->want, &all, idx, GVIS_MAX_DEVICE_LIST, &listed);
    if (rc) {
        gvis_ctx_free(c);
        return rc;
    }
    snprintf(c->device_name, sizeof c->device_name, "cpu");
    if (c->want != 1) {
        int n = 0;
        double t0 = gvis_now_ms();
        rc = gvis_device_list(device, idx, GVIS_MAX_DEVICE_LIST, &n);
        if (rc) {
            gvis_ctx_free(c);
            return rc;
        }
        if (n == 0) {
            char why[256] = "";
            int count = 0;
            gvis_cuda_devices(&count, why, sizeof why);
            if (count)
                snprintf(why, sizeof why, "a listed CUDA device is not there (%d found)", count);
            gvis_log(c, GVIS_LOG_INFO, "running on the CPU: %s", why);
            gvis_trace_span("find the CUDA devices", t0, gvis_now_ms(), 0);
        } else {
            if (entry < 0)
                entry = 0;
            c->entry = entry % n;
            c->cuda_index = idx[c->entry];
#ifdef GVIS_HAVE_CUDA
            char name[256];
            device_name(c->cuda_index, name, sizeof name);
            /* the first context's: CUDA's driver starting (cuInit), ~0.25-0.35 s on an H100 */
            gvis_trace_span("find the CUDA devices", t0, gvis_now_ms(), n);
            /* on the GPU unless the start fails (settle says so then) */
            c->on_cuda = 1;
            snprintf(c->device_name, sizeof c->device_name, "cuda:%d (%s)", c->cuda_index, name);
            c->start_pending = 1;
            gvis_bgtask_start(&c->start, start_job, c, start_on_thread(c));
            if (!c->start.threaded && (rc = settle(c)) != GVIS_OK) {
                gvis_ctx_free(c);
                return rc;
            }
#endif
        }
    }
    rc = gvis_nvj_open(c);
    if (rc) {
        gvis_ctx_free(c);
        return rc;
    }
    *out = c;
    return GVIS_OK;
}

void gvis_ctx_free(gvis_ctx *ctx)
{
    if (!ctx)
        return;
#ifdef GVIS_HAVE_CUDA
    if (ctx->start_pending) { /* never used: the start joined quietly */
        ctx->start_pending = 0;
        gvis_bgtask_join(&ctx->start);
    }
#endif
    double t0 = gvis_now_ms();
    gvis_nvj_close(ctx);
#ifdef GVIS_HAVE_CUDA
    if (ctx->job)
        gvis_cu_job_destroy(ctx->job);
#endif
    if (ctx->on_cuda)
        gvis_trace_span("free a CUDA context", t0, gvis_now_ms(), ctx->cuda_index);
    pthread_mutex_destroy(&ctx->start_mu);
    free(ctx);
}

/* An accessor settles the start first; the context itself is not changed for the caller. */
int gvis_ctx_on_cuda(const gvis_ctx *ctx)
{
    settle((gvis_ctx *)ctx);
    return ctx->on_cuda;
}
int gvis_ctx_device_index(const gvis_ctx *ctx)
{
    settle((gvis_ctx *)ctx);
    return ctx->on_cuda ? ctx->cuda_index : -1;
}
int gvis_ctx_device_entry(const gvis_ctx *ctx)
{
    settle((gvis_ctx *)ctx);
    return ctx->on_cuda ? ctx->entry : -1;
}

void gvis_timing_add(gvis_timing *to, const gvis_timing *t)
{
    to->load_ms += t->load_ms;
    to->upload_ms += t->upload_ms;
    to->compute_ms += t->compute_ms;
    to->download_ms += t->download_ms;
    to->save_ms += t->save_ms;
}
const char *gvis_ctx_device_name(const gvis_ctx *ctx) { return ctx->device_name; }
gvis_timing *gvis_ctx_timing(gvis_ctx *ctx) { return &ctx->timing; }
const gvis_io_opts *gvis_ctx_io(const gvis_ctx *ctx) { return &ctx->io; }
int gvis_ctx_repeat(const gvis_ctx *ctx) { return ctx->repeat; }

void gvis_log(gvis_ctx *ctx, int level, const char *fmt, ...)
{
    if (!ctx || !ctx->log)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_user, level, msg);
}

int gvis_load(gvis_ctx *ctx, const char *path, gvis_image *img)
{
    double t0 = gvis_now_ms();
    gvis_buf b = {0};
    /* The decoders check the pixel count from the header; the file itself is bounded by
     * what an image under the pixel limit can take (RGBA float, 16 bytes a pixel, and
     * headers), so that /dev/zero or a huge stray file cannot exhaust memory first. */
    size_t px = ctx->io.max_pixels ? ctx->io.max_pixels : GVIS_DEFAULT_MAX_PIXELS, limit;
    if (gvis_mul_size(px, 16, &limit) || limit > SIZE_MAX - ((size_t)2 << 20))
        limit = SIZE_MAX;
    else
        limit += (size_t)2 << 20;
    int rc = gvis_read_input(path, GVIS_IN_IMAGE, limit, ctx->io.max_pixels, &b);
    if (!rc)
        rc = gvis_ctx_decode(ctx, b.data, b.len, img);
    if (!rc)
        ctx->in_format = gvis_sniff_format(b.data, b.len);
    gvis_buf_free(&b);
    ctx->timing.load_ms += gvis_now_ms() - t0;
    return rc;
}

int gvis_save(gvis_ctx *ctx, const char *path, gvis_format fmt, const gvis_image *img)
{
    double t0 = gvis_now_ms();
    if (!fmt)
        fmt = gvis_format_from_path(path);
    gvis_buf b = {0};
    int rc;
    if (fmt) {
        rc = gvis_ctx_encode(ctx, img, fmt, &b);
    } else {
        /* "-", /dev/stdout, a name with no known extension: the input's format, else the
         * one natural for the samples (issue 12 item 2) */
        gvis_format natural = img->type == GVIS_F32 ? (img->channels == 2 || img->channels == 4 ? GVIS_FMT_NPY : GVIS_FMT_PFM)
                                                    : GVIS_FMT_PNG;
        fmt = ctx->in_format ? ctx->in_format : natural;
        rc = gvis_ctx_encode(ctx, img, fmt, &b);
        if (rc == GVIS_E_FORMAT && fmt != natural) {
            fmt = natural;
            rc = gvis_ctx_encode(ctx, img, fmt, &b);
        }
        if (!rc)
            gvis_log(ctx, GVIS_LOG_INFO, "'%s': no format from the name; writing %s%s", path, gvis_format_name(fmt),
                     fmt == ctx->in_format ? " (the input's format)" : "");
    }
    if (!rc)
        rc = gvis_write_file_atomic(path, b.data, b.len);
    gvis_buf_free(&b);
    ctx->timing.save_ms += gvis_now_ms() - t0;
    return rc;
}

int gvis_ctx_decode(gvis_ctx *ctx, const uint8_t *data, size_t len, gvis_image *img)
{
    if (ctx->nvj && gvis_sniff_format(data, len) == GVIS_FMT_JPEG) {
        int rc = gvis_nvj_decode(ctx, data, len, img);
        if (rc != GVIS_NVJ_DECLINED)
            return rc;
        rc = gvis_image_decode(data, len, &ctx->io, img);
        if (!rc)
            gvis_nvj_count_cpu(ctx, 0);
        return rc;
    }
    return gvis_image_decode(data, len, &ctx->io, img);
}

int gvis_ctx_encode(gvis_ctx *ctx, const gvis_image *img, gvis_format fmt, gvis_buf *b)
{
    if (ctx->nvj && fmt == GVIS_FMT_JPEG) {
        int rc = gvis_nvj_encode(ctx, img, b);
        if (rc != GVIS_NVJ_DECLINED)
            return rc;
        rc = gvis_image_encode(img, fmt, &ctx->io, b);
        if (!rc)
            gvis_nvj_count_cpu(ctx, 1);
        return rc;
    }
    return gvis_image_encode(img, fmt, &ctx->io, b);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double gvis_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

int gvis_time_cpu(gvis_ctx *ctx, int (*fn)(void *arg), void *arg)
{
    int n = ctx->repeat;
    double *t = malloc(sizeof *t * (size_t)n);
    if (!t)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    int rc = GVIS_OK;
    for (int i = 0; i < n && !rc; i++) {
        double t0 = gvis_now_ms();
        rc = fn(arg);
        t[i] = gvis_now_ms() - t0;
    }
    if (!rc)
        ctx->timing.compute_ms += gvis_median(t, n);
    free(t);
    return rc;
}

int gvis_dispatch(gvis_ctx *ctx, const char *what, int (*cpu)(gvis_ctx *, void *), int (*cuda)(gvis_ctx *, void *),
                  void *arg)
{
    int rc = settle(ctx);
    if (rc)
        return rc;
    if (!ctx->on_cuda || !cuda)
        return cpu(ctx, arg);
#ifdef GVIS_HAVE_CUDA
    /* the calling thread's current device is the job's (batch workers on several GPUs) */
    int err = gvis_cu_job_bind(ctx->job);
    if (err)
        rc = gvis_cuda_status(err, ctx->device_name);
    else if (ctx->fail_after >= 0 && ctx->computes++ >= ctx->fail_after)
        rc = gvis_error(GVIS_E_DEVICE, "%s: injected device fault (GVIS_TEST_FAIL_DEVICE)", ctx->device_name);
    else
#endif
        rc = cuda(ctx, arg);
    if ((rc == GVIS_E_DEVICE || rc == GVIS_E_DEVICE_NOMEM) && ctx->want == 0) {
        gvis_log(ctx, GVIS_LOG_WARN, "%s on %s failed (%s); running it on the CPU", what, ctx->device_name,
                 gvis_errmsg());
        return cpu(ctx, arg);
    }
    return rc;
}
