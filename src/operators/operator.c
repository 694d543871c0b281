/* operator.c: the operator object (cisparse/operator.h). Each constructor
 * fills one apply function (PETSc's MatMult dispatch through an ops
 * pointer); cis_operator_apply validates and dispatches. Device operators
 * enqueue on the given stream; host operators finish before returning. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "operators/operator_internal.h"
#include "gpu/gpu_plan_internal.h"

static cis_status apply_matrix(const cis_operator *A, double alpha, const void *x, double beta, void *y,
                               cis_stream s) {
  return cis_matrix_spmv(A->M, alpha, x, beta, y);
}
static cis_status apply_csr(const cis_operator *A, double alpha, const void *x, double beta, void *y,
                            cis_stream s) {
  return (A->csr->flags & CIS_FLAG_UPPER) ? cis_csr_symv(A->csr, alpha, x, beta, y)
                                           : cis_csr_spmv(A->csr, alpha, x, beta, y);
}
static cis_status apply_plan(const cis_operator *A, double alpha, const void *x, double beta, void *y,
                             cis_stream s) {
  return cis_gpu_spmv(A->plan, alpha, x, beta, y, s);
}
static cis_status apply_user(const cis_operator *A, double alpha, const void *x, double beta, void *y,
                             cis_stream s) {
  return A->user(A->ctx, alpha, x, beta, y, s);
}

/* A new operator of the given shape (rows, cols < 2^31). */
static cis_status make(cis_int rows, cis_int cols, cis_dtype t, cis_memspace where, const char *name,
                       cis_operator **out) {
  cis_operator *A;
  if (!out) return cis_error(CIS_ERR_INVALID, "operator: NULL output");
  *out = NULL;
  if (rows < 0 || cols < 0 || rows > CIS_IDX_MAX || cols > CIS_IDX_MAX)
    return cis_error(CIS_ERR_OVERFLOW, "operator: %lld x %lld is out of range", (long long)rows, (long long)cols);
  if (t != CIS_F64 && t != CIS_F32) return cis_error(CIS_ERR_INVALID, "operator: unknown value type %d", (int)t);
  if (where != CIS_MEM_HOST && where != CIS_MEM_DEVICE)
    return cis_error(CIS_ERR_INVALID, "operator: unknown memory space %d", (int)where);
  if (!(A = cis_calloc(1, sizeof *A))) return cis_error(CIS_ERR_ALLOC, "cannot allocate an operator");
  A->rows = rows;
  A->cols = cols;
  A->dtype = t;
  A->where = where;
  snprintf(A->name, sizeof A->name, "%s", name);
  *out = A;
  return CIS_OK;
}

cis_status cis_operator_from_matrix(const cis_matrix *M, cis_operator **out) {
  cis_status st;
  char name[64];
  if (!M) return cis_error(CIS_ERR_INVALID, "cis_operator_from_matrix: NULL matrix");
  snprintf(name, sizeof name, "cpu %s", cis_matrix_format_name(M));
  if ((st = make(cis_matrix_rows(M), cis_matrix_cols(M), cis_matrix_dtype(M), CIS_MEM_HOST, name, out)) != CIS_OK)
    return st;
  (*out)->M = M;
  (*out)->apply = apply_matrix;
  return CIS_OK;
}

cis_status cis_operator_from_csr(const cis_csr *A, cis_operator **out) {
  cis_status st;
  double *d = NULL;
  if (!A) return cis_error(CIS_ERR_INVALID, "cis_operator_from_csr: NULL matrix");
  if ((A->flags & CIS_FLAG_UPPER) && A->rows != A->cols)
    return cis_error(CIS_ERR_INVALID, "symmetric (upper) storage needs a square matrix, got %lld x %lld",
                     (long long)A->rows, (long long)A->cols);
  if ((st = make(A->rows, A->cols, A->dtype, CIS_MEM_HOST,
                 (A->flags & CIS_FLAG_UPPER) ? "cpu csr symmetric (upper)" : "cpu csr", out)) != CIS_OK)
    return st;
  (*out)->csr = A;
  (*out)->apply = apply_csr;
  if (A->rows == A->cols && A->rows > 0) {
    CIS_TRY(cis_alloc_array((void **)&d, A->rows, sizeof(double), "operator diagonal"));
    CIS_TRY(cis_csr_diagonal(A, d));
    (*out)->diag = d;
    d = NULL;
  }
  return CIS_OK;
cleanup:
  cis_free(d);
  cis_operator_free(*out);
  *out = NULL;
  return st;
}

cis_status cis_operator_from_gpu_plan(cis_gpu_plan *p, cis_operator **out) {
  cis_status st;
  char name[64];
  cis_int rows, cols;
  cis_dtype t;
  if (!p) return cis_error(CIS_ERR_INVALID, "cis_operator_from_gpu_plan: NULL plan");
  if ((st = gpu_plan_shape(p, &rows, &cols, &t)) != CIS_OK) return st;
  snprintf(name, sizeof name, "gpu %s", cis_gpu_plan_kernel(p));
  if ((st = make(rows, cols, t, CIS_MEM_DEVICE, name, out)) != CIS_OK) return st;
  (*out)->plan = p;
  (*out)->apply = apply_plan;
  return CIS_OK;
}

cis_status cis_operator_from_callback(cis_int rows, cis_int cols, cis_dtype t, cis_memspace where,
                                      cis_apply_fn apply, void *ctx, void (*destroy)(void *),
                                      cis_operator **out) {
  cis_status st;
  if (!apply) return cis_error(CIS_ERR_INVALID, "cis_operator_from_callback: NULL apply function");
  if ((st = make(rows, cols, t, where, "callback", out)) != CIS_OK) return st;
  (*out)->user = apply;
  (*out)->ctx = ctx;
  (*out)->destroy = destroy;
  (*out)->apply = apply_user;
  return CIS_OK;
}

void cis_operator_free(cis_operator *A) {
  if (!A) return;
  if (A->destroy) A->destroy(A->ctx);
  cis_free(A->diag);
  cis_free(A);
}

cis_status cis_operator_apply(const cis_operator *A, double alpha, const void *x, double beta, void *y,
                              cis_stream s) {
  if (!A) return cis_error(CIS_ERR_INVALID, "cis_operator_apply: NULL operator");
  if ((!x && A->cols > 0) || (!y && A->rows > 0)) return cis_error(CIS_ERR_INVALID, "cis_operator_apply: NULL vector");
  if (!isfinite(alpha) || !isfinite(beta))
    return cis_error(CIS_ERR_NUMERIC, "cis_operator_apply: alpha and beta must be finite");
  return A->apply(A, alpha, x, beta, y, s);
}

cis_int cis_operator_rows(const cis_operator *A) { return A ? A->rows : 0; }
cis_int cis_operator_cols(const cis_operator *A) { return A ? A->cols : 0; }
cis_dtype cis_operator_dtype(const cis_operator *A) { return A ? A->dtype : CIS_F64; }
cis_memspace operator_memspace(const cis_operator *A) { return A ? A->where : CIS_MEM_HOST; }
const char *cis_operator_name(const cis_operator *A) { return A ? A->name : ""; }

cis_status cis_operator_set_diagonal(cis_operator *A, const double *diag) {
  double *d;
  if (!A || !diag) return cis_error(CIS_ERR_INVALID, "cis_operator_set_diagonal: NULL argument");
  if (A->rows != A->cols) return cis_error(CIS_ERR_INVALID, "a diagonal needs a square operator");
  if (A->rows == 0) return CIS_OK;
  if (cis_alloc_array((void **)&d, A->rows, sizeof(double), "operator diagonal") != CIS_OK) return CIS_ERR_ALLOC;
  cis_copy_doubles(d, diag, A->rows); /* a large space's diagonal: fresh pages, touched by all threads */
  cis_free(A->diag);
  A->diag = d;
  return CIS_OK;
}

const double *cis_operator_diagonal(const cis_operator *A) { return A ? A->diag : NULL; }

cis_status cis_operator_set_transpose(cis_operator *A, const cis_operator *At) {
  if (!A || !At) return cis_error(CIS_ERR_INVALID, "cis_operator_set_transpose: NULL argument");
  if (At->rows != A->cols || At->cols != A->rows || At->dtype != A->dtype || At->where != A->where)
    return cis_error(CIS_ERR_INVALID, "transpose operator: %lld x %lld %s on the %s does not match %lld x %lld %s on the %s",
                     (long long)At->rows, (long long)At->cols, cis_dtype_name(At->dtype),
                     At->where == CIS_MEM_DEVICE ? "device" : "host", (long long)A->cols, (long long)A->rows,
                     cis_dtype_name(A->dtype), A->where == CIS_MEM_DEVICE ? "device" : "host");
  A->At = At;
  return CIS_OK;
}

const cis_operator *operator_transpose(const cis_operator *A) { return A ? A->At : NULL; }

cis_status cis_csr_diagonal(const cis_csr *A, double *d) {
  if (!A || !d) return cis_error(CIS_ERR_INVALID, "cis_csr_diagonal: NULL argument");
  cis_int n = A->rows < A->cols ? A->rows : A->cols;
  for (cis_int i = 0; i < A->rows; ++i) {
    d[i] = 0;
    if (i >= n) continue;
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) /* columns sorted: stop past i */
      if (A->colind[k] >= i) {
        if (A->colind[k] == i) d[i] = cis_get(A->val, A->dtype, k);
        break;
      }
  }
  return CIS_OK;
}

int operator_has_block(const cis_operator *A) { return A && A->plan && gpu_plan_has_spmm(A->plan); }

cis_status cis_operator_apply_block(const cis_operator *A, int k, double alpha, const void *X, cis_int ldx,
                                    double beta, void *Y, cis_int ldy, cis_stream s) {
  cis_status st;
  if (!A) return cis_error(CIS_ERR_INVALID, "cis_operator_apply_block: NULL operator");
  if (k < 0 || ldx < A->cols || ldy < A->rows)
    return cis_error(CIS_ERR_INVALID, "cis_operator_apply_block: k = %d, leading dimensions %lld, %lld for %lld x %lld",
                     k, (long long)ldx, (long long)ldy, (long long)A->rows, (long long)A->cols);
  const size_t vs = cis_dtype_size(A->dtype);
  for (int c0 = 0; c0 < k;) {
    const char *x = (const char *)X + (size_t)c0 * (size_t)ldx * vs;
    char *y = (char *)Y + (size_t)c0 * (size_t)ldy * vs;
    if (operator_has_block(A)) { /* one matrix pass for up to 16 vectors */
      int kb = k - c0 < CIS_GPU_SPMM_MAX_K ? k - c0 : CIS_GPU_SPMM_MAX_K;
      if ((st = cis_gpu_spmm(A->plan, kb, alpha, x, ldx, beta, y, ldy, CIS_COL_MAJOR, s)) != CIS_OK) return st;
      c0 += kb;
    } else {
      if ((st = cis_operator_apply(A, alpha, x, beta, y, s)) != CIS_OK) return st;
      c0 += 1;
    }
  }
  return CIS_OK;
}
