/* Affine warp with cv2.warpAffine's arithmetic, letterbox, and the fused tensor output:
 * the CPU row loops (the matrices and the dispatch are in warp_call.c).
 *
 * Sampling positions are OpenCV's: the destination-to-source matrix is the inverse
 * computed as cv2 does (matrix.c); for output pixel (x, y) the source position in
 * 1/1024 pixel is round(M0*x*1024) + round((M1*y + M2)*1024) + delta (and alike for y),
 * cut to 1/32 pixel (bilinear) or to whole pixels (nearest).  Bilinear weights are then
 * exact multiples of 1/1024: 8-bit samples are blended in integers with OpenCV's rounding
 * ((sum + 512) >> 10, the same as its 15-bit weights), 16-bit and float samples in float
 * in OpenCV's order of operations.  The CUDA kernel (cuda/ops/warp.cu) does the same. */
#include "warp.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/ops/warp.h"
#include "internal.h"
#include "warp_cpu.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

/* ---- the CPU implementation ---------------------------------------------- */

typedef struct {
    const gvis_image *src;
    const gvis_warp_desc *d;
    uint8_t *dst;     /* image output */
    size_t dpitch;
    float *tensor;    /* tensor output */
    int64_t *cx, *cy; /* per output column: round(M0*x*1024), round(M3*x*1024) */
    int32_t *cx32, *cy32;
    int small;        /* every column term fits the 32-bit path */
    int avx2;         /* the AVX2 gather path may run (the CPU has it; offsets fit 31 bits) */
    int ntasks;
    atomic_int failed;
} cpu_job;

#define SMALL_TERM ((int64_t)1 << 29)

static inline int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Source positions of one output row: whole pixels (sx, sy), clamped to a range where
 * every position outside the image still reads as outside (or as the edge), and the
 * 1/32 fractions (fx, fy; bilinear only). */
HOT static void row_positions(const cpu_job *j, int y, int32_t *restrict sx, int32_t *restrict sy,
                              int32_t *restrict fx, int32_t *restrict fy)
{
    const gvis_warp_desc *d = j->d;
    const int W = d->dst_w;
    const int nearest = d->interp == GVIS_WARP_NEAREST;
    const int64_t delta = nearest ? 512 : 16;
    const int64_t rx = llrint((d->m[1] * y + d->m[2]) * 1024.0) + delta;
    const int64_t ry = llrint((d->m[4] * y + d->m[5]) * 1024.0) + delta;
    const int sw = d->src_w, sh = d->src_h;
    if (j->small && rx > -SMALL_TERM && rx < SMALL_TERM && ry > -SMALL_TERM && ry < SMALL_TERM) {
        const int32_t rx32 = (int32_t)rx, ry32 = (int32_t)ry;
        const int32_t *cx = j->cx32, *cy = j->cy32;
        if (nearest) {
            for (int x = 0; x < W; x++) {
                int32_t X = (rx32 + cx[x]) >> 10, Y = (ry32 + cy[x]) >> 10;
                sx[x] = X < -1 ? -1 : X > sw ? sw : X;
                sy[x] = Y < -1 ? -1 : Y > sh ? sh : Y;
            }
        } else {
            for (int x = 0; x < W; x++) {
                int32_t X = (rx32 + cx[x]) >> 5, Y = (ry32 + cy[x]) >> 5;
                fx[x] = X & 31;
                fy[x] = Y & 31;
                X >>= 5;
                Y >>= 5;
                sx[x] = X < -2 ? -2 : X > sw ? sw : X;
                sy[x] = Y < -2 ? -2 : Y > sh ? sh : Y;
            }
        }
        return;
    }
    for (int x = 0; x < W; x++) {
        int64_t X = rx + j->cx[x], Y = ry + j->cy[x];
        if (nearest) {
            sx[x] = (int32_t)clamp64(X >> 10, -1, sw);
            sy[x] = (int32_t)clamp64(Y >> 10, -1, sh);
        } else {
            X >>= 5;
            Y >>= 5;
            fx[x] = (int32_t)(X & 31);
            fy[x] = (int32_t)(Y & 31);
            sx[x] = (int32_t)clamp64(X >> 5, -2, sw);
            sy[x] = (int32_t)clamp64(Y >> 5, -2, sh);
        }
    }
}

/* The rows of an axis-aligned map (m[1] == m[3] == 0): the column terms of y vanish, so
 * one source row (and fraction) holds for the whole output row. */
static void row_positions_y(const cpu_job *j, int y, int32_t *restrict sy, int32_t *restrict fy)
{
    const gvis_warp_desc *d = j->d;
    const int nearest = d->interp == GVIS_WARP_NEAREST;
    const int64_t Y = llrint((d->m[4] * y + d->m[5]) * 1024.0) + (nearest ? 512 : 16);
    int32_t s, f = 0;
    if (nearest) {
        s = (int32_t)clamp64(Y >> 10, -1, d->src_h);
    } else {
        f = (int32_t)((Y >> 5) & 31);
        s = (int32_t)clamp64(Y >> 10, -2, d->src_h);
    }
    for (int x = 0; x < d->dst_w; x++) {
        sy[x] = s;
        fy[x] = f;
    }
}

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* 8-bit bilinear, cn channels: (sum of sample * (32-fx or fx) * (32-fy or fy) + 512) >> 10,
 * which is OpenCV's (sum with 15-bit weights + 2^14) >> 15 exactly. */
static inline __attribute__((always_inline)) void bl_u8(const cpu_job *j, const int32_t *sx, const int32_t *sy,
                                                          const int32_t *fx, const int32_t *fy, uint8_t *out, int cn,
                                                          int W)
{
    const gvis_warp_desc *d = j->d;
    const uint8_t *base = j->src->data;
    const size_t st = j->src->stride;
    const int sw = d->src_w, sh = d->src_h;
    const unsigned w1 = (unsigned)(sw - 1), h1 = (unsigned)(sh - 1);
    const int rep = d->border == GVIS_WARP_REPLICATE;
    uint8_t cv[4];
    for (int c = 0; c < 4; c++)
        cv[c] = (uint8_t)d->fill[c];
    for (int x = 0; x < W; x++) {
        const int X = sx[x], Y = sy[x], a = fx[x], b = fy[x];
        const int w00 = (32 - a) * (32 - b), w01 = a * (32 - b), w10 = (32 - a) * b, w11 = a * b;
        uint8_t *o = out + (size_t)x * cn;
        if ((unsigned)X < w1 && (unsigned)Y < h1) {
            const uint8_t *p0 = base + (size_t)Y * st + (size_t)X * cn, *p1 = p0 + st;
            for (int c = 0; c < cn; c++)
                o[c] = (uint8_t)((p0[c] * w00 + p0[c + cn] * w01 + p1[c] * w10 + p1[c + cn] * w11 + 512) >> 10);
            continue;
        }
        if (!rep && (X < -1 || X >= sw || Y < -1 || Y >= sh)) { /* all four taps outside */
            for (int c = 0; c < cn; c++)
                o[c] = cv[c];
            continue;
        }
        int x0 = X, x1 = X + 1, y0 = Y, y1 = Y + 1;
        int ok00, ok01, ok10, ok11;
        if (rep) {
            x0 = clampi(x0, 0, sw - 1);
            x1 = clampi(x1, 0, sw - 1);
            y0 = clampi(y0, 0, sh - 1);
            y1 = clampi(y1, 0, sh - 1);
            ok00 = ok01 = ok10 = ok11 = 1;
        } else {
            int vx0 = x0 >= 0 && x0 < sw, vx1 = x1 >= 0 && x1 < sw, vy0 = y0 >= 0 && y0 < sh, vy1 = y1 >= 0 && y1 < sh;
            ok00 = vx0 && vy0;
            ok01 = vx1 && vy0;
            ok10 = vx0 && vy1;
            ok11 = vx1 && vy1;
        }
        const uint8_t *r0 = base + (size_t)(y0 < 0 ? 0 : y0) * st, *r1 = base + (size_t)(y1 < 0 ? 0 : y1) * st;
        for (int c = 0; c < cn; c++) {
            int v00 = ok00 ? r0[(size_t)x0 * cn + c] : cv[c];
            int v01 = ok01 ? r0[(size_t)x1 * cn + c] : cv[c];
            int v10 = ok10 ? r1[(size_t)x0 * cn + c] : cv[c];
            int v11 = ok11 ? r1[(size_t)x1 * cn + c] : cv[c];
            o[c] = (uint8_t)((v00 * w00 + v01 * w01 + v10 * w10 + v11 * w11 + 512) >> 10);
        }
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1

/* AVX2 8-bit bilinear for 8 output pixels at a time whose four taps all lie inside the
 * image: one 32-bit gather per tap brings a pixel's channels (cn <= 4) into a lane; the
 * horizontal blend is maddubs (samples x (32-fx, fx)), the vertical one madd
 * ((h0, h1) x (32-fy, fy)), then (sum + 512) >> 10: the scalar arithmetic, exactly.
 * Returns the first x not done (the scalar loop finishes the row). */
__attribute__((target("avx2"))) static int bl_u8_avx2(const cpu_job *j, const int32_t *sx, const int32_t *sy,
                                                      const int32_t *fx, const int32_t *fy, uint8_t *out, int cn,
                                                      int x, int xend)
{
    const gvis_warp_desc *d = j->d;
    const int *base = (const int *)j->src->data;
    const int st = (int)j->src->stride;
    const __m256i w1 = _mm256_set1_epi32(d->src_w - 1), h1 = _mm256_set1_epi32(d->src_h - 1);
    const __m256i minus1 = _mm256_set1_epi32(-1);
    const __m256i v32 = _mm256_set1_epi32(32), vst = _mm256_set1_epi32(st), vcn = _mm256_set1_epi32(cn);
    /* a gather of 4 bytes at tap (sx+1, sy+1) must stay inside the buffer */
    const __m256i limit = _mm256_set1_epi32((int)((size_t)(d->src_h - 1) * st + (size_t)d->src_w * cn) - 4 - cn - st);
    const __m256i r512 = _mm256_set1_epi32(512);
    const __m256i pack3 = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                           0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    const __m256i pack1 = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                           0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i perm3 = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    const __m256i perm1 = _mm256_setr_epi32(0, 4, 1, 2, 3, 5, 6, 7);
    const int constant = d->border == GVIS_WARP_CONSTANT;
    uint8_t fill8[32];
    for (int i = 0; i < 8 * cn; i++)
        fill8[i] = (uint8_t)d->fill[i % cn];
    for (; x + 8 <= xend; x += 8) {
        __m256i X = _mm256_loadu_si256((const __m256i *)(sx + x)), Y = _mm256_loadu_si256((const __m256i *)(sy + x));
        /* inside: 0 <= X < w-1 and 0 <= Y < h-1 */
        __m256i in = _mm256_and_si256(_mm256_and_si256(_mm256_cmpgt_epi32(X, minus1), _mm256_cmpgt_epi32(w1, X)),
                                      _mm256_and_si256(_mm256_cmpgt_epi32(Y, minus1), _mm256_cmpgt_epi32(h1, Y)));
        __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(Y, vst), _mm256_mullo_epi32(X, vcn));
        in = _mm256_and_si256(in, _mm256_cmpgt_epi32(limit, off));
        if (_mm256_movemask_epi8(in) != -1) {
            /* constant border with every tap of the 8 pixels outside: the fill value */
            __m256i outside = _mm256_or_si256(
                _mm256_or_si256(_mm256_cmpgt_epi32(minus1, X), _mm256_cmpgt_epi32(X, w1)),
                _mm256_or_si256(_mm256_cmpgt_epi32(minus1, Y), _mm256_cmpgt_epi32(Y, h1)));
            if (!constant || _mm256_movemask_epi8(outside) != -1)
                return x;
            memcpy(out + (size_t)x * cn, fill8, (size_t)8 * cn);
            continue;
        }
        __m256i A = _mm256_i32gather_epi32(base, off, 1);
        __m256i B = _mm256_i32gather_epi32(base, _mm256_add_epi32(off, vcn), 1);
        __m256i C = _mm256_i32gather_epi32(base, _mm256_add_epi32(off, vst), 1);
        __m256i D = _mm256_i32gather_epi32(base, _mm256_add_epi32(_mm256_add_epi32(off, vst), vcn), 1);
        __m256i FX = _mm256_loadu_si256((const __m256i *)(fx + x)), FY = _mm256_loadu_si256((const __m256i *)(fy + x));
        /* per pixel: bytes (32-fx, fx, 32-fx, fx) and 16-bit (32-fy, fy) */
        __m256i wxp = _mm256_or_si256(_mm256_sub_epi32(v32, FX), _mm256_slli_epi32(FX, 8));
        __m256i WX = _mm256_or_si256(wxp, _mm256_slli_epi32(wxp, 16));
        __m256i WY = _mm256_or_si256(_mm256_sub_epi32(v32, FY), _mm256_slli_epi32(FY, 16));
        __m256i wlo = _mm256_unpacklo_epi32(WX, WX), whi = _mm256_unpackhi_epi32(WX, WX);
        __m256i h0a = _mm256_maddubs_epi16(_mm256_unpacklo_epi8(A, B), wlo);
        __m256i h0b = _mm256_maddubs_epi16(_mm256_unpackhi_epi8(A, B), whi);
        __m256i h1a = _mm256_maddubs_epi16(_mm256_unpacklo_epi8(C, D), wlo);
        __m256i h1b = _mm256_maddubs_epi16(_mm256_unpackhi_epi8(C, D), whi);
        __m256i r0 = _mm256_madd_epi16(_mm256_unpacklo_epi16(h0a, h1a), _mm256_shuffle_epi32(WY, 0x00));
        __m256i r1 = _mm256_madd_epi16(_mm256_unpackhi_epi16(h0a, h1a), _mm256_shuffle_epi32(WY, 0x55));
        __m256i r2 = _mm256_madd_epi16(_mm256_unpacklo_epi16(h0b, h1b), _mm256_shuffle_epi32(WY, 0xAA));
        __m256i r3 = _mm256_madd_epi16(_mm256_unpackhi_epi16(h0b, h1b), _mm256_shuffle_epi32(WY, 0xFF));
        r0 = _mm256_srai_epi32(_mm256_add_epi32(r0, r512), 10);
        r1 = _mm256_srai_epi32(_mm256_add_epi32(r1, r512), 10);
        r2 = _mm256_srai_epi32(_mm256_add_epi32(r2, r512), 10);
        r3 = _mm256_srai_epi32(_mm256_add_epi32(r3, r512), 10);
        /* lane k holds pixels 4k..4k+3, channels 0..3 each, in order */
        __m256i px = _mm256_packus_epi16(_mm256_packs_epi32(r0, r1), _mm256_packs_epi32(r2, r3));
        uint8_t *o = out + (size_t)x * cn;
        if (cn == 4) {
            _mm256_storeu_si256((__m256i *)o, px);
        } else if (cn == 3) {
            px = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(px, pack3), perm3);
            _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(px));
            _mm_storel_epi64((__m128i *)(o + 16), _mm256_extracti128_si256(px, 1));
        } else {
            px = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(px, pack1), perm1);
            _mm_storel_epi64((__m128i *)o, _mm256_castsi256_si128(px));
        }
    }
    return x;
}
#endif

/* Runs the vector path over the row where it applies and the scalar one elsewhere. */
static inline __attribute__((always_inline)) void bl_u8_row(const cpu_job *j, const int32_t *sx, const int32_t *sy,
                                                              const int32_t *fx, const int32_t *fy, uint8_t *out,
                                                              int cn)
{
#ifdef HAVE_AVX2_PATH
    const int W = j->d->dst_w;
    if (j->avx2) {
        int x = 0;
        while (x < W) {
            int stop = bl_u8_avx2(j, sx, sy, fx, fy, out, cn, x, W);
            /* the scalar code takes the 8 pixels that stopped the vector path (or the tail) */
            int next = stop + 8 < W ? stop + 8 : W;
            bl_u8(j, sx + stop, sy + stop, fx + stop, fy + stop, out + (size_t)stop * cn, cn, next - stop);
            x = next;
        }
        return;
    }
#endif
    bl_u8(j, sx, sy, fx, fy, out, cn, j->d->dst_w);
}

HOT static void bl_u8_c1(const cpu_job *j, const int32_t *sx, const int32_t *sy, const int32_t *fx,
                         const int32_t *fy, uint8_t *out)
{
    bl_u8_row(j, sx, sy, fx, fy, out, 1);
}
HOT static void bl_u8_c3(const cpu_job *j, const int32_t *sx, const int32_t *sy, const int32_t *fx,
                         const int32_t *fy, uint8_t *out)
{
    bl_u8_row(j, sx, sy, fx, fy, out, 3);
}
HOT static void bl_u8_c4(const cpu_job *j, const int32_t *sx, const int32_t *sy, const int32_t *fx,
                         const int32_t *fy, uint8_t *out)
{
    bl_u8_row(j, sx, sy, fx, fy, out, 4);
}

static inline float load_sample(const uint8_t *row, size_t i, int bytes)
{
    if (bytes == 2)
        return (float)((const uint16_t *)row)[i];
    return ((const float *)row)[i];
}

/* 16-bit and float bilinear: OpenCV's float weights (products of 1 - f/32 and f/32, exact)
 * and its order of operations; 16-bit results rounded half to even and saturated. */
static inline __attribute__((always_inline)) void bl_float(const cpu_job *j, const int32_t *sx, const int32_t *sy,
                                                             const int32_t *fx, const int32_t *fy, void *out,
                                                             int cn, int bytes)
{
    const gvis_warp_desc *d = j->d;
    const uint8_t *base = j->src->data;
    const size_t st = j->src->stride;
    const int W = d->dst_w, sw = d->src_w, sh = d->src_h;
    const unsigned w1 = (unsigned)(sw - 1), h1 = (unsigned)(sh - 1);
    const int rep = d->border == GVIS_WARP_REPLICATE;
    for (int x = 0; x < W; x++) {
        const int X = sx[x], Y = sy[x];
        const float tx1 = (float)fx[x] * 0.03125f, tx0 = 1.f - tx1;
        const float ty1 = (float)fy[x] * 0.03125f, ty0 = 1.f - ty1;
        const float w00 = ty0 * tx0, w01 = ty0 * tx1, w10 = ty1 * tx0, w11 = ty1 * tx1;
        if (!rep && (X < -1 || X >= sw || Y < -1 || Y >= sh)) {
            /* all four taps outside: the border value itself, as OpenCV writes it (a blend
             * of four copies can differ from it in the last bit) */
            for (int c = 0; c < cn; c++) {
                if (bytes == 2)
                    ((uint16_t *)out)[(size_t)x * cn + c] = (uint16_t)d->fill[c];
                else
                    ((float *)out)[(size_t)x * cn + c] = d->fill[c];
            }
            continue;
        }
        int x0 = X, x1 = X + 1, y0 = Y, y1 = Y + 1;
        int ok00 = 1, ok01 = 1, ok10 = 1, ok11 = 1;
        if (!((unsigned)X < w1 && (unsigned)Y < h1)) {
            if (rep) {
                x0 = clampi(x0, 0, sw - 1);
                x1 = clampi(x1, 0, sw - 1);
                y0 = clampi(y0, 0, sh - 1);
                y1 = clampi(y1, 0, sh - 1);
            } else {
                int vx0 = x0 >= 0 && x0 < sw, vx1 = x1 >= 0 && x1 < sw, vy0 = y0 >= 0 && y0 < sh,
                    vy1 = y1 >= 0 && y1 < sh;
                ok00 = vx0 && vy0;
                ok01 = vx1 && vy0;
                ok10 = vx0 && vy1;
                ok11 = vx1 && vy1;
            }
        }
        const uint8_t *r0 = base + (size_t)(y0 < 0 ? 0 : y0) * st, *r1 = base + (size_t)(y1 < 0 ? 0 : y1) * st;
        for (int c = 0; c < cn; c++) {
            float v00 = ok00 ? load_sample(r0, (size_t)x0 * cn + c, bytes) : d->fill[c];
            float v01 = ok01 ? load_sample(r0, (size_t)x1 * cn + c, bytes) : d->fill[c];
            float v10 = ok10 ? load_sample(r1, (size_t)x0 * cn + c, bytes) : d->fill[c];
            float v11 = ok11 ? load_sample(r1, (size_t)x1 * cn + c, bytes) : d->fill[c];
            float acc = v00 * w00 + v01 * w01 + v10 * w10 + v11 * w11;
            if (bytes == 2) {
                long r = lrintf(acc);
                ((uint16_t *)out)[(size_t)x * cn + c] = (uint16_t)(r < 0 ? 0 : r > 65535 ? 65535 : r);
            } else {
                ((float *)out)[(size_t)x * cn + c] = acc;
            }
        }
    }
}

static void bl_float_any(const cpu_job *j, const int32_t *sx, const int32_t *sy, const int32_t *fx,
                         const int32_t *fy, void *out)
{
    const int cn = j->d->channels, bytes = j->d->bytes;
    if (bytes == 2)
        cn == 1 ? bl_float(j, sx, sy, fx, fy, out, 1, 2) : cn == 3 ? bl_float(j, sx, sy, fx, fy, out, 3, 2)
                                                                   : bl_float(j, sx, sy, fx, fy, out, 4, 2);
    else
        cn == 1 ? bl_float(j, sx, sy, fx, fy, out, 1, 4) : cn == 3 ? bl_float(j, sx, sy, fx, fy, out, 3, 4)
                                                                   : bl_float(j, sx, sy, fx, fy, out, 4, 4);
}

/* Nearest: the sample at the rounded position, the border value (or the edge) outside. */
static void nearest_row(const cpu_job *j, const int32_t *sx, const int32_t *sy, uint8_t *out)
{
    const gvis_warp_desc *d = j->d;
    const uint8_t *base = j->src->data;
    const size_t st = j->src->stride;
    const int W = d->dst_w, sw = d->src_w, sh = d->src_h, cn = d->channels, bytes = d->bytes;
    const size_t px = (size_t)cn * bytes;
    uint8_t cv[16];
    for (int c = 0; c < cn; c++) {
        if (bytes == 1) {
            cv[c] = (uint8_t)d->fill[c];
        } else if (bytes == 2) {
            uint16_t v = (uint16_t)d->fill[c];
            memcpy(cv + 2 * c, &v, 2);
        } else {
            memcpy(cv + 4 * c, &d->fill[c], 4);
        }
    }
    const int rep = d->border == GVIS_WARP_REPLICATE;
    for (int x = 0; x < W; x++) {
        int X = sx[x], Y = sy[x];
        const uint8_t *p;
        if ((unsigned)X < (unsigned)sw && (unsigned)Y < (unsigned)sh)
            p = base + (size_t)Y * st + (size_t)X * px;
        else if (rep)
            p = base + (size_t)clampi(Y, 0, sh - 1) * st + (size_t)clampi(X, 0, sw - 1) * px;
        else
            p = cv;
        memcpy(out + (size_t)x * px, p, px);
    }
}

#ifdef HAVE_AVX2_PATH
/* 8-bit row to tensor elements, 8 at a time: bytes picked by a shuffle, widened, then
 * v * a + b as separate multiply and add (the scalar and CUDA arithmetic).  Streaming
 * stores where aligned: the tensor is written once and not read back here. */
__attribute__((target("avx2"))) static void u8_row_to_tensor_avx2(const cpu_job *j, int y, const uint8_t *row)
{
    const gvis_warp_desc *d = j->d;
    const int W = d->dst_w, H = d->dst_h, cn = d->channels;
    if (d->out == GVIS_WARP_OUT_CHW) {
        for (int k = 0; k < cn; k++) {
            const int c = d->chmap[k];
            float *o = j->tensor + ((size_t)k * H + y) * W;
            const __m256 a = _mm256_set1_ps(d->ta[k]), b = _mm256_set1_ps(d->tb[k]);
            int8_t m[16];
            for (int i = 0; i < 16; i++)
                m[i] = (int8_t)(i < 4 ? i * cn + c : -1);
            const __m128i mask = _mm_loadu_si128((const __m128i *)m);
            const int aligned = ((uintptr_t)o & 31) == 0;
            int x = 0;
            for (; x + 8 <= W; x += 8) {
                /* the row buffer has 64 bytes of slack: 16-byte loads may run past the row */
                __m128i p0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(row + (size_t)x * cn)), mask);
                __m128i p1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(row + (size_t)(x + 4) * cn)), mask);
                __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_unpacklo_epi32(p0, p1)));
                v = _mm256_add_ps(_mm256_mul_ps(v, a), b);
                if (aligned)
                    _mm256_stream_ps(o + x, v);
                else
                    _mm256_storeu_ps(o + x, v);
            }
            for (; x < W; x++)
                o[x] = (float)row[(size_t)x * cn + c] * d->ta[k] + d->tb[k];
        }
    } else {
        float *o = j->tensor + (size_t)y * W * cn;
        const size_t n = (size_t)W * cn;
        /* a and b repeat every cn elements: 24 elements (three vectors) cover every case */
        float av[24], bv[24];
        for (int i = 0; i < 24; i++) {
            av[i] = d->ta[i % cn];
            bv[i] = d->tb[i % cn];
        }
        uint8_t tmp[24 + 16];
        size_t e = 0;
        for (; e + 24 <= n; e += 24) {
            for (int i = 0; i < 24; i++) {
                int k = (int)((e + (size_t)i) % (size_t)cn);
                tmp[i] = row[e + (size_t)i - (size_t)k + (size_t)d->chmap[k]];
            }
            for (int v = 0; v < 3; v++) {
                __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(tmp + 8 * v))));
                f = _mm256_add_ps(_mm256_mul_ps(f, _mm256_loadu_ps(av + 8 * v)), _mm256_loadu_ps(bv + 8 * v));
                _mm256_storeu_ps(o + e + 8 * v, f);
            }
        }
        for (; e < n; e++) {
            int k = (int)(e % (size_t)cn);
            o[e] = (float)row[e - (size_t)k + (size_t)d->chmap[k]] * d->ta[k] + d->tb[k];
        }
    }
}
#endif

/* One row of samples (source type) to float tensor elements. */
HOT static void row_to_tensor(const cpu_job *j, int y, const void *row)
{
    const gvis_warp_desc *d = j->d;
    const int W = d->dst_w, H = d->dst_h, cn = d->channels;
#ifdef HAVE_AVX2_PATH
    if (d->bytes == 1 && j->avx2) {
        u8_row_to_tensor_avx2(j, y, row);
        return;
    }
#endif
    for (int k = 0; k < cn; k++) {
        const int c = d->chmap[k];
        const float a = d->ta[k], b = d->tb[k];
        float *o;
        size_t step;
        if (d->out == GVIS_WARP_OUT_CHW) {
            o = j->tensor + ((size_t)k * H + y) * W;
            step = 1;
        } else {
            o = j->tensor + (size_t)y * W * cn + k;
            step = (size_t)cn;
        }
        if (d->bytes == 1) {
            const uint8_t *r = row;
            for (int x = 0; x < W; x++)
                o[(size_t)x * step] = (float)r[(size_t)x * cn + c] * a + b;
        } else if (d->bytes == 2) {
            const uint16_t *r = row;
            for (int x = 0; x < W; x++)
                o[(size_t)x * step] = (float)r[(size_t)x * cn + c] * a + b;
        } else {
            const float *r = row;
            for (int x = 0; x < W; x++)
                o[(size_t)x * step] = r[(size_t)x * cn + c] * a + b;
        }
    }
}

static void warp_task(void *arg, int index, int count)
{
    cpu_job *j = arg;
    const gvis_warp_desc *d = j->d;
    const int W = d->dst_w;
    size_t y0, y1;
    gvis_split((size_t)d->dst_h, index, count, &y0, &y1);
    if (y0 == y1)
        return;
    const size_t rowbytes = (size_t)W * d->channels * d->bytes;
    /* Positions of one row, and a row of samples for the tensor output (in cache). */
    uint8_t *scratch = malloc((size_t)W * 16 + (d->out != GVIS_WARP_OUT_IMAGE ? rowbytes : 0) + 64);
    if (!scratch) {
        atomic_store(&j->failed, 1);
        return;
    }
    int32_t *sx = (int32_t *)scratch, *sy = sx + W, *fx = sy + W, *fy = fx + W;
    /* An axis-aligned matrix (a scale and a shift: the letterbox) gives the same source
     * columns on every row and one source row per output row. */
    const int separable = d->m[1] == 0 && d->m[3] == 0;
    uint8_t *tmp = (uint8_t *)(fy + W);
    for (size_t y = y0; y < y1; y++) {
        uint8_t *out = d->out == GVIS_WARP_OUT_IMAGE ? j->dst + y * j->dpitch : tmp;
        if (separable && y > y0)
            row_positions_y(j, (int)y, sy, fy); /* sx and fx are those of the first row */
        else
            row_positions(j, (int)y, sx, sy, fx, fy);
        if (d->interp == GVIS_WARP_NEAREST)
            nearest_row(j, sx, sy, out);
        else if (d->bytes == 1)
            d->channels == 1 ? bl_u8_c1(j, sx, sy, fx, fy, out)
            : d->channels == 3 ? bl_u8_c3(j, sx, sy, fx, fy, out)
                               : bl_u8_c4(j, sx, sy, fx, fy, out);
        else
            bl_float_any(j, sx, sy, fx, fy, out);
        if (d->out != GVIS_WARP_OUT_IMAGE)
            row_to_tensor(j, (int)y, tmp);
    }
#ifdef HAVE_AVX2_PATH
    if (j->avx2)
        _mm_sfence(); /* the streaming stores are visible before the task ends */
#endif
    free(scratch);
}

/* Runs the warp described by d on the CPU: into dst (image) or tensor (warp_cpu.h). */
int gvis_warp_cpu_run(const gvis_image *src, const gvis_warp_desc *d, uint8_t *dst, size_t dpitch, float *tensor)
{
    cpu_job j = {.src = src, .d = d, .dst = dst, .dpitch = dpitch, .tensor = tensor};
    const int W = d->dst_w;
    j.cx = malloc(sizeof(int64_t) * 2 * (size_t)W + sizeof(int32_t) * 2 * (size_t)W);
    if (!j.cx)
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    j.cy = j.cx + W;
    j.cx32 = (int32_t *)(j.cy + W);
    j.cy32 = j.cx32 + W;
    j.small = 1;
    for (int x = 0; x < W; x++) {
        j.cx[x] = llrint(d->m[0] * x * 1024.0);
        j.cy[x] = llrint(d->m[3] * x * 1024.0);
        if (j.cx[x] <= -SMALL_TERM || j.cx[x] >= SMALL_TERM || j.cy[x] <= -SMALL_TERM || j.cy[x] >= SMALL_TERM)
            j.small = 0;
        j.cx32[x] = (int32_t)clamp64(j.cx[x], -SMALL_TERM, SMALL_TERM);
        j.cy32[x] = (int32_t)clamp64(j.cy[x], -SMALL_TERM, SMALL_TERM);
    }
#ifdef HAVE_AVX2_PATH
    j.avx2 = __builtin_cpu_supports("avx2") && (size_t)src->height * src->stride < ((size_t)1 << 30);
#endif
    int tasks = gvis_threads() * 4;
    if (tasks > d->dst_h)
        tasks = d->dst_h;
    atomic_init(&j.failed, 0);
    gvis_parallel(tasks, warp_task, &j);
    free(j.cx);
    if (atomic_load(&j.failed))
        return gvis_error(GVIS_E_NOMEM, "out of memory");
    return GVIS_OK;
}
