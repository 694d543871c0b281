/* test_csr_sym_spmm.c: the CPU references behind the GPU symmetric storage
 * and SpMM: cis_csr_upper_symmetric (accepts symmetric matrices, exactly or
 * within a tolerance, refuses non-square, a missing mirror entry and a
 * differing value with a message naming the pair) and cis_csr_spmm (k = 1,
 * 3, 8, 16 vectors, row- and column-major with padded leading dimensions,
 * full and upper-triangle storage, float and double) against cis_csr_spmv
 * on each vector. Tiny hand-checkable matrices first. */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "operators/operator_internal.h"

static void upper_symmetric_cases(void) {
  /* [2 1 0; 1 3 4; 0 4 5]: symmetric */
  const double s[9] = {2, 1, 0, 1, 3, 4, 0, 4, 5};
  /* [2 1 0; 1 3 4; 0 4.5 5]: a differing value; [2 1 0; 0 3 0; 0 0 5]: a missing mirror */
  const double d[9] = {2, 1, 0, 1, 3, 4, 0, 4.5, 5}, m[9] = {2, 1, 0, 0, 3, 0, 0, 0, 5};
  const double near[9] = {2, 1, 0, 1, 3, 4, 0, 4 * (1 + 1e-14), 5};
  cis_csr *S = test_csr_from_dense(3, 3, s, CIS_F64), *D = test_csr_from_dense(3, 3, d, CIS_F64);
  cis_csr *Mi = test_csr_from_dense(3, 3, m, CIS_F64), *N = test_csr_from_dense(3, 3, near, CIS_F64);
  cis_csr *R = test_csr_from_dense(2, 3, s, CIS_F64), *U = NULL, *U2 = NULL;

  CHECK_OK(cis_csr_upper_symmetric(S, 0.0, &U));
  CHECK(U && U->nnz == 5 && (U->flags & CIS_FLAG_UPPER), "upper of S: %lld entries", U ? (long long)U->nnz : -1LL);
  if (U) {
    double x[3] = {1, -2, 3}, y[3] = {NAN, NAN, NAN};
    CHECK_OK(cis_csr_symv(U, 1.0, x, 0.0, y));
    CHECK(y[0] == 0 && y[1] == 7 && y[2] == 7, "S x = (%g %g %g), expected (0 7 7)", y[0], y[1], y[2]);
    CHECK_OK(cis_csr_upper_symmetric(U, 0.0, &U2)); /* already upper: copied */
    CHECK(U2 && U2->nnz == U->nnz, "upper of an upper triangle");
    cis_csr_free(U2);
    U2 = NULL;
  }
  cis_csr_free(U);
  U = NULL;
  CHECK(cis_csr_upper_symmetric(D, 0.0, &U) == CIS_ERR_INVALID && !U, "differing value accepted");
  CHECK(strstr(cis_last_error(), "A(2,3) = 4") && strstr(cis_last_error(), "A(3,2) = 4.5"), "message: %s",
        cis_last_error());
  CHECK(cis_csr_upper_symmetric(Mi, 0.0, &U) == CIS_ERR_INVALID && !U, "missing mirror accepted");
  CHECK(strstr(cis_last_error(), "not symmetric") != NULL, "message: %s", cis_last_error());
  CHECK(cis_csr_upper_symmetric(N, 0.0, &U) == CIS_ERR_INVALID && !U, "1e-14 difference accepted at tol 0");
  CHECK_OK(cis_csr_upper_symmetric(N, 1e-12, &U));
  CHECK(cis_csr_upper_symmetric(R, 0.0, &U2) == CIS_ERR_INVALID, "2x3 accepted");
  cis_csr_free(U);
  cis_csr_free(U2);
  cis_csr_free(S); cis_csr_free(D); cis_csr_free(Mi); cis_csr_free(N); cis_csr_free(R);
}

/* cis_csr_spmm against cis_csr_spmv / cis_csr_symv per vector. */
static void spmm_case(const cis_csr *A, int k, cis_layout lay, double beta) {
  const cis_dtype t = A->dtype;
  const size_t vs = cis_dtype_size(t);
  const int cm = lay == CIS_COL_MAJOR;
  const cis_int n = A->rows, ld = cm ? n + 2 : k + 1, len = cm ? ld * k : n * ld;
  void *X = malloc(vs * (size_t)len), *Y = malloc(vs * (size_t)len), *Y0 = malloc(vs * (size_t)len);
  void *x = malloc(vs * (size_t)n), *y = malloc(vs * (size_t)n);
  double worst = 0;
  test_fill_random(X, t, len, 3 + k);
  test_fill_random(Y0, t, len, 5 + k);
  if (beta == 0.0) test_fill_nan(Y0, t, len);
  memcpy(Y, Y0, vs * (size_t)len);
  CHECK_OK(cis_csr_spmm(A, k, 0.5, X, ld, beta, Y, ld, lay));
  for (int c = 0; c < k; ++c) {
    for (cis_int i = 0; i < n; ++i) {
      memcpy((char *)x + i * vs, (char *)X + (cm ? c * ld + i : i * ld + c) * vs, vs);
      memcpy((char *)y + i * vs, (char *)Y0 + (cm ? c * ld + i : i * ld + c) * vs, vs);
    }
    CHECK_OK((A->flags & CIS_FLAG_UPPER) ? cis_csr_symv(A, 0.5, x, beta, y) : cis_csr_spmv(A, 0.5, x, beta, y));
    for (cis_int i = 0; i < n; ++i) {
      double u = cis_get(Y, t, cm ? c * ld + i : i * ld + c), r = cis_get(y, t, i);
      if (!(fabs(u - r) <= worst)) worst = isnan(u - r) ? INFINITY : fabs(u - r);
    }
  }
  CHECK(worst == 0, "spmm k=%d %s beta %g %s: max difference %g from the per-vector product", k,
        cm ? "col-major" : "row-major", beta, cis_dtype_name(t), worst);
  free(X); free(Y); free(Y0); free(x); free(y);
}

static void spmm_cases(void) {
  const int ks[] = {1, 3, 8, 16};
  cis_csr *L = NULL;
  CHECK_OK(cis_generate("laplace3d:size=6", CIS_F64, &L));
  if (!L) return;
  for (int t = 0; t < 2; ++t) {
    cis_csr *A = NULL, *U = NULL;
    CHECK_OK(cis_csr_copy(L, (cis_dtype)t, &A));
    if (A) CHECK_OK(cis_csr_upper_symmetric(A, 0.0, &U));
    for (size_t ki = 0; U && ki < sizeof ks / sizeof *ks; ++ki)
      for (int lay = 0; lay < 2; ++lay)
        for (int b = 0; b < 2; ++b) {
          spmm_case(A, ks[ki], (cis_layout)lay, b ? 1.5 : 0.0);
          spmm_case(U, ks[ki], (cis_layout)lay, b ? 1.5 : 0.0);
        }
    double one = 1;
    CHECK(cis_csr_spmm(A, 0, 1, &one, 1, 0, &one, 1, CIS_ROW_MAJOR) == CIS_ERR_INVALID, "k = 0 accepted");
    CHECK(cis_csr_spmm(A, 2, 1, &one, 1, 0, &one, 2, CIS_ROW_MAJOR) == CIS_ERR_INVALID, "ldx < k accepted");
    cis_csr_free(A);
    cis_csr_free(U);
  }
  cis_csr_free(L);
}

/* cis_operator_apply_block on a host operator: k applies (no block form),
 * column-major with padded ld; the same as cis_csr_spmm. */
static void operator_block_case(void) {
  cis_csr *A = NULL;
  cis_operator *op = NULL;
  CHECK_OK(cis_generate("laplace3d:size=5", CIS_F64, &A));
  if (A) CHECK_OK(cis_operator_from_csr(A, &op));
  if (!op) { cis_csr_free(A); return; }
  const cis_int n = A->rows, ld = n + 2;
  const int k = 5;
  double *X = malloc(sizeof(double) * (size_t)(ld * k)), *Y = malloc(sizeof(double) * (size_t)(ld * k));
  double *Z = malloc(sizeof(double) * (size_t)(ld * k));
  test_fill_random(X, CIS_F64, ld * k, 8);
  test_fill_nan(Y, CIS_F64, ld * k);
  test_fill_nan(Z, CIS_F64, ld * k);
  CHECK(!operator_has_block(op), "a host csr operator claims a block product");
  CHECK_OK(cis_operator_apply_block(op, k, 2.0, X, ld, 0.0, Y, ld, NULL));
  CHECK_OK(cis_csr_spmm(A, k, 2.0, X, ld, 0.0, Z, ld, CIS_COL_MAJOR));
  int same = 1;
  for (int c = 0; c < k; ++c)
    for (cis_int i = 0; i < n; ++i) same &= Y[c * ld + i] == Z[c * ld + i];
  CHECK(same, "apply_block differs from cis_csr_spmm");
  CHECK(cis_operator_apply_block(op, 2, 1.0, X, n - 1, 0.0, Y, ld, NULL) == CIS_ERR_INVALID, "ldx < cols accepted");
  free(X); free(Y); free(Z);
  cis_operator_free(op);
  cis_csr_free(A);
}

int main(void) {
  upper_symmetric_cases();
  spmm_cases();
  operator_block_case();
  return test_summary("test_csr_sym_spmm");
}
