// ci_sigma_irrep.cu: gather, scatter and vector kernels of the GPU direct CI
// sigma blocked by irreps (point-group symmetry) on compact vectors: the
// string-driven sigma of Olsen et al. (J. Chem. Phys. 89, 2185 (1988),
// §II.B-C) in the form of PySCF's fci.direct_spin1_symm: only the
// determinants (A, B) with irrep(A) ^ irrep(B) = target are held, the
// intermediate D[rs, (A,B)] = (E_rs c)(A,B) is nonzero only for pairs rs of
// irrep h = irrep(A) ^ irrep(B) ^ target, and g is block diagonal in the pair
// irreps, so
//   D_h[rs, (A,B)] = (E_rs c)(A,B)   gather (this file), rs of irrep h only
//   X_h = 1/2 g_h D_h                one cuBLAS DGEMM per pair irrep (ci_sigma_irrep_dev.c)
//   sigma(I,B) = sum <I,B|E_pq|J> X[pq,J]  scatter (this file, pull form)
// Layouts in ci_sigma_irrep.h; CPU reference: ci_irrep_sigma_compact
// (src/ci/sigma_irrep.c), same D (bit for bit), same links sorted by pair
// irrep. The time-reversal half sigma (MS2 = 0, c(A,B) = t c(B,A)) as in
// sigma.c's sigma_block_half and ci_sigma.cu.
#include "ci/gpu/ci_sigma_irrep.h"
#include "kernels/kernel_common.cuh"

#define IR_GATHER_COLS 32 // columns (beta strings of one irrep) per gather block: one per lane
#define IR_GATHER_WARPS 4 // warps share a tile's links
#define IR_THREADS 128    // scatter and vector kernels: threads per block (one row's columns)

// cum(A, gb): columns before A in its (ga, gb) group (ci_sigma_irrep.h).
__device__ __forceinline__ int64_t ir_cum(const ci_irrep_dev &d, int half, int64_t A, int gb) {
  return half ? d.cumh[A * CI_IRREPS + gb] : (int64_t)d.arank[A] * d.nbg[gb];
}

// Columns of (A, gb) the pass holds: all beta strings of irrep gb, or with
// the half layout those with address <= A.
__device__ __forceinline__ int64_t ir_width(const ci_irrep_dev &d, int half, int64_t A, int gb) {
  return half ? (int64_t)d.pc[A * CI_IRREPS + gb] : d.nbg[gb];
}

// One block: IR_GATHER_COLS consecutive columns j of (alpha string A, beta
// irrep gb), pair irrep h = ga ^ gb ^ target. The tile D_h[:, cols] (npi[h]
// x 32) is summed in shared memory: the alpha links of A of pair irrep h
// (rows J of irrep gb ^ target hold the beta strings of irrep gb: c(J, B_j)
// at off[J] + j), then after a barrier the beta links of each lane's B_j of
// pair irrep h (c(A, I) at off[A] + position of I). Links of one string have
// distinct pairs, so warps taking every IR_GATHER_WARPS-th link never add to
// the same element, and the order (zero, alpha, beta) is sigma_irrep.c's:
// D equals the CPU's bit for bit. Out row by row, coalesced.
__global__ void ci_irrep_gather_kernel(ci_irrep_dev d, ci_irrep_pass p, const double *__restrict__ cc, cis_int tiles,
                                       double *__restrict__ D) {
  extern __shared__ double tile[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, gb = blockIdx.y;
  const int64_t A = p.a0 + blockIdx.x / tiles, j0 = (int64_t)(blockIdx.x % tiles) * IR_GATHER_COLS;
  const int ga = d.syma[A], h = ga ^ gb ^ d.target, nph = d.npi[h];
  const int64_t width = ir_width(d, p.half, A, gb);
  if (nph == 0 || j0 >= width) return; // the whole block, before any barrier
  for (int i = threadIdx.x; i < nph * IR_GATHER_COLS; i += blockDim.x) tile[i] = 0.0;
  __syncthreads();
  const int64_t j = j0 + lane;
  const bool valid = j < width;
  if (valid) {
    const int32_t *sa = d.astart + A * (CI_IRREPS + 1);
    for (int l = sa[h] + warp; l < sa[h + 1]; l += IR_GATHER_WARPS) { // D[pq, j] += s c(J, B_j)
      const ci_link k = d.alink[A * d.nla + l];
      tile[(int)k.pair * IR_GATHER_COLS + lane] += (double)k.sign * cc[d.off[k.str] + j];
    }
  }
  __syncthreads();
  if (valid) {
    const int64_t B = d.blist[d.bstart[gb] + j];
    const int32_t *sb = d.bstart_l + B * (CI_IRREPS + 1);
    const double *cA = cc + d.off[A];
    for (int l = sb[h] + warp; l < sb[h + 1]; l += IR_GATHER_WARPS) { // D[pq, j] += s c(A, I)
      const ci_link k = d.blink[B * d.nlb + l];
      tile[(int)k.pair * IR_GATHER_COLS + lane] += (double)k.sign * cA[k.str];
    }
  }
  __syncthreads();
  const int64_t mh = p.m[h];
  double *out = D + p.dbase[h] + p.cadj[ga][gb] + ir_cum(d, p.half, A, gb) + j0;
  const int64_t w = width - j0 < IR_GATHER_COLS ? width - j0 : IR_GATHER_COLS;
  for (int i = threadIdx.x; i < nph * IR_GATHER_COLS; i += blockDim.x) {
    const int pq = i / IR_GATHER_COLS, jj = i % IR_GATHER_COLS;
    if (jj < w) out[(int64_t)pq * mh + jj] = tile[i];
  }
}

// Q(R, j): what this pass adds to sigma at row R, column j (the beta string
// of position j in irrep gc = irrep(R) ^ target), read through R's own links
// (the link set is symmetric: a^+_p a_q |J> = s |I> exactly when
// a^+_q a_p |I> = s |J>, same packed pair), so every element has one owner:
//   alpha: links (A, pq, s) of R with A in the pass: s X_h[pq, (A, gc, j)]  (h = pair irrep)
//   beta:  R in the pass, links (B', pq, s) of B_j: s X_h[pq, (R, irrep(B'), pos(B'))]
// Half layout: the alpha part only where column j exists in A's block (B_j
// <= A), the beta part only for B' < R (sigma_irrep.c: beta scatter of B < A).
__device__ double ir_q(const ci_irrep_dev &d, const ci_irrep_pass &p, const double *__restrict__ X, int64_t R,
                       int64_t j) {
  const int gr = d.syma[R], gc = gr ^ d.target, half = p.half;
  double q = 0.0;
  const int32_t *sa = d.astart + R * (CI_IRREPS + 1);
  const ci_link *La = d.alink + R * d.nla;
  for (int h = 0; h < CI_IRREPS; ++h) {
    const int64_t mh = p.m[h];
    const double *Xh = X + p.dbase[h];
    for (int l = sa[h]; l < sa[h + 1]; ++l) {
      const ci_link k = La[l];
      const int64_t A = k.str;
      if (A < p.a0 || A >= p.a1) continue;
      if (half && j >= d.pc[A * CI_IRREPS + gc]) continue;
      const int ga = gr ^ h;
      q += (double)k.sign * Xh[(int64_t)k.pair * mh + p.cadj[ga][gc] + ir_cum(d, half, A, gc) + j];
    }
  }
  if (R >= p.a0 && R < p.a1) {
    const int64_t B = d.blist[d.bstart[gc] + j];
    const int32_t *sb = d.bstart_l + B * (CI_IRREPS + 1);
    const ci_link *Lb = d.blink + B * d.nlb;
    for (int h = 0; h < CI_IRREPS; ++h) {
      const int gb = gc ^ h;
      const int64_t lim = half ? (int64_t)d.pc[R * CI_IRREPS + gb] - (gr == gb) : d.nbg[gb]; // half: B' < R
      const int64_t mh = p.m[h];
      const double *Xr = X + p.dbase[h] + p.cadj[gr][gb] + ir_cum(d, half, R, gb);
      for (int l = sb[h]; l < sb[h + 1]; ++l) {
        const ci_link k = Lb[l];
        if (k.str >= lim) continue;
        q += (double)k.sign * Xr[(int64_t)k.pair * mh + k.str];
      }
    }
  }
  return q;
}

// One thread per compact element (I, j): S = Q (first pass) or S + Q.
__global__ void ci_irrep_scatter_kernel(ci_irrep_dev d, ci_irrep_pass p, const double *__restrict__ X, cis_int tiles,
                                        int first, double *__restrict__ S) {
  const int64_t I = blockIdx.x / tiles, j = (int64_t)(blockIdx.x % tiles) * IR_THREADS + threadIdx.x;
  const int gc = d.syma[I] ^ d.target;
  if (j >= d.nbg[gc]) return;
  const double q = ir_q(d, p, X, I, j);
  double *s = S + d.off[I] + j;
  *s = first ? q : *s + q;
}

// Half sigma: one thread per (I, B_j) with B_j <= I owns sigma(I, B_j) and
// its mirror sigma(B_j, I) (at off[B_j] + position of I):
// u = Q(I, B_j) + t Q(B_j, I); sigma stays exactly (anti)symmetric.
__global__ void ci_irrep_scatter_half_kernel(ci_irrep_dev d, ci_irrep_pass p, const double *__restrict__ X,
                                             cis_int tiles, double t, int first, double *__restrict__ S) {
  const int64_t I = blockIdx.x / tiles, j = (int64_t)(blockIdx.x % tiles) * IR_THREADS + threadIdx.x;
  const int gc = d.syma[I] ^ d.target;
  if (j >= d.nbg[gc]) return;
  const int64_t B = d.blist[d.bstart[gc] + j];
  if (B > I) return;
  const int64_t jm = d.bpos[I];
  const double u = ir_q(d, p, X, I, j) + t * ir_q(d, p, X, B, jm);
  double *s1 = S + d.off[I] + j;
  *s1 = first ? u : *s1 + u;
  if (B != I) {
    double *s2 = S + d.off[B] + jm;
    *s2 = first ? t * u : *s2 + t * u;
  }
}

__global__ void ci_irrep_compress_kernel(ci_irrep_dev d, const double *__restrict__ c, cis_int tiles,
                                         double *__restrict__ cc) {
  const int64_t A = blockIdx.x / tiles, j = (int64_t)(blockIdx.x % tiles) * IR_THREADS + threadIdx.x;
  const int gc = d.syma[A] ^ d.target;
  if (j >= d.nbg[gc]) return;
  cc[d.off[A] + j] = c[A * d.nsb + d.blist[d.bstart[gc] + j]];
}

__global__ void ci_irrep_expand_kernel(ci_irrep_dev d, const double *__restrict__ cc, double *__restrict__ c) {
  const int64_t n = d.nsa * d.nsb;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t A = i / d.nsb, B = i % d.nsb;
    c[i] = ((d.syma[A] ^ d.symb[B]) & 7) == d.target ? cc[d.off[A] + d.bpos[B]] : 0.0;
  }
}

// flags[0] = 0 unless cc(A,B) == cc(B,A) for all (A, B) of the irrep,
// flags[1] = 0 unless cc(A,B) == -cc(B,A) (sigma_irrep.c's ci_irrep_parity).
__global__ void ci_irrep_parity_kernel(ci_irrep_dev d, const double *__restrict__ cc, cis_int tiles, int *flags) {
  const int64_t A = blockIdx.x / tiles, j = (int64_t)(blockIdx.x % tiles) * IR_THREADS + threadIdx.x;
  const int gc = d.syma[A] ^ d.target;
  bool sym = true, anti = true;
  if (j < d.nbg[gc]) {
    const int64_t B = d.blist[d.bstart[gc] + j];
    if (B <= A) {
      const double u = cc[d.off[A] + j], w = cc[d.off[B] + d.bpos[A]];
      sym = u == w;
      anti = u == -w;
    }
  }
  if (!__all_sync(0xffffffffu, sym) && (threadIdx.x & 31) == 0) flags[0] = 0;
  if (!__all_sync(0xffffffffu, anti) && (threadIdx.x & 31) == 0) flags[1] = 0;
}

static cis_status ir_grid(cis_int rows, cis_int tiles, const char *what, unsigned *blocks) {
  const cis_int b = rows * tiles;
  if (b > 0x7fffffff) return cis_error(CIS_ERR_TOO_LARGE, "blocked sigma %s: %lld blocks", what, (long long)b);
  *blocks = (unsigned)b;
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_irrep_gather(const ci_irrep_dev *d, const ci_irrep_pass *p, const double *cc,
                                                 double *D, int maxnp, cis_int maxnbg, cudaStream_t s) {
  const cis_int tiles = (maxnbg + IR_GATHER_COLS - 1) / IR_GATHER_COLS;
  unsigned blocks = 0;
  cis_status st = ir_grid(p->a1 - p->a0, tiles, "gather", &blocks);
  if (st != CIS_OK || blocks == 0 || maxnp == 0) return st;
  const size_t smem = (size_t)maxnp * IR_GATHER_COLS * sizeof(double);
  if (smem > 48 * 1024)
    CIS_CUDA_CHECK(cudaFuncSetAttribute(ci_irrep_gather_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  ci_irrep_gather_kernel<<<dim3(blocks, CI_IRREPS), IR_GATHER_COLS * IR_GATHER_WARPS, smem, s>>>(*d, *p, cc, tiles, D);
  CIS_CUDA_LAUNCH_CHECK("ci_irrep_gather_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_irrep_scatter(const ci_irrep_dev *d, const ci_irrep_pass *p, const double *X,
                                                  int first, double *S, cis_int maxnbg, cudaStream_t s) {
  const cis_int tiles = (maxnbg + IR_THREADS - 1) / IR_THREADS;
  unsigned blocks = 0;
  cis_status st = ir_grid(d->nsa, tiles, "scatter", &blocks);
  if (st != CIS_OK || blocks == 0) return st;
  ci_irrep_scatter_kernel<<<blocks, IR_THREADS, 0, s>>>(*d, *p, X, tiles, first, S);
  CIS_CUDA_LAUNCH_CHECK("ci_irrep_scatter_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_irrep_scatter_half(const ci_irrep_dev *d, const ci_irrep_pass *p,
                                                       const double *X, double t, int first, double *S,
                                                       cis_int maxnbg, cudaStream_t s) {
  const cis_int tiles = (maxnbg + IR_THREADS - 1) / IR_THREADS;
  unsigned blocks = 0;
  cis_status st = ir_grid(d->nsa, tiles, "half scatter", &blocks);
  if (st != CIS_OK || blocks == 0) return st;
  ci_irrep_scatter_half_kernel<<<blocks, IR_THREADS, 0, s>>>(*d, *p, X, tiles, t, first, S);
  CIS_CUDA_LAUNCH_CHECK("ci_irrep_scatter_half_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_irrep_compress(const ci_irrep_dev *d, const double *c, double *cc,
                                                   cis_int maxnbg, cudaStream_t s) {
  const cis_int tiles = (maxnbg + IR_THREADS - 1) / IR_THREADS;
  unsigned blocks = 0;
  cis_status st = ir_grid(d->nsa, tiles, "compress", &blocks);
  if (st != CIS_OK || blocks == 0) return st;
  ci_irrep_compress_kernel<<<blocks, IR_THREADS, 0, s>>>(*d, c, tiles, cc);
  CIS_CUDA_LAUNCH_CHECK("ci_irrep_compress_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_irrep_expand(const ci_irrep_dev *d, const double *cc, double *c, cudaStream_t s) {
  const cis_int n = d->nsa * d->nsb;
  if (n == 0) return CIS_OK;
  unsigned blocks = cis_blocks_for(n, 256);
  if (blocks > 65536) blocks = 65536;
  ci_irrep_expand_kernel<<<blocks, 256, 0, s>>>(*d, cc, c);
  CIS_CUDA_LAUNCH_CHECK("ci_irrep_expand_kernel");
  return CIS_OK;
}

extern "C" cis_status cis_launch_ci_irrep_parity(const ci_irrep_dev *d, const double *cc, int *flags, cis_int maxnbg,
                                                 cudaStream_t s) {
  CIS_CUDA_CHECK(cudaMemsetAsync(flags, 1, 2 * sizeof(int), s)); // bytes 1: both flags nonzero (true)
  const cis_int tiles = (maxnbg + IR_THREADS - 1) / IR_THREADS;
  unsigned blocks = 0;
  cis_status st = ir_grid(d->nsa, tiles, "parity", &blocks);
  if (st != CIS_OK || blocks == 0) return st;
  ci_irrep_parity_kernel<<<blocks, IR_THREADS, 0, s>>>(*d, cc, tiles, flags);
  CIS_CUDA_LAUNCH_CHECK("ci_irrep_parity_kernel");
  return CIS_OK;
}
