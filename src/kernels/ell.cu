// ell.cu: ELLPACK and ELLPACK-R SpMV (Mahmoud, Hoffmann, Reza 2018, Sec. 3.2
// Algorithm 2 and Sec. 3.3 Algorithm 3; Vazquez et al. 2011 for ELLPACK-R).
// One thread per row; column-major slots (slot k of row i at k*rows + i), so
// consecutive threads read consecutive addresses. ELLPACK walks all `width`
// slots and skips padding (col -1); ELLPACK-R stops at the row's length.
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"
#include "kernels/spmv_templates.cuh"

// The kernel body is ell_tk (spmv_templates.cuh) with the StoreY epilogue,
// one row per thread.

extern "C" cis_status cis_launch_ell(cis_dtype t, cis_int rows, cis_int width, const cis_idx *col,
                                     const void *val, const cis_idx *rowlen, double alpha,
                                     const void *x, double beta, void *y, int block,
                                     cudaStream_t s) {
  const char *name = rowlen ? "ellr" : "ell";
  CIS_BLOCK_OR(block, 128, 32, name);
  if (rows == 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, {
    ell_tk<REAL><<<cis_blocks_for(rows, threads_), threads_, 0, s>>>(
        rows, width, col, (const REAL *)val, rowlen, (const REAL *)x,
        StoreY<REAL>{(REAL *)y, (REAL)alpha, (REAL)beta});
  });
  CIS_CUDA_LAUNCH_CHECK(name);
  return CIS_OK;
}
