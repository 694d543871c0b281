/* ci_sigma_fused_map.h: the index maps of the fused sigma's tensor-core
 * product (ci_sigma_fused.cu), plain C so that the CPU test
 * tests/unit/test_ci_fused_map.c emulates the kernel's tiling with the very
 * same functions against the fragment layouts of the PTX ISA ("Matrix
 * Fragments for mma.m8n8k4 with .f64": A row = lane >> 2, col = lane % 4;
 * B row = lane % 4, col = lane >> 2; C row = lane >> 2, cols 2 (lane % 4) +
 * {0, 1}).
 *
 * Shared memory of a block: gs = 1/2 g zero-padded to kp x kp (kp = npair
 * rounded up to 8), row stride kp + 4; then the D tile, kp x NB, row stride
 * NB + 4. Warp items: FUSED_MT x FUSED_NT output tiles of 8 x 8, numbered
 * pair-group major. */
#ifndef CISPARSE_CI_SIGMA_FUSED_MAP_H
#define CISPARSE_CI_SIGMA_FUSED_MAP_H

#include <stddef.h>

#ifdef __CUDACC__
#define FUSED_HD __host__ __device__
#else
#define FUSED_HD
#endif

#define FUSED_MT 4 /* 8-pair output tiles per warp item */
#define FUSED_NT 2 /* 8-column output tiles per warp item */

static inline FUSED_HD int fused_kp(int npair) { return (npair + 7) & ~7; }
static inline FUSED_HD int fused_ldg(int kp) { return kp + 4; }
static inline FUSED_HD int fused_ldt(int nb) { return nb + 4; }
/* Shared-memory bytes of one block. */
static inline size_t fused_smem_bytes(int npair, int nb) {
  const size_t kp = (size_t)fused_kp(npair);
  return (kp * (size_t)fused_ldg((int)kp) + kp * (size_t)fused_ldt(nb)) * sizeof(double);
}
/* Warp items of a tile, and item it's first output row (pair) and column. */
static inline FUSED_HD int fused_items(int kp, int nb) {
  return (kp / 8 + FUSED_MT - 1) / FUSED_MT * (nb / (8 * FUSED_NT));
}
static inline FUSED_HD int fused_item_m0(int it, int nb) { return it / (nb / (8 * FUSED_NT)) * FUSED_MT * 8; }
static inline FUSED_HD int fused_item_n0(int it, int nb) { return it % (nb / (8 * FUSED_NT)) * FUSED_NT * 8; }
/* The lane's A fragment (gs[m0 + row, k0 + col]) and B fragment
 * (tile[k0 + row, n0 + col]) as shared-memory offsets. */
static inline FUSED_HD int fused_a_at(int m0, int k0, int lane, int ldg) { return (m0 + (lane >> 2)) * ldg + k0 + (lane & 3); }
static inline FUSED_HD int fused_b_at(int k0, int n0, int lane, int ldt) { return (k0 + (lane & 3)) * ldt + n0 + (lane >> 2); }
/* The lane's accumulator e (0, 1) of the tile at (m0, n0): row and column. */
static inline FUSED_HD int fused_c_row(int m0, int lane) { return m0 + (lane >> 2); }
static inline FUSED_HD int fused_c_col(int n0, int lane, int e) { return n0 + 2 * (lane & 3) + e; }

#endif
