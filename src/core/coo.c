/* coo.c: coordinate lists and COO -> CSR (counting sort by row, then sort
 * each row by column and sum duplicates; CSparse cs_compress + cs_dupl),
 * rows sorted and copied in parallel. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "core/internal.h"

void coo_free(cis_coo *A) {
  if (!A) return;
  cis_free(A->row);
  cis_free(A->col);
  cis_free(A->val);
  cis_free(A);
}

cis_status coo_alloc(cis_int rows, cis_int cols, cis_int cap, cis_dtype t, cis_coo **out) {
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
  coo_free(A);
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

cis_status coo_push(cis_coo *A, cis_idx i, cis_idx j, double v) {
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

/* COO -> CSR in three steps (CSparse cs_compress + cs_dupl, made parallel):
 *  1. stable counting sort of the entry numbers by row (serial, O(nnz));
 *  2. per row, in parallel: sort its entry numbers by (column, entry number)
 *     (insertion sort for short rows, qsort for long ones; rows already in
 *     order are left alone) and count the distinct columns;
 *  3. per row, in parallel: copy, summing duplicates in file order, so the
 *     result does not depend on the thread count. Explicit zeros are kept. */
typedef struct { cis_idx col; cis_int src; } colsrc;
static int cmp_colsrc(const void *a, const void *b) {
  const colsrc *x = a, *y = b;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return x->src < y->src ? -1 : (x->src > y->src);
}

static int colsrc_less(const colsrc *x, const colsrc *y) {
  return x->col < y->col || (x->col == y->col && x->src < y->src);
}

/* Sort order[0..n) by (col, entry number) with scratch tmp; distinct columns. */
static cis_int sort_row(const cis_idx *col, cis_int *order, cis_int n, colsrc *tmp) {
  int sorted = 1;
  for (cis_int t = 1; t < n && sorted; ++t)
    sorted = col[order[t - 1]] < col[order[t]] || (col[order[t - 1]] == col[order[t]] && order[t - 1] < order[t]);
  if (!sorted) {
    for (cis_int t = 0; t < n; ++t) { tmp[t].col = col[order[t]]; tmp[t].src = order[t]; }
    if (n <= 32) {
      for (cis_int t = 1; t < n; ++t) {
        colsrc x = tmp[t];
        cis_int u = t;
        for (; u > 0 && colsrc_less(&x, &tmp[u - 1]); --u) tmp[u] = tmp[u - 1];
        tmp[u] = x;
      }
    } else {
      qsort(tmp, (size_t)n, sizeof *tmp, cmp_colsrc);
    }
    for (cis_int t = 0; t < n; ++t) order[t] = tmp[t].src;
  }
  cis_int distinct = n > 0;
  for (cis_int t = 1; t < n; ++t) distinct += col[order[t]] != col[order[t - 1]];
  return distinct;
}

cis_status coo_to_csr(const cis_coo *A, cis_csr **out) {
  cis_status st = CIS_OK;
  cis_int *start = NULL, *order = NULL, *next = NULL;
  colsrc *tmp = NULL;
  cis_csr *C = NULL;
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  *out = NULL;
  /* 1. bucket entry numbers by row, stably */
  CIS_TRY(cis_alloc_zeroed((void **)&start, A->rows + 1, sizeof(cis_int), "COO->CSR row starts"));
  CIS_TRY(cis_alloc_array((void **)&order, A->nnz, sizeof(cis_int), "COO->CSR order"));
  CIS_TRY(cis_alloc_array((void **)&next, A->rows + 1, sizeof(cis_int), "COO->CSR cursor"));
  for (cis_int k = 0; k < A->nnz; ++k) start[A->row[k] + 1]++;
  cis_int maxlen = 0;
  for (cis_int i = 0; i < A->rows; ++i) {
    if (start[i + 1] > maxlen) maxlen = start[i + 1];
    start[i + 1] += start[i];
  }
  memcpy(next, start, (size_t)(A->rows + 1) * sizeof(cis_int));
  for (cis_int k = 0; k < A->nnz; ++k) order[next[A->row[k]]++] = k;
  CIS_TRY(cis_alloc_array((void **)&tmp, (int64_t)threads * maxlen, sizeof(colsrc), "COO->CSR row buffers"));
  CIS_TRY(cis_csr_alloc(A->rows, A->cols, A->nnz, A->dtype, &C));
  C->flags = A->flags;
  /* 2. sort each row, count distinct columns into rowptr[i + 1] */
#pragma omp parallel for schedule(dynamic, 1024)
  for (cis_int i = 0; i < A->rows; ++i) {
    int me = 0;
#ifdef _OPENMP
    me = omp_get_thread_num();
#endif
    C->rowptr[i + 1] = sort_row(A->col, order + start[i], start[i + 1] - start[i], tmp + (cis_int)me * maxlen);
  }
  for (cis_int i = 0; i < A->rows; ++i) C->rowptr[i + 1] += C->rowptr[i];
  C->nnz = C->rowptr[A->rows];
  /* 3. copy, summing duplicates in entry order */
  CIS_FOR_DTYPE(A->dtype, {
    const REAL *av = A->val;
    REAL *cv = C->val;
    CIS_PRAGMA(omp parallel for schedule(dynamic, 1024))
    for (cis_int i = 0; i < A->rows; ++i) {
      cis_int nz = C->rowptr[i] - 1;
      for (cis_int t = start[i]; t < start[i + 1]; ++t) {
        cis_int src = order[t];
        if (t > start[i] && A->col[src] == C->colind[nz]) {
          cv[nz] += av[src];
        } else {
          C->colind[++nz] = A->col[src];
          cv[nz] = av[src];
        }
      }
    }
  });
  *out = C;
  C = NULL;
cleanup:
  cis_free(start);
  cis_free(order);
  cis_free(next);
  cis_free(tmp);
  cis_csr_free(C);
  return st;
}
