/* test_ci_selected.c: selected CI through the driver (cis_ci_solver_set_strings,
 * the method "selected" of ci_method.h).
 *  - the roots of random string sets with random integrals (closed and open
 *    shells, odd electrons, equal sets, sets larger than a warp) and of the
 *    degenerate site model: energies = dense diagonalisation of P H P built
 *    element by element (ci_element, ci_diagonal) plus ECORE, each
 *    vector's residual in that dense H, vectors in the grid order of the
 *    sorted sets (grid_alpha x grid_beta), <S^2> = that of the vector put
 *    into the full space (ci_s2_direct of a complete direct space);
 *  - the full string sets: the full-CI driver's energies and <S^2>;
 *  - one root alone is the lowest state, whatever its alpha <-> beta parity
 *    (equal sets, MS = 0: a unit-vector guess on a closed-shell determinant
 *    is symmetric, and Davidson must still reach a lower antisymmetric state);
 *  - a warm start from the roots: the same energies in fewer products; from
 *    a state of one parity alone: still the lowest state, of the other;
 *  - cis_ci_solver_dets gives the grid; the sets cleared: full CI again;
 *  - refusals, one line each: options that do not apply, bad sets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cisparse/ci_solve.h"
#include "cisparse/sci.h"
#include "sci_cases.h"
#include "test_util.h"
#include "ci/ci_internal.h"

/* Position of string x in the sorted list s[0..n), -1 if absent. */
static cis_int find(const uint64_t *s, cis_int n, uint64_t x) {
  for (cis_int i = 0; i < n; ++i)
    if (s[i] == x) return i;
  return -1;
}

/* <S^2> of v (on the grid A x B) put into the complete direct space of F. */
static double s2_full(const cis_fcidump *F, const uint64_t *A, cis_int na, const uint64_t *B, cis_int nb,
                      const double *v) {
  cis_ci_direct *D = NULL;
  double s2 = NAN;
  if (cis_ci_direct_create(F, NULL, &D) != CIS_OK) return NAN;
  const cis_int n = cis_ci_direct_size(D);
  double *x = calloc((size_t)n, sizeof(double));
  for (cis_int i = 0; i < n; ++i) {
    uint64_t a, b;
    cis_ci_direct_det(D, i, &a, &b);
    const cis_int ia = find(A, na, a), ib = find(B, nb, b);
    if (ia >= 0 && ib >= 0) x[i] = v[ia * nb + ib];
  }
  if (ci_s2_direct(F, D, x, &s2) != CIS_OK) s2 = NAN;
  free(x);
  cis_ci_direct_free(D);
  return s2;
}

/* The driver on the sets (ma, mb strings drawn with cs->seed; repeats added)
 * against the dense H: energies, residuals, grid, <S^2>. */
static void check_case(const sc_case *cs, int style) {
  cis_fcidump *F = rc_fcidump(style, cs->norb, cs->nelec, cs->ms2, cs->seed);
  F->ecore = 0.75;
  cis_int nall_a, nall_b, ma = cs->ma, mb = cs->mb;
  uint64_t *all_a = sc_all_strings(cs->norb, cis_fcidump_nalpha(F), &nall_a);
  uint64_t *all_b = sc_all_strings(cs->norb, cis_fcidump_nbeta(F), &nall_b);
  if (ma > nall_a) ma = nall_a;
  if (mb > nall_b) mb = nall_b;
  uint64_t s = cs->seed;
  uint64_t *sa = sc_random_set(all_a, nall_a, ma, 2, &s);
  uint64_t *sb = cs->same ? sa : sc_random_set(all_b, nall_b, mb, 1, &s);
  const cis_int in_b = cs->same ? ma + 2 : mb + 1;
  if (cs->same) mb = ma;
  const cis_int n = ma * mb;
  const int roots = n < 3 ? (int)n : 3;
  cis_ci_solver *sv = NULL;
  cis_ci_result *R = NULL;
  CHECK_OK(cis_ci_solver_create(&sv));
  CHECK_OK(cis_ci_solver_set_strings(sv, sa, ma + 2, sb, in_b));
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  o.roots = roots;
  o.keep_vectors = 1;
  o.tol = 1e-9;
  CHECK_OK(cis_ci_solver_solve(sv, F, &o, &R));
  if (!R) goto done;
  CHECK(R->method == CIS_CI_METHOD_SELECTED, "%s: method selected (%d)", cs->what, R->method);
  CHECK(R->size == n && R->grid_alpha_n == ma && R->grid_beta_n == mb, "%s: %lld determinants, grid %lld x %lld",
        cs->what, (long long)R->size, (long long)R->grid_alpha_n, (long long)R->grid_beta_n);
  for (cis_int i = 1; i < R->grid_alpha_n; ++i) CHECK(R->grid_alpha[i - 1] < R->grid_alpha[i], "alpha grid sorted");
  for (cis_int i = 1; i < R->grid_beta_n; ++i) CHECK(R->grid_beta[i - 1] < R->grid_beta[i], "beta grid sorted");
  if (R->size != n || R->grid_alpha_n != ma || R->grid_beta_n != mb) goto done;
  double *H = sc_dense_h(F, R->grid_alpha, ma, R->grid_beta, mb), *w = malloc((size_t)n * sizeof(double));
  double *H2 = malloc((size_t)(n * n) * sizeof(double)), *hv = malloc((size_t)n * sizeof(double));
  memcpy(H2, H, (size_t)(n * n) * sizeof(double));
  CHECK_OK(ci_dense_eigh(H2, (int)n, w));
  for (int k = 0; k < roots; ++k) {
    const double *v = R->vectors + (size_t)k * (size_t)n;
    CHECK(fabs(R->energies[k] - (w[k] + F->ecore)) <= 1e-8, "%s: root %d %.12f, dense %.12f", cs->what, k,
          R->energies[k], w[k] + F->ecore);
    double res = 0, nrm = 0;
    for (cis_int i = 0; i < n; ++i) {
      hv[i] = 0;
      for (cis_int j = 0; j < n; ++j) hv[i] += H[i * n + j] * v[j];
      nrm += v[i] * v[i];
    }
    for (cis_int i = 0; i < n; ++i) res = fmax(res, fabs(hv[i] - (R->energies[k] - F->ecore) * v[i]));
    CHECK(fabs(nrm - 1) <= 1e-10 && res <= 1e-7, "%s: root %d norm %.3e off 1, residual %.3e", cs->what, k,
          fabs(nrm - 1), res);
    /* within a degenerate level <S^2> depends on the vector: compare where the level is single */
    const int single = (k == 0 || fabs(w[k] - w[k - 1]) > 1e-6) && (k + 1 >= (int)n || fabs(w[k + 1] - w[k]) > 1e-6);
    if (!single) continue;
    const double ref = s2_full(F, R->grid_alpha, ma, R->grid_beta, mb, v);
    CHECK(fabs(R->s2[k] - ref) <= 1e-7, "%s: root %d <S^2> %.10f, in the full space %.10f", cs->what, k, R->s2[k], ref);
  }
  /* one root alone: the lowest state whatever its alpha <-> beta parity (a guess of one parity must not keep
   * Davidson there) */
  cis_ci_result *R1 = NULL;
  o.roots = 1;
  CHECK_OK(cis_ci_solver_solve(sv, F, &o, &R1));
  if (R1) CHECK(fabs(R1->energies[0] - (w[0] + F->ecore)) <= 1e-8, "%s: one root %.12f, dense lowest %.12f", cs->what,
                R1->energies[0], w[0] + F->ecore);
  cis_ci_result_free(R1);
  free(H), free(H2), free(w), free(hv);
done:
  cis_ci_result_free(R);
  cis_ci_solver_free(sv);
  free(all_a), free(all_b), free(sa);
  if (!cs->same) free(sb);
  rc_free(F);
}

/* Every string of each spin: the full-CI driver's answer. */
static void test_full_sets(int norb, int nelec, int ms2, uint64_t seed) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, norb, nelec, ms2, seed);
  cis_int na, nb;
  uint64_t *A = sc_all_strings(norb, cis_fcidump_nalpha(F), &na), *B = sc_all_strings(norb, cis_fcidump_nbeta(F), &nb);
  cis_ci_solver *sv = NULL;
  cis_ci_result *R = NULL, *Q = NULL;
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  o.roots = 4;
  o.tol = 1e-9;
  CHECK_OK(cis_ci_solve(F, &o, &Q));
  CHECK_OK(cis_ci_solver_create(&sv));
  CHECK_OK(cis_ci_solver_set_strings(sv, A, na, B, nb));
  CHECK_OK(cis_ci_solver_solve(sv, F, &o, &R));
  for (int k = 0; R && Q && k < 4; ++k) {
    CHECK(fabs(R->energies[k] - Q->energies[k]) <= 1e-8, "full sets %d/%d/%d root %d: %.12f, full CI %.12f", norb,
          nelec, ms2, k, R->energies[k], Q->energies[k]);
    CHECK(fabs(R->s2[k] - Q->s2[k]) <= 1e-6, "full sets root %d: <S^2> %.8f, full CI %.8f", k, R->s2[k], Q->s2[k]);
  }
  cis_ci_result_free(R);
  /* cleared: full CI again */
  CHECK_OK(cis_ci_solver_set_strings(sv, NULL, 0, NULL, 0));
  CHECK_OK(cis_ci_solver_solve(sv, F, &o, &R));
  CHECK(R && R->method == CIS_CI_METHOD_DIRECT, "sets cleared: full CI (method %d)", R ? R->method : -1);
  cis_ci_result_free(R);
  cis_ci_result_free(Q);
  cis_ci_solver_free(sv);
  free(A), free(B);
  rc_free(F);
}

/* A second solve from the first's roots: the same energies, fewer products;
 * cis_ci_solver_dets lists the grid. */
/* Random integrals of norb orbitals and norb electrons (MS = 0, seed) and a
 * solver given ma alpha and mb beta strings drawn with seed (same: the
 * beta set is the alpha set); then a solve of `roots` roots, vectors kept,
 * into *R. */
static cis_fcidump *warm_case(int norb, uint64_t seed, cis_int ma, cis_int mb, int same, int roots,
                              cis_ci_solver **sv, cis_ci_solve_opts *o, cis_ci_result **R) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, norb, norb, 0, seed);
  cis_int nall;
  uint64_t *all = sc_all_strings(norb, norb / 2, &nall), s = seed;
  uint64_t *sa = sc_random_set(all, nall, ma, 0, &s), *sb = same ? sa : sc_random_set(all, nall, mb, 0, &s);
  *sv = NULL, *R = NULL;
  CHECK_OK(cis_ci_solver_create(sv));
  CHECK_OK(cis_ci_solver_set_strings(*sv, sa, ma, sb, same ? ma : mb));
  *o = cis_ci_solve_opts_default();
  o->roots = roots;
  o->keep_vectors = 1;
  CHECK_OK(cis_ci_solver_solve(*sv, F, o, R));
  free(all), free(sa);
  if (!same) free(sb);
  return F;
}

static void test_warm_start(void) {
  cis_ci_solver *sv;
  cis_ci_solve_opts o;
  cis_ci_result *R, *W = NULL;
  cis_fcidump *F = warm_case(8, 41, 40, 33, 0, 2, &sv, &o, &R);
  cis_int n = 0;
  CHECK_OK(cis_ci_solver_dets(sv, F, &o, NULL, NULL, &n));
  CHECK(R && n == R->size, "dets: %lld of the solve's %lld", (long long)n, R ? (long long)R->size : -1LL);
  if (R && n == R->size) {
    uint64_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    CHECK_OK(cis_ci_solver_dets(sv, F, &o, a, b, &n));
    int same = 1;
    for (cis_int i = 0; i < n; ++i)
      same &= a[i] == R->grid_alpha[i / R->grid_beta_n] && b[i] == R->grid_beta[i % R->grid_beta_n];
    CHECK(same, "dets: the grid of the result, alpha major");
    free(a), free(b);
    o.guess = R->vectors;
    o.nguess = 2;
    CHECK_OK(cis_ci_solver_solve(sv, F, &o, &W));
  }
  if (R && W) {
    for (int k = 0; k < 2; ++k)
      CHECK(fabs(R->energies[k] - W->energies[k]) <= 1e-9, "warm root %d: %.12f, cold %.12f", k, W->energies[k],
            R->energies[k]);
    CHECK(W->davidson.products < R->davidson.products, "warm start: %lld products, cold %lld",
          (long long)W->davidson.products, (long long)R->davidson.products);
  }
  cis_ci_result_free(R);
  cis_ci_result_free(W);
  cis_ci_solver_free(sv);
  rc_free(F);
}

/* Equal sets whose lowest state is antisymmetric under alpha <-> beta: a
 * warm start from the lowest symmetric state alone (the caller's guess of
 * one parity, as many as the roots) still finds the lowest state. */
static void test_warm_other_parity(void) {
  cis_ci_solver *sv;
  cis_ci_solve_opts o;
  cis_ci_result *R, *W = NULL;
  cis_fcidump *F = warm_case(6, 8, 14, 14, 1, 4, &sv, &o, &R);
  int sym = -1, anti0 = 0;
  for (int k = 0; R && k < 4; ++k) { /* the first symmetric root; whether root 0 is antisymmetric */
    const double *v = R->vectors + (size_t)k * (size_t)R->size;
    double d = 0;
    for (cis_int a = 0; a < 14; ++a)
      for (cis_int b = 0; b < 14; ++b) d += fabs(v[a * 14 + b] - v[b * 14 + a]);
    if (d < 1e-8 && sym < 0) sym = k;
    if (k == 0) anti0 = d > 1e-3;
  }
  CHECK(anti0 && sym > 0, "the case: root 0 antisymmetric (%d), a symmetric root above it (%d)", anti0, sym);
  if (anti0 && sym > 0) {
    o.roots = 1;
    o.guess = R->vectors + (size_t)sym * (size_t)R->size;
    o.nguess = 1;
    CHECK_OK(cis_ci_solver_solve(sv, F, &o, &W));
    if (W) CHECK(fabs(W->energies[0] - R->energies[0]) <= 1e-8, "warm from a symmetric state: %.12f, lowest %.12f",
                 W->energies[0], R->energies[0]);
  }
  cis_ci_result_free(R);
  cis_ci_result_free(W);
  cis_ci_solver_free(sv);
  rc_free(F);
}

static void refused(cis_status st, cis_status want, const char *what) {
  CHECK(st == want, "%s: status %d, want %d", what, (int)st, (int)want);
  CHECK(st == CIS_OK || (cis_last_error()[0] && !strchr(cis_last_error(), '\n')), "%s: one line: %s", what,
        cis_last_error());
}

static void test_refusals(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 6, 6, 0, 5);
  cis_int nall;
  uint64_t *all = sc_all_strings(6, 3, &nall), s = 5, *sa = sc_random_set(all, nall, 6, 0, &s);
  uint64_t four[2] = {0xF, 0x17}; /* four electrons: not the file's three alpha */
  cis_ci_solver *sv = NULL;
  cis_ci_result *R = NULL;
  CHECK_OK(cis_ci_solver_create(&sv));
  refused(cis_ci_solver_set_strings(sv, NULL, 3, sa, 6), CIS_ERR_INVALID, "NULL alpha with a count");
  refused(cis_ci_solver_set_strings(sv, sa, 6, NULL, 0), CIS_ERR_INVALID, "one set NULL");
  refused(cis_ci_solver_set_strings(sv, sa, 0, sa, 6), CIS_ERR_INVALID, "an empty set");
  refused(cis_ci_solver_set_strings(sv, sa, -2, sa, 6), CIS_ERR_INVALID, "a negative count");
  refused(cis_ci_solver_set_strings(NULL, sa, 6, sa, 6), CIS_ERR_INVALID, "NULL solver");
  CHECK_OK(cis_ci_solver_set_strings(sv, sa, 6, sa, 6));
  const struct { const char *what; int field; cis_status want; } cases[] = {
      {"gpu", 0, CIS_ERR_UNSUPPORTED},     {"cpu_parts", 1, CIS_ERR_UNSUPPORTED}, {"level", 2, CIS_ERR_INVALID},
      {"method stored", 3, CIS_ERR_INVALID}, {"spin penalty", 4, CIS_ERR_UNSUPPORTED}, {"singlet", 5, CIS_ERR_UNSUPPORTED},
      {"spin target", 6, CIS_ERR_UNSUPPORTED}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    cis_ci_solve_opts o = cis_ci_solve_opts_default();
    if (cases[c].field == 0) o.gpu = 1;
    if (cases[c].field == 1) o.cpu_parts = 2;
    if (cases[c].field == 2) o.level = 2, o.method = CIS_CI_METHOD_AUTO;
    if (cases[c].field == 3) o.method = CIS_CI_METHOD_STORED;
    if (cases[c].field == 4) o.spin_penalty = 0.5;
    if (cases[c].field == 5) o.singlet = 1;
    if (cases[c].field == 6) o.spin = 0;
    cis_status st = cis_ci_solver_solve(sv, F, &o, &R);
    /* gpu without a GPU may be refused for that first: either refusal is one line */
    if (cases[c].field == 0 && st == CIS_ERR_NO_GPU) st = CIS_ERR_UNSUPPORTED;
    refused(st, cases[c].want, cases[c].what);
    CHECK(R == NULL, "%s: no result", cases[c].what);
    cis_ci_result_free(R);
    R = NULL;
  }
  CHECK_OK(cis_ci_solver_set_strings(sv, four, 2, sa, 6));
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  refused(cis_ci_solver_solve(sv, F, &o, &R), CIS_ERR_INVALID, "strings of the wrong electron count");
  CHECK(R == NULL, "wrong strings: no result");
  CHECK_OK(cis_ci_solver_set_strings(sv, sa, 2, sa, 1));
  o.roots = 3;
  refused(cis_ci_solver_solve(sv, F, &o, &R), CIS_ERR_INVALID, "more roots than determinants");
  cis_ci_result_free(R);
  cis_ci_solver_free(sv);
  free(all), free(sa);
  rc_free(F);
}

int main(void) {
  for (int c = 0; c < SC_NCASES; ++c) /* the dense reference up to 1400 determinants (the full sets: below) */
    if (SC_CASES[c].ma * SC_CASES[c].mb <= 1400) check_case(&SC_CASES[c], RC_RANDOM);
  /* equal sets whose lowest state is antisymmetric under alpha <-> beta (found by a scan of seeds) */
  const sc_case anti[] = {{6, 6, 0, 14, 14, 1, 8, "equal sets, antisymmetric ground state"},
                          {6, 6, 0, 14, 14, 1, 21, "equal sets, antisymmetric ground state (2)"}};
  for (int c = 0; c < 2; ++c) check_case(&anti[c], RC_RANDOM);
  /* the site model: many degenerate levels */
  const sc_case sites[] = {{6, 6, 0, 12, 12, 1, 31, "sites, equal sets"}, {7, 5, 1, 15, 12, 0, 32, "sites, open shell"}};
  for (int c = 0; c < 2; ++c) check_case(&sites[c], RC_SITES);
  test_full_sets(6, 6, 0, 11);
  test_full_sets(7, 5, 1, 12);
  test_full_sets(6, 4, 2, 13);
  test_warm_start();
  test_warm_other_parity();
  test_refusals();
  return test_summary("test_ci_selected");
}
