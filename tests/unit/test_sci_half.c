/* test_sci_half.c: the alpha <-> beta half sigma of selected-CI spaces with
 * equal sets (src/ci/sci_half.c), option sci_half:
 *  - auto, on and off against a dense H of the space (ci_element) and
 *    against each other, for a symmetric vector, an antisymmetric one
 *    (exactly so), a nearly symmetric one (1e-17 off: the half sigma of its
 *    pure part), and a vector of mixed parity (auto: the general sigma; on:
 *    S(x) + P S(Px)), outputs poisoned with NaN; which path ran (the
 *    space's counts); a pure vector's sigma exactly of its parity;
 *  - k vectors at once = one at a time bitwise, 1 thread = 2 threads bitwise
 *    on the threaded path; sets of SQD-like strings (tests/sqd_strings.h);
 *  - the diagonal exactly symmetric; Davidson's lowest roots = dense with
 *    the half sigma doing most products (guess and corrections pure);
 *  - different sets of one size, and nalpha != nbeta: the general sigma. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "ci/sci_internal.h"
#include "core/internal.h"
#include "sci_cases.h"
#include "sqd_strings.h"
#include "test_util.h"
#include "ci/ci_internal.h"

/* An SQD-like set of *m strings (symmetrized: alpha = beta), *m the size got. */
static uint64_t *sqd_equal(int norb, int nel, cis_int *m, uint64_t seed) {
  uint64_t *a = malloc((size_t)*m * sizeof *a), *b = malloc((size_t)*m * sizeof *b);
  int64_t got = 0;
  sqd_sets(norb, nel, nel, *m, 1, seed, a, &got, b, NULL, NULL);
  free(b);
  *m = got;
  return a;
}

static void set_half(const char *v) {
  const cis_status st = cis_option_set("sci_half", v);
  CHECK(st == CIS_OK, "cis_option_set(sci_half, %s): %s", v, cis_last_error());
}

/* x = t x^T exactly (t = +1, -1) from any y: x(A,B) = (y(A,B) + t y(B,A)) / 2. */
static void make_pure(const double *y, cis_int ns, int t, double *x) {
  for (cis_int A = 0; A < ns; ++A)
    for (cis_int B = 0; B < ns; ++B) x[A * ns + B] = A == B ? (t > 0 ? y[A * ns + A] : 0.0)
                                                            : 0.5 * (y[A * ns + B] + t * y[B * ns + A]);
}

/* sigma under mode (auto, on, off) into a NaN-poisoned vector; *which: the
 * count (general, half, mixed) that rose by one. */
static double *sigma_mode(const cis_sci_space *S, const char *mode, const double *x, int *which) {
  const cis_int n = cis_sci_space_size(S);
  double *s = malloc((size_t)n * sizeof(double));
  test_fill_nan(s, CIS_F64, n);
  const sci_counts c0 = *S->counts;
  set_half(mode);
  CHECK_OK(cis_sci_sigma(S, 1, x, s));
  set_half("auto");
  const sci_counts c1 = *S->counts;
  *which = c1.general - c0.general == 1 && c1.half == c0.half && c1.mixed == c0.mixed   ? 0
           : c1.half - c0.half == 1 && c1.general == c0.general && c1.mixed == c0.mixed ? 1
           : c1.mixed - c0.mixed == 1 && c1.half == c0.half && c1.general == c0.general ? 2
                                                                                        : -1;
  return s;
}

/* One equal-set space: every kind of vector under every mode against the
 * dense H (H NULL: against the general sigma only). */
static void check_space(const char *what, const cis_fcidump *F, const cis_sci_space *S, const double *H,
                        uint64_t seed) {
  cis_int ns;
  cis_sci_space_strings(S, 0, &ns);
  const cis_int n = cis_sci_space_size(S);
  CHECK(S->same == 1, "%s: equal sets recognised", what);
  double *y = malloc((size_t)n * sizeof(double)), *x = malloc((size_t)n * sizeof(double));
  double *ref = malloc((size_t)n * sizeof(double)), *noise = malloc((size_t)n * sizeof(double));
  test_fill_random(y, CIS_F64, n, seed);
  test_fill_random(noise, CIS_F64, n, seed + 1);
  static const char *kinds[4] = {"symmetric", "antisymmetric", "nearly symmetric (1e-17 off)", "mixed"};
  static const int want_auto[4] = {1, 1, 1, 0}, want_on[4] = {1, 1, 1, 2};
  for (int kind = 0; kind < 4; ++kind) {
    if (kind == 0 || kind == 2) make_pure(y, ns, 1, x);
    else if (kind == 1) make_pure(y, ns, -1, x);
    else memcpy(x, y, (size_t)n * sizeof(double));
    if (kind == 2)
      for (cis_int i = 0; i < n; ++i) x[i] += 1e-17 * noise[i];
    int w_auto, w_on, w_off;
    double *sa = sigma_mode(S, "auto", x, &w_auto), *so = sigma_mode(S, "on", x, &w_on);
    double *sg = sigma_mode(S, "off", x, &w_off);
    const int wa = ns == 1 ? 1 : want_auto[kind], wo = ns == 1 ? 1 : want_on[kind]; /* 1 x 1: always symmetric */
    CHECK(w_auto == wa && w_on == wo && w_off == 0, "%s, %s vector: paths auto %d on %d off %d (want %d %d 0)", what,
          kinds[kind], w_auto, w_on, w_off, wa, wo);
    if (H) {
      for (cis_int i = 0; i < n; ++i) {
        double t = 0;
        for (cis_int j = 0; j < n; ++j) t += H[i * n + j] * x[j];
        ref[i] = t;
      }
      const double ea = sc_rel_max(sa, ref, n), eo = sc_rel_max(so, ref, n), eg = sc_rel_max(sg, ref, n);
      CHECK(ea <= 1e-12 && eo <= 1e-12 && eg <= 1e-12, "%s, %s vector vs dense H: auto %.2e on %.2e off %.2e", what,
            kinds[kind], ea, eo, eg);
    }
    const double da = sc_rel_max(sa, sg, n), dn = sc_rel_max(so, sg, n);
    CHECK(da <= 1e-13 && dn <= 1e-13, "%s, %s vector vs the general sigma: auto %.2e on %.2e", what, kinds[kind], da,
          dn);
    if (kind < 3) { /* a pure vector's half sigma is exactly of its parity */
      const double t = kind == 1 ? -1.0 : 1.0;
      int exact = 1;
      for (cis_int A = 0; A < ns; ++A)
        for (cis_int B = 0; B < ns; ++B) exact &= sa[A * ns + B] == t * sa[B * ns + A];
      CHECK(exact, "%s, %s vector: sigma exactly of parity %+.0f", what, kinds[kind], t);
    }
    free(sa), free(so), free(sg);
  }
  /* three vectors at once (symmetric, antisymmetric, mixed) = one at a time */
  double *X = malloc((size_t)(3 * n) * sizeof(double)), *Y = malloc((size_t)(3 * n) * sizeof(double));
  make_pure(y, ns, 1, X);
  make_pure(y, ns, -1, X + n);
  memcpy(X + 2 * n, noise, (size_t)n * sizeof(double));
  test_fill_nan(Y, CIS_F64, 3 * n);
  CHECK_OK(cis_sci_sigma(S, 3, X, Y));
  for (int v = 0; v < 3; ++v) {
    test_fill_nan(ref, CIS_F64, n);
    CHECK_OK(cis_sci_sigma(S, 1, X + v * n, ref));
    CHECK(memcmp(ref, Y + v * n, (size_t)n * sizeof(double)) == 0, "%s: vector %d of 3 at once = alone, bitwise", what,
          v);
  }
  /* the diagonal: exactly symmetric, and the dense H's */
  test_fill_nan(ref, CIS_F64, n);
  CHECK_OK(cis_sci_diagonal(S, ref));
  int sym = 1;
  double dd = 0;
  for (cis_int A = 0; A < ns; ++A)
    for (cis_int B = 0; B < ns; ++B) {
      sym &= ref[A * ns + B] == ref[B * ns + A];
      const double e = fabs(ref[A * ns + B] - ci_diagonal(F, cis_sci_space_strings(S, 0, NULL)[A],
                                                              cis_sci_space_strings(S, 1, NULL)[B]));
      if (!(e <= dd)) dd = e;
    }
  CHECK(sym && dd <= 1e-11, "%s: diagonal exactly symmetric (%d), off the rules by %.2e", what, sym, dd);
  free(X), free(Y), free(y), free(x), free(ref), free(noise);
}

/* Random equal sets, small enough for the dense H. */
static void test_random_sets(void) {
  static const struct { int norb, nelec; cis_int m; uint64_t seed; } cases[] = {
      {6, 6, 9, 61},   /* 81 determinants */
      {7, 6, 20, 62},  /* 400 */
      {8, 4, 25, 63},  /* 625, 2 + 2 electrons */
      {6, 2, 6, 64},   /* one electron of each spin */
      {5, 0, 1, 65},   /* no electron */
      {7, 8, 1, 66},   /* one determinant */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    cis_fcidump *F = rc_fcidump(RC_RANDOM, cases[c].norb, cases[c].nelec, 0, cases[c].seed);
    cis_int nall;
    uint64_t *all = sc_all_strings(cases[c].norb, cases[c].nelec / 2, &nall), s = cases[c].seed;
    const cis_int m = cases[c].m < nall ? cases[c].m : nall;
    uint64_t *set = sc_random_set(all, nall, m, m > 3 ? 2 : 0, &s);
    cis_sci_space *S = NULL;
    CHECK_OK(cis_sci_space_create(F, set, m + (m > 3 ? 2 : 0), set, m + (m > 3 ? 2 : 0), 0, &S));
    if (S) {
      char what[96];
      snprintf(what, sizeof what, "norb %d nelec %d, %lld strings", cases[c].norb, cases[c].nelec, (long long)m);
      double *H = sc_dense_h_space(F, S);
      check_space(what, F, S, H, cases[c].seed);
      free(H);
    }
    cis_sci_space_free(S);
    free(all), free(set);
    rc_free(F);
  }
}

/* SQD-like sets (tests/sqd_strings.h) above SCI_PARALLEL_MIN determinants:
 * against the general sigma, and 1 thread = 2 threads bitwise. */
static void test_sqd_sets(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 12, 8, 0, 71);
  cis_int m = 90;
  uint64_t *set = sqd_equal(12, 4, &m, 71);
  cis_sci_space *S1 = NULL, *S2 = NULL;
  const int prev = omp_get_max_threads();
  omp_set_num_threads(1);
  CHECK_OK(cis_sci_space_create(F, set, m, set, m, 0, &S1));
  omp_set_num_threads(2);
  CHECK_OK(cis_sci_space_create(F, set, m, set, m, 0, &S2));
  omp_set_num_threads(prev);
  if (S1 && S2) {
    check_space("SQD-like sets, norb 12, 90 strings", F, S2, NULL, 72);
    const cis_int n = cis_sci_space_size(S1);
    double *y = malloc((size_t)n * sizeof(double)), *x = malloc((size_t)n * sizeof(double));
    double *a = malloc((size_t)n * sizeof(double)), *b = malloc((size_t)n * sizeof(double));
    test_fill_random(y, CIS_F64, n, 73);
    for (int t = -1; t <= 1; t += 2) {
      make_pure(y, m, t, x);
      CHECK_OK(cis_sci_sigma(S1, 1, x, a));
      CHECK_OK(cis_sci_sigma(S2, 1, x, b));
      CHECK(memcmp(a, b, (size_t)n * sizeof(double)) == 0, "half sigma parity %+d: 1 thread = 2 threads bitwise", t);
    }
    CHECK(S1->counts->half == 2 && S2->counts->half >= 2, "the half sigma ran: %lld, %lld",
          (long long)S1->counts->half, (long long)S2->counts->half);
    free(y), free(x), free(a), free(b);
  }
  cis_sci_space_free(S1);
  cis_sci_space_free(S2);
  free(set);
  rc_free(F);
}

/* Davidson on the operator: the lowest roots = dense, the half sigma doing
 * the products of pure vectors (the unit guess on the lowest diagonal,
 * a closed-shell determinant, and corrections made pure by the hook). */
static cis_status purify_hook(void *ctx, void *t, cis_stream s) {
  (void)s;
  const cis_sci_space *S = ctx;
  cis_int ns;
  cis_sci_space_strings(S, 0, &ns);
  double *x = t;
  const int p = sci_parity(S, x) ? sci_parity(S, x) : 1;
  for (cis_int A = 0; A < ns; ++A)
    for (cis_int B = 0; B <= A; ++B) {
      const double u = A == B ? (p > 0 ? x[A * ns + A] : 0.0) : 0.5 * (x[A * ns + B] + p * x[B * ns + A]);
      x[A * ns + B] = u;
      x[B * ns + A] = p * u;
    }
  return CIS_OK;
}

static void test_davidson(void) {
  cis_fcidump *F = rc_fcidump(RC_RANDOM, 8, 6, 0, 81);
  cis_int m = 30;
  uint64_t *set = sqd_equal(8, 3, &m, 81);
  cis_sci_space *S = NULL;
  cis_operator *op = NULL;
  CHECK_OK(cis_sci_space_create(F, set, m, set, m, 0, &S));
  CHECK_OK(cis_sci_operator(S, &op));
  if (S && op) {
    const cis_int n = cis_sci_space_size(S);
    double *H = sc_dense_h_space(F, S), *w = malloc((size_t)n * sizeof(double)), ev[1];
    double *X = malloc((size_t)n * sizeof(double));
    /* the lowest symmetric state: H + 100 (1 - P) lifts the antisymmetric ones (H commutes with P) */
    for (cis_int A = 0; A < m; ++A)
      for (cis_int B = 0; B < m; ++B) {
        H[(A * m + B) * n + A * m + B] += 100.0;
        H[(A * m + B) * n + B * m + A] -= 100.0;
      }
    CHECK_OK(ci_dense_eigh(H, (int)n, w));
    /* the guess: the symmetric unit pair on the lowest diagonal element */
    const double *d = cis_operator_diagonal(op);
    cis_int lo = 0;
    for (cis_int i = 1; i < n; ++i) lo = d[i] < d[lo] ? i : lo;
    double *g = calloc((size_t)n, sizeof(double));
    g[lo] += 1.0;
    g[(lo % m) * m + lo / m] += 1.0;
    cis_davidson_opts o = cis_davidson_opts_default();
    o.guess = g;
    o.nguess = 1;
    o.tol = 1e-9;
    o.etol = 1e-12;
    o.correct = purify_hook;
    o.correct_ctx = S;
    const sci_counts c0 = *S->counts;
    CHECK_OK(cis_davidson_operator(op, cis_operator_diagonal(op), &o, ev, X, NULL));
    const sci_counts c1 = *S->counts;
    CHECK(fabs(ev[0] - w[0]) <= 1e-9, "Davidson %.12f, dense lowest symmetric %.12f", ev[0], w[0]);
    CHECK(c1.half - c0.half >= 3 && c1.general == c0.general && c1.mixed == c0.mixed,
          "Davidson's products by the half sigma: %lld half, %lld general", (long long)(c1.half - c0.half),
          (long long)(c1.general - c0.general));
    free(H), free(w), free(X), free(g);
  }
  cis_operator_free(op), cis_sci_space_free(S), free(set), rc_free(F);
}

/* Different sets of one size, and nalpha != nbeta: the general sigma. */
static void test_not_equal(void) {
  cis_sci_space *S = NULL;
  cis_fcidump *F = sc_random_space(7, 6, 0, 91, 12, 12, &S);
  CHECK(S != NULL, "random sets of 12 strings: %s", cis_last_error());
  if (S) {
    int w;
    double *x = malloc(144 * sizeof(double));
    test_fill_random(x, CIS_F64, 144, 3);
    CHECK(S->same == (memcmp(cis_sci_space_strings(S, 0, NULL), cis_sci_space_strings(S, 1, NULL), 96) == 0),
          "same only for equal sets");
    if (!S->same) {
      free(sigma_mode(S, "on", x, &w));
      CHECK(w == 0, "different sets: the general sigma under sci_half = on (%d)", w);
    }
    free(x);
  }
  cis_sci_space_free(S);
  rc_free(F);
  F = rc_fcidump(RC_RANDOM, 6, 5, 1, 92);
  const uint64_t sa[] = {0x7, 0xb, 0x13}, sb[] = {0x3, 0x5};
  CHECK_OK(cis_sci_space_create(F, sa, 3, sb, 2, 0, &S));
  CHECK(S && S->same == 0, "nalpha != nbeta: not equal sets");
  cis_sci_space_free(S);
  CHECK(cis_option_set("sci_half", "half") == CIS_ERR_INVALID && strstr(cis_last_error(), "auto on off"),
        "a bad sci_half value refused, naming the values");
  rc_free(F);
}

/* The generator: bench/sqd_strings.py's numbers (its --check case), sorted
 * distinct strings of the right electron count holding Hartree-Fock, the
 * same sets for the same seed, other sets for another. */
static void test_generator(void) {
  enum { M = 300 };
  uint64_t a[M], b[M], a2[M], b2[M], c[M], d[M];
  int64_t na, nb, drawn, na2, nb2, nc, nd;
  sqd_sets(16, 5, 4, M, 0, 7, a, &na, b, &nb, &drawn);
  CHECK(na == M && nb == M && drawn == 4933, "sizes %lld x %lld from %lld samples (Python: 300 x 300 from 4933)",
        (long long)na, (long long)nb, (long long)drawn);
  CHECK(sqd_checksum(a, na, b, nb) == 2156852240ull, "checksum %llu = bench/sqd_strings.py --check's 2156852240",
        (unsigned long long)sqd_checksum(a, na, b, nb));
  int ok = a[0] == 0x1f && b[0] == 0xf;
  for (int64_t i = 0; i < na; ++i) ok &= __builtin_popcountll(a[i]) == 5 && a[i] < (1u << 16) && (!i || a[i - 1] < a[i]);
  for (int64_t i = 0; i < nb; ++i) ok &= __builtin_popcountll(b[i]) == 4 && b[i] < (1u << 16) && (!i || b[i - 1] < b[i]);
  CHECK(ok, "sorted, distinct, 5 and 4 electrons in 16 orbitals, Hartree-Fock first");
  sqd_sets(16, 5, 4, M, 0, 7, a2, &na2, b2, &nb2, NULL);
  CHECK(na2 == na && nb2 == nb && !memcmp(a, a2, sizeof a) && !memcmp(b, b2, sizeof b), "the same seed, the same sets");
  sqd_sets(16, 5, 4, M, 0, 8, a2, &na2, b2, &nb2, NULL);
  CHECK(memcmp(a, a2, sizeof a) != 0, "another seed, another set");
  sqd_sets(16, 5, 5, M, 1, 7, c, &nc, d, &nd, NULL);
  CHECK(nc == M && nd == M && !memcmp(c, d, sizeof c), "symmetrized: one set for both spins");
  sqd_sets(6, 3, 3, M, 1, 7, c, &nc, d, &nd, NULL);
  CHECK(nc == 20 && nd == 20, "a set asked above the 20 strings of (6o, 3e) stops at 20: %lld", (long long)nc);
}

int main(void) {
  cis_alloc_poison(0xff);
  test_random_sets();
  test_sqd_sets();
  test_davidson();
  test_not_equal();
  test_generator();
  return test_summary("test_sci_half");
}
