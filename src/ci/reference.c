/* reference.c: the reference (RHF) determinant from the integrals, and the
 * --occ override. Aufbau on the Fock diagonal of the current occupation
 * (Szabo & Ostlund §3.4: f_pp = h_pp + sum_b [2(pp|bb) - (pb|bp)] for a closed
 * shell), iterated to a stable occupied set, then single swaps while they
 * lower <D|H|D>; where no swap reaches symmetry ISYM, the lowest determinant
 * of ISYM by those orbital energies anywhere (a recursion over the orbitals
 * per irrep), then swaps again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

#define NW CIS_CI_WORDS

/* The n orbitals with the lowest f[] (ties: lower index) as a bit string. */
static ci_bits lowest_n(const double *f, int norb, int n) {
  ci_bits s = bits_zero();
  for (int c = 0; c < n; ++c) {
    int best = -1;
    for (int p = 0; p < norb; ++p)
      if (!bits_test(s, p, NW) && (best < 0 || f[p] < f[best])) best = p;
    s = bits_flip(s, best, NW);
  }
  return s;
}

/* Spin-resolved Fock diagonal: f_pp = h_pp + sum_{q in same}[(pp|qq)-(pq|qp)] + sum_{q in other}(pp|qq). */
static void fock_diagonal(const cis_fcidump *F, ci_bits same, ci_bits other, double *f) {
  for (int p = 0; p < F->norb; ++p) {
    double v = ci_h1(F, p, p);
    CI_FOR_BITS(q, same, NW) v += ci_eri(F, p, p, q, q) - ci_eri(F, p, q, q, p);
    CI_FOR_BITS(q, other, NW) v += ci_eri(F, p, p, q, q);
    f[p] = v;
  }
}

static int sym_ok(const cis_fcidump *F, ci_bits a, ci_bits b) {
  return (ci_bits_sym(F, a, NW) ^ ci_bits_sym(F, b, NW)) == F->isym - 1;
}

/* Best single swap (paired in both spins when `paired`) of the right symmetry
 * strictly below *e; returns 1 and updates (a, b, e) when one is found. */
static int improve(const cis_fcidump *F, int paired, ci_bits *a, ci_bits *b, double *e) {
  ci_bits all = bits_first(F->norb, NW), ba = *a, bb = *b;
  double be = *e;
  for (int spin = 0; spin < (paired ? 1 : 2); ++spin) {
    ci_bits s = spin ? *b : *a, virt = bits_andnot(all, s, NW);
    CI_FOR_BITS(h, s, NW) CI_FOR_BITS(v, virt, NW) {
      ci_bits na = (paired || !spin) ? bits_flip2(*a, h, v, NW) : *a;
      ci_bits nb = (paired || spin) ? bits_flip2(*b, h, v, NW) : *b;
      if (!sym_ok(F, na, nb)) continue;
      double en = ci_diagonal_bits(F, &na, &nb);
      if (en < be - 1e-12) { be = en; ba = na; bb = nb; }
    }
  }
  if (bits_eq(ba, *a, NW) && bits_eq(bb, *b, NW)) return 0;
  *a = ba; *b = bb; *e = be;
  return 1;
}

/* Strings of n electrons with the lowest sum of f[] for each irrep (a
 * recursion over the orbitals: best[k][g] is the lowest string of k
 * electrons and irrep g among the orbitals seen), into low[g] and e[g]
 * (HUGE_VAL where no string has irrep g). */
static cis_status lowest_per_irrep(const cis_fcidump *F, const double *f, int n, ci_bits *low, double *e) {
  const int m = n + 1;
  double *be = malloc((size_t)m * 8 * sizeof(double));
  ci_bits *bs = malloc((size_t)m * 8 * sizeof(ci_bits));
  if (!be || !bs) { free(be); free(bs); return cis_error(CIS_ERR_ALLOC, "cannot allocate the reference search"); }
  for (int i = 0; i < m * 8; ++i) be[i] = HUGE_VAL, bs[i] = bits_zero();
  be[0] = 0;
  for (int p = 0; p < F->norb; ++p) {
    const int s = F->orbsym[p] - 1;
    for (int k = n; k >= 1; --k) /* row k - 1 is still without orbital p */
      for (int g = 0; g < 8; ++g) {
        const double v = be[(k - 1) * 8 + g] + f[p];
        if (be[(k - 1) * 8 + g] < HUGE_VAL && v < be[k * 8 + (g ^ s)]) {
          be[k * 8 + (g ^ s)] = v;
          bs[k * 8 + (g ^ s)] = bits_flip(bs[(k - 1) * 8 + g], p, NW);
        }
      }
  }
  for (int g = 0; g < 8; ++g) e[g] = be[n * 8 + g], low[g] = bs[n * 8 + g];
  free(be);
  free(bs);
  return CIS_OK;
}

/* The determinant of symmetry ISYM with the lowest sum of the Fock
 * diagonals fa, fb of its occupied spin orbitals, wherever in the space it
 * lies; 0 when no determinant has symmetry ISYM. */
static cis_status lowest_of_symmetry(const cis_fcidump *F, const double *fa, const double *fb, ci_bits *a, ci_bits *b,
                                     int *found) {
  cis_status st;
  ci_bits la[8], lb[8];
  double ea[8], eb[8], best = HUGE_VAL;
  const int t = F->isym - 1;
  CIS_TRY(lowest_per_irrep(F, fa, cis_fcidump_nalpha(F), la, ea));
  CIS_TRY(lowest_per_irrep(F, fb, cis_fcidump_nbeta(F), lb, eb));
  *found = 0;
  for (int g = 0; g < 8; ++g)
    if (ea[g] < HUGE_VAL && eb[g ^ t] < HUGE_VAL && ea[g] + eb[g ^ t] < best) {
      best = ea[g] + eb[g ^ t];
      *a = la[g], *b = lb[g ^ t], *found = 1;
    }
cleanup:
  return st;
}

cis_status ci_find_reference_bits(const cis_fcidump *F, cis_ci_bits *alpha, cis_ci_bits *beta) {
  if (!F || !alpha || !beta) return cis_error(CIS_ERR_INVALID, "cis_ci_find_reference: NULL argument");
  cis_status st = ci_fcidump_check_header(F);
  if (st != CIS_OK) return st;
  int na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  double fa[CIS_CI_MAX_ORB], fb[CIS_CI_MAX_ORB];
  for (int p = 0; p < F->norb; ++p) fa[p] = ci_h1(F, p, p);
  ci_bits a = lowest_n(fa, F->norb, na), b = lowest_n(fa, F->norb, nb);
  for (int it = 0; it < 100; ++it) {
    fock_diagonal(F, a, b, fa);
    fock_diagonal(F, b, a, fb);
    ci_bits a2 = lowest_n(fa, F->norb, na), b2 = lowest_n(fb, F->norb, nb);
    if (bits_eq(a2, a, NW) && bits_eq(b2, b, NW)) break;
    a = a2;
    b = b2;
  }
  int closed = (na == nb && bits_eq(a, b, NW) && F->isym == 1);
  double e = sym_ok(F, a, b) ? ci_diagonal_bits(F, &a, &b) : 1e300;
  while (improve(F, closed, &a, &b, &e)) {}
  if (!sym_ok(F, a, b)) { /* none within single swaps: the lowest of symmetry ISYM anywhere, then swaps again */
    int found;
    char isym[48];
    if ((st = lowest_of_symmetry(F, fa, fb, &a, &b, &found)) != CIS_OK) return st;
    if (!found)
      return cis_error(CIS_ERR_INVALID, "no determinant of %d alpha and %d beta electrons in %d orbitals has symmetry %s",
                       na, nb, F->norb, ci_isym_text(F, isym, sizeof isym));
    e = ci_diagonal_bits(F, &a, &b);
    while (improve(F, 0, &a, &b, &e)) {}
  }
  *alpha = a;
  *beta = b;
  return CIS_OK;
}

/* The one-word entry points: NORB <= 64 only. */
static cis_status one_word(const cis_fcidump *F, const char *fn) {
  if (F && F->norb > CIS_CI_DIRECT_MAX_ORB)
    return cis_error(CIS_ERR_UNSUPPORTED, "%s: NORB = %d does not fit one 64-bit word; use %s_bits", fn, F->norb, fn);
  return CIS_OK;
}

cis_status cis_ci_find_reference(const cis_fcidump *F, uint64_t *alpha, uint64_t *beta) {
  cis_status st;
  ci_bits a, b;
  CIS_TRY(one_word(F, "cis_ci_find_reference"));
  CIS_TRY(ci_find_reference_bits(F, &a, &b));
  *alpha = a.w[0];
  *beta = b.w[0];
cleanup:
  return st;
}

/* "1,2,3" -> bit string; count and range checked. */
static cis_status parse_list(const cis_fcidump *F, const char *s, const char *end, int want, const char *spin,
                             ci_bits *out) {
  ci_bits bits = bits_zero();
  int n = 0;
  while (s < end) {
    char *e;
    long v = strtol(s, &e, 10);
    if (e == s || (e < end && *e != ',')) return cis_error(CIS_ERR_INVALID, "occ: '%.*s' is not a list of orbital numbers", (int)(end - s), s);
    if (v < 1 || v > F->norb) return cis_error(CIS_ERR_RANGE, "occ: orbital %ld out of range 1..NORB=%d", v, F->norb);
    if (bits_test(bits, (int)v - 1, NW)) return cis_error(CIS_ERR_INVALID, "occ: orbital %ld listed twice for %s", v, spin);
    bits = bits_flip(bits, (int)v - 1, NW);
    n++;
    s = e < end ? e + 1 : e;
  }
  if (n != want)
    return cis_error(CIS_ERR_INVALID, "occ: %d %s orbitals given, NELEC=%d MS2=%d needs %d", n, spin, F->nelec,
                     F->ms2, want);
  *out = bits;
  return CIS_OK;
}

cis_status ci_parse_occ_bits(const cis_fcidump *F, const char *list, cis_ci_bits *alpha, cis_ci_bits *beta) {
  cis_status st;
  if (!F || !alpha || !beta) return cis_error(CIS_ERR_INVALID, "ci_parse_occ: NULL argument");
  CIS_TRY(ci_fcidump_check_header(F));
  int na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  if (!list) return cis_error(CIS_ERR_INVALID, "occ: NULL list");
  const char *slash = strchr(list, '/'), *end = list + strlen(list);
  if (!slash) {
    if (na != nb)
      return cis_error(CIS_ERR_INVALID, "occ: MS2=%d is open shell; give ALPHA/BETA lists (e.g. 1,2,3/1,2)", F->ms2);
    CIS_TRY(parse_list(F, list, end, na, "doubly occupied", alpha));
    *beta = *alpha;
  } else {
    CIS_TRY(parse_list(F, list, slash, na, "alpha", alpha));
    CIS_TRY(parse_list(F, slash + 1, end, nb, "beta", beta));
  }
  if (!sym_ok(F, *alpha, *beta)) {
    char isym[48];
    return cis_error(CIS_ERR_INVALID, "occ: determinant has symmetry %d, %s",
                     (ci_bits_sym(F, *alpha, NW) ^ ci_bits_sym(F, *beta, NW)) + 1 -
                         (F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF),
                     ci_isym_text(F, isym, sizeof isym));
  }
  return CIS_OK;
cleanup:
  return st;
}

cis_status ci_parse_occ(const cis_fcidump *F, const char *list, uint64_t *alpha, uint64_t *beta) {
  cis_status st;
  ci_bits a, b;
  CIS_TRY(one_word(F, "ci_parse_occ"));
  CIS_TRY(ci_parse_occ_bits(F, list, &a, &b));
  *alpha = a.w[0];
  *beta = b.w[0];
cleanup:
  return st;
}
