/* slater.c: Slater-Condon rules for determinants given as alpha/beta bit
 * strings (Szabo & Ostlund, "Modern Quantum Chemistry", §2.3.3, Tables 2.3-2.4),
 * with the fermionic sign of a^+_a a_i = (-1)^(occupied orbitals strictly
 * between i and a). The diagonal and single-excitation values are ci_rules.h
 * (shared with the device build); the pair test cis_ci_element is here. */
#include "ci/ci_internal.h"

double ci_single_value(const cis_fcidump *F, int i, int a, uint64_t common, uint64_t other) {
  ci_ints I = ci_ints_of(F);
  return ci_rule_single(&I, i, a, common, other);
}

double cis_ci_diagonal(const cis_fcidump *F, uint64_t alpha, uint64_t beta) {
  ci_ints I = ci_ints_of(F);
  return ci_rule_diagonal(&I, alpha, beta);
}

/* Hole i and particle a of a single excitation within one spin: J -> I. */
static void single_pair(uint64_t from, uint64_t to, int *i, int *a) {
  *i = ci_lowest(from & ~to);
  *a = ci_lowest(to & ~from);
}

/* <to|H|from> of a same-spin double excitation. */
static double same_spin_double(const cis_fcidump *F, uint64_t from, uint64_t to) {
  uint64_t holes = from & ~to, parts = to & ~from;
  int i = ci_lowest(holes), j = ci_lowest(holes & (holes - 1));
  int a = ci_lowest(parts), b = ci_lowest(parts & (parts - 1));
  double s1 = ci_sign_between(from, i, a);
  uint64_t mid = from ^ (1ull << i) ^ (1ull << a);
  double s2 = ci_sign_between(mid, j, b);
  return s1 * s2 * (ci_eri(F, i, a, j, b) - ci_eri(F, i, b, j, a));
}

double cis_ci_element(const cis_fcidump *F, uint64_t alpha_i, uint64_t beta_i, uint64_t alpha_j,
                      uint64_t beta_j) {
  int da = ci_excitation(alpha_j, alpha_i), db = ci_excitation(beta_j, beta_i);
  int i, a, j, b;
  if (ci_popcount(alpha_i) != ci_popcount(alpha_j) || ci_popcount(beta_i) != ci_popcount(beta_j)) return 0.0;
  if (da + db == 0) return cis_ci_diagonal(F, alpha_i, beta_i);
  if (da + db > 2) return 0.0;
  if (da == 1 && db == 0) {
    single_pair(alpha_j, alpha_i, &i, &a);
    return ci_sign_between(alpha_j, i, a) * ci_single_value(F, i, a, alpha_i & alpha_j, beta_j);
  }
  if (da == 0 && db == 1) {
    single_pair(beta_j, beta_i, &i, &a);
    return ci_sign_between(beta_j, i, a) * ci_single_value(F, i, a, beta_i & beta_j, alpha_j);
  }
  if (da == 2) return same_spin_double(F, alpha_j, alpha_i);
  if (db == 2) return same_spin_double(F, beta_j, beta_i);
  single_pair(alpha_j, alpha_i, &i, &a);
  single_pair(beta_j, beta_i, &j, &b);
  return ci_sign_between(alpha_j, i, a) * ci_sign_between(beta_j, j, b) * ci_eri(F, i, a, j, b);
}
