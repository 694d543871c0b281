/* test_sci_sigma.c: selected CI in alpha x beta string sets (cisparse/sci.h).
 *  - sigma = H c with H the product space's Hamiltonian built here, element
 *    by element, by the library's Slater-Condon rules (ci_element,
 *    ci_diagonal), for random 8-fold symmetric integrals and random
 *    subsets of the strings (closed and open shells, nalpha != nbeta, no
 *    beta electron, equal sets, sets of one string, sets larger than a
 *    warp), inputs unsorted with repeats, outputs poisoned with NaN, to
 *    1e-12 relative; k vectors at once = one at a time; the diagonal;
 *  - the full string sets = cis_ci_direct_sigma (same order, checked);
 *  - Davidson (cis_davidson_operator on cis_sci_operator): the lowest 3
 *    eigenvalues = dense diagonalisation of that H (ci_dense_eigh);
 *  - 1 thread = 2 threads bitwise;
 *  - refusals, one line each with a nonzero status and no space made;
 *  - every allocation failing in turn. */
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "sci_cases.h"
#include "core/internal.h"
#include "test_util.h"
#include "ci/ci_internal.h"

/* One case: random sets of ma and mb strings (dup repeats each; same = the
 * beta set is the alpha set) against the dense H. */
static void check_case(const sc_case *cs) {
  const int norb = cs->norb, nelec = cs->nelec, ms2 = cs->ms2, same = cs->same;
  const uint64_t seed = cs->seed;
  cis_int ma = cs->ma, mb = cs->mb;
  cis_fcidump *F = rc_fcidump(RC_RANDOM, norb, nelec, ms2, seed);
  const int nal = cis_fcidump_nalpha(F), nbe = cis_fcidump_nbeta(F);
  cis_int nall_a, nall_b;
  uint64_t *all_a = sc_all_strings(norb, nal, &nall_a), *all_b = sc_all_strings(norb, nbe, &nall_b);
  uint64_t s = seed;
  if (ma > nall_a) ma = nall_a;
  if (mb > nall_b) mb = nall_b;
  const cis_int dup = ma > 3 ? 3 : 0;
  uint64_t *sa = sc_random_set(all_a, nall_a, ma, dup, &s);
  uint64_t *sb = same ? sa : sc_random_set(all_b, nall_b, mb, mb > 2 ? 2 : 0, &s);
  const cis_int nin_b = same ? ma + dup : mb + (mb > 2 ? 2 : 0);
  cis_sci_space *S = NULL;

  CHECK_OK(cis_sci_space_create(F, sa, ma + dup, sb, nin_b, 0, &S));

  if (!S) goto done;
  cis_sci_info info;
  cis_sci_space_get_info(S, &info);
  const cis_int na = info.alpha_strings, nb = info.beta_strings, n = cis_sci_space_size(S);
  CHECK(na == ma && nb == (same ? ma : mb) && n == na * nb, "sizes %lld x %lld", (long long)na, (long long)nb);
  CHECK(info.alpha_duplicates == dup && info.beta_duplicates == (same ? dup : (mb > 2 ? 2 : 0)), "duplicates counted");
  const uint64_t *A = cis_sci_space_strings(S, 0, NULL);
  for (cis_int i = 1; i < na; ++i) CHECK(A[i - 1] < A[i], "alpha strings sorted and distinct");
  double *H = sc_dense_h_space(F, S);
  const int k = 2;
  double *c = malloc((size_t)(k * n) * sizeof(double)), *sig = malloc((size_t)(k * n) * sizeof(double));
  double *one = malloc((size_t)n * sizeof(double)), *ref = malloc((size_t)n * sizeof(double));
  double *diag = malloc((size_t)n * sizeof(double));
  test_fill_random(c, CIS_F64, k * n, seed + 7);
  test_fill_nan(sig, CIS_F64, k * n);
  test_fill_nan(one, CIS_F64, n);
  test_fill_nan(diag, CIS_F64, n);

  CHECK_OK(cis_sci_sigma(S, k, c, sig));
  CHECK_OK(cis_sci_sigma(S, 1, c + n, one));
  CHECK_OK(cis_sci_diagonal(S, diag));

  for (int v = 0; v < k; ++v) {
    for (cis_int i = 0; i < n; ++i) {
      double t = 0;
      for (cis_int j = 0; j < n; ++j) t += H[i * n + j] * c[v * n + j];
      ref[i] = t;
    }
    const double e = sc_rel_max(sig + v * n, ref, n);
    CHECK(e <= 1e-12, "sigma vector %d: norb %d nelec %d ms2 %d sets %lld x %lld%s: rel err %.3e", v, norb, nelec, ms2,
          (long long)na, (long long)nb, same ? " (equal)" : "", e);
  }
  CHECK(memcmp(one, sig + n, (size_t)n * sizeof(double)) == 0, "k vectors at once = one at a time, bitwise");
  for (cis_int i = 0; i < n; ++i) ref[i] = H[i * n + i];
  CHECK(sc_rel_max(diag, ref, n) <= 1e-13, "diagonal: rel err %.3e", sc_rel_max(diag, ref, n));
  free(c), free(sig), free(one), free(ref), free(diag), free(H);
done:
  cis_sci_space_free(S);
  if (sb != sa) free(sb);
  free(sa), free(all_a), free(all_b);
  rc_free(F);
}

/* Full string sets = the complete-space direct sigma, whose order is the
 * sorted sets' (checked with cis_ci_direct_det). */
static void check_full(int norb, int nelec, int ms2, uint64_t seed) {
  cis_sci_space *S = NULL;
  cis_ci_direct *D = NULL;
  cis_fcidump *F = sc_full_space(norb, nelec, ms2, seed, &S, &D);
  CHECK(S && D, "full sets norb %d nelec %d ms2 %d: %s", norb, nelec, ms2, cis_last_error());
  if (S && D) {
    const cis_int n = cis_sci_space_size(S);
    CHECK(n == cis_ci_direct_size(D), "sizes");
    cis_int nb;
    const uint64_t *A = cis_sci_space_strings(S, 0, NULL), *B = cis_sci_space_strings(S, 1, &nb);
    int order = 1;
    for (cis_int i = 0; i < n; ++i) {
      uint64_t a, b;
      cis_ci_direct_det(D, i, &a, &b);
      order &= a == A[i / nb] && b == B[i % nb];
    }
    CHECK(order, "direct order = sorted sets' order");
    double *c = malloc((size_t)n * sizeof(double)), *s1 = malloc((size_t)n * sizeof(double));
    double *s2 = malloc((size_t)n * sizeof(double));
    test_fill_random(c, CIS_F64, n, seed);
    test_fill_nan(s1, CIS_F64, n);
    test_fill_nan(s2, CIS_F64, n);
    CHECK_OK(cis_sci_sigma(S, 1, c, s1));
    CHECK_OK(cis_ci_direct_sigma(D, 1, c, s2));
    const double e = sc_rel_max(s1, s2, n);
    CHECK(e <= 1e-12, "full sets norb %d nelec %d ms2 %d: rel err vs direct sigma %.3e", norb, nelec, ms2, e);
    free(c), free(s1), free(s2);
  }
  cis_ci_direct_free(D);
  cis_sci_space_free(S);
  rc_free(F);
}

static void test_full_sets(void) {
  check_full(8, 8, 0, 11);
  check_full(9, 7, 3, 12);
  check_full(10, 10, 2, 13); /* 210 x 120 = 25200 determinants: the threaded path */
}

/* The lowest 3 eigenvalues by Davidson on the operator = dense. */
static void test_davidson(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 7, 6, 0, 21);
  cis_int nall;
  uint64_t *all = sc_all_strings(7, 3, &nall), s = 21;
  uint64_t *sa = sc_random_set(all, nall, 18, 0, &s), *sb = sc_random_set(all, nall, 15, 0, &s);
  cis_sci_space *S = NULL;
  cis_operator *op = NULL;
  CHECK_OK(cis_sci_space_create(F, sa, 18, sb, 15, 0, &S));
  CHECK_OK(cis_sci_operator(S, &op));
  if (S && op) {
    const cis_int n = cis_sci_space_size(S);
    double *H = sc_dense_h_space(F, S), *w = malloc((size_t)n * sizeof(double)), ev[3], *X = malloc((size_t)(3 * n) * sizeof(double));
    CHECK_OK(ci_dense_eigh(H, (int)n, w));
    cis_davidson_opts o = cis_davidson_opts_default();
    o.roots = 3;
    o.tol = 1e-9;
    o.etol = 1e-12;
    const double *d = cis_operator_diagonal(op);
    CHECK(d != NULL, "the operator records its diagonal");
    CHECK_OK(cis_davidson_operator(op, d, &o, ev, X, NULL));
    for (int r = 0; r < 3; ++r)
      CHECK(fabs(ev[r] - w[r]) <= 1e-9, "root %d: Davidson %.12f, dense %.12f", r, ev[r], w[r]);
    /* y = 2 H x - y through the operator's scaled form */
    double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double)), *y0 = malloc((size_t)n * sizeof(double));
    double *hx = malloc((size_t)n * sizeof(double));
    test_fill_random(x, CIS_F64, n, 3);
    test_fill_random(y, CIS_F64, n, 4);
    memcpy(y0, y, (size_t)n * sizeof(double));
    CHECK_OK(cis_sci_sigma(S, 1, x, hx));
    CHECK_OK(cis_operator_apply(op, 2.0, x, -1.0, y, NULL));
    double err = 0;
    for (cis_int i = 0; i < n; ++i) err = fmax(err, fabs(y[i] - (2.0 * hx[i] - y0[i])));
    CHECK(err <= 1e-12, "operator alpha/beta form: %.3e", err);
    free(H), free(w), free(X), free(x), free(y), free(y0), free(hx);
  }
  cis_operator_free(op);
  cis_sci_space_free(S);
  free(all), free(sa), free(sb);
  rc_free(F);
}

/* One thread and two give the same sigma bit for bit. */
static void test_threads(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 10, 10, 0, 31);
  cis_int nall;
  uint64_t *all = sc_all_strings(10, 5, &nall), s = 31;
  uint64_t *sa = sc_random_set(all, nall, 100, 0, &s), *sb = sc_random_set(all, nall, 90, 0, &s);
  cis_sci_space *S1 = NULL, *S2 = NULL;
  const int prev = omp_get_max_threads();
  omp_set_num_threads(1);
  CHECK_OK(cis_sci_space_create(F, sa, 100, sb, 90, 0, &S1));
  omp_set_num_threads(2);
  CHECK_OK(cis_sci_space_create(F, sa, 100, sb, 90, 0, &S2));
  omp_set_num_threads(prev);
  if (S1 && S2) {
    const cis_int n = cis_sci_space_size(S1);
    double *c = malloc((size_t)n * sizeof(double)), *a = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
    test_fill_random(c, CIS_F64, n, 8);
    CHECK_OK(cis_sci_sigma(S1, 1, c, a));
    CHECK_OK(cis_sci_sigma(S2, 1, c, b));
    CHECK(memcmp(a, b, (size_t)n * sizeof(double)) == 0, "1 thread = 2 threads bitwise");
    free(c), free(a), free(b);
  }
  cis_sci_space_free(S1);
  cis_sci_space_free(S2);
  free(all), free(sa), free(sb);
  rc_free(F);
}

/* A refusal: status want, no space, one nonempty line containing `text`. */
static void refused(cis_status st, cis_status want, const cis_sci_space *S, const char *text) {
  const char *m = cis_last_error();
  CHECK(st == want && st != CIS_OK, "refusal '%s': %s (%s), want %s", text, cis_status_name(st), m, cis_status_name(want));
  CHECK(S == NULL, "no space after refusal '%s'", text);
  CHECK(m[0] && !strchr(m, '\n') && strstr(m, text), "one line naming '%s': '%s'", text, m);
}

static void test_refusals(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 6, 5, 1, 41); /* 3 alpha, 2 beta */
  const uint64_t a[] = {0x7, 0xb, 0x13}, b[] = {0x3, 0x5};
  const uint64_t a_wrong[] = {0x7, 0xf}, b_wrong[] = {0x3, 0x1}, a_far[] = {0x7, 0x43};
  cis_sci_space *S = NULL;
  refused(cis_sci_space_create(F, a_wrong, 2, b, 2, 0, &S), CIS_ERR_INVALID, S, "has 4 electrons");
  refused(cis_sci_space_create(F, a, 3, b_wrong, 2, 0, &S), CIS_ERR_INVALID, S, "beta string 1");
  refused(cis_sci_space_create(F, a_far, 2, b, 2, 0, &S), CIS_ERR_RANGE, S, "orbital 6, at or beyond NORB = 6");
  refused(cis_sci_space_create(F, a, 0, b, 2, 0, &S), CIS_ERR_INVALID, S, "alpha set is empty");
  refused(cis_sci_space_create(F, a, 3, b, 0, 0, &S), CIS_ERR_INVALID, S, "beta set is empty");
  refused(cis_sci_space_create(F, NULL, 3, b, 2, 0, &S), CIS_ERR_INVALID, S, "NULL");
  refused(cis_sci_space_create(NULL, a, 3, b, 2, 0, &S), CIS_ERR_INVALID, S, "NULL");
  refused(cis_sci_space_create(F, a, (cis_int)1 << 31, b, 2, 0, &S), CIS_ERR_TOO_LARGE, S, "2147483648 alpha strings");
  rc_free(F);
  /* memory: 252 x 252 determinants in 1 MiB */
  F = rc_fcidump(RC_RANDOM, 10, 10, 0, 42);
  cis_int nall;
  uint64_t *all = sc_all_strings(10, 5, &nall);
  refused(cis_sci_space_create(F, all, nall, all, nall, 1 << 20, &S), CIS_ERR_TOO_LARGE, S, "63504 determinants");
  refused(cis_sci_space_create(F, all, nall, all, nall, 1000, &S), CIS_ERR_TOO_LARGE, S, "252 alpha and 252 beta strings");
  free(all);
  rc_free(F);
  /* NORB above 64 */
  F = rc_fcidump(RC_RANDOM, 65, 2, 0, 43);
  refused(cis_sci_space_create(F, a, 1, b, 1, 0, &S), CIS_ERR_UNSUPPORTED, S, "NORB = 65");
  rc_free(F);
  /* sigma's own refusals */
  F = rc_fcidump(RC_RANDOM, 6, 5, 1, 44);
  CHECK_OK(cis_sci_space_create(F, a, 3, b, 2, 0, &S));
  double c[6] = {1, 2, 3, 4, 5, 6}, y[6];
  CHECK(cis_sci_sigma(S, 0, c, y) == CIS_ERR_INVALID && strstr(cis_last_error(), "0 vectors"), "k = 0 refused");
  CHECK(cis_sci_sigma(S, 1, NULL, y) == CIS_ERR_INVALID, "NULL C refused");
  CHECK(cis_sci_diagonal(NULL, y) == CIS_ERR_INVALID, "NULL space refused");
  CHECK(cis_sci_operator(S, NULL) == CIS_ERR_INVALID, "NULL operator output refused");
  CHECK(cis_sci_space_size(NULL) == 0 && cis_sci_space_strings(S, 2, NULL) == NULL, "getters on bad input");
  cis_sci_space_free(S);
  cis_sci_space_free(NULL);
  rc_free(F);
}

typedef struct sigma_call { const cis_fcidump *F; const uint64_t *all; cis_int nall; cis_sci_space *S; cis_operator *op; } sigma_call;

static cis_status sigma_run(void *ctx) {
  sigma_call *c = ctx;
  double x[400], y[400];
  test_fill_random(x, CIS_F64, 400, 1);
  cis_status st = cis_sci_space_create(c->F, c->all, c->nall, c->all, c->nall, 0, &c->S);
  if (st == CIS_OK) st = cis_sci_operator(c->S, &c->op);
  if (st == CIS_OK) st = cis_operator_apply(c->op, 2.0, x, 0.0, y, NULL);
  if (st == CIS_OK) st = cis_sci_sigma(c->S, 1, x, y);
  return st;
}

static void sigma_undo(void *ctx) {
  sigma_call *c = ctx;
  cis_operator_free(c->op), cis_sci_space_free(c->S), c->op = NULL, c->S = NULL;
}

/* Every allocation of create + operator + sigma made to fail in turn:
 * CIS_ERR_ALLOC each time, then success (test_alloc_every). */
static void test_alloc_failures(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 6, 6, 0, 51);
  sigma_call c = {F, NULL, 0, NULL, NULL};
  c.all = sc_all_strings(6, 3, &c.nall);
  test_alloc_every("sci space + operator + sigma", sigma_run, sigma_undo, &c);
  free((void *)c.all);
  rc_free(F);
}

int main(void) {
  cis_alloc_poison(0xff); /* nothing read that was not written */
  for (int k = 0; k < SC_NCASES; ++k) check_case(&SC_CASES[k]);
  test_full_sets();
  test_davidson();
  test_threads();
  test_refusals();
  test_alloc_failures();
  return test_summary("test_sci_sigma");
}
