/* test_ci_spin_penalty.c: S^2 applied to direct-space vectors
 * (ci_s2_apply_direct) and PySCF's fix_spin_ penalty as an operator
 * (cis_ci_spin_penalty_operator).
 *  - c.(S^2 c) / |c|^2 = ci_s2_direct(c) and d.(S^2 c) = c.(S^2 d) on
 *    random vectors, MS2 = 0 and 2, for every FCIDUMP of shared/ci but
 *    H2O 6-31G and for O2 (PySCF, tests/data/ci) at MS2 = 0, 2, 4;
 *  - H2O STO-3G (singlet ground state) and O2 (triplet) at MS2 = 0, C1: the
 *    lowest roots of H and their <S^2>; the penalty towards a singlet
 *    (linear P) and a triplet (squared P) gives the lowest root of that spin
 *    among them, to 1e-9 Eh, with that <S^2>;
 *  - the penalised operator's diagonal equals e_i . (H + shift P) e_i
 *    (linear and squared P: Davidson's preconditioner);
 *  - refusals: NULL, aliased vectors, ss below Sz(Sz+1), a host operator of
 *    another size.
 * <S^2> of compact vectors: test_ci_s2_direct. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"

static double dot(const double *a, const double *b, cis_int n) {
  double s = 0;
  for (cis_int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

/* S^2 c against the expectation value and the symmetry of S^2. */
static void check_apply(const char *name, cis_fcidump *F) {
  cis_ci_direct_opts opt = ci_direct_opts_default();
  opt.no_time_reversal = 1;
  opt.ignore_symmetry = 1;
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_ci_direct_create(F, &opt, &D));
  if (!D) return;
  cis_int n = cis_ci_direct_size(D);
  double *c = malloc((size_t)n * sizeof(double)), *d = malloc((size_t)n * sizeof(double));
  double *sc = malloc((size_t)n * sizeof(double)), *sd = malloc((size_t)n * sizeof(double));
  test_fill_random(c, CIS_F64, n, 11);
  test_fill_random(d, CIS_F64, n, 12);
  test_fill_nan(sc, CIS_F64, n);
  test_fill_nan(sd, CIS_F64, n);
  CHECK_OK(ci_s2_apply_direct(F, D, c, sc));
  CHECK_OK(ci_s2_apply_direct(F, D, d, sd));
  double s2 = NAN;
  CHECK_OK(ci_s2_direct(F, D, c, &s2));
  double e = dot(c, sc, n) / dot(c, c, n);
  CHECK(fabs(e - s2) <= 1e-12 * fmax(1.0, fabs(s2)), "%s MS2=%d: c.S^2c/|c|^2 %.15f vs <S^2> %.15f", name, F->ms2,
        e, s2);
  double a = dot(d, sc, n), b = dot(c, sd, n);
  CHECK(fabs(a - b) <= 1e-12 * (fabs(a) + 1.0), "%s MS2=%d: S^2 not symmetric (%.15g vs %.15g)", name, F->ms2, a, b);
  CHECK(ci_s2_apply_direct(F, D, c, c) == CIS_ERR_INVALID, "aliased vectors refused");
  free(c); free(d); free(sc); free(sd);
  cis_ci_direct_free(D);
}

/* Lowest `k` eigenpairs of op (diag-preconditioned Davidson, tight). */
static cis_status lowest(const cis_operator *op, int k, double *e, double *v) {
  cis_davidson_opts o = cis_davidson_opts_default();
  o.roots = k;
  o.tol = 1e-8;
  o.max_iter = 400;
  return cis_davidson_operator(op, cis_operator_diagonal(op), &o, e, v, NULL);
}

/* The lowest root of H + 0.5 P towards <S^2> = ss equals the lowest root of
 * that spin among the K lowest of H, with that <S^2>. */
static void check_penalty(const char *name, cis_fcidump *F, const cis_operator *H, const cis_ci_direct *D, int K,
                          const double *e, const double *s2, double ss) {
  const cis_int n = cis_ci_direct_size(D);
  int want = -1;
  for (int r = 0; r < K && want < 0; ++r)
    if (fabs(s2[r] - ss) < 1e-6) want = r;
  CHECK(want >= 0, "%s: a root with <S^2> = %g among the lowest %d", name, ss, K);
  cis_operator *P = NULL;
  CHECK_OK(cis_ci_spin_penalty_operator(H, F, D, 0.5, ss, &P));
  if (!P || want < 0) { cis_operator_free(P); return; }
  double ep = NAN, sp = NAN, *v = malloc((size_t)n * sizeof(double));
  CHECK_OK(lowest(P, 1, &ep, v));
  CHECK_OK(ci_s2_direct(F, D, v, &sp));
  CHECK(fabs(ep - e[want]) <= 1e-9 && fabs(sp - ss) <= 1e-6,
        "%s penalty towards <S^2> = %g: %.10f (<S^2> %.6f) vs root %d %.10f", name, ss, ep, sp, want, e[want]);
  printf("%s fix_spin <S^2> = %g (%s P): %.10f, <S^2> %.6f; H's root %d %.10f\n", name, ss,
         ss < 0.1 ? "linear" : "squared", ep + F->ecore, sp, want, e[want] + F->ecore);
  free(v);
  cis_operator_free(P);
}

/* MS2 = 0, C1: the lowest K roots of H with their <S^2>, then the penalty
 * towards a singlet (linear P) and a triplet (squared P). */
/* The penalised operator's diagonal (Davidson's preconditioner) is its
 * diagonal: e_i . (H + shift P) e_i on the first 200 unit vectors, linear
 * (ss = Sz(Sz+1)) and squared (ss = 6). */
static void check_diagonal(const char *name, cis_fcidump *F, const cis_operator *H, const cis_ci_direct *D) {
  const cis_int n = cis_ci_direct_size(D);
  double *x = calloc((size_t)n, sizeof(double)), *y = malloc((size_t)n * sizeof(double));
  for (int sq = 0; sq < 2 && x && y; ++sq) {
    cis_operator *P = NULL;
    CHECK_OK(cis_ci_spin_penalty_operator(H, F, D, 0.3, sq ? 6.0 : 0.0, &P));
    const double *d = cis_operator_diagonal(P);
    CHECK(d != NULL, "%s: the penalty operator has a diagonal", name);
    for (cis_int i = 0; d && i < n && i < 200; ++i) {
      x[i] = 1.0;
      CHECK_OK(cis_operator_apply(P, 1.0, x, 0.0, y, NULL));
      x[i] = 0.0;
      CHECK(fabs(y[i] - d[i]) <= 1e-10 * fmax(1.0, fabs(d[i])),
            "%s %s penalty: diagonal %lld is %.12f, (H+sP)_ii %.12f", name, sq ? "squared" : "linear", (long long)i,
            d[i], y[i]);
    }
    cis_operator_free(P);
  }
  free(x);
  free(y);
}

static void test_penalty(const char *name, cis_fcidump *F, int triplet_ground) {
  F->ms2 = 0;
  cis_ci_direct_opts opt = ci_direct_opts_default();
  opt.ignore_symmetry = 1; /* C1: states of every irrep together */
  cis_ci_direct *D = NULL;
  cis_operator *H = NULL;
  CHECK_OK(cis_ci_direct_create(F, &opt, &D));
  CHECK_OK(ci_direct_operator(D, &H));
  if (!H) { cis_ci_direct_free(D); return; }
  const cis_int n = cis_ci_direct_size(D);
  enum { K = 8 };
  double e[K], s2[K], *v = malloc((size_t)n * K * sizeof(double));
  CHECK_OK(lowest(H, K, e, v));
  for (int r = 0; r < K; ++r) {
    CHECK_OK(ci_s2_direct(F, D, v + (size_t)r * n, &s2[r]));
    printf("%s MS2=0 root %d: E = %.10f  <S^2> = %.6f\n", name, r, e[r] + F->ecore, s2[r]);
  }
  CHECK(fabs(s2[0] - (triplet_ground ? 2.0 : 0.0)) < 1e-6, "%s: ground state <S^2> %.6f", name, s2[0]);
  check_penalty(name, F, H, D, K, e, s2, 0.0);
  check_penalty(name, F, H, D, K, e, s2, 2.0);
  check_diagonal(name, F, H, D);
  /* refusals */
  cis_operator *bad = NULL;
  CHECK(cis_ci_spin_penalty_operator(H, F, D, 0.5, -1.0, &bad) == CIS_ERR_INVALID && !bad, "ss < Sz(Sz+1) refused");
  CHECK(cis_ci_spin_penalty_operator(H, F, D, NAN, 0.0, &bad) == CIS_ERR_INVALID, "NaN shift refused");
  CHECK(cis_ci_spin_penalty_operator(NULL, F, D, 0.5, 0.0, &bad) == CIS_ERR_INVALID, "NULL H refused");
  double one = 1.0;
  cis_csr *small = test_csr_from_dense(1, 1, &one, CIS_F64);
  cis_operator *Hs = NULL;
  CHECK_OK(cis_operator_from_csr(small, &Hs));
  CHECK(cis_ci_spin_penalty_operator(Hs, F, D, 0.5, 0.0, &bad) == CIS_ERR_INVALID, "operator of another size refused");
  cis_operator_free(Hs);
  cis_csr_free(small);
  free(v);
  cis_operator_free(H);
  cis_ci_direct_free(D);
}

int main(void) {
  static const char *mol[] = {"h4_sto3g", "lih_sto3g", "h2o_sto3g", "beh2_sto3g", "n2_sto3g"};
  for (size_t m = 0; m < sizeof mol / sizeof mol[0]; ++m) {
    char sub[64], path[512];
    snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", mol[m]);
    cis_fcidump *F = NULL;
    CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, sub), &F));
    if (!F) continue;
    check_apply(mol[m], F);
    F->ms2 = 2;
    check_apply(mol[m], F);
    if (!strcmp(mol[m], "h2o_sto3g")) test_penalty(mol[m], F, 0);
    cis_fcidump_free(F);
  }
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/o2_sto3g_triplet_pyscf.FCIDUMP", &F));
  if (F) {
    for (int ms2 = 0; ms2 <= 4; ms2 += 2) {
      F->ms2 = ms2;
      F->isym = 1;
      check_apply("o2_sto3g", F);
    }
    test_penalty("o2_sto3g", F, 1);
    cis_fcidump_free(F);
  }
  return test_summary("test_ci_spin_penalty");
}
