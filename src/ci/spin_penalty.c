/* spin_penalty.c: S^2 applied to CI vectors of the direct space, and the
 * spin-penalised operator H + shift P of PySCF's fci.addons.fix_spin_
 * (SpinPenaltyFCISolver), so that a spin penalty needs no dense matrix.
 *
 * S^2 = S- S+ + Sz^2 + Sz with S+ = sum_p a+_{p alpha} a_{p beta} and
 * S- = (S+)^T (Helgaker, Jorgensen & Olsen, "Molecular Electronic-Structure
 * Theory", §2.4). S+ maps the (na, nb) determinants into (na+1, nb-1), S-
 * maps them back; each is applied as a gather over its outputs, O(norb) per
 * determinant, as PySCF's fci.spin_op.contract_ss does. Determinant order and
 * phases are the direct space's (cisparse/ci.h): index = A * nB + B, alpha
 * creators before beta creators, strings in colexicographic order.
 *
 * Penalty (PySCF fix_spin_, same rule): with ss the target <S^2> (default
 * Sz(Sz+1)), P = S^2 - ss when ss < Sz(Sz+1) + 0.1 (the lowest spin the
 * space allows: S^2 - ss is then positive semidefinite), else P = (S^2 - ss)^2. */
#include <math.h>
#include <stdlib.h>
#include "ci/ci_internal.h"
#include "ci/strings.h"
#include "cisparse/operator.h"
#include "core/internal.h"
#include "operators/operator_internal.h"

static inline uint64_t below(int p) { return p ? (~0ull >> (64 - p)) : 0; }

/* out = S+ in (to_alpha) or S- in (!to_alpha), from the (na, nb) space to
 * (na + d, nb - d), d = +1 / -1. For every output (Ja, Jb) and orbital p with
 * the flipped electron in it: the input strings differ from Ja, Jb in bit p
 * only, so the operators' signs count the same occupied orbitals below p:
 *   S+: a_{p beta} passes na alpha creators, a+_{p alpha}: (-1)^(na + below)
 *   S-: a_{p alpha}, then a+_{p beta} passes na - 1 alpha creators. */
static cis_status flip(int norb, int na, int nb, int to_alpha, const double *in, double *out) {
  const int oa = na + (to_alpha ? 1 : -1), ob = nb - (to_alpha ? 1 : -1);
  const cis_int nsb_in = ci_binom(norb, nb), nsa_out = ci_binom(norb, oa), nsb_out = ci_binom(norb, ob);
  const int base = to_alpha ? na : na - 1;
  int32_t *tab = NULL; /* per output beta string and p: input beta address, or -1 */
  uint64_t *jbs = NULL; /* the output beta strings, made once */
  cis_status st = CIS_OK;
  if (nsa_out <= 0 || nsb_out <= 0) return CIS_OK; /* the intermediate space is empty */
  CIS_TRY(cis_alloc_array((void **)&tab, (size_t)nsb_out * norb, sizeof(int32_t), "S^2 beta table"));
  CIS_TRY(cis_alloc_array((void **)&jbs, (size_t)nsb_out, sizeof(uint64_t), "S^2 beta strings"));
#pragma omp parallel for schedule(static) num_threads(cis_threads_for((int64_t)nsa_out * nsb_out, CIS_GRAIN_VECTOR))
  for (cis_int jb = 0; jb < nsb_out; ++jb) {
    const uint64_t Jb = jbs[jb] = ci_string_of_addr(jb, ob);
    for (int p = 0; p < norb; ++p) {
      const uint64_t bit = 1ull << p;
      const int ok = to_alpha ? !(Jb & bit) : (Jb & bit) != 0;
      tab[jb * norb + p] = ok ? (int32_t)ci_string_addr(Jb ^ bit) : -1;
    }
  }
#pragma omp parallel for schedule(dynamic, 16) num_threads(cis_threads_for((int64_t)nsa_out * nsb_out, CIS_GRAIN_VECTOR))
  for (cis_int ja = 0; ja < nsa_out; ++ja) {
    const uint64_t Ja = ci_string_of_addr(ja, oa);
    cis_int ia[64];
    for (int p = 0; p < norb; ++p) {
      const uint64_t bit = 1ull << p;
      const int ok = to_alpha ? (Ja & bit) != 0 : !(Ja & bit);
      ia[p] = ok ? ci_string_addr(Ja ^ bit) : -1;
    }
    double *o = out + ja * nsb_out;
    for (cis_int jb = 0; jb < nsb_out; ++jb) {
      const uint64_t Jb = jbs[jb];
      const int32_t *t = tab + jb * norb;
      double acc = 0.0;
      for (int p = 0; p < norb; ++p) {
        if (ia[p] < 0 || t[p] < 0) continue;
        const int par = base + ci_popcount(Ja & below(p)) + ci_popcount(Jb & below(p));
        const double v = in[ia[p] * nsb_in + t[p]];
        acc += (par & 1) ? -v : v;
      }
      o[jb] = acc;
    }
  }
cleanup:
  cis_free(tab);
  cis_free(jbs);
  return st;
}

/* out = S^2 c, with u (the (na+1, nb-1) space) as workspace. */
static cis_status s2_apply(int norb, int na, int nb, const double *c, double *u, double *out, cis_int n) {
  const double sz = 0.5 * (na - nb);
  cis_status st = CIS_OK;
  if (nb > 0 && na < norb) {
    CIS_TRY(flip(norb, na, nb, 1, c, u));
    CIS_TRY(flip(norb, na + 1, nb - 1, 0, u, out));
  } else {
#pragma omp parallel for schedule(static) num_threads(cis_threads_for(n, CIS_GRAIN_VECTOR))
    for (cis_int i = 0; i < n; ++i) out[i] = 0.0;
  }
#pragma omp parallel for schedule(static) num_threads(cis_threads_for(n, CIS_GRAIN_VECTOR))
  for (cis_int i = 0; i < n; ++i) out[i] += (sz * sz + sz) * c[i];
cleanup:
  return st;
}

/* Elements of the (na+1, nb-1) space (the S+ intermediate); 0 when empty. */
static cis_int flipped_size(int norb, int na, int nb) {
  if (nb <= 0 || na >= norb) return 0;
  return ci_binom(norb, na + 1) * ci_binom(norb, nb - 1);
}

cis_status ci_s2_apply_direct(const cis_fcidump *F, const cis_ci_direct *D, const double *c, double *out) {
  cis_status st;
  double *u = NULL;
  if (!F || !D || !c || !out || c == out) return cis_error(CIS_ERR_INVALID, "ci_s2_apply_direct: NULL or aliased argument");
  const int norb = F->norb, na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  const cis_int n = cis_ci_direct_size(D);
  if (norb > 64 || n != ci_binom(norb, na) * ci_binom(norb, nb))
    return cis_error(CIS_ERR_INVALID, "ci_s2_apply_direct: the direct space does not match the FCIDUMP");
  const cis_int nu = flipped_size(norb, na, nb);
  if (nu) CIS_TRY(cis_alloc_array((void **)&u, (size_t)nu, sizeof(double), "S^2 intermediate vector"));
  st = s2_apply(norb, na, nb, c, u, out, n);
cleanup:
  cis_free(u);
  return st;
}

typedef struct penalty_ctx {
  const cis_operator *H;
  int norb, na, nb, square;
  double shift, ss;
  cis_int n;
  double *u, *t, *t2; /* S+ intermediate; P x; (S^2 - ss) x when squared */
} penalty_ctx;

static void penalty_free(void *p) {
  penalty_ctx *c = p;
  if (!c) return;
  cis_free(c->u);
  cis_free(c->t);
  cis_free(c->t2);
  cis_free(c);
}

/* t = (S^2 - ss) x. */
static cis_status shifted_s2(penalty_ctx *c, const double *x, double *t) {
  cis_status st = s2_apply(c->norb, c->na, c->nb, x, c->u, t, c->n);
  if (st) return st;
#pragma omp parallel for schedule(static) num_threads(cis_threads_for(c->n, CIS_GRAIN_VECTOR))
  for (cis_int i = 0; i < c->n; ++i) t[i] -= c->ss * x[i];
  return CIS_OK;
}

/* y = alpha (H + shift P) x + beta y. */
static cis_status penalty_apply(void *ctx, double alpha, const void *xv, double beta, void *yv, cis_stream s) {
  penalty_ctx *c = ctx;
  const double *x = xv;
  double *y = yv;
  cis_status st = cis_operator_apply(c->H, alpha, x, beta, y, s);
  if (st) return st;
  if (c->square) {
    if ((st = shifted_s2(c, x, c->t2)) || (st = shifted_s2(c, c->t2, c->t))) return st;
  } else if ((st = shifted_s2(c, x, c->t))) {
    return st;
  }
  const double f = alpha * c->shift;
#pragma omp parallel for schedule(static) num_threads(cis_threads_for(c->n, CIS_GRAIN_VECTOR))
  for (cis_int i = 0; i < c->n; ++i) y[i] += f * c->t[i];
  return CIS_OK;
}

cis_status cis_ci_spin_penalty_operator(const cis_operator *H, const cis_fcidump *F, const cis_ci_direct *D,
                                        double shift, double ss, cis_operator **out) {
  cis_status st;
  penalty_ctx *c = NULL;
  cis_operator *op = NULL;
  double *diag = NULL;
  if (!H || !F || !D || !out) return cis_error(CIS_ERR_INVALID, "cis_ci_spin_penalty_operator: NULL argument");
  *out = NULL;
  const int norb = F->norb, na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  const cis_int n = cis_ci_direct_size(D);
  if (cis_operator_rows(H) != n || cis_operator_cols(H) != n || cis_operator_dtype(H) != CIS_F64 ||
      operator_memspace(H) != CIS_MEM_HOST)
    return cis_error(CIS_ERR_INVALID, "spin penalty: H must be a host double operator of the direct space's size %lld",
                     (long long)n);
  if (norb > 64 || n != ci_binom(norb, na) * ci_binom(norb, nb))
    return cis_error(CIS_ERR_INVALID, "spin penalty: the direct space does not match the FCIDUMP");
  const double sz = 0.5 * abs(na - nb);
  if (!isfinite(shift) || !(ss >= sz * (sz + 1) - 1e-12) || !isfinite(ss))
    return cis_error(CIS_ERR_INVALID, "spin penalty: shift %g and <S^2> %g (at least Sz(Sz+1) = %g) must be finite",
                     shift, ss, sz * (sz + 1));
  CIS_TRY(cis_alloc_array((void **)&c, 1, sizeof(*c), "spin penalty"));
  *c = (penalty_ctx){H, norb, na, nb, ss >= sz * (sz + 1) + 0.1, shift, ss, n, NULL, NULL, NULL};
  const cis_int nu = flipped_size(norb, na, nb);
  if (nu) CIS_TRY(cis_alloc_array((void **)&c->u, (size_t)nu, sizeof(double), "S^2 intermediate vector"));
  CIS_TRY(cis_alloc_array((void **)&c->t, (size_t)n, sizeof(double), "spin penalty vector"));
  if (c->square) CIS_TRY(cis_alloc_array((void **)&c->t2, (size_t)n, sizeof(double), "spin penalty vector"));
  CIS_TRY(cis_operator_from_callback(n, n, CIS_F64, CIS_MEM_HOST, penalty_apply, c, penalty_free, &op));
  c = NULL; /* owned by op */
  /* Diagonal (the Davidson preconditioner and guesses): H's plus shift times
   * P's, diag(S^2) = Sz^2 + Sz + (beta-only orbitals); squared, exactly:
   * diag((S^2 - ss)^2)_ii = (S^2 - ss)_ii^2 + sum_{j != i} (S^2)_ij^2, and row
   * i of S- S+ holds one +-1 for each pair (alpha-only q, beta-only p) whose
   * spins it exchanges, so the sum is (alpha-only) x (beta-only). */
  if (cis_operator_diagonal(H)) {
    CIS_TRY(cis_alloc_array((void **)&diag, (size_t)n, sizeof(double), "spin penalty diagonal"));
    const double *hd = cis_operator_diagonal(H);
    const int square = ss >= sz * (sz + 1) + 0.1;
    const double szz = 0.25 * (na - nb) * (na - nb) + 0.5 * (na - nb);
#pragma omp parallel for schedule(static) num_threads(cis_threads_for(n, CIS_GRAIN_VECTOR))
    for (cis_int i = 0; i < n; ++i) {
      uint64_t a, b;
      cis_ci_direct_det(D, i, &a, &b);
      const int nbo = ci_popcount(b & ~a), nao = ci_popcount(a & ~b);
      const double p = szz + nbo - ss;
      diag[i] = hd[i] + shift * (square ? p * p + (double)nao * nbo : p);
    }
    CIS_TRY(cis_operator_set_diagonal(op, diag));
  }
  cis_free(diag);
  *out = op;
  return CIS_OK;
cleanup:
  cis_free(diag);
  penalty_free(c);
  cis_operator_free(op);
  return st;
}
