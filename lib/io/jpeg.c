/* JPEG through libjpeg-turbo's libjpeg API, with the decoder settings cv2.imread uses (the
 * library's defaults: accurate integer IDCT, smooth chroma upsampling), so that gvis's
 * pixels are OpenCV's.  Gray stays gray; YCbCr and RGB come out RGB; CMYK and YCCK are
 * turned into RGB by OpenCV's formula.  Errors come back by longjmp from libjpeg: only
 * libjpeg's calls and memory reachable from struct jpeg_io lie between. */
#ifdef GVIS_HAVE_JPEG
#include "codec.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

const char *gvis_jpeg_version(void)
{
    static char v[32];
    if (!v[0]) /* LIBJPEG_TURBO_VERSION is a bare token in jconfig.h */
#define STR2(x) #x
#define STR(x) STR2(x)
        snprintf(v, sizeof v, "%s", STR(LIBJPEG_TURBO_VERSION));
    return v;
}

struct jpeg_io {
    struct jpeg_error_mgr err;
    jmp_buf jmp;
    char msg[JMSG_LENGTH_MAX];
    int warnings;
    uint8_t *row; /* CMYK row for the conversion */
    gvis_buf *out;
    int nomem;
};

static void on_error(j_common_ptr c)
{
    struct jpeg_io *io = (struct jpeg_io *)c->err;
    c->err->format_message(c, io->msg);
    longjmp(io->jmp, 1);
}

/* libjpeg goes on past a truncated file or broken entropy-coded data with a warning (and
 * gray pixels where it lacked data): gvis refuses such a file, a clear error rather than a
 * silently damaged image.  The warnings real camera files carry (extra bytes between
 * markers, an odd JFIF version or ICC chunk) are let pass, as cv2.imread does. */
static void on_message(j_common_ptr c, int level)
{
    struct jpeg_io *io = (struct jpeg_io *)c->err;
    int code = c->err->msg_code;
    if (level < 0 && (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE) &&
        !io->warnings++)
        c->err->format_message(c, io->msg);
}

/* A progressive file may hold any number of scans, each a pass over the whole image:
 * libjpeg-turbo's own fuzzers stop at 500 (a crafted file otherwise takes minutes). */
static void on_progress(j_common_ptr c)
{
    j_decompress_ptr d = (j_decompress_ptr)c;
    if (d->is_decompressor && d->input_scan_number > 500)
        ERREXIT1(c, JERR_BAD_SCAN_SCRIPT, d->input_scan_number);
}

static int read_meta(j_decompress_ptr c, gvis_image *img)
{
    int rc = GVIS_OK;
    JOCTET *icc = NULL;
    unsigned icc_len = 0;
    int has_res = c->saw_JFIF_marker && (c->density_unit == 1 || c->density_unit == 2) && c->X_density && c->Y_density;
    jpeg_saved_marker_ptr exif = NULL;
    for (jpeg_saved_marker_ptr m = c->marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 14 && memcmp(m->data, "Exif\0\0", 6) == 0 && !exif)
            exif = m;
    jpeg_read_icc_profile(c, &icc, &icc_len);
    if (!exif && !icc && !has_res)
        return GVIS_OK;
    gvis_meta *m = gvis_meta_of(img);
    if (!m)
        rc = gvis_error(GVIS_E_NOMEM, "out of memory");
    if (!rc && exif)
        rc = gvis_meta_set_exif(m, exif->data, exif->data_length);
    if (!rc && icc)
        rc = gvis_meta_set_icc(m, icc, icc_len);
    if (!rc && has_res) {
        double k = c->density_unit == 2 ? 2.54 : 1.0;
        m->xres = c->X_density * k;
        m->yres = c->Y_density * k;
    }
    free(icc);
    return rc;
}

int gvis_jpeg_decode(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    struct jpeg_decompress_struct c;
    struct jpeg_io io;
    struct jpeg_progress_mgr prog;
    memset(&io, 0, sizeof io);
    c.err = jpeg_std_error(&io.err);
    io.err.error_exit = on_error;
    io.err.emit_message = on_message;
    if (setjmp(io.jmp)) {
        int rc = gvis_error(GVIS_E_FORMAT, "corrupt or truncated JPEG (%s)", io.msg);
        free(io.row);
        jpeg_destroy_decompress(&c);
        gvis_image_free(img);
        return rc;
    }
    jpeg_create_decompress(&c);
    prog.progress_monitor = on_progress;
    c.progress = &prog;
    jpeg_mem_src(&c, d, (unsigned long)len);
    jpeg_save_markers(&c, JPEG_APP0 + 1, 0xffff);
    jpeg_save_markers(&c, JPEG_APP0 + 2, 0xffff);
    jpeg_read_header(&c, TRUE);
    int rc = gvis_check_size(c.image_width, c.image_height, o);
    int cmyk = c.num_components == 4;
    if (!rc) {
        c.out_color_space = c.num_components == 1 ? JCS_GRAYSCALE : cmyk ? JCS_CMYK : JCS_RGB;
        jpeg_start_decompress(&c);
        rc = gvis_image_alloc(img, (int)c.output_width, (int)c.output_height, cmyk ? 3 : c.output_components,
                              GVIS_U8, 0);
        if (!rc) /* while libjpeg still holds the markers (jpeg_finish_decompress drops them) */
            rc = read_meta(&c, img);
    }
    if (!rc && cmyk && !(io.row = malloc((size_t)c.output_width * 4)))
        rc = gvis_error(GVIS_E_NOMEM, "out of memory reading JPEG");
    while (!rc && c.output_scanline < c.output_height) {
        uint8_t *dst = GVIS_ROW(img, c.output_scanline);
        JSAMPROW row = cmyk ? io.row : dst;
        jpeg_read_scanlines(&c, &row, 1);
        if (cmyk) /* OpenCV's CMYK to RGB (Adobe's files store the inks inverted) */
            for (JDIMENSION x = 0; x < c.output_width; x++) {
                int k = io.row[4 * x + 3];
                for (int i = 0; i < 3; i++)
                    dst[3 * x + i] = (uint8_t)(k - ((255 - io.row[4 * x + i]) * k >> 8));
            }
        if (io.warnings)
            break;
    }
    if (!rc && !io.warnings)
        jpeg_finish_decompress(&c);
    if (!rc && io.warnings)
        rc = gvis_error(GVIS_E_FORMAT, "corrupt or truncated JPEG (%s)", io.msg);
    free(io.row);
    jpeg_destroy_decompress(&c);
    if (rc)
        gvis_image_free(img);
    return rc;
}

/* The header alone, for a decoder that is not libjpeg (nvJPEG): the size checked as
 * gvis_jpeg_decode checks it and the metadata read as it reads it, no pixel decoded. */
int gvis_jpeg_read_header(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    struct jpeg_decompress_struct c;
    struct jpeg_io io;
    memset(&io, 0, sizeof io);
    img->meta = NULL;
    c.err = jpeg_std_error(&io.err);
    io.err.error_exit = on_error;
    io.err.emit_message = on_message;
    if (setjmp(io.jmp)) {
        int rc = gvis_error(GVIS_E_FORMAT, "corrupt or truncated JPEG (%s)", io.msg);
        jpeg_destroy_decompress(&c);
        gvis_meta_free(img->meta);
        img->meta = NULL;
        return rc;
    }
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, d, (unsigned long)len);
    jpeg_save_markers(&c, JPEG_APP0 + 1, 0xffff);
    jpeg_save_markers(&c, JPEG_APP0 + 2, 0xffff);
    jpeg_read_header(&c, TRUE);
    int rc = gvis_check_size(c.image_width, c.image_height, o);
    if (!rc)
        rc = read_meta(&c, img);
    jpeg_destroy_decompress(&c);
    if (rc) {
        gvis_meta_free(img->meta);
        img->meta = NULL;
    }
    return rc;
}

/* ---- writing: quality 95 and 4:2:0 by default, as cv2.imwrite ---- */

#define CHUNK 65536

static void dest_init(j_compress_ptr c)
{
    struct jpeg_io *io = (struct jpeg_io *)c->err;
    if (gvis_buf_reserve(io->out, CHUNK)) {
        io->nomem = 1;
        ERREXIT(c, JERR_OUT_OF_MEMORY);
    }
    c->dest->next_output_byte = io->out->data + io->out->len;
    c->dest->free_in_buffer = io->out->cap - io->out->len;
}

static boolean dest_empty(j_compress_ptr c)
{
    struct jpeg_io *io = (struct jpeg_io *)c->err;
    io->out->len = io->out->cap; /* the whole reserve is filled */
    if (gvis_buf_reserve(io->out, io->out->cap / 2 > CHUNK ? io->out->cap / 2 : CHUNK)) {
        io->nomem = 1;
        ERREXIT(c, JERR_OUT_OF_MEMORY);
    }
    c->dest->next_output_byte = io->out->data + io->out->len;
    c->dest->free_in_buffer = io->out->cap - io->out->len;
    return TRUE;
}

static void dest_term(j_compress_ptr c)
{
    struct jpeg_io *io = (struct jpeg_io *)c->err;
    io->out->len = io->out->cap - c->dest->free_in_buffer;
}

int gvis_jpeg_encode(const gvis_image *img, const gvis_io_opts *o, gvis_buf *b)
{
    if (img->width > JPEG_MAX_DIMENSION || img->height > JPEG_MAX_DIMENSION)
        return gvis_error(GVIS_E_LIMIT, "image too large for JPEG: %dx%d, JPEG takes at most %d pixels a side; "
                                        "write .png, .tif or .npy", img->width, img->height, (int)JPEG_MAX_DIMENSION);
    struct jpeg_compress_struct c;
    struct jpeg_io io;
    struct jpeg_destination_mgr dest;
    memset(&io, 0, sizeof io);
    io.out = b;
    c.err = jpeg_std_error(&io.err);
    io.err.error_exit = on_error;
    if (setjmp(io.jmp)) {
        int rc = io.nomem ? gvis_error(GVIS_E_NOMEM, "out of memory writing JPEG")
                          : gvis_error(GVIS_E_FORMAT, "cannot write JPEG (%s)", io.msg);
        jpeg_destroy_compress(&c);
        return rc;
    }
    jpeg_create_compress(&c);
    dest.init_destination = dest_init;
    dest.empty_output_buffer = dest_empty;
    dest.term_destination = dest_term;
    c.dest = &dest;
    c.image_width = (JDIMENSION)img->width;
    c.image_height = (JDIMENSION)img->height;
    c.input_components = img->channels;
    c.in_color_space = img->channels == 1 ? JCS_GRAYSCALE : img->channels == 3 ? JCS_RGB : JCS_EXT_RGBX;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, o && o->quality ? o->quality : 95, TRUE);
    const gvis_meta *m = gvis_meta_to_write(img, o);
    if (m && m->xres > 0 && m->yres > 0 && m->xres < 65535.5 && m->yres < 65535.5) {
        c.density_unit = 1;
        c.X_density = (UINT16)(m->xres + 0.5);
        c.Y_density = (UINT16)(m->yres + 0.5);
    }
    jpeg_start_compress(&c, TRUE);
    if (m && m->exif && m->exif_len <= 65533 - 6) {
        jpeg_write_m_header(&c, JPEG_APP0 + 1, (unsigned)m->exif_len + 6);
        for (int i = 0; i < 6; i++)
            jpeg_write_m_byte(&c, "Exif\0\0"[i]);
        for (size_t i = 0; i < m->exif_len; i++)
            jpeg_write_m_byte(&c, m->exif[i]);
    }
    if (m && m->icc && m->icc_len <= 0x7fffffffu)
        jpeg_write_icc_profile(&c, m->icc, (unsigned)m->icc_len);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = GVIS_ROW(img, c.next_scanline);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    return GVIS_OK;
}
#endif
