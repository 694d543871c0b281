// dist_split.cu: one part's rows, built on its GPU, split there into the
// local (diagonal) block and the remote block with its needed-column list
// (PETSc MatSetUpMultiply_MPIAIJ's garray; Ginkgo
// distributed::Matrix::read_distributed's non-local column map), the
// device form of partition.c's split_core (its CPU reference). The rows
// come with their columns ascending, so in row i the local columns
// r0 <= j < r1 are one run [lo, hi) and the upper triangle's one run
// [ld, hi) with ld the first column >= r0 + i: every position follows from
// three binary searches, no atomics.
//
//   1. mark:   mark[j] = 1 for every remote column j       (per entry)
//   2. count:  local and remote entries per row, the diagonal   (per row)
//   3. scans:  row pointers of both blocks; pos = inclusive sum of mark
//   4. needed: needed[pos[j] - 1] = j for each marked j   (ascending, unique)
//   5. fill:   local (column - r0) and remote (column -> pos[j] - 1) blocks
//              (a warp per row, the lanes over its entries)
#include <cub/device/device_scan.cuh>
#include "cisparse/types.h"
#include "kernels/kernel_common.cuh"

// First position p in [b, e) with col[p] >= v (e if none).
__device__ __forceinline__ int64_t first_at_least(const cis_idx *__restrict__ col, int64_t b, int64_t e, int64_t v) {
  while (b < e) {
    int64_t m = b + (e - b) / 2;
    if ((int64_t)col[m] < v) b = m + 1;
    else e = m;
  }
  return b;
}

__global__ void split_mark_kernel(const cis_idx *__restrict__ col, int64_t nnz, int64_t r0, int64_t r1,
                                  int32_t *mark) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride) {
    int64_t j = col[k];
    if (j < r0 || j >= r1) mark[j] = 1; /* the same value from every writer */
  }
}

// lcount[i] / rcount[i]: the row's local (upper: from its diagonal on) and
// remote entries; diag[i]: its diagonal value, 0 when absent.
__global__ void split_count_kernel(const int64_t *__restrict__ rowptr, const cis_idx *__restrict__ col,
                                   const double *__restrict__ val, int64_t rows, int64_t r0, int64_t r1, int upper,
                                   int64_t *lcount, int64_t *rcount, double *diag) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const int64_t s = rowptr[i], e = rowptr[i + 1];
  const int64_t lo = first_at_least(col, s, e, r0), hi = first_at_least(col, lo, e, r1);
  const int64_t dp = first_at_least(col, lo, hi, r0 + i), ld = upper ? dp : lo;
  lcount[i] = hi - ld;
  rcount[i] = (e - s) - (hi - lo);
  diag[i] = dp < hi && (int64_t)col[dp] == r0 + i ? val[dp] : 0.0;
}

__global__ void split_needed_kernel(const int32_t *__restrict__ mark, const int32_t *__restrict__ pos, int64_t n,
                                    cis_idx *needed) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
    if (mark[j]) needed[pos[j] - 1] = (cis_idx)j;
}

#define SPLIT_FILL_THREADS 256

__global__ void split_fill_kernel(const int64_t *__restrict__ rowptr, const cis_idx *__restrict__ col,
                                  const double *__restrict__ val, int64_t rows, int64_t r0, int64_t r1, int upper,
                                  const int32_t *__restrict__ pos, const int64_t *__restrict__ lptr,
                                  const int64_t *__restrict__ rptr, cis_idx *lcol, double *lval, cis_idx *rcol,
                                  double *rval) {
  const int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (i >= rows) return; /* the whole warp leaves together: i is the same for its lanes */
  const int64_t s = rowptr[i], e = rowptr[i + 1];
  int64_t lo = 0, hi = 0, ld = 0;
  if (lane == 0) {
    lo = first_at_least(col, s, e, r0);
    hi = first_at_least(col, lo, e, r1);
    ld = upper ? first_at_least(col, lo, hi, r0 + i) : lo;
  }
  lo = __shfl_sync(0xffffffffu, lo, 0);
  hi = __shfl_sync(0xffffffffu, hi, 0);
  ld = __shfl_sync(0xffffffffu, ld, 0);
  for (int64_t p = s + lane; p < e; p += 32) {
    const int64_t j = col[p];
    if (p >= ld && p < hi) {
      const int64_t q = lptr[i] + (p - ld);
      lcol[q] = (cis_idx)(j - r0);
      lval[q] = val[p];
    } else if (p < lo || p >= hi) {
      const int64_t q = rptr[i] + (p < lo ? p - s : p - s - (hi - lo));
      rcol[q] = (cis_idx)(pos[j] - 1);
      rval[q] = val[p];
    } /* else: a local entry below the diagonal, dropped from the upper triangle */
  }
}

extern "C" cis_status dist_launch_split_mark(const cis_idx *col, cis_int nnz, cis_int r0, cis_int r1, cis_int n,
                                             int32_t *mark, cudaStream_t s) {
  if (n > 0) CIS_CUDA_CHECK(cudaMemsetAsync(mark, 0, (size_t)n * sizeof(int32_t), s));
  if (nnz <= 0) return CIS_OK;
  unsigned grid = cis_blocks_for(nnz, 256);
  if (grid > 65536) grid = 65536;
  split_mark_kernel<<<grid, 256, 0, s>>>(col, nnz, r0, r1, mark);
  CIS_CUDA_LAUNCH_CHECK("split_mark_kernel");
  return CIS_OK;
}

extern "C" cis_status dist_launch_split_count(const int64_t *rowptr, const cis_idx *col, const double *val,
                                              cis_int rows, cis_int r0, cis_int r1, int upper, int64_t *lptr,
                                              int64_t *rptr, double *diag, cudaStream_t s) {
  CIS_CUDA_CHECK(cudaMemsetAsync(lptr, 0, sizeof(int64_t), s));
  CIS_CUDA_CHECK(cudaMemsetAsync(rptr, 0, sizeof(int64_t), s));
  if (rows <= 0) return CIS_OK;
  split_count_kernel<<<cis_blocks_for(rows, 256), 256, 0, s>>>(rowptr, col, val, rows, r0, r1, upper, lptr + 1,
                                                               rptr + 1, diag);
  CIS_CUDA_LAUNCH_CHECK("split_count_kernel");
  return CIS_OK;
}

extern "C" cis_status dist_launch_scan_i64(void *temp, size_t *temp_bytes, int64_t *data, cis_int n, cudaStream_t s) {
  if (n <= 0) {
    if (!temp) *temp_bytes = 0;
    return CIS_OK;
  }
  CIS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, *temp_bytes, data, data, (int64_t)n, s));
  return CIS_OK;
}

extern "C" cis_status dist_launch_scan_i32(void *temp, size_t *temp_bytes, const int32_t *in, int32_t *out, cis_int n,
                                           cudaStream_t s) {
  if (n <= 0) {
    if (!temp) *temp_bytes = 0;
    return CIS_OK;
  }
  CIS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, *temp_bytes, in, out, (int64_t)n, s));
  return CIS_OK;
}

extern "C" cis_status dist_launch_split_needed(const int32_t *mark, const int32_t *pos, cis_int n, cis_idx *needed,
                                               cudaStream_t s) {
  if (n <= 0) return CIS_OK;
  unsigned grid = cis_blocks_for(n, 256);
  if (grid > 65536) grid = 65536;
  split_needed_kernel<<<grid, 256, 0, s>>>(mark, pos, n, needed);
  CIS_CUDA_LAUNCH_CHECK("split_needed_kernel");
  return CIS_OK;
}

extern "C" cis_status dist_launch_split_fill(const int64_t *rowptr, const cis_idx *col, const double *val,
                                             cis_int rows, cis_int r0, cis_int r1, int upper, const int32_t *pos,
                                             const int64_t *lptr, const int64_t *rptr, cis_idx *lcol, double *lval,
                                             cis_idx *rcol, double *rval, cudaStream_t s) {
  if (rows <= 0) return CIS_OK;
  split_fill_kernel<<<cis_blocks_for(rows * 32, SPLIT_FILL_THREADS), SPLIT_FILL_THREADS, 0, s>>>(
      rowptr, col, val, rows, r0, r1, upper, pos, lptr, rptr, lcol, lval, rcol, rval);
  CIS_CUDA_LAUNCH_CHECK("split_fill_kernel");
  return CIS_OK;
}

// The upper-triangle rows r0..r0+rows-1 of a part (cis_dist_matrix_create_
// upper_rows) made the square trailing matrix of the whole vectors' m values
// from position `at` on, in place: row pointers past the part's rows repeat
// the last one, diag[i] the row's first entry when it is the diagonal (else
// 0), *bad the first row holding a column below its diagonal (ULLONG_MAX:
// none; its columns ascend, so its first entry tells), then every column j
// moved to its position in the whole vectors less `at` (owner q's rows at
// q * max_rows; a second pass over the entries, coalesced). CPU
// reference: upper_slice_host (dist_upper.c).
__global__ void upper_slice_rows_kernel(const int64_t *__restrict__ rowptr, int64_t rows, int64_t m, int64_t r0,
                                        const cis_idx *__restrict__ col, const double *__restrict__ val,
                                        int64_t *ptr_out, double *diag, unsigned long long *bad) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i <= m; i += stride) {
    ptr_out[i] = rowptr[i < rows ? i : rows];
    if (i >= rows) continue;
    const int64_t b = rowptr[i], e = rowptr[i + 1];
    diag[i] = b < e && (int64_t)col[b] == r0 + i ? val[b] : 0.0;
    if (b < e && (int64_t)col[b] < r0 + i) atomicMin(bad, (unsigned long long)i);
  }
}

__global__ void upper_slice_cols_kernel(cis_idx *col, int64_t nnz, const int64_t *__restrict__ row_start, int parts,
                                        int64_t max_rows, int64_t at) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += stride) {
    const int64_t j = col[k];
    int lo = 0, hi = parts - 1; /* dist_gathered_at (partition.h): the owner, the last start <= j */
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (row_start[mid] <= j) lo = mid;
      else hi = mid - 1;
    }
    col[k] = (cis_idx)((int64_t)lo * max_rows + (j - row_start[lo]) - at);
  }
}

extern "C" cis_status dist_launch_upper_slice(const int64_t *rowptr, cis_int rows, cis_int m, cis_int r0, cis_idx *col,
                                              int64_t nnz, const double *val, const int64_t *row_start, int parts,
                                              int64_t max_rows, int64_t at, int64_t *ptr_out,
                                              double *diag, unsigned long long *bad, cudaStream_t s) {
  CIS_CUDA_CHECK(cudaMemsetAsync(bad, 0xff, sizeof *bad, s));
  unsigned grid = cis_blocks_for(m + 1, 256);
  if (grid > 65536) grid = 65536;
  upper_slice_rows_kernel<<<grid, 256, 0, s>>>(rowptr, rows, m, r0, col, val, ptr_out, diag, bad);
  CIS_CUDA_LAUNCH_CHECK("upper_slice_rows_kernel");
  if (nnz <= 0) return CIS_OK;
  grid = cis_blocks_for(nnz, 256);
  if (grid > 65536) grid = 65536;
  upper_slice_cols_kernel<<<grid, 256, 0, s>>>(col, nnz, row_start, parts, max_rows, at);
  CIS_CUDA_LAUNCH_CHECK("upper_slice_cols_kernel");
  return CIS_OK;
}
