// sell.cu: Sliced ELLPACK family SpMV, two kernels over three layouts:
//  - sell:   Mahmoud, Hoffmann, Reza 2018, Sec. 3.4, Algorithm 4, and the SELL
//            report (IPSJ 2018-HPC-164): slots column-major inside the slice
//            (slot k of local row r at slice_ptr[s] + k*S + r);
//  - sellr:  Sec. 3.5, Algorithm 5: the same, stopping at the row's length;
//  - sellcs: SELL-C-sigma (Kreutzer et al., SIAM J. Sci. Comput. 2014): rows
//            sorted inside windows, result scattered back through perm.
// Kernels: "split" (default, sell_split_tk: S*P threads per slice, P threads
// per row, coalesced for every S) and "row" (sell_tk: the report's thread per
// row, grid-stride; also the fallback for S > 1024). Both bodies are in
// spmv_templates.cuh, here with the StoreY epilogue.
#include <stdlib.h>
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"
#include "kernels/spmv_templates.cuh"

// An integer from the environment, or `def` (tuning overrides, bench/NOTES.md).
static int sell_env_int(const char *name, int def) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : def;
}

static int sm_count(int *sms) {
  static int sms_of[64]; /* per device, queried once (a solver calls this every iteration) */
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  if (dev >= 0 && dev < 64 && sms_of[dev] > 0) {
    *sms = sms_of[dev];
    return 1;
  }
  if (cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) return 0;
  if (dev >= 0 && dev < 64) sms_of[dev] = *sms;
  return 1;
}

// Threads per row P of the split kernel: the largest power of two <= 32 with
// S*P <= 1024, all rows' threads within one full wave of the device (132 SMs
// x 2048 threads on an H200) and >= 16 slots per thread on average. Few long
// rows (the 32k CI matrix: 32768 rows of ~950) get P = 8, many rows
// (laplace3d: 4M rows of 7; ci 524k) P = 1. Measured on the H200 (ci 32k,
// bench/NOTES.md): P = 1, 2, 4, 8, 16, 32 -> 0.331, 0.181, 0.115, 0.101,
// 0.103, 0.108 ms. CISPARSE_SELL_P overrides.
extern "C" int cis_sell_threads_per_row(cis_int rows_padded, cis_int S, cis_int slots, int sms) {
  int p = 1;
  const double width = rows_padded > 0 ? (double)slots / (double)rows_padded : 0;
  const double target = (double)sms * 2048.0;
  while (p < 32 && S * 2 * p <= 1024 && (double)rows_padded * 2 * p <= target && width >= 16.0 * 2 * p)
    p *= 2;
  return p;
}

template <typename T, int U>
static void launch_split(unsigned grid, int threads, size_t smem, cis_int rows, int S, int P,
                         cis_int nslices, const int64_t *slice_ptr, const cis_idx *col,
                         const void *val, const cis_idx *rowlen, const cis_idx *perm,
                         double alpha, const void *x, double beta, void *y, cudaStream_t s) {
  sell_split_tk<T, U><<<grid, threads, smem, s>>>(rows, S, P, nslices, slice_ptr, col,
                                                  (const T *)val, rowlen, perm, (const T *)x,
                                                  StoreY<T>{(T *)y, (T)alpha, (T)beta});
}

template <typename T>
static cis_status split(cis_int rows, cis_int S, cis_int nslices, cis_int slots,
                        const int64_t *slice_ptr, const cis_idx *col, const void *val,
                        const cis_idx *rowlen, const cis_idx *perm, double alpha, const void *x,
                        double beta, void *y, int block, int sms, const char *name,
                        cudaStream_t s) {
  int P = sell_env_int("CISPARSE_SELL_P", cis_sell_threads_per_row(nslices * S, S, slots, sms));
  int U = sell_env_int("CISPARSE_SELL_U", sizeof(T) == 8 ? 4 : 8);
  if (P < 1 || P > 1024 || S * P > 1024)
    return cis_error(CIS_ERR_INVALID, "%s: %lld threads per row x slice %lld exceed a block",
                     name, (long long)P, (long long)S);
  while (block > 0 && P > 1 && block % ((int)S * P)) P /= 2; /* a given block size wins */
  const int tps = (int)S * P;
  int threads = block > 0 ? block : (tps >= 256 ? tps : 256 / tps * tps);
  if (threads % tps || threads > 1024)
    return cis_error(CIS_ERR_INVALID, "%s: block size %d must be a multiple of S*P = %d up to 1024",
                     name, threads, tps);
  unsigned grid = cis_blocks_for(nslices, threads / tps);
  /* CISPARSE_SELL_BPSM = b > 0: at most b blocks per multiprocessor, the
     kernel strides over the rest (fewer rows in flight share L1 better) */
  const int bpsm = sell_env_int("CISPARSE_SELL_BPSM", 0);
  if (bpsm > 0 && grid > (unsigned)(bpsm * sms)) grid = (unsigned)(bpsm * sms);
  const size_t smem = P > 1 ? (size_t)threads * sizeof(T) : 0;
  switch (U) {
    case 1: launch_split<T, 1>(grid, threads, smem, rows, (int)S, P, nslices, slice_ptr, col, val, rowlen, perm, alpha, x, beta, y, s); break;
    case 2: launch_split<T, 2>(grid, threads, smem, rows, (int)S, P, nslices, slice_ptr, col, val, rowlen, perm, alpha, x, beta, y, s); break;
    case 8: launch_split<T, 8>(grid, threads, smem, rows, (int)S, P, nslices, slice_ptr, col, val, rowlen, perm, alpha, x, beta, y, s); break;
    default: launch_split<T, 4>(grid, threads, smem, rows, (int)S, P, nslices, slice_ptr, col, val, rowlen, perm, alpha, x, beta, y, s); break;
  }
  CIS_CUDA_LAUNCH_CHECK(name);
  return CIS_OK;
}

extern "C" cis_status cis_launch_sell(cis_dtype t, int row_kernel, cis_int rows, cis_int S,
                                      cis_int nslices, cis_int slots, const int64_t *slice_ptr,
                                      const cis_idx *col, const void *val, const cis_idx *rowlen,
                                      const cis_idx *perm, double alpha, const void *x,
                                      double beta, void *y, int block, cudaStream_t s) {
  const char *name = perm ? "sellcs" : rowlen ? "sellr" : "sell";
  int sms = 0;
  if (block < 0 || block > 1024)
    return cis_error(CIS_ERR_INVALID, "%s: block size %d must be 0 (default) up to 1024", name, block);
  if (S <= 0) return cis_error(CIS_ERR_INVALID, "%s: slice height %lld", name, (long long)S);
  if (rows == 0) return CIS_OK;
  if (!sm_count(&sms)) return cis_error(CIS_ERR_CUDA, "%s: cannot query the device", name);
  if (!row_kernel && S <= 1024) {
    CIS_DISPATCH_REAL(t, {
      return split<REAL>(rows, S, nslices, slots, slice_ptr, col, val, rowlen, perm, alpha, x,
                         beta, y, block, sms, name, s);
    });
  }
  CIS_BLOCK_OR(block, 256, 32, name);
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
