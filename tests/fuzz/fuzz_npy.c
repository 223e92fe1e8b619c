/* Fuzz target for gvis_npy_decode (every dtype and shape) and for NPY files read as
 * images.  A decoded array must hold exactly the bytes its shape and dtype say, and
 * survive an encode/decode round trip unchanged. */
#include "fuzz.h"

#define FUZZ_MAX_BYTES ((size_t)64 << 20)

static void round_trip(const gvis_array *a)
{
    gvis_buf b = {0};
    int rc = gvis_npy_encode(a, &b);
    if (a->ndim < 1) {
        /* a 0-d array has no NPY form in gvis's writer: it must say so, not crash */
        FUZZ_ASSERT(rc != GVIS_OK, "encoded a 0-d array");
        gvis_buf_free(&b);
        return;
    }
    FUZZ_ASSERT(rc == GVIS_OK, "encoding a decoded array failed: %s", gvis_errmsg());
    gvis_array back;
    rc = gvis_npy_decode(b.data, b.len, 0, &back);
    FUZZ_ASSERT(rc == GVIS_OK, "decoding gvis's own NPY failed: %s", gvis_errmsg());
    FUZZ_ASSERT(back.dtype == a->dtype && back.ndim == a->ndim && back.nbytes == a->nbytes,
                "NPY round trip changed dtype, rank or size");
    for (int i = 0; i < a->ndim; i++)
        FUZZ_ASSERT(back.shape[i] == a->shape[i], "NPY round trip changed dimension %d", i);
    FUZZ_ASSERT(a->nbytes == 0 || memcmp(back.data, a->data, a->nbytes) == 0, "NPY round trip changed the data");
    gvis_array_free(&back);
    gvis_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *d = malloc(size ? size : 1);
    if (!d)
        return 0;
    memcpy(d, data, size);
    if (size >= 6)
        memcpy(d, "\x93NUMPY", 6);
    gvis_array a;
    int rc = gvis_npy_decode(d, size, FUZZ_MAX_BYTES, &a);
    FUZZ_NOTE("npy: %d %s", rc, rc ? gvis_errmsg() : "ok");
    if (rc == GVIS_OK) {
        size_t esize = gvis_dtype_size(a.dtype), count = 1;
        FUZZ_ASSERT(esize > 0, "decoded an unknown dtype %d", (int)a.dtype);
        FUZZ_ASSERT(a.ndim >= 0 && a.ndim <= 8, "decoded rank %d", a.ndim);
        for (int i = 0; i < a.ndim; i++)
            FUZZ_ASSERT(gvis_mul_size(count, a.shape[i], &count) == 0, "shape overflows");
        FUZZ_ASSERT(count * esize == a.nbytes, "%zu elements of %zu bytes in %zu bytes", count, esize, a.nbytes);
        FUZZ_ASSERT(a.nbytes <= FUZZ_MAX_BYTES, "array over the byte limit");
        unsigned sum = 0;
        for (size_t i = 0; i < a.nbytes; i++)
            sum += ((const uint8_t *)a.data)[i];
        volatile unsigned sink = sum;
        (void)sink;
        if (a.nbytes <= (1 << 20))
            round_trip(&a);
        gvis_array_free(&a);
    } else {
        FUZZ_FAILED_WITH_MESSAGE(rc);
    }
    /* The same bytes as an image (uint8 / uint16 / float32 HxW or HxWxC). */
    gvis_io_opts o = {.max_pixels = (size_t)1 << 20};
    gvis_image img;
    rc = gvis_image_decode(d, size, &o, &img);
    if (rc == GVIS_OK) {
        FUZZ_ASSERT(img.channels == 1 || img.channels == 3 || img.channels == 4, "NPY image of %d channels",
                    img.channels);
        gvis_image_free(&img);
    } else {
        FUZZ_FAILED_WITH_MESSAGE(rc);
    }
    free(d);
    return 0;
}
