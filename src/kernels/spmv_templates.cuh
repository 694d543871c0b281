// spmv_templates.cuh: the bodies of our SpMV kernels, written once and
// parameterised by an epilogue functor, so that a Krylov solver can fuse the
// reductions that consume y into the product without a copy of any kernel
// (Aliaga, Perez, Quintana-Orti, Euro-Par 2015, §3.3: "SpMV -> dot_ini" with
// the partial dot products formed as each row is finished).
//
// An epilogue Epi provides
//   bool start()              called by every thread first; false = do
//                             nothing (the fused versions return false once
//                             s[KS_FLAG] is set); uniform over the grid;
//   void row(int64_t i, T v)  the finished value v = (A x)_i of row i, called
//                             once per row by exactly one thread;
//   void finish()             called by every thread of every block at the
//                             end (block reductions, last-block work): the
//                             kernels never return before it.
// StoreY (below) is y = alpha v + beta y (beta == 0 overwrites), the plain
// SpMV of src/kernels/*.cu. The kernels are grid-stride: the plain launchers
// give them one row (group) per thread as before, so their results are
// bit-identical to the former one-shot kernels; the fused launchers cap the
// grid so the last block has few partial sums to read.
//
// Kernels (citations as in their launcher files):
//   csr_scalar_tk  Mahmoud, Hoffmann, Reza 2018, Sec. 3.1, Algorithm 1
//   csr_vector_tk  Bell & Garland, SC 2009, "CSR (vector)": warp per row
//   ell_tk         Mahmoud et al. 2018, Sec. 3.2-3.3, Algorithms 2-3 (ELLPACK-R:
//                  Vazquez et al. 2011), column-major slots
//   sell_tk        Mahmoud et al. 2018, Sec. 3.4-3.5, Algorithms 4-5; SELL-C-sigma
//                  (Kreutzer et al., SIAM J. Sci. Comput. 2014) through perm
//   sell_split_tk  the same layout, S*P threads per slice, coalesced for every
//                  S, P threads per row (sell.cu's default kernel)
//   hyb_fast_tk    Mahmoud et al. 2018, Sec. 4.1-4.2 (hybrid ELLPACK+CSR), our
//                  fast variant: G threads per row, U loads in flight (hyb.cu)
#ifndef CISPARSE_SPMV_TEMPLATES_CUH
#define CISPARSE_SPMV_TEMPLATES_CUH

#include <stdint.h>
#include "cisparse/types.h"
#include "kernels/kernel_common.cuh"

// The plain SpMV epilogue: y[i] = alpha*v + beta*y[i] (cis_store_y).
template <typename T>
struct StoreY {
  T *y;
  T alpha, beta;
  __device__ __forceinline__ bool start() const { return true; }
  __device__ __forceinline__ void row(int64_t i, T v) const { cis_store_y(y, i, v, alpha, beta); }
  __device__ __forceinline__ void finish() const {}
};

// csr-scalar: one thread per row (Algorithm 1), grid-stride.
template <typename T, typename O, class Epi>
__global__ void csr_scalar_tk(int64_t rows, const O *__restrict__ rowptr,
                              const cis_idx *__restrict__ col, const T *__restrict__ val,
                              const T *__restrict__ x, Epi epi) {
  if (epi.start()) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += stride) {
      T sum = 0;
      for (int64_t k = rowptr[i], e = rowptr[i + 1]; k < e; ++k) sum += val[k] * __ldg(&x[col[k]]);
      epi.row(i, sum);
    }
  }
  epi.finish();
}

// csr-vector: one warp per row, lanes stride the row, shuffle reduction;
// grid-stride over rows by warps (the loop bound is uniform in a warp).
template <typename T, typename O, class Epi>
__global__ void csr_vector_tk(int64_t rows, const O *__restrict__ rowptr,
                              const cis_idx *__restrict__ col, const T *__restrict__ val,
                              const T *__restrict__ x, Epi epi) {
  if (epi.start()) {
    int64_t wstride = (int64_t)gridDim.x * blockDim.x / 32;
    int lane = threadIdx.x & 31;
    for (int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows;
         row += wstride) {
      T sum = 0;
      for (int64_t k = rowptr[row] + lane, e = rowptr[row + 1]; k < e; k += 32)
        sum += val[k] * __ldg(&x[col[k]]);
      sum = cis_group_sum<T, 32>(sum);
      if (lane == 0) epi.row(row, sum);
    }
  }
  epi.finish();
}

// ell / ellr: one thread per row, slot k of row i at k*rows + i; ELLPACK
// walks `width` slots skipping padding, ELLPACK-R stops at rowlen[i].
// MINB: minimum resident blocks of 1024 threads the compiler must allow
// (__launch_bounds__(1024, MINB): MINB = 2 caps the kernel at 32 registers).
template <typename T, class Epi, int MINB = 1>
__global__ void __launch_bounds__(1024, MINB) ell_tk(int64_t rows, int64_t width, const cis_idx *__restrict__ col,
                       const T *__restrict__ val, const cis_idx *__restrict__ rowlen,
                       const T *__restrict__ x, Epi epi) {
  if (epi.start()) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += stride) {
      int64_t n = rowlen ? (int64_t)rowlen[i] : width;
      T sum = 0;
#pragma unroll 4
      for (int64_t k = 0; k < n; ++k) {
        cis_idx c = col[k * rows + i];
        if (c >= 0) sum += val[k * rows + i] * __ldg(&x[c]);
      }
      epi.row(i, sum);
    }
  }
  epi.finish();
}

// sell / sellr / sellcs: thread per row of a slice, slot k of local row r of
// slice s at slice_ptr[s] + k*S + r; nslots_rows = nslices*S (padding rows
// of the last slice skipped); the row's result goes to perm[t] (sellcs).
template <typename T, bool POW2, class Epi>
__global__ void sell_tk(int64_t rows, int64_t S, int shift, int64_t nslots_rows,
                        const int64_t *__restrict__ slice_ptr, const cis_idx *__restrict__ col,
                        const T *__restrict__ val, const cis_idx *__restrict__ rowlen,
                        const cis_idx *__restrict__ perm, const T *__restrict__ x, Epi epi) {
  if (epi.start()) {
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < nslots_rows; t += stride) {
      if (t >= rows) continue; /* padding rows of the last slice */
      int64_t s = POW2 ? t >> shift : t / S, r = t - s * S; /* no 64-bit division for S = 2^k */
      int64_t begin = __ldg(&slice_ptr[s]);
      int64_t n = rowlen ? (int64_t)rowlen[t]
                         : (POW2 ? (__ldg(&slice_ptr[s + 1]) - begin) >> shift
                                 : (__ldg(&slice_ptr[s + 1]) - begin) / S);
      T sum = 0;
#pragma unroll 4
      for (int64_t k = 0, p = begin + r; k < n; ++k, p += S) {
        cis_idx c = col[p];
        if (c >= 0) sum += val[p] * __ldg(&x[c]);
      }
      epi.row(perm ? (int64_t)perm[t] : t, sum);
    }
  }
  epi.finish();
}

// sell (split): the SELL report's slices read as flat arrays. Slice s's slots
// [slice_ptr[s], slice_ptr[s+1]) are shared by tps = S*P threads; thread j of
// the slice reads slots j, j + tps, j + 2 tps, ... which all belong to local
// row j % S (tps is a multiple of S and the slice is column-major), so a warp
// reads 32 consecutive slots for every S (coalesced, as cuSPARSE's SELL), no
// thread walks another row's length, and P threads share one row's slots (P >
// 1 for matrices with few, long rows: enough warps in flight to cover the
// latency). U independent (col, val) loads are in flight per thread before
// the U gathers of x; the matrix is read with streaming loads (used once), x
// through the read-only cache. sellr stops each row at its length; sellcs
// stores through perm. The P partial sums of a row meet in shared memory
// (blockDim/tps slices per block). Grid-stride over groups of blockDim/tps
// slices (the launcher gives one group per block unless it caps the resident
// blocks, which trades occupancy for L1 hits on x). Mahmoud et al. 2018, Sec. 3.4-3.5 (layout); Kreutzer
// et al. 2014 (SELL-C-sigma); the work split is ours (bench/NOTES.md).
template <typename T, int U, class Epi>
__global__ void __launch_bounds__(1024) sell_split_tk(
    int64_t rows, int S, int P, int64_t nslices, const int64_t *__restrict__ slice_ptr,
    const cis_idx *__restrict__ col, const T *__restrict__ val, const cis_idx *__restrict__ rowlen,
    const cis_idx *__restrict__ perm, const T *__restrict__ x, Epi epi) {
  extern __shared__ __align__(16) unsigned char sell_split_smem[];
  if (epi.start()) {
    const int tps = S * P, j = threadIdx.x % tps, r = j % S;
    const int64_t per_block = blockDim.x / tps, groups = (nslices + per_block - 1) / per_block;
    /* grid-stride over groups of per_block slices: the trip count is uniform in a block */
    for (int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
      const int64_t s = g * per_block + threadIdx.x / tps;
      const int64_t t = s * S + r; /* position of the row (sorted order for sellcs) */
      const bool live = s < nslices && t < rows;
      T sum = 0;
      if (live) {
        const int64_t begin = __ldg(&slice_ptr[s]);
        const int64_t end = rowlen ? begin + (int64_t)__ldg(&rowlen[t]) * S : __ldg(&slice_ptr[s + 1]);
        for (int64_t p = begin + j; p < end; p += (int64_t)U * tps) {
          cis_idx c[U];
          T v[U];
#pragma unroll
          for (int u = 0; u < U; ++u) {
            const int64_t q = p + (int64_t)u * tps;
            c[u] = -1;
            v[u] = 0;
            if (q < end) {
              c[u] = __ldcs(col + q);
              v[u] = __ldcs(val + q);
            }
          }
#pragma unroll
          for (int u = 0; u < U; ++u)
            if (c[u] >= 0) sum += v[u] * __ldg(&x[c[u]]);
        }
      }
      if (P > 1) { /* uniform over the block: every thread reaches the barriers */
        T *part = (T *)sell_split_smem;
        part[threadIdx.x] = sum;
        __syncthreads();
        if (j < S)
          for (int m = 1; m < P; ++m) sum += part[threadIdx.x + m * S];
        __syncthreads(); /* part is rewritten by the next group */
      }
      if (live && j < S) epi.row(perm ? (int64_t)__ldg(&perm[t]) : t, sum);
    }
  }
  epi.finish();
}

// A matrix element used once: streaming load (evict first, keeps x in cache),
// except with one thread per row, whose next slots come from the same lines
// through L1 (as CSR scalar).
template <int G, typename V>
__device__ __forceinline__ V hyb_load_once(const V *p) {
  if (G == 1) return __ldg(p);
  return __ldcs(p);
}

// One chunk of a hybrid row: U predicated loads at q = b + u*G, q < n, taken
// from (c1, v1)[q] while q < n1 and from (c2, v2)[q - n1] after (the ELLPACK
// and CSR parts as one range), all issued before the U gathers of x, which
// are added to sum in order.
template <typename T, int G, int U>
__device__ __forceinline__ void hyb_chunk_sum(const cis_idx *__restrict__ c1,
                                              const T *__restrict__ v1, int64_t n1,
                                              const cis_idx *__restrict__ c2,
                                              const T *__restrict__ v2, int64_t n, int64_t b,
                                              const T *__restrict__ x, T &sum) {
  cis_idx c[U];
  T v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    int64_t q = b + (int64_t)u * G;
    c[u] = -1;
    v[u] = 0;
    if (q < n) {
      c[u] = q < n1 ? hyb_load_once<G>(c1 + q) : hyb_load_once<G>(c2 + (q - n1));
      v[u] = q < n1 ? hyb_load_once<G>(v1 + q) : hyb_load_once<G>(v2 + (q - n1));
    }
  }
#pragma unroll
  for (int u = 0; u < U; ++u)
    if (c[u] >= 0) sum += v[u] * __ldg(&x[c[u]]);
}

// hyb (fast): G threads per row (G divides 32); the row's ELLPACK part
// (row-major, ell_*[row*width + q]) and CSR part (csr_*[start + q - n_ell])
// walked as one index range q in [0, n_ell + n_csr), lane q = lane + G*(u +
// U*j). Grid-stride by warps: the warp's first row decides the trip, so the
// shuffles always see the whole warp (rows past the end contribute 0 and
// are not stored).
template <typename T, typename O, int G, int U, class Epi>
__global__ void hyb_fast_tk(int64_t rows, int64_t width, int column_mode,
                            const cis_idx *__restrict__ ell_col, const T *__restrict__ ell_val,
                            const uint32_t *__restrict__ rownnz, const O *__restrict__ start,
                            const O *__restrict__ end, const cis_idx *__restrict__ csr_col,
                            const T *__restrict__ csr_val, const T *__restrict__ x, Epi epi) {
  if (epi.start()) {
    const int64_t gtid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane32 = threadIdx.x & 31, lane = lane32 % G;
    const int64_t rows_per_warp = 32 / G;
    const int64_t rstride = (int64_t)gridDim.x * blockDim.x / G;
    for (int64_t wrow = gtid / 32 * rows_per_warp; wrow < rows; wrow += rstride) {
      int64_t row = wrow + lane32 / G;
      T sum = 0;
      if (row < rows) {
        int64_t n_ell = column_mode ? width : min((int64_t)__ldg(&rownnz[row]), width);
        int64_t s = (int64_t)__ldg(&start[row]), n = n_ell + ((int64_t)__ldg(&end[row]) - s);
        const cis_idx *ec = ell_col + row * width, *cc = csr_col + s;
        const T *ev = ell_val + row * width, *cv = csr_val + s;
        for (int64_t b = lane; b < n; b += (int64_t)U * G)
          hyb_chunk_sum<T, G, U>(ec, ev, n_ell, cc, cv, n, b, x, sum);
      }
      sum = cis_group_sum<T, G>(sum);
      if (row < rows && lane == 0) epi.row(row, sum);
    }
  }
  epi.finish();
}

#endif
