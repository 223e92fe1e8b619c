/* JPEG through nvJPEG on a CUDA context: the seam between gvis_load / gvis_save (and
 * gvis_ctx_decode / gvis_ctx_encode) and cuda/io.  Each context (one per batch worker)
 * holds its own hardware decoder and encoder, made on first use on the context's stream
 * and reused for every file, so that N workers keep N decodes in flight on the engines.
 *
 * Decode: the marker walk and nvjpegDecodeBatchedSupported pick the files for the
 * engines (8-bit baseline Huffman YCbCr, 3 components, a whole file); libjpeg-turbo
 * reads the header (size limit, EXIF, ICC, resolution: the CPU codec's own code), the
 * engines write RGB into device memory, the EXIF orientation is applied there, and the
 * upright image comes back to the host (the round trip the batch pipeline's stages may
 * later skip).  Anything else, and any file nvJPEG fails on, goes to libjpeg-turbo,
 * which decodes it or reports it as it always does.
 * Encode: 8-bit RGB is uploaded and encoded by nvJPEG at the CPU path's quality and
 * 4:2:0 sampling; gvis_jpeg_splice_meta puts the CPU writer's markers around it. */
#include "codec.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "nvjpeg_codec.h"
#include "trace.h"

struct gvis_nvj_ctx {
    int forced; /* --jpeg-codec nvjpeg: a missing piece is an error, not a quiet fallback */
    long gpu_dec, cpu_dec, gpu_enc, cpu_enc;
    const gvis_nvjpeg_lib *lib;
    gvis_nvjpeg_dec *dec;
    gvis_nvjpeg_enc *enc;
    int dec_failed, enc_failed;
};

/* the process's totals, over every context (a batch has one per worker) */
static gvis_jpeg_counts total;

static void count(long *mine, long *all)
{
    (*mine)++;
    __atomic_add_fetch(all, 1, __ATOMIC_RELAXED);
}

void gvis_jpeg_counts_total(gvis_jpeg_counts *n)
{
    n->nvjpeg = __atomic_load_n(&total.nvjpeg, __ATOMIC_RELAXED);
    n->gpu_decoded = __atomic_load_n(&total.gpu_decoded, __ATOMIC_RELAXED);
    n->cpu_decoded = __atomic_load_n(&total.cpu_decoded, __ATOMIC_RELAXED);
    n->gpu_encoded = __atomic_load_n(&total.gpu_encoded, __ATOMIC_RELAXED);
    n->cpu_encoded = __atomic_load_n(&total.cpu_encoded, __ATOMIC_RELAXED);
    n->batches = __atomic_load_n(&total.batches, __ATOMIC_RELAXED);
    n->batched = __atomic_load_n(&total.batched, __ATOMIC_RELAXED);
}

void gvis_ctx_jpeg_counts(const gvis_ctx *ctx, gvis_jpeg_counts *n)
{
    memset(n, 0, sizeof *n);
    if (!ctx || !ctx->nvj)
        return;
    n->nvjpeg = 1;
    n->gpu_decoded = ctx->nvj->gpu_dec;
    n->cpu_decoded = ctx->nvj->cpu_dec;
    n->gpu_encoded = ctx->nvj->gpu_enc;
    n->cpu_encoded = ctx->nvj->cpu_enc;
}

void gvis_nvj_count_total(int what)
{
    long *all[] = {&total.gpu_decoded, &total.cpu_decoded, &total.gpu_encoded, &total.cpu_encoded};
    if (what >= 0 && what < 4)
        __atomic_add_fetch(all[what], 1, __ATOMIC_RELAXED);
}

void gvis_nvj_count_batches(long batches, long images)
{
    __atomic_add_fetch(&total.batches, batches, __ATOMIC_RELAXED);
    __atomic_add_fetch(&total.batched, images, __ATOMIC_RELAXED);
}

void gvis_nvj_count_cpu(gvis_ctx *ctx, int encode)
{
    if (ctx->nvj) {
        if (encode)
            count(&ctx->nvj->cpu_enc, &total.cpu_encoded);
        else
            count(&ctx->nvj->cpu_dec, &total.cpu_decoded);
    }
}

#ifndef GVIS_HAVE_CUDA

int gvis_nvj_open(gvis_ctx *ctx)
{
    ctx->nvj = NULL;
    if (ctx->io.jpeg_codec == GVIS_JPEG_CODEC_NVJPEG)
        return gvis_error(GVIS_E_DEVICE, "--jpeg-codec nvjpeg needs a CUDA device, and this run has none (%s)",
                          ctx->want == 1 ? "--device cpu" : "this gvis was built without CUDA");
    return GVIS_OK;
}
void gvis_nvj_close(gvis_ctx *ctx) { (void)ctx; }
int gvis_nvj_decode(gvis_ctx *ctx, const uint8_t *data, size_t len, gvis_image *img)
{
    (void)ctx, (void)data, (void)len, (void)img;
    return GVIS_NVJ_DECLINED;
}
int gvis_nvj_encode(gvis_ctx *ctx, const gvis_image *img, gvis_buf *b)
{
    (void)ctx, (void)img, (void)b;
    return GVIS_NVJ_DECLINED;
}
int gvis_nvj_encode_dev(gvis_ctx *ctx, const void *d, size_t pitch, const gvis_image *hdr, gvis_buf *b)
{
    (void)ctx, (void)d, (void)pitch, (void)hdr, (void)b;
    return GVIS_NVJ_DECLINED;
}
int gvis_nvj_probe(const gvis_io_opts *io, const uint8_t *data, size_t len, gvis_meta **meta, int *sw, int *sh)
{
    (void)io, (void)data, (void)len, (void)sw, (void)sh;
    *meta = NULL;
    return 0;
}

#else
#include "jpeg_orient.h"

/* device buffer slots of the context's job (cuda/core): operations use the low ones */
enum { SLOT_STORED = 14, SLOT_UPRIGHT = 15 };

static void once(gvis_ctx *ctx, int level, int *flag, const char *msg, const char *why)
{
    if (!__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
        gvis_log(ctx, level, "%s (%s)", msg, why);
}

int gvis_nvj_open(gvis_ctx *ctx)
{
    static int said;
    ctx->nvj = NULL;
    int forced = ctx->io.jpeg_codec == GVIS_JPEG_CODEC_NVJPEG;
    if (ctx->io.jpeg_codec == GVIS_JPEG_CODEC_CPU)
        return GVIS_OK;
    if (!ctx->on_cuda) {
        if (!forced)
            return GVIS_OK;
        char why[256] = "";
        int n = 0;
        gvis_cuda_devices(&n, why, sizeof why);
        return gvis_error(GVIS_E_DEVICE, "--jpeg-codec nvjpeg needs a CUDA device, and this run has none (%s)",
                          ctx->want == 1 ? "--device cpu" : n ? "the device is unusable" : why);
    }
    char why[512] = "";
    double t0 = gvis_now_ms();
    const gvis_nvjpeg_lib *lib = gvis_nvjpeg(why, sizeof why);
    gvis_trace_span("load nvJPEG", t0, gvis_now_ms(), ctx->cuda_index);
    if (!lib) {
        if (forced)
            return gvis_error(GVIS_E_DEVICE, "--jpeg-codec nvjpeg: nvJPEG is unavailable: %s", why);
        once(ctx, GVIS_LOG_INFO, &said, "JPEG through libjpeg-turbo: nvJPEG is unavailable", why);
        return GVIS_OK;
    }
    struct gvis_nvj_ctx *n = calloc(1, sizeof *n);
    if (!n)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    n->forced = forced;
    n->lib = lib;
    __atomic_store_n(&total.nvjpeg, 1, __ATOMIC_RELAXED);
    ctx->nvj = n;
    return GVIS_OK;
}

void gvis_nvj_close(gvis_ctx *ctx)
{
    struct gvis_nvj_ctx *n = ctx->nvj;
    if (!n)
        return;
    if (n->dec || n->enc)
        gvis_cu_sync(ctx->job);
    gvis_nvjpeg_dec_destroy(n->dec);
    gvis_nvjpeg_enc_destroy(n->enc);
    free(n);
    ctx->nvj = NULL;
}

/* What the engines may take beyond the marker walk of cuda/io: a whole file, with an EOI
 * after the first scan's header within the last 64 KiB (a file cut short loses it; a
 * camera's trailer after it is let pass), so that a truncated file goes to
 * libjpeg-turbo, which refuses it with its usual message, where the engines might fill
 * the missing blocks quietly; and not RGB by its component ids ('R', 'G', 'B' with
 * neither JFIF nor Adobe marker: libjpeg-turbo keeps such a file's samples as RGB, the
 * engines would take them for YCbCr). */
static int whole_file(const uint8_t *d, size_t len)
{
    size_t at = 2, sos = 0;
    int jfif = 0, adobe = 0, rgb_ids = 0;
    while (at + 4 <= len && d[at] == 0xff) {
        int code = d[at + 1];
        if (code == 0xff) {
            at++;
            continue;
        }
        if (code == 0xda) {
            sos = at;
            break;
        }
        size_t seg = (size_t)d[at + 2] << 8 | d[at + 3];
        if (code == 0xe0 && seg >= 7 && at + 9 <= len && !memcmp(d + at + 4, "JFIF", 5))
            jfif = 1;
        if (code == 0xee && seg >= 7 && at + 9 <= len && !memcmp(d + at + 4, "Adobe", 5))
            adobe = 1;
        if (code >= 0xc0 && code <= 0xcf && code != 0xc4 && code != 0xc8 && code != 0xcc && at + 19 <= len &&
            d[at + 9] == 3)
            rgb_ids = d[at + 10] == 'R' && d[at + 13] == 'G' && d[at + 16] == 'B';
        at += 2 + seg;
    }
    if (!sos || (rgb_ids && !jfif && !adobe))
        return 0;
    size_t from = len > ((size_t)64 << 10) ? len - ((size_t)64 << 10) : 0;
    if (from < sos + 4)
        from = sos + 4;
    for (size_t i = len; i-- > from + 1;)
        if (d[i] == 0xd9 && d[i - 1] == 0xff)
            return 1;
    return 0;
}

/* A device failure: an error under --jpeg-codec nvjpeg, else the CPU with a warning. */
static int device_failure(gvis_ctx *ctx, const char *what, const char *why)
{
    if (ctx->nvj->forced)
        return gvis_error(GVIS_E_DEVICE, "nvJPEG %s: %s", what, why);
    gvis_log(ctx, GVIS_LOG_WARN, "nvJPEG %s failed (%s); using libjpeg-turbo", what, why);
    return GVIS_NVJ_DECLINED;
}

int gvis_nvj_decode(gvis_ctx *ctx, const uint8_t *data, size_t len, gvis_image *img)
{
    static int said;
    struct gvis_nvj_ctx *n = ctx->nvj;
    img->data = NULL;
    img->meta = NULL;
    if (!n->dec) {
        if (n->dec_failed)
            return GVIS_NVJ_DECLINED;
        char why[256] = "";
        gvis_nvjpeg_dec *dec;
        if (gvis_nvjpeg_dec_create(n->lib, 1, gvis_cu_job_stream(ctx->job), &dec, why,
                                   sizeof why)) {
            n->dec_failed = 1;
            if (n->forced)
                return gvis_error(GVIS_E_DEVICE, "--jpeg-codec nvjpeg: %s (use --jpeg-codec auto or cpu)", why);
            once(ctx, GVIS_LOG_INFO, &said, "JPEG decoded by libjpeg-turbo", why);
            return GVIS_NVJ_DECLINED;
        }
        n->dec = dec;
    }
    gvis_nvjpeg_dec *dec = n->dec;
    gvis_jpeg_info info;
    if (!whole_file(data, len))
        return GVIS_NVJ_DECLINED;
#ifdef GVIS_HAVE_JPEG
    /* the size limit, the tables and the metadata, by the CPU codec's own code, before
     * nvJPEG parses anything; a header it refuses goes to it whole, for its usual message */
    if (gvis_jpeg_read_header(data, len, &ctx->io, img))
        return GVIS_NVJ_DECLINED;
#endif
    gvis_meta *meta = img->meta;
    img->meta = NULL;
    if (!gvis_nvjpeg_dec_supported(dec, data, len, &info)
#ifndef GVIS_HAVE_JPEG
        || gvis_check_size((size_t)info.width, (size_t)info.height, &ctx->io)
#endif
    ) {
        gvis_meta_free(meta);
        return GVIS_NVJ_DECLINED;
    }
    int sw = info.width, sh = info.height, w = sw, h = sh;
    int orient = meta && !ctx->io.no_autorotate && meta->orientation >= 2 && meta->orientation <= 8
                     ? meta->orientation : 1;
    gvis_orient_size(orient, sw, sh, &w, &h);
    void *d_src = NULL, *d_up = NULL;
    size_t sp = 0, up = 0;
    int err = gvis_cu_buffer2d(ctx->job, SLOT_STORED, (size_t)sw * 3, (size_t)sh, &d_src, &sp);
    if (!err && orient != 1)
        err = gvis_cu_buffer2d(ctx->job, SLOT_UPRIGHT, (size_t)w * 3, (size_t)h, &d_up, &up);
    int rc = gvis_image_alloc(img, w, h, 3, GVIS_U8, 0);
    if (rc) {
        gvis_meta_free(meta);
        return rc;
    }
    if (err) {
        rc = device_failure(ctx, "decode", gvis_cu_strerror(err));
        goto fail;
    }
    const uint8_t *const pdata[1] = {data};
    unsigned char *const pdst[1] = {(unsigned char *)d_src};
    int status = GVIS_NVJPEG_FAILED;
    if (gvis_nvjpeg_dec_batch(dec, 1, pdata, &len, pdst, &sp, &status)) {
        rc = device_failure(ctx, "decode", gvis_nvjpeg_dec_error(dec));
        goto fail;
    }
    if (orient != 1)
        err = gvis_cu_orient((const unsigned char *)d_src, sp, sw, sh, 3, orient, (unsigned char *)d_up, up,
                             gvis_cu_job_stream(ctx->job));
    if (!err)
        err = gvis_cu_sync(ctx->job);
    if (err) {
        rc = device_failure(ctx, "decode", gvis_cu_strerror(err));
        goto fail;
    }
    if (status != GVIS_NVJPEG_DECODED) { /* libjpeg-turbo decides: a bad file, or one the engines balk at */
        rc = GVIS_NVJ_DECLINED;
        goto fail;
    }
    err = gvis_cu_download2d(ctx->job, img->data, img->stride, orient != 1 ? d_up : d_src, orient != 1 ? up : sp,
                             (size_t)w * 3, (size_t)h);
    if (!err)
        err = gvis_cu_sync(ctx->job);
    if (err) {
        rc = device_failure(ctx, "decode", gvis_cu_strerror(err));
        goto fail;
    }
    if (meta && orient != 1)
        gvis_meta_mark_upright(meta);
    img->meta = meta;
    count(&n->gpu_dec, &total.gpu_decoded);
    return GVIS_OK;
fail:
    gvis_meta_free(meta);
    img->meta = NULL;
    gvis_image_free(img);
    return rc;
}

/* The encoder of the context, made on first use; NULL when it cannot be (said once). */
static gvis_nvjpeg_enc *encoder(gvis_ctx *ctx, int *rc)
{
    static int said;
    struct gvis_nvj_ctx *n = ctx->nvj;
    *rc = GVIS_NVJ_DECLINED;
    if (!n->enc && !n->enc_failed) {
        char why[256] = "";
        gvis_nvjpeg_enc *enc;
        if (gvis_nvjpeg_enc_create(n->lib, gvis_cu_job_stream(ctx->job), &enc, why, sizeof why)) {
            n->enc_failed = 1;
            if (n->forced)
                *rc = gvis_error(GVIS_E_DEVICE, "--jpeg-codec nvjpeg: %s (use --jpeg-codec auto or cpu)", why);
            else
                once(ctx, GVIS_LOG_INFO, &said, "JPEG encoded by libjpeg-turbo", why);
            return NULL;
        }
        n->enc = enc;
    }
    return n->enc;
}

/* gray and RGBA, what the CPU writer refuses for its size, and tiny images (as on
 * decode: microseconds on the CPU) keep the CPU path */
static int encodable(const gvis_image *img)
{
    size_t rows = (size_t)img->width * 3 * (size_t)img->height;
    return img->type == GVIS_U8 && img->channels == 3 && img->width <= 65500 && img->height <= 65500 &&
           rows <= GVIS_ENCODE_MAX && img->width >= GVIS_NVJPEG_MIN_SIDE && img->height >= GVIS_NVJPEG_MIN_SIDE;
}

int gvis_nvj_encode_dev(gvis_ctx *ctx, const void *d, size_t pitch, const gvis_image *img, gvis_buf *b)
{
    struct gvis_nvj_ctx *n = ctx->nvj;
    int rc;
    if (!n || !encodable(img))
        return GVIS_NVJ_DECLINED;
    gvis_nvjpeg_enc *enc = encoder(ctx, &rc);
    if (!enc)
        return rc;
    unsigned char *out = NULL;
    size_t out_len = 0;
    int quality = ctx->io.quality ? ctx->io.quality : 95;
    if (gvis_nvjpeg_enc_rgb(enc, (const unsigned char *)d, pitch, img->width, img->height, quality, GVIS_NVJ_CSS_420,
                            &out, &out_len)) {
        /* nvJPEG refusing this image (a tiny one, say) is the CPU's job; a device fault is not */
        int err = gvis_cu_sync(ctx->job);
        if (err)
            return device_failure(ctx, "encode", gvis_cu_strerror(err));
        gvis_log(ctx, GVIS_LOG_INFO, "nvJPEG did not encode a %dx%d image (%s); libjpeg-turbo does", img->width,
                 img->height, gvis_nvjpeg_enc_error(enc));
        return GVIS_NVJ_DECLINED;
    }
    rc = gvis_jpeg_splice_meta(out, out_len, gvis_meta_to_write(img, &ctx->io), b);
    free(out);
    if (!rc)
        count(&n->gpu_enc, &total.gpu_encoded);
    return rc;
}

int gvis_nvj_encode(gvis_ctx *ctx, const gvis_image *img, gvis_buf *b)
{
    int rc;
    if (!encodable(img))
        return GVIS_NVJ_DECLINED;
    if (!encoder(ctx, &rc))
        return rc;
    void *d = NULL;
    size_t pitch = 0;
    size_t rb = (size_t)img->width * 3;
    int err = gvis_cu_buffer2d(ctx->job, SLOT_STORED, rb, (size_t)img->height, &d, &pitch);
    if (!err)
        err = gvis_cu_upload2d(ctx->job, d, pitch, img->data, img->stride, rb, (size_t)img->height);
    if (err)
        return device_failure(ctx, "encode", gvis_cu_strerror(err));
    return gvis_nvj_encode_dev(ctx, d, pitch, img, b);
}

int gvis_nvj_probe(const gvis_io_opts *io, const uint8_t *data, size_t len, gvis_meta **meta, int *sw, int *sh)
{
    gvis_jpeg_info info;
    *meta = NULL;
    if (!whole_file(data, len) || gvis_jpeg_scan(data, len, &info) != 0 || !gvis_jpeg_gpu_candidate(&info) ||
        info.components != 3 || info.width < GVIS_NVJPEG_MIN_SIDE || info.height < GVIS_NVJPEG_MIN_SIDE)
        return 0;
    gvis_image hdr = {0};
#ifdef GVIS_HAVE_JPEG
    /* the size limit and the metadata, by the CPU codec's own code; a header it refuses
     * goes to it whole, for its usual message */
    if (gvis_jpeg_read_header(data, len, io, &hdr))
        return 0;
#else
    if (gvis_check_size((size_t)info.width, (size_t)info.height, io))
        return 0;
#endif
    *meta = hdr.meta;
    *sw = info.width;
    *sh = info.height;
    return 1;
}
#endif
