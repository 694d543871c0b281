// csr5.cu: CSR5 SpMV on the GPU (Liu & Vinter, "CSR5: An Efficient Storage
// Format for Cross-Platform Sparse Matrix-Vector Multiplication", ICS 2015,
// Sec. 4): one warp per tile — each lane sums its sigma entries cut at the
// bit flags, the fast segmented sum over seg_offset joins a lane's last
// segment to the following lanes, rows come from y_offset (and empty_offset
// in tiles holding empty rows); a second kernel calibrates the rows that
// cross tile boundaries and a third does the tail as CSR (warp per row).
// The layout is documented in src/formats/csr5.h; the CPU reference that
// walks it the same way is src/formats/csr5_spmv.c.
#include "kernels/kernel_common.cuh"
#include "kernels/csr5_kernels.h"

namespace {

constexpr int kOmega = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr uint32_t kEmptyFlag = 0x80000000u, kRowMask = 0x7fffffffu;
constexpr int kCalibrateBlock = 256;

template <typename O>
__device__ __forceinline__ int64_t offset_at(const O *p, int64_t i) {
  return (int64_t)__ldg(p + i);
}

// *y = alpha*s + beta*(*y); beta == 0 overwrites without reading y (NaN in y
// must not survive, and the load is saved).
template <typename T>
__device__ __forceinline__ void scale_add(T *y, T alpha, T s, T beta) {
  *y = beta == T(0) ? alpha * s : alpha * s + beta * *y;
}

// One warp per tile t. Segment k of the tile is row tile_row + k, or
// empty_offset[empty_ptr[t] + k] when the tile holds empty rows; the writer
// of a row then also writes the empty rows just before it. Segment 0 of a
// tile that continues a row (bit 0 of lane 0 clear) goes to calibrator[t].
template <typename T, typename O>
__global__ void csr5_tile_kernel(int64_t ntiles, int sigma, const O *__restrict__ rowptr,
                                 const uint32_t *__restrict__ tile_ptr, const uint32_t *__restrict__ bit_flag,
                                 const uint16_t *__restrict__ y_offset, const uint8_t *__restrict__ seg_offset,
                                 const O *__restrict__ empty_ptr, const int32_t *__restrict__ empty_offset,
                                 const int32_t *__restrict__ col, const T *__restrict__ val,
                                 const T *__restrict__ x, T alpha, T beta, T *__restrict__ y,
                                 T *__restrict__ calibrator) {
  const int lane = threadIdx.x & (kOmega - 1);
  const int64_t t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kOmega;
  if (t >= ntiles) return;  // the whole warp leaves together

  const uint32_t tp = __ldg(tile_ptr + t);
  const bool has_empty = (tp & kEmptyFlag) != 0;
  const int64_t row0 = tp & kRowMask;
  uint32_t bits = __ldg(bit_flag + t * kOmega + lane);
  const bool starts_row = __shfl_sync(kFullMask, bits, 0) & 1u;
  if (lane == 0) bits |= 1u;  // segment 0 always opens at the tile's first entry
  int seg = __ldg(y_offset + t * kOmega + lane);
  const int follow = __ldg(seg_offset + t * kOmega + lane);
  const int64_t eptr = has_empty ? offset_at(empty_ptr, t) : 0;

  auto emit = [&](int k, T s) {
    if (k == 0 && !starts_row) {
      calibrator[t] = s;
      return;
    }
    const int64_t row = has_empty ? (int64_t)__ldg(empty_offset + eptr + k) : row0 + k;
    scale_add(y + row, alpha, s, beta);
    if (has_empty) {
      const int64_t start = offset_at(rowptr, row);
      for (int64_t q = row - 1; q >= 0 && offset_at(rowptr, q) == start; --q)
        y[q] = beta == T(0) ? T(0) : beta * y[q];
    }
  };

  // 1. the lane's partial sums, cut at its row starts
  const int64_t base = t * (int64_t)kOmega * sigma + lane;
  bool started = bits & 1u;
  T cur = 0, head = 0;
  for (int i = 0; i < sigma; ++i) {
    if (i > 0 && ((bits >> i) & 1u)) {
      if (started) emit(seg, cur);  // a segment wholly inside the lane
      else { head = cur; started = true; }
      ++seg;
      cur = 0;
    }
    const int64_t k = base + (int64_t)i * kOmega;
    cur += __ldg(val + k) * __ldg(x + __ldg(col + k));
  }
  if (!started) head = cur;

  // 2. fast segmented sum: inclusive scan of the heads; a lane's last segment
  //    gets the heads of the `follow` start-less lanes after it and of the
  //    next starting lane.
  T scan = head;
#pragma unroll
  for (int d = 1; d < kOmega; d <<= 1) {
    const T v = __shfl_up_sync(kFullMask, scan, d);
    if (lane >= d) scan += v;
  }
  const int to = min(lane + 1 + follow, kOmega - 1);
  const T carry = __shfl_sync(kFullMask, scan, to) - scan;
  if (started) emit(seg, cur + carry);
}

// Calibration: y[row] += alpha * calibrator[t] for every tile t continuing a
// row. Consecutive tiles of one row are summed by the first of them in the
// block; a run touching a block edge may be shared with the next block and
// is added atomically.
template <typename T>
__global__ void csr5_calibrate_kernel(int64_t ntiles, const uint32_t *__restrict__ tile_ptr,
                                      const uint32_t *__restrict__ bit_flag, const T *__restrict__ calibrator,
                                      T alpha, T *__restrict__ y) {
  __shared__ int64_t s_row[kCalibrateBlock];
  __shared__ T s_cal[kCalibrateBlock];
  const int tid = threadIdx.x;
  const int64_t t = (int64_t)blockIdx.x * kCalibrateBlock + tid;
  const bool continues = t < ntiles && !(__ldg(bit_flag + t * kOmega) & 1u);
  s_row[tid] = continues ? (int64_t)(__ldg(tile_ptr + t) & kRowMask) : -1;
  s_cal[tid] = continues ? calibrator[t] : T(0);
  __syncthreads();
  if (!continues || (tid > 0 && s_row[tid - 1] == s_row[tid])) return;
  const int64_t row = s_row[tid];
  T sum = 0;
  int j = tid;
  while (j < kCalibrateBlock && s_row[j] == row) sum += s_cal[j++];
  if (tid == 0 || j == kCalibrateBlock) atomicAdd(y + row, alpha * sum);
  else y[row] += alpha * sum;
}

// The tail as CSR, one warp per row from first_row; a row that started in
// the last tile adds its tail part, the others are written.
template <typename T, typename O>
__global__ void csr5_tail_kernel(int64_t first_row, int64_t rows, int64_t tail_start,
                                 const O *__restrict__ rowptr, const int32_t *__restrict__ col,
                                 const T *__restrict__ val, const T *__restrict__ x, T alpha, T beta,
                                 T *__restrict__ y) {
  const int lane = threadIdx.x & (kOmega - 1);
  const int64_t r = first_row + ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / kOmega;
  if (r >= rows) return;
  const int64_t lo = offset_at(rowptr, r), hi = offset_at(rowptr, r + 1);
  const bool continues = lo < tail_start;
  T sum = 0;
  for (int64_t k = (continues ? tail_start : lo) + lane; k < hi; k += kOmega)
    sum += __ldg(val + k) * __ldg(x + __ldg(col + k));
#pragma unroll
  for (int d = kOmega / 2; d > 0; d >>= 1) sum += __shfl_xor_sync(kFullMask, sum, d);
  if (lane != 0) return;
  if (continues) y[r] += alpha * sum;
  else scale_add(y + r, alpha, sum, beta);
}

unsigned blocks_for(int64_t threads, int block) { return (unsigned)((threads + block - 1) / block); }

template <typename T, typename O>
cis_status launch(const cis_csr5_device_arrays *A, int block, T alpha, const T *x, T beta, T *y,
                  cudaStream_t s) {
  const O *rowptr = static_cast<const O *>(A->rowptr);
  const T *val = static_cast<const T *>(A->val);
  T *cal = static_cast<T *>(A->calibrator);
  if (A->ntiles > 0) {
    csr5_tile_kernel<T, O><<<blocks_for(A->ntiles * kOmega, block), block, 0, s>>>(
        A->ntiles, A->sigma, rowptr, A->tile_ptr, A->bit_flag, A->y_offset, A->seg_offset,
        static_cast<const O *>(A->empty_ptr), A->empty_offset, A->col, val, x, alpha, beta, y, cal);
    CIS_CUDA_LAUNCH_CHECK("csr5_tile_kernel");
    csr5_calibrate_kernel<T><<<blocks_for(A->ntiles, kCalibrateBlock), kCalibrateBlock, 0, s>>>(
        A->ntiles, A->tile_ptr, A->bit_flag, cal, alpha, y);
    CIS_CUDA_LAUNCH_CHECK("csr5_calibrate_kernel");
  }
  const int64_t tail_rows = A->rows - A->tail_first_row;
  if (tail_rows > 0) {
    csr5_tail_kernel<T, O><<<blocks_for(tail_rows * kOmega, block), block, 0, s>>>(
        A->tail_first_row, A->rows, A->tail_start, rowptr, A->col, val, x, alpha, beta, y);
    CIS_CUDA_LAUNCH_CHECK("csr5_tail_kernel");
  }
  return CIS_OK;
}

template <typename T>
cis_status dispatch(const cis_csr5_device_arrays *A, int block, T alpha, const T *x, T beta, T *y,
                    cis_stream s) {
  if (block == 0) block = 256;
  if (block < kOmega || block > 1024 || block % kOmega)
    return cis_error(CIS_ERR_INVALID, "csr5 kernel: block size %d is not a multiple of 32 in 32..1024", block);
  if (A->sigma < 1 || A->sigma > 32)
    return cis_error(CIS_ERR_INVALID, "csr5 kernel: sigma %d out of range 1..32", A->sigma);
  cudaStream_t st = static_cast<cudaStream_t>(s);
  return A->wide_offsets ? launch<T, int64_t>(A, block, alpha, x, beta, y, st)
                         : launch<T, uint32_t>(A, block, alpha, x, beta, y, st);
}

}  // namespace

extern "C" cis_status cis_csr5_spmv_f64(const cis_csr5_device_arrays *A, int block, double alpha,
                                        const double *d_x, double beta, double *d_y, cis_stream s) {
  return dispatch<double>(A, block, alpha, d_x, beta, d_y, s);
}

extern "C" cis_status cis_csr5_spmv_f32(const cis_csr5_device_arrays *A, int block, float alpha,
                                        const float *d_x, float beta, float *d_y, cis_stream s) {
  return dispatch<float>(A, block, alpha, d_x, beta, d_y, s);
}
