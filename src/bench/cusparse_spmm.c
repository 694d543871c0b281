/* cusparse_spmm.c: the cuSPARSE SpMM baseline for `cisparse bench --spmm`:
 * cusparseSpMM (CUDA 12/13 generic API) with CSR_ALG1, CSR_ALG2 or CSR_ALG3
 * on k dense vectors, row- or column-major; bufferSize + preprocess once,
 * then CUDA-event timing (median). 32-bit indices while nnz < 2^31, else
 * 64-bit. Every call checked (CIS_ERR_CUSPARSE, file:line). The library's
 * public API only (bench/gpu_bench.h). */
#include <cusparse.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "bench/bench_internal.h"
#include "bench/gpu_bench.h"
#include "gpu/cusparse_check.h"

/* CSR arrays of A with indices of `wide` width and values of t, uploaded. */
static cis_status upload_csr(const cis_csr *A, cis_dtype t, int wide, void **d) {
  cis_status st;
  size_t is = wide ? 8 : 4, vs = cis_dtype_size(t);
  void *h = NULL;
  d[0] = d[1] = d[2] = NULL;
  size_t hn = (size_t)(A->nnz > A->rows + 1 ? A->nnz : A->rows + 1);
  if (!(h = malloc(hn * (is > vs ? is : vs)))) return cis_error(CIS_ERR_ALLOC, "cannot allocate the cuSPARSE SpMM staging");
  _Pragma("omp parallel for")
  for (cis_int i = 0; i <= A->rows; ++i)
    if (wide) ((int64_t *)h)[i] = A->rowptr[i]; else ((int32_t *)h)[i] = (int32_t)A->rowptr[i];
  CIS_TRY(cis_gpu_malloc(&d[0], (size_t)(A->rows + 1) * is));
  CIS_TRY(cis_gpu_upload(d[0], h, (size_t)(A->rows + 1) * is));
  _Pragma("omp parallel for")
  for (cis_int k = 0; k < A->nnz; ++k)
    if (wide) ((int64_t *)h)[k] = A->colind[k]; else ((int32_t *)h)[k] = A->colind[k];
  CIS_TRY(cis_gpu_malloc(&d[1], (size_t)A->nnz * is));
  CIS_TRY(cis_gpu_upload(d[1], h, (size_t)A->nnz * is));
  _Pragma("omp parallel for")
  for (cis_int k = 0; k < A->nnz; ++k) cis_set(h, t, k, cis_get(A->val, A->dtype, k));
  CIS_TRY(cis_gpu_malloc(&d[2], (size_t)A->nnz * vs));
  CIS_TRY(cis_gpu_upload(d[2], h, (size_t)A->nnz * vs));
cleanup:
  free(h);
  return st;
}

struct bench_cusparse_mm {
  cis_int rows, cols, nnz;
  cis_dtype t;
  int wide;
  void *d[3];
};

void bench_cusparse_mm_free(bench_cusparse_mm *m) {
  if (!m) return;
  for (int i = 0; i < 3; ++i) cis_gpu_free(m->d[i]);
  free(m);
}

cis_status bench_cusparse_mm_create(const cis_csr *A, cis_dtype t, bench_cusparse_mm **out) {
  cis_status st;
  bench_cusparse_mm *m = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "bench_cusparse_mm_create: NULL output");
  *out = NULL;
  if (!A) return cis_error(CIS_ERR_INVALID, "bench_cusparse_mm_create: NULL matrix");
  if (!(m = calloc(1, sizeof *m))) return cis_error(CIS_ERR_ALLOC, "cannot allocate a cuSPARSE SpMM baseline");
  *m = (bench_cusparse_mm){A->rows, A->cols, A->nnz, t, A->nnz >= ((int64_t)1 << 31), {NULL, NULL, NULL}};
  CIS_TRY(upload_csr(A, t, m->wide, m->d));
  *out = m;
  return CIS_OK;
cleanup:
  bench_cusparse_mm_free(m);
  return st;
}

/* One timed cusparseSpMM, Y = A*X (bench_time_calls' callback). */
typedef struct mm_call {
  cusparseHandle_t h;
  cusparseSpMatDescr_t mat;
  cusparseDnMatDescr_t mx, my;
  cudaDataType vt;
  cusparseSpMMAlg_t a;
  void *buf;
  const void *pa, *pb;
} mm_call;

static cis_status one_spmm(void *ctx) {
  mm_call *c = ctx;
  cis_status st = CIS_OK;
  CUS_TRY(cusparseSpMM(c->h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, c->pa, c->mat, c->mx,
                       c->pb, c->my, c->vt, c->a, c->buf));
cleanup:
  return st;
}

cis_status bench_cusparse_mm_time(bench_cusparse_mm *m, const char *alg, int k, cis_layout layout,
                                    const void *d_X, void *d_Y, int warmup, int runs, double *ms_median) {
  cis_status st = CIS_OK;
  cusparseHandle_t h = NULL;
  cusparseSpMatDescr_t mat = NULL;
  cusparseDnMatDescr_t mx = NULL, my = NULL;
  cusparseSpMMAlg_t a;
  void *buf = NULL;
  double one = 1.0, zero = 0.0;
  float onef = 1.0f, zerof = 0.0f;
  size_t bytes = 0;
  if (!m || !alg || !ms_median || !d_X || !d_Y) return cis_error(CIS_ERR_INVALID, "bench_cusparse_mm_time: NULL argument");
  const int wide = m->wide, cm = layout == CIS_COL_MAJOR;
  const cudaDataType vt = m->t == CIS_F64 ? CUDA_R_64F : CUDA_R_32F;
  const void *pa = m->t == CIS_F64 ? (const void *)&one : (const void *)&onef;
  const void *pb = m->t == CIS_F64 ? (const void *)&zero : (const void *)&zerof;
  if (k < 1 || runs < 1) return cis_error(CIS_ERR_INVALID, "bench_cusparse_mm_time: k = %d, runs = %d", k, runs);
  if (!strcmp(alg, "csr-alg1")) a = CUSPARSE_SPMM_CSR_ALG1;
  else if (!strcmp(alg, "csr-alg2")) a = CUSPARSE_SPMM_CSR_ALG2;
  else if (!strcmp(alg, "csr-alg3")) a = CUSPARSE_SPMM_CSR_ALG3;
  else return cis_error(CIS_ERR_NOT_FOUND, "unknown cuSPARSE SpMM algorithm '%s' (csr-alg1, csr-alg2, csr-alg3)", alg);
  CUS_TRY(cusparseCreate(&h));
  CUS_TRY(cusparseCreateCsr(&mat, m->rows, m->cols, m->nnz, m->d[0], m->d[1], m->d[2],
                            wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I, wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_BASE_ZERO, vt));
  CUS_TRY(cusparseCreateDnMat(&mx, m->cols, k, cm ? m->cols : k, (void *)d_X, vt, cm ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW));
  CUS_TRY(cusparseCreateDnMat(&my, m->rows, k, cm ? m->rows : k, d_Y, vt, cm ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW));
  CUS_TRY(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, pa, mat, mx,
                                  pb, my, vt, a, &bytes));
  CIS_TRY(cis_gpu_malloc(&buf, bytes ? bytes : 8));
  CUS_TRY(cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, pa, mat, mx,
                                  pb, my, vt, a, buf));
  mm_call c = {h, mat, mx, my, vt, a, buf, pa, pb};
  CIS_TRY(bench_time_calls(one_spmm, &c, warmup, runs, ms_median));
cleanup:
  if (mx) cusparseDestroyDnMat(mx);
  if (my) cusparseDestroyDnMat(my);
  if (mat) cusparseDestroySpMat(mat);
  if (h) cusparseDestroy(h);
  cis_gpu_free(buf);
  return st;
}
