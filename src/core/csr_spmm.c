/* csr_spmm.c: the CPU references of the symmetric-storage and SpMM kernels:
 *  - cis_csr_upper_symmetric: the upper triangle of a matrix checked to be
 *    symmetric (pattern and values), so that --symmetric never halves a
 *    matrix that is not;
 *  - cis_csr_spmm: Y = alpha*A*X + beta*Y for k vectors, row- or
 *    column-major, by cis_csr_spmv / cis_csr_symv on each vector (gathered
 *    into a contiguous one): slow and obviously right. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/internal.h"

/* Position of column j in row i of A, or -1 (columns sorted). */
static cis_int find_in_row(const cis_csr *A, cis_int i, cis_idx j) {
  cis_int lo = A->rowptr[i], hi = A->rowptr[i + 1];
  while (lo < hi) {
    cis_int mid = lo + (hi - lo) / 2;
    if (A->colind[mid] < j) lo = mid + 1; else hi = mid;
  }
  return lo < A->rowptr[i + 1] && A->colind[lo] == j ? lo : -1;
}

/* The first (row-major) entry (i, j) whose mirror is missing or differs;
 * rows if none. *pos: its position in A. */
static cis_int first_asymmetric(const cis_csr *A, double tol, cis_int *pos, cis_int *mirror) {
  cis_int bad = A->rows;
  CIS_PRAGMA(omp parallel for schedule(dynamic, 1024) reduction(min : bad))
  for (cis_int i = 0; i < A->rows; ++i) {
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1] && i < bad; ++k) {
      cis_idx j = A->colind[k];
      if (j == i) continue;
      cis_int m = find_in_row(A, j, (cis_idx)i);
      double a = cis_get(A->val, A->dtype, k), b = m >= 0 ? cis_get(A->val, A->dtype, m) : 0.0;
      double big = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
      if (m < 0 || !(fabs(a - b) <= tol * big || a == b)) {
        bad = i;
        break;
      }
    }
  }
  *pos = *mirror = -1;
  if (bad == A->rows) return bad;
  for (cis_int k = A->rowptr[bad]; k < A->rowptr[bad + 1]; ++k) { /* the entry, serially */
    cis_idx j = A->colind[k];
    if (j == bad) continue;
    cis_int m = find_in_row(A, j, (cis_idx)bad);
    double a = cis_get(A->val, A->dtype, k), b = m >= 0 ? cis_get(A->val, A->dtype, m) : 0.0;
    double big = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    if (m < 0 || !(fabs(a - b) <= tol * big || a == b)) {
      *pos = k;
      *mirror = m;
      break;
    }
  }
  return bad;
}

cis_status cis_csr_upper_symmetric(const cis_csr *A, double tol, cis_csr **out) {
  cis_int pos, mirror;
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_csr_upper_symmetric: NULL output");
  *out = NULL;
  if (!A) return cis_error(CIS_ERR_INVALID, "cis_csr_upper_symmetric: NULL matrix");
  if (!(tol >= 0)) return cis_error(CIS_ERR_INVALID, "cis_csr_upper_symmetric: tolerance %g must be >= 0", tol);
  if (A->rows != A->cols)
    return cis_error(CIS_ERR_INVALID, "symmetric storage needs a square matrix, got %lld x %lld",
                     (long long)A->rows, (long long)A->cols);
  if (A->flags & CIS_FLAG_UPPER) {
    for (cis_int i = 0; i < A->rows; ++i)
      if (A->rowptr[i + 1] > A->rowptr[i] && A->colind[A->rowptr[i]] < i)
        return cis_error(CIS_ERR_INVALID, "matrix flagged upper-triangular has entry (%lld, %d) below the diagonal",
                         (long long)i + 1, A->colind[A->rowptr[i]] + 1);
    return cis_csr_copy(A, A->dtype, out);
  }
  cis_int i = first_asymmetric(A, tol, &pos, &mirror);
  if (i < A->rows) {
    cis_idx j = A->colind[pos];
    if (mirror < 0)
      return cis_error(CIS_ERR_INVALID,
                       "matrix is not symmetric: A(%lld,%d) = %.17g is stored but A(%d,%lld) is not; "
                       "symmetric storage refused", (long long)i + 1, j + 1, cis_get(A->val, A->dtype, pos),
                       j + 1, (long long)i + 1);
    return cis_error(CIS_ERR_INVALID,
                     "matrix is not symmetric: A(%lld,%d) = %.17g but A(%d,%lld) = %.17g (tolerance %g); "
                     "symmetric storage refused", (long long)i + 1, j + 1, cis_get(A->val, A->dtype, pos), j + 1,
                     (long long)i + 1, cis_get(A->val, A->dtype, mirror), tol);
  }
  return csr_upper(A, out);
}

cis_status cis_csr_spmm(const cis_csr *A, int k, double alpha, const void *X, cis_int ldx, double beta, void *Y,
                        cis_int ldy, cis_layout layout) {
  cis_status st;
  void *x = NULL, *y = NULL;
  const int cm = layout == CIS_COL_MAJOR;
  if (!A || (!X && A->cols) || (!Y && A->rows)) return cis_error(CIS_ERR_INVALID, "cis_csr_spmm: NULL argument");
  if (k < 1) return cis_error(CIS_ERR_INVALID, "cis_csr_spmm: k = %d vectors, must be >= 1", k);
  if (layout != CIS_ROW_MAJOR && layout != CIS_COL_MAJOR)
    return cis_error(CIS_ERR_INVALID, "cis_csr_spmm: layout %d is neither row- nor column-major", (int)layout);
  if (cm ? (ldx < A->cols || ldy < A->rows) : (ldx < k || ldy < k))
    return cis_error(CIS_ERR_INVALID, "cis_csr_spmm: leading dimensions %lld, %lld too small for %s %lld x %d",
                     (long long)ldx, (long long)ldy, cm ? "column-major" : "row-major", (long long)A->rows, k);
  const size_t vs = cis_dtype_size(A->dtype);
  CIS_TRY(cis_alloc_array(&x, A->cols + 1, vs, "SpMM reference x"));
  CIS_TRY(cis_alloc_array(&y, A->rows + 1, vs, "SpMM reference y"));
  for (int c = 0; c < k; ++c) {
    for (cis_int j = 0; j < A->cols; ++j)
      memcpy((char *)x + j * vs, (const char *)X + (cm ? c * ldx + j : j * ldx + c) * vs, vs);
    for (cis_int i = 0; i < A->rows; ++i)
      memcpy((char *)y + i * vs, (const char *)Y + (cm ? c * ldy + i : i * ldy + c) * vs, vs);
    CIS_TRY((A->flags & CIS_FLAG_UPPER) ? cis_csr_symv(A, alpha, x, beta, y) : cis_csr_spmv(A, alpha, x, beta, y));
    for (cis_int i = 0; i < A->rows; ++i)
      memcpy((char *)Y + (cm ? c * ldy + i : i * ldy + c) * vs, (char *)y + i * vs, vs);
  }
  st = CIS_OK;
cleanup:
  cis_free(x);
  cis_free(y);
  return st;
}
