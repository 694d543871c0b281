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

// y = alpha x + beta y: the scaling of a summed operator's product when the
// solver asks for more than y = A x (dist_summed.c). CPU reference:
// dist_axpby_host (src/distributed/comm.c).
template <typename T>
__global__ void dist_axpby_kernel(int64_t n, double alpha, const T *__restrict__ x, double beta, T *__restrict__ y) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
    y[k] = beta == 0.0 ? (T)(alpha * (double)x[k]) : (T)(alpha * (double)x[k] + beta * (double)y[k]);
}

extern "C" cis_status dist_launch_axpby(cis_dtype t, cis_int n, double alpha, const void *x, double beta, void *y,
                                        cudaStream_t s) {
  if (n <= 0) return CIS_OK;
  unsigned grid = cis_blocks_for(n, 256);
  if (grid > 65536) grid = 65536;
  CIS_DISPATCH_REAL(t, { dist_axpby_kernel<REAL><<<grid, 256, 0, s>>>(n, alpha, (const REAL *)x, beta, (REAL *)y); });
  CIS_CUDA_LAUNCH_CHECK("dist_axpby");
  return CIS_OK;
}
