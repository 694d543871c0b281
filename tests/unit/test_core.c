/* test_core.c: CSR/COO basics, transforms, reference SpMV, allocation failure. */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "test_util.h"

static void test_coo_duplicates_and_order(void) {
  /* arrange: 3x3 with a duplicate (1,1) and entries out of order */
  cis_coo *C = NULL;
  cis_csr *A = NULL;
  CHECK_OK(coo_alloc(3, 3, 1, CIS_F64, &C));
  CHECK_OK(coo_push(C, 2, 0, 5.0));
  CHECK_OK(coo_push(C, 1, 1, 1.5));
  CHECK_OK(coo_push(C, 0, 2, 2.0));
  CHECK_OK(coo_push(C, 1, 1, 2.5));
  CHECK(coo_push(C, 3, 0, 1.0) == CIS_ERR_RANGE, "out-of-range push accepted");
  /* act */
  CHECK_OK(coo_to_csr(C, &A));
  /* assert */
  CHECK(A && A->nnz == 3, "nnz %lld, expected 3", A ? (long long)A->nnz : -1LL);
  if (A) {
    CHECK(cis_csr_check(A) == CIS_OK, "check: %s", cis_last_error());
    CHECK(A->rowptr[1] == 1 && A->rowptr[2] == 2, "row pointers wrong");
    CHECK(((double *)A->val)[1] == 4.0, "duplicate not summed: %g", ((double *)A->val)[1]);
  }
  coo_free(C);
  cis_csr_free(A);
}

static void test_transpose_expand_permute(void) {
  const double d[] = {1, 0, 0, 2, 3, 0, 4, 0, 5}; /* lower triangle */
  cis_csr *L = test_csr_from_dense(3, 3, d, CIS_F64), *S = NULL, *T = NULL, *P = NULL, *U = NULL;
  CHECK_OK(csr_symmetric_expand(L, 0, &S));
  CHECK_OK(cis_csr_transpose(S, &T));
  CHECK(S && T && S->nnz == 7 && T->nnz == 7, "expanded nnz");
  if (S && T)
    CHECK(!memcmp(S->colind, T->colind, 7 * sizeof(cis_idx)) && !memcmp(S->val, T->val, 7 * sizeof(double)),
          "symmetric matrix differs from its transpose");
  cis_idx perm[3] = {2, 0, 1}, bad[3] = {0, 0, 1};
  CHECK_OK(csr_permute_rows(S, perm, &P));
  if (P) CHECK(P->rowptr[1] - P->rowptr[0] == 2 && P->colind[0] == 0 && ((double *)P->val)[1] == 5.0,
               "permuted row 0 is not old row 2");
  cis_csr *Q = NULL;
  CHECK(csr_permute_rows(S, bad, &Q) == CIS_ERR_INVALID && Q == NULL, "bad permutation accepted");
  CHECK_OK(csr_upper(S, &U));
  if (U) CHECK(U->nnz == 5 && (U->flags & CIS_FLAG_UPPER), "upper triangle nnz %lld", (long long)U->nnz);
  cis_csr_free(L); cis_csr_free(S); cis_csr_free(T); cis_csr_free(P); cis_csr_free(U);
}

static void test_spmv_identity(cis_dtype t) {
  /* y = 2*A*x + 3*y checked against the algebraic identity on a hand matrix */
  const double d[] = {1, 2, 0, 0, 0, 3, 4, 0, 5, 0, 0, 0};
  cis_csr *A = test_csr_from_dense(3, 4, d, t);
  double xd[4] = {1, -1, 2, 0.5}, yd[3] = {1, 1, 1};
  float xf[4], yf[3];
  for (int i = 0; i < 4; ++i) xf[i] = (float)xd[i];
  for (int i = 0; i < 3; ++i) yf[i] = (float)yd[i];
  CHECK_OK(cis_csr_spmv(A, 2.0, t == CIS_F64 ? (void *)xd : (void *)xf, 3.0, t == CIS_F64 ? (void *)yd : (void *)yf));
  const double expect[3] = {2 * (1 - 2) + 3, 2 * (-3 + 8) + 3, 2 * 5 + 3};
  for (int i = 0; i < 3; ++i) {
    double y = t == CIS_F64 ? yd[i] : yf[i];
    CHECK(fabs(y - expect[i]) < 1e-6, "y[%d] = %g, expected %g", i, y, expect[i]);
  }
  cis_csr_free(A);
}

/* A 3x3 COO -> CSR, its transpose and its symmetric expansion: the calls
 * test_alloc_failure_every_n makes fail at every allocation. */
typedef struct transforms { cis_csr *A, *T, *S; } transforms;

static cis_status transforms_run(void *ctx) {
  transforms *c = ctx;
  const double d[] = {1, 0, 2, 0, 3, 0, 4, 0, 5};
  cis_coo *C = NULL;
  cis_status st = coo_alloc(3, 3, 1, CIS_F64, &C); /* capacity 1: the pushes grow it */
  for (int k = 0; k < 9 && st == CIS_OK; ++k)
    if (d[k] != 0) st = coo_push(C, (cis_idx)(k / 3), (cis_idx)(k % 3), d[k]);
  if (st == CIS_OK) st = coo_to_csr(C, &c->A);
  coo_free(C);
  if (st == CIS_OK) st = cis_csr_transpose(c->A, &c->T);
  if (st == CIS_OK) st = csr_symmetric_expand(c->A, 0, &c->S);
  return st;
}

static void transforms_undo(void *ctx) {
  transforms *c = ctx;
  cis_csr_free(c->A), cis_csr_free(c->T), cis_csr_free(c->S), c->A = c->T = c->S = NULL;
}

static void test_alloc_failure_every_n(void) {
  /* Make the n-th allocation fail for every n: CIS_ERR_ALLOC each time, no leak, then success. */
  transforms c = {NULL, NULL, NULL};
  test_alloc_every("coo -> csr, transpose, symmetric expand", transforms_run, transforms_undo, &c);
}

static void test_size_limits(void) {
  cis_csr *A = NULL;
  CHECK(cis_csr_alloc((cis_int)1 << 31, 4, 0, CIS_F64, &A) == CIS_ERR_OVERFLOW && !A, "2^31 rows accepted");
  CHECK(cis_csr_alloc(4, 4, (cis_int)1 << 62, CIS_F64, &A) != CIS_OK && !A, "2^62 nnz accepted");
}

/* cis_median: odd and even counts (mean of the middle two), unsorted input, n < 1. */
static void test_median(void) {
  double odd[5] = {3, -1, 7, 2, 2}, even[4] = {4, 1, 3, 2}, one = 5;
  CHECK(cis_median(odd, 5) == 2, "median of 5: %g", cis_median(odd, 5));
  CHECK(cis_median(even, 4) == 2.5, "median of 4: %g", cis_median(even, 4));
  CHECK(cis_median(&one, 1) == 5, "median of 1");
  CHECK(isnan(cis_median(&one, 0)) && isnan(cis_median(NULL, 3)), "median of nothing is NaN");
}

/* cis_error keeps one line and no raw bytes of an input token: line breaks
 * and tabs become spaces, control bytes and invalid UTF-8 \xHH, valid UTF-8
 * stays. */
static void test_error_escapes(void) {
  cis_status st = cis_error(CIS_ERR_PARSE, "caf\xc3\xa9 '%s'", "a\nb\tc\x01\x1b[2J\xff\xc3");
  CHECK(st == CIS_ERR_PARSE && !strcmp(cis_last_error(), "caf\xc3\xa9 'a b c\\x01\\x1B[2J\\xFF\\xC3'"),
        "escaped message: %s", cis_last_error());
}

int main(void) {
  test_error_escapes();
  test_median();
  test_coo_duplicates_and_order();
  test_transpose_expand_permute();
  test_spmv_identity(CIS_F64);
  test_spmv_identity(CIS_F32);
  test_alloc_failure_every_n();
  test_size_limits();
  return test_summary("test_core");
}
