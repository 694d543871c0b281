/* bench/gpu_bench.h: device measurements for benchmark programs (the
 * cisparse tool's bench and solve commands, the GPU tests): CUDA-event
 * timings of plans, the cuSPARSE SpMM baseline, the device's streaming read
 * bandwidth, and NaN-poisoning of an output before a timed run.
 *
 * Not part of the library: the static bench library `cisparse_bench`
 * (src/bench/, not installed), linked by the tool (beside libcisparse.so)
 * and by the tests (beside libcisparse.a). It calls the library's public
 * API only, and the CUDA runtime and cuSPARSE itself, with its own two
 * kernels (bench_kernels.cu). Built without CUDA, every function returns
 * CIS_ERR_NO_GPU with a reason (nogpu/bench_nogpu.c). */
#ifndef CISPARSE_BENCH_GPU_BENCH_H
#define CISPARSE_BENCH_GPU_BENCH_H

#include "cisparse/gpu.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Median milliseconds (CUDA events on the default stream) of `runs` calls
 * of cis_gpu_spmv(p, 1, d_x, beta, d_y) after `warmup` untimed ones. */
cis_status bench_time_spmv(cis_gpu_plan *p, const void *d_x, double beta, void *d_y, int warmup,
                           int runs, double *ms_median);
/* Median milliseconds of `runs` cis_gpu_spmm(p, k, 1, X, ldx, 0, Y, ldy,
 * layout) after `warmup` (CUDA events, default stream). */
cis_status bench_time_spmm(cis_gpu_plan *p, int k, const void *d_X, cis_int ldx, void *d_Y,
                           cis_int ldy, cis_layout layout, int warmup, int runs, double *ms_median);
/* The cuSPARSE baseline of SpMM: a device copy of host CSR A (values
 * converted to t; 32-bit indices while nnz < 2^31), then for each timing
 * cusparseSpMM with alg "csr-alg1", "csr-alg2" or "csr-alg3" on k vectors
 * (ld = k for row-major, rows/cols for column-major): buffer and preprocess
 * once, then the median of `runs` timed calls after `warmup`; Y = A*X is left
 * in d_Y. An algorithm cuSPARSE refuses for the layout gives
 * CIS_ERR_CUSPARSE naming it. Free with bench_cusparse_mm_free (NULL
 * accepted). */
typedef struct bench_cusparse_mm bench_cusparse_mm;
cis_status bench_cusparse_mm_create(const cis_csr *A, cis_dtype t, bench_cusparse_mm **out);
cis_status bench_cusparse_mm_time(bench_cusparse_mm *m, const char *alg, int k, cis_layout layout,
                                  const void *d_X, void *d_Y, int warmup, int runs, double *ms_median);
void bench_cusparse_mm_free(bench_cusparse_mm *m);
/* Streaming read bandwidth of the device in GB/s (1e9 bytes/s): the median
 * of `runs` timed passes of a read-only reduction over `bytes` bytes (16-byte
 * loads, grid-stride; a few GB so that no cache holds it). */
cis_status bench_read_bandwidth(size_t bytes, int runs, double *gbps);
/* Fill n values of dtype t at device address d with NaN (poison an output
 * before a run, so that entries a kernel misses show). */
cis_status bench_fill_nan(void *d, cis_dtype t, cis_int n);

#ifdef __cplusplus
}
#endif
#endif
