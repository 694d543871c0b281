/* dist_split_dev.c: dist_split_rows_dev (dist_internal.h), one part's rows
 * built on its GPU split there into its blocks (kernels: dist_split.cu) and
 * stored as plans on that GPU; the nonzeros never leave the device (only the
 * row pointers' last entries, the needed list and the rows' diagonal come
 * to the host). Peak device memory: the rows and both blocks (about twice
 * the rows), then the rows are freed before the plans are made. Every step
 * on the current device's default stream, synchronized before host reads. */
#include <string.h>
#include "distributed/dist_internal.h"
#include "gpu/gpu_internal.h"

cis_status dist_launch_split_mark(const cis_idx *col, cis_int nnz, cis_int r0, cis_int r1, cis_int n, int32_t *mark,
                                  cudaStream_t s);
cis_status dist_launch_split_count(const int64_t *rowptr, const cis_idx *col, const double *val, cis_int rows,
                                   cis_int r0, cis_int r1, int upper, int64_t *lptr, int64_t *rptr, double *diag,
                                   cudaStream_t s);
cis_status dist_launch_scan_i64(void *temp, size_t *temp_bytes, int64_t *data, cis_int n, cudaStream_t s);
cis_status dist_launch_scan_i32(void *temp, size_t *temp_bytes, const int32_t *in, int32_t *out, cis_int n,
                                cudaStream_t s);
cis_status dist_launch_split_needed(const int32_t *mark, const int32_t *pos, cis_int n, cis_idx *needed,
                                    cudaStream_t s);
cis_status dist_launch_split_fill(const int64_t *rowptr, const cis_idx *col, const double *val, cis_int rows,
                                  cis_int r0, cis_int r1, int upper, const int32_t *pos, const int64_t *lptr,
                                  const int64_t *rptr, cis_idx *lcol, double *lval, cis_idx *rcol, double *rval,
                                  cudaStream_t s);

/* Device scratch of the split, freed together. */
typedef struct split_bufs {
  int64_t *lptr, *rptr;
  int32_t *mark, *pos;
  double *diag, *lval, *rval;
  cis_idx *needed, *lcol, *rcol;
  void *temp;
  size_t temp_bytes;
} split_bufs;

static void split_bufs_free(split_bufs *b) {
  void *dev[] = {b->lptr, b->rptr, b->mark, b->pos, b->diag, b->lval, b->rval, b->needed, b->lcol, b->rcol, b->temp};
  for (size_t k = 0; k < sizeof dev / sizeof *dev; ++k) cis_gpu_free(dev[k]);
  memset(b, 0, sizeof *b);
}

static void gpu_csr_free(cis_gpu_csr *R) {
  cis_gpu_free(R->rowptr);
  cis_gpu_free(R->colind);
  cis_gpu_free(R->val);
  memset(R, 0, sizeof *R);
}

/* count elements of `elem` bytes (at least one, so no pointer is NULL). */
static cis_status dalloc(void **d, cis_int count, size_t elem, const char *what) {
  return cis_gpu_alloc_copy(d, NULL, (size_t)(count > 0 ? count : 1) * elem, what);
}

/* CUB temporary storage of at least `need` bytes (grown, never shrunk). */
static cis_status ensure_temp(split_bufs *b, size_t need) {
  return cis_gpu_scratch_grow(&b->temp, &b->temp_bytes, need, "CUB temporary storage");
}

/* Inclusive CUB scans in place (64-bit) and into out (32-bit). */
static cis_status scan_i64(split_bufs *b, int64_t *data, cis_int n) {
  cis_status st;
  size_t need = 0;
  CIS_TRY(dist_launch_scan_i64(NULL, &need, data, n, NULL));
  CIS_TRY(ensure_temp(b, need));
  CIS_TRY(dist_launch_scan_i64(b->temp, &need, data, n, NULL));
cleanup:
  return st;
}
static cis_status scan_i32(split_bufs *b, const int32_t *in, int32_t *out, cis_int n) {
  cis_status st;
  size_t need = 0;
  CIS_TRY(dist_launch_scan_i32(NULL, &need, in, out, n, NULL));
  CIS_TRY(ensure_temp(b, need));
  CIS_TRY(dist_launch_scan_i32(b->temp, &need, in, out, n, NULL));
cleanup:
  return st;
}

/* The local block as a host CSR (for a format built on the host). */
static cis_status local_download(cis_int rows, cis_int nnz, const split_bufs *b, cis_csr **out) {
  cis_status st;
  cis_csr *A = NULL;
  CIS_TRY(cis_csr_alloc(rows, rows, nnz, CIS_F64, &A));
  CIS_TRY(cis_gpu_download(A->rowptr, b->lptr, (size_t)(rows + 1) * sizeof(int64_t)));
  CIS_TRY(cis_gpu_download(A->colind, b->lcol, (size_t)nnz * sizeof(cis_idx)));
  CIS_TRY(cis_gpu_download(A->val, b->lval, (size_t)nnz * sizeof(double)));
  *out = A;
  A = NULL;
cleanup:
  cis_csr_free(A);
  return st;
}

cis_status dist_split_rows_dev(cis_gpu_csr *R, cis_int n, cis_int r0, dist_local_kind kind, const char *kernel,
                               double *diag, dist_dev_split *out) {
  cis_status st;
  split_bufs b;
  const int upper = kind == DIST_LOCAL_SYM;
  const cis_int rows = R ? R->rows : 0, r1 = r0 + rows;
  cis_int lnnz = 0, rnnz = 0;
  int32_t nneeded = 0;
  double t0 = cis_wtime();
  memset(&b, 0, sizeof b);
  memset(out, 0, sizeof *out);
  if (!R || !diag) return cis_error(CIS_ERR_INVALID, "dist_split_rows_dev: NULL argument");
  if (R->dtype != CIS_F64)
    CIS_TRY(cis_error(CIS_ERR_UNSUPPORTED, "rows built on the device must hold double values"));
  if (R->cols != n || rows < 0 || r0 < 0 || r1 > n || n > CIS_IDX_MAX || (R->nnz > 0 && (!R->colind || !R->val)) ||
      !R->rowptr)
    CIS_TRY(cis_error(CIS_ERR_INVALID, "rows %lld..%lld of %lld columns given for part rows %lld..%lld of %lld",
                      (long long)r0, (long long)r0 + rows - 1, (long long)R->cols, (long long)r0, (long long)r1 - 1,
                      (long long)n));
  /* 1-3: marks, per-row counts and the diagonal, row pointers, positions */
  CIS_TRY(dalloc((void **)&b.lptr, rows + 1, sizeof(int64_t), "local block row pointers"));
  CIS_TRY(dalloc((void **)&b.rptr, rows + 1, sizeof(int64_t), "remote block row pointers"));
  CIS_TRY(dalloc((void **)&b.diag, rows, sizeof(double), "part diagonal"));
  CIS_TRY(dalloc((void **)&b.mark, n, sizeof(int32_t), "remote column marks"));
  CIS_TRY(dalloc((void **)&b.pos, n, sizeof(int32_t), "remote column positions"));
  CIS_TRY(dist_launch_split_mark(R->colind, R->nnz, r0, r1, n, b.mark, NULL));
  CIS_TRY(dist_launch_split_count(R->rowptr, R->colind, R->val, rows, r0, r1, upper, b.lptr, b.rptr, b.diag, NULL));
  CIS_TRY(scan_i64(&b, b.lptr + 1, rows));
  CIS_TRY(scan_i64(&b, b.rptr + 1, rows));
  CIS_TRY(scan_i32(&b, b.mark, b.pos, n));
  CIS_TRY(cis_gpu_sync());
  CIS_TRY(cis_gpu_download(&lnnz, b.lptr + rows, sizeof(int64_t)));
  CIS_TRY(cis_gpu_download(&rnnz, b.rptr + rows, sizeof(int64_t)));
  if (n > 0) CIS_TRY(cis_gpu_download(&nneeded, b.pos + n - 1, sizeof(int32_t)));
  if (rows > 0) CIS_TRY(cis_gpu_download(diag, b.diag, (size_t)rows * sizeof(double)));
  /* 4-5: the needed list and both blocks */
  CIS_TRY(dalloc((void **)&b.needed, nneeded, sizeof(cis_idx), "needed columns"));
  CIS_TRY(dalloc((void **)&b.lcol, lnnz, sizeof(cis_idx), "local block columns"));
  CIS_TRY(dalloc((void **)&b.lval, lnnz, sizeof(double), "local block values"));
  CIS_TRY(dalloc((void **)&b.rcol, rnnz, sizeof(cis_idx), "remote block columns"));
  CIS_TRY(dalloc((void **)&b.rval, rnnz, sizeof(double), "remote block values"));
  CIS_TRY(dist_launch_split_needed(b.mark, b.pos, n, b.needed, NULL));
  CIS_TRY(dist_launch_split_fill(R->rowptr, R->colind, R->val, rows, r0, r1, upper, b.pos, b.lptr, b.rptr, b.lcol,
                                 b.lval, b.rcol, b.rval, NULL));
  CIS_TRY(cis_alloc_array((void **)&out->needed, nneeded > 0 ? nneeded : 1, sizeof(cis_idx), "needed columns"));
  out->nneeded = nneeded;
  CIS_TRY(cis_gpu_sync());
  CIS_TRY(cis_gpu_download(out->needed, b.needed, (size_t)nneeded * sizeof(cis_idx)));
  out->split_seconds = cis_wtime() - t0;
  t0 = cis_wtime();
  gpu_csr_free(R); /* split: the rows go before the plans are made */
  cis_gpu_free(b.mark);
  cis_gpu_free(b.pos);
  b.mark = b.pos = NULL;
  out->local_nnz = lnnz;
  if (lnnz > 0) {
    if (kind == DIST_LOCAL_HOST) {
      CIS_TRY(local_download(rows, lnnz, &b, &out->local_host));
    } else {
      st = upper ? cis_gpu_plan_from_device_csr_sym(rows, lnnz, CIS_F64, b.lptr, b.lcol, b.lval, kernel, &out->local)
                 : cis_gpu_plan_from_device_csr(rows, rows, lnnz, CIS_F64, b.lptr, b.lcol, b.lval, &out->local);
      b.lptr = NULL; /* the plan's now (or freed by the call) */
      b.lcol = NULL;
      b.lval = NULL;
      CIS_TRY(st);
    }
  }
  if (rnnz > 0) {
    st = cis_gpu_plan_from_device_csr(rows, nneeded, rnnz, CIS_F64, b.rptr, b.rcol, b.rval, &out->remote);
    b.rptr = NULL;
    b.rcol = NULL;
    b.rval = NULL;
    CIS_TRY(st);
  }
  CIS_TRY(cis_gpu_sync());
  out->store_seconds = cis_wtime() - t0;
  st = CIS_OK;
cleanup:
  split_bufs_free(&b);
  if (R) gpu_csr_free(R);
  if (st != CIS_OK) dist_dev_split_clear(out);
  return st;
}

cis_status dist_launch_upper_slice(const int64_t *rowptr, cis_int rows, cis_int m, cis_int r0, cis_idx *col,
                                   int64_t nnz, const double *val, const int64_t *row_start, int parts,
                                   int64_t max_rows, int64_t at, int64_t *ptr_out, double *diag,
                                   unsigned long long *bad, cudaStream_t s);

cis_status dist_upper_slice_dev(cis_gpu_csr *R, cis_int n, cis_int r0, const dist_upper_pad *pad, const char *kernel,
                                double *diag, cis_gpu_plan **out) {
  cis_status st;
  int64_t *ptr = NULL, *rs = NULL;
  double *ddiag = NULL;
  unsigned long long *bad = NULL, hbad = 0;
  const cis_int rows = R ? R->rows : 0, m = pad ? (cis_int)(pad->whole - pad->at) : 0;
  *out = NULL;
  if (!R || !diag || !pad || !R->rowptr || (R->nnz > 0 && (!R->colind || !R->val)))
    CIS_TRY(cis_error(CIS_ERR_INVALID, "dist_upper_slice_dev: NULL argument"));
  if (R->dtype != CIS_F64) CIS_TRY(cis_error(CIS_ERR_UNSUPPORTED, "rows built on the device must hold double values"));
  if (R->cols != n || r0 < 0 || r0 + rows > n || n > CIS_IDX_MAX || m < rows)
    CIS_TRY(cis_error(CIS_ERR_INVALID, "upper rows %lld..%lld of %lld columns given for a matrix of %lld", (long long)r0,
                      (long long)r0 + rows - 1, (long long)R->cols, (long long)n));
  CIS_TRY(dalloc((void **)&ptr, m + 1, sizeof(int64_t), "trailing block row pointers"));
  CIS_TRY(dalloc((void **)&ddiag, rows, sizeof(double), "part diagonal"));
  CIS_TRY(dalloc((void **)&bad, 1, sizeof *bad, "upper-triangle check"));
  CIS_TRY(cis_gpu_alloc_copy((void **)&rs, pad->row_start, (size_t)(pad->parts + 1) * sizeof(int64_t), "row split"));
  CIS_TRY(dist_launch_upper_slice(R->rowptr, rows, m, r0, R->colind, R->nnz, (const double *)R->val, rs, pad->parts,
                                  pad->max_rows, pad->at, ptr, ddiag, bad, NULL));
  CIS_TRY(cis_gpu_sync());
  CIS_TRY(cis_gpu_download(&hbad, bad, sizeof hbad));
  if (hbad != ~0ULL)
    CIS_TRY(cis_error(CIS_ERR_INVALID, "row %lld has an entry below its diagonal: not an upper triangle",
                      (long long)r0 + (long long)hbad));
  if (rows > 0) CIS_TRY(cis_gpu_download(diag, ddiag, (size_t)rows * sizeof(double)));
  cis_gpu_free(R->rowptr);
  R->rowptr = NULL;
  if (R->nnz > 0) {
    st = cis_gpu_plan_from_device_csr_sym(m, R->nnz, CIS_F64, ptr, R->colind, R->val, kernel, out);
    ptr = NULL; /* the plan's now (or freed by the call) */
    R->colind = NULL;
    R->val = NULL;
    CIS_TRY(st);
  }
  st = CIS_OK;
cleanup:
  cis_gpu_free(ptr);
  cis_gpu_free(rs);
  cis_gpu_free(ddiag);
  cis_gpu_free(bad);
  if (R) gpu_csr_free(R);
  return st;
}
