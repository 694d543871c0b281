// sell.cu: Sliced ELLPACK family SpMV, one kernel for three layouts:
//  - sell:   Mahmoud, Hoffmann, Reza 2018, Sec. 3.4, Algorithm 4, and the SELL
//            report (IPSJ 2018-HPC-164): one thread per row of a slice, slots
//            column-major inside the slice (slot k of local row r at
//            slice_ptr[s] + k*S + r), slice offsets through the read-only
//            cache (__ldg, the report's tex1Dfetch), grid-stride loop;
//  - sellr:  Sec. 3.5, Algorithm 5: the same, stopping at the row's length;
//  - sellcs: SELL-C-sigma (Kreutzer et al., SIAM J. Sci. Comput. 2014): rows
//            sorted inside windows, result scattered back through perm.
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"
#include "kernels/spmv_templates.cuh"

// The kernel body is sell_tk (spmv_templates.cuh) with the StoreY epilogue.

extern "C" cis_status cis_launch_sell(cis_dtype t, cis_int rows, cis_int S, cis_int nslices,
                                      const int64_t *slice_ptr, const cis_idx *col,
                                      const void *val, const cis_idx *rowlen, const cis_idx *perm,
                                      double alpha, const void *x, double beta, void *y, int block,
                                      cudaStream_t s) {
  const char *name = perm ? "sellcs" : rowlen ? "sellr" : "sell";
  CIS_BLOCK_OR(block, 256, 32, name);
  if (rows == 0) return CIS_OK;
  if (S <= 0) return cis_error(CIS_ERR_INVALID, "%s: slice height %lld", name, (long long)S);
  static int sms_of[64]; /* per device, queried once (a solver calls this every iteration) */
  int dev = 0, sms = 0;
  CIS_CUDA_CHECK(cudaGetDevice(&dev));
  if (dev >= 0 && dev < 64 && sms_of[dev] > 0) {
    sms = sms_of[dev];
  } else {
    CIS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (dev >= 0 && dev < 64) sms_of[dev] = sms;
  }
  int64_t n = nslices * S;
  unsigned grid = cis_blocks_for(n, threads_);
  unsigned cap = (unsigned)sms * (2048u / (unsigned)threads_) * 4u; /* grid-stride beyond this */
  if (grid > cap) grid = cap;
  int shift = 0;
  while (((int64_t)1 << shift) < S) shift++;
  CIS_DISPATCH_REAL(t, {
    if (((int64_t)1 << shift) == S)
      sell_tk<REAL, true><<<grid, threads_, 0, s>>>(rows, S, shift, n, slice_ptr, col,
                                                    (const REAL *)val, rowlen, perm, (const REAL *)x,
                                                    StoreY<REAL>{(REAL *)y, (REAL)alpha, (REAL)beta});
    else
      sell_tk<REAL, false><<<grid, threads_, 0, s>>>(rows, S, shift, n, slice_ptr, col,
                                                     (const REAL *)val, rowlen, perm, (const REAL *)x,
                                                     StoreY<REAL>{(REAL *)y, (REAL)alpha, (REAL)beta});
  });
  CIS_CUDA_LAUNCH_CHECK(name);
  return CIS_OK;
}
