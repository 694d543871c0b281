/* spin.c: <S^2> of a CI vector in the determinant space.
 *
 * S^2 = S- S+ + Sz^2 + Sz with S+ = sum_p a+_{p alpha} a_{p beta}
 * (Helgaker, Jorgensen & Olsen, "Molecular Electronic-Structure Theory",
 * §2.4). Between determinants of one Ms:
 *   p = q terms of S- S+: n_{p beta} (1 - n_{p alpha}), the number of
 *     orbitals singly occupied by a beta electron (diagonal);
 *   p != q terms a+_{p beta} a_{p alpha} a+_{q alpha} a_{q beta}: the
 *     determinant J with p alpha-only and q beta-only goes to I with p
 *     beta-only and q alpha-only, with the fermionic sign of the four
 *     operators (spin orbitals ordered all alpha, then all beta).
 * <S^2> = Sz^2 + Sz + sum_I c_I^2 nbo(I) + sum_J c_J sum_{p,q} sign c_I,
 * over ||c||^2. I outside the space (truncated CI) has c_I = 0.
 *
 * S- S+ keeps the spatial symmetry of a determinant, so a vector blocked by
 * irreps (the compact layout of cis_ci_direct_compress) has every partner I
 * in its own block: cis_ci_s2_direct_compact reads the compact vector alone,
 * never its C1 expansion (nsym doubles, not nsa * nsb). */
#include <math.h>
#include "ci/ci_internal.h"
#include "ci/sigma_irrep.h"
#include "core/internal.h"

/* Compact index of the determinant (alpha, beta) of the blocked space iv
 * (its irrep is the target's: S- S+ keeps it), -1 outside the strings. */
static cis_int compact_find(const cis_ci_direct *D, const ci_irrep_view *iv, uint64_t alpha, uint64_t beta) {
  const cis_int i = cis_ci_direct_find(D, alpha, beta);
  return i < 0 ? -1 : iv->off[i / iv->nsb] + iv->bpos[i % iv->nsb];
}

/* The sum over J of s2_of's two terms for the determinants of one side
 * (space, direct, or direct compact when iv), on nw-word strings (ci_bits.h). */
CI_ALWAYS_INLINE void s2_terms(const cis_fcidump *F, const cis_ci_space *S, const cis_ci_direct *D,
                               const ci_irrep_view *iv, const double *c, double *norm_out, double *acc_out,
                               const int nw) {
  cis_int n = S ? cis_ci_space_size(S) : iv ? iv->nsym : cis_ci_direct_size(D);
  double norm = 0, acc = 0;
  int na = cis_fcidump_nalpha(F);
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : norm, acc)
  for (cis_int j = 0; j < n; ++j) {
    double cj = c[j];
    if (cj == 0) continue;
    ci_bits a, b;
    if (S) {
      cis_ci_space_det_bits(S, j, &a, &b);
    } else {
      uint64_t a1, b1;
      if (iv) ci_direct_compact_det(D, j, &a1, &b1);
      else cis_ci_direct_det(D, j, &a1, &b1);
      a = cis_ci_bits_from_u64(a1);
      b = cis_ci_bits_from_u64(b1);
    }
    ci_bits ao = bits_andnot(a, b, nw), bo = bits_andnot(b, a, nw);
    norm += cj * cj;
    acc += cj * cj * bits_popcount(bo, nw);
    CI_FOR_BITS(p, ao, nw) CI_FOR_BITS(q, bo, nw) {
      ci_bits a1 = a, b1 = b;
      int par = na + bits_popcount(bits_below(b1, q, nw), nw); /* a_{q beta} */
      b1 = bits_flip(b1, q, nw);
      par += bits_popcount(bits_below(a1, q, nw), nw);         /* a+_{q alpha} */
      a1 = bits_flip(a1, q, nw);
      par += bits_popcount(bits_below(a1, p, nw), nw);         /* a_{p alpha} */
      a1 = bits_flip(a1, p, nw);
      par += na + bits_popcount(bits_below(b1, p, nw), nw);    /* a+_{p beta} */
      b1 = bits_flip(b1, p, nw);
      cis_int i = S    ? cis_ci_space_find_bits(S, &a1, &b1)
                  : iv ? compact_find(D, iv, a1.w[0], b1.w[0])
                       : cis_ci_direct_find(D, a1.w[0], b1.w[0]);
      if (i >= 0) acc += (par & 1 ? -1.0 : 1.0) * cj * c[i];
    }
  }
  *norm_out = norm;
  *acc_out = acc;
}

static cis_status s2_of(const cis_fcidump *F, const cis_ci_space *S, const cis_ci_direct *D,
                        const ci_irrep_view *iv, const double *c, double *s2) {
  double sz = 0.5 * F->ms2, norm = 0, acc = 0;
  if (!S || cis_ci_space_words(S) == 1) s2_terms(F, S, D, iv, c, &norm, &acc, 1);
  else s2_terms(F, S, D, iv, c, &norm, &acc, 2);
  if (!(norm > 0)) return cis_error(CIS_ERR_INVALID, "cis_ci_s2: zero vector");
  *s2 = sz * sz + sz + acc / norm;
  if (*s2 < 0 && *s2 > -1e-9) *s2 = 0; /* rounding below an exact 0 */
  return CIS_OK;
}

cis_status cis_ci_s2(const cis_fcidump *F, const cis_ci_space *S, const double *c, double *s2) {
  if (!F || !S || !c || !s2) return cis_error(CIS_ERR_INVALID, "cis_ci_s2: NULL argument");
  return s2_of(F, S, NULL, NULL, c, s2);
}

cis_status cis_ci_s2_direct(const cis_fcidump *F, const cis_ci_direct *D, const double *c, double *s2) {
  if (!F || !D || !c || !s2) return cis_error(CIS_ERR_INVALID, "cis_ci_s2_direct: NULL argument");
  return s2_of(F, NULL, D, NULL, c, s2);
}

cis_status cis_ci_s2_direct_compact(const cis_fcidump *F, const cis_ci_direct *D, const double *cc, double *s2) {
  if (!F || !D || !cc || !s2) return cis_error(CIS_ERR_INVALID, "cis_ci_s2_direct_compact: NULL argument");
  ci_direct_view v;
  ci_direct_get_view(D, &v);
  if (!v.irrep) return s2_of(F, NULL, D, NULL, cc, s2); /* not blocked: compact is C1 */
  ci_irrep_view iv;
  ci_irrep_get_view(v.irrep, &iv);
  return s2_of(F, NULL, D, &iv, cc, s2);
}

double cis_ci_spin_from_s2(double s2) { return 0.5 * (-1.0 + sqrt(1.0 + 4.0 * fmax(s2, 0.0))); }
