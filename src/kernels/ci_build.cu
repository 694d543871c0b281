// ci_build.cu: the determinant CI Hamiltonian built on the device, one thread
// per row (determinant). Each row's connected determinants are generated from
// its own single and double excitations and looked up in the space (string
// hash tables + the per-alpha-string beta lists), the elements by the
// Slater-Condon rules (Szabo & Ostlund, "Modern Quantum Chemistry", §2.3.3,
// Tables 2.3-2.4) with the fermionic sign (-1)^(occupied orbitals strictly
// between i and a). This is src/ci/hamiltonian.c (gen_row) and
// src/ci/slater.c ported line by line, same sums in the same order and the
// same exact-zero test, so the matrix is the host one bit for bit; the paper's
// build is Mahmoud, Hoffmann, Reza 2018 §2.2. Two passes (count, fill) around
// a CUB prefix sum; rows are sorted by column with CUB's segmented sort.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include "kernels/ci_build.h"
#include "kernels/kernel_common.cuh"

// Beta single excitations of a row whose string positions are kept (the rest
// are looked up again when the alpha-beta doubles need them).
#define CI_BCACHE 128

typedef cis_ci_build_dev dev_t_;

// ---- integrals and bit strings (src/ci/ci_internal.h) ----------------------
__device__ __forceinline__ int64_t pair_index(int64_t i, int64_t j) {
  return i >= j ? i * (i + 1) / 2 + j : j * (j + 1) / 2 + i;
}
__device__ __forceinline__ double eri(const dev_t_ &d, int i, int j, int k, int l) {
  return d.eri[pair_index(pair_index(i, j), pair_index(k, l))];
}
__device__ __forceinline__ double h1(const dev_t_ &d, int i, int j) { return d.h1[i * d.norb + j]; }
__device__ __forceinline__ int lowest(uint64_t s) { return __ffsll((long long)s) - 1; }
__device__ __forceinline__ double sign_between(uint64_t s, int p, int q) {
  int lo = p < q ? p : q, hi = p < q ? q : p;
  uint64_t mask = (hi - lo > 1) ? (((~0ull) >> (64 - (hi - lo - 1))) << (lo + 1)) : 0;
  return (__popcll(s & mask) & 1) ? -1.0 : 1.0;
}

// ---- Slater-Condon elements (src/ci/slater.c) --------------------------------
__device__ double single_value(const dev_t_ &d, int i, int a, uint64_t common, uint64_t other) {
  double v = h1(d, i, a);
  for (uint64_t s = common; s; s &= s - 1) {
    int k = lowest(s);
    v += eri(d, i, a, k, k) - eri(d, i, k, k, a);
  }
  for (uint64_t s = other; s; s &= s - 1) {
    int k = lowest(s);
    v += eri(d, i, a, k, k);
  }
  return v;
}

__device__ double same_spin_energy(const dev_t_ &d, uint64_t s) {
  double e = 0;
  for (uint64_t u = s; u; u &= u - 1) {
    int p = lowest(u);
    e += h1(d, p, p);
    for (uint64_t w = u & (u - 1); w; w &= w - 1) {
      int q = lowest(w);
      e += eri(d, p, p, q, q) - eri(d, p, q, q, p);
    }
  }
  return e;
}

__device__ double diagonal(const dev_t_ &d, uint64_t alpha, uint64_t beta) {
  double e = same_spin_energy(d, alpha) + same_spin_energy(d, beta);
  for (uint64_t u = alpha; u; u &= u - 1) {
    int p = lowest(u);
    for (uint64_t w = beta; w; w &= w - 1) e += eri(d, p, p, lowest(w), lowest(w));
  }
  return e;
}

// ---- determinant lookup (src/ci/space.c) -------------------------------------
__device__ __forceinline__ uint64_t string_hash(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
  return x;
}
__device__ int64_t string_pos(const uint64_t *str, const int32_t *tab, uint64_t mask, uint64_t s) {
  for (uint64_t h = string_hash(s) & mask;; h = (h + 1) & mask) {
    int32_t p = tab[h];
    if (p < 0) return -1;
    if (str[p] == s) return p;
  }
}
// Determinant of alpha position ia and beta position ib, -1 if absent.
__device__ int64_t find_pos(const dev_t_ &d, int64_t ia, int64_t ib) {
  int64_t lo = d.aptr[ia], hi = d.aptr[ia + 1], end = hi;
  if (lo == hi || ib > d.blist[hi - 1]) return -1;
  if (d.blist[hi - 1] == hi - lo - 1) return d.dlist[lo + ib];
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (d.blist[mid] < ib) lo = mid + 1; else hi = mid;
  }
  return (lo < end && d.blist[lo] == ib) ? d.dlist[lo] : -1;
}

// ---- one row -----------------------------------------------------------------
struct row_counter {
  int64_t n = 0;
  __device__ void operator()(int64_t, double) { ++n; }
};
struct row_writer {
  cis_idx *col;
  double *val;
  int64_t n = 0;
  __device__ void operator()(int64_t J, double v) { col[n] = (cis_idx)J; val[n] = v; ++n; }
};

// Every nonzero (J, v) of row I, unsorted, in gen_row's order.
template <class Emit>
__device__ void gen_row(const dev_t_ &d, int64_t I, Emit &emit) {
  int64_t ia = d.det_a[I], ib = d.det_b[I];
  uint64_t a = d.astr[ia], b = d.bstr[ib], all = d.norb >= 64 ? ~0ull : (1ull << d.norb) - 1;
  int32_t bpos[CI_BCACHE];
  double v = diagonal(d, a, b);
  if (v != 0.0) emit(I, v);
  // beta singles j -> c
  int q = 0;
  for (uint64_t h = b; h; h &= h - 1)
    for (uint64_t p = all & ~b; p; p &= p - 1, ++q) {
      int j = lowest(h), c = lowest(p);
      int64_t bp = string_pos(d.bstr, d.btab, d.bmask, b ^ (1ull << j) ^ (1ull << c));
      if (q < CI_BCACHE) bpos[q] = (int32_t)bp;
      if (bp < 0) continue;
      int64_t J = find_pos(d, ia, bp);
      if (J < 0) continue;
      v = sign_between(b, j, c) * single_value(d, j, c, b & ~(1ull << j), a);
      if (v != 0.0) emit(J, v);
    }
  // alpha singles i -> x, and with them the alpha-beta doubles
  for (uint64_t h = a; h; h &= h - 1)
    for (uint64_t p = all & ~a; p; p &= p - 1) {
      int i = lowest(h), x = lowest(p);
      int64_t ja = string_pos(d.astr, d.atab, d.amask, a ^ (1ull << i) ^ (1ull << x));
      if (ja < 0) continue;
      double sa = sign_between(a, i, x);
      int64_t J = find_pos(d, ja, ib);
      if (J >= 0) {
        v = sa * single_value(d, i, x, a & ~(1ull << i), b);
        if (v != 0.0) emit(J, v);
      }
      q = 0;
      for (uint64_t hb = b; hb; hb &= hb - 1)
        for (uint64_t pb = all & ~b; pb; pb &= pb - 1, ++q) {
          int j = lowest(hb), c = lowest(pb);
          int64_t bp = q < CI_BCACHE ? bpos[q]
                                     : string_pos(d.bstr, d.btab, d.bmask, b ^ (1ull << j) ^ (1ull << c));
          if (bp < 0) continue;
          double w = sa * sign_between(b, j, c) * eri(d, i, x, j, c);
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
            int i = lowest(h1s), j = lowest(h2s), x = lowest(p1), y = lowest(p2);
            double w = eri(d, i, x, j, y) - eri(d, i, y, j, x);
            if (w == 0.0) continue;
            uint64_t mid = s ^ (1ull << i) ^ (1ull << x), t = mid ^ (1ull << j) ^ (1ull << y);
            int64_t J = spin ? string_pos(d.bstr, d.btab, d.bmask, t) : string_pos(d.astr, d.atab, d.amask, t);
            if (J < 0) continue;
            J = spin ? find_pos(d, ia, J) : find_pos(d, J, ib);
            if (J < 0) continue;
            v = sign_between(s, i, x) * sign_between(mid, j, y) * w;
            if (v != 0.0) emit(J, v);
          }
  }
}

__global__ void ci_count_kernel(dev_t_ d, int64_t *rowptr) {
  int64_t I = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= d.ndet) return;
  row_counter c;
  gen_row(d, I, c);
  rowptr[I + 1] = c.n;
}

__global__ void ci_fill_kernel(dev_t_ d, int64_t row0, int64_t nrows, const int32_t *__restrict__ rel,
                               cis_idx *col, double *val) {
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nrows) return;
  row_writer w{col + rel[k], val + rel[k]};
  gen_row(d, row0 + k, w);
}

__global__ void ci_chunk_offsets_kernel(const int64_t *__restrict__ rowptr, int64_t row0, int64_t nrows,
                                        int32_t *rel) {
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k <= nrows) rel[k] = (int32_t)(rowptr[row0 + k] - rowptr[row0]);
}

#define CI_BUILD_THREADS 128

extern "C" cis_status cis_launch_ci_count(const cis_ci_build_dev *d, int64_t *rowptr, cudaStream_t s) {
  if (d->ndet == 0) return CIS_OK;
  ci_count_kernel<<<cis_blocks_for(d->ndet, CI_BUILD_THREADS), CI_BUILD_THREADS, 0, s>>>(*d, rowptr);
  CIS_CUDA_LAUNCH_CHECK("ci_count_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_scan(void *temp, size_t *temp_bytes, int64_t *rowptr, cis_int n,
                                         cudaStream_t s) {
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
                                         const int32_t *rel, cis_idx *col, double *val, cudaStream_t s) {
  if (nrows == 0) return CIS_OK;
  ci_fill_kernel<<<cis_blocks_for(nrows, CI_BUILD_THREADS), CI_BUILD_THREADS, 0, s>>>(*d, row0, nrows, rel,
                                                                                       col, val);
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
