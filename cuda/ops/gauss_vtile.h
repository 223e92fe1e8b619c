/* The wide 8-bit gray blur's per-thread work (cuda/ops/gauss_vtile.cu runs it): plain C
 * that nvcc and the host compiler both take, so that tests/test_gauss_vtile.c runs these
 * very functions on the CPU, block by block and thread by thread, against lib's blur.
 *
 * A block of GVIS_VT_THREADS threads owns a tile of TW = 255 - KT output columns and walks
 * down its rows GVIS_VT_ROWS at a time.  Each step has two phases, a barrier between them:
 * - Vertical: thread t takes 4 adjacent columns (group t % 64 of the tile's 256 columns,
 *   the tile and (KT + 1) / 2 columns each side) and RQ = 8 adjacent output rows (from
 *   row RQ (t / 64)), loads KT + RQ - 1 words of 4 bytes down the column, splits each
 *   into two words of two 16-bit lanes (columns 0 and 1, 2 and 3) and adds each word times each tap it meets into the
 *   rows' sums: tap x sample <= 256 x 255 and the taps sum to 256, so a lane's sum stays
 *   below 2^16 and no carry crosses lanes.  The sums go to shared memory, a word a column
 *   pair: sv[row][128].  Columns outside the image take their border column's sums (the
 *   constant border: the constant), so the horizontal phase needs no border arithmetic.
 * - Horizontal: thread t takes 16 adjacent output columns of two rows; the sums of its
 *   window are column pairs (e: pairs at even offsets, o: at odd ones, one __byte_perm
 *   each), and each output adds one dp2a (two 16-bit sums times two 8-bit taps) a pair,
 *   into an accumulator that starts at 2^15: S + 2^15 < 2^24, whose byte 2 is
 *   (S + 2^15) >> 16, the CPU's rounding.  A horizontal tap of 256 (the identity) does not
 *   fit dp2a's byte: the launcher declines it.
 * The taps are OpenCV's 8-bit fixed-point integers, centred in KT and zero-padded: KT is
 * 16 m - 1 (15, 31, 47, 63), which makes the tile 16 m columns narrower than 256 and the
 * window start one column right of the tile's left halo. */
#ifndef GVIS_GAUSS_VTILE_H
#define GVIS_GAUSS_VTILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gauss.h"

#define GVIS_VT_THREADS 256
#define GVIS_VT_RQ 8       /* rows a vertical item (4 measured slower from 4K: notes-gauss) */
#define GVIS_VT_ROWS 32    /* output rows a step: 4 items of GVIS_VT_RQ rows down a column */
#define GVIS_VT_SWORDS 128 /* words of sums a row of the step: 256 columns */
#define GVIS_VT_MAX_TAPS 63

typedef struct {
    const uint8_t *src;
    size_t spitch;
    uint8_t *dst;
    size_t dpitch;
    int width, height, border;
    int bh;        /* rows a block walks: a multiple of the step's rows */
    int store16;   /* dst and dpitch are 16-byte aligned */
    uint32_t bval; /* the constant border's byte */
    uint32_t ty[GVIS_VT_MAX_TAPS];           /* vertical taps, centred in KT */
    uint32_t tx4[(GVIS_VT_MAX_TAPS + 1) / 4]; /* horizontal taps, 4 bytes a word, centred, t[KT] = 0 */
} gvis_vt_params;

#ifdef __CUDACC__
#define GVIS_VT_UNROLL _Pragma("unroll")
#define GVIS_VT_NOINLINE static __device__ __noinline__
#define GVIS_VT_LD32(ptr) (*(const uint32_t *)(ptr))
#define GVIS_VT_INLINE __device__ __forceinline__
GVIS_VT_INLINE uint32_t gvis_vt_perm(uint32_t x, uint32_t y, uint32_t s) { return __byte_perm(x, y, s); }
GVIS_VT_INLINE uint32_t gvis_vt_dp2a_lo(uint32_t a, uint32_t b, uint32_t c) { return __dp2a_lo(a, b, c); }
GVIS_VT_INLINE uint32_t gvis_vt_dp2a_hi(uint32_t a, uint32_t b, uint32_t c) { return __dp2a_hi(a, b, c); }
#else
#define GVIS_VT_UNROLL
#define GVIS_VT_NOINLINE static
#define GVIS_VT_LD32(ptr) gvis_vt_ld32(ptr)
#define GVIS_VT_INLINE static inline
static inline uint32_t gvis_vt_ld32(const uint8_t *q)
{
    uint32_t v;
    memcpy(&v, q, 4);
    return v;
}
/* prmt's default mode: result byte n is byte (s >> 4n) & 7 of y:x */
GVIS_VT_INLINE uint32_t gvis_vt_perm(uint32_t x, uint32_t y, uint32_t s)
{
    const uint64_t v = (uint64_t)y << 32 | x;
    uint32_t r = 0;
    for (int n = 0; n < 4; n++)
        r |= (uint32_t)(v >> 8 * ((s >> 4 * n) & 7) & 0xff) << 8 * n;
    return r;
}
GVIS_VT_INLINE uint32_t gvis_vt_dp2a_lo(uint32_t a, uint32_t b, uint32_t c)
{
    return c + (a & 0xffff) * (b & 0xff) + (a >> 16) * (b >> 8 & 0xff);
}
GVIS_VT_INLINE uint32_t gvis_vt_dp2a_hi(uint32_t a, uint32_t b, uint32_t c)
{
    return c + (a & 0xffff) * (b >> 16 & 0xff) + (a >> 16) * (b >> 24);
}
#endif

/* The source row of input row y, -1 for the constant border's rows: the rows outside the
 * image (a call, so that the unrolled loops stay small; only the top and bottom steps make
 * it). */
GVIS_VT_NOINLINE int gvis_vt_far_row(const gvis_vt_params *p, int y)
{
    return gvis_gauss_border_index(y, p->height, p->border);
}
GVIS_VT_INLINE int gvis_vt_row(const gvis_vt_params *p, int y)
{
    return (unsigned)y < (unsigned)p->height ? y : gvis_vt_far_row(p, y);
}

/* A vertical item's 4 columns cx .. cx + 3 where some lie outside the image: each one's
 * source column (-1: the constant border), found once for all its rows. */
typedef struct {
    int m[4];
} gvis_vt_cols;
GVIS_VT_INLINE gvis_vt_cols gvis_vt_colmap(const gvis_vt_params *p, int cx)
{
    gvis_vt_cols c;
    for (int i = 0; i < 4; i++)
        c.m[i] = gvis_gauss_border_index(cx + i, p->width, p->border);
    return c;
}
/* The 4 bytes of an edge item's columns in source row r (-1: the constant). */
GVIS_VT_INLINE uint32_t gvis_vt_edge_word(const gvis_vt_params *p, int r, const gvis_vt_cols *c)
{
    if (r < 0)
        return p->bval * 0x01010101u;
    const uint8_t *row = p->src + (size_t)r * p->spitch;
    uint32_t w = 0;
    for (int i = 0; i < 4; i++)
        w |= (c->m[i] < 0 ? p->bval : (uint32_t)row[c->m[i]]) << 8 * i;
    return w;
}

/* The first output column of tile bx: tiles of 255 - KT columns, the last one moved left
 * (to a multiple of 4) to end at the image's right edge rather than computing a mostly
 * empty tile; the columns it shares with the tile before are computed twice, to the same
 * values. */
GVIS_VT_INLINE int gvis_vt_tile_x0(int width, int KT, int bx)
{
    const int tw = 255 - KT, x0 = bx * tw;
    return bx == 0 || x0 + tw <= width ? x0 : (width - tw + 3) & ~3;
}

/* Input row t of a vertical item (word w) into its RQ rows' sums: row j meets tap t - j. */
#define GVIS_VT_MADD(KT, RQ, t, w, lo, hi)                                                                     \
    do {                                                                                                   \
        const uint32_t l_ = gvis_vt_perm((w), 0, 0x4140), h_ = gvis_vt_perm((w), 0, 0x4342);              \
        GVIS_VT_UNROLL for (int j_ = 0; j_ < (RQ); j_++)                                                   \
        {                                                                                                  \
            const int k_ = (t)-j_;                                                                         \
            if (k_ >= 0 && k_ < (KT)) {                                                                    \
                lo[j_] += p->ty[k_] * l_;                                                                  \
                hi[j_] += p->ty[k_] * h_;                                                                  \
            }                                                                                              \
        }                                                                                                  \
    } while (0)

/* The vertical phase of thread tid for the step whose first output row is y0, in the tile
 * whose first output column is x0.  Items whose rows and columns all lie inside the image
 * (all but the image's edges) walk a row pointer; the others map their columns once and
 * each row that lies outside. */
#define GVIS_VT_VERT(KT)                                                                                   \
    GVIS_VT_INLINE void gvis_vt_vert_##KT(const gvis_vt_params *p, uint32_t *sv, int x0, int y0, int tid)  \
    {                                                                                                      \
        enum { RQ = GVIS_VT_RQ };                                                                          \
        const int g = tid & 63, q = tid >> 6;                                                              \
        const int cx = x0 - ((KT) + 1) / 2 + 4 * g, ya = y0 + (RQ) * q - (KT) / 2;                         \
        uint32_t lo[RQ], hi[RQ];                                                                           \
        GVIS_VT_UNROLL for (int j = 0; j < (RQ); j++) lo[j] = hi[j] = 0;                                   \
        const int inner_cols = cx >= 0 && cx + 4 <= p->width;                                              \
        if (inner_cols && ya >= 0 && ya + (KT) + (RQ)-1 <= p->height) {                                    \
            const uint8_t *s = p->src + (size_t)ya * p->spitch + cx;                                       \
            const uint32_t sp = (uint32_t)p->spitch; /* under 4 GiB: a 64-bit product, one IMAD.WIDE */   \
            GVIS_VT_UNROLL for (int t = 0; t < (KT) + (RQ)-1; t++)                                         \
            {                                                                                              \
                const uint32_t w = GVIS_VT_LD32(s + (uint64_t)sp * (uint32_t)t);                           \
                GVIS_VT_MADD(KT, RQ, t, w, lo, hi);                                                        \
            }                                                                                              \
        } else {                                                                                           \
            const gvis_vt_cols c = gvis_vt_colmap(p, cx);                                                  \
            GVIS_VT_UNROLL for (int t = 0; t < (KT) + (RQ)-1; t++)                                         \
            {                                                                                              \
                const int r = gvis_vt_row(p, ya + t);                                                      \
                const uint32_t w = r < 0          ? p->bval * 0x01010101u                                  \
                                   : inner_cols ? GVIS_VT_LD32(p->src + (size_t)r * p->spitch + cx)        \
                                                : gvis_vt_edge_word(p, r, &c);                             \
                GVIS_VT_MADD(KT, RQ, t, w, lo, hi);                                                        \
            }                                                                                              \
        }                                                                                                  \
        GVIS_VT_UNROLL for (int j = 0; j < (RQ); j++)                                                      \
        {                                                                                                  \
            sv[((RQ) * q + j) * GVIS_VT_SWORDS + 2 * g] = lo[j];                                           \
            sv[((RQ) * q + j) * GVIS_VT_SWORDS + 2 * g + 1] = hi[j];                                       \
        }                                                                                                  \
    }

/* Four outputs' accumulators (byte 2 of each) as one word. */
GVIS_VT_INLINE uint32_t gvis_vt_pack(uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3)
{
    return gvis_vt_perm(gvis_vt_perm(a0, a1, 0x0062), gvis_vt_perm(a2, a3, 0x0062), 0x5410);
}

/* The horizontal phase: 16 output columns (group cg) of row rr of the step. */
#define GVIS_VT_HROW(KT)                                                                                   \
    GVIS_VT_INLINE void gvis_vt_hrow_##KT(const gvis_vt_params *p, const uint32_t *sv, int x0, int y0,     \
                                          int cg, int rr)                                                  \
    {                                                                                                      \
        enum { NP = ((KT) + 1) / 2, NE = 8 + NP };                                                         \
        const int y = y0 + rr, X = x0 + 16 * cg;                                                           \
        if (y >= p->height || X >= p->width)                                                               \
            return;                                                                                        \
        const uint32_t *row = sv + rr * GVIS_VT_SWORDS + 8 * cg;                                           \
        uint32_t e[NE], o[NE - 1], acc[16];                                                                \
        GVIS_VT_UNROLL for (int i = 0; i < NE; i++) e[i] = row[i];                                         \
        GVIS_VT_UNROLL for (int i = 0; i < NE - 1; i++) o[i] = gvis_vt_perm(e[i], e[i + 1], 0x5432);       \
        GVIS_VT_UNROLL for (int i = 0; i < 16; i++) acc[i] = 0x8000;                                       \
        GVIS_VT_UNROLL for (int m = 0; m < NP; m++)                                                        \
        {                                                                                                  \
            const uint32_t tw = p->tx4[m >> 1];                                                            \
            GVIS_VT_UNROLL for (int i = 0; i < 16; i++)                                                    \
            {                                                                                              \
                const uint32_t a = (i & 1) ? e[(i + 1) / 2 + m] : o[i / 2 + m];                            \
                acc[i] = (m & 1) ? gvis_vt_dp2a_hi(a, tw, acc[i]) : gvis_vt_dp2a_lo(a, tw, acc[i]);        \
            }                                                                                              \
        }                                                                                                  \
        uint32_t wv[4];                                                                                    \
        GVIS_VT_UNROLL for (int i = 0; i < 4; i++)                                                         \
            wv[i] = gvis_vt_pack(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);              \
        uint8_t *d = p->dst + (size_t)y * p->dpitch + X;                                                   \
        if (X + 16 <= p->width) {                                                                          \
            gvis_vt_store16(d, wv, p->store16 && !(X & 15));                                               \
        } else {                                                                                           \
            for (int i = 0; i < 16 && X + i < p->width; i++)                                               \
                d[i] = (uint8_t)(wv[i >> 2] >> 8 * (i & 3));                                               \
        }                                                                                                  \
    }

/* The horizontal phase of thread tid: group tid % NCG of rows tid / NCG and that + 16. */
#define GVIS_VT_HORIZ(KT)                                                                                  \
    GVIS_VT_INLINE void gvis_vt_horiz_##KT(const gvis_vt_params *p, const uint32_t *sv, int x0, int y0,    \
                                           int tid)                                                        \
    {                                                                                                      \
        enum { NCG = (255 - (KT)) / 16 };                                                                  \
        if (tid < 16 * NCG)                                                                                \
            GVIS_VT_UNROLL for (int r = 0; r < GVIS_VT_ROWS / 16; r++)                                     \
                gvis_vt_hrow_##KT(p, sv, x0, y0, tid % NCG, tid / NCG + 16 * r);                          \
    }

GVIS_VT_INLINE void gvis_vt_store16(uint8_t *d, const uint32_t *w, int aligned16)
{
#ifdef __CUDACC__
    if (aligned16) {
        *(uint4 *)d = make_uint4(w[0], w[1], w[2], w[3]);
        return;
    }
    for (int i = 0; i < 4; i++)
        ((uint32_t *)d)[i] = w[i];
#else
    (void)aligned16;
    for (int i = 0; i < 4; i++)
        memcpy(d + 4 * i, &w[i], 4);
#endif
}

/* The template a kernel of kt taps (the longer side) runs in, 0 if none. */
static inline int gvis_vt_template(int kt)
{
    return kt <= 15 ? 15 : kt <= 31 ? 31 : kt <= 47 ? 47 : kt <= GVIS_VT_MAX_TAPS ? 63 : 0;
}

/* The parameters for d in template KT (taps centred and packed), but bh: 0 where the
 * kernel does not take d (not 8-bit gray, a kernel wider than 63, a horizontal tap of 256,
 * buffers not 4-byte aligned). */
static inline int gvis_vt_fill(gvis_vt_params *p, const gvis_gauss_desc *d, const void *src, size_t spitch,
                               void *dst, size_t dpitch)
{
    const int kt = d->kx > d->ky ? d->kx : d->ky, KT = gvis_vt_template(kt);
    if (d->bytes != 1 || d->channels != 1 || !KT || d->width <= 0 || d->height <= 0)
        return 0;
    if (((uintptr_t)src | spitch | (uintptr_t)dst | dpitch) % 4 || (uint64_t)d->height * spitch >= (1ull << 32))
        return 0;
    memset(p, 0, sizeof *p);
    uint32_t tx[GVIS_VT_MAX_TAPS + 1] = {0};
    for (int k = 0; k < KT; k++) {
        const int ix = k - (KT / 2 - d->kx / 2), iy = k - (KT / 2 - d->ky / 2);
        if (ix >= 0 && ix < d->kx) {
            if (!(d->wx[ix] >= 0.0f && d->wx[ix] <= 255.0f))
                return 0;
            tx[k] = (uint32_t)d->wx[ix];
        }
        p->ty[k] = iy >= 0 && iy < d->ky ? (uint32_t)d->wy[iy] : 0;
    }
    for (int i = 0; i < (KT + 1) / 4; i++)
        p->tx4[i] = tx[4 * i] | tx[4 * i + 1] << 8 | tx[4 * i + 2] << 16 | tx[4 * i + 3] << 24;
    p->src = (const uint8_t *)src;
    p->spitch = spitch;
    p->dst = (uint8_t *)dst;
    p->dpitch = dpitch;
    p->width = d->width;
    p->height = d->height;
    p->border = d->border;
    p->store16 = ((uintptr_t)dst | dpitch) % 16 == 0;
    p->bval = (uint32_t)d->border_value;
    return KT;
}

#ifdef __cplusplus
extern "C" {
#endif
/* What gvis_cu_gauss_vtile returns for work it does not take: the caller goes on to the
 * next kernel. */
#define GVIS_VT_DECLINED (-1)
/* Blurs 8-bit gray as gvis_cu_gauss does (same sums, same results), kernels of up to 63
 * taps from the sizes gauss_vtile.cu gives; a cudaError_t or GVIS_VT_DECLINED. */
int gvis_cu_gauss_vtile(const void *d_src, size_t spitch, void *d_dst, size_t dpitch, const gvis_gauss_desc *d,
                        void *stream);
#ifdef __cplusplus
}
#endif

#define GVIS_VT_FUNCS(KT)                                                                                  \
    GVIS_VT_VERT(KT)                                                                                       \
    GVIS_VT_HROW(KT)                                                                                       \
    GVIS_VT_HORIZ(KT)
GVIS_VT_FUNCS(15)
GVIS_VT_FUNCS(31)
GVIS_VT_FUNCS(47)
GVIS_VT_FUNCS(63)

#endif
