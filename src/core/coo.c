/* coo.c: coordinate lists and COO -> CSR (counting sort by row, then sort
 * each row by column and sum duplicates; CSparse cs_compress + cs_dupl). */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"

void cis_coo_free(cis_coo *A) {
  if (!A) return;
  cis_free(A->row);
  cis_free(A->col);
  cis_free(A->val);
  cis_free(A);
}

cis_status cis_coo_alloc(cis_int rows, cis_int cols, cis_int cap, cis_dtype t, cis_coo **out) {
  cis_status st = CIS_OK;
  cis_coo *A = NULL;
  *out = NULL;
  if (rows < 0 || cols < 0 || cap < 0)
    return cis_error(CIS_ERR_INVALID, "COO size %lld x %lld (capacity %lld) is negative",
                     (long long)rows, (long long)cols, (long long)cap);
  if (rows > CIS_IDX_MAX || cols > CIS_IDX_MAX)
    return cis_error(CIS_ERR_OVERFLOW, "matrix size %lld x %lld: rows and columns must be below 2^31",
                     (long long)rows, (long long)cols);
  A = cis_calloc(1, sizeof *A);
  if (!A) return cis_error(CIS_ERR_ALLOC, "cannot allocate a COO header");
  A->rows = rows; A->cols = cols; A->cap = cap > 0 ? cap : 1; A->dtype = t;
  CIS_TRY(cis_alloc_array((void **)&A->row, A->cap, sizeof(cis_idx), "COO row indices"));
  CIS_TRY(cis_alloc_array((void **)&A->col, A->cap, sizeof(cis_idx), "COO column indices"));
  CIS_TRY(cis_alloc_array(&A->val, A->cap, cis_dtype_size(t), "COO values"));
  *out = A;
  return CIS_OK;
cleanup:
  cis_coo_free(A);
  return st;
}

static cis_status coo_grow(cis_coo *A) {
  int64_t cap = A->cap * 2, bytes;
  if (cis_mul_overflows(cap, 8, &bytes)) return cis_error(CIS_ERR_OVERFLOW, "COO capacity overflow");
  void *r = cis_realloc(A->row, (size_t)cap * sizeof(cis_idx));
  if (!r) return cis_error(CIS_ERR_ALLOC, "cannot grow COO to %lld entries", (long long)cap);
  A->row = r;
  void *c = cis_realloc(A->col, (size_t)cap * sizeof(cis_idx));
  if (!c) return cis_error(CIS_ERR_ALLOC, "cannot grow COO to %lld entries", (long long)cap);
  A->col = c;
  void *v = cis_realloc(A->val, (size_t)cap * cis_dtype_size(A->dtype));
  if (!v) return cis_error(CIS_ERR_ALLOC, "cannot grow COO to %lld entries", (long long)cap);
  A->val = v;
  A->cap = cap;
  return CIS_OK;
}

cis_status cis_coo_push(cis_coo *A, cis_idx i, cis_idx j, double v) {
  if (i < 0 || i >= A->rows || j < 0 || j >= A->cols)
    return cis_error(CIS_ERR_RANGE, "entry (%d,%d) outside a %lld x %lld matrix", i, j,
                     (long long)A->rows, (long long)A->cols);
  if (A->nnz == A->cap) {
    cis_status st = coo_grow(A);
    if (st != CIS_OK) return st;
  }
  A->row[A->nnz] = i;
  A->col[A->nnz] = j;
  cis_set(A->val, A->dtype, A->nnz, v);
  A->nnz++;
  return CIS_OK;
}

/* Sort the entries of one row [lo,hi) by column (insertion sort for short
 * rows, heap-free merge via qsort on an index pair array otherwise). */
typedef struct { cis_idx col; cis_int src; } colsrc;
static int cmp_colsrc(const void *a, const void *b) {
  const colsrc *x = a, *y = b;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return x->src < y->src ? -1 : (x->src > y->src);
}

cis_status cis_coo_to_csr(const cis_coo *A, cis_csr **out) {
  cis_status st = CIS_OK;
  cis_int *count = NULL, *order = NULL;
  colsrc *tmp = NULL;
  cis_csr *C = NULL;
  *out = NULL;
  /* bucket entries by row (stable) */
  CIS_TRY(cis_alloc_zeroed((void **)&count, A->rows + 1, sizeof(cis_int), "COO->CSR counts"));
  CIS_TRY(cis_alloc_array((void **)&order, A->nnz, sizeof(cis_int), "COO->CSR order"));
  for (cis_int k = 0; k < A->nnz; ++k) count[A->row[k] + 1]++;
  for (cis_int i = 0; i < A->rows; ++i) count[i + 1] += count[i];
  cis_int maxlen = 0;
  for (cis_int i = 0; i < A->rows; ++i)
    if (count[i + 1] - count[i] > maxlen) maxlen = count[i + 1] - count[i];
  {
    cis_int *next = NULL;
    CIS_TRY(cis_alloc_array((void **)&next, A->rows + 1, sizeof(cis_int), "COO->CSR cursor"));
    memcpy(next, count, (size_t)(A->rows + 1) * sizeof(cis_int));
    for (cis_int k = 0; k < A->nnz; ++k) order[next[A->row[k]]++] = k;
    cis_free(next);
  }
  CIS_TRY(cis_alloc_array((void **)&tmp, maxlen, sizeof(colsrc), "COO->CSR row buffer"));
  /* first pass: count unique columns per row */
  CIS_TRY(cis_csr_alloc(A->rows, A->cols, A->nnz, A->dtype, &C));
  C->flags = A->flags;
  cis_int nz = 0;
  for (cis_int i = 0; i < A->rows; ++i) {
    cis_int lo = count[i], hi = count[i + 1], n = hi - lo;
    for (cis_int t = 0; t < n; ++t) { tmp[t].col = A->col[order[lo + t]]; tmp[t].src = order[lo + t]; }
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_colsrc);
    C->rowptr[i] = nz;
    for (cis_int t = 0; t < n; ++t) {
      double v = cis_get(A->val, A->dtype, tmp[t].src);
      if (t > 0 && tmp[t].col == tmp[t - 1].col) {
        cis_set(C->val, C->dtype, nz - 1, cis_get(C->val, C->dtype, nz - 1) + v);
      } else {
        C->colind[nz] = tmp[t].col;
        cis_set(C->val, C->dtype, nz, v);
        nz++;
      }
    }
  }
  C->rowptr[A->rows] = nz;
  C->nnz = nz;
  *out = C;
  C = NULL;
cleanup:
  cis_free(count);
  cis_free(order);
  cis_free(tmp);
  cis_csr_free(C);
  return st;
}
