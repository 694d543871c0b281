// ci_sigma.cu: gather and scatter kernels of the GPU direct CI sigma, the
// string-driven algorithm of Knowles & Handy (Chem. Phys. Lett. 111, 315
// (1984)) and Olsen et al. (J. Chem. Phys. 89, 2185 (1988), §II.B) in the
// form of PySCF's fci.direct_spin1 (absorb_h1e + contract_2e):
//   D[rs, (A,B)] = (E_rs c)(A,B)           gather (this file)
//   X = 1/2 g D                            cuBLAS DGEMM (ci_sigma_dev.c)
//   sigma(I,B) = sum <I,B|E_pq|J> X[pq,J]  scatter (this file)
// CPU reference: src/ci/sigma.c (sigma_block). Layouts in ci_sigma.h.
#include "ci/gpu/ci_sigma.h"
#include "ci/gpu/ci_sigma_tile.cuh"
#include "kernels/kernel_common.cuh"

#define GATHER_COLS 32   // columns (beta strings) per gather block: one per lane
#define GATHER_WARPS 4   // warps share a tile's links
#define SCATTER_THREADS 128

// One block: GATHER_COLS consecutive columns of one (vector, alpha string)
// row. The tile D[:, cols] is summed in shared memory ([pair][lane]) by
// ci_sigma_gather_tile (ci_sigma_tile.cuh: zero, alpha links, beta links, the
// order of sigma.c: D equals the CPU's bit for bit), the warps taking every
// GATHER_WARPS-th link. Finally the tile goes out row by row, coalesced.
__global__ void ci_sigma_gather_kernel(cis_ci_sigma_dev d, const double *__restrict__ C, cis_int a0, cis_int nr,
                                       cis_int tiles, int half, double *__restrict__ D, int64_t m) {
  extern __shared__ double tile[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t row = blockIdx.x / tiles, b0 = (blockIdx.x % tiles) * GATHER_COLS;
  const int64_t v = row / nr, A = a0 + row % nr, nsb = d.nsb;
  const int np = d.npair;
  const int64_t ncol = half ? A + 1 : nsb; // half: columns B <= A of row A only
  if (b0 >= ncol) return;                  // the whole block: before any barrier
  ci_sigma_gather_tile(d, C + v * d.ndet, A, b0, ncol, lane, warp, GATHER_WARPS, np, GATHER_COLS, tile);
  double *out = D + (half ? ci_tri(A) - ci_tri(a0) : row * nsb) + b0;
  const int64_t width = ncol - b0 < GATHER_COLS ? ncol - b0 : GATHER_COLS;
  for (int i = threadIdx.x; i < np * GATHER_COLS; i += blockDim.x) {
    const int pq = i / GATHER_COLS, j = i % GATHER_COLS;
    if (j < width) out[(int64_t)pq * m + j] = tile[i];
  }
}

// The first of n links (sorted by the string they reach, as ci_sigma_dev.c
// uploads them; at L[l * stride]) reaching a string >= s: a binary search, so
// that a pass visits only the links into its own rows (not all n, most of
// them skipped: the pass count times the link count per element before).
__device__ __forceinline__ int ci_first_link(const ci_link *__restrict__ L, int64_t stride, int n, int64_t s) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if ((int64_t)L[mid * stride].str < s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// One thread per sigma element (v, I, B): the pull form of the scatter. The
// link set is symmetric (a^+_p a_q|J> = s|I> exactly when a^+_q a_p|I> = s|J>,
// same sign, same packed pair), so sigma(I,B) reads X through I's own links:
// alpha links whose J lies in this pass's block, and the beta links of B when
// I itself does. Each element has one owner and a fixed summation order.
__global__ void ci_sigma_scatter_kernel(cis_ci_sigma_dev d, const double *__restrict__ X, cis_int a0, cis_int nr,
                                        cis_int tiles, int first, int last, double *__restrict__ S, int64_t m) {
  const int64_t row = blockIdx.x / tiles, nsb = d.nsb;
  const int64_t v = row / d.nsa, I = row % d.nsa, B = (blockIdx.x % tiles) * SCATTER_THREADS + threadIdx.x;
  if (B >= nsb) return;
  double t = 0.0;
  bool touched = false;
  const double *x = X + v * nr * nsb + B; // column (v, J, B) = x + (J - a0) * nsb
  const ci_link *La = d.alink + I * d.nla;  // sorted by J: this pass's rows are one run of them
  for (int l = ci_first_link(La, 1, d.nla, a0); l < d.nla; ++l) {
    const ci_link k = La[l];
    const int64_t j = (int64_t)k.str - a0;
    if (j >= nr) break;
    t += (double)k.sign * x[(int64_t)k.pair * m + j * nsb];
    touched = true;
  }
  if (I >= a0 && I < a0 + nr) {
    const double *xr = X + (v * nr + (I - a0)) * nsb;
    for (int l = 0; l < d.nlb; ++l) {
      const ci_link k = d.blink_t[(int64_t)l * nsb + B];
      t += (double)k.sign * xr[(int64_t)k.pair * m + k.str];
    }
    touched = true;
  }
  const bool off = last && d.project && ((d.syma[I] ^ d.symb[B]) & 7) != d.target;
  if (!first && !touched && !off) return;
  double *s = S + v * d.ndet + I * nsb + B;
  *s = off ? 0.0 : first ? t : *s + t;
}

// Time-reversal half sigma (MS2 = 0, c(A,B) = t c(B,A); sigma.c's
// sigma_block_half and its comment for the algebra): X holds the columns
// C <= R of the block's rows R, packed (column (R, C) at tri(R) - tri(a0) + C).
//   Q(I,C) = sum over the alpha links (R, pq, s) of I, R in the block, C <= R: s X[pq, (R,C)]
//          + [I in the block] sum over the links (B', pq, s) of C with B' < I: s X[pq, (I,B')]
//   sigma(I,B) = Q(I,B) + t Q(B,I)
// One thread per (I, B) with B <= I computes u = Q(I,B) + t Q(B,I) and owns
// both sigma(I,B) (+= u) and sigma(B,I) (+= t u): sigma stays exactly
// (anti)symmetric, no element has two writers. Links of a warp's B (each
// lane its own) come from the transposed list (same set: one string set).
__device__ __forceinline__ double ci_half_q(const cis_ci_sigma_dev &d, const double *__restrict__ X, int64_t m,
                                            cis_int a0, cis_int nr, int64_t tri0, int64_t I, int64_t C, bool &hit) {
  const int64_t ns = d.nsb;
  double q = 0.0;
  const ci_link *Li = d.blink_t + I; // link l of I at Li[l * ns], sorted by the string reached
  for (int l = ci_first_link(Li, ns, d.nla, a0 > C ? a0 : C); l < d.nla; ++l) { // R in the pass, R >= C
    const ci_link k = Li[(int64_t)l * ns];
    const int64_t R = k.str;
    if (R >= a0 + nr) break;
    q += (double)k.sign * X[(int64_t)k.pair * m + ci_tri(R) - tri0 + C];
    hit = true;
  }
  if (I >= a0 && I < a0 + nr) {
    hit = true;
    const double *xr = X + ci_tri(I) - tri0;
    for (int l = 0; l < d.nlb; ++l) { // the links B' < I of C
      const ci_link k = d.blink_t[(int64_t)l * ns + C];
      if (k.str >= I) break;
      q += (double)k.sign * xr[(int64_t)k.pair * m + k.str];
    }
  }
  return q;
}

// The pair (I, B), B <= I, of a half sigma's pass: u = Q(I,B) + t Q(B,I)
// added to sigma(I,B) and t u to sigma(B,I) (written when first; zeroed
// outside irrep target on the last pass with projection). Neither read nor
// written when no link of I or B reaches the pass and it is not the first.
__device__ __forceinline__ void ci_half_pair(const cis_ci_sigma_dev &d, const double *__restrict__ X, cis_int a0,
                                             cis_int nr, int64_t I, int64_t B, double t, int first, int last,
                                             double *__restrict__ S, int64_t m) {
  const int64_t ns = d.nsb, tri0 = ci_tri(a0);
  bool hit = false; /* a link into this pass's rows: else nothing to add, and sigma is neither read nor written */
  const double u = ci_half_q(d, X, m, a0, nr, tri0, I, B, hit) + t * ci_half_q(d, X, m, a0, nr, tri0, B, I, hit);
  const bool off = last && d.project && ((d.syma[I] ^ d.symb[B]) & 7) != d.target;
  if (!first && !hit && !off) return;
  double *s1 = S + I * ns + B, *s2 = S + B * ns + I;
  if (off) {
    *s1 = 0.0;
    *s2 = 0.0;
  } else if (I == B) {
    *s1 = first ? u : *s1 + u;
  } else {
    *s1 = first ? u : *s1 + u;
    *s2 = first ? t * u : *s2 + t * u;
  }
}

// Every pair: one thread per (I, B <= I).
__global__ void ci_sigma_scatter_half_kernel(cis_ci_sigma_dev d, const double *__restrict__ X, cis_int a0, cis_int nr,
                                             cis_int tiles, double t, int first, int last, double *__restrict__ S,
                                             int64_t m) {
  const int64_t I = blockIdx.x / tiles, B = (blockIdx.x % tiles) * SCATTER_THREADS + threadIdx.x;
  if (B > I) return;
  ci_half_pair(d, X, a0, nr, I, B, t, first, last, S, m);
}

// The strings a pass reaches: its rows a0 .. a0+nr-1 and every string one of
// their links reaches (the link set is symmetric: R reaches I exactly when I
// reaches R, so these are all the strings with a link into the pass). Each
// gets flag 1 and one place in list (in no particular order); one thread per
// (row, link), link nla standing for the row itself. flag zero and *count 0
// before.
__global__ void ci_half_reach_kernel(cis_ci_sigma_dev d, cis_int a0, cis_int nr, unsigned *__restrict__ flag,
                                     cis_int *__restrict__ list, unsigned *__restrict__ count) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, per = d.nla + 1;
  if (i >= (int64_t)nr * per) return;
  const int64_t R = a0 + i / per, l = i % per;
  const int64_t s = l < d.nla ? (int64_t)d.alink[R * d.nla + l].str : R;
  if (atomicExch(&flag[s], 1u) == 0u) list[atomicAdd(count, 1u)] = (cis_int)s;
}

// Only the pairs with a reached string (every other pair of a pass that is
// neither the first nor a projecting last adds nothing): one thread per
// (reached P, any Q). The pair {P, Q} is done here unless Q is reached too
// and Q > P (then thread (Q, P) does it), as (I, B) = (max, min) with the
// arithmetic of the every-pair kernel: sigma is the same bit for bit. Never
// the first pass nor a projecting last one, so neither flag is passed on.
__global__ void ci_sigma_scatter_half_reached_kernel(cis_ci_sigma_dev d, const double *__restrict__ X, cis_int a0,
                                                     cis_int nr, cis_int tiles, double t,
                                                     const cis_int *__restrict__ list, const unsigned *__restrict__ flag,
                                                     const unsigned *__restrict__ count, double *__restrict__ S,
                                                     int64_t m) {
  const int64_t r = blockIdx.x / tiles, Q = (blockIdx.x % tiles) * SCATTER_THREADS + threadIdx.x;
  if (r >= (int64_t)*count || Q >= d.nsb) return;
  const int64_t P = list[r];
  if (Q > P && flag[Q]) return;
  ci_half_pair(d, X, a0, nr, P > Q ? P : Q, P > Q ? Q : P, t, 0, 0, S, m);
}

// The alpha <-> beta parity sums of the ns x ns vector c (sigma.c's
// transpose_parity, its CPU reference): out[0] += ||c||^2, out[1] += the
// squared distance from symmetric, out[2] += from antisymmetric, over the
// pairs B <= A (block sums, then one atomic add per block and sum).
__global__ void ci_parity_sums_kernel(const double *__restrict__ c, int64_t ns, double *out) {
  __shared__ double part[3][32];
  const int64_t n = ns * ns;
  double s0 = 0, s1 = 0, s2 = 0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t A = i / ns, B = i % ns;
    if (B > A) continue;
    const double u = c[i], w = c[B * ns + A];
    if (B == A) {
      s0 += u * u;
      s2 += 2.0 * u * u;
    } else {
      s0 += u * u + w * w;
      s1 += (u - w) * (u - w);
      s2 += (u + w) * (u + w);
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    s0 += __shfl_down_sync(0xffffffffu, s0, o);
    s1 += __shfl_down_sync(0xffffffffu, s1, o);
    s2 += __shfl_down_sync(0xffffffffu, s2, o);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if (lane == 0) { part[0][warp] = s0; part[1][warp] = s1; part[2][warp] = s2; }
  __syncthreads();
  if (threadIdx.x < 3) {
    double t = 0;
    for (int w = 0; w < nw; ++w) t += part[threadIdx.x][w];
    atomicAdd(out + threadIdx.x, t);
  }
}

// out = the exactly (anti)symmetric part (t = +1 / -1) of c: one thread per
// pair B <= A reads both mirror elements, then writes both (out == c allowed).
__global__ void ci_purify_kernel(const double *c, int64_t ns, double t, double *out) {
  const int64_t n = ns * ns;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t A = i / ns, B = i % ns;
    if (B > A) continue;
    if (B == A) {
      out[i] = t > 0 ? c[i] : 0.0;
      continue;
    }
    const double u = 0.5 * (c[i] + t * c[B * ns + A]);
    out[i] = u;
    out[B * ns + A] = t * u;
  }
}

__global__ void ci_axpby_kernel(int64_t n, double alpha, const double *__restrict__ t, double beta,
                                double *__restrict__ y) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    y[i] = beta == 0.0 ? alpha * t[i] : alpha * t[i] + beta * y[i];
}

extern "C" cis_status cis_launch_ci_sigma_gather(const cis_ci_sigma_dev *d, const double *C, int gv, cis_int a0,
                                                 cis_int nr, double *D, cudaStream_t s) {
  const cis_int tiles = (d->nsb + GATHER_COLS - 1) / GATHER_COLS, blocks = (cis_int)gv * nr * tiles;
  const size_t smem = (size_t)d->npair * GATHER_COLS * sizeof(double);
  if (blocks == 0) return CIS_OK;
  if (blocks > 0x7fffffff) return cis_error(CIS_ERR_TOO_LARGE, "direct sigma gather: %lld blocks", (long long)blocks);
  if (smem > 48 * 1024)
    CIS_CUDA_CHECK(cudaFuncSetAttribute(ci_sigma_gather_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  ci_sigma_gather_kernel<<<(unsigned)blocks, GATHER_COLS * GATHER_WARPS, smem, s>>>(*d, C, a0, nr, tiles, 0, D,
                                                                                      (int64_t)gv * nr * d->nsb);
  CIS_CUDA_LAUNCH_CHECK("ci_sigma_gather_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_sigma_scatter(const cis_ci_sigma_dev *d, const double *X, int gv, cis_int a0,
                                                  cis_int nr, int first, int last, double *S, cudaStream_t s) {
  const cis_int tiles = (d->nsb + SCATTER_THREADS - 1) / SCATTER_THREADS, blocks = (cis_int)gv * d->nsa * tiles;
  if (blocks == 0) return CIS_OK;
  if (blocks > 0x7fffffff) return cis_error(CIS_ERR_TOO_LARGE, "direct sigma scatter: %lld blocks", (long long)blocks);
  ci_sigma_scatter_kernel<<<(unsigned)blocks, SCATTER_THREADS, 0, s>>>(*d, X, a0, nr, tiles, first, last, S,
                                                                      (int64_t)gv * nr * d->nsb);
  CIS_CUDA_LAUNCH_CHECK("ci_sigma_scatter_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_sigma_gather_half(const cis_ci_sigma_dev *d, const double *C, cis_int a0,
                                                      cis_int nr, double *D, cudaStream_t s) {
  const cis_int tiles = (d->nsb + GATHER_COLS - 1) / GATHER_COLS, blocks = nr * tiles;
  const size_t smem = (size_t)d->npair * GATHER_COLS * sizeof(double);
  const int64_t m = (int64_t)(a0 + nr) * (a0 + nr + 1) / 2 - (int64_t)a0 * (a0 + 1) / 2;
  if (blocks == 0) return CIS_OK;
  if (blocks > 0x7fffffff) return cis_error(CIS_ERR_TOO_LARGE, "direct sigma gather: %lld blocks", (long long)blocks);
  if (smem > 48 * 1024)
    CIS_CUDA_CHECK(cudaFuncSetAttribute(ci_sigma_gather_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  ci_sigma_gather_kernel<<<(unsigned)blocks, GATHER_COLS * GATHER_WARPS, smem, s>>>(*d, C, a0, nr, tiles, 1, D, m);
  CIS_CUDA_LAUNCH_CHECK("ci_sigma_gather_kernel (half)");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_sigma_scatter_half(const cis_ci_sigma_dev *d, const double *X, cis_int a0,
                                                       cis_int nr, double t, int first, int last, double *S,
                                                       cudaStream_t s) {
  const cis_int tiles = (d->nsb + SCATTER_THREADS - 1) / SCATTER_THREADS, blocks = d->nsa * tiles;
  const int64_t m = (int64_t)(a0 + nr) * (a0 + nr + 1) / 2 - (int64_t)a0 * (a0 + 1) / 2;
  if (blocks == 0) return CIS_OK;
  if (blocks > 0x7fffffff) return cis_error(CIS_ERR_TOO_LARGE, "direct sigma scatter: %lld blocks", (long long)blocks);
  ci_sigma_scatter_half_kernel<<<(unsigned)blocks, SCATTER_THREADS, 0, s>>>(*d, X, a0, nr, tiles, t, first, last, S, m);
  CIS_CUDA_LAUNCH_CHECK("ci_sigma_scatter_half_kernel");
  return CIS_OK;
}

extern "C" cis_int cis_ci_half_reach_bound(const cis_ci_sigma_dev *d, cis_int nr) {
  const int64_t b = (int64_t)nr * (d->nla + 1);
  return b < d->nsa ? (cis_int)b : d->nsa;
}

extern "C" cis_status cis_launch_ci_sigma_scatter_half_reached(const cis_ci_sigma_dev *d, const double *X, cis_int a0,
                                                               cis_int nr, double t, cis_half_reach *w, double *S,
                                                               cudaStream_t s) {
  const cis_int tiles = (d->nsb + SCATTER_THREADS - 1) / SCATTER_THREADS;
  const int64_t m = (int64_t)(a0 + nr) * (a0 + nr + 1) / 2 - (int64_t)a0 * (a0 + 1) / 2;
  const int64_t marks = (int64_t)nr * (d->nla + 1), blocks = (int64_t)cis_ci_half_reach_bound(d, nr) * tiles;
  if (blocks == 0) return CIS_OK;
  if (blocks > 0x7fffffff) return cis_error(CIS_ERR_TOO_LARGE, "direct sigma scatter: %lld blocks", (long long)blocks);
  CIS_CUDA_CHECK(cudaMemsetAsync(w->flag, 0, (size_t)d->nsa * sizeof(unsigned), s));
  CIS_CUDA_CHECK(cudaMemsetAsync(w->count, 0, sizeof(unsigned), s));
  ci_half_reach_kernel<<<cis_blocks_for(marks, 256), 256, 0, s>>>(*d, a0, nr, w->flag, w->list, w->count);
  CIS_CUDA_LAUNCH_CHECK("ci_half_reach_kernel");
  ci_sigma_scatter_half_reached_kernel<<<(unsigned)blocks, SCATTER_THREADS, 0, s>>>(*d, X, a0, nr, tiles, t, w->list, w->flag, w->count, S, m);
  CIS_CUDA_LAUNCH_CHECK("ci_sigma_scatter_half_reached_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_parity_sums(const double *c, cis_int ns, double *out, cudaStream_t s) {
  CIS_CUDA_CHECK(cudaMemsetAsync(out, 0, 3 * sizeof(double), s));
  const cis_int n = ns * ns;
  if (n == 0) return CIS_OK;
  unsigned blocks = cis_blocks_for(n, 256);
  if (blocks > 4096) blocks = 4096;
  ci_parity_sums_kernel<<<blocks, 256, 0, s>>>(c, ns, out);
  CIS_CUDA_LAUNCH_CHECK("ci_parity_sums_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_purify(const double *c, cis_int ns, double t, double *out, cudaStream_t s) {
  const cis_int n = ns * ns;
  if (n == 0) return CIS_OK;
  unsigned blocks = cis_blocks_for(n, 256);
  if (blocks > 65536) blocks = 65536;
  ci_purify_kernel<<<blocks, 256, 0, s>>>(c, ns, t, out);
  CIS_CUDA_LAUNCH_CHECK("ci_purify_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_axpby(cis_int n, double alpha, const double *t, double beta, double *y,
                                          cudaStream_t s) {
  if (n == 0) return CIS_OK;
  ci_axpby_kernel<<<cis_blocks_for(n, 256) < 65536 ? cis_blocks_for(n, 256) : 65536, 256, 0, s>>>(n, alpha, t, beta,
                                                                                                  y);
  CIS_CUDA_LAUNCH_CHECK("ci_axpby_kernel");
  return CIS_OK;
}
