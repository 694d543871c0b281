/* ci_internal.h: integral indexing and bit-string helpers shared by src/ci/. */
#ifndef CISPARSE_CI_INTERNAL_H
#define CISPARSE_CI_INTERNAL_H

#include <stdint.h>
#include "cisparse/ci.h"

/* Packed index of the unordered pair {i, j}: max(i,j)(max+1)/2 + min. */
static inline int64_t ci_pair(int64_t i, int64_t j) {
  return i >= j ? i * (i + 1) / 2 + j : j * (j + 1) / 2 + i;
}
/* (ij|kl), 0-based, through the 8-fold symmetric packed array. */
static inline double ci_eri(const cis_fcidump *F, int i, int j, int k, int l) {
  return F->eri[ci_pair(ci_pair(i, j), ci_pair(k, l))];
}
static inline double ci_h1(const cis_fcidump *F, int i, int j) { return F->h1[i * F->norb + j]; }

static inline int ci_popcount(uint64_t s) { return __builtin_popcountll(s); }
static inline int ci_lowest(uint64_t s) { return __builtin_ctzll(s); }
/* (-1)^(number of set bits of s strictly between orbitals p and q). */
static inline double ci_sign_between(uint64_t s, int p, int q) {
  int lo = p < q ? p : q, hi = p < q ? q : p;
  uint64_t mask = (hi - lo > 1) ? (((~0ull) >> (64 - (hi - lo - 1))) << (lo + 1)) : 0;
  return (ci_popcount(s & mask) & 1) ? -1.0 : 1.0;
}
/* Number of orbitals occupied in a but not in b (excitation level of a spin). */
static inline int ci_excitation(uint64_t a, uint64_t b) { return ci_popcount(a & ~b); }
/* All-ones string of the first n orbitals. */
static inline uint64_t ci_first(int n) { return n >= 64 ? ~0ull : ((1ull << n) - 1); }
/* Symmetry label (XOR of 0-based irreps) of a string. */
static inline int ci_string_sym(const cis_fcidump *F, uint64_t s) {
  int g = 0;
  for (; s; s &= s - 1) g ^= F->orbsym[ci_lowest(s)] - 1;
  return g;
}

/* Single excitation i -> a within one spin: h_ia + sum over orbitals k occupied
 * in both strings of that spin [(ia|kk) - (ik|ka)] + sum over the other spin's
 * orbitals (ia|kk); `common` = same-spin occupied orbitals shared by I and J. */
double ci_single_value(const cis_fcidump *F, int i, int a, uint64_t common, uint64_t other);

/* Space internals (space.c): string positions and determinant lookup by position. */
cis_int ci_space_find_pos(const cis_ci_space *S, cis_int ia, cis_int ib);
cis_int ci_space_alpha_pos(const cis_ci_space *S, uint64_t a);
cis_int ci_space_beta_pos(const cis_ci_space *S, uint64_t b);
cis_int ci_space_det_alpha_pos(const cis_ci_space *S, cis_int i);
cis_int ci_space_det_beta_pos(const cis_ci_space *S, cis_int i);

/* The space's arrays as they are (read-only view, owned by the space): what
 * the GPU build (src/gpu/ci_build_dev.c) uploads to look determinants up on
 * the device exactly as ci_space_find_pos and the string hash tables do. */
typedef struct ci_space_view {
  cis_int ndet, na, nb;            /* determinants, alpha strings, beta strings */
  const uint64_t *astr, *bstr;     /* strings, sorted by (level, value) */
  const int32_t *atab, *btab;      /* open-addressing tables: position or -1 */
  uint64_t amask, bmask;           /* table sizes - 1 */
  const cis_int *aptr;             /* na + 1: range of each alpha string in blist/dlist */
  const int32_t *blist, *dlist;    /* ndet: beta positions (sorted), determinant indices */
  const int32_t *det_a, *det_b;    /* ndet: string positions of each determinant */
} ci_space_view;
void ci_space_get_view(const cis_ci_space *S, ci_space_view *v);
/* The hash of a string in those tables. */
static inline uint64_t ci_string_hash(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
  return x;
}

#endif
