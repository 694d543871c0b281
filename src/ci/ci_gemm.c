/* ci_gemm.c: C = A B (row-major) for the direct CI sigma: BLAS dgemm or a
 * cache-blocked fallback (contract in ci_gemm.h). */
#include "ci/ci_gemm.h"
#include <stdint.h>

#define TILE 512 /* columns per tile: 4 rows of C and one row of B stay in L1 */

void ci_gemm_rm_builtin(int m, cis_int n, int k, const double *A, const double *B, double *C) {
  const cis_int ntile = (n + TILE - 1) / TILE;
  for (cis_int t = 0; t < ntile; ++t) {
    const cis_int j0 = t * TILE, w = n - j0 < TILE ? n - j0 : TILE;
    int i = 0;
    for (; i + 4 <= m; i += 4) { /* four rows of C at a time: each B row is read once per four */
      double *c0 = C + (cis_int)i * n + j0, *c1 = c0 + n, *c2 = c1 + n, *c3 = c2 + n;
      for (cis_int j = 0; j < w; ++j) c0[j] = c1[j] = c2[j] = c3[j] = 0.0;
      for (int l = 0; l < k; ++l) {
        const double *b = B + (cis_int)l * n + j0;
        const double a0 = A[(cis_int)i * k + l], a1 = A[(cis_int)(i + 1) * k + l];
        const double a2 = A[(cis_int)(i + 2) * k + l], a3 = A[(cis_int)(i + 3) * k + l];
        for (cis_int j = 0; j < w; ++j) {
          c0[j] += a0 * b[j];
          c1[j] += a1 * b[j];
          c2[j] += a2 * b[j];
          c3[j] += a3 * b[j];
        }
      }
    }
    for (; i < m; ++i) {
      double *c0 = C + (cis_int)i * n + j0;
      for (cis_int j = 0; j < w; ++j) c0[j] = 0.0;
      for (int l = 0; l < k; ++l) {
        const double *b = B + (cis_int)l * n + j0;
        const double a0 = A[(cis_int)i * k + l];
        for (cis_int j = 0; j < w; ++j) c0[j] += a0 * b[j];
      }
    }
  }
}
#ifdef CISPARSE_HAVE_BLAS
/* Fortran BLAS (column-major, LP64 integers). */
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc);

/* OpenBLAS's thread control, when the BLAS is OpenBLAS (weak: absent elsewhere). */
void openblas_set_num_threads(int n) __attribute__((weak));
void ci_gemm_init(void) {
  if (openblas_set_num_threads) openblas_set_num_threads(1);
}

void ci_gemm_rm(int m, cis_int n, int k, const double *A, const double *B, double *C) {
  /* Row-major C = A B is column-major C^T = B^T A^T: dgemm(N, N, n, m, k, B, A). */
  const int nn = (int)n;
  const double one = 1.0, zero = 0.0;
  dgemm_("N", "N", &nn, &m, &k, &one, B, &nn, A, &k, &zero, C, &nn);
}
const char *ci_gemm_name(void) { return "BLAS dgemm (" CISPARSE_BLAS_NAME ")"; }
cis_int ci_gemm_max_n(void) { return INT32_MAX; }

#else

void ci_gemm_init(void) {}
void ci_gemm_rm(int m, cis_int n, int k, const double *A, const double *B, double *C) {
  ci_gemm_rm_builtin(m, n, k, A, B, C);
}
const char *ci_gemm_name(void) { return "built-in blocked GEMM (no BLAS found)"; }
cis_int ci_gemm_max_n(void) { return INT64_MAX; }

#endif
