/* ci_rules.h: the Slater-Condon rules and the determinant lookup on raw
 * arrays, one source for the host (src/ci/ files) and the device
 * (src/ci/gpu/ci_build.cu), so both builds of the Hamiltonian do the same
 * arithmetic in the same order and agree bit for bit.
 *
 * Rules: Szabo & Ostlund, "Modern Quantum Chemistry", §2.3.3, Tables 2.3-2.4,
 * with the fermionic sign of a^+_a a_i = (-1)^(occupied orbitals strictly
 * between i and a); determinants are ordered alpha operators before beta, so a
 * beta excitation passes an even number of alpha operators: no extra sign.
 * Lookup: the string hash tables and per-alpha-string beta lists of
 * src/ci/space.c (layout in cisparse/ci.h). C11 and CUDA C++. */
#ifndef CISPARSE_CI_RULES_H
#define CISPARSE_CI_RULES_H

#include <stdint.h>

#ifdef __CUDACC__
#define CI_FN static __host__ __device__ __forceinline__
#else
#define CI_FN static inline
#endif

/* The integrals as arrays: h1[i*norb+j], eri packed as in cis_fcidump. */
typedef struct ci_ints {
  int norb;
  const double *h1, *eri;
} ci_ints;

CI_FN int ci_popcount(uint64_t s) {
#ifdef __CUDA_ARCH__
  return __popcll(s);
#else
  return __builtin_popcountll(s);
#endif
}
/* Lowest set bit of s != 0. */
CI_FN int ci_lowest(uint64_t s) {
#ifdef __CUDA_ARCH__
  return __ffsll((long long)s) - 1;
#else
  return __builtin_ctzll(s);
#endif
}
/* Packed index of the unordered pair {i, j}: max(i,j)(max+1)/2 + min. */
CI_FN int64_t ci_pair(int64_t i, int64_t j) { return i >= j ? i * (i + 1) / 2 + j : j * (j + 1) / 2 + i; }
/* (ij|kl), 0-based, through the 8-fold symmetric packed array. */
CI_FN double ci_ints_eri(const ci_ints *I, int i, int j, int k, int l) {
  return I->eri[ci_pair(ci_pair(i, j), ci_pair(k, l))];
}
CI_FN double ci_ints_h1(const ci_ints *I, int i, int j) { return I->h1[i * I->norb + j]; }
/* (-1)^(number of set bits of s strictly between orbitals p and q). */
CI_FN double ci_sign_between(uint64_t s, int p, int q) {
  int lo = p < q ? p : q, hi = p < q ? q : p;
  uint64_t mask = (hi - lo > 1) ? (((~0ull) >> (64 - (hi - lo - 1))) << (lo + 1)) : 0;
  return (ci_popcount(s & mask) & 1) ? -1.0 : 1.0;
}

/* Single excitation i -> a within one spin: h_ia + sum over orbitals k occupied
 * in both strings of that spin [(ia|kk) - (ik|ka)] + sum over the other spin's
 * orbitals (ia|kk); `common` = same-spin occupied orbitals shared by I and J. */
CI_FN double ci_rule_single(const ci_ints *I, int i, int a, uint64_t common, uint64_t other) {
  double v = ci_ints_h1(I, i, a);
  for (uint64_t s = common; s; s &= s - 1) {
    int k = ci_lowest(s);
    v += ci_ints_eri(I, i, a, k, k) - ci_ints_eri(I, i, k, k, a);
  }
  for (uint64_t s = other; s; s &= s - 1) {
    int k = ci_lowest(s);
    v += ci_ints_eri(I, i, a, k, k);
  }
  return v;
}

/* Sum over p of one spin: h_pp + 1/2 sum_q [(pp|qq) - (pq|qp)]. */
CI_FN double ci_rule_same_spin_energy(const ci_ints *I, uint64_t s) {
  double e = 0;
  for (uint64_t u = s; u; u &= u - 1) {
    int p = ci_lowest(u);
    e += ci_ints_h1(I, p, p);
    for (uint64_t w = u & (u - 1); w; w &= w - 1) {
      int q = ci_lowest(w);
      e += ci_ints_eri(I, p, p, q, q) - ci_ints_eri(I, p, q, q, p);
    }
  }
  return e;
}

/* <D|H|D> of the determinant (alpha, beta), electronic. */
CI_FN double ci_rule_diagonal(const ci_ints *I, uint64_t alpha, uint64_t beta) {
  double e = ci_rule_same_spin_energy(I, alpha) + ci_rule_same_spin_energy(I, beta);
  for (uint64_t u = alpha; u; u &= u - 1) {
    int p = ci_lowest(u);
    for (uint64_t w = beta; w; w &= w - 1) e += ci_ints_eri(I, p, p, ci_lowest(w), ci_lowest(w));
  }
  return e;
}

/* Hash of a string in the space's open-addressing tables. */
CI_FN uint64_t ci_string_hash(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
  return x;
}
/* Position of string s in str[] through its table (size mask + 1), -1 if absent. */
CI_FN int64_t ci_string_find(const uint64_t *str, const int32_t *table, uint64_t mask, uint64_t s) {
  for (uint64_t h = ci_string_hash(s) & mask;; h = (h + 1) & mask) {
    int32_t p = table[h];
    if (p < 0) return -1;
    if (str[p] == s) return p;
  }
}
/* Determinant of alpha position ia and beta position ib, -1 if absent: the
 * beta positions of alpha string ia are blist[aptr[ia] .. aptr[ia+1]) (sorted),
 * their determinants dlist[...]; a list 0..count-1 is indexed directly. */
CI_FN int64_t ci_det_find(const int64_t *aptr, const int32_t *blist, const int32_t *dlist, int64_t ia, int64_t ib) {
  int64_t lo = aptr[ia], hi = aptr[ia + 1], end = hi;
  if (lo == hi || ib > blist[hi - 1]) return -1; /* beyond this alpha string's levels */
  if (blist[hi - 1] == hi - lo - 1) return dlist[lo + ib]; /* list is 0..count-1: direct */
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (blist[mid] < ib) lo = mid + 1; else hi = mid;
  }
  return (lo < end && blist[lo] == ib) ? dlist[lo] : -1;
}

#endif
