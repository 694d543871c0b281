/* csb_gpu.c: device table of Compressed Sparse Blocks (Mahmoud et al. 2018,
 * Sec. 3.6; Buluc et al. 2009): one thread block per block row, see csb.cu. */
#include "gpu/gpu_internal.h"

static void csb_release(void *dev) {
  cis_fmt_csb *D = dev;
  if (!D) return;
  cis_gpu_free(D->block_ptr);
  cis_gpu_free(D->lrow);
  cis_gpu_free(D->lcol);
  cis_gpu_free(D->val);
  cis_free(D);
}

static cis_status csb_upload(const void *impl, void **dev, cis_int *bytes, cis_int *ws) {
  const cis_fmt_csb *F = impl;
  cis_status st;
  cis_int total = 0;
  cis_fmt_csb *D = cis_calloc(1, sizeof *D);
  if (!D) return cis_error(CIS_ERR_ALLOC, "cannot allocate the device CSB header");
  D->h = F->h;
  D->z = F->z;
  D->nbr = F->nbr;
  D->nbc = F->nbc;
  CIS_TRY(cis_gpu_upload_array((void **)&D->block_ptr, F->block_ptr, F->nbr * F->nbc + 1,
                               sizeof(int64_t), "CSB block pointers", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->lrow, F->lrow, F->h.nnz, sizeof(uint16_t), "CSB local rows", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->lcol, F->lcol, F->h.nnz, sizeof(uint16_t), "CSB local columns", &total));
  CIS_TRY(cis_gpu_upload_array(&D->val, F->val, F->h.nnz, cis_dtype_size(F->h.dtype), "CSB values", &total));
  *dev = D;
  *bytes = total;
  *ws = 0;
  return CIS_OK;
cleanup:
  csb_release(D);
  return st;
}

static cis_status csb_spmv(const void *dev, const char *kernel, int block, double alpha,
                           const void *x, double beta, void *y, cis_stream s) {
  const cis_fmt_csb *D = dev;
  return cis_launch_csb(D->h.dtype, D->h.rows, D->z, D->nbr, D->nbc, D->block_ptr, D->lrow,
                        D->lcol, D->val, alpha, x, beta, y, block, (cudaStream_t)s);
}

const cis_gpu_format_ops cis_gpu_format_csb = {
    .format = "csb",
    .kernels = {"csb", NULL},
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 3.6; Buluc et al., SPAA 2009",
    .upload = csb_upload,
    .spmv = csb_spmv,
    .release = csb_release,
};
