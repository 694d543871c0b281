// dist_gather.cu: out[k] = x[idx[k]], the pack of the x entries a
// distributed SpMV sends (PETSc VecScatter's pack; Ginkgo's
// distributed::Matrix gathers its send buffer the same way). CPU reference:
// dist_gather_host (src/distributed/comm.c).
#include "kernels/kernel_common.cuh"
#include "cisparse/types.h"

template <typename T>
__global__ void dist_gather_kernel(const T *__restrict__ x, const cis_idx *__restrict__ idx, int64_t n,
                                   T *__restrict__ out) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) out[k] = x[idx[k]];
}

extern "C" cis_status dist_launch_gather(cis_dtype t, const void *x, const cis_idx *idx, cis_int n, void *out,
                                         cudaStream_t s) {
  if (n <= 0) return CIS_OK;
  unsigned grid = cis_blocks_for(n, 256);
  if (grid > 65536) grid = 65536;
  CIS_DISPATCH_REAL(t, { dist_gather_kernel<REAL><<<grid, 256, 0, s>>>((const REAL *)x, idx, n, (REAL *)out); });
  CIS_CUDA_LAUNCH_CHECK("dist_gather");
  return CIS_OK;
}

// y = alpha * sum_q s_q + beta y, the parts' contributions to the owner's
// rows summed in the order of q (dist_summed.c: the reduce-scatter of a
// summed operator, ordered so that the sum is the same for any owner and
// position; NCCL's reduce orders by ring position). CPU reference:
// dist_sum_parts_host (src/distributed/comm.c).
template <typename T>
__global__ void dist_sum_parts_kernel(int parts, int own, int64_t n, const T *__restrict__ mine,
                                      const T *__restrict__ recv, double alpha, double beta, T *__restrict__ y) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    double s = 0;
    for (int q = 0; q < parts; ++q) s += (double)(q == own ? mine[i] : recv[(int64_t)(q < own ? q : q - 1) * n + i]);
    y[i] = beta == 0.0 ? (T)(alpha * s) : (T)(alpha * s + beta * (double)y[i]);
  }
}

extern "C" cis_status dist_launch_sum_parts(cis_dtype t, int parts, int own, cis_int n, const void *mine,
                                            const void *recv, double alpha, double beta, void *y, cudaStream_t s) {
  if (n <= 0) return CIS_OK;
  unsigned grid = cis_blocks_for(n, 256);
  if (grid > 65536) grid = 65536;
  CIS_DISPATCH_REAL(t, {
    dist_sum_parts_kernel<REAL><<<grid, 256, 0, s>>>(parts, own, n, (const REAL *)mine, (const REAL *)recv, alpha, beta,
                                                     (REAL *)y);
  });
  CIS_CUDA_LAUNCH_CHECK("dist_sum_parts");
  return CIS_OK;
}
