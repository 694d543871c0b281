/* csr5_gpu.c: the device side of the CSR5 format (Liu & Vinter, ICS 2015):
 * uploads the arrays of src/formats/csr5.h one for one (device bytes = host
 * bytes) plus the calibrator workspace, and runs the "csr5" kernel
 * (src/kernels/csr5.cu). */
#include <string.h>
#include <cuda_runtime.h>
#include "core/internal.h"
#include "formats/csr5.h"
#include "gpu/gpu_format.h"
#include "kernels/csr5_kernels.h"
#include "kernels/kernel_common.cuh"

/* Every device allocation of one uploaded matrix, freed together. */
enum { CSR5_NARRAYS = 12 };
typedef struct csr5_device {
  cis_csr5_device_arrays a;
  cis_dtype dtype;
  void *mem[CSR5_NARRAYS];
  int nmem;
} csr5_device;

static void csr5_release(void *dev) {
  csr5_device *D = dev;
  if (!D) return;
  for (int i = 0; i < D->nmem; ++i) cis_gpu_free(D->mem[i]);
  cis_free(D);
}

/* Upload one host array: remembered for release, counted in *bytes. */
static cis_status put(csr5_device *D, const void **d, const void *h, cis_int bytes, cis_int *total,
                      const char *what) {
  void *p = NULL;
  cis_status st = cis_gpu_alloc_copy(&p, h, (size_t)bytes, what);
  if (st != CIS_OK) return st;
  D->mem[D->nmem++] = p;
  *d = p;
  *total += bytes;
  return CIS_OK;
}

static cis_status csr5_upload(const void *impl, void **dev, cis_int *bytes, cis_int *ws) {
  const cis_fmt_csr5 *F = impl;
  const cis_int lanes = F->ntiles * CIS_CSR5_OMEGA, vs = (cis_int)cis_dtype_size(F->h.dtype);
  const cis_int off = F->rowptr.wide ? 8 : 4;
  cis_status st;
  cis_int total = 0, work = 0;
  const void *cal = NULL;
  *dev = NULL;
  csr5_device *D = cis_calloc(1, sizeof *D);
  if (!D) return cis_error(CIS_ERR_ALLOC, "cannot allocate the CSR5 device handle");
  cis_csr5_device_arrays *a = &D->a;
  D->dtype = F->h.dtype;
  a->rows = F->h.rows;
  a->ntiles = F->ntiles;
  a->tail_start = F->tail_start;
  a->tail_first_row = cis_csr5_tile_row(F, F->ntiles);
  a->sigma = (int)F->sigma;
  a->wide_offsets = F->rowptr.wide;
  CIS_TRY(put(D, &a->rowptr, cis_off_data(&F->rowptr), (F->h.rows + 1) * off, &total, "CSR5 rowptr"));
  CIS_TRY(put(D, (const void **)&a->tile_ptr, F->tile_ptr, (F->ntiles + 1) * 4, &total, "CSR5 tile_ptr"));
  CIS_TRY(put(D, (const void **)&a->bit_flag, F->bit_flag, lanes * 4, &total, "CSR5 bit_flag"));
  CIS_TRY(put(D, (const void **)&a->y_offset, F->y_offset, lanes * 2, &total, "CSR5 y_offset"));
  CIS_TRY(put(D, (const void **)&a->seg_offset, F->seg_offset, lanes, &total, "CSR5 seg_offset"));
  CIS_TRY(put(D, &a->empty_ptr, cis_off_data(&F->empty_ptr), (F->ntiles + 1) * off, &total, "CSR5 empty_ptr"));
  CIS_TRY(put(D, (const void **)&a->empty_offset, F->empty_offset, F->n_empty_offset * 4, &total,
              "CSR5 empty_offset"));
  CIS_TRY(put(D, (const void **)&a->col, F->col, F->h.nnz * 4, &total, "CSR5 columns"));
  CIS_TRY(put(D, &a->val, F->val, F->h.nnz * vs, &total, "CSR5 values"));
  CIS_TRY(put(D, &cal, NULL, F->ntiles * vs, &work, "CSR5 calibrator"));
  a->calibrator = (void *)cal;
  *dev = D;
  *bytes = total;
  *ws = work;
  return CIS_OK;
cleanup:
  csr5_release(D);
  return st;
}

static cis_status csr5_gpu_spmv(const void *dev, const char *kernel, int block, double alpha, const void *d_x,
                                double beta, void *d_y, cis_stream s) {
  const csr5_device *D = dev;
  if (kernel && strcmp(kernel, "csr5") != 0)
    return cis_error(CIS_ERR_NOT_FOUND, "format csr5 has no kernel '%s' (known: csr5)", kernel);
  if (D->dtype == CIS_F64) return cis_csr5_spmv_f64(&D->a, block, alpha, d_x, beta, d_y, s);
  return cis_csr5_spmv_f32(&D->a, block, (float)alpha, d_x, (float)beta, d_y, s);
}

const cis_gpu_format_ops cis_gpu_format_csr5 = {
    .format = "csr5",
    .kernels = {"csr5", NULL},
    .citation = "Liu & Vinter, ICS 2015 (CSR5), Sec. 4: warp per tile, segmented sum, calibration",
    .upload = csr5_upload,
    .spmv = csr5_gpu_spmv,
    .release = csr5_release,
};
