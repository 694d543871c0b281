/* cisparse/gpu.h: keep a matrix on the GPU and multiply it many times.
 *
 * A plan owns the device copy of one matrix in one format plus the kernel
 * chosen to multiply it; the device bytes it allocates equal the host byte
 * count of the format (cis_matrix_bytes), plus any kernel workspace, which
 * cis_gpu_plan_workspace_bytes reports. CUDA types stay out of this header:
 * streams are passed as an opaque cis_stream (a cudaStream_t; NULL = default).
 * Built without CUDA, every function returns CIS_ERR_NO_GPU with a reason. */
#ifndef CISPARSE_GPU_H
#define CISPARSE_GPU_H

#include "cisparse/format.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cis_gpu_plan cis_gpu_plan;
typedef void *cis_stream;

typedef struct cis_gpu_info {
  char name[128];
  int device, sm_count, cc_major, cc_minor;
  int64_t global_mem, free_mem, l2_bytes;
  int driver_version, runtime_version;
} cis_gpu_info;

/* Number of usable CUDA devices (0 if none or not compiled); when 0 and why
 * is non-NULL, a one-line reason is written there. */
CIS_API int cis_gpu_count(char *why, size_t why_len);
/* Properties of the current device. */
CIS_API cis_status cis_gpu_get_info(cis_gpu_info *info);

/* Upload M and choose `kernel` to multiply it (NULL = the format's default).
 * Kernel names by format:
 *   csr: "csr-scalar" (thread per row), "csr-vector" (warp per row, default)
 *   ell: "ell"; ellr: "ellr"; sell: "sell"; sellr: "sellr"; sellcs: "sellcs"
 *   csb: "csb"; csr5: "csr5"
 *   hyb: "hyb-paper" (Algorithm 7, shared-memory reduction), "hyb" (fast, default:
 *        threads per row from the mean row length, phase-locked blocks for long
 *        rows when x exceeds 1 MB; see src/kernels/hyb.cu and bench/NOTES.md)
 * block_size: threads per block (0 = kernel default; hyb-paper takes 16 or a
 * multiple of 32, the others a multiple of 32; checked at the first spmv).
 * Device out-of-memory gives CIS_ERR_DEVICE_OOM with the bytes asked and free,
 * and frees whatever was allocated. */
CIS_API cis_status cis_gpu_plan_create(const cis_matrix *M, const char *kernel, int block_size,
                               cis_gpu_plan **out);
/* cuSPARSE baseline on a host CSR: alg one of "csr-alg1", "csr-alg2",
 * "coo-alg1", "coo-alg2", "sell-alg1" (slice 32), "bsr" (4x4 blocks, or 2x2;
 * rows and columns must divide, else CIS_ERR_UNSUPPORTED). Values converted
 * to t. Runs cusparseSpMV_bufferSize and cusparseSpMV_preprocess once here;
 * the buffer is the plan's workspace. Empty matrices are refused. */
CIS_API cis_status cis_gpu_plan_create_cusparse(const cis_csr *A, cis_dtype t, const char *alg,
                                        cis_gpu_plan **out);
/* y = alpha*A*x + beta*y on the device, x and y device arrays of the plan's
 * dtype (cols and rows long), enqueued on stream s (no synchronization). */
CIS_API cis_status cis_gpu_spmv(cis_gpu_plan *p, double alpha, const void *d_x, double beta, void *d_y,
                        cis_stream s);
/* Symmetric storage: a plan on U, the upper triangle with the diagonal of a
 * symmetric matrix (flag CIS_FLAG_UPPER, square, every column >= its row:
 * cis_csr_upper_symmetric makes one and refuses a non-symmetric matrix);
 * cis_gpu_spmv then multiplies by U + U^T - diag(U), reading each stored
 * entry once (about half the bytes of the full matrix). Kernels:
 *   "csr-sym" (default): mirror images added to y with floating atomics;
 *     the last bits of y differ from run to run;
 *   "csr-sym-det": deterministic (mirror images summed in 64-bit fixed point,
 *     one extra pass over x and y; rows words of workspace); a NaN or Inf
 *     in x or U makes every y NaN;
 *   "csr-sym-win": csr-sym with each block's rows and the columns just
 *     right of them summed in a shared-memory window first (fewer global
 *     atomics where the columns cluster near the diagonal; not
 *     reproducible either).
 * block_size: 0 or a multiple of 32 up to 256. Values stay in U's dtype. */
CIS_API cis_status cis_gpu_plan_create_symmetric(const cis_csr *U, const char *kernel, int block_size,
                                                 cis_gpu_plan **out);

/* (cis_layout: cisparse/types.h) */
#define CIS_GPU_SPMM_MAX_K 16
/* Y = alpha*A*X + beta*Y for k = 1..CIS_GPU_SPMM_MAX_K vectors at once (SpMM:
 * one pass over the matrix), X cols x k, Y rows x k device arrays of the
 * plan's dtype in `layout` with leading dimensions ldx, ldy; beta == 0
 * overwrites Y. Plans: csr (csr-vector, csr-scalar: the same SpMM kernel)
 * and the symmetric csr (csr-sym, csr-sym-det, csr-sym-win: the mirror images by atomics,
 * so not bitwise reproducible); others give CIS_ERR_UNSUPPORTED. Row-major
 * X on a csr plan with k a power of two (k >= 2 in double, >= 4 in float),
 * ldx a multiple of 16 bytes and X 16-byte aligned is read with 16-byte
 * vector loads (the fast path); column-major X costs k gathers per nonzero. Enqueued on
 * stream s. */
CIS_API cis_status cis_gpu_spmm(cis_gpu_plan *p, int k, double alpha, const void *d_X, cis_int ldx,
                                double beta, void *d_Y, cis_int ldy, cis_layout layout, cis_stream s);
/* Device bytes of the matrix arrays, and of extra workspace. */
CIS_API cis_int cis_gpu_plan_bytes(const cis_gpu_plan *p);
CIS_API cis_int cis_gpu_plan_workspace_bytes(const cis_gpu_plan *p);
/* The kernel (or cuSPARSE algorithm) name the plan runs. */
CIS_API const char *cis_gpu_plan_kernel(const cis_gpu_plan *p);
/* Free the plan and its device memory; NULL is accepted. */
CIS_API void cis_gpu_plan_free(cis_gpu_plan *p);

/* Device memory and copies (thin checked wrappers). cis_gpu_malloc reports
 * out-of-memory as CIS_ERR_DEVICE_OOM with the bytes asked and free. */
CIS_API cis_status cis_gpu_malloc(void **d, size_t bytes);
CIS_API void cis_gpu_free(void *d);
CIS_API cis_status cis_gpu_upload(void *d, const void *h, size_t bytes);
CIS_API cis_status cis_gpu_download(void *h, const void *d, size_t bytes);
CIS_API cis_status cis_gpu_sync(void);

/* A CSR matrix in device memory, handed between layers that build a matrix
 * on the GPU and layers that store it (the CI rows built on the device, the
 * distributed matrix that splits them): rows x cols, nnz entries, 64-bit row
 * pointers (rows + 1), 32-bit columns, values of dtype; every array from
 * cis_gpu_malloc on the GPU that was current when it was made, freed with
 * cis_gpu_free by whoever holds the struct (NULL where a count is 0). */
typedef struct cis_gpu_csr {
  cis_int rows, cols, nnz;
  cis_dtype dtype;
  int64_t *rowptr;
  cis_idx *colind;
  void *val;
} cis_gpu_csr;

#ifdef __cplusplus
}
#endif
#endif
