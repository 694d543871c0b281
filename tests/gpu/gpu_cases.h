/* gpu_cases.h: the matrices every GPU test runs on (static helpers, included
 * by each tests/gpu/test_*.c), and the comparison of one device SpMV against
 * the CPU reference cis_csr_spmv in double.
 *
 * Cases: random larger than a warp, empty rows, one very long row (> 10,000
 * nonzeros), rows not a multiple of any slice or tile, 1x1, rectangular both
 * ways, a CI-structured matrix from the `ci:` generator, and a few
 * ../shared/matrices files (a missing file is a failure, not a skip). */
#ifndef CIS_GPU_CASES_H
#define CIS_GPU_CASES_H

#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "core/internal.h"
#include "io/io_internal.h"

typedef struct gpu_case {
  char name[64];
  cis_csr *A; /* double */
} gpu_case;

static inline uint64_t case_rng(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* rows x cols; row i gets len(i) distinct random columns (sorted by COO). */
static inline cis_csr *case_random(cis_int rows, cis_int cols, cis_int (*len)(cis_int, uint64_t *),
                            uint64_t seed) {
  cis_coo *C = NULL;
  cis_csr *A = NULL;
  uint64_t s = seed * 2654435761u + 7;
  char *used = calloc((size_t)cols, 1);
  if (!used || coo_alloc(rows, cols, 16, CIS_F64, &C) != CIS_OK) goto done;
  for (cis_int i = 0; i < rows; ++i) {
    cis_int n = len(i, &s);
    if (n > cols) n = cols;
    cis_int pushed = 0;
    int32_t *picked = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    while (pushed < n) {
      cis_idx j = (cis_idx)(case_rng(&s) % (uint64_t)cols);
      if (used[j]) continue;
      used[j] = 1;
      picked[pushed++] = j;
      coo_push(C, (cis_idx)i, j, (double)(case_rng(&s) % 2000001) / 1e6 - 1.0);
    }
    for (cis_int k = 0; k < n; ++k) used[picked[k]] = 0;
    free(picked);
  }
  coo_to_csr(C, &A);
done:
  coo_free(C);
  free(used);
  return A;
}

static inline cis_int len_uniform(cis_int i, uint64_t *s) { return 1 + (cis_int)(case_rng(s) % 60); }
static inline cis_int len_empty_rows(cis_int i, uint64_t *s) { return i % 3 ? 0 : 1 + (cis_int)(case_rng(s) % 40); }
static inline cis_int len_one_long(cis_int i, uint64_t *s) { return i == 7 ? 12000 : (cis_int)(case_rng(s) % 9); }
static inline cis_int len_short(cis_int i, uint64_t *s) { return 1 + (cis_int)(case_rng(s) % 7); }
static inline cis_int len_one(cis_int i, uint64_t *s) { return 1; }

static inline int add_case(gpu_case *c, int n, const char *name, cis_csr *A) {
  if (!A) {
    fprintf(stderr, "could not build case %s: %s\n", name, cis_last_error());
    test_failures++;
    return n;
  }
  snprintf(c[n].name, sizeof c[n].name, "%s", name);
  c[n].A = A;
  return n + 1;
}

/* Fill cases (room for 16); returns the count. */
static inline int gpu_cases(gpu_case *c) {
  int n = 0;
  n = add_case(c, n, "random 1000x1000", case_random(1000, 1000, len_uniform, 1));
  n = add_case(c, n, "empty rows 999x800", case_random(999, 800, len_empty_rows, 2));
  n = add_case(c, n, "one row of 12000", case_random(203, 20011, len_one_long, 3));
  n = add_case(c, n, "short rows 1037x1037", case_random(1037, 1037, len_short, 4));
  n = add_case(c, n, "1x1", case_random(1, 1, len_one, 5));
  n = add_case(c, n, "rect 100x357", case_random(100, 357, len_uniform, 6));
  n = add_case(c, n, "rect 357x100", case_random(357, 100, len_uniform, 7));
  n = add_case(c, n, "wide 300x200000 (x > 1 MB)", case_random(300, 200000, len_uniform, 8));
  n = add_case(c, n, "far apart 300x3000000 (sell16 escapes)", case_random(300, 3000000, len_short, 9));
  {
    cis_csr *A = NULL;
    CHECK_OK(cis_generate("ci:rows=4096,seed=1", CIS_F64, &A));
    n = add_case(c, n, "ci:rows=4096,seed=1", A);
  }
  const char *files[] = {"hangGlider_2.mtx", "adder_dcop_05.mtx", "SiH4.mtx", "west0479.mtx"};
  for (size_t k = 0; k < sizeof files / sizeof *files; ++k) {
    char path[512], sub[128];
    cis_csr *A = NULL;
    snprintf(sub, sizeof sub, "matrices/%s", files[k]);
    CHECK_OK(io_mm_read(test_shared_path(path, sizeof path, sub), CIS_F64, &A));
    n = add_case(c, n, files[k], A);
  }
  return n;
}

static inline void gpu_cases_free(gpu_case *c, int n) {
  for (int k = 0; k < n; ++k) cis_csr_free(c[k].A);
}

/* Reference y = alpha*A*x + beta*y0 in double, from A and x rounded to t
 * (so a float run is compared with the exact product of its own inputs). */
static inline double *reference_spmv(const cis_csr *A, cis_dtype t, const void *x, double alpha,
                              double beta, const void *y0) {
  cis_csr *At = NULL, *Ad = NULL;
  double *xd = malloc(sizeof(double) * (size_t)(A->cols ? A->cols : 1));
  double *yd = malloc(sizeof(double) * (size_t)(A->rows ? A->rows : 1));
  cis_csr_copy(A, t, &At);
  cis_csr_copy(At, CIS_F64, &Ad);
  for (cis_int j = 0; j < A->cols; ++j)
    xd[j] = t == CIS_F64 ? ((const double *)x)[j] : ((const float *)x)[j];
  for (cis_int i = 0; i < A->rows; ++i)
    yd[i] = t == CIS_F64 ? ((const double *)y0)[i] : ((const float *)y0)[i];
  cis_csr_spmv(Ad, alpha, xd, beta, yd);
  cis_csr_free(At);
  cis_csr_free(Ad);
  free(xd);
  return yd;
}

/* Relative error of a device result (dtype t) against the double reference. */
static inline double rel_err_vs(const void *y, cis_dtype t, const double *ref, cis_int n) {
  double num = 0, den = 0;
  for (cis_int i = 0; i < n; ++i) {
    double u = t == CIS_F64 ? ((const double *)y)[i] : ((const float *)y)[i];
    if (isnan(u) || isinf(u)) return INFINITY;
    num += (u - ref[i]) * (u - ref[i]);
    den += ref[i] * ref[i];
  }
  return den < 1e-300 ? sqrt(num) : sqrt(num / den);
}

/* Run plan p on random x, y poisoned (beta 0) or random (beta != 0); compare
 * with the reference. Returns the relative error (inf on failure). */
static inline double check_plan(cis_gpu_plan *p, const cis_csr *A, cis_dtype t, double beta, uint64_t seed) {
  size_t vs = cis_dtype_size(t);
  cis_int nx = A->cols ? A->cols : 1, ny = A->rows ? A->rows : 1;
  void *x = malloc(vs * (size_t)nx), *y0 = malloc(vs * (size_t)ny), *y = malloc(vs * (size_t)ny);
  void *dx = NULL, *dy = NULL;
  double err = INFINITY, *ref = NULL;
  const double alpha = 1.5;
  test_fill_random(x, t, nx, seed);
  test_fill_random(y0, t, ny, seed + 1);
  if (cis_gpu_malloc(&dx, vs * (size_t)nx) || cis_gpu_malloc(&dy, vs * (size_t)ny)) goto done;
  if (cis_gpu_upload(dx, x, vs * (size_t)nx)) goto done;
  if (beta == 0.0 ? bench_fill_nan(dy, t, ny) : cis_gpu_upload(dy, y0, vs * (size_t)ny)) goto done;
  if (cis_gpu_spmv(p, alpha, dx, beta, dy, NULL) != CIS_OK || cis_gpu_sync() != CIS_OK) {
    fprintf(stderr, "spmv failed: %s\n", cis_last_error());
    goto done;
  }
  test_fill_nan(y, t, ny);
  if (cis_gpu_download(y, dy, vs * (size_t)ny)) goto done;
  ref = reference_spmv(A, t, x, alpha, beta, y0);
  err = rel_err_vs(y, t, ref, A->rows);
done:
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  free(x);
  free(y0);
  free(y);
  free(ref);
  return err;
}

#endif
