/* test_ci_fused_map.c: the tiling of the fused sigma's tensor-core product
 * (src/ci/gpu/ci_sigma_fused.cu) emulated on the CPU with the kernel's own
 * index maps (src/ci/gpu/ci_sigma_fused_map.h). The "hardware" here is the
 * m8n8k4 .f64 MMA as the PTX ISA defines its fragments (section "Matrix
 * Fragments for mma.m8n8k4 with .f64"), written out below independently of
 * the maps: A (8 x 4) row = lane >> 2, col = lane % 4; B (4 x 8) row =
 * lane % 4, col = lane >> 2; C (8 x 8) row = lane >> 2, cols 2 (lane % 4) + e.
 * For pair counts that are and are not multiples of 8 (1, 3, 28, 36, 55, 91,
 * 136 = 16 orbitals), 32 and 64 columns, full and partial tiles:
 *  - X tile = g D tile to 1e-13 (relative to sum |g||D|), every X element of
 *    the tile written exactly once, nothing beyond the tile's width or npair;
 *  - the A and B fragment loads of a warp spread over the 16 double-wide
 *    shared-memory banks evenly (2 each: no conflict beyond the minimum);
 *  - the shared memory of 16 orbitals at 64 columns fits an H100 block
 *    (232448 bytes), 17 orbitals at 32 columns does not (the fallback). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ci/gpu/ci_sigma_fused_map.h"
#include "test_util.h"

/* One m8n8k4 MMA of a warp as the PTX ISA defines it: c[lane][e] += (A B)
 * at the lane's accumulator positions, A and B assembled from the lanes'
 * fragments a[lane], b[lane]. */
static void ptx_mma_m8n8k4(const double a[32], const double b[32], double c[32][2]) {
  double A[8][4], B[4][8];
  for (int lane = 0; lane < 32; ++lane) {
    A[lane >> 2][lane % 4] = a[lane];
    B[lane % 4][lane >> 2] = b[lane];
  }
  for (int lane = 0; lane < 32; ++lane)
    for (int e = 0; e < 2; ++e) {
      const int row = lane >> 2, col = (lane % 4) * 2 + e;
      for (int k = 0; k < 4; ++k) c[lane][e] += A[row][k] * B[k][col];
    }
}

/* Every double-wide bank (offset mod 16) hit exactly twice by the 32 offsets. */
static int banks_even(const int at[32]) {
  int hits[16] = {0};
  for (int lane = 0; lane < 32; ++lane) hits[at[lane] % 16]++;
  for (int b = 0; b < 16; ++b)
    if (hits[b] != 2) return 0;
  return 1;
}

/* The product of one tile of nb columns, width of them valid, np pairs. */
static void check_tile(int np, int nb, int width) {
  const int kp = fused_kp(np), ldg = fused_ldg(kp), ldt = fused_ldt(nb);
  double *g = malloc((size_t)np * np * sizeof *g), *D = malloc((size_t)np * nb * sizeof *D);
  double *gs = malloc((size_t)kp * ldg * sizeof *gs), *tile = malloc((size_t)kp * ldt * sizeof *tile);
  double *X = malloc((size_t)np * nb * sizeof *X);
  int *writes = calloc((size_t)np * nb, sizeof *writes), *covered = calloc((size_t)(kp / 8) * (nb / 8), sizeof *covered);
  if (!g || !D || !gs || !tile || !X || !writes || !covered) {
    CHECK(0, "allocation");
    goto done;
  }
  test_fill_random(g, CIS_F64, np * np, 11 + (unsigned)np);
  test_fill_random(D, CIS_F64, np * nb, 17 + (unsigned)nb);
  for (int p = 0; p < kp; ++p) /* as the kernel stages them: zero padding; the tile's stride padding garbage */
    for (int k = 0; k < ldg; ++k) gs[p * ldg + k] = p < np && k < np ? g[p * np + k] : k < kp ? 0.0 : NAN;
  for (int k = 0; k < kp; ++k)
    for (int j = 0; j < ldt; ++j) tile[k * ldt + j] = k < np && j < width ? D[k * nb + j] : j < nb ? 0.0 : NAN;
  for (int i = 0; i < np * nb; ++i) X[i] = NAN;
  int uneven = 0;
  for (int it = 0; it < fused_items(kp, nb); ++it) { /* one warp's item, as fused_product */
    const int m0 = fused_item_m0(it, nb), n0 = fused_item_n0(it, nb);
    double acc[FUSED_MT][FUSED_NT][32][2];
    memset(acc, 0, sizeof acc);
    for (int k0 = 0; k0 < kp; k0 += 4)
      for (int i = 0; i < FUSED_MT; ++i) {
        if (m0 + 8 * i >= kp) continue;
        for (int t = 0; t < FUSED_NT; ++t) {
          double a[32], b[32];
          int at_a[32], at_b[32];
          for (int lane = 0; lane < 32; ++lane) {
            at_a[lane] = fused_a_at(m0 + 8 * i, k0, lane, ldg);
            at_b[lane] = fused_b_at(k0, n0 + 8 * t, lane, ldt);
            a[lane] = gs[at_a[lane]];
            b[lane] = tile[at_b[lane]];
          }
          uneven += !banks_even(at_a) + !banks_even(at_b);
          ptx_mma_m8n8k4(a, b, acc[i][t]);
        }
      }
    for (int i = 0; i < FUSED_MT; ++i)
      for (int t = 0; t < FUSED_NT; ++t) {
        if (m0 + 8 * i < kp) covered[((m0 + 8 * i) / 8) * (nb / 8) + (n0 + 8 * t) / 8]++;
        for (int lane = 0; lane < 32; ++lane)
          for (int e = 0; e < 2; ++e) {
            const int pq = fused_c_row(m0 + 8 * i, lane), j = fused_c_col(n0 + 8 * t, lane, e);
            if (m0 + 8 * i >= kp || pq >= np || j >= width) continue;
            X[pq * nb + j] = acc[i][t][lane][e];
            writes[pq * nb + j]++;
          }
      }
  }
  double worst = 0;
  int wrong_writes = 0, wrong_cover = 0;
  for (int pq = 0; pq < np; ++pq)
    for (int j = 0; j < nb; ++j) {
      wrong_writes += writes[pq * nb + j] != (j < width);
      if (j >= width) continue;
      double want = 0, scale = 0;
      for (int k = 0; k < np; ++k) {
        want += g[pq * np + k] * D[k * nb + j];
        scale += fabs(g[pq * np + k] * D[k * nb + j]);
      }
      const double d = fabs(X[pq * nb + j] - want) / (scale > 0 ? scale : 1.0);
      if (!(d <= worst)) worst = d; /* NaN sticks */
    }
  for (int i = 0; i < (kp / 8) * (nb / 8); ++i) wrong_cover += covered[i] != 1;
  CHECK(worst <= 1e-13, "npair %d, %d columns (%d valid): X vs g D rel diff %.3e", np, nb, width, worst);
  CHECK(wrong_writes == 0 && wrong_cover == 0, "npair %d, %d columns (%d valid): %d elements not written once, %d tiles not "
        "covered once", np, nb, width, wrong_writes, wrong_cover);
  CHECK(uneven == 0, "npair %d, %d columns: %d fragment loads with a shared-memory bank hit more than twice", np, nb, uneven);
done:
  free(g), free(D), free(gs), free(tile), free(X), free(writes), free(covered);
}

int main(void) {
  const int npairs[] = {1, 3, 28, 36, 55, 91, 136};
  for (size_t i = 0; i < sizeof npairs / sizeof *npairs; ++i)
    for (int nb = 32; nb <= 64; nb *= 2) {
      check_tile(npairs[i], nb, nb);
      check_tile(npairs[i], nb, nb - 5);
      check_tile(npairs[i], nb, 1);
    }
  CHECK(fused_smem_bytes(136, 64) <= 232448, "16 orbitals, 64 columns: %zu bytes of shared memory", fused_smem_bytes(136, 64));
  CHECK(fused_smem_bytes(153, 32) > 232448, "17 orbitals, 32 columns fit: %zu bytes", fused_smem_bytes(153, 32));
  return test_summary("test_ci_fused_map");
}
