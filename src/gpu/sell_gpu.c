/* sell_gpu.c: device tables of Sliced ELLPACK, Sliced ELLPACK-R and
 * SELL-C-sigma (Mahmoud et al. 2018, Sec. 3.4-3.5, Algorithms 4-5; SELL
 * report IPSJ 2018-HPC-164; Kreutzer et al. 2014): one kernel, thread per
 * row of a slice; rowlen (sellr) and perm (sellcs) switch its variants. */
#include "gpu/gpu_internal.h"

static void sell_release(void *dev) {
  cis_fmt_sell *D = dev;
  if (!D) return;
  cis_gpu_free(D->slice_ptr);
  cis_gpu_free(D->col);
  cis_gpu_free(D->val);
  cis_gpu_free(D->rowlen);
  cis_gpu_free(D->perm);
  cis_free(D);
}

static cis_status sell_upload(const void *impl, void **dev, cis_int *bytes, cis_int *ws) {
  const cis_fmt_sell *F = impl;
  cis_status st;
  cis_int total = 0, slots = F->slice_ptr[F->nslices];
  cis_fmt_sell *D = cis_calloc(1, sizeof *D);
  if (!D) return cis_error(CIS_ERR_ALLOC, "cannot allocate the device SELL header");
  D->h = F->h;
  D->S = F->S;
  D->sigma = F->sigma;
  D->nslices = F->nslices;
  CIS_TRY(cis_gpu_upload_array((void **)&D->slice_ptr, F->slice_ptr, F->nslices + 1,
                               sizeof(int64_t), "SELL slice offsets", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&D->col, F->col, slots, sizeof(cis_idx), "SELL columns", &total));
  CIS_TRY(cis_gpu_upload_array(&D->val, F->val, slots, cis_dtype_size(F->h.dtype), "SELL values", &total));
  if (F->rowlen)
    CIS_TRY(cis_gpu_upload_array((void **)&D->rowlen, F->rowlen, F->h.rows, sizeof(cis_idx),
                                 "SELL-R row lengths", &total));
  if (F->perm)
    CIS_TRY(cis_gpu_upload_array((void **)&D->perm, F->perm, F->h.rows, sizeof(cis_idx),
                                 "SELL-C-sigma permutation", &total));
  *dev = D;
  *bytes = total;
  *ws = 0;
  return CIS_OK;
cleanup:
  sell_release(D);
  return st;
}

static cis_status sell_spmv(const void *dev, const char *kernel, int block, double alpha,
                            const void *x, double beta, void *y, cis_stream s) {
  const cis_fmt_sell *D = dev;
  return cis_launch_sell(D->h.dtype, D->h.rows, D->S, D->nslices, D->slice_ptr, D->col, D->val,
                         D->rowlen, D->perm, alpha, x, beta, y, block, (cudaStream_t)s);
}

#define SELL_TABLE(fmt, cite)                                            \
  const cis_gpu_format_ops cis_gpu_format_##fmt = {.format = #fmt,       \
                                                   .kernels = {#fmt, NULL}, \
                                                   .citation = cite,     \
                                                   .upload = sell_upload, \
                                                   .spmv = sell_spmv,    \
                                                   .release = sell_release}

SELL_TABLE(sell, "Mahmoud, Hoffmann, Reza 2018, Sec. 3.4, Algorithm 4; SELL report IPSJ 2018-HPC-164");
SELL_TABLE(sellr, "Mahmoud, Hoffmann, Reza 2018, Sec. 3.5, Algorithm 5");
SELL_TABLE(sellcs, "Kreutzer, Hager, Wellein, Fehske, Bishop, SIAM J. Sci. Comput. 2014 (SELL-C-sigma)");
