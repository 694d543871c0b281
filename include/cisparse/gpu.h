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
/* Device bytes of the matrix arrays, and of extra workspace. */
CIS_API cis_int cis_gpu_plan_bytes(const cis_gpu_plan *p);
CIS_API cis_int cis_gpu_plan_workspace_bytes(const cis_gpu_plan *p);
/* Rows, columns and value type of the plan's matrix (any output may be NULL). */
CIS_API cis_status cis_gpu_plan_shape(const cis_gpu_plan *p, cis_int *rows, cis_int *cols, cis_dtype *t);
/* The kernel (or cuSPARSE algorithm) name the plan runs. */
CIS_API const char *cis_gpu_plan_kernel(const cis_gpu_plan *p);
/* Host copy of a csr plan's matrix (e.g. one built on the device by
 * cis_ci_hamiltonian_gpu); CIS_ERR_UNSUPPORTED for other formats. */
CIS_API cis_status cis_gpu_plan_download_csr(const cis_gpu_plan *p, cis_csr **out);
/* Free the plan and its device memory; NULL is accepted. */
CIS_API void cis_gpu_plan_free(cis_gpu_plan *p);

/* Device memory and copies (thin checked wrappers). cis_gpu_malloc reports
 * out-of-memory as CIS_ERR_DEVICE_OOM with the bytes asked and free. */
CIS_API cis_status cis_gpu_malloc(void **d, size_t bytes);
CIS_API void cis_gpu_free(void *d);
CIS_API cis_status cis_gpu_upload(void *d, const void *h, size_t bytes);
CIS_API cis_status cis_gpu_download(void *h, const void *d, size_t bytes);
CIS_API cis_status cis_gpu_fill_nan(void *d, cis_dtype t, cis_int n); /* poison an output */
CIS_API cis_status cis_gpu_sync(void);

/* Timing (CUDA events on the default stream). Median milliseconds of `runs`
 * calls of cis_gpu_spmv(p, 1, d_x, beta, d_y) after `warmup` untimed ones. */
CIS_API cis_status cis_gpu_time_spmv(cis_gpu_plan *p, const void *d_x, double beta, void *d_y, int warmup,
                             int runs, double *ms_median);
/* Streaming read bandwidth of the device in GB/s (1e9 bytes/s): the median
 * of `runs` timed passes of a read-only reduction over `bytes` bytes (16-byte
 * loads, grid-stride; a few GB so that no cache holds it). */
CIS_API cis_status cis_gpu_read_bandwidth(size_t bytes, int runs, double *gbps);

#ifdef __cplusplus
}
#endif
#endif
