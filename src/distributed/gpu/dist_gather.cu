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
