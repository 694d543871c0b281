/* slater.c: Slater-Condon rules for determinants given as alpha/beta bit
 * strings (Szabo & Ostlund, "Modern Quantum Chemistry", §2.3.3, Tables 2.3-2.4),
 * with the fermionic sign of a^+_a a_i = (-1)^(occupied orbitals strictly
 * between i and a). The diagonal and single-excitation values are ci_rules.h
 * (shared with the device build); the pair test ci_element is here, one
 * body (ci_bits.h) for one-word (NORB <= 64) and two-word strings. */
#include "ci/ci_internal.h"

double ci_single_value(const cis_fcidump *F, int i, int a, uint64_t common, uint64_t other) {
  ci_ints I = ci_ints_of(F);
  return ci_rule_single(&I, i, a, common, other);
}

double ci_diagonal(const cis_fcidump *F, uint64_t alpha, uint64_t beta) {
  ci_ints I = ci_ints_of(F);
  return ci_rule_diagonal(&I, alpha, beta);
}

double ci_diagonal_bits(const cis_fcidump *F, const cis_ci_bits *alpha, const cis_ci_bits *beta) {
  ci_ints I = ci_ints_of(F);
  return F->norb <= 64 ? bits_rule_diagonal(&I, *alpha, *beta, 1) : bits_rule_diagonal(&I, *alpha, *beta, 2);
}

/* Hole i and particle a of a single excitation within one spin: J -> I. */
CI_ALWAYS_INLINE void single_pair(ci_bits from, ci_bits to, int *i, int *a, int nw) {
  *i = bits_lowest(bits_andnot(from, to, nw), nw);
  *a = bits_lowest(bits_andnot(to, from, nw), nw);
}

/* <to|H|from> of a same-spin double excitation. */
CI_ALWAYS_INLINE double same_spin_double(const ci_ints *I, ci_bits from, ci_bits to, int nw) {
  ci_bits holes = bits_andnot(from, to, nw), parts = bits_andnot(to, from, nw);
  int i = bits_lowest(holes, nw), j = bits_lowest(bits_flip(holes, i, nw), nw);
  int a = bits_lowest(parts, nw), b = bits_lowest(bits_flip(parts, a, nw), nw);
  double s1 = bits_sign_between(from, i, a, nw);
  ci_bits mid = bits_flip2(from, i, a, nw);
  double s2 = bits_sign_between(mid, j, b, nw);
  return s1 * s2 * (ci_ints_eri(I, i, a, j, b) - ci_ints_eri(I, i, b, j, a));
}

/* <I|H|J> on nw-word strings. */
CI_ALWAYS_INLINE double element(const ci_ints *I, ci_bits ai, ci_bits bi, ci_bits aj, ci_bits bj, int nw) {
  int da = bits_popcount(bits_andnot(aj, ai, nw), nw), db = bits_popcount(bits_andnot(bj, bi, nw), nw);
  int i, a, j, b;
  if (bits_popcount(ai, nw) != bits_popcount(aj, nw) || bits_popcount(bi, nw) != bits_popcount(bj, nw)) return 0.0;
  if (da + db == 0) return bits_rule_diagonal(I, ai, bi, nw);
  if (da + db > 2) return 0.0;
  if (da == 1 && db == 0) {
    single_pair(aj, ai, &i, &a, nw);
    return bits_sign_between(aj, i, a, nw) * bits_rule_single(I, i, a, bits_and(ai, aj, nw), bj, nw);
  }
  if (da == 0 && db == 1) {
    single_pair(bj, bi, &i, &a, nw);
    return bits_sign_between(bj, i, a, nw) * bits_rule_single(I, i, a, bits_and(bi, bj, nw), aj, nw);
  }
  if (da == 2) return same_spin_double(I, aj, ai, nw);
  if (db == 2) return same_spin_double(I, bj, bi, nw);
  single_pair(aj, ai, &i, &a, nw);
  single_pair(bj, bi, &j, &b, nw);
  return bits_sign_between(aj, i, a, nw) * bits_sign_between(bj, j, b, nw) * ci_ints_eri(I, i, a, j, b);
}

double ci_element(const cis_fcidump *F, uint64_t alpha_i, uint64_t beta_i, uint64_t alpha_j,
                      uint64_t beta_j) {
  ci_ints I = ci_ints_of(F);
  return element(&I, cis_ci_bits_from_u64(alpha_i), cis_ci_bits_from_u64(beta_i), cis_ci_bits_from_u64(alpha_j),
                 cis_ci_bits_from_u64(beta_j), 1);
}

double ci_element_bits(const cis_fcidump *F, const cis_ci_bits *alpha_i, const cis_ci_bits *beta_i,
                           const cis_ci_bits *alpha_j, const cis_ci_bits *beta_j) {
  ci_ints I = ci_ints_of(F);
  if (F->norb <= 64) return element(&I, *alpha_i, *beta_i, *alpha_j, *beta_j, 1);
  return element(&I, *alpha_i, *beta_i, *alpha_j, *beta_j, 2);
}

double ci_element_nw(const cis_fcidump *F, ci_bits ai, ci_bits bi, ci_bits aj, ci_bits bj, int nw) {
  ci_ints I = ci_ints_of(F);
  return nw == 1 ? element(&I, ai, bi, aj, bj, 1) : element(&I, ai, bi, aj, bj, 2);
}
