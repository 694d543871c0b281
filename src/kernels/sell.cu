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
#include "formats/format_util.h"
#include "core/options.h"

// sell16: the split kernel's work division (S*P threads per slice, thread j
// on slots j, j + S*P, ... of local row j % S: lane j / S of the row) over
// 16-bit column deltas (format_types.h: a lane's column is the previous one
// plus the code, from base[s]; an escape code is followed by the delta's
// high and low halves; padding is skipped); each thread decodes its lane's
// U codes in order, then loads the U x entries together; the P partial sums
// meet in shared memory; y[perm[t]] as SELL-C-sigma (Kreutzer et al. 2014).
// P is the format's lanes. Grid-stride over groups of blockDim/(S*P) slices.
// Values of type V: T, or float under double T (float values, double sums).
template <typename T, typename V, int U>
__global__ void __launch_bounds__(1024) sell16_tk(
    int64_t rows, int S, int P, int64_t nslices, const int64_t *__restrict__ slice_ptr,
    const int32_t *__restrict__ base, const uint16_t *__restrict__ off, const V *__restrict__ val,
    const cis_idx *__restrict__ perm, const T *__restrict__ x, StoreY<T> epi) {
  extern __shared__ __align__(16) unsigned char sell16_smem[];
  const int tps = S * P, j = threadIdx.x % tps, r = j % S;
  const int64_t per_block = blockDim.x / tps, groups = (nslices + per_block - 1) / per_block;
  for (int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const int64_t s = g * per_block + threadIdx.x / tps, t = s * S + r;
    const bool live = s < nslices && t < rows;
    T sum = 0;
    if (live) {
      const int64_t begin = __ldg(&slice_ptr[s]), end = __ldg(&slice_ptr[s + 1]);
      int64_t c = __ldg(&base[s]);
      unsigned hi = 0;
      int mode = 0; /* 0: a code; 1: an escape's high half next; 2: its low half */
      for (int64_t p = begin + j; p < end; p += (int64_t)U * tps) {
        unsigned d[U];
        T v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int64_t q = p + (int64_t)u * tps;
          d[u] = CIS_SELL16_PAD;
          v[u] = 0;
          if (q < end) {
            d[u] = __ldcs(off + q);
            v[u] = (T)__ldcs(val + q);
          }
        }
        int64_t col[U];
        bool use[U];
        bool plain = mode == 0; /* the common case: U plain deltas, a prefix sum without the state machine */
#pragma unroll
        for (int u = 0; u < U; ++u) plain = plain && d[u] <= CIS_SELL16_SPAN;
        if (plain) {
#pragma unroll
          for (int u = 0; u < U; ++u) {
            c += d[u];
            col[u] = c;
            use[u] = true;
          }
        } else {
#pragma unroll
          for (int u = 0; u < U; ++u) {
            use[u] = false;
            if (mode == 1) {
              hi = d[u];
              mode = 2;
            } else if (mode == 2) {
              c += ((int64_t)hi << 16) | d[u];
              use[u] = true;
              mode = 0;
            } else if (d[u] <= CIS_SELL16_SPAN) {
              c += d[u];
              use[u] = true;
            } else if (d[u] == CIS_SELL16_ESC) {
              mode = 1;
            }
            col[u] = c;
          }
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (use[u]) sum += v[u] * __ldg(&x[col[u]]);
      }
    }
    if (P > 1) {
      T *part = (T *)sell16_smem;
      part[threadIdx.x] = sum;
      __syncthreads();
      if (j < S)
        for (int m = 1; m < P; ++m) sum += part[threadIdx.x + m * S];
      __syncthreads();
    }
    if (live && j < S) epi.row(perm ? (int64_t)__ldg(&perm[t]) : t, sum);
  }
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

template <typename T, int U>
static void launch_split(unsigned grid, int threads, size_t smem, cis_int rows, int S, int P,
                         cis_int nslices, const int64_t *slice_ptr, const cis_idx *col,
                         const void *val, const cis_idx *rowlen, const cis_idx *perm,
                         double alpha, const void *x, double beta, void *y, cudaStream_t s) {
  sell_split_tk<T, U><<<grid, threads, smem, s>>>(rows, S, P, nslices, slice_ptr, col,
                                                  (const T *)val, rowlen, perm, (const T *)x,
                                                  StoreY<T>{(T *)y, (T)alpha, (T)beta});
}

extern "C" cis_status cis_sell_tuning_get(cis_dtype t, cis_int S, cis_int nslices, cis_int slots, int lanes,
                                          cis_sell_tuning *out) {
  int sms = 0;
  if (!sm_count(&sms)) return cis_error(CIS_ERR_CUDA, "sell: cannot query the device");
  out->P = lanes > 0 ? lanes : (int)cis_opt_int(CIS_OPT_SELL_P, cis_sell_threads_per_row(nslices * S, S, slots, sms));
  out->U = (int)cis_opt_int(CIS_OPT_SELL_U, t == CIS_F64 ? 4 : 8);
  out->bpsm = (int)cis_opt_int(CIS_OPT_SELL_BPSM, 0);
  return CIS_OK;
}

template <typename T>
static cis_status split(cis_int rows, cis_int S, cis_int nslices, const cis_sell_tuning *tune,
                        const int64_t *slice_ptr, const cis_idx *col, const void *val,
                        const cis_idx *rowlen, const cis_idx *perm, double alpha, const void *x,
                        double beta, void *y, int block, int sms, const char *name,
                        cudaStream_t s) {
  int P = tune->P;
  const int U = tune->U;
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
  /* option sell_bpsm = b > 0: at most b blocks per multiprocessor, the
     kernel strides over the rest (fewer rows in flight share L1 better) */
  if (tune->bpsm > 0 && grid > (unsigned)(tune->bpsm * sms)) grid = (unsigned)(tune->bpsm * sms);
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
                                      cis_int nslices, const cis_sell_tuning *tune, const int64_t *slice_ptr,
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
      return split<REAL>(rows, S, nslices, tune, slice_ptr, col, val, rowlen, perm, alpha, x,
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

template <typename T, typename V, int U>
static void launch16(unsigned grid, int threads, size_t smem, cis_int rows, int S, int P,
                     cis_int nslices, const int64_t *slice_ptr, const int32_t *base,
                     const uint16_t *off, const void *val, const cis_idx *perm,
                     double alpha, const void *x, double beta, void *y, cudaStream_t s) {
  sell16_tk<T, V, U><<<grid, threads, smem, s>>>(rows, S, P, nslices, slice_ptr, base, off, (const V *)val, perm,
                                                 (const T *)x, StoreY<T>{(T *)y, (T)alpha, (T)beta});
}

// The U of the build (option sell_u) for sell16_tk<T, V>.
template <typename T, typename V>
static void launch16_u(int U, unsigned grid, int threads, size_t smem, cis_int rows, int S, int P, cis_int nslices,
                       const int64_t *slice_ptr, const int32_t *base, const uint16_t *off, const void *val,
                       const cis_idx *perm, double alpha, const void *x, double beta, void *y, cudaStream_t s) {
  switch (U) {
    case 1: launch16<T, V, 1>(grid, threads, smem, rows, S, P, nslices, slice_ptr, base, off, val, perm, alpha, x, beta, y, s); break;
    case 2: launch16<T, V, 2>(grid, threads, smem, rows, S, P, nslices, slice_ptr, base, off, val, perm, alpha, x, beta, y, s); break;
    case 8: launch16<T, V, 8>(grid, threads, smem, rows, S, P, nslices, slice_ptr, base, off, val, perm, alpha, x, beta, y, s); break;
    default: launch16<T, V, 4>(grid, threads, smem, rows, S, P, nslices, slice_ptr, base, off, val, perm, alpha, x, beta, y, s); break;
  }
}

extern "C" cis_status cis_launch_sell16(cis_dtype t, cis_dtype vt, cis_int rows, cis_int C, const cis_sell_tuning *tune,
                                        cis_int nslices,
                                        const int64_t *slice_ptr, const int32_t *base, const uint16_t *off,
                                        const void *val, const cis_idx *perm, double alpha, const void *x,
                                        double beta, void *y, int block, cudaStream_t s) {
  int sms = 0;
  if (C <= 0 || C > 1024)
    return cis_error(CIS_ERR_INVALID, "sell16: chunk height %lld must be 1..1024 on the GPU", (long long)C);
  if (block < 0 || block > 1024)
    return cis_error(CIS_ERR_INVALID, "sell16: block size %d must be 0 (default) up to 1024", block);
  const int P = tune->P, U = tune->U;
  if (P < 1 || C * P > 1024)
    return cis_error(CIS_ERR_INVALID, "sell16: %d lanes x chunk %lld exceed a block", P, (long long)C);
  if (vt != t && !(t == CIS_F64 && vt == CIS_F32))
    return cis_error(CIS_ERR_INVALID, "sell16: values of %s with vectors of %s", cis_dtype_name(vt),
                     cis_dtype_name(t));
  if (rows == 0) return CIS_OK;
  if (!sm_count(&sms)) return cis_error(CIS_ERR_CUDA, "sell16: cannot query the device");
  /* U: 4 loads in flight under double vectors, float values too (H2O FCI, H200: float
     values 2.016 ms at U = 4, 2.274 at 8, 2.514 at 2; bench/NOTES.md) */
  const int dbl = t == CIS_F64, tps = (int)C * P;
  const int threads = block > 0 ? block : (tps >= 256 ? tps : 256 / tps * tps);
  if (threads % tps)
    return cis_error(CIS_ERR_INVALID, "sell16: block size %d must be a multiple of C*lanes = %d", threads, tps);
  unsigned grid = cis_blocks_for(nslices, threads / tps);
  if (tune->bpsm > 0 && grid > (unsigned)(tune->bpsm * sms)) grid = (unsigned)(tune->bpsm * sms);
  const size_t smem = P > 1 ? (size_t)threads * (dbl ? 8 : 4) : 0;
  if (vt != t)
    launch16_u<double, float>(U, grid, threads, smem, rows, (int)C, P, nslices, slice_ptr, base, off, val, perm, alpha,
                              x, beta, y, s);
  else
    CIS_DISPATCH_REAL(t, {
      launch16_u<REAL, REAL>(U, grid, threads, smem, rows, (int)C, P, nslices, slice_ptr, base, off, val, perm, alpha,
                             x, beta, y, s);
    });
  CIS_CUDA_LAUNCH_CHECK("sell16");
  return CIS_OK;
}
