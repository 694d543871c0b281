// hyb.cu: SpMV for the hybrid ELLPACK+CSR CI format (Mahmoud, Hoffmann, Reza
// 2018, Sec. 4.1-4.2). Row i: ELLPACK part at ell_*[i*width + k] (row-major),
// CSR part csr_*[start[i] .. end[i]). Padding slots (col -1) are skipped.
//
// hyb-paper: Algorithm 7 as printed. A group of G = min(32, blockDim) threads
//   per row ("Warp_id"); each thread accumulates into its shared-memory slot
//   ShMem1[threadIdx.x] over the ELLPACK part, the group reduces ShMem1 by the
//   printed tree (16, 8, 4, 2, 1; __syncwarp between steps, as the lock-step
//   warps of the paper's K20m no longer exist), then, when
//   AllNonZerosCount > BOUNDARY, the same over the CSR part into ShMem2, and
//   the first thread writes the row. Block size is the parameter of the
//   paper's Tables 6-8.
// hyb (fast): G threads per row (32 for long rows, 16/8/4 for short ones,
//   from the mean row length), the ELLPACK and CSR parts walked as one index
//   range with U predicated loads in flight per thread, matrix arrays read
//   with streaming loads (__ldcs: used once, so x stays in cache), x through
//   the read-only cache (__ldg), one shuffle reduction. In count mode the
//   ELLPACK walk stops at the row's length (padding is the tail of the row).
//   Its body is hyb_fast_tk in spmv_templates.cuh (shared with the fused
//   Krylov kernels), instantiated here with the StoreY epilogue.
#include "kernels/kernel_common.cuh"
#include "kernels/launchers.h"
#include "kernels/spmv_templates.cuh"
#include <stdlib.h>
#include "core/options.h"

template <typename T, typename O>
__global__ void hyb_paper_kernel(int64_t rows, int64_t width, int column_mode,
                                 const cis_idx *__restrict__ ell_col,
                                 const T *__restrict__ ell_val, const uint32_t *__restrict__ rownnz,
                                 const O *__restrict__ start, const O *__restrict__ end,
                                 const cis_idx *__restrict__ csr_col,
                                 const T *__restrict__ csr_val, T alpha, const T *__restrict__ x,
                                 T beta, T *__restrict__ y) {
  extern __shared__ unsigned char hyb_smem[];
  T *sh1 = (T *)hyb_smem, *sh2 = sh1 + blockDim.x;
  const int G = blockDim.x < 32 ? blockDim.x : 32;
  const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x & 31) / G * G);
  int64_t thread_id = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t warp_id = thread_id / G;
  int lane = (int)(thread_id % G), t = threadIdx.x;
  sh1[t] = 0;
  sh2[t] = 0;
  if (warp_id >= rows) return; /* whole groups leave together */
  const int64_t base = warp_id * width;
  for (int64_t r2 = lane; r2 < width; r2 += G) {
    cis_idx c = ell_col[base + r2];
    if (c >= 0) sh1[t] += ell_val[base + r2] * x[c];
  }
  __syncwarp(mask);
  for (int o = G / 2; o > 0; o >>= 1) { /* warp-level reduction for the ELLPACK part */
    if (lane < o) sh1[t] += sh1[t + o];
    __syncwarp(mask);
  }
  if (column_mode ? start[warp_id] < end[warp_id] : (int64_t)rownnz[warp_id] > width) {
    for (int64_t j = (int64_t)start[warp_id] + lane, e = (int64_t)end[warp_id]; j < e; j += G)
      sh2[t] += csr_val[j] * x[csr_col[j]];
    __syncwarp(mask);
    for (int o = G / 2; o > 0; o >>= 1) { /* warp-level reduction for the CSR part */
      if (lane < o) sh2[t] += sh2[t + o];
      __syncwarp(mask);
    }
  }
  if (lane == 0) cis_store_y(y, warp_id, sh1[t] + sh2[t], alpha, beta);
}

// hyb, phase-locked (large x): the rows of a block walk their ELLPACK parts
// in step, a __syncthreads() after each chunk of U*G slots, so that the
// block's rows gather x from the same column window at the same time and
// the lines of x they share are served by L1 rather than fetched from L2 once
// per row (with random columns, warps that drift apart share nothing). The
// ELLPACK trip count is the block's largest; the CSR part is not locked.
template <typename T, typename O, int G, int U>
__global__ void hyb_locked_kernel(int64_t rows, int64_t width, int column_mode,
                                  const cis_idx *__restrict__ ell_col,
                                  const T *__restrict__ ell_val,
                                  const uint32_t *__restrict__ rownnz,
                                  const O *__restrict__ start, const O *__restrict__ end,
                                  const cis_idx *__restrict__ csr_col,
                                  const T *__restrict__ csr_val, T alpha,
                                  const T *__restrict__ x, T beta, T *__restrict__ y) {
  __shared__ unsigned int block_max;
  int64_t thread_id = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  int64_t row = thread_id / G;
  int lane = (int)(thread_id % G);
  int64_t n_ell = 0, s = 0, n_csr = 0;
  T sum = 0;
  if (threadIdx.x == 0) block_max = 0;
  __syncthreads();
  if (row < rows) {
    n_ell = column_mode ? width : min((int64_t)__ldg(&rownnz[row]), width);
    s = (int64_t)__ldg(&start[row]);
    n_csr = (int64_t)__ldg(&end[row]) - s;
    if (lane == 0) atomicMax(&block_max, (unsigned int)n_ell);
  }
  __syncthreads();
  const int64_t m = block_max;
  const cis_idx *ec = ell_col + row * width;
  const T *ev = ell_val + row * width;
  for (int64_t b = lane; b - lane < m; b += (int64_t)U * G) { /* same trip count block-wide */
    hyb_chunk_sum<T, G, U>(ec, ev, n_ell, ec, ev, n_ell, b, x, sum);
    __syncthreads();
  }
  const cis_idx *cc = csr_col + s;
  const T *cv = csr_val + s;
  for (int64_t b = lane; b < n_csr; b += (int64_t)U * G)
    hyb_chunk_sum<T, G, U>(cc, cv, n_csr, cc, cv, n_csr, b, x, sum);
  sum = cis_group_sum<T, G>(sum);
  if (row < rows && lane == 0) cis_store_y(y, row, sum, alpha, beta);
}

template <typename T, typename O>
static cis_status launch_paper(const cis_hyb_dev *h, double alpha, const void *x, double beta,
                               void *y, int threads, cudaStream_t s) {
  int per_block = threads < 32 ? 1 : threads / 32;
  size_t smem = 2 * (size_t)threads * sizeof(T);
  hyb_paper_kernel<T, O><<<cis_blocks_for(h->rows, per_block), threads, smem, s>>>(
      h->rows, h->width, h->column_mode, h->ell_col, (const T *)h->ell_val, h->rownnz,
      (const O *)h->start, (const O *)h->end, h->csr_col, (const T *)h->csr_val, (T)alpha,
      (const T *)x, (T)beta, (T *)y);
  CIS_CUDA_LAUNCH_CHECK("hyb-paper");
  return CIS_OK;
}

template <typename T, typename O, int G, int U>
static cis_status launch_fast_g(const cis_hyb_dev *h, int lock, double alpha, const void *x,
                                double beta, void *y, int threads, cudaStream_t s) {
  if (lock) {
    hyb_locked_kernel<T, O, G, U><<<cis_blocks_for(h->rows, lock / G), lock, 0, s>>>(
        h->rows, h->width, h->column_mode, h->ell_col, (const T *)h->ell_val, h->rownnz,
        (const O *)h->start, (const O *)h->end, h->csr_col, (const T *)h->csr_val, (T)alpha,
        (const T *)x, (T)beta, (T *)y);
    CIS_CUDA_LAUNCH_CHECK("hyb (phase-locked)");
    return CIS_OK;
  }
  hyb_fast_tk<T, O, G, U><<<cis_blocks_for(h->rows, threads / G), threads, 0, s>>>(
      h->rows, h->width, h->column_mode, h->ell_col, (const T *)h->ell_val, h->rownnz,
      (const O *)h->start, (const O *)h->end, h->csr_col, (const T *)h->csr_val, (const T *)x,
      StoreY<T>{(T *)y, (T)alpha, (T)beta});
  CIS_CUDA_LAUNCH_CHECK("hyb");
  return CIS_OK;
}

template <typename T, typename O, int G>
static cis_status launch_fast_u(const cis_hyb_dev *h, int u, int lock, double alpha,
                                const void *x, double beta, void *y, int threads, cudaStream_t s) {
  switch (u) {
    case 1: return launch_fast_g<T, O, G, 1>(h, lock, alpha, x, beta, y, threads, s);
    case 2: return launch_fast_g<T, O, G, 2>(h, lock, alpha, x, beta, y, threads, s);
    case 8: return launch_fast_g<T, O, G, 8>(h, lock, alpha, x, beta, y, threads, s);
    default: return launch_fast_g<T, O, G, 4>(h, lock, alpha, x, beta, y, threads, s);
  }
}

// The variant, from measurements on an H200 (bench/NOTES.md): long rows
// (mean >= 48) with x larger than 1 MB (it no longer stays in L1) ->
// phase-locked, 1024 threads, G = 16; else unlocked, G from the mean row
// length (32, 16, 8; one thread per row below 12, as CSR scalar); U = 4
// loads in flight per lane. The options hyb_lock (block size,
// 0 = unlocked), hyb_g and hyb_unroll (cis_option_set) override the choice.
extern "C" void cis_hyb_fast_variant(const cis_hyb_dev *h, size_t value_bytes, int unlocked, int *lock, int *g,
                                     int *u) {
  double mean = h->rows ? (double)h->nnz / (double)h->rows : 0;
  int big_x = (double)h->cols * (double)value_bytes > 1e6;
  *lock = unlocked ? 0 : (int)cis_opt_int(CIS_OPT_HYB_LOCK, big_x && mean >= 48 ? 1024 : 0);
  *g = (int)cis_opt_int(CIS_OPT_HYB_G, *lock ? 16 : mean >= 48 ? 32 : mean >= 24 ? 16 : mean >= 12 ? 8 : 1);
  *u = (int)cis_opt_int(CIS_OPT_HYB_UNROLL, 4);
}

template <typename T, typename O>
static cis_status launch_fast(const cis_hyb_dev *h, double alpha, const void *x, double beta,
                              void *y, int threads, cudaStream_t s) {
  int lock, g, u;
  cis_hyb_fast_variant(h, sizeof(T), 0, &lock, &g, &u);
  if (lock && (lock < 32 || lock > 1024 || lock % 32))
    return cis_error(CIS_ERR_INVALID, "hyb: option hyb_lock = %d is not a block size (32..1024)", lock);
  switch (g) {
    case 1: return launch_fast_u<T, O, 1>(h, u, lock, alpha, x, beta, y, threads, s);
    case 4: return launch_fast_u<T, O, 4>(h, u, lock, alpha, x, beta, y, threads, s);
    case 8: return launch_fast_u<T, O, 8>(h, u, lock, alpha, x, beta, y, threads, s);
    case 16: return launch_fast_u<T, O, 16>(h, u, lock, alpha, x, beta, y, threads, s);
    default: return launch_fast_u<T, O, 32>(h, u, lock, alpha, x, beta, y, threads, s);
  }
}

extern "C" cis_status cis_launch_hyb_paper(const cis_hyb_dev *h, double alpha, const void *x,
                                           double beta, void *y, int block, cudaStream_t s) {
  CIS_BLOCK_OR(block, 128, 16, "hyb-paper");
  if (threads_ != 16 && threads_ % 32)
    return cis_error(CIS_ERR_INVALID, "hyb-paper: block size %d must be 16 or a multiple of 32",
                     threads_);
  if (h->rows == 0) return CIS_OK;
  CIS_DISPATCH_REAL(h->t, {
    return h->wide ? launch_paper<REAL, int64_t>(h, alpha, x, beta, y, threads_, s)
                   : launch_paper<REAL, uint32_t>(h, alpha, x, beta, y, threads_, s);
  });
  return CIS_OK;
}

extern "C" cis_status cis_launch_hyb_fast(const cis_hyb_dev *h, double alpha, const void *x,
                                          double beta, void *y, int block, cudaStream_t s) {
  CIS_BLOCK_OR(block, 256, 32, "hyb");
  if (h->rows == 0) return CIS_OK;
  CIS_DISPATCH_REAL(h->t, {
    return h->wide ? launch_fast<REAL, int64_t>(h, alpha, x, beta, y, threads_, s)
                   : launch_fast<REAL, uint32_t>(h, alpha, x, beta, y, threads_, s);
  });
  return CIS_OK;
}
