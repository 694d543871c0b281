/* test_format_table.c: the one format list (src/formats/format_list.h) as
 * the registry reads it: the formats of any matrix listed in their order,
 * the symmetric formats (csr-sym, sym-seg: the upper triangle) built by
 * name from a symmetric matrix and refused for another, their products
 * equal to the reference SpMV of the whole matrix, their byte counts, and
 * allocation failures that give CIS_ERR_ALLOC and nothing else. */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "test_util.h"

static const char *const symmetric_formats[] = {"csr-sym", "sym-seg"};

/* The formats every matrix can be stored in, in the table's order (what
 * `cisparse info`, bench and Python's formats() list). */
static void test_full_list(void) {
  static const char *const want[] = {"csr", "ell", "ellr", "sell", "sellr", "sellcs", "csb", "hyb", "csr5", "sell16"};
  const int n = (int)(sizeof want / sizeof *want);

  const int count = cis_format_count();

  CHECK(count == n, "cis_format_count() = %d, expected %d", count, n);
  for (int i = 0; i < n && i < count; ++i)
    CHECK(cis_format_name(i) && !strcmp(cis_format_name(i), want[i]), "format %d: %s, expected %s", i,
          cis_format_name(i) ? cis_format_name(i) : "(null)", want[i]);
  CHECK(cis_format_name(count) == NULL && cis_format_name(-1) == NULL, "names past the list");
}

/* y = A x for a symmetric A in format `name` and precision t, against the
 * reference SpMV of the whole matrix; built from A and from its upper triangle. */
static void check_symmetric(const cis_csr *A64, const char *name, cis_dtype t) {
  cis_csr *A = NULL, *U = NULL;
  cis_matrix *M = NULL, *MU = NULL;
  cis_format_params p = cis_format_params_default();
  const size_t vs = cis_dtype_size(t);
  void *x = malloc(vs * (size_t)A64->cols), *y = malloc(vs * (size_t)A64->rows), *r = malloc(vs * (size_t)A64->rows);
  p.dtype = t;
  CHECK_OK(cis_csr_copy(A64, t, &A));
  CHECK_OK(csr_upper(A, &U));
  if (!x || !y || !r || !A || !U) goto done;
  test_fill_random(x, t, A->cols, 11);

  CHECK_OK(cis_matrix_create(A, name, &p, &M));
  CHECK_OK(cis_matrix_create(U, name, &p, &MU));

  if (!M || !MU) goto done;
  CHECK(!strcmp(cis_matrix_format_name(M), name) && cis_matrix_dtype(M) == t, "%s: name %s", name,
        cis_matrix_format_name(M));
  CHECK(cis_matrix_rows(M) == A->rows && cis_matrix_cols(M) == A->cols && cis_matrix_nnz(M) == A->nnz &&
            cis_matrix_nnz(MU) == A->nnz, "%s: %lld x %lld, nnz %lld and %lld, expected %lld", name,
        (long long)cis_matrix_rows(M), (long long)cis_matrix_cols(M), (long long)cis_matrix_nnz(M),
        (long long)cis_matrix_nnz(MU), (long long)A->nnz);
  if (!strcmp(name, "csr-sym"))
    CHECK(cis_matrix_bytes(M) == (A->rows + 1) * 8 + U->nnz * (cis_int)(4 + vs), "csr-sym bytes %lld",
          (long long)cis_matrix_bytes(M));
  CHECK(cis_matrix_bytes(M) == cis_matrix_bytes(MU) && cis_matrix_bytes(M) > 0, "%s bytes %lld vs %lld", name,
        (long long)cis_matrix_bytes(M), (long long)cis_matrix_bytes(MU));
  CHECK_OK(cis_csr_spmv(A, 1.0, x, 0.0, r));
  for (int from_upper = 0; from_upper < 2; ++from_upper) {
    test_fill_nan(y, t, A->rows);
    CHECK_OK(cis_matrix_spmv(from_upper ? MU : M, 1.0, x, 0.0, y));
    CHECK(test_rel_err(y, r, t, A->rows) < test_tol(t), "%s %s (from %s): error %g", name, cis_dtype_name(t),
          from_upper ? "the upper triangle" : "the whole matrix", test_rel_err(y, r, t, A->rows));
  }
done:
  cis_matrix_free(M);
  cis_matrix_free(MU);
  cis_csr_free(A);
  cis_csr_free(U);
  free(x);
  free(y);
  free(r);
}

static void test_symmetric_formats(void) {
  cis_csr *A = NULL;
  CHECK_OK(cis_load("laplace3d:size=9,points=7", CIS_F64, &A));
  for (size_t f = 0; A && f < sizeof symmetric_formats / sizeof *symmetric_formats; ++f) {
    check_symmetric(A, symmetric_formats[f], CIS_F64);
    check_symmetric(A, symmetric_formats[f], CIS_F32);
  }
  cis_csr_free(A);
}

/* A non-symmetric matrix is refused naming the pair; an unknown name's
 * message lists the symmetric formats too; csr-sym dumps, sym-seg has no dump. */
static void test_refusals_and_dump(void) {
  static const double d[9] = {4, 1, 0, 2, 4, 1, 0, 1, 4};
  static const double s[9] = {4, 1, 0, 1, 4, 1, 0, 1, 4};
  cis_csr *N = test_csr_from_dense(3, 3, d, CIS_F64), *S = test_csr_from_dense(3, 3, s, CIS_F64);
  cis_matrix *M = NULL;
  FILE *f = tmpfile();
  for (size_t k = 0; N && k < sizeof symmetric_formats / sizeof *symmetric_formats; ++k) {
    const cis_status st = cis_matrix_create(N, symmetric_formats[k], NULL, &M);
    CHECK(st == CIS_ERR_INVALID && !M && strstr(cis_last_error(), "not symmetric"), "%s of a non-symmetric matrix: %s (%s)",
          symmetric_formats[k], cis_status_name(st), cis_last_error());
  }
  CHECK(cis_matrix_create(S, "nosuch", NULL, &M) == CIS_ERR_NOT_FOUND && strstr(cis_last_error(), "csr-sym") &&
            strstr(cis_last_error(), "sym-seg"), "unknown name: %s", cis_last_error());
  CHECK_OK(cis_matrix_create(S, "csr-sym", NULL, &M));
  if (M && f) CHECK_OK(cis_matrix_dump(M, f));
  cis_matrix_free(M);
  M = NULL;
  CHECK_OK(cis_matrix_create(S, "sym-seg", NULL, &M));
  if (M && f) CHECK(cis_matrix_dump(M, f) == CIS_ERR_UNSUPPORTED, "sym-seg dump: %s", cis_last_error());
  cis_matrix_free(M);
  if (f) fclose(f);
  cis_csr_free(N);
  cis_csr_free(S);
}

/* Make the n-th allocation of each symmetric build fail, for every n:
 * CIS_ERR_ALLOC each time, then success (test_alloc_every). */
static void test_alloc_failures(void) {
  cis_csr *A = NULL;
  CHECK_OK(cis_load("laplace3d:size=5,points=7", CIS_F64, &A));
  for (size_t k = 0; A && k < sizeof symmetric_formats / sizeof *symmetric_formats; ++k) {
    test_alloc_every_build(A, symmetric_formats[k], NULL);
  }
  cis_csr_free(A);
}

int main(void) {
  test_full_list();
  test_symmetric_formats();
  test_refusals_and_dump();
  test_alloc_failures();
  return test_summary("test_format_table");
}
