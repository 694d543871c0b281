/* ell_gpu.c: device tables of ELLPACK and ELLPACK-R (Mahmoud et al. 2018,
 * Sec. 3.2-3.3, Algorithms 2-3): one thread per row, column-major slots. */
#include "gpu/gpu_internal.h"

static void ell_release(void *dev) {
  cis_fmt_ell *D = dev;
  if (!D) return;
  cis_gpu_free(D->col);
  cis_gpu_free(D->val);
  cis_gpu_free(D->rowlen);
  cis_free(D);
}

static cis_status ell_upload(const void *impl, void **dev, cis_int *bytes, cis_int *ws) {
  const cis_fmt_ell *F = impl;
  cis_status st;
  cis_int total = 0, slots = F->h.rows * F->width;
  cis_fmt_ell *D = cis_calloc(1, sizeof *D);
  if (!D) return cis_error(CIS_ERR_ALLOC, "cannot allocate the device ELLPACK header");
  D->h = F->h;
  D->width = F->width;
  CIS_TRY(cis_gpu_upload_array((void **)&D->col, F->col, slots, sizeof(cis_idx), "ELLPACK columns", &total));
  CIS_TRY(cis_gpu_upload_array(&D->val, F->val, slots, cis_dtype_size(F->h.dtype), "ELLPACK values", &total));
  if (F->rowlen)
    CIS_TRY(cis_gpu_upload_array((void **)&D->rowlen, F->rowlen, F->h.rows, sizeof(cis_idx),
                                 "ELLPACK-R row lengths", &total));
  *dev = D;
  *bytes = total;
  *ws = 0;
  return CIS_OK;
cleanup:
  ell_release(D);
  return st;
}

static cis_status ell_spmv(const void *dev, const char *kernel, int block, double alpha,
                           const void *x, double beta, void *y, cis_stream s) {
  const cis_fmt_ell *D = dev;
  return cis_launch_ell(D->h.dtype, D->h.rows, D->width, D->col, D->val, D->rowlen, alpha, x,
                        beta, y, block, (cudaStream_t)s);
}

const cis_gpu_format_ops cis_gpu_format_ell = {
    .format = "ell",
    .kernels = {"ell", NULL},
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 3.2, Algorithm 2",
    .upload = ell_upload,
    .spmv = ell_spmv,
    .release = ell_release,
};

const cis_gpu_format_ops cis_gpu_format_ellr = {
    .format = "ellr",
    .kernels = {"ellr", NULL},
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 3.3, Algorithm 3 (Vazquez et al. 2011)",
    .upload = ell_upload,
    .spmv = ell_spmv,
    .release = ell_release,
};
