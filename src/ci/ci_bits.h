/* ci_bits.h: occupation strings of nw 64-bit words (orbital p = bit p % 64
 * of word p / 64), host only: the operations the determinant space, the
 * Slater-Condon rules and the Hamiltonian build need.
 *
 * One source, instantiated by constant: every function takes nw, and the hot
 * callers are CI_ALWAYS_INLINE bodies called from thin wrappers with nw = 1
 * and nw = 2 (ci_words_dispatch below), so each instantiation compiles to
 * straight-line word code: the one-word one is the uint64_t code of
 * ci_rules.h. Orbitals are visited in ascending order whatever nw, so every
 * sum runs in the order of ci_rules.h and the results agree bit for bit with
 * it (and with the device build, which keeps one word). Strings in an array
 * are nw consecutive words each; words >= nw of a cis_ci_bits are zero. */
#ifndef CISPARSE_CI_BITS_H
#define CISPARSE_CI_BITS_H

#include <stdint.h>
#include "ci/ci_rules.h"
#include "cisparse/ci.h"

typedef cis_ci_bits ci_bits;
_Static_assert(CIS_CI_WORDS <= 2, "the space and the Hamiltonian are instantiated for 1 and 2 words");

#define CI_ALWAYS_INLINE static inline __attribute__((always_inline))
/* Word of orbital p (constant 0 in the one-word instantiation). */
#define CI_WORD(p, nw) ((nw) == 1 ? 0 : (p) >> 6)

/* Words a string of norb orbitals needs. */
static inline int ci_words(int norb) { return norb <= 64 ? 1 : (norb + 63) / 64; }

CI_ALWAYS_INLINE ci_bits bits_zero(void) {
  ci_bits x;
  for (int k = 0; k < CIS_CI_WORDS; ++k) x.w[k] = 0;
  return x;
}
/* String q of an array of nw-word strings. */
CI_ALWAYS_INLINE ci_bits bits_load(const uint64_t *str, int64_t q, int nw) {
  ci_bits x = bits_zero();
  for (int k = 0; k < nw; ++k) x.w[k] = str[q * nw + k];
  return x;
}
CI_ALWAYS_INLINE void bits_store(uint64_t *str, int64_t q, ci_bits x, int nw) {
  for (int k = 0; k < nw; ++k) str[q * nw + k] = x.w[k];
}
CI_ALWAYS_INLINE int bits_eq(ci_bits a, ci_bits b, int nw) {
  int eq = 1;
  for (int k = 0; k < nw; ++k) eq &= a.w[k] == b.w[k];
  return eq;
}
/* Value order, highest word first (a number of 64 nw bits). */
CI_ALWAYS_INLINE int bits_cmp(ci_bits a, ci_bits b, int nw) {
  for (int k = nw - 1; k >= 0; --k)
    if (a.w[k] != b.w[k]) return a.w[k] < b.w[k] ? -1 : 1;
  return 0;
}
CI_ALWAYS_INLINE int bits_popcount(ci_bits x, int nw) {
  int c = 0;
  for (int k = 0; k < nw; ++k) c += ci_popcount(x.w[k]);
  return c;
}
CI_ALWAYS_INLINE int bits_empty(ci_bits x, int nw) {
  uint64_t o = 0;
  for (int k = 0; k < nw; ++k) o |= x.w[k];
  return o == 0;
}
/* a & ~b, a & b, a | b. */
CI_ALWAYS_INLINE ci_bits bits_andnot(ci_bits a, ci_bits b, int nw) {
  for (int k = 0; k < nw; ++k) a.w[k] &= ~b.w[k];
  return a;
}
CI_ALWAYS_INLINE ci_bits bits_and(ci_bits a, ci_bits b, int nw) {
  for (int k = 0; k < nw; ++k) a.w[k] &= b.w[k];
  return a;
}
CI_ALWAYS_INLINE ci_bits bits_or(ci_bits a, ci_bits b, int nw) {
  for (int k = 0; k < nw; ++k) a.w[k] |= b.w[k];
  return a;
}
CI_ALWAYS_INLINE int bits_test(ci_bits x, int p, int nw) { return (int)(x.w[CI_WORD(p, nw)] >> (p & 63) & 1); }
/* x with orbital p toggled; with p and q toggled. */
CI_ALWAYS_INLINE ci_bits bits_flip(ci_bits x, int p, int nw) {
  x.w[CI_WORD(p, nw)] ^= 1ull << (p & 63);
  return x;
}
CI_ALWAYS_INLINE ci_bits bits_flip2(ci_bits x, int p, int q, int nw) { return bits_flip(bits_flip(x, p, nw), q, nw); }
/* Lowest set orbital of x != 0. */
CI_ALWAYS_INLINE int bits_lowest(ci_bits x, int nw) {
  for (int k = 0; k < nw - 1; ++k)
    if (x.w[k]) return 64 * k + ci_lowest(x.w[k]);
  return 64 * (nw - 1) + ci_lowest(x.w[nw - 1]);
}
/* Mask of the bits of word k below orbital p (p in 0..64 nw). */
CI_ALWAYS_INLINE uint64_t bits_word_below(int p, int k) {
  int r = p - 64 * k;
  return r <= 0 ? 0 : r >= 64 ? ~0ull : (1ull << r) - 1;
}
/* The orbitals of x strictly below p / strictly above p. */
CI_ALWAYS_INLINE ci_bits bits_below(ci_bits x, int p, int nw) {
  for (int k = 0; k < nw; ++k) x.w[k] &= bits_word_below(p, k);
  return x;
}
CI_ALWAYS_INLINE ci_bits bits_above(ci_bits x, int p, int nw) {
  for (int k = 0; k < nw; ++k) x.w[k] &= ~bits_word_below(p + 1, k);
  return x;
}
/* The first n orbitals. */
CI_ALWAYS_INLINE ci_bits bits_first(int n, int nw) {
  ci_bits x = bits_zero();
  for (int k = 0; k < nw; ++k) x.w[k] = bits_word_below(n, k);
  return x;
}
/* (-1)^(set bits of s strictly between orbitals p and q) (ci_sign_between). */
CI_ALWAYS_INLINE double bits_sign_between(ci_bits s, int p, int q, int nw) {
  if (nw == 1) return ci_sign_between(s.w[0], p, q);
  int lo = p < q ? p : q, hi = p < q ? q : p, c = 0;
  for (int k = 0; k < nw; ++k) c += ci_popcount(s.w[k] & bits_word_below(hi, k) & ~bits_word_below(lo + 1, k));
  return (c & 1) ? -1.0 : 1.0;
}

/* Runs the statement after it with p = each orbital of x, ascending
 * (`continue` moves to the next orbital; no `break`). */
#define CI_FOR_BITS(p, x, nw)                                                     \
  for (int p##_k = 0; p##_k < (nw); ++p##_k)                                      \
    for (uint64_t p##_s = (x).w[p##_k]; p##_s; p##_s &= p##_s - 1)                \
      for (int p = 64 * p##_k + ci_lowest(p##_s), p##_once = 1; p##_once; p##_once = 0)

/* Hash of a string in the space's tables: ci_string_hash for one word. */
CI_ALWAYS_INLINE uint64_t bits_hash(ci_bits x, int nw) {
  uint64_t h = ci_string_hash(x.w[0]);
  for (int k = 1; k < nw; ++k) h = ci_string_hash(h ^ (x.w[k] + 0x9e3779b97f4a7c15ull));
  return h;
}
/* Position of s in str[] (nw words each) through its table, -1 if absent
 * (ci_string_find for one word). */
CI_ALWAYS_INLINE int64_t bits_find(const uint64_t *str, const int32_t *table, uint64_t mask, ci_bits s, int nw) {
  if (nw == 1) return ci_string_find(str, table, mask, s.w[0]);
  for (uint64_t h = bits_hash(s, nw) & mask;; h = (h + 1) & mask) {
    int32_t p = table[h];
    if (p < 0) return -1;
    if (bits_eq(bits_load(str, p, nw), s, nw)) return p;
  }
}

/* ci_rule_single (ci_rules.h) on nw-word strings. */
CI_ALWAYS_INLINE double bits_rule_single(const ci_ints *I, int i, int a, ci_bits common, ci_bits other, int nw) {
  if (nw == 1) return ci_rule_single(I, i, a, common.w[0], other.w[0]);
  double v = ci_ints_h1(I, i, a);
  CI_FOR_BITS(k, common, nw) v += ci_ints_eri(I, i, a, k, k) - ci_ints_eri(I, i, k, k, a);
  CI_FOR_BITS(k, other, nw) v += ci_ints_eri(I, i, a, k, k);
  return v;
}
/* ci_rule_diagonal (ci_rules.h) on nw-word strings. */
CI_ALWAYS_INLINE double bits_rule_diagonal(const ci_ints *I, ci_bits alpha, ci_bits beta, int nw) {
  if (nw == 1) return ci_rule_diagonal(I, alpha.w[0], beta.w[0]);
  double es[2] = {0, 0};
  for (int spin = 0; spin < 2; ++spin) {
    ci_bits s = spin ? beta : alpha;
    CI_FOR_BITS(p, s, nw) {
      ci_bits t = bits_above(s, p, nw);
      es[spin] += ci_ints_h1(I, p, p);
      CI_FOR_BITS(q, t, nw) es[spin] += ci_ints_eri(I, p, p, q, q) - ci_ints_eri(I, p, q, q, p);
    }
  }
  double e = es[0] + es[1];
  CI_FOR_BITS(p, alpha, nw) CI_FOR_BITS(q, beta, nw) e += ci_ints_eri(I, p, p, q, q);
  return e;
}

#endif
