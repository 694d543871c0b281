/* gpu_internal.h: what the plan layer and the device format tables share
 * (host C, CUDA runtime API only; no kernels).
 *
 *  - struct cis_gpu_plan: the device copy of one matrix + the kernel to run;
 *  - CIS_GPU_TRY / CIS_CUSPARSE_CHECK: checked calls recording file:line;
 *  - cis_gpu_upload_array: one checked cis_gpu_alloc_copy that adds the bytes
 *    to a running total (so a table's byte count is what it allocated);
 *  - the kernels' launchers come from kernels/launchers.h. */
#ifndef CISPARSE_GPU_INTERNAL_H
#define CISPARSE_GPU_INTERNAL_H

#include <cuda_runtime.h>
#include "core/internal.h"
#include "gpu/gpu_format.h"
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"

struct cis_sym_seg;

struct cis_gpu_plan {
  const cis_gpu_format_ops *ops; /* the format table, or the cuSPARSE table */
  void *dev;                     /* the table's device-side struct */
  cis_int rows, cols, nnz, bytes, ws;
  cis_dtype dtype;
  int block;
  char kernel[32];
};


/* *d = device copy of count elements of size elem from h (NULL h: allocate
 * only); adds the bytes to *total. count == 0 gives *d = NULL. */
cis_status cis_gpu_upload_array(void **d, const void *h, cis_int count, size_t elem,
                                const char *what, cis_int *total);
/* Device copy of n host offsets (same width); free with cis_gpu_free_offsets. */
cis_status cis_gpu_upload_offsets(cis_offsets *d, const cis_offsets *h, cis_int n, const char *what,
                                  cis_int *total);
void cis_gpu_free_offsets(cis_offsets *d);
/* A plan around an uploaded device struct (cuSPARSE baselines); on failure
 * dev is released. */
cis_status cis_gpu_plan_wrap(const cis_gpu_format_ops *ops, void *dev, const char *kernel,
                             cis_int rows, cis_int cols, cis_int nnz, cis_dtype t, cis_int bytes,
                             cis_int ws, cis_gpu_plan **out);
/* A csr plan (kernel csr-vector) around a CSR already in device memory:
 * d_rowptr rows+1 64-bit row pointers, d_col nnz columns, d_val nnz values
 * of dtype t, all from cis_gpu_malloc / cis_gpu_alloc_copy. The plan owns
 * the three arrays from the call on, also when it fails (they are freed
 * then). For layers above that produce a matrix on the device (the CI
 * Hamiltonian build, src/ci/gpu/) without knowing the format tables. */
cis_status cis_gpu_plan_from_device_csr(cis_int rows, cis_int cols, cis_int nnz, cis_dtype t,
                                        int64_t *d_rowptr, cis_idx *d_col, void *d_val,
                                        cis_gpu_plan **out);
/* The same for the upper triangle of a symmetric matrix (rows x rows, nnz
 * stored entries, every column >= its row), kernel "csr-sym" (NULL),
 * "csr-sym-det" or "sym-seg" (laid out on the device when it holds the
 * triangle, the layout and a sort batch at once, else on the host): a
 * symmetric plan (src/gpu/csr_sym_gpu.c). */
cis_status cis_gpu_plan_from_device_csr_sym(cis_int rows, cis_int nnz, cis_dtype t, int64_t *d_rowptr,
                                            cis_idx *d_col, void *d_val, const char *kernel,
                                            cis_gpu_plan **out);
/* The sym-seg layout (formats/sym_seg.h) laid out on the current GPU from a
 * device upper triangle (n rows, d_rowptr n+1 64-bit row pointers, columns
 * ascending, none below the diagonal; values of dtype t), blocks of R rows,
 * byte for byte the layout cis_sym_seg_build makes of the same triangle.
 * *out: the device arrays lr, val, diag, segcol, piece_heads, block_bound
 * (no chunk table, no max|x|), free with cis_sym_seg_dev_free; *shape: the
 * layout's counts and its host block_piece (cis_free it), no other arrays.
 * The triangle is only read. batch: most entries sorted at once (0: as the
 * memory free allows). CIS_ERR_INVALID naming the first bad row;
 * CIS_ERR_DEVICE_OOM when the layout and a batch of the widest block do not
 * fit beside the triangle; nothing stays allocated on failure. */
cis_status cis_sym_seg_build_device(cis_int n, cis_dtype t, const int64_t *d_rowptr, const cis_idx *d_col,
                                    const void *d_val, cis_int R, cis_int batch, struct cis_sym_seg *shape,
                                    cis_sym_seg_dev **out);
void cis_sym_seg_dev_free(cis_sym_seg_dev *g);
/* 1 if `kernel` is one of the table's names. */
int cis_gpu_kernel_known(const cis_gpu_format_ops *ops, const char *kernel);
/* CIS_ERR_NOT_FOUND: "unknown kernel 'K' for FORMAT (known: ...)", the table's list. */
cis_status cis_gpu_unknown_kernel(const cis_gpu_format_ops *ops, const char *kernel);

#endif
