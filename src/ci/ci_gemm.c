/* ci_gemm.c: C = A B (row-major) for the direct CI sigma: an optimised
 * BLAS's dgemm or the own packed GEMM (contract in ci_gemm.h), and the
 * build's dense linear algebra named for `cisparse --version`. */
#include <stdint.h>
#include <stdio.h>
#include "ci/ci_gemm.h"
#include "cisparse/util.h"

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
void ci_gemm_rm_ld(int m, int n, int k, const double *A, int lda, const double *B, int ldb, double *C, int ldc) {
  const double one = 1.0, zero = 0.0;
  dgemm_("N", "N", &n, &m, &k, &one, B, &ldb, A, &lda, &zero, C, &ldc);
}
const char *ci_gemm_name(void) { return "BLAS dgemm (" CISPARSE_BLAS_NAME ")"; }
cis_int ci_gemm_max_n(void) { return INT32_MAX; }

#else

void ci_gemm_init(void) { (void)ci_gemm_own_kernel(); }
void ci_gemm_rm(int m, cis_int n, int k, const double *A, const double *B, double *C) {
  ci_gemm_own(0, m, n, k, A, k, B, n, 0, C, n);
}
void ci_gemm_rm_ld(int m, int n, int k, const double *A, int lda, const double *B, int ldb, double *C, int ldc) {
  ci_gemm_own(0, m, n, k, A, lda, B, ldb, 0, C, ldc);
}
#ifdef CISPARSE_BLAS_UNUSED
#define OWN_GEMM_NOTE " (" CISPARSE_BLAS_UNUSED " found, not used)"
#else
#define OWN_GEMM_NOTE " (no BLAS found)"
#endif
const char *ci_gemm_name(void) {
  static const char *names[CI_GEMM_OWN_KERNELS] = {"own packed GEMM, generic kernel" OWN_GEMM_NOTE,
                                                   "own packed GEMM, avx2 kernel" OWN_GEMM_NOTE,
                                                   "own packed GEMM, avx512 kernel" OWN_GEMM_NOTE};
  return names[ci_gemm_own_kernel()];
}
cis_int ci_gemm_max_n(void) { return INT64_MAX; }

#endif

#ifdef CISPARSE_HAVE_LAPACK
#define LAPACK_NOTE "lapack: " CISPARSE_LAPACK_NAME " (dsyevr)"
#else
#define LAPACK_NOTE "lapack: none (built-in Householder + QL eigensolver)"
#endif

const char *cis_blas_info(void) {
#ifdef CISPARSE_HAVE_BLAS
  return "blas: " CISPARSE_BLAS_NAME "; " LAPACK_NOTE;
#else
  static const char *names[CI_GEMM_OWN_KERNELS] = {"blas: own-gemm generic" OWN_GEMM_NOTE "; " LAPACK_NOTE,
                                                   "blas: own-gemm avx2" OWN_GEMM_NOTE "; " LAPACK_NOTE,
                                                   "blas: own-gemm avx512" OWN_GEMM_NOTE "; " LAPACK_NOTE};
  return names[ci_gemm_own_kernel()];
#endif
}
