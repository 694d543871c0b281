/* sell16_gpu.c: the device table of sell16 (SELL-C-sigma with 16-bit column
 * deltas per lane, escapes in the slots; format_types.h), kernel "sell16":
 * sell.cu's split kernel with the format's lanes as threads per row
 * (Kreutzer et al. 2014; issue 10, item 3). */
#include "gpu/gpu_internal.h"

typedef struct sell16_dev {
  cis_fmt_sell16 f; /* device pointers */
  cis_sell_tuning tune;
} sell16_dev;

static void sell16_release(void *dev) {
  sell16_dev *W = dev;
  if (!W) return;
  cis_gpu_free(W->f.slice_ptr);
  cis_gpu_free(W->f.base);
  cis_gpu_free(W->f.off);
  cis_gpu_free(W->f.val);
  cis_gpu_free(W->f.perm);
  cis_free(W);
}

static cis_status sell16_upload(const void *impl, void **dev, cis_int *bytes, cis_int *ws) {
  const cis_fmt_sell16 *F = impl;
  const size_t vs = cis_dtype_size(F->vdtype);
  cis_status st;
  cis_int total = 0, slots = F->slice_ptr[F->nslices];
  sell16_dev *W = cis_calloc(1, sizeof *W);
  if (!W) return cis_error(CIS_ERR_ALLOC, "cannot allocate the device sell16 header");
  W->f.h = F->h;
  W->f.C = F->C;
  W->f.sigma = F->sigma;
  W->f.nslices = F->nslices;
  W->f.lanes = F->lanes;
  W->f.escapes = F->escapes;
  W->f.vdtype = F->vdtype;
  CIS_TRY(cis_sell_tuning_get(F->h.dtype, F->C, F->nslices, slots, F->lanes, &W->tune));
  CIS_TRY(cis_gpu_upload_array((void **)&W->f.slice_ptr, F->slice_ptr, F->nslices + 1, sizeof(int64_t),
                               "sell16 slice offsets", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&W->f.base, F->base, F->nslices, sizeof(int32_t), "sell16 slice starts", &total));
  CIS_TRY(cis_gpu_upload_array((void **)&W->f.off, F->off, slots, sizeof(uint16_t), "sell16 column codes", &total));
  CIS_TRY(cis_gpu_upload_array(&W->f.val, F->val, slots, vs, "sell16 values", &total));
  if (F->perm)
    CIS_TRY(cis_gpu_upload_array((void **)&W->f.perm, F->perm, F->h.rows, sizeof(cis_idx), "sell16 permutation", &total));
  *dev = W;
  *bytes = total;
  *ws = 0;
  return CIS_OK;
cleanup:
  sell16_release(W);
  return st;
}

static cis_status sell16_spmv(const void *dev, const char *kernel, int block, double alpha,
                              const void *x, double beta, void *y, cis_stream s) {
  const sell16_dev *W = dev;
  const cis_fmt_sell16 *D = &W->f;
  (void)kernel;
  return cis_launch_sell16(D->h.dtype, D->vdtype, D->h.rows, D->C, &W->tune, D->nslices, D->slice_ptr, D->base, D->off,
                           D->val, D->perm, alpha, x, beta, y, block, (cudaStream_t)s);
}

const cis_gpu_format_ops cis_gpu_format_sell16 = {
    .format = "sell16",
    .kernels = {"sell16", NULL},
    .citation = "Kreutzer et al. 2014 (SELL-C-sigma) with 16-bit column deltas per lane (issue 10)",
    .upload = sell16_upload,
    .spmv = sell16_spmv,
    .release = sell16_release};
