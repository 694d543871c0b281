// csr.cu: CSR SpMV kernels (Mahmoud, Hoffmann, Reza 2018, Sec. 3.1).
//  - csr-scalar: one thread per row, Algorithm 1 as printed;
//  - csr-vector: one warp per row, lanes stride the row, shuffle reduction
//    (Bell & Garland, SC 2009, "CSR (vector)").
// Templated on the value type T and the row-pointer type O (uint32 or int64).
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"

template <typename T, typename O>
__global__ void csr_scalar_kernel(int64_t rows, const O *__restrict__ rowptr,
                                  const cis_idx *__restrict__ col, const T *__restrict__ val,
                                  T alpha, const T *__restrict__ x, T beta, T *__restrict__ y) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  T sum = 0;
  for (int64_t k = rowptr[i], e = rowptr[i + 1]; k < e; ++k) sum += val[k] * __ldg(&x[col[k]]);
  cis_store_y(y, i, sum, alpha, beta);
}

template <typename T, typename O>
__global__ void csr_vector_kernel(int64_t rows, const O *__restrict__ rowptr,
                                  const cis_idx *__restrict__ col, const T *__restrict__ val,
                                  T alpha, const T *__restrict__ x, T beta, T *__restrict__ y) {
  int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  T sum = 0;
  for (int64_t k = rowptr[row] + lane, e = rowptr[row + 1]; k < e; k += 32)
    sum += val[k] * __ldg(&x[col[k]]);
  sum = cis_group_sum<T, 32>(sum);
  if (lane == 0) cis_store_y(y, row, sum, alpha, beta);
}

template <typename T, typename O>
static cis_status launch(int vector, int64_t rows, const void *rowptr, const cis_idx *col,
                         const void *val, double alpha, const void *x, double beta, void *y,
                         int threads, cudaStream_t s) {
  if (vector) {
    csr_vector_kernel<T, O><<<cis_blocks_for(rows, threads / 32), threads, 0, s>>>(
        rows, (const O *)rowptr, col, (const T *)val, (T)alpha, (const T *)x, (T)beta, (T *)y);
    CIS_CUDA_LAUNCH_CHECK("csr-vector");
  } else {
    csr_scalar_kernel<T, O><<<cis_blocks_for(rows, threads), threads, 0, s>>>(
        rows, (const O *)rowptr, col, (const T *)val, (T)alpha, (const T *)x, (T)beta, (T *)y);
    CIS_CUDA_LAUNCH_CHECK("csr-scalar");
  }
  return CIS_OK;
}

extern "C" cis_status cis_launch_csr(int vector, cis_dtype t, int wide, cis_int rows,
                                     const void *rowptr, const cis_idx *col, const void *val,
                                     double alpha, const void *x, double beta, void *y, int block,
                                     cudaStream_t s) {
  CIS_BLOCK_OR(block, vector ? 256 : 128, 32, vector ? "csr-vector" : "csr-scalar");
  if (rows == 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, {
    return wide ? launch<REAL, int64_t>(vector, rows, rowptr, col, val, alpha, x, beta, y, threads_, s)
                : launch<REAL, uint32_t>(vector, rows, rowptr, col, val, alpha, x, beta, y, threads_, s);
  });
  return CIS_OK;
}
