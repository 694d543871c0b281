/* csr_sym_gpu.c: symmetric storage on the GPU: the device table of the
 * upper-triangle CSR (kernels csr-sym, csr-sym-det of
 * src/kernels/csr_sym.cu), cis_gpu_plan_create_symmetric from a host upper
 * triangle, and a plan around one built on the device (the CI Hamiltonian,
 * src/ci/gpu/). Row pointers are 64-bit; bytes = (rows+1)*8 + nnz*(4+vs),
 * about half the full matrix's; csr-sym-det adds rows*8 + 8 bytes of
 * workspace (the fixed-point accumulators). */
#include <string.h>
#include "gpu/gpu_internal.h"

static void sym_release(void *dev) {
  cis_csr_sym_dev *D = dev;
  if (!D) return;
  cis_gpu_free((void *)D->rowptr);
  cis_gpu_free((void *)D->col);
  cis_gpu_free((void *)D->val);
  cis_gpu_free(D->acc);
  cis_gpu_free(D->xmax);
  cis_free(D);
}

/* csr-sym-det's workspace and the bound colmax (one pass over U). */
static cis_status sym_det_setup(cis_csr_sym_dev *D, cis_int *ws) {
  cis_status st;
  double *colsum = NULL;
  unsigned long long bits = 0;
  CIS_TRY(cis_gpu_upload_array((void **)&D->acc, NULL, D->rows, 8, "csr-sym-det accumulators", ws));
  CIS_TRY(cis_gpu_upload_array((void **)&D->xmax, NULL, 1, 8, "csr-sym-det max|x|", ws));
  CIS_TRY(cis_gpu_alloc_copy((void **)&colsum, NULL, (size_t)D->rows * 8 + 8, "csr-sym-det column sums"));
  CIS_TRY(cis_launch_csr_sym_colmax(D, colsum, D->xmax, NULL));
  if (cudaMemset(D->acc, 0, (size_t)D->rows * 8) != cudaSuccess) {
    st = cis_error(CIS_ERR_CUDA, "%s:%d: clearing the csr-sym-det accumulators failed", __FILE__, __LINE__);
    goto cleanup;
  }
  CIS_TRY(cis_gpu_sync());
  CIS_TRY(cis_gpu_download(&bits, D->xmax, 8));
  memcpy(&D->colmax, &bits, 8);
  D->colmax *= 1.0 + 1e-12; /* the device sum was rounded: keep it an upper bound */
cleanup:
  cis_gpu_free(colsum);
  return st;
}

/* A plan around device arrays (owned by the plan from the call on). */
static cis_status sym_plan(cis_csr_sym_dev *D, const char *kernel, int block, cis_gpu_plan **out);

static cis_status sym_spmv(const void *dev, const char *kernel, int block, double alpha, const void *x,
                           double beta, void *y, cis_stream s) {
  (void)kernel; /* D->det was set from the kernel name at creation */
  return cis_launch_csr_sym(dev, alpha, x, beta, y, block, (cudaStream_t)s);
}

static cis_status sym_spmm(const void *dev, int block, int k, double alpha, const void *X, cis_int ldx,
                           double beta, void *Y, cis_int ldy, int col_major, cis_stream s) {
  const cis_csr_sym_dev *D = dev;
  return cis_launch_csr_spmm(D->t, 1, 1, D->rows, D->nnz, D->rowptr, D->col, D->val, k, alpha, X, ldx, beta, Y,
                             ldy, col_major, block, (cudaStream_t)s);
}

static cis_status no_upload(const void *impl, void **dev, cis_int *bytes, cis_int *ws) {
  (void)impl; (void)dev; (void)bytes; (void)ws;
  return cis_error(CIS_ERR_UNSUPPORTED, "csr-sym plans come from cis_gpu_plan_create_symmetric");
}

const cis_gpu_format_ops cis_gpu_format_csr_sym = {
    .format = "csr-sym",
    .kernels = {"csr-sym", "csr-sym-det", "csr-sym-win", NULL},
    .citation = "Buluc et al. SPAA 2009 (symmetric case); Gkountouvas et al. IPDPS 2013 (atomic scatter)",
    .upload = no_upload,
    .spmv = sym_spmv,
    .release = sym_release,
    .spmm = sym_spmm,
};

static cis_status sym_plan(cis_csr_sym_dev *D, const char *kernel, int block, cis_gpu_plan **out) {
  cis_status st;
  cis_int ws = 0;
  D->det = !strcmp(kernel, "csr-sym-det");
  D->window = !strcmp(kernel, "csr-sym-win");
  if (D->det && (st = sym_det_setup(D, &ws)) != CIS_OK) {
    sym_release(D);
    return st;
  }
  cis_int bytes = (D->rows + 1) * 8 + D->nnz * (cis_int)(sizeof(cis_idx) + cis_dtype_size(D->t));
  CIS_TRY(cis_gpu_plan_wrap(&cis_gpu_format_csr_sym, D, kernel, D->rows, D->rows, D->nnz, D->t, bytes, ws, out));
  (*out)->block = block;
  return CIS_OK;
cleanup:
  return st;
}

static cis_status need_sym_kernel(const char **kernel, int block) {
  if (!*kernel) *kernel = cis_gpu_format_csr_sym.kernels[0];
  if (!cis_gpu_kernel_known(&cis_gpu_format_csr_sym, *kernel))
    return cis_error(CIS_ERR_NOT_FOUND,
                     "unknown kernel '%s' for symmetric storage (known: csr-sym, csr-sym-det, csr-sym-win)",
                     *kernel);
  if (block < 0 || block > 256 || block % 32)
    return cis_error(CIS_ERR_INVALID, "symmetric kernels: block size %d must be 0 or a multiple of 32 up to 256",
                     block);
  return CIS_OK;
}

cis_status cis_gpu_plan_create_symmetric(const cis_csr *U, const char *kernel, int block, cis_gpu_plan **out) {
  cis_status st;
  cis_csr_sym_dev *D = NULL;
  cis_int total = 0;
  char why[160];
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_gpu_plan_create_symmetric: NULL output");
  *out = NULL;
  if (!U) return cis_error(CIS_ERR_INVALID, "cis_gpu_plan_create_symmetric: NULL matrix");
  if (!(U->flags & CIS_FLAG_UPPER) || U->rows != U->cols)
    return cis_error(CIS_ERR_INVALID, "symmetric storage needs a square upper triangle (CIS_FLAG_UPPER; "
                                      "cis_csr_upper_symmetric makes one)");
  for (cis_int i = 0; i < U->rows; ++i)
    if (U->rowptr[i + 1] > U->rowptr[i] && U->colind[U->rowptr[i]] < i)
      return cis_error(CIS_ERR_INVALID, "upper triangle has entry (%lld, %d) below the diagonal", (long long)i + 1,
                       U->colind[U->rowptr[i]] + 1);
  CIS_TRY(need_sym_kernel(&kernel, block));
  if (cis_gpu_count(why, sizeof why) == 0) return cis_error(CIS_ERR_NO_GPU, "%s", why);
  if (!(D = cis_calloc(1, sizeof *D))) return cis_error(CIS_ERR_ALLOC, "cannot allocate a GPU plan");
  D->t = U->dtype;
  D->rows = U->rows;
  D->nnz = U->nnz;
  CIS_TRY(cis_gpu_upload_array((void **)&D->rowptr, U->rowptr, U->rows + 1, 8, "symmetric CSR row pointers", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->col, U->colind, U->nnz, sizeof(cis_idx), "symmetric CSR columns", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->val, U->val, U->nnz, cis_dtype_size(U->dtype), "symmetric CSR values",
                               &total));
  return sym_plan(D, kernel, block, out);
cleanup:
  sym_release(D);
  return st;
}

cis_status cis_gpu_plan_from_device_csr_sym(cis_int rows, cis_int nnz, cis_dtype t, int64_t *d_rowptr,
                                            cis_idx *d_col, void *d_val, const char *kernel,
                                            cis_gpu_plan **out) {
  cis_status st;
  cis_csr_sym_dev *D = cis_calloc(1, sizeof *D);
  *out = NULL;
  if (!D) {
    st = cis_error(CIS_ERR_ALLOC, "cannot allocate the device CSR header");
  } else {
    *D = (cis_csr_sym_dev){t, rows, nnz, d_rowptr, d_col, d_val, 0, 0, NULL, NULL, 0.0};
    if ((st = need_sym_kernel(&kernel, 0)) == CIS_OK) return sym_plan(D, kernel, 0, out);
    sym_release(D);
    return st;
  }
  cis_gpu_free(d_rowptr);
  cis_gpu_free(d_col);
  cis_gpu_free(d_val);
  return st;
}

int cis_gpu_plan_is_symmetric(const cis_gpu_plan *p) { return p && p->ops == &cis_gpu_format_csr_sym; }
