/* cusparse_gpu.c: the cuSPARSE baselines (CUDA 12/13 generic API) as plans:
 * cusparseSpMV with CSR_ALG1, CSR_ALG2, COO_ALG1, COO_ALG2, SELL_ALG1 (slice
 * 32, our own CSR -> sliced ELLPACK conversion: column-major inside each
 * slice, padding column -1) and BSR_ALG1 (block 4 or 2, row-major blocks).
 * cusparseSpMV_bufferSize + cusparseSpMV_preprocess run once at creation;
 * each call only rebinds x and y. Indices are 32-bit while they fit, else
 * 64-bit throughout. Every call is checked (CIS_ERR_CUSPARSE, file:line). */
#include <cusparse.h>
#include <stdlib.h>
#include <string.h>
#include "gpu/cusparse_check.h"
#include "gpu/gpu_internal.h"
#include "core/internal.h"


typedef struct cus_plan {
  cusparseHandle_t handle;
  cusparseSpMatDescr_t mat;
  cusparseDnVecDescr_t vx, vy;
  cusparseSpMVAlg_t alg;
  cudaDataType vt;
  void *arr[3]; /* device arrays: offsets/rows, columns, values */
  void *buffer;
} cus_plan;

static void cus_release(void *dev) {
  cus_plan *P = dev;
  if (!P) return;
  if (P->vx) cusparseDestroyDnVec(P->vx);
  if (P->vy) cusparseDestroyDnVec(P->vy);
  if (P->mat) cusparseDestroySpMat(P->mat);
  if (P->handle) cusparseDestroy(P->handle);
  for (int k = 0; k < 3; ++k) cis_gpu_free(P->arr[k]);
  cis_gpu_free(P->buffer);
  cis_free(P);
}

/* Host arrays of one baseline's layout before upload. */
typedef struct host_arrays {
  void *a[3];
  cis_int n[3];
  size_t elem[3];
  int64_t slots, brows, bcols, bnnz, b; /* sell: slots; bsr: block rows/cols/count/size */
} host_arrays;

static void host_free(host_arrays *H) {
  for (int k = 0; k < 3; ++k) cis_free(H->a[k]);
}

static cis_status host_alloc(host_arrays *H, int k, cis_int n, size_t elem, const char *what) {
  H->n[k] = n;
  H->elem[k] = elem;
  return cis_alloc_zeroed(&H->a[k], n, elem, what);
}

/* Index i into a 32- or 64-bit array. */
static void put_index(void *a, int wide, int64_t i, int64_t v) {
  if (wide) ((int64_t *)a)[i] = v; else ((int32_t *)a)[i] = (int32_t)v;
}

static cis_status build_csr_coo(const cis_csr *A, cis_dtype t, int coo, int wide, host_arrays *H) {
  cis_status st;
  size_t is = wide ? 8 : 4, vs = cis_dtype_size(t);
  CIS_TRY(host_alloc(H, 0, coo ? A->nnz : A->rows + 1, is, "cuSPARSE row array"));
  CIS_TRY(host_alloc(H, 1, A->nnz, is, "cuSPARSE columns"));
  CIS_TRY(host_alloc(H, 2, A->nnz, vs, "cuSPARSE values"));
  for (cis_int i = 0; i < A->rows; ++i) {
    if (!coo) put_index(H->a[0], wide, i, A->rowptr[i]);
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) {
      if (coo) put_index(H->a[0], wide, k, i);
      put_index(H->a[1], wide, k, A->colind[k]);
      cis_set(H->a[2], t, k, cis_get(A->val, A->dtype, k));
    }
  }
  if (!coo) put_index(H->a[0], wide, A->rows, A->nnz);
  return CIS_OK;
cleanup:
  return st;
}

static cis_status build_sell(const cis_csr *A, cis_dtype t, int wide, host_arrays *H) {
  cis_status st;
  const int64_t S = 32, ns = (A->rows + S - 1) / S;
  int64_t slots = 0;
  CIS_TRY(host_alloc(H, 0, ns + 1, wide ? 8 : 4, "cuSPARSE SELL slice offsets"));
  for (int64_t s = 0; s < ns; ++s) {
    int64_t w = 0;
    for (int64_t i = s * S; i < A->rows && i < (s + 1) * S; ++i)
      if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
    put_index(H->a[0], wide, s, slots);
    slots += w * S;
  }
  put_index(H->a[0], wide, ns, slots);
  CIS_TRY(host_alloc(H, 1, slots, wide ? 8 : 4, "cuSPARSE SELL columns"));
  CIS_TRY(host_alloc(H, 2, slots, cis_dtype_size(t), "cuSPARSE SELL values"));
  for (int64_t p = 0; p < slots; ++p) put_index(H->a[1], wide, p, -1);
  for (int64_t s = 0, off = 0; s < ns; ++s) {
    int64_t next = wide ? ((int64_t *)H->a[0])[s + 1] : ((int32_t *)H->a[0])[s + 1];
    for (int64_t i = s * S; i < A->rows && i < (s + 1) * S; ++i)
      for (int64_t k = A->rowptr[i], j = 0; k < A->rowptr[i + 1]; ++k, ++j) {
        int64_t p = off + j * S + (i - s * S);
        put_index(H->a[1], wide, p, A->colind[k]);
        cis_set(H->a[2], t, p, cis_get(A->val, A->dtype, k));
      }
    off = next;
  }
  H->slots = slots;
  return CIS_OK;
cleanup:
  return st;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* CSR -> BSR with b x b row-major blocks, block columns sorted per block row. */
static cis_status build_bsr(const cis_csr *A, cis_dtype t, int wide, host_arrays *H) {
  cis_status st;
  int64_t b = (A->rows % 4 == 0 && A->cols % 4 == 0) ? 4 : 2, br, bc, bnnz = 0;
  int64_t *stamp = NULL, *slot = NULL, *list = NULL;
  if (A->rows % b || A->cols % b)
    return cis_error(CIS_ERR_UNSUPPORTED, "cuSPARSE bsr: %lld x %lld is not a multiple of 2 or 4",
                     (long long)A->rows, (long long)A->cols);
  br = A->rows / b;
  bc = A->cols / b;
  CIS_TRY(cis_alloc_array((void **)&stamp, bc, sizeof(int64_t), "BSR block-column stamps"));
  CIS_TRY(cis_alloc_array((void **)&slot, bc, sizeof(int64_t), "BSR block slots"));
  CIS_TRY(cis_alloc_array((void **)&list, bc, sizeof(int64_t), "BSR block-column list"));
  for (int pass = 0; pass < 2; ++pass) { /* pass 0 counts blocks, pass 1 fills */
    for (int64_t j = 0; j < bc; ++j) stamp[j] = -1;
    bnnz = 0;
    for (int64_t r = 0; r < br; ++r) {
      int64_t n = 0;
      for (int64_t i = r * b; i < (r + 1) * b; ++i)
        for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k)
          if (stamp[A->colind[k] / b] != r) stamp[A->colind[k] / b] = r, list[n++] = A->colind[k] / b;
      if (pass == 0) { bnnz += n; continue; }
      qsort(list, (size_t)n, sizeof *list, cmp_i64);
      put_index(H->a[0], wide, r, bnnz);
      for (int64_t q = 0; q < n; ++q) {
        slot[list[q]] = bnnz + q;
        put_index(H->a[1], wide, bnnz + q, list[q]);
      }
      for (int64_t i = r * b; i < (r + 1) * b; ++i)
        for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k)
          cis_set(H->a[2], t, slot[A->colind[k] / b] * b * b + (i - r * b) * b + A->colind[k] % b,
                  cis_get(A->val, A->dtype, k));
      bnnz += n;
    }
    if (pass == 0) {
      CIS_TRY(host_alloc(H, 0, br + 1, wide ? 8 : 4, "cuSPARSE BSR row offsets"));
      CIS_TRY(host_alloc(H, 1, bnnz, wide ? 8 : 4, "cuSPARSE BSR block columns"));
      CIS_TRY(host_alloc(H, 2, bnnz * b * b, cis_dtype_size(t), "cuSPARSE BSR values"));
    }
  }
  put_index(H->a[0], wide, br, bnnz);
  H->brows = br;
  H->bcols = bc;
  H->bnnz = bnnz;
  H->b = b;
  st = CIS_OK;
cleanup:
  cis_free(stamp);
  cis_free(slot);
  cis_free(list);
  return st;
}

static const struct {
  const char *name;
  cusparseSpMVAlg_t alg;
} algs[] = {{"csr-alg1", CUSPARSE_SPMV_CSR_ALG1}, {"csr-alg2", CUSPARSE_SPMV_CSR_ALG2},
            {"coo-alg1", CUSPARSE_SPMV_COO_ALG1}, {"coo-alg2", CUSPARSE_SPMV_COO_ALG2},
            {"sell-alg1", CUSPARSE_SPMV_SELL_ALG1}, {"bsr", CUSPARSE_SPMV_BSR_ALG1}};

static cis_status cus_spmv(const void *dev, const char *kernel, int block, double alpha,
                           const void *x, double beta, void *y, cis_stream s) {
  const cus_plan *P = dev;
  cis_status st = CIS_OK;
  float af = (float)alpha, bf = (float)beta;
  const void *a = P->vt == CUDA_R_64F ? (const void *)&alpha : (const void *)&af;
  const void *b = P->vt == CUDA_R_64F ? (const void *)&beta : (const void *)&bf;
  CUS_TRY(cusparseSetStream(P->handle, (cudaStream_t)s));
  CUS_TRY(cusparseDnVecSetValues(P->vx, (void *)x));
  CUS_TRY(cusparseDnVecSetValues(P->vy, y));
  CUS_TRY(cusparseSpMV(P->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a, P->mat, P->vx, b, P->vy,
                       P->vt, P->alg, P->buffer));
cleanup:
  return st;
}

static const cis_gpu_format_ops cus_ops = {
    .format = "cusparse",
    .kernels = {NULL},
    .citation = "NVIDIA cuSPARSE generic API, cusparseSpMV",
    .upload = NULL,
    .spmv = cus_spmv,
    .release = cus_release,
};

cis_status cis_gpu_plan_create_cusparse(const cis_csr *A, cis_dtype t, const char *alg,
                                        cis_gpu_plan **out) {
  cis_status st;
  host_arrays H;
  cus_plan *P = NULL;
  void *dx = NULL, *dy = NULL;
  cis_int bytes = 0, ws = 0;
  size_t bufsize = 0;
  int k, wide, which = -1;
  double one = 1.0;
  float onef = 1.0f;
  char why[160];
  memset(&H, 0, sizeof H);
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_gpu_plan_create_cusparse: NULL output");
  *out = NULL;
  if (!A || !alg) return cis_error(CIS_ERR_INVALID, "cis_gpu_plan_create_cusparse: NULL argument");
  for (k = 0; k < (int)(sizeof algs / sizeof *algs); ++k)
    if (!strcmp(algs[k].name, alg)) which = k;
  if (which < 0)
    return cis_error(CIS_ERR_NOT_FOUND, "unknown cuSPARSE algorithm '%s' (known: csr-alg1, "
                     "csr-alg2, coo-alg1, coo-alg2, sell-alg1, bsr)", alg);
  if (t != CIS_F64 && t != CIS_F32) return cis_error(CIS_ERR_INVALID, "unknown value type %d", (int)t);
  if (A->rows == 0 || A->cols == 0 || A->nnz == 0)
    return cis_error(CIS_ERR_UNSUPPORTED, "cuSPARSE %s: empty %lld x %lld matrix with %lld nonzeros",
                     alg, (long long)A->rows, (long long)A->cols, (long long)A->nnz);
  if (cis_gpu_count(why, sizeof why) == 0) return cis_error(CIS_ERR_NO_GPU, "%s", why);
  CIS_TRY(cis_csr_check(A));
  /* 32-bit indices while every stored count fits (SELL pads: bound by rows*max_row) */
  wide = A->nnz >= INT32_MAX || (which == 4 && A->rows * csr_max_row(A, NULL) >= INT32_MAX);
  if (which <= 3) CIS_TRY(build_csr_coo(A, t, which >= 2, wide, &H));
  else if (which == 4) CIS_TRY(build_sell(A, t, wide, &H));
  else CIS_TRY(build_bsr(A, t, wide, &H));
  if (!(P = cis_calloc(1, sizeof *P))) {
    st = cis_error(CIS_ERR_ALLOC, "cannot allocate a cuSPARSE plan");
    goto cleanup;
  }
  P->alg = algs[which].alg;
  P->vt = t == CIS_F64 ? CUDA_R_64F : CUDA_R_32F;
  for (k = 0; k < 3; ++k)
    CIS_TRY(cis_gpu_upload_array(&P->arr[k], H.a[k], H.n[k], H.elem[k], "cuSPARSE matrix arrays", &bytes));
  host_free(&H);
  memset(&H, 0, sizeof H.a);
  {
    cusparseIndexType_t it = wide ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    size_t vs = cis_dtype_size(t);
    CUS_TRY(cusparseCreate(&P->handle));
    if (which <= 1)
      CUS_TRY(cusparseCreateCsr(&P->mat, A->rows, A->cols, A->nnz, P->arr[0], P->arr[1], P->arr[2],
                                it, it, CUSPARSE_INDEX_BASE_ZERO, P->vt));
    else if (which <= 3)
      CUS_TRY(cusparseCreateCoo(&P->mat, A->rows, A->cols, A->nnz, P->arr[0], P->arr[1], P->arr[2],
                                it, CUSPARSE_INDEX_BASE_ZERO, P->vt));
    else if (which == 4)
      CUS_TRY(cusparseCreateSlicedEll(&P->mat, A->rows, A->cols, A->nnz, H.slots, 32, P->arr[0],
                                      P->arr[1], P->arr[2], it, it, CUSPARSE_INDEX_BASE_ZERO, P->vt));
    else
      CUS_TRY(cusparseCreateBsr(&P->mat, H.brows, H.bcols, H.bnnz, H.b, H.b, P->arr[0], P->arr[1],
                                P->arr[2], it, it, CUSPARSE_INDEX_BASE_ZERO, P->vt,
                                CUSPARSE_ORDER_ROW));
    /* x and y only for the analysis; each spmv call rebinds the caller's */
    CIS_TRY(cis_gpu_alloc_copy(&dx, NULL, (size_t)A->cols * vs, "cuSPARSE analysis x"));
    CIS_TRY(cis_gpu_alloc_copy(&dy, NULL, (size_t)A->rows * vs, "cuSPARSE analysis y"));
    CUS_TRY(cusparseCreateDnVec(&P->vx, A->cols, dx, P->vt));
    CUS_TRY(cusparseCreateDnVec(&P->vy, A->rows, dy, P->vt));
    const void *a = t == CIS_F64 ? (const void *)&one : (const void *)&onef;
    CUS_TRY(cusparseSpMV_bufferSize(P->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a, P->mat, P->vx, a,
                                    P->vy, P->vt, P->alg, &bufsize));
    CIS_TRY(cis_gpu_upload_array(&P->buffer, NULL, (cis_int)bufsize, 1, "cuSPARSE SpMV buffer", &ws));
    CUS_TRY(cusparseSpMV_preprocess(P->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a, P->mat, P->vx,
                                    a, P->vy, P->vt, P->alg, P->buffer));
    CIS_TRY(cis_gpu_sync()); /* a failure here still frees everything below */
  }
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  return cis_gpu_plan_wrap(&cus_ops, P, alg, A->rows, A->cols, A->nnz, t, bytes, ws, out);
cleanup:
  host_free(&H);
  cis_gpu_free(dx);
  cis_gpu_free(dy);
  cus_release(P);
  return st;
}
