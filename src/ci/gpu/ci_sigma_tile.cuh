// ci_sigma_tile.cuh: the D tile of the GPU direct CI sigma, shared by the
// gather kernel (ci_sigma.cu) and the fused gather + product (ci_sigma_fused.cu)
// so that both build the same D bit for bit (the CPU's: sigma.c's sigma_block,
// Knowles & Handy 1984, Olsen et al. 1988 §II.B). CUDA sources only.
#ifndef CISPARSE_CI_SIGMA_TILE_CUH
#define CISPARSE_CI_SIGMA_TILE_CUH

#include "ci/gpu/ci_sigma.h"

// Packed lower triangle: row R of the half sigma's X starts at tri(R) = R(R+1)/2.
__device__ __forceinline__ int64_t ci_tri(int64_t r) { return r * (r + 1) / 2; }

// tile[pq * ld + j] = D[pq, b0 + j] = (E_pq c)(A, b0 + j) for the columns
// b0 + j < ncol (zero elsewhere, and in the rows pq < rows beyond npair):
// the tile is zeroed, then the alpha links of A are added (their pairs are
// distinct, so no element gets two), then after a barrier the beta links of
// each column's B (distinct pairs again): every element is (0 + alpha) + beta,
// the order of sigma.c whatever the split of the links. This thread owns
// column j and takes the links group, group + groups, ... Every thread of the
// block calls it (barriers); it ends with a barrier, the tile complete.
__device__ __forceinline__ void ci_sigma_gather_tile(const cis_ci_sigma_dev &d, const double *__restrict__ c,
                                                     int64_t A, int64_t b0, int64_t ncol, int j, int group, int groups,
                                                     int rows, int ld, double *tile) {
  const int64_t nsb = d.nsb, B = b0 + j;
  const bool valid = B < ncol;
  for (int i = threadIdx.x; i < rows * ld; i += blockDim.x) tile[i] = 0.0;
  __syncthreads();
  if (valid)
    for (int l = group; l < d.nla; l += groups) { // alpha links of A: D[pq, B] += s c(J, B)
      const ci_link k = d.alink[A * d.nla + l];
      tile[(int)k.pair * ld + j] += (double)k.sign * c[(int64_t)k.str * nsb + B];
    }
  __syncthreads();
  if (valid)
    for (int l = group; l < d.nlb; l += groups) { // beta links of B: D[pq, B] += s c(A, J)
      const ci_link k = d.blink_t[(int64_t)l * nsb + B];
      tile[(int)k.pair * ld + j] += (double)k.sign * c[A * nsb + k.str];
    }
  __syncthreads();
}

#endif
