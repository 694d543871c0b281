// bench_kernels.cu: the bench library's device helpers (bench/gpu_bench.h):
//  - fill an output with NaN (tests and bench poison y before every check);
//  - a streaming read probe: each thread sums 16-byte loads over a large
//    buffer (grid-stride), one partial per block, so the measured time is the
//    device's read bandwidth (the ceiling SpMV is compared against).
#include "kernels/kernel_common.cuh"
#include "bench/bench_internal.h"

template <typename T>
__global__ void fill_nan_kernel(T *d, int64_t n) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = (T)NAN;
}

extern "C" cis_status bench_launch_fill_nan(void *d, cis_dtype t, cis_int n, cudaStream_t s) {
  if (n <= 0) return CIS_OK;
  unsigned grid = cis_blocks_for(n, 256);
  if (grid > 65536) grid = 65536;
  CIS_DISPATCH_REAL(t, { fill_nan_kernel<REAL><<<grid, 256, 0, s>>>((REAL *)d, n); });
  CIS_CUDA_LAUNCH_CHECK("fill_nan");
  return CIS_OK;
}

__global__ void read_bw_kernel(const double2 *__restrict__ d, int64_t n2, double *out) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  double a = 0, b = 0;
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n2; i += 4 * stride) { /* four 16-byte loads in flight */
    double2 v0 = __ldcs(&d[i]), v1 = __ldcs(&d[i + stride]);
    double2 v2 = __ldcs(&d[i + 2 * stride]), v3 = __ldcs(&d[i + 3 * stride]);
    a += v0.x + v1.x + v2.x + v3.x;
    b += v0.y + v1.y + v2.y + v3.y;
  }
  for (; i < n2; i += stride) {
    double2 v = __ldcs(&d[i]);
    a += v.x;
    b += v.y;
  }
  a = cis_group_sum<double, 32>(a + b);
  __shared__ double part[32];
  if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = a;
  __syncthreads();
  if (threadIdx.x == 0) {
    double s = 0;
    for (int w = 0; w < (int)blockDim.x / 32; ++w) s += part[w];
    out[blockIdx.x] = s;
  }
}

extern "C" cis_status bench_launch_read_bw(const double *d, cis_int n, double *d_out, int blocks,
                                         cudaStream_t s) {
  read_bw_kernel<<<blocks, 512, 0, s>>>((const double2 *)d, n / 2, d_out);
  CIS_CUDA_LAUNCH_CHECK("read bandwidth probe");
  return CIS_OK;
}
