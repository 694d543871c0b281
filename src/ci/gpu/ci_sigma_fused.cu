// ci_sigma_fused.cu: the fused gather + product of the GPU direct CI sigma,
// the string-driven algorithm of Knowles & Handy (Chem. Phys. Lett. 111, 315
// (1984)) and Olsen et al. (J. Chem. Phys. 89, 2185 (1988), §II.B) as in
// ci_sigma.cu, with D kept in shared memory:
//   D tile [pq, NB columns] = (E_pq c)(A, B)   ci_sigma_gather_tile (bit-identical to the gather's D)
//   X tile = 1/2 g D tile                      FP64 tensor cores: mma.sync.aligned.m8n8k4.row.col.f64
//                                              (PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f64", sm_80+)
// and only X written to global memory, in the layout the scatters of
// ci_sigma.cu read. Layouts and contracts in ci_sigma_fused.h; the CPU
// reference is src/ci/sigma.c (sigma_block, sigma_block_half).
//
// Blocks are persistent (as many as fit the device at once): each stages
// 1/2 g once, zero-padded to kp = npair rounded up to 8, in shared memory
// (row stride kp + 4: the A-fragment loads of a warp hit every bank twice,
// the least for 32 doubles), then loops over tiles (row, NB columns). A tile
// is kp x (NB + 4) doubles (stride NB + 4, the same bank spread for the B
// fragments). The product: warp items of FUSED_MT x FUSED_NT 8 x 8 output
// tiles (4 x 2: 4 A and 2 B fragment loads per 8 MMAs), items pair-group
// major so that the short last pair group (kp / 8 not a multiple of 4) comes
// last; per k-step of 4 one m8n8k4 MMA per 8 x 8 tile, k ascending. The
// fragments (PTX ISA, m8n8k4 .f64; lane = %laneid):
//   A (8 x 4, g rows pq, cols k):  row = lane >> 2, col = lane % 4
//   B (4 x 8, D rows k, cols B):   row = lane % 4,  col = lane >> 2
//   C (8 x 8, X):                  row = lane >> 2, cols 2 (lane % 4) + {0, 1}
// Deterministic: fixed k order, one writer per X element, no atomics; X
// differs from the DGEMM's only by the order of the sums.
#include <stdio.h>
#include "ci/gpu/ci_sigma_fused.h"
#include "ci/gpu/ci_sigma_fused_map.h"
#include "ci/gpu/ci_sigma_tile.cuh"
#include "kernels/kernel_common.cuh"

#define FUSED_THREADS 512 // 16 warps: one block per SM (g and the tile take ~221 KB), the gather latency-bound
#define FUSED_WARPS (FUSED_THREADS / 32)

// c (8 x 8 fragment, 2 doubles) += a (8 x 4) b (4 x 8).
__device__ __forceinline__ void dmma_8x8x4(double &c0, double &c1, double a, double b) {
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
               : "+d"(c0), "+d"(c1)
               : "d"(a), "d"(b));
#else
  __trap(); // no FP64 MMA: the host never launches this (cis_ci_sigma_fused_columns)
#endif
}

// X tile [pq < npair, j < width] = sum_k gs[pq, k] tile[k, j] (the block's
// warps over the items; out: X at the tile's first column, row stride m).
template <int NB>
__device__ __forceinline__ void fused_product(const double *gs, const double *tile, int np, int kp, int64_t width,
                                              double *__restrict__ out, int64_t m) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, ldg = fused_ldg(kp), ldt = fused_ldt(NB);
  const int items = fused_items(kp, NB);
  for (int it = warp; it < items; it += FUSED_WARPS) {
    const int m0 = fused_item_m0(it, NB), n0 = fused_item_n0(it, NB);
    double acc[FUSED_MT][FUSED_NT][2];
#pragma unroll
    for (int i = 0; i < FUSED_MT; ++i)
#pragma unroll
      for (int t = 0; t < FUSED_NT; ++t) acc[i][t][0] = acc[i][t][1] = 0.0;
    for (int k0 = 0; k0 < kp; k0 += 4) {
      double a[FUSED_MT], b[FUSED_NT];
#pragma unroll
      for (int i = 0; i < FUSED_MT; ++i) a[i] = m0 + 8 * i < kp ? gs[fused_a_at(m0 + 8 * i, k0, lane, ldg)] : 0.0;
#pragma unroll
      for (int t = 0; t < FUSED_NT; ++t) b[t] = tile[fused_b_at(k0, n0 + 8 * t, lane, ldt)];
#pragma unroll
      for (int i = 0; i < FUSED_MT; ++i)
        if (m0 + 8 * i < kp) // warp-uniform: the whole warp issues the MMA or none
#pragma unroll
          for (int t = 0; t < FUSED_NT; ++t) dmma_8x8x4(acc[i][t][0], acc[i][t][1], a[i], b[t]);
    }
#pragma unroll
    for (int i = 0; i < FUSED_MT; ++i) {
      const int pq = fused_c_row(m0 + 8 * i, lane);
      if (pq >= np) continue;
#pragma unroll
      for (int t = 0; t < FUSED_NT; ++t)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int j = fused_c_col(n0 + 8 * t, lane, e);
          if (j < width) out[(int64_t)pq * m + j] = acc[i][t][e];
        }
    }
  }
}

// Tiles t = blockIdx.x, blockIdx.x + gridDim.x, ... of tiles_per_row tiles per
// (vector, alpha string) row: the columns b0 .. b0+NB-1 (half: those <= A).
template <int NB>
__global__ void __launch_bounds__(FUSED_THREADS)
    ci_sigma_fused_kernel(cis_ci_sigma_dev d, const double *__restrict__ g, const double *__restrict__ C, cis_int a0,
                          cis_int nr, int64_t tiles_per_row, int64_t ntiles, int half, double *__restrict__ X,
                          int64_t m) {
  extern __shared__ double smem[];
  const int np = d.npair, kp = fused_kp(np), ldg = fused_ldg(kp);
  double *gs = smem, *tile = smem + kp * ldg;
  for (int i = threadIdx.x; i < kp * ldg; i += blockDim.x) { // 1/2 g, zero-padded (read after the first barrier)
    const int p = i / ldg, k = i % ldg;
    gs[i] = p < np && k < np ? g[p * np + k] : 0.0;
  }
  const int j = threadIdx.x % NB, group = threadIdx.x / NB;
  for (int64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
    const int64_t row = t / tiles_per_row, b0 = t % tiles_per_row * NB;
    const int64_t v = row / nr, A = a0 + row % nr, nsb = d.nsb;
    const int64_t ncol = half ? A + 1 : nsb;
    if (b0 >= ncol) continue; // the whole block: before any barrier
    __syncthreads();          // the previous tile's product has read its D
    ci_sigma_gather_tile(d, C + v * d.ndet, A, b0, ncol, j, group, FUSED_THREADS / NB, kp, fused_ldt(NB), tile);
    const int64_t width = ncol - b0 < NB ? ncol - b0 : NB;
    fused_product<NB>(gs, tile, np, kp, width, X + (half ? ci_tri(A) - ci_tri(a0) : row * nsb) + b0, m);
  }
}

extern "C" cis_status cis_ci_sigma_fused_columns(int npair, int *nb, char *why, size_t len) {
  int dev = 0, optin = 0;
  cudaFuncAttributes fa;
  *nb = 0;
  CIS_CUDA_CHECK(cudaGetDevice(&dev));
  CIS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  CIS_CUDA_CHECK(cudaFuncGetAttributes(&fa, ci_sigma_fused_kernel<64>));
  if (fa.ptxVersion < 80) {
    snprintf(why, len, "the kernel was built for sm_%d, FP64 MMA needs sm_80+", fa.ptxVersion);
    return CIS_OK;
  }
  if (fused_smem_bytes(npair, 64) <= (size_t)optin) *nb = 64;
  else if (fused_smem_bytes(npair, 32) <= (size_t)optin) *nb = 32;
  else
    snprintf(why, len, "%d pairs: 1/2 g and a 32-column tile need %zu bytes of shared memory, the device allows %d",
             npair, fused_smem_bytes(npair, 32), optin);
  return CIS_OK;
}

// Persistent launch of the kernel for NB columns over ntiles tiles.
template <int NB>
static cis_status launch_fused(const cis_ci_sigma_dev *d, const double *g, const double *C, cis_int a0, cis_int nr,
                               int64_t tiles_per_row, int64_t ntiles, int half, double *X, int64_t m,
                               cudaStream_t s) {
  const size_t smem = fused_smem_bytes(d->npair, NB);
  int dev = 0, sms = 0, per_sm = 0;
  if (ntiles == 0) return CIS_OK;
  CIS_CUDA_CHECK(cudaFuncSetAttribute(ci_sigma_fused_kernel<NB>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  CIS_CUDA_CHECK(cudaGetDevice(&dev));
  CIS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CIS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ci_sigma_fused_kernel<NB>, FUSED_THREADS, smem));
  if (per_sm < 1)
    return cis_error(CIS_ERR_UNSUPPORTED, "fused direct sigma: %zu bytes of shared memory per block do not fit", smem);
  const int64_t resident = (int64_t)sms * per_sm;
  const unsigned blocks = (unsigned)(ntiles < resident ? ntiles : resident);
  ci_sigma_fused_kernel<NB><<<blocks, FUSED_THREADS, smem, s>>>(*d, g, C, a0, nr, tiles_per_row, ntiles, half, X, m);
  CIS_CUDA_LAUNCH_CHECK(half ? "ci_sigma_fused_kernel (half)" : "ci_sigma_fused_kernel");
  return CIS_OK;
}

static cis_status launch_nb(const cis_ci_sigma_dev *d, const double *g, int nb, const double *C, cis_int a0,
                            cis_int nr, int64_t rows, int half, double *X, int64_t m, cudaStream_t s) {
  if (nb != 32 && nb != 64) return cis_error(CIS_ERR_INVALID, "fused direct sigma: %d columns per block (32 or 64)", nb);
  const int64_t tiles_per_row = (d->nsb + nb - 1) / nb;
  return nb == 64 ? launch_fused<64>(d, g, C, a0, nr, tiles_per_row, rows * tiles_per_row, half, X, m, s)
                  : launch_fused<32>(d, g, C, a0, nr, tiles_per_row, rows * tiles_per_row, half, X, m, s);
}

extern "C" cis_status cis_launch_ci_sigma_fused(const cis_ci_sigma_dev *d, const double *g, int nb, const double *C,
                                                int gv, cis_int a0, cis_int nr, double *X, cudaStream_t s) {
  return launch_nb(d, g, nb, C, a0, nr, (int64_t)gv * nr, 0, X, (int64_t)gv * nr * d->nsb, s);
}

extern "C" cis_status cis_launch_ci_sigma_fused_half(const cis_ci_sigma_dev *d, const double *g, int nb,
                                                     const double *C, cis_int a0, cis_int nr, double *X,
                                                     cudaStream_t s) {
  const int64_t m = (int64_t)(a0 + nr) * (a0 + nr + 1) / 2 - (int64_t)a0 * (a0 + 1) / 2;
  return launch_nb(d, g, nb, C, a0, nr, nr, 1, X, m, s);
}
