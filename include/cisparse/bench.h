/* cisparse/bench.h: device measurements for benchmark programs (the
 * cisparse tool's bench and solve commands): CUDA-event timings of plans,
 * the cuSPARSE SpMM baseline, the device's streaming read bandwidth, and
 * NaN-poisoning of an output before a timed run.
 *
 * Not part of the product API: cisparse.h does not include this header and
 * these functions may change in any release. They live in the library
 * (and are exported) only because they need its CUDA runtime and kernels;
 * host-side helpers of the same kind (clock, median, energy counters, the
 * paper's byte equations) are in the tool library, src/tool/. Built
 * without CUDA, every function returns CIS_ERR_NO_GPU with a reason. */
#ifndef CISPARSE_BENCH_H
#define CISPARSE_BENCH_H

#include "cisparse/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Median milliseconds (CUDA events on the default stream) of `runs` calls
 * of cis_gpu_spmv(p, 1, d_x, beta, d_y) after `warmup` untimed ones. */
CIS_API cis_status cis_gpu_time_spmv(cis_gpu_plan *p, const void *d_x, double beta, void *d_y, int warmup,
                                     int runs, double *ms_median);
/* Median milliseconds of `runs` cis_gpu_spmm(p, k, 1, X, ldx, 0, Y, ldy,
 * layout) after `warmup` (CUDA events, default stream). */
CIS_API cis_status cis_gpu_time_spmm(cis_gpu_plan *p, int k, const void *d_X, cis_int ldx, void *d_Y,
                                     cis_int ldy, cis_layout layout, int warmup, int runs, double *ms_median);
/* The cuSPARSE baseline of SpMM: a device copy of host CSR A (values
 * converted to t; 32-bit indices while nnz < 2^31), then for each timing
 * cusparseSpMM with alg "csr-alg1", "csr-alg2" or "csr-alg3" on k vectors
 * (ld = k for row-major, rows/cols for column-major): buffer and preprocess
 * once, then the median of `runs` timed calls after `warmup`; Y = A*X is left
 * in d_Y. An algorithm cuSPARSE refuses for the layout gives
 * CIS_ERR_CUSPARSE naming it. Free with cis_gpu_cusparse_mm_free (NULL
 * accepted). */
typedef struct cis_gpu_cusparse_mm cis_gpu_cusparse_mm;
CIS_API cis_status cis_gpu_cusparse_mm_create(const cis_csr *A, cis_dtype t, cis_gpu_cusparse_mm **out);
CIS_API cis_status cis_gpu_cusparse_mm_time(cis_gpu_cusparse_mm *m, const char *alg, int k, cis_layout layout,
                                            const void *d_X, void *d_Y, int warmup, int runs, double *ms_median);
CIS_API void cis_gpu_cusparse_mm_free(cis_gpu_cusparse_mm *m);
/* Streaming read bandwidth of the device in GB/s (1e9 bytes/s): the median
 * of `runs` timed passes of a read-only reduction over `bytes` bytes (16-byte
 * loads, grid-stride; a few GB so that no cache holds it). */
CIS_API cis_status cis_gpu_read_bandwidth(size_t bytes, int runs, double *gbps);
/* Fill n values of dtype t at device address d with NaN (poison an output
 * before a run, so that entries a kernel misses show). */
CIS_API cis_status cis_gpu_fill_nan(void *d, cis_dtype t, cis_int n);

#ifdef __cplusplus
}
#endif
#endif
