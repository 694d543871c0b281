/* csr_gpu.c: device table of the CSR format (Mahmoud et al. 2018, Sec. 3.1,
 * Algorithm 1): the device struct is the host cis_fmt_csr with device
 * pointers; kernels csr-vector (warp per row, default) and csr-scalar. */
#include <string.h>
#include "gpu/gpu_internal.h"
#include "gpu/gpu_plan_internal.h"

static void csr_release(void *dev) {
  cis_fmt_csr *D = dev;
  if (!D) return;
  cis_gpu_free_offsets(&D->rowptr);
  cis_gpu_free(D->col);
  cis_gpu_free(D->val);
  cis_free(D);
}

static cis_status csr_upload(const void *impl, void **dev, cis_int *bytes, cis_int *ws) {
  const cis_fmt_csr *F = impl;
  cis_status st;
  cis_int total = 0;
  cis_fmt_csr *D = cis_calloc(1, sizeof *D);
  if (!D) return cis_error(CIS_ERR_ALLOC, "cannot allocate the device CSR header");
  D->h = F->h;
  CIS_TRY(cis_gpu_upload_offsets(&D->rowptr, &F->rowptr, F->h.rows + 1, "CSR row pointers", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->col, F->col, F->h.nnz, sizeof(cis_idx), "CSR columns", &total));
  CIS_TRY(cis_gpu_upload_array(&D->val, F->val, F->h.nnz, cis_dtype_size(F->h.dtype), "CSR values", &total));
  *dev = D;
  *bytes = total;
  *ws = 0;
  return CIS_OK;
cleanup:
  csr_release(D);
  return st;
}

static cis_status csr_spmv(const void *dev, const char *kernel, int block, double alpha,
                           const void *x, double beta, void *y, cis_stream s) {
  const cis_fmt_csr *D = dev;
  return cis_launch_csr(strcmp(kernel, "csr-scalar") != 0, D->h.dtype, D->rowptr.wide, D->h.rows,
                        cis_off_data(&D->rowptr), D->col, D->val, alpha, x, beta, y, block,
                        (cudaStream_t)s);
}

static cis_status csr_spmm(const void *dev, int block, int k, double alpha, const void *X, cis_int ldx,
                           double beta, void *Y, cis_int ldy, int col_major, cis_stream s) {
  const cis_fmt_csr *D = dev;
  return cis_launch_csr_spmm(D->h.dtype, D->rowptr.wide, 0, D->h.rows, D->h.nnz, cis_off_data(&D->rowptr), D->col,
                             D->val, k, alpha, X, ldx, beta, Y, ldy, col_major, block, (cudaStream_t)s);
}

const cis_gpu_format_ops cis_gpu_format_csr = {
    .format = "csr",
    .kernels = {"csr-vector", "csr-scalar", NULL},
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 3.1, Algorithm 1 (scalar); Bell & Garland 2009 (vector)",
    .upload = csr_upload,
    .spmv = csr_spmv,
    .release = csr_release,
    .spmm = csr_spmm,
};

cis_status cis_gpu_plan_from_device_csr(cis_int rows, cis_int cols, cis_int nnz, cis_dtype t,
                                        int64_t *d_rowptr, cis_idx *d_col, void *d_val,
                                        cis_gpu_plan **out) {
  cis_fmt_csr *D = cis_calloc(1, sizeof *D);
  if (!D) {
    cis_gpu_free(d_rowptr);
    cis_gpu_free(d_col);
    cis_gpu_free(d_val);
    return cis_error(CIS_ERR_ALLOC, "cannot allocate the device CSR header");
  }
  D->h = (cis_fmt_head){rows, cols, nnz, t};
  D->rowptr.wide = 1;
  D->rowptr.i64 = d_rowptr;
  D->col = d_col;
  D->val = d_val;
  /* bytes: 64-bit row pointers + 32-bit columns + values (what was allocated) */
  return cis_gpu_plan_wrap(&cis_gpu_format_csr, D, "csr-vector", rows, cols, nnz, t,
                           (rows + 1) * 8 + nnz * (cis_int)(sizeof(cis_idx) + cis_dtype_size(t)), 0,
                           out);
}

cis_status gpu_plan_download_csr(const cis_gpu_plan *p, cis_csr **out) {
  cis_status st;
  cis_csr *A = NULL;
  if (!out) return cis_error(CIS_ERR_INVALID, "gpu_plan_download_csr: NULL output");
  *out = NULL;
  if (!p) return cis_error(CIS_ERR_INVALID, "gpu_plan_download_csr: NULL plan");
  if (p->ops != &cis_gpu_format_csr)
    return cis_error(CIS_ERR_UNSUPPORTED, "gpu_plan_download_csr: the plan is %s, not csr", p->ops->format);
  const cis_fmt_csr *D = p->dev;
  CIS_TRY(cis_csr_alloc(D->h.rows, D->h.cols, D->h.nnz, D->h.dtype, &A));
  if (D->rowptr.wide) {
    CIS_TRY(cis_gpu_download(A->rowptr, D->rowptr.i64, (size_t)(D->h.rows + 1) * sizeof(int64_t)));
  } else {
    uint32_t *u = NULL;
    CIS_TRY(cis_alloc_array((void **)&u, D->h.rows + 1, sizeof(uint32_t), "CSR row pointers"));
    st = cis_gpu_download(u, D->rowptr.u32, (size_t)(D->h.rows + 1) * sizeof(uint32_t));
    for (cis_int i = 0; st == CIS_OK && i <= D->h.rows; ++i) A->rowptr[i] = u[i];
    cis_free(u);
    CIS_TRY(st);
  }
  CIS_TRY(cis_gpu_download(A->colind, D->col, (size_t)D->h.nnz * sizeof(cis_idx)));
  CIS_TRY(cis_gpu_download(A->val, D->val, (size_t)D->h.nnz * cis_dtype_size(D->h.dtype)));
  *out = A;
  return CIS_OK;
cleanup:
  cis_csr_free(A);
  return st;
}
