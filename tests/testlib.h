/* Helpers for gvis's C tests: checks, random images, comparisons, GPU skip. */
#ifndef GVIS_TESTLIB_H
#define GVIS_TESTLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "gvis.h"

extern int t_failures;
extern int t_checks;

#define CHECK(cond) do { t_checks++; if (!(cond)) { t_failures++; \
    fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECKF(cond, ...) do { t_checks++; if (!(cond)) { t_failures++; \
    fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
/* A gvis call that must succeed; prints gvis_errmsg() when it does not. */
#define CHECK_OK(expr) do { int rc_ = (expr); t_checks++; if (rc_ != GVIS_OK) { t_failures++; \
    fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #expr, rc_, gvis_errmsg()); } } while (0)

/* Ends a test: prints a summary, returns the exit status (0 or 1). */
int t_done(const char *name);

/* Deterministic random numbers (xorshift); seeded by t_seed (GVIS_TEST_SEED or fixed). */
void t_seed(uint64_t seed);
uint64_t t_rand(void);
double t_uniform(void); /* [0, 1) */

/* Fills an image: kind 0 uniform random, 1 smooth (a natural-like picture: gradients,
 * blobs, noise), 2 near-constant (four values), 3 constant. */
void t_fill(gvis_image *img, int kind);
/* Allocates and fills; align > 1 gives a row stride other than the tight one. */
void t_make(gvis_image *img, int w, int h, int c, gvis_type type, int kind, size_t align);
/* Largest absolute difference over all samples (same size, type and channels required). */
double t_maxdiff(const gvis_image *a, const gvis_image *b);
/* 1 when the images hold identical samples (strides may differ). */
int t_equal(const gvis_image *a, const gvis_image *b);

/* The level of GVIS_TEST_QUICK (0 when unset): 1 leaves out the large sizes (the
 * compute-sanitizer runs), 2 also thins out repeated cases (racecheck, which is slowest),
 * keeping every kernel variant. */
int t_quick(void);

/* Returns a context on the first CUDA device, or exits 77 (skipped) when none is usable. */
gvis_ctx *t_cuda_ctx_or_skip(void);
gvis_ctx *t_cpu_ctx(void);

#endif
