/* sell_gpu.c: device tables of Sliced ELLPACK, Sliced ELLPACK-R and
 * SELL-C-sigma (Mahmoud et al. 2018, Sec. 3.4-3.5, Algorithms 4-5; SELL
 * report IPSJ 2018-HPC-164; Kreutzer et al. 2014): two kernels, "<fmt>"
 * (S*P threads per slice, sell.cu's split kernel) and "<fmt>-row" (the
 * report's thread per row); rowlen (sellr) and perm (sellcs) switch their
 * variants. The device struct is the host one plus the split kernel's
 * tuning, fixed when the plan is made. */
#include <string.h>
#include "gpu/gpu_internal.h"

typedef struct sell_dev {
  cis_fmt_sell f; /* first: gpu_view.c reads the device arrays through it */
  cis_sell_tuning tune;
} sell_dev;

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
  sell_dev *W = cis_calloc(1, sizeof *W);
  cis_fmt_sell *D = W ? &W->f : NULL;
  if (!W) return cis_error(CIS_ERR_ALLOC, "cannot allocate the device SELL header");
  CIS_TRY(cis_sell_tuning_get(F->h.dtype, F->S, F->nslices, slots, 0, &W->tune));
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
  const sell_dev *W = dev;
  const cis_fmt_sell *D = &W->f;
  const int row_kernel = strstr(kernel, "-row") != NULL;
  return cis_launch_sell(D->h.dtype, row_kernel, D->h.rows, D->S, D->nslices, &W->tune,
                         D->slice_ptr, D->col, D->val, D->rowlen, D->perm, alpha, x, beta, y,
                         block, (cudaStream_t)s);
}

#define SELL_TABLE(fmt, cite)                                            \
  const cis_gpu_format_ops cis_gpu_format_##fmt = {.format = #fmt,       \
                                                   .kernels = {#fmt, #fmt "-row", NULL}, \
                                                   .citation = cite,     \
                                                   .upload = sell_upload, \
                                                   .spmv = sell_spmv,    \
                                                   .release = sell_release}

SELL_TABLE(sell, "Mahmoud, Hoffmann, Reza 2018, Sec. 3.4, Algorithm 4; SELL report IPSJ 2018-HPC-164");
SELL_TABLE(sellr, "Mahmoud, Hoffmann, Reza 2018, Sec. 3.5, Algorithm 5");
SELL_TABLE(sellcs, "Kreutzer, Hager, Wellein, Fehske, Bishop, SIAM J. Sci. Comput. 2014 (SELL-C-sigma)");
