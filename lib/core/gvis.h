/* libgvis: the core library of gvis.
 *
 * The library owns images, file formats, errors, device selection and the CPU
 * implementation of every operation.  It never prints and never exits: every
 * function returns a gvis_status and leaves a message for gvis_errmsg().
 */
#ifndef GVIS_H
#define GVIS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GVIS_VERSION "0.1.0"

/* ---- status codes and the error buffer --------------------------------- */

typedef enum {
    GVIS_OK = 0,
    GVIS_E_IO,           /* a file could not be read or written */
    GVIS_E_FORMAT,       /* a file's content is malformed or of an unsupported kind */
    GVIS_E_ARG,          /* an argument is out of range (a usage error) */
    GVIS_E_NOMEM,        /* host memory exhausted */
    GVIS_E_DEVICE,       /* a CUDA call failed, or no usable device */
    GVIS_E_DEVICE_NOMEM, /* device memory exhausted (under auto: fall back to the CPU) */
    GVIS_E_LIMIT,        /* a size over a limit (--max-pixels) or an arithmetic overflow */
    GVIS_E_INTERRUPTED,  /* stopped by a signal */
} gvis_status;

/* Sets the calling thread's message (printf format) and returns status. */
int gvis_error(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The calling thread's last message ("" when none). */
const char *gvis_errmsg(void);
/* Prefixes the current message with "prefix: " (for adding a file name). */
void gvis_error_prefix(const char *prefix);

/* ---- checked size arithmetic ------------------------------------------- */

/* a * b into *out; 0 on success, -1 on overflow. */
int gvis_mul_size(size_t a, size_t b, size_t *out);
/* w * h * c * bytes into *out with overflow checks; GVIS_E_LIMIT on overflow. */
int gvis_image_bytes(size_t w, size_t h, size_t c, size_t bytes, size_t *out);

/* ---- growable byte buffer ---------------------------------------------- */

typedef struct {
    uint8_t *data;
    size_t len, cap;
} gvis_buf;

int gvis_buf_reserve(gvis_buf *b, size_t extra);
int gvis_buf_append(gvis_buf *b, const void *p, size_t n);
int gvis_buf_printf(gvis_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends s as a JSON string literal, quotes included. */
int gvis_buf_json_string(gvis_buf *b, const char *s);
void gvis_buf_free(gvis_buf *b);

/* ---- images ------------------------------------------------------------- */

typedef enum { GVIS_U8 = 1, GVIS_U16 = 2, GVIS_F32 = 4 } gvis_type; /* value: bytes per sample */

/* What a file says about its pixels besides the pixels: kept from input to output where
 * the output format can hold it (EXIF, ICC profile, resolution), dropped by --strip. */
typedef struct gvis_meta {
    uint8_t *exif;     /* TIFF-structured EXIF block ("II*\0" or "MM\0*"), no "Exif\0\0"; owned */
    size_t exif_len;
    uint8_t *icc;      /* ICC profile; owned */
    size_t icc_len;
    double xres, yres; /* pixels per inch; 0: not given */
    int orientation;   /* EXIF orientation 1..8 as stored now (1 after autorotation); 0: none */
} gvis_meta;

typedef struct {
    int width, height;
    int channels;   /* 1, 3 or 4 */
    gvis_type type;
    size_t stride;  /* bytes from one row to the next (>= width * channels * type) */
    void *data;     /* owned; freed by gvis_image_free */
    gvis_meta *meta;/* owned, may be NULL; set by the decoders, written by the encoders */
} gvis_image;

/* An image in device memory (a CUDA context's buffer, not owned): what the staged
 * batch's device operations take and give (lib/pipeline/images.h, op_dev). */
typedef struct {
    int width, height, channels;
    gvis_type type;
    size_t pitch;  /* bytes from one row to the next */
    void *data;    /* device pointer */
} gvis_dev_image;

#define GVIS_ROW(img, y) ((void *)((uint8_t *)(img)->data + (size_t)(y) * (img)->stride))

/* Allocates an uninitialised image (meta NULL); stride = width*channels*bytes rounded up to align
 * (align 0 or 1: tight rows).  Zero sizes and overflow are GVIS_E_ARG / GVIS_E_LIMIT. */
int gvis_image_alloc(gvis_image *img, int width, int height, int channels, gvis_type type, size_t align);
void gvis_image_free(gvis_image *img); /* frees the pixels and the metadata */
/* Lending a buffer to this thread's next image allocation: until gvis_image_lend(NULL, 0),
 * the first gvis_image_alloc on this thread whose pixels fit in size bytes gets p (64-byte
 * aligned, owned by the lender) instead of fresh memory, and gvis_image_free of those
 * pixels on this thread hands p back rather than freeing it.  The batch pipeline lends
 * each slot's reused buffers (pinned on CUDA) to the decoder and to the operation, so a
 * decoded or computed image lands where the next stage wants it: no page faults on fresh
 * memory, no copy into pinned memory before an upload, DMA on the download.  The lender
 * must not pass the image to gvis_image_free on another thread. */
void gvis_image_lend(void *p, size_t size);
int gvis_image_lent_taken(void); /* whether this thread's lent buffer is held by an image */
/* Replaces dst's metadata with a copy of src's (none when src has none): what each command
 * calls to carry its input's EXIF, ICC profile and resolution to the image it writes. */
int gvis_image_copy_meta(gvis_image *dst, const gvis_image *src);
void gvis_meta_free(gvis_meta *m);
const char *gvis_type_name(gvis_type t); /* "u8", "u16", "f32" */

/* ---- parallel CPU work -------------------------------------------------- */

typedef void (*gvis_task_fn)(void *arg, int index, int count);
/* Runs fn(arg, i, count) for every i in [0, count) on the worker pool and the
 * calling thread; returns when all are done.  The pool runs one call at a time: a call
 * from inside a task runs its tasks in order on the calling thread, as does a call from
 * a thread that gvis_parallel_share marked while the pool runs another's; other calls
 * wait for the pool. */
void gvis_parallel(int count, gvis_task_fn fn, void *arg);
/* Marks the calling thread (on != 0) as one of several doing the same work (a batch
 * stage's threads): its gvis_parallel calls run on it while the pool is busy. */
void gvis_parallel_share(int on);
/* Number of threads gvis_parallel uses (GVIS_THREADS, else the online CPUs). */
int gvis_threads(void);
/* GVIS_THREADS read strictly: *n = its value (at most the pool's limit), 0 when unset or
 * empty; GVIS_E_ARG with a message when it is set to anything but a whole number from 1
 * up, which gvis_threads() then ignores (the online CPUs). */
int gvis_threads_env(int *n);
/* Splits [0, n) into count nearly equal parts; part index gets [*begin, *end). */
void gvis_split(size_t n, int index, int count, size_t *begin, size_t *end);

/* ---- file formats ------------------------------------------------------- */

typedef enum {
    GVIS_FMT_NONE = 0,
    GVIS_FMT_PNG, GVIS_FMT_JPEG, GVIS_FMT_BMP, GVIS_FMT_TGA,
    GVIS_FMT_PGM, GVIS_FMT_PPM, GVIS_FMT_PFM, GVIS_FMT_NPY,
    GVIS_FMT_CSV, GVIS_FMT_JSON, GVIS_FMT_TXT, GVIS_FMT_PLY,
    GVIS_FMT_TIFF, GVIS_FMT_WEBP,
} gvis_format;

/* "png", "jpg"/"jpeg", "bmp", "tga", "pgm", "ppm"/"pnm", "pfm", "npy", "tif"/"tiff", "webp",
 * "csv", "json", "txt", "ply". */
gvis_format gvis_format_from_name(const char *name);
/* From a path's extension; GVIS_FMT_NONE when it has none or an unknown one. */
gvis_format gvis_format_from_path(const char *path);
const char *gvis_format_name(gvis_format f); /* canonical extension, "png" ... */

typedef struct {
    size_t max_pixels; /* refuse larger images from the header; 0: the default 2^28 */
    int quality;       /* JPEG / lossy WebP quality 1..100; 0: 95 (WebP 90) */
    int no_autorotate; /* keep the stored EXIF orientation instead of turning the pixels */
    int strip;         /* write no metadata (EXIF, ICC profile, resolution) */
    int png_level;     /* zlib level + 1 (1..10); 0: the default, OpenCV's (level 1, Sub filter, RLE) */
    int lossless;      /* WebP: lossless */
    int page;          /* TIFF: the page (directory) to read, from 0 */
    int jpeg_codec;    /* GVIS_JPEG_CODEC_*: who decodes and encodes JPEG on a CUDA context */
} gvis_io_opts;

/* JPEG on a CUDA context (gvis_load / gvis_save): AUTO uses nvJPEG where the library
 * loads (hardware decode of what its engines take, GPU encode of 8-bit RGB), CPU keeps
 * libjpeg-turbo, NVJPEG is AUTO that fails the context when nvJPEG or the device is
 * missing.  A CPU context always uses libjpeg-turbo. */
enum { GVIS_JPEG_CODEC_AUTO = 0, GVIS_JPEG_CODEC_CPU = 1, GVIS_JPEG_CODEC_NVJPEG = 2 };

/* The library that reads (write 0) or writes (write 1) format f in this build: "libpng 1.6.39",
 * "stb_image", "gvis" ...; NULL when this build cannot. */
const char *gvis_codec_name(gvis_format f, int write);

#define GVIS_DEFAULT_MAX_PIXELS ((size_t)1 << 28)

/* Reads a whole file ("-" = standard input) into b, at most max_bytes (0: no limit); b is
 * freed on failure. */
int gvis_read_file(const char *path, gvis_buf *b, size_t max_bytes);

/* What a file argument holds, for reading a stream (a pipe, a FIFO, a device). */
typedef enum {
    GVIS_IN_IMAGE = 1, /* any image format gvis reads */
    GVIS_IN_NPY,       /* an NPY array */
    GVIS_IN_TEXT,      /* a matrix, names or pairs list: no NUL byte */
    GVIS_IN_RAW,       /* raw bytes (float32 with --shape): bounded by max_bytes alone */
} gvis_input_kind;

/* Reads a file argument ("-" = standard input) into b, freed on failure.  A regular file
 * is read as by gvis_read_file.  A stream is told from its first bytes and refused at once
 * when it is not of the kind; then it is read no further than its header says (image
 * sizes within max_pixels, 0: the default; the NPY shape), and never past max_bytes.
 * An empty pipe is an error that says so. */
int gvis_read_input(const char *path, gvis_input_kind kind, size_t max_bytes, size_t max_pixels, gvis_buf *b);
/* The sniffer itself, on the first len bytes of a stream: GVIS_OK with *bound the most
 * bytes the whole file can have (SIZE_MAX: no bound of its own), an error status with a
 * message when it cannot be of the kind, or 1000 when the header needs more bytes. */
int gvis_sniff_bound(const uint8_t *data, size_t len, gvis_input_kind kind, size_t max_pixels, size_t *bound);

/* The image format of a file's first bytes; GVIS_FMT_NONE when none gvis reads. */
gvis_format gvis_sniff_format(const uint8_t *data, size_t len);

/* Decodes PNG 8/16, JPEG, TIFF 8/16/f32, WebP, BMP, TGA, PGM/PPM 8/16, PFM or NPY
 * (u8/u16/f32, HxW or HxWxC) from memory.  Gray+alpha is widened to RGBA.  The pixel limit
 * is checked from the header before any pixel memory is allocated.  EXIF, ICC profile and
 * resolution land in img->meta; the EXIF orientation is applied unless o->no_autorotate.
 * Turning the pixels uses the worker pool, as does the PNG writer below (see gvis_parallel). */
int gvis_image_decode(const uint8_t *data, size_t len, const gvis_io_opts *o, gvis_image *img);
/* Encodes into b (appended).  PNG/PGM/PPM take u8 or u16, JPEG/WebP/BMP/TGA u8, PFM f32,
 * TIFF and NPY any type (others are GVIS_E_FORMAT).  img->meta is written where the format
 * holds it, unless o->strip: every path that writes an image file comes through here. */
int gvis_image_encode(const gvis_image *img, gvis_format f, const gvis_io_opts *o, gvis_buf *b);

/* ---- output sets: all or nothing over every output of a command ---------------------
 * gvis_outset_begin() opens a set and makes it the calling thread's current one (sets
 * nest: the previous one comes back when this one closes).  While a set is current, every
 * file written through gvis_write_file_atomic, gvis_save or gvis_outset_put is staged: a
 * temporary file beside its target, or, for standard output ("-"), a device or a FIFO,
 * the bytes in memory.  gvis_outset_commit() writes the streams and renames every
 * temporary into place; gvis_outset_abort() removes them all.  Either frees the set.
 * A failed command thus leaves no output, new or partial, and every existing file at an
 * output path unchanged. */
typedef struct gvis_outset gvis_outset;
gvis_outset *gvis_outset_begin(void);  /* NULL when out of memory */
gvis_outset *gvis_outset_current(void);
/* Stages data for path (s NULL: written at once, as one-output set). */
int gvis_outset_put(gvis_outset *s, const char *path, const void *data, size_t len);
/* Encodes img through gvis_image_encode (f 0: from the path's extension) and stages it. */
int gvis_outset_put_image(gvis_outset *s, const char *path, gvis_format f, const gvis_io_opts *o,
                          const gvis_image *img);
int gvis_outset_commit(gvis_outset *s);
void gvis_outset_abort(gvis_outset *s);
int gvis_outset_count(const gvis_outset *s);
/* Standard output put into s is written at once: for the command-wide set, whose
 * inner (per-input) sets write theirs at their commit, so that the order holds. */
void gvis_outset_pass_streams(gvis_outset *s, int on);
/* The checks a write to path would fail (a folder that is missing, not writable, a
 * directory in its place), without writing: what commands run before their work. */
int gvis_outset_check(const char *path);
/* Writes data to path atomically: a one-output set, or a part of the current set. */
int gvis_write_file_atomic(const char *path, const void *data, size_t len);
/* Removes every temporary output file not yet renamed; async-signal-safe. */
void gvis_remove_temp_files(void);
/* mkdir -p: creates path and its missing parents. */
int gvis_mkdir_p(const char *path);
/* 1 when a and b name the same existing file, else 0. */
int gvis_same_file(const char *a, const char *b);
/* A set of files (a batch's inputs): gvis_fileset_has says whether path is one of them,
 * by name or as the same existing file, with one stat().  The paths must outlive the set;
 * "-" is never in it.  NULL: out of memory. */
typedef struct gvis_fileset gvis_fileset;
gvis_fileset *gvis_fileset_new(const char *const *paths, size_t n);
int gvis_fileset_has(const gvis_fileset *s, const char *path);
void gvis_fileset_free(gvis_fileset *s);

/* ---- NPY arrays ---------------------------------------------------------- */

typedef enum { GVIS_DT_U8 = 1, GVIS_DT_U16, GVIS_DT_F16, GVIS_DT_F32, GVIS_DT_F64, GVIS_DT_I32, GVIS_DT_I64 } gvis_dtype;

typedef struct {
    gvis_dtype dtype;
    int ndim;
    size_t shape[8];
    void *data; /* C order, native little-endian; owned */
    size_t nbytes;
} gvis_array;

int gvis_npy_decode(const uint8_t *data, size_t len, size_t max_bytes, gvis_array *a);
int gvis_npy_encode(const gvis_array *a, gvis_buf *b);
void gvis_array_free(gvis_array *a);
size_t gvis_dtype_size(gvis_dtype t);

/* ---- device, context and timing ------------------------------------------ */

typedef struct {
    double load_ms, upload_ms, compute_ms, download_ms, save_ms;
    int repeat;
} gvis_timing;

typedef struct gvis_ctx gvis_ctx;

enum { GVIS_LOG_WARN = 1, GVIS_LOG_INFO = 2 };
typedef void (*gvis_log_fn)(void *user, int level, const char *msg);

/* device: "auto", "cpu", "cuda" or "cuda:N" (a list: its first device, see
 * gvis_ctx_create_on).  A malformed spec is GVIS_E_ARG; "cuda" with no usable device is GVIS_E_DEVICE with the reason.  Under "auto" with no
 * usable device the context runs on the CPU.  repeat >= 1. */
int gvis_ctx_create(gvis_ctx **out, const char *device, int repeat, const gvis_io_opts *io,
                    gvis_log_fn log, void *log_user);
/* The same on the entry-th device (round robin: entry modulo the list's length) of a
 * device list: "cuda:all" (every usable GPU, as "cuda" where there is none) or
 * "cuda:0,1" (a device may repeat: several contexts, each with its own stream, on one
 * GPU).  gvis_ctx_create uses entry 0; every other spec names one device. */
int gvis_ctx_create_on(gvis_ctx **out, const char *device, int entry, int repeat, const gvis_io_opts *io,
                       gvis_log_fn log, void *log_user);
#define GVIS_MAX_DEVICE_LIST 64
/* The CUDA devices a spec puts to work, in list order (at most max): every usable one for
 * "cuda:all", the listed ones for "cuda:0,1,...", device 0 for "cuda" and for "auto" with
 * a GPU; none (n = 0) for "cpu" and for "auto" without one.  GVIS_E_ARG for a malformed
 * spec; GVIS_E_DEVICE where a cuda spec names no usable device or one that is not there. */
int gvis_device_list(const char *spec, int *idx, int max, int *n);
void gvis_ctx_free(gvis_ctx *ctx);
int gvis_ctx_device_index(const gvis_ctx *ctx); /* the CUDA device, -1 on the CPU */
int gvis_ctx_device_entry(const gvis_ctx *ctx); /* its position in the device list, -1 on the CPU */
/* Adds t's stage times to *to (the batch sums its threads' contexts). */
void gvis_timing_add(gvis_timing *to, const gvis_timing *t);
int gvis_ctx_on_cuda(const gvis_ctx *ctx);        /* 1 when operations run on a GPU */
const char *gvis_ctx_device_name(const gvis_ctx *ctx); /* "cpu" or "cuda:0 (NVIDIA H200)" */
gvis_timing *gvis_ctx_timing(gvis_ctx *ctx);
const gvis_io_opts *gvis_ctx_io(const gvis_ctx *ctx);
int gvis_ctx_repeat(const gvis_ctx *ctx);
void gvis_log(gvis_ctx *ctx, int level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Loads / saves through the context: its pixel limit and quality, timed into
 * load_ms / save_ms.  gvis_save picks the format from the path unless fmt is given. */
int gvis_load(gvis_ctx *ctx, const char *path, gvis_image *img);
int gvis_save(gvis_ctx *ctx, const char *path, gvis_format fmt, const gvis_image *img);
/* The codec steps behind them, for callers that hold the bytes (a pipeline stage): data
 * decoded as gvis_image_decode does, and img encoded into b (appended) as
 * gvis_image_encode does, by nvJPEG where the context uses it (lib/io/nvjpeg_io.c). */
int gvis_ctx_decode(gvis_ctx *ctx, const uint8_t *data, size_t len, gvis_image *img);
int gvis_ctx_encode(gvis_ctx *ctx, const gvis_image *img, gvis_format fmt, gvis_buf *b);
/* What the context's JPEG went through so far. */
typedef struct {
    long nvjpeg;             /* 1 when the context uses nvJPEG */
    long gpu_decoded;        /* JPEGs decoded by nvJPEG's hardware backend */
    long cpu_decoded;        /* JPEGs decoded by libjpeg-turbo on a context that uses nvJPEG */
    long gpu_encoded;        /* JPEGs encoded by nvJPEG */
    long cpu_encoded;        /* JPEGs encoded by libjpeg-turbo on a context that uses nvJPEG */
    long batches, batched;   /* the staged batch's shared decoders: batches run, images they held */
} gvis_jpeg_counts;
void gvis_ctx_jpeg_counts(const gvis_ctx *ctx, gvis_jpeg_counts *n);
/* The same summed over every context of the process (nvjpeg: 1 when one used nvJPEG). */
void gvis_jpeg_counts_total(gvis_jpeg_counts *n);
/* Monotonic milliseconds. */
double gvis_now_ms(void);
/* Where GVIS_TRACE names a file: writes the timeline the batch's threads recorded there
 * (a Chrome trace, lib/core/trace.h), whole or not at all.  0, or -1 with errno. */
int gvis_trace_write(void);
/* The calling thread is the command's "main" in the timeline, whose clock starts here
 * where it has not yet (call it first thing). */
void gvis_trace_main(void);
/* A span of the calling thread from t0 to t1 (gvis_now_ms); name a string that lives as
 * long as the process. */
void gvis_trace_phase(const char *name, double t0, double t1);

/* What this build and this machine offer, for `gvis info`. */
typedef struct {
    char name[256];
    int major, minor;
    int multiprocessors;
    size_t memory_bytes;
    int driver_version, runtime_version;
} gvis_device_info;

int gvis_build_has_cuda(void);
const char *gvis_build_cuda_archs(void); /* "" without CUDA */
/* Number of usable CUDA devices; 0 with *reason set when none. */
int gvis_cuda_devices(int *count, char *reason, size_t reason_len);
int gvis_cuda_device_info(int index, gvis_device_info *info);

/* nvJPEG, the GPU's JPEG codec (loaded at run time, GVIS_NVJPEG_LIBRARY=PATH|none):
 * found or why not, its version and file, and the hardware decode engines of device 0
 * (0 without a usable device or engines).  lib/io/nvjpeg_info.c */
typedef struct {
    int found;
    int major, minor, patch;
    int engines;
    char path[512];
    char why[512]; /* when not found, or when the hardware decoder is unavailable */
} gvis_nvjpeg_info;
void gvis_nvjpeg_query(gvis_nvjpeg_info *info);

#ifdef __cplusplus
}
#endif
#endif
