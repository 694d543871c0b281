/* sci_cases.h: string sets for the selected-CI tests (test_sci_sigma.c,
 * test_sci_rdm.c): every string of a spin, and random subsets of them
 * (splitmix64 of ci_random_cases.h), unsorted and with repeats on request. */
#ifndef CISPARSE_TESTS_SCI_CASES_H
#define CISPARSE_TESTS_SCI_CASES_H
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* the random-states helpers */
#include "ci_random_cases.h"
#pragma GCC diagnostic pop

/* All strings of nel electrons in norb orbitals, ascending (*n of them). */
static inline uint64_t *sc_all_strings(int norb, int nel, cis_int *n) {
  cis_int c = 0, cap = 1;
  for (int i = 0; i < nel; ++i) cap = cap * (norb - i) / (i + 1);
  uint64_t *s = malloc((size_t)cap * sizeof *s);
  for (uint64_t x = 0; x < (1ull << norb); ++x)
    if (__builtin_popcountll(x) == nel) s[c++] = x;
  *n = c;
  return s;
}

/* m distinct strings drawn from all (with repeats dup of them added),
 * shuffled: m + dup entries. */
static inline uint64_t *sc_random_set(const uint64_t *all, cis_int nall, cis_int m, cis_int dup, uint64_t *seed) {
  uint64_t *pool = malloc((size_t)nall * sizeof *pool), *s = malloc((size_t)(m + dup) * sizeof *s);
  memcpy(pool, all, (size_t)nall * sizeof *pool);
  for (cis_int i = 0; i < m; ++i) { /* partial Fisher-Yates */
    cis_int j = i + (cis_int)((rc_unif(seed) + 1.0) * 0.5 * (double)(nall - i));
    if (j >= nall) j = nall - 1;
    uint64_t t = pool[i];
    pool[i] = pool[j], pool[j] = t;
    s[i] = pool[i];
  }
  for (cis_int d = 0; d < dup; ++d) s[m + d] = s[d % m];
  for (cis_int i = m + dup - 1; i > 0; --i) { /* shuffle: unsorted input */
    cis_int j = (cis_int)((rc_unif(seed) + 1.0) * 0.5 * (double)(i + 1));
    if (j > i) j = i;
    uint64_t t = s[i];
    s[i] = s[j], s[j] = t;
  }
  free(pool);
  return s;
}

/* The integrals of (norb, nelec, ms2, seed) (rc_fcidump), the space of
 * every string of each spin and the complete direct space (*S, *D NULL
 * when refused). */
static inline cis_fcidump *sc_full_space(int norb, int nelec, int ms2, uint64_t seed, cis_sci_space **S,
                                         cis_ci_direct **D) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, norb, nelec, ms2, seed);
  cis_int na, nb;
  uint64_t *A = sc_all_strings(norb, cis_fcidump_nalpha(F), &na), *B = sc_all_strings(norb, cis_fcidump_nbeta(F), &nb);
  *S = NULL;
  if (cis_sci_space_create(F, A, na, B, nb, 0, S) != CIS_OK) *S = NULL;
  if (cis_ci_direct_create(F, NULL, D) != CIS_OK) *D = NULL;
  free(A), free(B);
  return F;
}

/* The integrals of (norb, nelec, ms2, seed) and the space of ma random
 * alpha and mb random beta strings (*S NULL when refused). */
static inline cis_fcidump *sc_random_space(int norb, int nelec, int ms2, uint64_t seed, cis_int ma, cis_int mb,
                                           cis_sci_space **S) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, norb, nelec, ms2, seed);
  cis_int na, nb;
  uint64_t *A = sc_all_strings(norb, cis_fcidump_nalpha(F), &na), *B = sc_all_strings(norb, cis_fcidump_nbeta(F), &nb);
  if (ma > na) ma = na;
  if (mb > nb) mb = nb;
  uint64_t s = seed, *sa = sc_random_set(A, na, ma, 0, &s), *sb = sc_random_set(B, nb, mb, 0, &s);
  *S = NULL;
  if (cis_sci_space_create(F, sa, ma, sb, mb, 0, S) != CIS_OK) *S = NULL;
  free(A), free(B), free(sa), free(sb);
  return F;
}

/* The product space A x B's H (sorted sets), dense row-major, electronic
 * (ci_element and ci_diagonal, the library's Slater-Condon rules). */
static inline double *sc_dense_h(const cis_fcidump *F, const uint64_t *A, cis_int na, const uint64_t *B, cis_int nb) {
  const cis_int n = na * nb;
  double *H = malloc((size_t)(n * n) * sizeof(double));
  for (cis_int i = 0; i < n; ++i)
    for (cis_int j = 0; j < n; ++j)
      H[i * n + j] = i == j ? ci_diagonal(F, A[i / nb], B[i % nb])
                            : ci_element(F, A[i / nb], B[i % nb], A[j / nb], B[j % nb]);
  return H;
}

/* sc_dense_h of the space S's sets. */
static inline double *sc_dense_h_space(const cis_fcidump *F, const cis_sci_space *S) {
  cis_int na, nb;
  const uint64_t *A = cis_sci_space_strings(S, 0, &na), *B = cis_sci_space_strings(S, 1, &nb);
  return sc_dense_h(F, A, na, B, nb);
}

/* max |a - b| / max |b| (1 for b = 0); NaN anywhere in a gives NaN. */
static inline double sc_rel_max(const double *a, const double *b, cis_int n) {
  double d = 0, m = 0;
  for (cis_int i = 0; i < n; ++i) {
    const double e = fabs(a[i] - b[i]);
    if (!(e <= d)) d = e; /* NaN makes d NaN: never passes */
    if (fabs(b[i]) > m) m = fabs(b[i]);
  }
  return d / (m > 0 ? m : 1);
}

/* The random cases of both tests: sets of ma and mb strings drawn with
 * seed (same: the beta set is the alpha set). */
typedef struct sc_case {
  int norb, nelec, ms2;
  cis_int ma, mb;
  int same;
  uint64_t seed;
  const char *what;
} sc_case;

static const sc_case SC_CASES[] = {
    {6, 6, 0, 10, 12, 0, 1, "closed shell, different sets"},
    {6, 6, 0, 9, 9, 1, 2, "equal sets"},
    {7, 6, 2, 14, 11, 0, 3, "open shell, nalpha 4, nbeta 2"},
    {7, 5, 1, 20, 15, 0, 4, "odd electrons"},
    {6, 4, 0, 1, 7, 0, 5, "one alpha string"},
    {6, 4, 0, 1, 1, 0, 6, "one determinant"},
    {5, 2, 2, 6, 1, 0, 7, "no beta electron"},
    {5, 2, 0, 5, 5, 0, 8, "one electron of each spin"},
    {8, 7, 1, 40, 35, 0, 9, "sets larger than a warp: 1400 determinants"},
    {8, 8, 0, 70, 70, 0, 10, "the full sets"},
};
#define SC_NCASES ((int)(sizeof SC_CASES / sizeof *SC_CASES))

#endif
