// ci_build.cu: the determinant CI Hamiltonian built on the device, one thread
// per row (determinant). Each row's connected determinants are generated from
// its own single and double excitations and looked up in the space (string
// hash tables + the per-alpha-string beta lists), the elements by the
// Slater-Condon rules (Szabo & Ostlund, "Modern Quantum Chemistry", §2.3.3,
// Tables 2.3-2.4) with the fermionic sign (-1)^(occupied orbitals strictly
// between i and a). gen_row is src/ci/hamiltonian.c's gen_row for one thread
// (same excitations, same exact-zero tests); the elements and lookups are
// src/ci/ci_rules.h, the very code the host runs, so the matrix is the host
// one bit for bit. Ordering of the space: Mahmoud, Hoffmann, Reza 2018 §2.2. Two passes (count, fill) around
// a CUB prefix sum; rows are sorted by column with CUB's segmented sort.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include "ci/ci_rules.h"
#include "ci/gpu/ci_build.h"
#include "kernels/kernel_common.cuh"

// Beta single excitations of a row whose string positions are kept (the rest
// are looked up again when the alpha-beta doubles need them).
#define CI_BCACHE 128

typedef cis_ci_build_dev dev_t_;

__device__ __forceinline__ int64_t alpha_pos(const dev_t_ &d, uint64_t s) {
  return ci_string_find(d.astr, d.atab, d.amask, s);
}
__device__ __forceinline__ int64_t beta_pos(const dev_t_ &d, uint64_t s) {
  return ci_string_find(d.bstr, d.btab, d.bmask, s);
}
__device__ __forceinline__ int64_t find_pos(const dev_t_ &d, int64_t ia, int64_t ib) {
  return ci_det_find(d.aptr, d.blist, d.dlist, ia, ib);
}

// ---- one row -----------------------------------------------------------------
// With d.upper, only J >= I is counted and written (as hamiltonian.c's
// builder with upper = 1).
struct row_counter {
  int64_t I, lo;
  int64_t n = 0;
  __device__ void operator()(int64_t J, double) { n += J >= lo; }
};
// Writes at most cap entries (the row's room from the counts): a row that
// has more or fewer than its count is reported, never written past.
struct row_writer {
  cis_idx *col;
  double *val;
  int64_t lo, cap;
  int64_t n = 0;
  __device__ void operator()(int64_t J, double v) {
    if (J < lo) return;
    if (n < cap) { col[n] = (cis_idx)J; val[n] = v; }
    ++n;
  }
};

// Every nonzero (J, v) of row I, unsorted, in gen_row's order.
template <class Emit>
__device__ void gen_row(const dev_t_ &d, int64_t I, Emit &emit) {
  int64_t ia = d.det_a[I], ib = d.det_b[I];
  uint64_t a = d.astr[ia], b = d.bstr[ib], all = d.norb >= 64 ? ~0ull : (1ull << d.norb) - 1;
  const ci_ints in = {d.norb, d.h1, d.eri};
  int32_t bpos[CI_BCACHE];
  double v = ci_rule_diagonal(&in, a, b);
  if (v != 0.0) emit(I, v);
  // beta singles j -> c
  int q = 0;
  for (uint64_t h = b; h; h &= h - 1)
    for (uint64_t p = all & ~b; p; p &= p - 1, ++q) {
      int j = ci_lowest(h), c = ci_lowest(p);
      int64_t bp = beta_pos(d, b ^ (1ull << j) ^ (1ull << c));
      if (q < CI_BCACHE) bpos[q] = (int32_t)bp;
      if (bp < 0) continue;
      int64_t J = find_pos(d, ia, bp);
      if (J < 0) continue;
      v = ci_sign_between(b, j, c) * ci_rule_single(&in, j, c, b & ~(1ull << j), a);
      if (v != 0.0) emit(J, v);
    }
  // alpha singles i -> x, and with them the alpha-beta doubles
  for (uint64_t h = a; h; h &= h - 1)
    for (uint64_t p = all & ~a; p; p &= p - 1) {
      int i = ci_lowest(h), x = ci_lowest(p);
      int64_t ja = alpha_pos(d, a ^ (1ull << i) ^ (1ull << x));
      if (ja < 0) continue;
      double sa = ci_sign_between(a, i, x);
      int64_t J = find_pos(d, ja, ib);
      if (J >= 0) {
        v = sa * ci_rule_single(&in, i, x, a & ~(1ull << i), b);
        if (v != 0.0) emit(J, v);
      }
      q = 0;
      for (uint64_t hb = b; hb; hb &= hb - 1)
        for (uint64_t pb = all & ~b; pb; pb &= pb - 1, ++q) {
          int j = ci_lowest(hb), c = ci_lowest(pb);
          int64_t bp = q < CI_BCACHE ? bpos[q] : beta_pos(d, b ^ (1ull << j) ^ (1ull << c));
          if (bp < 0) continue;
          double w = sa * ci_sign_between(b, j, c) * ci_ints_eri(&in, i, x, j, c);
          if (w == 0.0) continue;
          J = find_pos(d, ja, bp);
          if (J >= 0) emit(J, w);
        }
    }
  // same-spin doubles i<j -> x<y, value s1 s2 [(ix|jy) - (iy|jx)]
  for (int spin = 0; spin < 2; ++spin) {
    uint64_t s = spin ? b : a;
    for (uint64_t h1s = s; h1s; h1s &= h1s - 1)
      for (uint64_t h2s = h1s & (h1s - 1); h2s; h2s &= h2s - 1)
        for (uint64_t p1 = all & ~s; p1; p1 &= p1 - 1)
          for (uint64_t p2 = p1 & (p1 - 1); p2; p2 &= p2 - 1) {
            int i = ci_lowest(h1s), j = ci_lowest(h2s), x = ci_lowest(p1), y = ci_lowest(p2);
            double w = ci_ints_eri(&in, i, x, j, y) - ci_ints_eri(&in, i, y, j, x);
            if (w == 0.0) continue;
            uint64_t mid = s ^ (1ull << i) ^ (1ull << x), t = mid ^ (1ull << j) ^ (1ull << y);
            int64_t J = spin ? beta_pos(d, t) : alpha_pos(d, t);
            if (J < 0) continue;
            J = spin ? find_pos(d, ia, J) : find_pos(d, J, ib);
            if (J < 0) continue;
            v = ci_sign_between(s, i, x) * ci_sign_between(mid, j, y) * w;
            if (v != 0.0) emit(J, v);
          }
  }
}

__global__ void ci_count_kernel(dev_t_ d, int64_t row0, int64_t nrows, int64_t *count) {
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nrows) return;
  const int64_t I = row0 + k;
  row_counter c{I, d.upper ? I : 0};
  gen_row(d, I, c);
  count[k] = c.n;
}

__global__ void ci_fill_kernel(dev_t_ d, int64_t row0, int64_t nrows, const int32_t *__restrict__ rel,
                               cis_idx *col, double *val, int *bad) {
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nrows) return;
  const int64_t cap = rel[k + 1] - rel[k];
  row_writer w{col + rel[k], val + rel[k], d.upper ? row0 + k : 0, cap};
  gen_row(d, row0 + k, w);
  if (w.n != cap) atomicOr(bad, 1);
}

__global__ void ci_chunk_offsets_kernel(const int64_t *__restrict__ rowptr, int64_t row0, int64_t nrows,
                                        int32_t *rel) {
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k <= nrows) rel[k] = (int32_t)(rowptr[row0 + k] - rowptr[row0]);
}

#define CI_BUILD_THREADS 128

extern "C" cis_status cis_launch_ci_count(const cis_ci_build_dev *d, cis_int row0, cis_int nrows, int64_t *count,
                                          cudaStream_t s) {
  if (nrows <= 0) return CIS_OK;
  ci_count_kernel<<<cis_blocks_for(nrows, CI_BUILD_THREADS), CI_BUILD_THREADS, 0, s>>>(*d, row0, nrows, count);
  CIS_CUDA_LAUNCH_CHECK("ci_count_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_scan(void *temp, size_t *temp_bytes, int64_t *rowptr, cis_int n,
                                         cudaStream_t s) {
  if (n <= 0) { /* nothing to sum: no temporary storage needed */
    if (!temp) *temp_bytes = 0;
    return CIS_OK;
  }
  CIS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, *temp_bytes, rowptr + 1, rowptr + 1, (int64_t)n, s));
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_chunk_offsets(const int64_t *rowptr, cis_int row0, cis_int nrows,
                                                  int32_t *rel, cudaStream_t s) {
  ci_chunk_offsets_kernel<<<cis_blocks_for(nrows + 1, 256), 256, 0, s>>>(rowptr, row0, nrows, rel);
  CIS_CUDA_LAUNCH_CHECK("ci_chunk_offsets_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_fill(const cis_ci_build_dev *d, cis_int row0, cis_int nrows,
                                         const int32_t *rel, cis_idx *col, double *val, int *bad, cudaStream_t s) {
  if (nrows == 0) return CIS_OK;
  ci_fill_kernel<<<cis_blocks_for(nrows, CI_BUILD_THREADS), CI_BUILD_THREADS, 0, s>>>(*d, row0, nrows, rel,
                                                                                       col, val, bad);
  CIS_CUDA_LAUNCH_CHECK("ci_fill_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_sort_rows(void *temp, size_t *temp_bytes, cis_int nitems, cis_int nrows,
                                              const int32_t *rel, const cis_idx *col_in, cis_idx *col_out,
                                              const double *val_in, double *val_out, cudaStream_t s) {
  CIS_CUDA_CHECK(cub::DeviceSegmentedSort::SortPairs(temp, *temp_bytes, col_in, col_out, val_in, val_out,
                                                     (int64_t)nitems, (int64_t)nrows, rel, rel + 1, s));
  return CIS_OK;
}
