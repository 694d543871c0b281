// csr.cu: CSR SpMV kernels (Mahmoud, Hoffmann, Reza 2018, Sec. 3.1).
//  - csr-scalar: one thread per row, Algorithm 1 as printed;
//  - csr-vector: one warp per row, lanes stride the row, shuffle reduction
//    (Bell & Garland, SC 2009, "CSR (vector)").
// Templated on the value type T and the row-pointer type O (uint32 or int64).
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"
#include "kernels/spmv_templates.cuh"

// The kernel bodies are csr_scalar_tk / csr_vector_tk (spmv_templates.cuh),
// instantiated here with the StoreY epilogue, one row (warp) per thread.

template <typename T, typename O>
static cis_status launch(int vector, int64_t rows, const void *rowptr, const cis_idx *col,
                         const void *val, double alpha, const void *x, double beta, void *y,
                         int threads, cudaStream_t s) {
  if (vector) {
    csr_vector_tk<T, O><<<cis_blocks_for(rows, threads / 32), threads, 0, s>>>(
        rows, (const O *)rowptr, col, (const T *)val, (const T *)x, StoreY<T>{(T *)y, (T)alpha, (T)beta});
    CIS_CUDA_LAUNCH_CHECK("csr-vector");
  } else {
    csr_scalar_tk<T, O><<<cis_blocks_for(rows, threads), threads, 0, s>>>(
        rows, (const O *)rowptr, col, (const T *)val, (const T *)x, StoreY<T>{(T *)y, (T)alpha, (T)beta});
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
