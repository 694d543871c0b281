/* hyb_gpu.c: device table of the hybrid ELLPACK+CSR CI format (Mahmoud et al.
 * 2018, Sec. 4.1 Algorithm 6, Sec. 4.2 Algorithm 7): kernels "hyb" (fast,
 * default) and "hyb-paper" (Algorithm 7 as printed, block size swept). */
#include <string.h>
#include "gpu/gpu_internal.h"

static void hyb_release(void *dev) {
  cis_fmt_hyb *D = dev;
  if (!D) return;
  cis_gpu_free(D->ell_col);
  cis_gpu_free(D->ell_val);
  cis_gpu_free(D->rownnz);
  cis_gpu_free_offsets(&D->start);
  cis_gpu_free_offsets(&D->end);
  cis_gpu_free(D->csr_col);
  cis_gpu_free(D->csr_val);
  cis_free(D);
}

static cis_status hyb_upload(const void *impl, void **dev, cis_int *bytes, cis_int *ws) {
  const cis_fmt_hyb *F = impl;
  cis_status st;
  cis_int total = 0, slots = F->h.rows * F->width;
  size_t vs = cis_dtype_size(F->h.dtype);
  cis_fmt_hyb *D = cis_calloc(1, sizeof *D);
  if (!D) return cis_error(CIS_ERR_ALLOC, "cannot allocate the device hybrid header");
  D->h = F->h;
  D->mode = F->mode;
  D->boundary = F->boundary;
  D->width = F->width;
  D->csr_nnz = F->csr_nnz;
  CIS_TRY(cis_gpu_upload_array((void **)&D->ell_col, F->ell_col, slots, sizeof(cis_idx), "hybrid ELLPACK columns", &total));
  CIS_TRY(cis_gpu_upload_array(&D->ell_val, F->ell_val, slots, vs, "hybrid ELLPACK values", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->rownnz, F->rownnz, F->h.rows, sizeof(uint32_t), "hybrid row counts", &total));
  CIS_TRY(cis_gpu_upload_offsets(&D->start, &F->start, F->h.rows, "hybrid CSR starts", &total));
  CIS_TRY(cis_gpu_upload_offsets(&D->end, &F->end, F->h.rows, "hybrid CSR ends", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->csr_col, F->csr_col, F->csr_nnz, sizeof(cis_idx), "hybrid CSR columns", &total));
  CIS_TRY(cis_gpu_upload_array(&D->csr_val, F->csr_val, F->csr_nnz, vs, "hybrid CSR values", &total));
  *dev = D;
  *bytes = total;
  *ws = 0;
  return CIS_OK;
cleanup:
  hyb_release(D);
  return st;
}

static cis_status hyb_spmv(const void *dev, const char *kernel, int block, double alpha,
                           const void *x, double beta, void *y, cis_stream s) {
  const cis_fmt_hyb *D = dev;
  cis_hyb_dev k = {D->h.dtype, D->start.wide, D->mode == CIS_BOUNDARY_COLUMN, D->h.rows, D->h.cols, D->width,
                   D->h.nnz, D->ell_col, D->ell_val, D->rownnz, cis_off_data(&D->start),
                   cis_off_data(&D->end), D->csr_col, D->csr_val};
  if (!strcmp(kernel, "hyb-paper")) return cis_launch_hyb_paper(&k, alpha, x, beta, y, block, (cudaStream_t)s);
  return cis_launch_hyb_fast(&k, alpha, x, beta, y, block, (cudaStream_t)s);
}

const cis_gpu_format_ops cis_gpu_format_hyb = {
    .format = "hyb",
    .kernels = {"hyb", "hyb-paper", NULL},
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 4.1 Algorithm 6, Sec. 4.2 Algorithm 7",
    .upload = hyb_upload,
    .spmv = hyb_spmv,
    .release = hyb_release,
};
