/* gpu_timing.c: CUDA-event timing of plans and the streaming read probe
 * (the bandwidth every kernel is compared against in `cisparse bench`),
 * and NaN-poisoning of outputs. The library's public API only. */
#include <stdlib.h>
#include <cuda_runtime.h>
#include "bench/bench_internal.h"
#include "bench/gpu_bench.h"
#include "kernels/kernel_common.cuh"
#include "util/host.h"


/* Time `runs` calls of one(ctx) with events around each, median into *out. */
cis_status bench_time_calls(cis_status (*one)(void *), void *ctx, int warmup, int runs,
                            double *out) {
  cis_status st = CIS_OK;
  cudaEvent_t e0 = NULL, e1 = NULL;
  double *ms = NULL;
  if (runs < 1) return cis_error(CIS_ERR_INVALID, "timing needs at least 1 run, got %d", runs);
  if (!(ms = malloc((size_t)runs * sizeof *ms))) return cis_error(CIS_ERR_ALLOC, "cannot allocate %d timings", runs);
  if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
    st = cis_error(CIS_ERR_CUDA, "%s:%d: cudaEventCreate failed", __FILE__, __LINE__);
    goto cleanup;
  }
  for (int r = 0; r < warmup; ++r) CIS_TRY(one(ctx));
  for (int r = 0; r < runs; ++r) {
    float t = 0;
    cudaEventRecord(e0, 0);
    CIS_TRY(one(ctx));
    cudaEventRecord(e1, 0);
    cudaError_t e = cudaEventSynchronize(e1);
    if (e == cudaSuccess) e = cudaEventElapsedTime(&t, e0, e1);
    if (e != cudaSuccess) {
      st = cis_error(CIS_ERR_CUDA, "%s:%d: timing: %s", __FILE__, __LINE__, cudaGetErrorString(e));
      goto cleanup;
    }
    ms[r] = t;
  }
  *out = cis_median(ms, runs);
cleanup:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  free(ms);
  return st;
}

typedef struct spmv_ctx {
  cis_gpu_plan *p;
  const void *x;
  double beta;
  void *y;
} spmv_ctx;

static cis_status one_spmv(void *c) {
  spmv_ctx *s = c;
  return cis_gpu_spmv(s->p, 1.0, s->x, s->beta, s->y, NULL);
}

cis_status bench_time_spmv(cis_gpu_plan *p, const void *d_x, double beta, void *d_y, int warmup,
                             int runs, double *ms_median) {
  spmv_ctx c = {p, d_x, beta, d_y};
  if (!p || !ms_median) return cis_error(CIS_ERR_INVALID, "bench_time_spmv: NULL argument");
  return bench_time_calls(one_spmv, &c, warmup, runs, ms_median);
}

typedef struct spmm_ctx {
  cis_gpu_plan *p;
  int k;
  const void *X;
  cis_int ldx, ldy;
  void *Y;
  cis_layout layout;
} spmm_ctx;

static cis_status one_spmm(void *c) {
  spmm_ctx *s = c;
  return cis_gpu_spmm(s->p, s->k, 1.0, s->X, s->ldx, 0.0, s->Y, s->ldy, s->layout, NULL);
}

cis_status bench_time_spmm(cis_gpu_plan *p, int k, const void *d_X, cis_int ldx, void *d_Y, cis_int ldy,
                             cis_layout layout, int warmup, int runs, double *ms_median) {
  spmm_ctx c = {p, k, d_X, ldx, ldy, d_Y, layout};
  if (!p || !ms_median) return cis_error(CIS_ERR_INVALID, "bench_time_spmm: NULL argument");
  return bench_time_calls(one_spmm, &c, warmup, runs, ms_median);
}

typedef struct bw_ctx {
  const double *d;
  cis_int n;
  double *out;
  int blocks;
} bw_ctx;

static cis_status one_read(void *c) {
  bw_ctx *b = c;
  return bench_launch_read_bw(b->d, b->n, b->out, b->blocks, 0);
}

cis_status bench_read_bandwidth(size_t bytes, int runs, double *gbps) {
  cis_status st;
  bw_ctx c = {NULL, (cis_int)(bytes / 16 * 2), NULL, 0};
  int dev = 0, sms = 0;
  double ms = 0;
  if (!gbps || bytes < 16) return cis_error(CIS_ERR_INVALID, "bench_read_bandwidth: bad argument");
  CIS_CUDA_CHECK(cudaGetDevice(&dev));
  CIS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  c.blocks = sms * 4; /* 4 x 512 threads per SM: full occupancy */
  CIS_TRY(cis_gpu_malloc((void **)&c.d, (size_t)c.n * 8));
  CIS_TRY(cis_gpu_malloc((void **)&c.out, (size_t)c.blocks * 8));
  CIS_TRY(bench_launch_fill_nan((void *)c.d, CIS_F64, c.n, 0)); /* touch every page */
  CIS_TRY(bench_time_calls(one_read, &c, 3, runs, &ms));
  *gbps = (double)c.n * 8 / (ms * 1e-3) / 1e9;
cleanup:
  cis_gpu_free((void *)c.d);
  cis_gpu_free(c.out);
  return st;
}

cis_status bench_fill_nan(void *d, cis_dtype t, cis_int n) {
  if (n > 0 && !d) return cis_error(CIS_ERR_INVALID, "bench_fill_nan: NULL pointer");
  cis_status st = bench_launch_fill_nan(d, t, n, 0);
  if (st != CIS_OK) return st;
  return cis_gpu_sync();
}
