// csb.cu: Compressed Sparse Blocks SpMV (Mahmoud, Hoffmann, Reza 2018, Sec. 3.6;
// Buluc, Fineman, Frigo, Gilbert, Leiserson, SPAA 2009). Design: one thread
// block per block row (z rows of y). Its nonzeros are contiguous (blocks in
// row-major block order); the threads stride over each block's entries and
// add val * x[bc*z + lcol] into a shared-memory accumulator of z values
// (shared-memory atomics), then write the z results. When z values do not fit
// in shared memory, y is first scaled by beta and the products are added with
// global atomics instead. Results are exact sums in a run-dependent order.
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"

template <typename T>
__global__ void csb_shared_kernel(int64_t rows, int64_t z, int64_t nbc,
                                  const int64_t *__restrict__ block_ptr,
                                  const uint16_t *__restrict__ lrow,
                                  const uint16_t *__restrict__ lcol, const T *__restrict__ val,
                                  T alpha, const T *__restrict__ x, T beta, T *__restrict__ y) {
  extern __shared__ unsigned char csb_smem[];
  T *acc = (T *)csb_smem;
  int64_t br = blockIdx.x;
  for (int64_t r = threadIdx.x; r < z; r += blockDim.x) acc[r] = 0;
  __syncthreads();
  for (int64_t bc = 0; bc < nbc; ++bc) {
    int64_t b = br * nbc + bc, begin = __ldg(&block_ptr[b]), end = __ldg(&block_ptr[b + 1]);
    const T *xb = x + bc * z;
    for (int64_t k = begin + threadIdx.x; k < end; k += blockDim.x)
      atomicAdd(&acc[lrow[k]], val[k] * __ldg(&xb[lcol[k]]));
  }
  __syncthreads();
  for (int64_t r = threadIdx.x; r < z && br * z + r < rows; r += blockDim.x)
    cis_store_y(y, br * z + r, acc[r], alpha, beta);
}

template <typename T>
__global__ void csb_scale_kernel(int64_t rows, T beta, T *__restrict__ y) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) y[i] = beta == T(0) ? T(0) : beta * y[i];
}

template <typename T>
__global__ void csb_atomic_kernel(int64_t z, int64_t nbc, const int64_t *__restrict__ block_ptr,
                                  const uint16_t *__restrict__ lrow,
                                  const uint16_t *__restrict__ lcol, const T *__restrict__ val,
                                  T alpha, const T *__restrict__ x, T *__restrict__ y) {
  int64_t br = blockIdx.x;
  for (int64_t bc = 0; bc < nbc; ++bc) {
    int64_t b = br * nbc + bc, begin = __ldg(&block_ptr[b]), end = __ldg(&block_ptr[b + 1]);
    for (int64_t k = begin + threadIdx.x; k < end; k += blockDim.x)
      atomicAdd(&y[br * z + lrow[k]], alpha * val[k] * __ldg(&x[bc * z + lcol[k]]));
  }
}

extern "C" cis_status cis_launch_csb(cis_dtype t, cis_int rows, cis_int z, cis_int nbr,
                                     cis_int nbc, const int64_t *block_ptr, const uint16_t *lrow,
                                     const uint16_t *lcol, const void *val, double alpha,
                                     const void *x, double beta, void *y, int block,
                                     cudaStream_t s) {
  CIS_BLOCK_OR(block, 256, 32, "csb");
  if (rows == 0) return CIS_OK;
  if (nbr > 0x7fffffff) return cis_error(CIS_ERR_OVERFLOW, "csb: %lld block rows", (long long)nbr);
  CIS_DISPATCH_REAL(t, {
    size_t smem = (size_t)z * sizeof(REAL);
    if (smem <= 48 * 1024) {
      csb_shared_kernel<REAL><<<(unsigned)nbr, threads_, smem, s>>>(
          rows, z, nbc, block_ptr, lrow, lcol, (const REAL *)val, (REAL)alpha, (const REAL *)x,
          (REAL)beta, (REAL *)y);
    } else {
      csb_scale_kernel<REAL><<<cis_blocks_for(rows, 256), 256, 0, s>>>(rows, (REAL)beta, (REAL *)y);
      CIS_CUDA_LAUNCH_CHECK("csb (scale y)");
      csb_atomic_kernel<REAL><<<(unsigned)nbr, threads_, 0, s>>>(
          z, nbc, block_ptr, lrow, lcol, (const REAL *)val, (REAL)alpha, (const REAL *)x, (REAL *)y);
    }
  });
  CIS_CUDA_LAUNCH_CHECK("csb");
  return CIS_OK;
}
