// ci_precond.cu: the Davidson correction t = r / (theta - diag(H))
// (E. R. Davidson, J. Comput. Phys. 17, 87 (1975), eq. 9), one thread per
// element, grid-stride. CPU reference: h_precond in src/ci/davidson.c.
#include "kernels/ci_precond.h"
#include "kernels/kernel_common.cuh"

__global__ void ci_precond_kernel(int64_t n, const double *__restrict__ r, const double *__restrict__ diag,
                                  double theta, double *__restrict__ t) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    double den = theta - diag[i];
    if (fabs(den) < 1e-8) den = den < 0 ? -1e-8 : 1e-8;
    t[i] = r[i] / den;
  }
}

extern "C" cis_status cis_launch_ci_precond(cis_int n, const double *r, const double *diag, double theta, double *t,
                                            cudaStream_t s) {
  if (n <= 0) return CIS_OK;
  unsigned blocks = cis_blocks_for(n, 256);
  if (blocks > 65536u) blocks = 65536u;
  ci_precond_kernel<<<blocks, 256, 0, s>>>(n, r, diag, theta, t);
  CIS_CUDA_LAUNCH_CHECK("ci_precond_kernel");
  return CIS_OK;
}
