/* csr.c: host CSR allocation, checks, copies and the reference SpMV
 * (Mahmoud et al. 2018, §3.1 Algorithm 1). */
#include <math.h>
#include <string.h>
#include "core/internal.h"

size_t cis_dtype_size(cis_dtype t) { return t == CIS_F64 ? sizeof(double) : sizeof(float); }
const char *cis_dtype_name(cis_dtype t) { return t == CIS_F64 ? "double" : "float"; }

void cis_csr_free(cis_csr *A) {
  if (!A) return;
  cis_free(A->rowptr);
  cis_free(A->colind);
  cis_free(A->val);
  cis_free(A);
}

cis_status cis_csr_alloc(cis_int rows, cis_int cols, cis_int nnz, cis_dtype t, cis_csr **out) {
  cis_status st = CIS_OK;
  cis_csr *A = NULL;
  *out = NULL;
  if (rows < 0 || cols < 0 || nnz < 0)
    return cis_error(CIS_ERR_INVALID, "matrix size %lld x %lld with %lld nonzeros is negative",
                     (long long)rows, (long long)cols, (long long)nnz);
  if (rows > CIS_IDX_MAX || cols > CIS_IDX_MAX)
    return cis_error(CIS_ERR_OVERFLOW,
                     "matrix size %lld x %lld: rows and columns must be below 2^31 (32-bit indices)",
                     (long long)rows, (long long)cols);
  A = cis_calloc(1, sizeof *A);
  if (!A) return cis_error(CIS_ERR_ALLOC, "cannot allocate a CSR header");
  A->rows = rows; A->cols = cols; A->nnz = nnz; A->dtype = t;
  CIS_TRY(cis_alloc_zeroed((void **)&A->rowptr, rows + 1, sizeof(cis_int), "CSR row pointers"));
  CIS_TRY(cis_alloc_array((void **)&A->colind, nnz, sizeof(cis_idx), "CSR column indices"));
  CIS_TRY(cis_alloc_array(&A->val, nnz, cis_dtype_size(t), "CSR values"));
  *out = A;
  return CIS_OK;
cleanup:
  cis_csr_free(A);
  return st;
}

cis_status cis_csr_check(const cis_csr *A) {
  if (!A || !A->rowptr || (A->nnz > 0 && (!A->colind || !A->val)))
    return cis_error(CIS_ERR_INVALID, "CSR matrix is NULL or has no arrays");
  if (A->rows < 0 || A->cols < 0 || A->rows > CIS_IDX_MAX || A->cols > CIS_IDX_MAX)
    return cis_error(CIS_ERR_INVALID, "CSR size %lld x %lld out of range", (long long)A->rows,
                     (long long)A->cols);
  if (A->rowptr[0] != 0 || A->rowptr[A->rows] != A->nnz)
    return cis_error(CIS_ERR_INVALID, "CSR row pointers run from %lld to %lld, expected 0 to nnz=%lld",
                     (long long)A->rowptr[0], (long long)A->rowptr[A->rows], (long long)A->nnz);
  for (cis_int i = 0; i < A->rows; ++i) {
    if (A->rowptr[i + 1] < A->rowptr[i] || A->rowptr[i + 1] > A->nnz)
      return cis_error(CIS_ERR_INVALID, "CSR row pointer decreases or exceeds nnz at row %lld (%lld, nnz=%lld)",
                       (long long)i + 1, (long long)A->rowptr[i + 1], (long long)A->nnz);
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) {
      cis_idx j = A->colind[k];
      if (j < 0 || j >= A->cols)
        return cis_error(CIS_ERR_RANGE, "CSR column %d out of range [0,%lld) in row %lld", j,
                         (long long)A->cols, (long long)i);
      if (k > A->rowptr[i] && A->colind[k - 1] >= j)
        return cis_error(CIS_ERR_INVALID, "CSR columns not sorted and unique in row %lld",
                         (long long)i);
    }
  }
  return CIS_OK;
}

cis_status cis_csr_copy(const cis_csr *A, cis_dtype t, cis_csr **out) {
  cis_status st = cis_csr_alloc(A->rows, A->cols, A->nnz, t, out);
  if (st != CIS_OK) return st;
  cis_csr *B = *out;
  B->flags = A->flags;
  memcpy(B->rowptr, A->rowptr, (size_t)(A->rows + 1) * sizeof(cis_int));
  if (A->nnz) memcpy(B->colind, A->colind, (size_t)A->nnz * sizeof(cis_idx));
  if (t == A->dtype) {
    if (A->nnz) memcpy(B->val, A->val, (size_t)A->nnz * cis_dtype_size(t));
  } else {
    for (cis_int k = 0; k < A->nnz; ++k) cis_set(B->val, t, k, cis_get(A->val, A->dtype, k));
  }
  return CIS_OK;
}

cis_int cis_csr_bytes(const cis_csr *A) {
  return (A->rows + 1) * (cis_int)sizeof(cis_int) +
         A->nnz * (cis_int)(sizeof(cis_idx) + cis_dtype_size(A->dtype));
}

double csr_value(const cis_csr *A, cis_int i) { return cis_get(A->val, A->dtype, i); }

cis_int cis_csr_row_count_below(const cis_csr *A, cis_int i, cis_int bound) {
  cis_int lo = A->rowptr[i], hi = A->rowptr[i + 1];
  const cis_int first = lo;
  while (lo < hi) {
    const cis_int mid = lo + (hi - lo) / 2;
    if (A->colind[mid] < bound) lo = mid + 1; else hi = mid;
  }
  return lo - first;
}

cis_int csr_max_row(const cis_csr *A, cis_int *row_index) {
  cis_int best = 0, at = 0;
  for (cis_int i = 0; i < A->rows; ++i) {
    cis_int len = A->rowptr[i + 1] - A->rowptr[i];
    if (len > best) { best = len; at = i; }
  }
  if (row_index) *row_index = at;
  return best;
}

cis_status cis_csr_spmv(const cis_csr *A, double alpha, const void *x, double beta, void *y) {
  if (!A || !x || !y) return cis_error(CIS_ERR_INVALID, "cis_csr_spmv: NULL argument");
  CIS_FOR_DTYPE(A->dtype, {
    const REAL *xv = x, *av = A->val;
    REAL *yv = y;
    const REAL a = (REAL)alpha, b = (REAL)beta;
    CIS_PRAGMA(omp parallel for schedule(dynamic, 256) num_threads(cis_threads_for(A->nnz + A->rows, CIS_GRAIN_NNZ)))
    for (cis_int i = 0; i < A->rows; ++i) {
      REAL sum = 0;
      for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) sum += av[k] * xv[A->colind[k]];
      yv[i] = (beta == 0.0) ? a * sum : a * sum + b * yv[i];
    }
  });
  return CIS_OK;
}
