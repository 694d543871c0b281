/* sqd_strings.h: string sets as sample-based quantum diagonalisation (SQD)
 * makes them, deterministic from a seed, for the selected-CI tests; the
 * same generator, number for number, is bench/sqd_strings.py (its
 * --check prints sqd_checksum's value for the case below).
 *
 * What SQD does (qiskit-addon-sqd, diagonalize_fermionic_hamiltonian):
 * measured bitstrings (alpha right, beta left) are postselected to the right
 * electron counts (or repaired by configuration recovery), a batch is
 * subsampled, each half becomes a sorted unique string set, requested
 * strings (Hartree-Fock) are added, and with symmetrize_spin both sets are
 * their union. Here the sampler is a model: a sample is a pair (alpha,
 * beta), each spin's string the Hartree-Fock one (orbitals 0 .. nel-1)
 * with k electrons moved, k geometric (another move with probability
 * SQD_MOVE), holes and particles drawn without repeats with weight
 * 1 / (1 + d)^2, d the distance from the Fermi level (HOMO and LUMO weigh
 * most): concentrated near Hartree-Fock with a long tail, as samples of a
 * state near it are. Samples are drawn until each set (symmetrize: their
 * union) holds m distinct strings, the Hartree-Fock string first, or until
 * SQD_MAX_SAMPLES_PER_STRING * m samples.
 * RNG: splitmix64 (Steele, Lea & Flood 2014), doubles from its top 53 bits. */
#ifndef CISPARSE_TESTS_SQD_STRINGS_H
#define CISPARSE_TESTS_SQD_STRINGS_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SQD_MOVE 0.6
#define SQD_MAX_SAMPLES_PER_STRING 1000

static inline uint64_t sqd_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static inline double sqd_unif(uint64_t *s) { return (double)(sqd_next(s) >> 11) * 0x1.0p-53; }

/* One bit of mask drawn with weight 1 / (1 + d)^2, d = |p - ref| (ref the
 * HOMO for holes, the LUMO for particles). */
static inline int sqd_pick(uint64_t mask, int norb, int ref, uint64_t *s) {
  double w[64], total = 0.0;
  int last = -1;
  for (int p = 0; p < norb; ++p) {
    w[p] = 0.0;
    if (!(mask >> p & 1)) continue;
    const double d = p > ref ? p - ref : ref - p;
    w[p] = 1.0 / ((1.0 + d) * (1.0 + d));
    total += w[p];
    last = p;
  }
  const double u = sqd_unif(s) * total;
  double acc = 0.0;
  for (int p = 0; p < norb; ++p) {
    acc += w[p];
    if (w[p] > 0.0 && u < acc) return p;
  }
  return last;
}

/* One spin's sampled string. */
static inline uint64_t sqd_sample(int norb, int nel, uint64_t *s) {
  const uint64_t all = norb == 64 ? ~0ull : (1ull << norb) - 1, hf = nel == 64 ? ~0ull : (1ull << nel) - 1;
  const int kmax = nel < norb - nel ? nel : norb - nel;
  int k = 0;
  while (k < kmax && sqd_unif(s) < SQD_MOVE) ++k;
  uint64_t holes = hf, parts = all & ~hf, x = hf;
  for (int i = 0; i < k; ++i) {
    const int h = sqd_pick(holes, norb, nel - 1, s), p = sqd_pick(parts, norb, nel, s);
    holes &= ~(1ull << h), parts &= ~(1ull << p);
    x ^= (1ull << h) | (1ull << p);
  }
  return x;
}

/* Insert x into the open-addressing table (size 2^b > 2 m, 0 empty: x + 1
 * stored); 1 if new. */
static inline int sqd_insert(uint64_t *tab, uint64_t mask, uint64_t x) {
  uint64_t h = (x + 1) * 0x9e3779b97f4a7c15ull;
  for (h = (h ^ (h >> 29)) & mask; tab[h]; h = (h + 1) & mask)
    if (tab[h] == x + 1) return 0;
  tab[h] = x + 1;
  return 1;
}

static int sqd_cmp(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sets of at most m strings each into alpha and beta (room for m each;
 * symmetrize: both the union, na == nb needed), sorted; *got_a, *got_b
 * their sizes, *samples the samples drawn (any may be NULL). */
static inline void sqd_sets(int norb, int na, int nb, int64_t m, int symmetrize, uint64_t seed, uint64_t *alpha,
                            int64_t *got_a, uint64_t *beta, int64_t *got_b, int64_t *samples) {
  uint64_t size = 16, s = seed;
  while (size < 2 * (uint64_t)m) size <<= 1;
  uint64_t *ta = calloc(size, sizeof *ta), *tb = symmetrize ? ta : calloc(size, sizeof *tb);
  int64_t ca = 0, cb = 0, drawn = 0;
  const uint64_t hfa = (1ull << na) - 1, hfb = (1ull << nb) - 1;
  if (m > 0) {
    sqd_insert(ta, size - 1, hfa), alpha[ca++] = hfa;
    if (!symmetrize) sqd_insert(tb, size - 1, hfb), beta[cb++] = hfb;
  }
  while ((symmetrize ? ca < m : ca < m || cb < m) && drawn < SQD_MAX_SAMPLES_PER_STRING * m) {
    const uint64_t a = sqd_sample(norb, na, &s), b = sqd_sample(norb, nb, &s);
    ++drawn;
    if (ca < m && sqd_insert(ta, size - 1, a)) alpha[ca++] = a;
    if (symmetrize) {
      if (ca < m && sqd_insert(ta, size - 1, b)) alpha[ca++] = b;
    } else if (cb < m && sqd_insert(tb, size - 1, b)) {
      beta[cb++] = b;
    }
  }
  qsort(alpha, (size_t)ca, sizeof *alpha, sqd_cmp);
  if (symmetrize) memcpy(beta, alpha, (size_t)ca * sizeof *alpha), cb = ca;
  else qsort(beta, (size_t)cb, sizeof *beta, sqd_cmp);
  if (got_a) *got_a = ca;
  if (got_b) *got_b = cb;
  if (samples) *samples = drawn;
  free(ta);
  if (tb != ta) free(tb);
}

/* sum over both sets of (i + 1) * string, modulo 2^64: one number to
 * compare with bench/sqd_strings.py. */
static inline uint64_t sqd_checksum(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb) {
  uint64_t c = 0;
  for (int64_t i = 0; i < na; ++i) c += (uint64_t)(i + 1) * a[i];
  for (int64_t i = 0; i < nb; ++i) c += (uint64_t)(i + 1) * b[i] * 3u;
  return c;
}

#endif
