// ell.cu: ELLPACK and ELLPACK-R SpMV (Mahmoud, Hoffmann, Reza 2018, Sec. 3.2
// Algorithm 2 and Sec. 3.3 Algorithm 3; Vazquez et al. 2011 for ELLPACK-R).
// One thread per row; column-major slots (slot k of row i at k*rows + i), so
// consecutive threads read consecutive addresses. ELLPACK walks all `width`
// slots and skips padding (col -1); ELLPACK-R stops at the row's length.
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"

template <typename T>
__global__ void ell_kernel(int64_t rows, int64_t width, const cis_idx *__restrict__ col,
                           const T *__restrict__ val, const cis_idx *__restrict__ rowlen, T alpha,
                           const T *__restrict__ x, T beta, T *__restrict__ y) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  int64_t n = rowlen ? (int64_t)rowlen[i] : width;
  T sum = 0;
#pragma unroll 4
  for (int64_t k = 0; k < n; ++k) {
    cis_idx c = col[k * rows + i];
    if (c >= 0) sum += val[k * rows + i] * __ldg(&x[c]);
  }
  cis_store_y(y, i, sum, alpha, beta);
}

extern "C" cis_status cis_launch_ell(cis_dtype t, cis_int rows, cis_int width, const cis_idx *col,
                                     const void *val, const cis_idx *rowlen, double alpha,
                                     const void *x, double beta, void *y, int block,
                                     cudaStream_t s) {
  const char *name = rowlen ? "ellr" : "ell";
  CIS_BLOCK_OR(block, 128, 32, name);
  if (rows == 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, {
    ell_kernel<REAL><<<cis_blocks_for(rows, threads_), threads_, 0, s>>>(
        rows, width, col, (const REAL *)val, rowlen, (REAL)alpha, (const REAL *)x, (REAL)beta,
        (REAL *)y);
  });
  CIS_CUDA_LAUNCH_CHECK(name);
  return CIS_OK;
}
