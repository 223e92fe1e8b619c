/* PNG, JPEG, BMP and TGA through stb_image: BMP and TGA always, PNG and JPEG in a build
 * without libpng / libjpeg-turbo.  stb trusts its input more than gvis can: the checks
 * below refuse, before stb sees them, the files found to make it read or write where it
 * must not. */
#include "codec.h"

#include <stdlib.h>
#include <string.h>

#include <stb_image.h>

#define check_size gvis_check_size


/* stb_image fills missing pixel data of BMP and TGA files with zeros; check that the
 * data the header promises is there. */
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static int check_bmp_length(const uint8_t *d, size_t len)
{
    if (len < 54)
        return gvis_error(GVIS_E_FORMAT, "truncated BMP header");
    uint32_t off = le32(d + 10), hsize = le32(d + 14), comp = le32(d + 30);
    /* stb reads the compression as a signed int and refuses 1, 2 and 4 up: one of 2^31 or
     * more passed as uncompressed, with its pixels past the end filled with zeros (fuzz_sniff:
     * a 100-byte file decoded as 263x262149) */
    if (hsize >= 40 && comp > 0x7fffffffu)
        return gvis_error(GVIS_E_FORMAT, "unsupported BMP (compression %u)", (unsigned)comp);
    if (hsize < 40 || (comp != 0 && comp != 3))
        return GVIS_OK; /* compressed or old-style: stb checks as it decodes */
    int64_t w = (int32_t)le32(d + 18), h = (int32_t)le32(d + 22);
    int bpp = le16(d + 28);
    if (h < 0)
        h = -h;
    uint64_t row = ((uint64_t)(w < 0 ? 0 : w) * (uint64_t)bpp + 31) / 32 * 4;
    if ((uint64_t)off + row * (uint64_t)h > len)
        return gvis_error(GVIS_E_FORMAT, "truncated BMP data (%zu of %llu bytes)", len,
                          (unsigned long long)((uint64_t)off + row * (uint64_t)h));
    return GVIS_OK;
}

/* Walks the PNG chunks: a file cut short anywhere before the end of IEND is refused
 * (stb_image stops reading at the last IDAT and would accept it). */
static int check_png_length(const uint8_t *d, size_t len)
{
    size_t pos = 8;
    while (pos + 8 <= len) {
        uint32_t n = (uint32_t)d[pos] << 24 | (uint32_t)d[pos + 1] << 16 | (uint32_t)d[pos + 2] << 8 | d[pos + 3];
        if (n > 0x7fffffffu)
            return gvis_error(GVIS_E_FORMAT, "corrupt PNG chunk length");
        int iend = memcmp(d + pos + 4, "IEND", 4) == 0;
        if ((uint64_t)pos + 12 + n > len)
            break;
        if (iend)
            return GVIS_OK;
        pos += 12 + (size_t)n;
    }
    return gvis_error(GVIS_E_FORMAT, "truncated PNG file (no complete IEND chunk)");
}

static int check_tga_length(const uint8_t *d, size_t len)
{
    if (len < 18)
        return gvis_error(GVIS_E_FORMAT, "truncated TGA header");
    int type = d[2], bpp = d[16];
    uint64_t w = le16(d + 12), h = le16(d + 14), pos = 18 + (uint64_t)d[0];
    if (d[1])
        pos += (uint64_t)le16(d + 5) * ((d[7] + 7) / 8);
    uint64_t px = w * h, bytes = (uint64_t)(bpp + 7) / 8;
    if (type == 1 || type == 2 || type == 3) {
        if (pos + px * bytes > len)
            return gvis_error(GVIS_E_FORMAT, "truncated TGA data");
    } else if (type == 9 || type == 10 || type == 11) {
        for (uint64_t n = 0; n < px;) {
            if (pos >= len)
                return gvis_error(GVIS_E_FORMAT, "truncated TGA data");
            uint8_t c = d[pos++];
            uint64_t count = (uint64_t)(c & 0x7f) + 1;
            pos += c & 0x80 ? bytes : bytes * count;
            n += count;
        }
        if (pos > len)
            return gvis_error(GVIS_E_FORMAT, "truncated TGA data");
    }
    return GVIS_OK;
}

/* Debian's stb_image (2022-09) trusts the tables of a JPEG more than it should, and a
 * crafted file reaches memory it must not (found by tests/fuzz/fuzz_jpeg):
 *  - a DHT segment's 16 code counts are not checked to sum to at most 256, so building
 *    the table writes past its arrays (stb_image 2.28 added that check);
 *  - a scan may use a Huffman or quantization table no DHT/DQT ever defined: stb then
 *    decodes with uninitialised heap memory, which can fail its STBI_ASSERTs (an abort,
 *    in the middle of a batch) or give pixels that change from run to run.
 * Walk the markers as stb reads them and refuse such files first. */
static uint8_t at(const uint8_t *d, size_t len, size_t i) { return i < len ? d[i] : 0; } /* stb reads 0 past the end */

static int check_jpeg_tables(const uint8_t *d, size_t len)
{
    unsigned dc_defined = 0, ac_defined = 0, q_defined = 0;
    int progressive = 0, ncomp = 0;
    uint8_t comp_id[4] = {0}, comp_tq[4] = {0};
    size_t p = 2;
    while (p + 4 <= len) {
        if (d[p] != 0xff) { /* entropy-coded data between markers */
            p++;
            continue;
        }
        uint8_t m = d[p + 1];
        if (m == 0xff) { /* fill byte */
            p++;
            continue;
        }
        if (m == 0x00 || m == 0x01 || m == 0xd8 || (m >= 0xd0 && m <= 0xd7)) {
            p += 2; /* stuffed zero, TEM, SOI, RSTn: no length */
            continue;
        }
        if (m == 0xd9)
            break;
        size_t seg = (size_t)d[p + 2] << 8 | d[p + 3];
        if (m == 0xc4) { /* DHT: tables while the length lasts, as stbi__process_marker reads them */
            long left = (long)seg - 2;
            size_t q = p + 4;
            while (left > 0 && q < len) {
                unsigned n = 0, code = 0, tc = d[q] >> 4, th = d[q] & 15;
                for (unsigned j = 1; j <= 16; j++)
                    n += at(d, len, q + j);
                if (n > 256)
                    return gvis_error(GVIS_E_FORMAT, "corrupt JPEG: Huffman table of %u codes (at most 256)", n);
                for (unsigned j = 1; j <= 16; j++) { /* the code lengths, as stbi__build_huffman tests them */
                    unsigned count = at(d, len, q + j);
                    code += count;
                    if (count && code - 1 >= (1u << j))
                        return gvis_error(GVIS_E_FORMAT, "corrupt JPEG: bad Huffman code lengths");
                    code <<= 1;
                }
                if (th < 4)
                    *(tc == 0 ? &dc_defined : &ac_defined) |= 1u << th;
                q += 17 + n;
                left -= 17 + (long)n;
            }
        } else if (m == 0xdb) { /* DQT: 8- or 16-bit tables while the length lasts */
            long left = (long)seg - 2;
            size_t q = p + 4;
            while (left > 0 && q < len) {
                unsigned pq = d[q] >> 4, tq = d[q] & 15, bytes = 1 + (pq ? 128 : 64);
                if (tq < 4)
                    q_defined |= 1u << tq;
                q += bytes;
                left -= (long)bytes;
            }
        } else if (m == 0xc0 || m == 0xc1 || m == 0xc2) { /* SOF: components and their tables */
            progressive = m == 0xc2;
            ncomp = at(d, len, p + 9);
            for (int i = 0; i < ncomp && i < 4; i++) {
                comp_id[i] = at(d, len, p + 10 + 3 * (size_t)i);
                comp_tq[i] = at(d, len, p + 12 + 3 * (size_t)i);
            }
        } else if (m == 0xda) { /* SOS: every table the scan decodes with must exist */
            unsigned ns = at(d, len, p + 4);
            unsigned ss = at(d, len, p + 5 + 2 * (size_t)ns), ah = at(d, len, p + 7 + 2 * (size_t)ns) >> 4;
            int need_dc = !progressive || (ss == 0 && ah == 0), need_ac = !progressive || ss > 0;
            for (unsigned i = 0; i < ns && i < 4; i++) {
                unsigned cs = at(d, len, p + 5 + 2 * (size_t)i), t = at(d, len, p + 6 + 2 * (size_t)i);
                for (int c = 0; c < ncomp && c < 4; c++)
                    if (comp_id[c] == cs && (comp_tq[c] > 3 || !(q_defined >> comp_tq[c] & 1)))
                        return gvis_error(GVIS_E_FORMAT, "corrupt JPEG: quantization table %u is used but never defined",
                                          comp_tq[c]);
                if ((need_dc && (t >> 4 > 3 || !(dc_defined >> (t >> 4) & 1))) ||
                    (need_ac && ((t & 15) > 3 || !(ac_defined >> (t & 15) & 1))))
                    return gvis_error(GVIS_E_FORMAT, "corrupt JPEG: a scan uses a Huffman table never defined");
            }
        }
        if (seg < 2)
            return gvis_error(GVIS_E_FORMAT, "corrupt JPEG: marker segment of length %zu", seg);
        p += 2 + seg;
    }
    return GVIS_OK;
}

/* stb_image keeps PNG and BMP palettes in arrays of 256 entries that it fills only up to
 * the file's palette size, and maps a pixel index past it to whatever the rest of the
 * array holds: uninitialised stack memory, which then lands in the output image (found
 * by MemorySanitizer on tests/fuzz/fuzz_png and fuzz_bmp).  A copy of such a file with
 * its palette padded to 256 black entries decodes the same where the indices are valid
 * and to black where they are not.  Returns 1 with *out (malloc'd) when a copy was made. */
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static uint32_t png_crc(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

static int pad_palette(const uint8_t *d, size_t len, uint8_t **out, size_t *out_len)
{
    size_t at = 0, old = 0, add = 0, extra = 0;
    uint8_t *insert = NULL;
    if (len >= 33 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0 && d[25] == 3) { /* PNG of colour type 3 */
        for (size_t pos = 8; pos + 12 <= len;) {
            size_t n = be32(d + pos);
            if (n > len - pos - 12)
                break;
            if (memcmp(d + pos + 4, "PLTE", 4) == 0) {
                if (n == 0 || n % 3 || n >= 768) /* malformed (stb refuses) or full */
                    return 0;
                at = pos;
                old = 12 + n;
                extra = 12 + 768;
                break;
            }
            if (memcmp(d + pos + 4, "IDAT", 4) == 0)
                return 0;
            pos += 12 + n;
        }
        if (!extra)
            return 0;
        insert = calloc(1, extra);
        if (!insert)
            return -1;
        insert[2] = 3; /* length 768 */
        memcpy(insert + 4, "PLTE", 4);
        memcpy(insert + 8, d + at + 8, old - 12);
        uint32_t crc = png_crc(insert + 4, 4 + 768);
        for (int k = 0; k < 4; k++)
            insert[8 + 768 + k] = (uint8_t)(crc >> (24 - 8 * k));
    } else if (len >= 54 && d[0] == 'B' && d[1] == 'M' && le16(d + (le32(d + 14) == 12 ? 24 : 28)) <= 8) {
        /* a BMP with a colour table (bits per pixel at 24 in an OS/2 header, else 28) */
        /* stb counts the entries from the pixel offset: (offset - 38) / 3 for OS/2 headers
         * (12 bytes; the count comes out 4 short, negative for a small table, which then
         * reads nothing), (offset - 14 - hsz) / 4 for the others.  Zero bytes inserted
         * before the pixels bring the count to 256. */
        uint32_t offset = le32(d + 10), hsz = le32(d + 14);
        uint64_t target = hsz == 12 ? 38 + 3 * 256 : 14 + (uint64_t)hsz + 4 * 256;
        if ((hsz != 12 && hsz < 40) || hsz > 1024 || offset < 14 + hsz || offset > len || offset >= target)
            return 0;
        at = offset;
        add = (size_t)(target - offset);
        extra = add;
        insert = calloc(1, extra);
        if (!insert)
            return -1;
    } else {
        return 0;
    }
    size_t n = len - old + extra;
    uint8_t *c = malloc(n);
    if (!c) {
        free(insert);
        return -1;
    }
    memcpy(c, d, at);
    memcpy(c + at, insert, extra);
    memcpy(c + at + extra, d + at + old, len - at - old);
    free(insert);
    if (add) { /* BMP: the pixels moved */
        uint32_t off = le32(d + 10) + (uint32_t)add;
        for (int k = 0; k < 4; k++)
            c[10 + k] = (uint8_t)(off >> (8 * k));
    }
    *out = c;
    *out_len = n;
    return 1;
}

/* ---- everything else through stb_image ---- */

static int decode_stb(const uint8_t *d, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    if (len > INT32_MAX)
        return gvis_error(GVIS_E_LIMIT, "file is larger than 2 GiB");
    int w, h, comp;
    if (!stbi_info_from_memory(d, (int)len, &w, &h, &comp))
        return gvis_error(GVIS_E_FORMAT, "not a readable image (%s)", stbi_failure_reason());
    int rc = check_size((size_t)w, (size_t)h, o);
    if (rc)
        return rc;
    int want = comp == 1 ? 1 : comp == 3 ? 3 : 4; /* gray+alpha widens to RGBA */
    int is16 = stbi_is_16_bit_from_memory(d, (int)len);
    int got;
    void *pixels = is16 ? (void *)stbi_load_16_from_memory(d, (int)len, &w, &h, &got, want)
                        : (void *)stbi_load_from_memory(d, (int)len, &w, &h, &got, want);
    if (!pixels)
        return gvis_error(GVIS_E_FORMAT, "corrupt or truncated image (%s)", stbi_failure_reason());
    if ((rc = gvis_image_alloc(img, w, h, want, is16 ? GVIS_U16 : GVIS_U8, 0))) {
        stbi_image_free(pixels);
        return rc;
    }
    memcpy(img->data, pixels, img->stride * (size_t)h);
    stbi_image_free(pixels);
    return GVIS_OK;
}


/* Checks what stb would trust, pads palettes, then decodes. */
int gvis_stb_decode(const uint8_t *data, size_t len, const gvis_io_opts *o, gvis_image *img)
{
    int rc;
    if (len >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0)
        rc = check_png_length(data, len);
    else if (len >= 2 && data[0] == 0xff && data[1] == 0xd8)
        rc = check_jpeg_tables(data, len);
    else if (len >= 2 && data[0] == 'B' && data[1] == 'M')
        rc = check_bmp_length(data, len);
    else
        rc = check_tga_length(data, len);
    if (rc)
        return rc;
    uint8_t *padded = NULL;
    size_t padded_len = 0;
    int pad = pad_palette(data, len, &padded, &padded_len);
    if (pad < 0)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    rc = pad ? decode_stb(padded, padded_len, o, img) : decode_stb(data, len, o, img);
    free(padded);
    return rc;
}

/* A TGA file as stb_image sees one (TGA has no signature). */
int gvis_stb_is_tga(const uint8_t *data, size_t len)
{
    return len >= 18 && (data[2] == 1 || data[2] == 2 || data[2] == 3 || data[2] == 9 || data[2] == 10 || data[2] == 11) &&
           data[1] <= 1 && stbi_info_from_memory(data, (int)(len > INT32_MAX ? INT32_MAX : len), NULL, NULL, NULL);
}
