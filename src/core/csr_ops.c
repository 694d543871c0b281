/* csr_ops.c: transpose, symmetric expansion, row permutation, upper triangle. */
#include <string.h>
#include "core/internal.h"

cis_status cis_csr_transpose(const cis_csr *A, cis_csr **out) {
  cis_status st;
  cis_int *next = NULL;
  cis_csr *B = NULL;
  *out = NULL;
  CIS_TRY(cis_csr_alloc(A->cols, A->rows, A->nnz, A->dtype, &B));
  B->flags = A->flags;
  for (cis_int k = 0; k < A->nnz; ++k) B->rowptr[A->colind[k] + 1]++;
  for (cis_int j = 0; j < A->cols; ++j) B->rowptr[j + 1] += B->rowptr[j];
  CIS_TRY(cis_alloc_array((void **)&next, A->cols + 1, sizeof(cis_int), "transpose cursor"));
  memcpy(next, B->rowptr, (size_t)(A->cols + 1) * sizeof(cis_int));
  for (cis_int i = 0; i < A->rows; ++i)
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) {
      cis_int d = next[A->colind[k]]++;
      B->colind[d] = (cis_idx)i;
      cis_set(B->val, B->dtype, d, cis_get(A->val, A->dtype, k));
    }
  *out = B;
  B = NULL;
cleanup:
  cis_free(next);
  cis_csr_free(B);
  return st;
}

cis_status csr_symmetric_expand(const cis_csr *T, int skew, cis_csr **out) {
  cis_status st;
  cis_coo *C = NULL;
  *out = NULL;
  if (T->rows != T->cols)
    return cis_error(CIS_ERR_INVALID, "symmetric expansion needs a square matrix, got %lld x %lld",
                     (long long)T->rows, (long long)T->cols);
  CIS_TRY(coo_alloc(T->rows, T->cols, 2 * T->nnz + 1, T->dtype, &C));
  for (cis_int i = 0; i < T->rows; ++i)
    for (cis_int k = T->rowptr[i]; k < T->rowptr[i + 1]; ++k) {
      cis_idx j = T->colind[k];
      double v = cis_get(T->val, T->dtype, k);
      CIS_TRY(coo_push(C, (cis_idx)i, j, v));
      if (j != i) CIS_TRY(coo_push(C, j, (cis_idx)i, skew ? -v : v));
    }
  C->flags = T->flags & ~CIS_FLAG_UPPER;
  CIS_TRY(coo_to_csr(C, out));
cleanup:
  coo_free(C);
  return st;
}

cis_status csr_permute_rows(const cis_csr *A, const cis_idx *perm, cis_csr **out) {
  cis_status st;
  unsigned char *seen = NULL;
  cis_csr *B = NULL;
  size_t vs = cis_dtype_size(A->dtype);
  *out = NULL;
  CIS_TRY(cis_alloc_zeroed((void **)&seen, A->rows, 1, "permutation check"));
  for (cis_int i = 0; i < A->rows; ++i) {
    if (perm[i] < 0 || perm[i] >= A->rows || seen[perm[i]]) {
      st = cis_error(CIS_ERR_INVALID, "row permutation is not a permutation of 0..%lld (entry %lld = %d)",
                     (long long)A->rows - 1, (long long)i, perm[i]);
      goto cleanup;
    }
    seen[perm[i]] = 1;
  }
  CIS_TRY(cis_csr_alloc(A->rows, A->cols, A->nnz, A->dtype, &B));
  B->flags = A->flags;
  for (cis_int i = 0; i < A->rows; ++i)
    B->rowptr[i + 1] = B->rowptr[i] + (A->rowptr[perm[i] + 1] - A->rowptr[perm[i]]);
#pragma omp parallel for schedule(dynamic, 256)
  for (cis_int i = 0; i < A->rows; ++i) {
    cis_int s = A->rowptr[perm[i]], n = A->rowptr[perm[i] + 1] - s;
    memcpy(B->colind + B->rowptr[i], A->colind + s, (size_t)n * sizeof(cis_idx));
    memcpy((char *)B->val + (size_t)B->rowptr[i] * vs, (const char *)A->val + (size_t)s * vs, (size_t)n * vs);
  }
  *out = B;
  B = NULL;
cleanup:
  cis_free(seen);
  cis_csr_free(B);
  return st;
}

cis_status csr_rows(const cis_csr *A, cis_int r0, cis_int r1, cis_csr **out) {
  if (!out) return cis_error(CIS_ERR_INVALID, "csr_rows: NULL output");
  *out = NULL;
  if (!A) return cis_error(CIS_ERR_INVALID, "csr_rows: NULL matrix");
  if (r0 < 0 || r0 > r1 || r1 > A->rows)
    return cis_error(CIS_ERR_INVALID, "csr_rows: rows %lld..%lld of a matrix of %lld", (long long)r0,
                     (long long)r1 - 1, (long long)A->rows);
  const int64_t o = A->rowptr[r0], m = A->rowptr[r1] - o;
  const size_t es = cis_dtype_size(A->dtype);
  cis_csr *R = NULL;
  cis_status st = cis_csr_alloc(r1 - r0, A->cols, m, A->dtype, &R);
  if (st != CIS_OK) return st;
  for (cis_int i = 0; i <= r1 - r0; ++i) R->rowptr[i] = A->rowptr[r0 + i] - o;
  memcpy(R->colind, A->colind + o, (size_t)m * sizeof(cis_idx));
  memcpy(R->val, (const char *)A->val + (size_t)o * es, (size_t)m * es);
  *out = R;
  return CIS_OK;
}

cis_status csr_upper(const cis_csr *A, cis_csr **out) {
  cis_status st;
  cis_csr *B = NULL;
  *out = NULL;
  if (A->rows != A->cols)
    return cis_error(CIS_ERR_INVALID, "upper triangle needs a square matrix, got %lld x %lld",
                     (long long)A->rows, (long long)A->cols);
  cis_int n = 0;
  for (cis_int i = 0; i < A->rows; ++i)
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) n += A->colind[k] >= i;
  CIS_TRY(cis_csr_alloc(A->rows, A->cols, n, A->dtype, &B));
  B->flags = A->flags | CIS_FLAG_UPPER;
  n = 0;
  for (cis_int i = 0; i < A->rows; ++i) {
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k)
      if (A->colind[k] >= i) {
        B->colind[n] = A->colind[k];
        cis_set(B->val, B->dtype, n, cis_get(A->val, A->dtype, k));
        n++;
      }
    B->rowptr[i + 1] = n;
  }
  *out = B;
  B = NULL;
cleanup:
  cis_csr_free(B);
  return st;
}
