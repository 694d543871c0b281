// sym_seg_build.cu: the sym-seg layout (src/formats/sym_seg.h) laid out on
// the GPU from a device upper triangle, byte for byte the layout of the host
// builder (src/formats/sym_seg.c, its CPU reference), so that a matrix built
// on the GPU never leaves it. The host builder counting-sorts each block's
// strict-upper entries by column, keeping row order; here one stable radix
// sort does that for a batch of blocks (Merrill and Grimshaw, "High
// Performance and Scalable Radix Sorting", Parallel Processing Letters 2011:
// CUB's DeviceRadixSort) on the keys (block in the batch, column), the
// entries' positions carried along:
//
//   rows:   check every row, copy the diagonal, count each block's strict
//           entries                                     (a warp per row)
//   keys:   (block - b0, column) per entry; the diagonal's sort last
//   sort:   stable radix sort of (key, position)                  (CUB)
//   heads:  1 where a key differs from the one before (a new segment);
//           their inclusive sum numbers the segments             (CUB)
//   fill:   lr (row in block | head), values, segment columns
//   pad:    each block's tail up to a whole piece
//   pieces: piece_heads, then each piece's bank order
//           (sym_seg_balance.h, the host's own function)
//   bound:  each block's largest row sum of |a|, the terms added in the
//           host's order (the segment's rows ascending, then the row's own
//           entries), so the fixed-point scale is the host's too
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include "cisparse/types.h"
#include "formats/sym_seg.h"
#include "formats/sym_seg_balance.h"
#include "kernels/kernel_common.cuh"

// the batch-local shape of one block (host-computed, uploaded per batch)
struct seg_batch_block {
  int64_t e0;     // first entry of the block in the layout
  int64_t start;  // first sorted position of the block in the batch
  int64_t count;  // strict entries
  int64_t pieces; // first piece (block_piece[b])
};

__device__ __forceinline__ double seg_abs(const void *val, int f64, int64_t k) {
  return f64 ? fabs(((const double *)val)[k]) : fabs((double)((const float *)val)[k]);
}

// A warp per row: the first bad row (1-based) into *bad (atomicMin), the
// diagonal into diag, the strict entries of each block into count[b].
__global__ void seg_rows_kernel(const int64_t *__restrict__ rowptr, const cis_idx *__restrict__ col,
                                const void *__restrict__ val, int f64, int64_t n, int64_t R, void *diag,
                                unsigned long long *count, unsigned long long *bad) {
  const int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= n) return;
  const int64_t s = rowptr[w], e = rowptr[w + 1];
  unsigned long long strict = 0;
  int wrong = 0;
  for (int64_t k = s + lane; k < e; k += 32) {
    const int64_t j = col[k];
    if (j < w || j >= n || (k > s && j <= (int64_t)col[k - 1])) {
      wrong = 1;
      continue;
    }
    if (j == w) {
      if (f64) ((double *)diag)[w] = ((const double *)val)[k];
      else ((float *)diag)[w] = ((const float *)val)[k];
    } else {
      ++strict;
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    strict += __shfl_down_sync(0xffffffffu, strict, o);
    wrong |= __shfl_down_sync(0xffffffffu, wrong, o);
  }
  if (lane == 0) {
    if (strict) atomicAdd(count + w / R, strict);
    if (wrong) atomicMin(bad, (unsigned long long)(w + 1));
  }
}

// A warp per row of the batch (rows i0 .. i1-1, entries from K0): the key
// (block - b0) << colbits | column, the diagonal's `last`; the position k - K0.
__global__ void seg_keys_kernel(const int64_t *__restrict__ rowptr, const cis_idx *__restrict__ col, int64_t i0,
                                int64_t i1, int64_t K0, int64_t R, int64_t b0, int colbits, uint64_t last,
                                uint64_t *key, uint32_t *pos) {
  const int64_t i = i0 + (((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  const int lane = threadIdx.x & 31;
  if (i >= i1) return;
  const uint64_t hi = (uint64_t)(i / R - b0) << colbits;
  for (int64_t k = rowptr[i] + lane; k < rowptr[i + 1]; k += 32) {
    const int64_t j = col[k];
    key[k - K0] = j == i ? last : hi | (uint64_t)j;
    pos[k - K0] = (uint32_t)(k - K0);
  }
}

__global__ void seg_heads_kernel(const uint64_t *__restrict__ key, int64_t m, int32_t *head) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < m; p += stride)
    head[p] = p == 0 || key[p] != key[p - 1];
}

// The last row r in [lo, hi) with rowptr[r] <= k.
__device__ __forceinline__ int64_t seg_row_of(const int64_t *__restrict__ rowptr, int64_t lo, int64_t hi, int64_t k) {
  while (hi - lo > 1) {
    const int64_t m = lo + (hi - lo) / 2;
    if (rowptr[m] <= k) lo = m;
    else hi = m;
  }
  return lo;
}

// Sorted position p (< m, the batch's strict entries) to its place.
__global__ void seg_fill_kernel(const uint64_t *__restrict__ key, const uint32_t *__restrict__ pos,
                                const int32_t *__restrict__ head, const int32_t *__restrict__ segno,
                                const seg_batch_block *__restrict__ bb, const int64_t *__restrict__ rowptr,
                                const void *__restrict__ val, int f64, int64_t m, int64_t n, int64_t R, int64_t b0,
                                int64_t K0, int colbits, int64_t segbase, uint16_t *lr, void *oval, cis_idx *segcol) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const uint64_t cmask = ((uint64_t)1 << colbits) - 1;
  for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < m; p += stride) {
    const uint64_t kk = key[p];
    const int64_t bl = (int64_t)(kk >> colbits), j = (int64_t)(kk & cmask), k = K0 + pos[p];
    const int64_t i0 = (b0 + bl) * R, i1 = i0 + R < n ? i0 + R : n;
    const int64_t i = seg_row_of(rowptr, i0, i1, k);
    const int64_t q = bb[bl].e0 + (p - bb[bl].start);
    lr[q] = (uint16_t)((i - i0) | (head[p] ? CIS_SYM_SEG_HEAD : 0u));
    if (f64) ((double *)oval)[q] = ((const double *)val)[k];
    else ((float *)oval)[q] = ((const float *)val)[k];
    if (head[p]) segcol[segbase + segno[p] - 1] = (cis_idx)j;
  }
}

// A thread block per block of the batch: its padding, its pieces' heads
// (heads in all entries before the piece: segbase + the inclusive count at
// its first entry less that entry's own), then each piece's bank order.
// Blocks of the batch own disjoint pieces: no thread reads another's.
__global__ void seg_pieces_kernel(const seg_batch_block *__restrict__ bb, const int32_t *__restrict__ head,
                                  const int32_t *__restrict__ segno, int64_t segbase, int64_t nb, int f64,
                                  uint16_t *lr, void *oval, int64_t *piece_heads) {
  const int64_t bl = blockIdx.x;
  if (bl >= nb) return;
  const size_t vs = f64 ? 8 : 4;
  const seg_batch_block B = bb[bl];
  const int64_t np = (B.count + CIS_SYM_SEG_PIECE - 1) / CIS_SYM_SEG_PIECE;
  for (int64_t q = B.e0 + B.count + threadIdx.x; q < B.e0 + np * CIS_SYM_SEG_PIECE; q += blockDim.x) {
    lr[q] = CIS_SYM_SEG_PAD;
    if (f64) ((double *)oval)[q] = 0.0;
    else ((float *)oval)[q] = 0.0f;
  }
  __syncthreads();
  for (int64_t t = threadIdx.x; t < np; t += blockDim.x) {
    const int64_t s = B.start + t * CIS_SYM_SEG_PIECE;
    piece_heads[B.pieces + t] = segbase + segno[s] - head[s];
    const int64_t q0 = B.e0 + t * CIS_SYM_SEG_PIECE;
    cis_sym_seg_piece_balance(lr + q0, (char *)oval + (size_t)q0 * vs, vs);
  }
}

// A thread block per block of the batch: each row's sum of |a| in the
// host's order (its segment in the block's sorted entries: mirror terms,
// rows ascending; then the row's strict entries: forward terms), the
// largest into bound[b0 + bl], a NaN sticking as on the host.
__global__ void seg_bound_kernel(const uint64_t *__restrict__ key, const uint32_t *__restrict__ pos,
                                 const seg_batch_block *__restrict__ bb, const int64_t *__restrict__ rowptr,
                                 const cis_idx *__restrict__ col, const void *__restrict__ val, int f64, int64_t nb,
                                 int64_t n, int64_t R, int64_t b0, int64_t K0, int colbits, double *bound) {
  __shared__ double red[256];
  const int64_t bl = blockIdx.x;
  if (bl >= nb) return;
  const seg_batch_block B = bb[bl];
  const int64_t i0 = (b0 + bl) * R, i1 = i0 + R < n ? i0 + R : n;
  double best = 0.0;
  for (int64_t w = i0 + threadIdx.x; w < i1; w += blockDim.x) {
    const uint64_t want = ((uint64_t)bl << colbits) | (uint64_t)w;
    int64_t lo = B.start, hi = B.start + B.count; // first sorted key >= want
    while (lo < hi) {
      const int64_t m = lo + (hi - lo) / 2;
      if (key[m] < want) lo = m + 1;
      else hi = m;
    }
    double sum = 0.0;
    for (int64_t p = lo; p < B.start + B.count && key[p] == want; ++p) sum += seg_abs(val, f64, K0 + pos[p]);
    for (int64_t k = rowptr[w]; k < rowptr[w + 1]; ++k)
      if ((int64_t)col[k] != w) sum += seg_abs(val, f64, k);
    best = sum > best || isnan(sum) ? sum : best;
  }
  red[threadIdx.x] = best;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) {
      const double a = red[threadIdx.x], b = red[threadIdx.x + o];
      red[threadIdx.x] = isnan(a) || isnan(b) ? (isnan(a) ? a : b) : (b > a ? b : a);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) bound[b0 + bl] = red[0];
}

extern "C" cis_status cis_launch_sym_seg_rows(const int64_t *rowptr, const cis_idx *col, const void *val,
                                              cis_dtype t, cis_int n, cis_int R, void *diag,
                                              unsigned long long *count, unsigned long long *bad, cudaStream_t s) {
  if (n <= 0) return CIS_OK;
  seg_rows_kernel<<<cis_blocks_for(n * 32, 256), 256, 0, s>>>(rowptr, col, val, t == CIS_F64, n, R, diag, count,
                                                                   bad);
  CIS_CUDA_LAUNCH_CHECK("seg_rows_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_sym_seg_keys(const int64_t *rowptr, const cis_idx *col, cis_int i0, cis_int i1,
                                              cis_int K0, cis_int R, cis_int b0, int colbits, uint64_t last,
                                              uint64_t *key, uint32_t *pos, cudaStream_t s) {
  if (i1 <= i0) return CIS_OK;
  seg_keys_kernel<<<cis_blocks_for((i1 - i0) * 32, 256), 256, 0, s>>>(rowptr, col, i0, i1, K0, R, b0, colbits,
                                                                           last, key, pos);
  CIS_CUDA_LAUNCH_CHECK("seg_keys_kernel");
  return CIS_OK;
}

// The stable sort of m (key, position) pairs on bits [0, end_bit), in the
// double buffers (key[0], key[1]) and (pos[0], pos[1]); *sel: the buffer
// holding the result. temp NULL: *temp_bytes = the scratch it needs.
extern "C" cis_status cis_launch_sym_seg_sort(void *temp, size_t *temp_bytes, uint64_t *key0, uint64_t *key1,
                                              uint32_t *pos0, uint32_t *pos1, cis_int m, int end_bit, int *sel,
                                              cudaStream_t s) {
  cub::DoubleBuffer<uint64_t> k(key0, key1);
  cub::DoubleBuffer<uint32_t> v(pos0, pos1);
  CIS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, k, v, (int64_t)m, 0, end_bit, s));
  if (sel) *sel = k.selector;
  return CIS_OK;
}

extern "C" cis_status cis_launch_sym_seg_heads(void *temp, size_t *temp_bytes, const uint64_t *key, cis_int m,
                                               int32_t *head, int32_t *segno, cudaStream_t s) {
  if (temp && m > 0) {
    seg_heads_kernel<<<cis_blocks_for(m, 256), 256, 0, s>>>(key, m, head);
    CIS_CUDA_LAUNCH_CHECK("seg_heads_kernel");
  }
  if (m <= 0) {
    if (!temp) *temp_bytes = 0;
    return CIS_OK;
  }
  CIS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, *temp_bytes, head, segno, (int64_t)m, s));
  return CIS_OK;
}

extern "C" cis_status cis_launch_sym_seg_fill(const uint64_t *key, const uint32_t *pos, const int32_t *head,
                                              const int32_t *segno, const void *bb, const int64_t *rowptr,
                                              const cis_idx *col, const void *val, cis_dtype t, cis_int m,
                                              cis_int nb, cis_int n, cis_int R, cis_int b0, cis_int K0, int colbits,
                                              cis_int segbase, uint16_t *lr, void *oval, cis_idx *segcol,
                                              int64_t *piece_heads, double *bound, cudaStream_t s) {
  const seg_batch_block *B = (const seg_batch_block *)bb;
  const int f64 = t == CIS_F64;
  if (m > 0) {
    seg_fill_kernel<<<cis_blocks_for(m, 256), 256, 0, s>>>(key, pos, head, segno, B, rowptr, val, f64, m, n, R, b0, K0,
                                                     colbits, segbase, lr, oval, segcol);
    CIS_CUDA_LAUNCH_CHECK("seg_fill_kernel");
  }
  if (nb <= 0) return CIS_OK;
  seg_pieces_kernel<<<(unsigned)nb, 256, 0, s>>>(B, head, segno, segbase, nb, f64, lr, oval, piece_heads);
  CIS_CUDA_LAUNCH_CHECK("seg_pieces_kernel");
  seg_bound_kernel<<<(unsigned)nb, 256, 0, s>>>(key, pos, B, rowptr, col, val, f64, nb, n, R, b0, K0, colbits, bound);
  CIS_CUDA_LAUNCH_CHECK("seg_bound_kernel");
  return CIS_OK;
}

extern "C" size_t cis_sym_seg_batch_block_bytes(void) { return sizeof(seg_batch_block); }
