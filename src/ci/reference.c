/* reference.c: the reference (RHF) determinant from the integrals, and the
 * --occ override. Aufbau on the Fock diagonal of the current occupation
 * (Szabo & Ostlund §3.4: f_pp = h_pp + sum_b [2(pp|bb) - (pb|bp)] for a closed
 * shell), iterated to a stable occupied set, then single swaps while they
 * lower <D|H|D>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

/* The n orbitals with the lowest f[] (ties: lower index) as a bit string. */
static uint64_t lowest_n(const double *f, int norb, int n) {
  uint64_t s = 0;
  for (int c = 0; c < n; ++c) {
    int best = -1;
    for (int p = 0; p < norb; ++p)
      if (!(s >> p & 1) && (best < 0 || f[p] < f[best])) best = p;
    s |= 1ull << best;
  }
  return s;
}

/* Spin-resolved Fock diagonal: f_pp = h_pp + sum_{q in same}[(pp|qq)-(pq|qp)] + sum_{q in other}(pp|qq). */
static void fock_diagonal(const cis_fcidump *F, uint64_t same, uint64_t other, double *f) {
  for (int p = 0; p < F->norb; ++p) {
    double v = ci_h1(F, p, p);
    for (uint64_t s = same; s; s &= s - 1) v += ci_eri(F, p, p, ci_lowest(s), ci_lowest(s)) - ci_eri(F, p, ci_lowest(s), ci_lowest(s), p);
    for (uint64_t s = other; s; s &= s - 1) v += ci_eri(F, p, p, ci_lowest(s), ci_lowest(s));
    f[p] = v;
  }
}

static int sym_ok(const cis_fcidump *F, uint64_t a, uint64_t b) {
  return (ci_string_sym(F, a) ^ ci_string_sym(F, b)) == F->isym - 1;
}

/* Best single swap (paired in both spins when `paired`) of the right symmetry
 * strictly below *e; returns 1 and updates (a, b, e) when one is found. */
static int improve(const cis_fcidump *F, int paired, uint64_t *a, uint64_t *b, double *e) {
  uint64_t all = ci_first(F->norb), ba = *a, bb = *b;
  double be = *e;
  for (int spin = 0; spin < (paired ? 1 : 2); ++spin) {
    uint64_t s = spin ? *b : *a;
    for (uint64_t h = s; h; h &= h - 1)
      for (uint64_t v = all & ~s; v; v &= v - 1) {
        uint64_t flip = (1ull << ci_lowest(h)) | (1ull << ci_lowest(v));
        uint64_t na = (paired || !spin) ? *a ^ flip : *a, nb = (paired || spin) ? *b ^ flip : *b;
        if (!sym_ok(F, na, nb)) continue;
        double en = cis_ci_diagonal(F, na, nb);
        if (en < be - 1e-12) { be = en; ba = na; bb = nb; }
      }
  }
  if (ba == *a && bb == *b) return 0;
  *a = ba; *b = bb; *e = be;
  return 1;
}

cis_status cis_ci_find_reference(const cis_fcidump *F, uint64_t *alpha, uint64_t *beta) {
  int na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  double fa[CIS_CI_MAX_ORB], fb[CIS_CI_MAX_ORB];
  for (int p = 0; p < F->norb; ++p) fa[p] = ci_h1(F, p, p);
  uint64_t a = lowest_n(fa, F->norb, na), b = lowest_n(fa, F->norb, nb);
  for (int it = 0; it < 100; ++it) {
    fock_diagonal(F, a, b, fa);
    fock_diagonal(F, b, a, fb);
    uint64_t a2 = lowest_n(fa, F->norb, na), b2 = lowest_n(fb, F->norb, nb);
    if (a2 == a && b2 == b) break;
    a = a2;
    b = b2;
  }
  int closed = (na == nb && a == b && F->isym == 1);
  double e = sym_ok(F, a, b) ? cis_ci_diagonal(F, a, b) : 1e300;
  while (improve(F, closed, &a, &b, &e)) {}
  if (!sym_ok(F, a, b))
    return cis_error(CIS_ERR_INVALID, "no determinant of symmetry ISYM=%d within single swaps of the aufbau one; give --occ",
                     F->isym);
  *alpha = a;
  *beta = b;
  return CIS_OK;
}

/* "1,2,3" -> bit string; count and range checked. */
static cis_status parse_list(const cis_fcidump *F, const char *s, const char *end, int want, const char *spin,
                             uint64_t *out) {
  uint64_t bits = 0;
  int n = 0;
  while (s < end) {
    char *e;
    long v = strtol(s, &e, 10);
    if (e == s || (e < end && *e != ',')) return cis_error(CIS_ERR_INVALID, "--occ: '%.*s' is not a list of orbital numbers", (int)(end - s), s);
    if (v < 1 || v > F->norb) return cis_error(CIS_ERR_RANGE, "--occ: orbital %ld out of range 1..NORB=%d", v, F->norb);
    if (bits >> (v - 1) & 1) return cis_error(CIS_ERR_INVALID, "--occ: orbital %ld listed twice for %s", v, spin);
    bits |= 1ull << (v - 1);
    n++;
    s = e < end ? e + 1 : e;
  }
  if (n != want)
    return cis_error(CIS_ERR_INVALID, "--occ: %d %s orbitals given, NELEC=%d MS2=%d needs %d", n, spin, F->nelec,
                     F->ms2, want);
  *out = bits;
  return CIS_OK;
}

cis_status cis_ci_parse_occ(const cis_fcidump *F, const char *list, uint64_t *alpha, uint64_t *beta) {
  cis_status st;
  int na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  if (!list) return cis_error(CIS_ERR_INVALID, "--occ needs a list");
  const char *slash = strchr(list, '/'), *end = list + strlen(list);
  if (!slash) {
    if (na != nb)
      return cis_error(CIS_ERR_INVALID, "--occ: MS2=%d is open shell; give ALPHA/BETA lists (e.g. 1,2,3/1,2)", F->ms2);
    CIS_TRY(parse_list(F, list, end, na, "doubly occupied", alpha));
    *beta = *alpha;
  } else {
    CIS_TRY(parse_list(F, list, slash, na, "alpha", alpha));
    CIS_TRY(parse_list(F, slash + 1, end, nb, "beta", beta));
  }
  if (!sym_ok(F, *alpha, *beta))
    return cis_error(CIS_ERR_INVALID, "--occ: determinant has symmetry %d, ISYM=%d",
                     (ci_string_sym(F, *alpha) ^ ci_string_sym(F, *beta)) + 1, F->isym);
  return CIS_OK;
cleanup:
  return st;
}
