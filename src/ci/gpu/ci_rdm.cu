// ci_rdm.cu: the gather kernel of the GPU reduced density matrices,
//   D[pq, I] = <I|E_pq|c>   for the determinants I = (A, B) of a block of alpha strings,
// string-driven through the single-replacement links (Knowles & Handy, Chem.
// Phys. Lett. 111, 315 (1984); Olsen et al., J. Chem. Phys. 89, 2185 (1988),
// §II.B), as PySCF's fci/rdm.c builds its t1 intermediates; the products
// <bra|E_pq E_rs|ket> = sum_I D_bra[qp, I] D_ket[rs, I] are cuBLAS DGEMMs in
// ci_rdm_dev.c. CPU reference: src/ci/rdm.c (gather). Layout: ci_rdm.h.
#include "ci/gpu/ci_rdm.h"
#include "kernels/kernel_common.cuh"

#define RDM_THREADS 128

// One block: W consecutive columns (beta strings) of one alpha string A. The
// tile D[:, cols] ([row][lane], W lanes, RDM_THREADS / W link groups) is
// built in shared memory: zero, then the alpha links of A (each link of A
// has its own row, so no two groups add to the same element), a barrier,
// then each lane's beta links (again one row per link): every element gets
// at most one alpha and one beta term, in that order, as on the CPU, so D
// equals the CPU's bit for bit. The tile leaves row by row, coalesced.
__global__ void ci_rdm_gather_kernel(cis_ci_rdm_dev d, const double *__restrict__ c, cis_int a0, cis_int tiles,
                                     int W, int mode, double *__restrict__ D, int64_t m) {
  extern __shared__ double tile[];
  const int lane = threadIdx.x % W, grp = threadIdx.x / W, ngrp = blockDim.x / W;
  const int64_t row = blockIdx.x / tiles, b0 = (blockIdx.x % tiles) * (int64_t)W;
  const int64_t A = a0 + row, nsb = d.nsb, B = b0 + lane;
  const int n2 = d.n2;
  for (int i = threadIdx.x; i < n2 * W; i += blockDim.x) tile[i] = 0.0;
  __syncthreads();
  const bool valid = B < nsb;
  if (valid && mode != 1)
    for (int l = grp; l < d.nla; l += ngrp) { // alpha links of A: D[pq, (A,B)] += s c(J, B)
      const ci_link k = d.alink[A * d.nla + l];
      tile[(int)k.pair * W + lane] += (double)k.sign * c[(int64_t)k.str * nsb + B];
    }
  __syncthreads();
  if (valid && mode != 0)
    for (int l = grp; l < d.nlb; l += ngrp) { // beta links of B: D[pq, (A,B)] += s c(A, J)
      const ci_link k = d.blink_t[(int64_t)l * nsb + B];
      tile[(int)k.pair * W + lane] += (double)k.sign * c[A * nsb + k.str];
    }
  __syncthreads();
  double *out = D + row * nsb + b0;
  const int64_t width = nsb - b0 < W ? nsb - b0 : W;
  for (int i = threadIdx.x; i < n2 * W; i += blockDim.x) {
    const int r = i / W, j = i % W;
    if (j < width) out[(int64_t)r * m + j] = tile[i];
  }
}

// Columns per block: the widest power of two up to 32 whose tile fits 96 KiB
// of shared memory (two blocks per SM), at least 1 (n2 <= 4096: 32 KiB).
static int rdm_tile_width(int n2) {
  int W = 32;
  while (W > 1 && (size_t)n2 * W * sizeof(double) > 96 * 1024) W /= 2;
  return W;
}

extern "C" cis_status cis_launch_ci_rdm_gather(const cis_ci_rdm_dev *d, const double *c, cis_int a0, cis_int nr,
                                               int mode, double *D, cudaStream_t s) {
  const int W = rdm_tile_width(d->n2);
  const cis_int tiles = (d->nsb + W - 1) / W, blocks = nr * tiles;
  const size_t smem = (size_t)d->n2 * W * sizeof(double);
  if (blocks == 0) return CIS_OK;
  if (blocks > 0x7fffffff) return cis_error(CIS_ERR_TOO_LARGE, "RDM gather: %lld blocks", (long long)blocks);
  if (smem > 48 * 1024)
    CIS_CUDA_CHECK(cudaFuncSetAttribute(ci_rdm_gather_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  ci_rdm_gather_kernel<<<(unsigned)blocks, RDM_THREADS, smem, s>>>(*d, c, a0, tiles, W, mode, D,
                                                                   (int64_t)nr * d->nsb);
  CIS_CUDA_LAUNCH_CHECK("ci_rdm_gather_kernel");
  return CIS_OK;
}
