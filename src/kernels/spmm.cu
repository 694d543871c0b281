// spmm.cu: Y = alpha*A*X + beta*Y for k = 1..16 dense vectors at once (SpMM),
// A in CSR (full, or symmetric: the upper triangle, mirror images scattered
// as in csr_sym.cu's csr-sym). One read of the matrix serves all k vectors,
// which is the point: a stored SpMV is bound by the matrix bytes, so the
// time per vector falls as 1/k until the gathers of X dominate (Aktulga,
// Buluc, Williams, Yang, IPDPS 2014, "Optimizing sparse matrix-multiple
// vectors multiplication for nuclear configuration interaction
// calculations", Sec. IV: one matrix pass for a block of vectors; the
// kernel structure is Bell & Garland's CSR (vector), SC 2009, with K
// accumulators per lane).
//
// G lanes per row (8 or 32 from the mean row length) stride the row's
// nonzeros; each lane keeps K sums (K = 1, 2, 4, 8 or 16, the smallest
// power of two >= k; columns c >= k are predicated off), reduced over the G
// lanes by shuffles; lane c % G stores column c. X and Y are row-major
// (element (i, c) at i*ld + c: the k values of row j of X are contiguous,
// one or two sectors per nonzero) or column-major (c*ld + i: k gathers).
#include <stdint.h>
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"

__device__ __forceinline__ int64_t mm_at(int col_major, int64_t i, int c, int64_t ld) {
  return col_major ? (int64_t)c * ld + i : i * ld + c;
}

// Y = beta*Y on rows x k (the symmetric kernel's first pass).
template <typename T>
__global__ void mm_scale(int64_t rows, int k, T *Y, int64_t ldy, int col_major, T beta) {
  int64_t n = rows * k, stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += stride) {
    int64_t i = t / k;
    int c = (int)(t - i * k);
    T *p = Y + mm_at(col_major, i, c, ldy);
    *p = beta == T(0) ? T(0) : beta * *p;
  }
}

template <typename T, typename O, int G, int K, bool SYM>
__global__ void __launch_bounds__(256) csr_spmm_tk(int64_t rows, const O *__restrict__ rowptr,
                                                   const cis_idx *__restrict__ col,
                                                   const T *__restrict__ val, int k,
                                                   const T *__restrict__ X, int64_t ldx, T alpha,
                                                   T beta, T *Y, int64_t ldy, int col_major) {
  const int64_t gtid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % G;
  const int64_t row = gtid / G;
  T sum[K], axi[K];
#pragma unroll
  for (int c = 0; c < K; ++c) sum[c] = 0, axi[c] = 0;
  if (row < rows) {
    if (SYM) {
#pragma unroll
      for (int c = 0; c < K; ++c)
        if (c < k) axi[c] = alpha * X[mm_at(col_major, row, c, ldx)];
    }
    const int64_t e = (int64_t)rowptr[row + 1];
    for (int64_t q = (int64_t)rowptr[row] + lane; q < e; q += G) {
      const cis_idx j = __ldcs(col + q);
      const T v = __ldcs(val + q);
#pragma unroll
      for (int c = 0; c < K; ++c)
        if (c < k) sum[c] += v * __ldg(&X[mm_at(col_major, j, c, ldx)]);
      if (SYM && j != row) {
#pragma unroll
        for (int c = 0; c < K; ++c)
          if (c < k) atomicAdd(Y + mm_at(col_major, j, c, ldy), v * axi[c]);
      }
    }
  }
#pragma unroll
  for (int c = 0; c < K; ++c) sum[c] = cis_group_sum<T, G>(sum[c]);
  if (row < rows) {
#pragma unroll
    for (int c = 0; c < K; ++c) {
      if (c >= k || c % G != lane) continue;
      T *p = Y + mm_at(col_major, row, c, ldy);
      if (SYM) atomicAdd(p, alpha * sum[c]);
      else cis_store_y(p, 0, sum[c], alpha, beta);
    }
  }
}

// Row-major X with k = K a multiple of V = 16 bytes / sizeof(T), ldx a
// multiple of V and X 16-byte aligned: the K values of X's row j are read as
// C = K/V 16-byte vectors by C neighbouring lanes (one coalesced request per
// nonzero, as cuSPARSE's row-major SpMM), so a group of G lanes works on G/C
// nonzeros of its row at once. Lane = q*C + v: nonzero slot q, chunk v.
template <typename T> struct vec16;
template <> struct vec16<double> { typedef double2 type; enum { V = 2 }; };
template <> struct vec16<float> { typedef float4 type; enum { V = 4 }; };

template <typename T, typename O, int G, int K>
__global__ void __launch_bounds__(256) csr_spmm_vec_tk(int64_t rows, const O *__restrict__ rowptr,
                                                       const cis_idx *__restrict__ col,
                                                       const T *__restrict__ val, const T *__restrict__ X,
                                                       int64_t ldx, T alpha, T beta, T *Y, int64_t ldy) {
  typedef typename vec16<T>::type VT;
  constexpr int V = vec16<T>::V, C = K / V > 0 ? K / V : 1, Q = G / C; /* K < V never launched */
  const int64_t gtid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % G, v = lane % C, q = lane / C;
  const int64_t row = gtid / G;
  T sum[V];
#pragma unroll
  for (int u = 0; u < V; ++u) sum[u] = 0;
  if (row < rows) {
    const int64_t e = (int64_t)rowptr[row + 1];
    for (int64_t p = (int64_t)rowptr[row] + q; p < e; p += Q) {
      const cis_idx j = __ldcs(col + p);
      const T a = __ldcs(val + p);
      const VT xv = __ldg((const VT *)(X + (int64_t)j * ldx) + v);
      const T *xs = (const T *)&xv;
#pragma unroll
      for (int u = 0; u < V; ++u) sum[u] += a * xs[u];
    }
  }
#pragma unroll
  for (int u = 0; u < V; ++u)
#pragma unroll
    for (int o = G / 2; o >= C; o >>= 1) sum[u] += __shfl_xor_sync(0xffffffffu, sum[u], o, G);
  if (row < rows && q == 0) {
#pragma unroll
    for (int u = 0; u < V; ++u) cis_store_y(Y + row * ldy + v * V + u, 0, sum[u], alpha, beta);
  }
}

template <typename T, typename O, int G>
static cis_status launch_vec(cis_int rows, const void *rowptr, const cis_idx *col, const void *val, int k,
                             T alpha, const T *X, cis_int ldx, T beta, T *Y, cis_int ldy, int threads,
                             cudaStream_t s) {
  unsigned grid = cis_blocks_for(rows * G, threads);
  const O *rp = (const O *)rowptr;
  const T *v = (const T *)val;
#define CIS_MM_VEC(K) csr_spmm_vec_tk<T, O, G, K><<<grid, threads, 0, s>>>(rows, rp, col, v, X, ldx, alpha, beta, Y, ldy)
  if (k == 2 && vec16<T>::V == 2) CIS_MM_VEC(2);
  else if (k == 4) CIS_MM_VEC(4);
  else if (k == 8) CIS_MM_VEC(8);
  else CIS_MM_VEC(16);
#undef CIS_MM_VEC
  CIS_CUDA_LAUNCH_CHECK("csr spmm (vector loads)");
  return CIS_OK;
}

// 1 if the 16-byte-vector kernel applies (see csr_spmm_vec_tk).
template <typename T>
static int vec_ok(int k, const void *X, cis_int ldx, int col_major) {
  const int V = vec16<T>::V;
  return !col_major && k % V == 0 && (k & (k - 1)) == 0 && ldx % V == 0 && ((uintptr_t)X & 15) == 0;
}

template <typename T, typename O, int G, bool SYM>
static cis_status launch_g(cis_int rows, const void *rowptr, const cis_idx *col, const void *val, int k,
                           T alpha, const T *X, cis_int ldx, T beta, T *Y, cis_int ldy, int cm, int threads,
                           cudaStream_t s) {
  unsigned grid = cis_blocks_for(rows * G, threads);
  const O *rp = (const O *)rowptr;
  const T *v = (const T *)val;
#define CIS_MM_LAUNCH(K) \
  csr_spmm_tk<T, O, G, K, SYM><<<grid, threads, 0, s>>>(rows, rp, col, v, k, X, ldx, alpha, beta, Y, ldy, cm)
  if (k <= 1) CIS_MM_LAUNCH(1);
  else if (k <= 2) CIS_MM_LAUNCH(2);
  else if (k <= 4) CIS_MM_LAUNCH(4);
  else if (k <= 8) CIS_MM_LAUNCH(8);
  else CIS_MM_LAUNCH(16);
#undef CIS_MM_LAUNCH
  CIS_CUDA_LAUNCH_CHECK(SYM ? "csr-sym spmm" : "csr spmm");
  return CIS_OK;
}

template <typename T, typename O, bool SYM>
static cis_status launch_mm(cis_int rows, cis_int nnz, const void *rowptr, const cis_idx *col, const void *val,
                            int k, double alpha, const void *X, cis_int ldx, double beta, void *Y, cis_int ldy,
                            int cm, int threads, cudaStream_t s) {
  if (SYM) {
    unsigned grid = cis_blocks_for(rows * k, 256);
    if (grid > 8192) grid = 8192;
    mm_scale<T><<<grid, 256, 0, s>>>(rows, k, (T *)Y, ldy, cm, (T)beta);
    CIS_CUDA_LAUNCH_CHECK("csr-sym spmm beta*Y");
  }
  if (!SYM && vec_ok<T>(k, X, ldx, cm)) {
    if ((double)nnz / (double)rows <= 16)
      return launch_vec<T, O, 8>(rows, rowptr, col, val, k, (T)alpha, (const T *)X, ldx, (T)beta, (T *)Y, ldy, threads, s);
    return launch_vec<T, O, 32>(rows, rowptr, col, val, k, (T)alpha, (const T *)X, ldx, (T)beta, (T *)Y, ldy, threads, s);
  }
  if ((double)nnz / (double)rows <= 16)
    return launch_g<T, O, 8, SYM>(rows, rowptr, col, val, k, (T)alpha, (const T *)X, ldx, (T)beta, (T *)Y, ldy,
                                  cm, threads, s);
  return launch_g<T, O, 32, SYM>(rows, rowptr, col, val, k, (T)alpha, (const T *)X, ldx, (T)beta, (T *)Y, ldy,
                                 cm, threads, s);
}

extern "C" cis_status cis_launch_csr_spmm(cis_dtype t, int wide, int sym, cis_int rows, cis_int nnz,
                                          const void *rowptr, const cis_idx *col, const void *val, int k,
                                          double alpha, const void *X, cis_int ldx, double beta, void *Y,
                                          cis_int ldy, int col_major, int block, cudaStream_t s) {
  CIS_BLOCK_OR(block, 256, 32, "csr spmm");
  if (threads_ > 256) return cis_error(CIS_ERR_INVALID, "csr spmm: block size %d above 256", threads_);
  if (k < 1 || k > CIS_SPMM_MAX_K)
    return cis_error(CIS_ERR_INVALID, "spmm: k = %d vectors, must be 1..%d", k, CIS_SPMM_MAX_K);
  if (sym && !wide) return cis_error(CIS_ERR_INVALID, "csr-sym spmm needs 64-bit row pointers");
  if (rows == 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, {
    if (sym)
      return launch_mm<REAL, int64_t, true>(rows, nnz, rowptr, col, val, k, alpha, X, ldx, beta, Y, ldy,
                                            col_major, threads_, s);
    if (wide)
      return launch_mm<REAL, int64_t, false>(rows, nnz, rowptr, col, val, k, alpha, X, ldx, beta, Y, ldy,
                                             col_major, threads_, s);
    return launch_mm<REAL, uint32_t, false>(rows, nnz, rowptr, col, val, k, alpha, X, ldx, beta, Y, ldy,
                                            col_major, threads_, s);
  });
  return CIS_OK;
}
