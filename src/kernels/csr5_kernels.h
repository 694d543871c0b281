/* csr5_kernels.h: the extern "C" launchers of the CSR5 SpMV kernel
 * (src/kernels/csr5.cu). C header, no CUDA types: every pointer below is a
 * device pointer to the array of the same name in src/formats/csr5.h; the
 * launchers know nothing else of the format layer. */
#ifndef CISPARSE_CSR5_KERNELS_H
#define CISPARSE_CSR5_KERNELS_H

#include <stdint.h>
#include "cisparse/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device arrays and sizes of one CSR5 matrix. */
typedef struct cis_csr5_device_arrays {
  int64_t rows, ntiles, tail_start;
  int64_t tail_first_row;    /* tile_ptr[ntiles]: first row of the CSR tail */
  int sigma;                 /* 1..32 */
  int wide_offsets;          /* rowptr and empty_ptr: 0 = uint32_t, 1 = int64_t */
  const void *rowptr;        /* rows + 1 */
  const uint32_t *tile_ptr;  /* ntiles + 1, bit 31 = tile holds empty rows */
  const uint32_t *bit_flag;  /* ntiles * 32 */
  const uint16_t *y_offset;  /* ntiles * 32 */
  const uint8_t *seg_offset; /* ntiles * 32 */
  const void *empty_ptr;     /* ntiles + 1 */
  const int32_t *empty_offset;
  const int32_t *col;        /* nnz */
  const void *val;           /* nnz, double or float */
  void *calibrator;          /* workspace: ntiles values */
} cis_csr5_device_arrays;

/* y = alpha*A*x + beta*y (beta == 0 overwrites y) with one warp per tile,
 * `block` threads per block (a multiple of 32 up to 1024; 0 = 256), enqueued
 * on stream s. CIS_ERR_INVALID for a bad block size, CIS_ERR_CUDA on a launch
 * failure. */
cis_status cis_csr5_spmv_f64(const cis_csr5_device_arrays *A, int block, double alpha, const double *d_x,
                             double beta, double *d_y, cis_stream s);
cis_status cis_csr5_spmv_f32(const cis_csr5_device_arrays *A, int block, float alpha, const float *d_x,
                             float beta, float *d_y, cis_stream s);

#ifdef __cplusplus
}
#endif
#endif
