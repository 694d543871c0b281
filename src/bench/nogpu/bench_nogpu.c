/* bench_nogpu.c: the bench library (bench/gpu_bench.h) in a build without
 * CUDA: each function reports CIS_ERR_NO_GPU with the reason. */
#include <stddef.h>
#include "bench/gpu_bench.h"

#define WHY "cisparse was built without CUDA"
static cis_status no_gpu(void) { return cis_error(CIS_ERR_NO_GPU, WHY); }

cis_status bench_time_spmv(cis_gpu_plan *p, const void *d_x, double beta, void *d_y, int warmup, int runs,
                           double *ms_median) {
  return no_gpu();
}
cis_status bench_time_spmm(cis_gpu_plan *p, int k, const void *d_X, cis_int ldx, void *d_Y, cis_int ldy,
                           cis_layout layout, int warmup, int runs, double *ms_median) {
  return no_gpu();
}
cis_status bench_cusparse_mm_create(const cis_csr *A, cis_dtype t, bench_cusparse_mm **out) {
  if (out) *out = NULL;
  return no_gpu();
}
cis_status bench_cusparse_mm_time(bench_cusparse_mm *m, const char *alg, int k, cis_layout layout, const void *d_X,
                                  void *d_Y, int warmup, int runs, double *ms_median) {
  return no_gpu();
}
void bench_cusparse_mm_free(bench_cusparse_mm *m) {}
cis_status bench_read_bandwidth(size_t bytes, int runs, double *gbps) { return no_gpu(); }
cis_status bench_fill_nan(void *d, cis_dtype t, cis_int n) { return no_gpu(); }
