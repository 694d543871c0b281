// emu.cpp: host emulation of src/ci/gpu/ci_sigma_irrep.cu (kernels run as host threads, one std::thread per CUDA thread of a block where the kernel has barriers) with fake CUDA runtime / cuBLAS entry points, so that ci_sigma_irrep_dev.c runs unchanged on a machine without a GPU. A development check of the kernels index logic against the CPU compact sigma, not a test of the device (see build.sh).
#include <barrier>
#include <thread>
#include <vector>
#include <cstring>
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "ci/gpu/ci_sigma_irrep.h"
#include "core/internal.h"
struct dim3_ { unsigned x = 1, y = 1, z = 1; };
static thread_local dim3_ threadIdx;
static dim3_ blockIdx, blockDim, gridDim;
static std::barrier<> *bar;
#define __global__ static
#define __device__ static
#define __forceinline__ inline
#define __shared__
static void __syncthreads() { bar->arrive_and_wait(); }
#define __all_sync(m, x) (x)
double tile[200 * 1024 / 8];
#include "kern.inc"
extern "C" {
#include <cuda_runtime.h>
#include <cublas_v2.h>
cudaError_t cudaMalloc(void **p, size_t b) { *p = malloc(b); return cudaSuccess; }
cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
cudaError_t cudaMemcpy(void *d, const void *s, size_t b, cudaMemcpyKind) { memcpy(d, s, b); return cudaSuccess; }
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t b, cudaMemcpyKind, cudaStream_t) { memcpy(d, s, b); return cudaSuccess; }
cudaError_t cudaMemsetAsync(void *d, int v, size_t b, cudaStream_t) { memset(d, v, b); return cudaSuccess; }
cudaError_t cudaMemGetInfo(size_t *f, size_t *t) { *f = (size_t)EMU_FREE; *t = *f; return cudaSuccess; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
const char *cudaGetErrorString(cudaError_t) { return "emu"; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventCreate(cudaEvent_t *) { return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float *m, cudaEvent_t, cudaEvent_t) { *m = 0; return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute, int) { return cudaSuccess; }
cublasStatus_t cublasCreate_v2(cublasHandle_t *h) { *h = (cublasHandle_t)1; return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasDestroy_v2(cublasHandle_t) { return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t) { return CUBLAS_STATUS_SUCCESS; }
const char *cublasGetStatusString(cublasStatus_t) { return "emu"; }
long long n_gemm = 0;
cublasStatus_t cublasDgemm_v2(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const double *al, const double *A, int lda, const double *B, int ldb, const double *be,
                              double *C, int ldc) {
  n_gemm++;
  if (ta != CUBLAS_OP_N || tb != CUBLAS_OP_N) abort();
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int l = 0; l < k; ++l) s += A[i + (size_t)l * lda] * B[l + (size_t)j * ldb];
      C[i + (size_t)j * ldc] = *al * s + (*be == 0 ? 0 : *be * C[i + (size_t)j * ldc]);
    }
  return CUBLAS_STATUS_SUCCESS;
}
}
template <class F> static void run_grid(unsigned gx, unsigned gy, unsigned bx, F f, bool barrier) {
  gridDim.x = gx; gridDim.y = gy; blockDim.x = bx;
  for (unsigned y = 0; y < gy; ++y)
    for (unsigned x = 0; x < gx; ++x) {
      blockIdx.x = x; blockIdx.y = y;
      if (!barrier) {
        for (unsigned t = 0; t < bx; ++t) { threadIdx.x = t; f(); }
      } else {
        std::barrier<> b(bx);
        bar = &b;
        std::vector<std::thread> th;
        for (unsigned t = 0; t < bx; ++t) th.emplace_back([&, t] { threadIdx.x = t; f(); bar->arrive_and_drop(); });
        for (auto &q : th) q.join();
      }
    }
}
// note: early-returning threads in the gather exit before any barrier only when the whole block exits (kernel design)
extern "C" {
cis_status cis_launch_ci_irrep_gather(const ci_irrep_dev *d, const ci_irrep_pass *p, const double *cc, double *D,
                                      int maxnp, cis_int maxnbg, cudaStream_t) {
  const cis_int tiles = (maxnbg + 31) / 32;
  ci_irrep_dev dd = *d; ci_irrep_pass pp = *p;
  // run whole blocks that return early sequentially: check per block first
  gridDim.x = (p->a1 - p->a0) * tiles; gridDim.y = 8; blockDim.x = 128;
  for (unsigned y = 0; y < 8; ++y)
    for (unsigned x = 0; x < (unsigned)((p->a1 - p->a0) * tiles); ++x) {
      blockIdx.x = x; blockIdx.y = y;
      const int64_t A = pp.a0 + x / tiles, j0 = (int64_t)(x % tiles) * 32;
      const int ga = dd.syma[A], h = ga ^ y ^ dd.target;
      const int64_t width = pp.half ? (int64_t)dd.pc[A * 8 + y] : dd.nbg[y];
      if (dd.npi[h] == 0 || j0 >= width) continue;
      std::barrier<> b(128);
      bar = &b;
      std::vector<std::thread> th;
      for (unsigned t = 0; t < 128; ++t) th.emplace_back([&, t] { threadIdx.x = t; ci_irrep_gather_kernel(dd, pp, cc, tiles, D); });
      for (auto &q : th) q.join();
    }
  (void)maxnp;
  return CIS_OK;
}
cis_status cis_launch_ci_irrep_scatter(const ci_irrep_dev *d, const ci_irrep_pass *p, const double *X, int first,
                                       double *S, cis_int maxnbg, cudaStream_t) {
  const cis_int tiles = (maxnbg + 127) / 128;
  run_grid(d->nsa * tiles, 1, 128, [&] { ci_irrep_scatter_kernel(*d, *p, X, tiles, first, S); }, false);
  return CIS_OK;
}
cis_status cis_launch_ci_irrep_scatter_half(const ci_irrep_dev *d, const ci_irrep_pass *p, const double *X, double t,
                                            int first, double *S, cis_int maxnbg, cudaStream_t) {
  const cis_int tiles = (maxnbg + 127) / 128;
  run_grid(d->nsa * tiles, 1, 128, [&] { ci_irrep_scatter_half_kernel(*d, *p, X, tiles, t, first, S); }, false);
  return CIS_OK;
}
cis_status cis_launch_ci_irrep_compress(const ci_irrep_dev *d, const double *c, double *cc, cis_int maxnbg, cudaStream_t) {
  const cis_int tiles = (maxnbg + 127) / 128;
  run_grid(d->nsa * tiles, 1, 128, [&] { ci_irrep_compress_kernel(*d, c, tiles, cc); }, false);
  return CIS_OK;
}
cis_status cis_launch_ci_irrep_expand(const ci_irrep_dev *d, const double *cc, double *c, cudaStream_t) {
  run_grid(4, 1, 256, [&] { ci_irrep_expand_kernel(*d, cc, c); }, false);
  return CIS_OK;
}
cis_status cis_launch_ci_irrep_parity(const ci_irrep_dev *d, const double *cc, int *flags, cis_int maxnbg, cudaStream_t) {
  flags[0] = flags[1] = 1;
  const cis_int tiles = (maxnbg + 127) / 128;
  run_grid(d->nsa * tiles, 1, 128, [&] { ci_irrep_parity_kernel(*d, cc, tiles, flags); }, false);
  return CIS_OK;
}
cis_status cis_launch_ci_axpby(cis_int n, double a, const double *t, double b, double *y, cudaStream_t) {
  for (cis_int i = 0; i < n; ++i) y[i] = b == 0 ? a * t[i] : a * t[i] + b * y[i];
  return CIS_OK;
}
ci_irrep_gpu *ci_direct_gpu_irrep(cis_ci_direct_gpu *G) { return (ci_irrep_gpu *)G; }
cis_ci_direct_gpu_info *ci_direct_gpu_info_ref(cis_ci_direct_gpu *) { static cis_ci_direct_gpu_info i; return &i; }
const cis_ci_direct *ci_direct_gpu_host(const cis_ci_direct_gpu *) { return nullptr; }
cis_status cis_ci_direct_gpu_sigma(cis_ci_direct_gpu *, int, const double *, double *, cis_stream) { return CIS_OK; }
cis_status cis_ci_direct_gpu_operator(cis_ci_direct_gpu *, const double *, cis_operator **) { return CIS_OK; }
cis_status cis_ci_direct_gpu_time_sigma(cis_ci_direct_gpu *, const double *, int, double *) { return CIS_OK; }
}
