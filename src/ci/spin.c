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
 * The stored space (ci_s2) looks every partner I up. The direct space
 * (ci_s2_direct, ci_s2_direct_compact) writes the swaps as one alpha
 * and one beta single replacement and sums them string by string, with no
 * look-up (below, before s2_direct). S- S+ keeps the spatial symmetry of a
 * determinant, so a vector blocked by irreps (the compact layout of
 * ci_direct_compress) has every partner I in its own block:
 * ci_s2_direct_compact reads the compact vector alone, never its C1
 * expansion (nsym doubles, not nsa * nsb). */
#include <math.h>
#include "ci/ci_internal.h"
#include "ci/sigma_irrep.h"
#include "ci/strings.h"
#include "core/internal.h"

/* The sums of <S^2>'s two terms (above) for the stored space S, on nw-word strings
 * (ci_bits.h): for every determinant J its diagonal count and the swaps of
 * every (p alpha-only, q beta-only) pair, each partner I looked up. */
CI_ALWAYS_INLINE void s2_terms(const cis_fcidump *F, const cis_ci_space *S, const double *c, double *norm_out,
                               double *acc_out, const int nw) {
  cis_int n = ci_space_size(S);
  double norm = 0, acc = 0;
  int na = cis_fcidump_nalpha(F);
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : norm, acc)
  for (cis_int j = 0; j < n; ++j) {
    double cj = c[j];
    if (cj == 0) continue;
    ci_bits a, b;
    ci_space_det_bits(S, j, &a, &b);
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
      cis_int i = ci_space_find_bits(S, &a1, &b1);
      if (i >= 0) acc += (par & 1 ? -1.0 : 1.0) * cj * c[i];
    }
  }
  *norm_out = norm;
  *acc_out = acc;
}

/* <S^2> from the sums over ||c||^2 = norm: Sz^2 + Sz + acc / norm (who:
 * the entry point, for the error). */
static cis_status s2_finish(const cis_fcidump *F, double norm, double acc, const char *who, double *s2) {
  double sz = 0.5 * F->ms2;
  if (!(norm > 0)) return cis_error(CIS_ERR_INVALID, "%s: zero vector", who);
  *s2 = sz * sz + sz + acc / norm;
  if (*s2 < 0 && *s2 > -1e-9) *s2 = 0; /* rounding below an exact 0 */
  return CIS_OK;
}

/* ---- the direct space: string-driven, no look-ups ----
 * For p != q, a+_{p beta} a_{p alpha} a+_{q alpha} a_{q beta}
 * = -E^alpha_{qp} E^beta_{pq} (E^s_{xy} = a+_{xs} a_{ys}; anticommuting the
 * four operators, p != q), and on a determinant |A B> (alpha string, then
 * beta string) each E acts on its own string with the sign of ci_sign_between
 * (strings.h's links). So
 *   <c| S- S+ |c>_offdiag = - sum_{p != q} sum_{A: p in A, q not} sum_{B: q in B, p not}
 *                            sa sb c(A', B') c(A, B),
 * A' = A - p + q (sign sa), B' = B - q + p (sign sb): for each alpha
 * replacement A -> A' a dot product of the rows c(A, .) and c(A', .)
 * gathered through the beta replacements q -> p. The term (A, B) -> (A', B')
 * equals its mirror (A', B') -> (A, B) (q <-> p, the same signs), so only
 * A' < A is summed, twice.
 *
 * Rows: C1, c(A, B) at A nsb + B; blocked by irreps (sigma_irrep.h), the row
 * of A holds the beta strings of irrep(A) XOR target and c(A, B) is at
 * off[A] + bpos[B]. A' and B' change irrep by the same irrep(p) XOR irrep(q),
 * so B' lies in the row of A' whenever B lies in the row of A. */

/* The beta replacements B -> B' = B - q + p (q occupied in B, p empty),
 * grouped by key ((q n + p) G + irrep(B)) 2 + (sign < 0): entries
 * ent[start[key] .. start[key+1]) of row positions (B's, B''s). */
typedef struct s2_beta {
  int n, G;
  cis_int *start;
  int32_t *ent; /* pairs: position of B, position of B' */
} s2_beta;

static cis_int s2_key(const s2_beta *T, int q, int p, int g, int neg) {
  return (((cis_int)q * T->n + p) * T->G + g) * 2 + neg;
}

/* T for the beta strings bstr (nsb of nb electrons in n orbitals); iv: the
 * blocked layout (irreps and positions), else C1 (one irrep, position =
 * address). Memory: 8 bytes per replacement, nsb nb (n - nb) of them. */
static cis_status s2_beta_create(const uint64_t *bstr, cis_int nsb, int n, const ci_irrep_view *iv, s2_beta *T) {
  cis_status st;
  T->n = n;
  T->G = iv ? 8 : 1;
  T->ent = NULL;
  const cis_int nkey = (cis_int)n * n * T->G * 2;
  CIS_TRY(cis_alloc_zeroed((void **)&T->start, nkey + 1, sizeof(cis_int), "<S^2> beta replacement groups"));
  const uint64_t all = ci_first(n);
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      for (cis_int k = 0; k < nkey; ++k) T->start[k + 1] += T->start[k]; /* counts -> ends */
      CIS_TRY(cis_alloc_array((void **)&T->ent, 2 * (T->start[nkey] > 0 ? T->start[nkey] : 1), sizeof(int32_t),
                              "<S^2> beta replacements"));
      for (cis_int k = nkey; k > 0; --k) T->start[k] = T->start[k - 1]; /* ends -> starts (filled below) */
      T->start[0] = 0;
    }
    for (cis_int B = 0; B < nsb; ++B) {
      const uint64_t s = bstr[B];
      const int g = iv ? iv->symb[B] : 0;
      for (uint64_t occ = s; occ; occ &= occ - 1)
        for (uint64_t emp = all & ~s; emp; emp &= emp - 1) {
          const int q = ci_lowest(occ), p = ci_lowest(emp);
          const cis_int key = s2_key(T, q, p, g, ci_sign_between(s, p, q) < 0);
          if (pass == 0) {
            T->start[key + 1]++;
            continue;
          }
          const cis_int B2 = ci_string_addr((s & ~(1ull << q)) | 1ull << p);
          int32_t *e = T->ent + 2 * T->start[key + 1]++;
          e[0] = (int32_t)(iv ? iv->bpos[B] : B);
          e[1] = (int32_t)(iv ? iv->bpos[B2] : B2);
        }
    }
  }
  return CIS_OK;
cleanup:
  cis_free(T->start);
  T->start = NULL;
  return st;
}

/* sum over the entries of group key of x[B] y[B']. */
static double s2_group_dot(const s2_beta *T, cis_int key, const double *x, const double *y) {
  double s = 0;
  const int32_t *e = T->ent + 2 * T->start[key], *end = T->ent + 2 * T->start[key + 1];
  for (; e < end; e += 2) s += x[e[0]] * y[e[1]];
  return s;
}

/* Below this many determinants one thread (the fork costs more than the work). */
#define CI_S2_PARALLEL_MIN 4096

/* <S^2> of c on the direct space: C1 (iv NULL) or blocked (iv, compact c);
 * who: the entry point, for errors. */
static cis_status s2_direct(const cis_fcidump *F, const cis_ci_direct *D, const ci_irrep_view *iv, const double *c,
                            const char *who, double *s2) {
  cis_status st;
  ci_direct_view v;
  ci_direct_get_view(D, &v);
  if (v.norb != F->norb || v.na != cis_fcidump_nalpha(F) || v.nb != cis_fcidump_nbeta(F))
    return cis_error(CIS_ERR_INVALID, "%s: the direct space (%d alpha, %d beta electrons in %d orbitals) does not "
                     "match the FCIDUMP (%d, %d in %d)", who, v.na, v.nb, v.norb, cis_fcidump_nalpha(F),
                     cis_fcidump_nbeta(F), F->norb);
  uint64_t *astr = NULL, *bstr = NULL, unused;
  s2_beta T = {0};
  CIS_TRY(cis_alloc_array((void **)&astr, v.nsa > 0 ? v.nsa : 1, sizeof(uint64_t), "<S^2> alpha strings"));
  CIS_TRY(cis_alloc_array((void **)&bstr, v.nsb > 0 ? v.nsb : 1, sizeof(uint64_t), "<S^2> beta strings"));
  for (cis_int A = 0; A < v.nsa; ++A) cis_ci_direct_det(D, A * v.nsb, &astr[A], &unused);
  for (cis_int B = 0; B < v.nsb; ++B) cis_ci_direct_det(D, B, &unused, &bstr[B]);
  CIS_TRY(s2_beta_create(bstr, v.nsb, v.norb, iv, &T));
  const int n = v.norb;
  const uint64_t all = ci_first(n);
  double norm = 0, diag = 0, off = 0;
#pragma omp parallel for schedule(dynamic, 8) reduction(+ : norm, diag, off) if (v.ndet >= CI_S2_PARALLEL_MIN)
  for (cis_int A = 0; A < v.nsa; ++A) {
    const uint64_t sa = astr[A];
    const int g = iv ? iv->syma[A] ^ iv->target : 0; /* irrep of the row's beta strings */
    const cis_int row = iv ? iv->off[A] : A * v.nsb, len = iv ? iv->off[A + 1] - row : v.nsb;
    const int32_t *bs = iv ? iv->blist + iv->bstart[g] : NULL; /* the row's beta strings (blocked) */
    const double *x = c + row;
    for (cis_int k = 0; k < len; ++k) { /* ||c||^2 and the p = q terms: beta-only orbitals */
      const double ck = x[k];
      norm += ck * ck;
      diag += ck * ck * ci_popcount(bstr[bs ? bs[k] : k] & ~sa);
    }
    double sum = 0;
    for (uint64_t occ = sa; occ; occ &= occ - 1)
      for (uint64_t emp = all & ~sa; emp; emp &= emp - 1) {
        const int p = ci_lowest(occ), q = ci_lowest(emp); /* A' = A - p + q */
        const cis_int A2 = ci_string_addr((sa & ~(1ull << p)) | 1ull << q);
        if (A2 >= A) continue; /* its mirror, from A' */
        const double *y = c + (iv ? iv->off[A2] : A2 * v.nsb);
        const cis_int key = s2_key(&T, q, p, g, 0); /* B -> B' = B - q + p */
        const double t = s2_group_dot(&T, key, x, y) - s2_group_dot(&T, key + 1, x, y);
        sum += ci_sign_between(sa, p, q) * t;
      }
    off -= 2 * sum;
  }
  st = s2_finish(F, norm, diag + off, who, s2);
cleanup:
  cis_free(astr);
  cis_free(bstr);
  cis_free(T.start);
  cis_free(T.ent);
  return st;
}

cis_status ci_s2(const cis_fcidump *F, const cis_ci_space *S, const double *c, double *s2) {
  if (!F || !S || !c || !s2) return cis_error(CIS_ERR_INVALID, "ci_s2: NULL argument");
  double norm = 0, acc = 0;
  if (ci_space_words(S) == 1) s2_terms(F, S, c, &norm, &acc, 1);
  else s2_terms(F, S, c, &norm, &acc, 2);
  return s2_finish(F, norm, acc, "ci_s2", s2);
}

cis_status ci_s2_direct(const cis_fcidump *F, const cis_ci_direct *D, const double *c, double *s2) {
  if (!F || !D || !c || !s2) return cis_error(CIS_ERR_INVALID, "ci_s2_direct: NULL argument");
  return s2_direct(F, D, NULL, c, "ci_s2_direct", s2);
}

cis_status ci_s2_direct_compact(const cis_fcidump *F, const cis_ci_direct *D, const double *cc, double *s2) {
  if (!F || !D || !cc || !s2) return cis_error(CIS_ERR_INVALID, "ci_s2_direct_compact: NULL argument");
  ci_direct_view v;
  ci_direct_get_view(D, &v);
  if (!v.irrep) return s2_direct(F, D, NULL, cc, "ci_s2_direct_compact", s2); /* not blocked: compact is C1 */
  ci_irrep_view iv;
  ci_irrep_get_view(v.irrep, &iv);
  return s2_direct(F, D, &iv, cc, "ci_s2_direct_compact", s2);
}

double cis_ci_spin_from_s2(double s2) { return 0.5 * (-1.0 + sqrt(1.0 + 4.0 * fmax(s2, 0.0))); }
