/* rdm_product.c: raw2 += D_bra D_ket^T, the RDMs' one product (rdm.c and
 * rdm_irrep.c, ci_rdm.h): BLAS dsyrk/dgemm where one was found, else the
 * project's own packed GEMM (ci_gemm_own). */
#include "ci/ci_gemm.h"
#include "ci/ci_rdm.h"

#ifdef CISPARSE_HAVE_BLAS
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha, const double *a,
            const int *lda, const double *beta, double *c, const int *ldc);
#endif

/* ci_rdm.h. Db == Dk: the upper triangle in column-major terms (mirrored
 * once at the end, symmetric_fill), half the FLOPs (dsyrk). */
void ci_rdm_accumulate2(cis_int n2, cis_int m, const double *Db, const double *Dk, double *R) {
#ifdef CISPARSE_HAVE_BLAS
  const int nn = (int)n2, mm = (int)m;
  const double one = 1.0;
  if (Db == Dk) dsyrk_("U", "T", &nn, &mm, &one, Dk, &mm, &one, R, &nn);
  else dgemm_("T", "N", &nn, &nn, &mm, &one, Db, &mm, Dk, &mm, &one, R, &nn);
#else
  /* row-major R += Dk Db^T (both triangles; symmetric_fill overwrites the lower) */
  ci_gemm_own(1, n2, n2, m, Dk, m, Db, m, 1, R, n2);
#endif
}

