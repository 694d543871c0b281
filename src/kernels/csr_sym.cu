// csr_sym.cu: SpMV with a symmetric matrix stored as its upper triangle U
// (diagonal included), y = alpha*(U + U^T - D)*x + beta*y.
//
// Row i is read once: its stored entries give sum_j U_ij x_j to y_i (the
// gather of CSR SpMV) and their mirror images U_ij x_i to y_j, j > i (a
// scatter: the transpose product without a transpose). This is the GPU form
// of the symmetric CSR SpMV of Buluc, Fineman, Frigo, Gilbert, Leiserson
// (SPAA 2009, "the symmetric case": every stored nonzero used twice) and of
// the atomic-scatter symmetric SpMV of Gkountouvas, Karakasis, Kourtis,
// Goumas, Koziris (IPDPS 2013, Sec. III); G threads per row as Bell &
// Garland's CSR (vector) (SC 2009), G from the mean row length.
//
//  - csr-sym: y = beta*y first (a pass over y), then every contribution,
//    the row's own sum included, goes to y with a floating atomicAdd (RED on
//    sm_60+); results vary run to run in the last bits (the order of the
//    additions to y_j is the scheduler's).
//  - csr-sym-det: deterministic. The row's own sum is stored by its owner
//    thread (y_i = alpha*s + beta*y_i, no atomics) and the mirror images are
//    summed in 64-bit fixed point: term U_ij x_i is rounded to an integer
//    multiple of 2^-f and added with an integer atomicAdd (associative, so
//    the sum is the same in any order); a last pass adds alpha*acc_j*2^-f to
//    y_j. f is chosen per product from B = C * max|x| (C = the largest
//    column sum of |U| above the diagonal, found once at plan creation) so
//    that |scaled sum| <= 2^62: each term's error is <= 2^-63 B, far below
//    a double's rounding of a sum of that size. A NaN or Inf in x or in U
//    makes every y NaN (fixed point has none).
#include <math.h>
#include "kernels/fixed_point.cuh"
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"

#define SYM_U 4 /* nonzeros in flight per lane */

// y = beta*y (beta == 0: y = 0, a NaN in y does not propagate).
template <typename T>
__global__ void sym_scale_y(int64_t n, T *y, T beta) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = beta == T(0) ? T(0) : beta * y[i];
}

// colsum[j] += |U_ij| for i < j (strictly above the diagonal).
template <typename T>
__global__ void sym_colsum(int64_t rows, const int64_t *__restrict__ rowptr,
                           const cis_idx *__restrict__ col, const T *__restrict__ val,
                           double *colsum) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += stride)
    for (int64_t k = rowptr[i], e = rowptr[i + 1]; k < e; ++k)
      if (col[k] != i) atomicAdd(&colsum[col[k]], fabs((double)val[k]));
}

// The SYM_U stored entries b, b + G, ... of a row ending at e, streamed
// (read once): column -1 and value 0 past the end.
template <typename T, int G>
__device__ __forceinline__ void sym_load(int64_t b, int64_t e, const cis_idx *__restrict__ col,
                                         const T *__restrict__ val, cis_idx (&c)[SYM_U], T (&v)[SYM_U]) {
#pragma unroll
  for (int u = 0; u < SYM_U; ++u) {
    int64_t q = b + (int64_t)u * G;
    c[u] = -1;
    v[u] = 0;
    if (q < e) {
      c[u] = __ldcs(col + q);
      v[u] = __ldcs(val + q);
    }
  }
}

// The row kernel. G lanes per row, SYM_U nonzeros per lane in flight.
// DET = false: y has been scaled by beta; everything is atomically added.
// DET = true: owner stores y_i; mirror terms go to acc in fixed point.
template <typename T, int G, bool DET>
__global__ void __launch_bounds__(256) csr_sym_tk(int64_t rows, const int64_t *__restrict__ rowptr,
                                                  const cis_idx *__restrict__ col,
                                                  const T *__restrict__ val, const T *__restrict__ x,
                                                  T alpha, T beta, T *y, unsigned long long *acc,
                                                  double colmax,
                                                  const unsigned long long *__restrict__ xmax) {
  const int64_t gtid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % G;
  const int64_t row = gtid / G;
  double scale = 0.0;
  if (DET) scale = cis_fx_scale(colmax, *xmax);
  T sum = 0;
  if (row < rows) {
    const T xi = x[row], axi = alpha * xi;
    const int64_t b0 = rowptr[row], e = rowptr[row + 1];
    for (int64_t b = b0 + lane; b < e; b += (int64_t)SYM_U * G) {
      cis_idx c[SYM_U];
      T v[SYM_U];
      sym_load<T, G>(b, e, col, val, c, v);
#pragma unroll
      for (int u = 0; u < SYM_U; ++u) {
        if (c[u] < 0) continue;
        sum += v[u] * __ldg(&x[c[u]]);
        if (c[u] == row) continue;
        if (DET) {
          if (scale != 0.0)
            atomicAdd(acc + c[u], (unsigned long long)__double2ll_rn((double)v[u] * (double)xi * scale));
        } else {
          atomicAdd(y + c[u], v[u] * axi);
        }
      }
    }
  }
  sum = cis_group_sum<T, G>(sum);
  if (row < rows && lane == 0) {
    if (DET) cis_store_y(y, row, sum, alpha, beta);
    else atomicAdd(y + row, alpha * sum);
  }
}

// y_j += alpha * acc_j * 2^-f (csr-sym-det's last pass); acc_j reset to 0
// for the next product. A non-finite scale makes y NaN.
template <typename T>
__global__ void sym_det_finish(int64_t n, T *y, unsigned long long *acc, T alpha, double colmax,
                               unsigned long long *xmax) {
  double scale = cis_fx_scale(colmax, *xmax);
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
    long long a = (long long)acc[j];
    acc[j] = 0;
    y[j] = scale == 0.0 ? (T)NAN : y[j] + alpha * (T)((double)a / scale);
  }
}

// csr-sym-win: the scatter of csr-sym with most of its atomics kept on chip.
// Block b owns the rows [r0, r0 + R) (a contiguous chunk, its groups of G
// lanes stride it) and a shared-memory window of W >= R entries of y from
// r0 on: a mirror image U_ij x_i with r0 <= j < r0 + W, and the row's own
// sum, are added there (shared atomics); only columns beyond the window go
// to y in global memory. At the end the window is added to y (one global
// atomic per nonzero window entry). Pays where many stored columns lie just
// right of the diagonal: banded and FEM matrices (the +1 and +nx couplings
// of a 3D Laplacian), and CI Hamiltonians in determinant order (the
// excitations of one spin string keep the other string: columns within
// one string block of the row). y has been scaled by beta.
template <typename T, int G>
__global__ void __launch_bounds__(256) csr_sym_win_tk(int64_t rows, const int64_t *__restrict__ rowptr,
                                                      const cis_idx *__restrict__ col,
                                                      const T *__restrict__ val, const T *__restrict__ x,
                                                      T alpha, T *y, int64_t R, int W) {
  extern __shared__ unsigned char sym_smem[];
  T *win = (T *)sym_smem;
  const int64_t r0 = (int64_t)blockIdx.x * R, r1 = min(r0 + R, rows);
  const int lane = threadIdx.x % G, groups = blockDim.x / G;
  for (int w = threadIdx.x; w < W; w += blockDim.x) win[w] = 0;
  __syncthreads();
  for (int64_t wrow = r0 + threadIdx.x / G; wrow - (int64_t)(threadIdx.x / G) < r1; wrow += groups) {
    const int64_t row = wrow;
    T sum = 0;
    if (row < r1) {
      const T axi = alpha * x[row];
      const int64_t e = rowptr[row + 1];
      for (int64_t b = rowptr[row] + lane; b < e; b += (int64_t)SYM_U * G) {
        cis_idx c[SYM_U];
        T v[SYM_U];
        sym_load<T, G>(b, e, col, val, c, v);
#pragma unroll
        for (int u = 0; u < SYM_U; ++u) {
          if (c[u] < 0) continue;
          sum += v[u] * __ldg(&x[c[u]]);
          if (c[u] == row) continue;
          int64_t off = (int64_t)c[u] - r0;
          if (off < W) atomicAdd(win + off, v[u] * axi);
          else atomicAdd(y + c[u], v[u] * axi);
        }
      }
    }
    sum = cis_group_sum<T, G>(sum);
    if (row < r1 && lane == 0) atomicAdd(win + (row - r0), alpha * sum);
  }
  __syncthreads();
  for (int w = threadIdx.x; w < W && r0 + w < rows; w += blockDim.x)
    if (win[w] != T(0)) atomicAdd(y + r0 + w, win[w]);
}

template <typename T, int G>
static cis_status launch_rows(const cis_csr_sym_dev *d, T alpha, T beta, const T *x, T *y, int threads,
                              cudaStream_t s) {
  unsigned grid = cis_blocks_for(d->rows * G, threads);
  if (d->det)
    csr_sym_tk<T, G, true><<<grid, threads, 0, s>>>(d->rows, d->rowptr, d->col, (const T *)d->val, x, alpha,
                                                    beta, y, d->acc, d->colmax, d->xmax);
  else
    csr_sym_tk<T, G, false><<<grid, threads, 0, s>>>(d->rows, d->rowptr, d->col, (const T *)d->val, x, alpha,
                                                     beta, y, NULL, 0.0, NULL);
  CIS_CUDA_LAUNCH_CHECK(d->det ? "csr-sym-det" : "csr-sym");
  return CIS_OK;
}

// csr-sym-win's geometry: R rows per block so that about 8 blocks per SM
// cover the matrix, W = the window (at least R; up to 48 KB of shared memory).
template <typename T, int G>
static cis_status launch_win(const cis_csr_sym_dev *d, T alpha, const T *x, T *y, int threads, cudaStream_t s) {
  int dev = 0, sms = 0;
  CIS_CUDA_CHECK(cudaGetDevice(&dev));
  CIS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int Wmax = (int)(49152 / sizeof(T));
  int64_t blocks = (int64_t)sms * 8, R = (d->rows + blocks - 1) / blocks;
  if (R < threads / G) R = threads / G;
  if (R > Wmax) R = Wmax; /* more blocks then */
  blocks = (d->rows + R - 1) / R;
  int W = Wmax;
  csr_sym_win_tk<T, G><<<(unsigned)blocks, threads, (size_t)W * sizeof(T), s>>>(d->rows, d->rowptr, d->col,
                                                                                (const T *)d->val, x, alpha, y, R, W);
  CIS_CUDA_LAUNCH_CHECK("csr-sym-win");
  return CIS_OK;
}

template <typename T>
static cis_status launch_sym(const cis_csr_sym_dev *d, double alpha, const void *xv, double beta, void *yv,
                             int threads, cudaStream_t s) {
  const T *x = (const T *)xv;
  T *y = (T *)yv;
  unsigned vgrid = cis_blocks_for(d->rows, 256);
  if (vgrid > 4096) vgrid = 4096;
  if (d->det) {
    cis_fx_zero_word<<<1, 1, 0, s>>>(d->xmax);
    cis_fx_absmax<T><<<vgrid, 256, 0, s>>>(d->rows, x, d->xmax);
    CIS_CUDA_LAUNCH_CHECK("csr-sym-det max|x|");
  } else {
    sym_scale_y<T><<<vgrid, 256, 0, s>>>(d->rows, y, (T)beta);
    CIS_CUDA_LAUNCH_CHECK("csr-sym beta*y");
  }
  int G = cis_sym_group(d->rows, d->nnz);
  if (d->window)
    return G == 4    ? launch_win<T, 4>(d, (T)alpha, x, y, threads, s)
           : G == 8  ? launch_win<T, 8>(d, (T)alpha, x, y, threads, s)
           : G == 16 ? launch_win<T, 16>(d, (T)alpha, x, y, threads, s)
                     : launch_win<T, 32>(d, (T)alpha, x, y, threads, s);
  cis_status st = G == 4    ? launch_rows<T, 4>(d, (T)alpha, (T)beta, x, y, threads, s)
                  : G == 8  ? launch_rows<T, 8>(d, (T)alpha, (T)beta, x, y, threads, s)
                  : G == 16 ? launch_rows<T, 16>(d, (T)alpha, (T)beta, x, y, threads, s)
                            : launch_rows<T, 32>(d, (T)alpha, (T)beta, x, y, threads, s);
  if (st != CIS_OK || !d->det) return st;
  sym_det_finish<T><<<vgrid, 256, 0, s>>>(d->rows, y, d->acc, (T)alpha, d->colmax, d->xmax);
  CIS_CUDA_LAUNCH_CHECK("csr-sym-det finish");
  return CIS_OK;
}

extern "C" int cis_sym_group(cis_int rows, cis_int nnz) {
  double mean = rows > 0 ? (double)nnz / (double)rows : 0;
  return mean <= 8 ? 4 : mean <= 16 ? 8 : mean <= 32 ? 16 : 32;
}

extern "C" cis_status cis_launch_csr_sym(const cis_csr_sym_dev *d, double alpha, const void *x, double beta,
                                         void *y, int block, cudaStream_t s) {
  CIS_BLOCK_OR(block, 256, 32, d->det ? "csr-sym-det" : d->window ? "csr-sym-win" : "csr-sym");
  if (threads_ > 256)
    return cis_error(CIS_ERR_INVALID, "csr-sym: block size %d above 256 (launch bounds)", threads_);
  if (d->rows == 0) return CIS_OK;
  CIS_DISPATCH_REAL(d->t, { return launch_sym<REAL>(d, alpha, x, beta, y, threads_, s); });
  return CIS_OK;
}

extern "C" cis_status cis_launch_csr_sym_colmax(const cis_csr_sym_dev *d, double *colsum,
                                                unsigned long long *out, cudaStream_t s) {
  unsigned grid = cis_blocks_for(d->rows, 256);
  if (grid > 4096) grid = 4096;
  CIS_CUDA_CHECK(cudaMemsetAsync(colsum, 0, (size_t)d->rows * sizeof(double), s));
  CIS_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof *out, s));
  if (d->rows == 0) return CIS_OK;
  CIS_DISPATCH_REAL(d->t, {
    sym_colsum<REAL><<<grid, 256, 0, s>>>(d->rows, d->rowptr, d->col, (const REAL *)d->val, colsum);
  });
  CIS_CUDA_LAUNCH_CHECK("csr-sym column sums");
  cis_fx_absmax<double><<<grid, 256, 0, s>>>(d->rows, colsum, out);
  CIS_CUDA_LAUNCH_CHECK("csr-sym column sum max");
  return CIS_OK;
}
