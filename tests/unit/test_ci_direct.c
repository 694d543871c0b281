/* test_ci_direct.c: the direct (matrix-free) CI sigma against the stored
 * Slater-Condon Hamiltonian and the reference energies.
 *  - strings: colexicographic address <-> string both ways, counts, links
 *    (every a^+_p a_q |I> = sign |J> checked against the bit operations);
 *  - sigma = cis_ci_hamiltonian x cis_csr_spmv on random vectors (orders
 *    mapped through ci_space_find) to 1e-12 relative for every FCIDUMP
 *    of shared/ci but H2O 6-31G, MS2 = 0 and MS2 = 2 (same integrals); small
 *    blocks (many GEMMs) and k vectors at once equal to one big block;
 *  - diagonal = ci_diagonal_all, mapped (to rounding: MS2 = 0 mirrors it);
 *  - FCI energies through Davidson on the direct operator = reference.tsv
 *    to 1e-9, and a CAS(8,8) active space made by PySCF (tests/data/ci) =
 *    PySCF's CASCI energy to 1e-9; the operator's alpha/beta form;
 *  - point-group symmetry by projection (N2 D2h from PySCF, tests/data/ci):
 *    sigma = stored on the ISYM space and 0 elsewhere, energies = stored and
 *    PySCF; an empty irrep refused; C1 on request;
 *  - refusals: too large (numbers in the message), 64-bit overflow;
 *  - every allocation failing in turn; 1 thread = n threads bitwise;
 *  - cis_ci_direct_set_integrals (C1 and blocked by irreps): the sigma of
 *    new integrals = that of a D made from them, bitwise; other NORB,
 *    electrons, ORBSYM or ISYM refused with D unchanged. */
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "ci/ci_davidson_support.h"
#include "ci/strings.h"
#include "core/internal.h"
#include "test_util.h"
#include "ci/ci_internal.h"

static void test_strings(void) {
  for (int norb = 1; norb <= 12; ++norb)
    for (int nel = 0; nel <= norb; ++nel) {
      ci_strings *S = NULL;
      CHECK_OK(ci_strings_create(norb, nel, &S));
      if (!S) continue;
      CHECK(S->count == ci_binom(norb, nel), "count C(%d,%d)", norb, nel);
      for (cis_int a = 0; a < S->count; ++a) {
        uint64_t I = S->str[a];
        CHECK(__builtin_popcountll(I) == nel && (norb == 64 || I >> norb == 0), "string %lld", (long long)a);
        CHECK(a == 0 || S->str[a - 1] < I, "order at %lld", (long long)a);
        CHECK(ci_string_addr(I) == a && ci_string_of_addr(a, nel) == I, "addr <-> string %d %d %lld", norb, nel,
              (long long)a);
        for (int l = 0; l < S->nlink; ++l) {
          ci_link k = S->link[a * S->nlink + l];
          /* recover p, q: q occupied in I, p = the orbital of J not in I (or q) */
          uint64_t J = S->str[k.str], gone = I & ~J, came = J & ~I;
          int q = gone ? __builtin_ctzll(gone) : -1, p = came ? __builtin_ctzll(came) : -1;
          if (!gone) { /* p == q: pair index says which */
            CHECK(k.str == a && k.sign == 1, "diagonal link");
            continue;
          }
          CHECK(__builtin_popcountll(gone) == 1 && __builtin_popcountll(came) == 1, "single replacement");
          int lo = p < q ? p : q, hi = p < q ? q : p, between = 0;
          for (int r = lo + 1; r < hi; ++r) between += (int)(I >> r & 1);
          CHECK(k.sign == (between & 1 ? -1 : 1), "sign of a+_%d a_%d", p, q);
          CHECK(k.pair == hi * (hi + 1) / 2 + lo, "pair index");
        }
      }
      ci_strings_free(S);
    }
  cis_int count = 0, bytes = 0;
  CHECK(ci_strings_size(64, 32, &count, &bytes) == CIS_ERR_OVERFLOW, "C(64,32) strings refused");
  CHECK(ci_binom(64, 32) == 1832624140942590534LL, "C(64,32)");
  CHECK(ci_binom(13, 5) == 1287 && ci_binom(5, 7) == 0, "small binomials");
}

/* Relative max-norm difference. */
static double rel_diff(const double *a, const double *b, cis_int n) {
  double d = 0, m = 0;
  for (cis_int i = 0; i < n; ++i) {
    double e = fabs(a[i] - b[i]);
    if (!(e <= d)) d = e;
    if (fabs(b[i]) > m) m = fabs(b[i]);
  }
  return d / (m > 0 ? m : 1);
}

/* Direct sigma vs stored H x on the space of F (its current MS2). */
static void compare_stored(const char *name, cis_fcidump *F) {
  uint64_t ra = 0, rb = 0;
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  cis_ci_direct *D = NULL, *Dsmall = NULL;
  CHECK_OK(cis_ci_find_reference(F, &ra, &rb));
  CHECK_OK(cis_ci_space_create(F, -1, ra, rb, &S));
  CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  cis_ci_direct_opts o = ci_direct_opts_default();
  o.block_bytes = 1; /* one alpha string per block: every block boundary path */
  CHECK_OK(cis_ci_direct_create(F, &o, &Dsmall));
  if (!S || !H || !D || !Dsmall) goto done;
  cis_int n = cis_ci_direct_size(D);
  CHECK(n == ci_space_size(S), "%s MS2=%d: %lld direct vs %lld stored determinants", name, F->ms2, (long long)n,
        (long long)ci_space_size(S));
  if (n != ci_space_size(S)) goto done;
  const int k = 3;
  cis_int *map = malloc((size_t)n * sizeof *map);
  double *x = malloc((size_t)(k * n) * sizeof(double)), *y = malloc((size_t)(k * n) * sizeof(double));
  double *xs = malloc((size_t)n * sizeof(double)), *ys = malloc((size_t)n * sizeof(double));
  double *y1 = malloc((size_t)n * sizeof(double)), *dg = malloc((size_t)n * sizeof(double));
  double *ds = malloc((size_t)n * sizeof(double));
  int bad = 0;
  for (cis_int i = 0; i < n; ++i) {
    uint64_t a, b;
    cis_ci_direct_det(D, i, &a, &b);
    map[i] = ci_space_find(S, a, b);
    if (map[i] < 0 || ci_direct_find(D, a, b) != i) bad++;
  }
  CHECK(bad == 0, "%s: %d determinants not found in both orders", name, bad);
  test_fill_random(x, CIS_F64, k * n, 1234);
  CHECK_OK(cis_ci_direct_sigma(D, k, x, y));
  double worst = 0;
  for (int v = 0; v < k; ++v) {
    for (cis_int i = 0; i < n; ++i) xs[map[i]] = x[v * n + i];
    CHECK_OK(cis_csr_spmv(H, 1.0, xs, 0.0, ys));
    for (cis_int i = 0; i < n; ++i) y1[i] = ys[map[i]];
    double e = rel_diff(y + v * n, y1, n);
    if (e > worst) worst = e;
  }
  CHECK(worst <= 1e-12, "%s MS2=%d: direct vs stored sigma rel diff %.3e", name, F->ms2, worst);
  /* one vector at a time and one alpha string per block give the same */
  CHECK_OK(cis_ci_direct_sigma(Dsmall, 1, x + n, y1));
  CHECK(rel_diff(y1, y + n, n) <= 1e-14, "%s: small blocks vs k=3 big block %.3e", name, rel_diff(y1, y + n, n));
  CHECK_OK(cis_ci_direct_sigma(Dsmall, k, x, y)); /* k vectors, blocks of one string */
  CHECK_OK(cis_ci_direct_sigma(D, 1, x + n, ys));
  CHECK(rel_diff(y + n, ys, n) <= 1e-14, "%s: k=3 small blocks vs k=1", name);
  /* diagonal */
  CHECK_OK(ci_direct_diagonal(D, dg));
  CHECK_OK(ci_diagonal_all(F, S, ds));
  bad = 0;
  for (cis_int i = 0; i < n; ++i) bad += !(fabs(dg[i] - ds[map[i]]) <= 1e-12 * fabs(ds[map[i]]));
  CHECK(bad == 0, "%s: %d diagonal entries differ", name, bad); /* MS2 = 0: mirrored, equal to rounding */
  printf("%-12s MS2=%d  %7lld determinants  direct vs stored sigma %.2e\n", name, F->ms2, (long long)n, worst);
  free(map); free(x); free(y); free(xs); free(ys); free(y1); free(dg); free(ds);
done:
  cis_ci_direct_free(Dsmall);
  cis_ci_direct_free(D);
  cis_csr_free(H);
  cis_ci_space_free(S);
}

/* FCI energy through the direct operator and Davidson. */
static double direct_energy(cis_fcidump *F) {
  cis_ci_direct *D = NULL;
  cis_operator *op = NULL;
  double e = NAN, ev = NAN;
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  CHECK_OK(ci_direct_operator(D, &op));
  if (!op) { cis_ci_direct_free(D); return e; }
  cis_int n = cis_ci_direct_size(D);
  /* the operator's y = alpha H x + beta y */
  double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
  double *z = malloc((size_t)n * sizeof(double));
  test_fill_random(x, CIS_F64, n, 7);
  test_fill_random(y, CIS_F64, n, 8);
  memcpy(z, y, (size_t)n * sizeof(double));
  CHECK_OK(cis_operator_apply(op, 2.0, x, -0.5, y, NULL));
  double *hx = malloc((size_t)n * sizeof(double));
  CHECK_OK(cis_ci_direct_sigma(D, 1, x, hx));
  for (cis_int i = 0; i < n; ++i) z[i] = 2.0 * hx[i] - 0.5 * z[i];
  CHECK(rel_diff(y, z, n) <= 1e-14, "operator alpha/beta form");
  cis_davidson_opts o = cis_davidson_opts_default();
  o.tol = 1e-9;
  CHECK_OK(cis_davidson_operator(op, cis_operator_diagonal(op), &o, &ev, NULL, NULL));
  e = ev + F->ecore;
  cis_ci_direct_info info;
  ci_direct_get_info(D, &info);
  /* closed-shell guess: every product after the operator check is a half
   * sigma (C1, projected and blocked by irreps alike) */
  if (F->ms2 == 0 && F->isym == 1)
    CHECK(info.half_sigmas + 2 >= info.sigma_vectors && info.half_sigmas > 0, "Davidson: %lld of %lld half sigmas",
          (long long)info.half_sigmas, (long long)info.sigma_vectors);
  free(x); free(y); free(z); free(hx);
  cis_operator_free(op);
  cis_ci_direct_free(D);
  return e;
}

/* Point-group symmetry by projection (N2 STO-3G in D2h, written by PySCF):
 * for each ISYM the direct sigma equals the stored one on the ISYM space and
 * is exactly 0 elsewhere; energies equal the stored path's, and for Ag
 * PySCF's FCI (direct_spin1_symm) -107.6541224475 to 1e-9. */
static void test_symmetry(void) {
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP", &F));
  if (!F) return;
  const int irreps[] = {1, 2, 5, 8};
  for (size_t t = 0; t < sizeof irreps / sizeof irreps[0]; ++t) {
    F->isym = irreps[t];
    uint64_t ra = 0, rb = 0;
    cis_ci_space *S = NULL;
    cis_csr *H = NULL;
    cis_ci_direct *D = NULL;
    CHECK_OK(cis_ci_find_reference(F, &ra, &rb));
    CHECK_OK(cis_ci_space_create(F, -1, ra, rb, &S));
    CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
    CHECK_OK(cis_ci_direct_create(F, NULL, &D));
    if (!S || !H || !D) goto next;
    cis_int n = cis_ci_direct_size(D), ns = ci_space_size(S);
    cis_ci_direct_info info;
    ci_direct_get_info(D, &info);
    CHECK(info.projected && info.symmetry_determinants == ns, "ISYM %d: %lld vs stored %lld", F->isym,
          (long long)info.symmetry_determinants, (long long)ns);
    double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
    double *xs = calloc((size_t)ns, sizeof(double)), *ys = malloc((size_t)ns * sizeof(double));
    double *diag = malloc((size_t)n * sizeof(double)), *ds = malloc((size_t)ns * sizeof(double));
    test_fill_random(x, CIS_F64, n, 77); /* off-irrep entries too: P H x must ignore them */
    for (cis_int i = 0; i < n; ++i) {
      uint64_t a, b;
      cis_ci_direct_det(D, i, &a, &b);
      cis_int j = ci_space_find(S, a, b);
      if (j >= 0) xs[j] = x[i];
    }
    CHECK_OK(cis_ci_direct_sigma(D, 1, x, y));
    CHECK_OK(cis_csr_spmv(H, 1.0, xs, 0.0, ys));
    CHECK_OK(ci_direct_diagonal(D, diag));
    CHECK_OK(ci_diagonal_all(F, S, ds));
    double worst = 0, ymax = 0;
    int off_bad = 0, diag_bad = 0;
    cis_int found = 0;
    for (cis_int j = 0; j < ns; ++j) ymax = fabs(ys[j]) > ymax ? fabs(ys[j]) : ymax;
    for (cis_int i = 0; i < n; ++i) {
      uint64_t a, b;
      cis_ci_direct_det(D, i, &a, &b);
      cis_int j = ci_space_find(S, a, b);
      if (j < 0) {
        off_bad += y[i] != 0.0 || diag[i] < 1e9;
        continue;
      }
      found++;
      diag_bad += !(fabs(diag[i] - ds[j]) <= 1e-12 * fabs(ds[j]));
      if (fabs(y[i] - ys[j]) > worst) worst = fabs(y[i] - ys[j]);
    }
    CHECK(found == ns && off_bad == 0 && diag_bad == 0, "ISYM %d: %lld found, %d off-irrep, %d diagonal bad", F->isym,
          (long long)found, off_bad, diag_bad);
    CHECK(worst <= 1e-12 * ymax, "ISYM %d: direct vs stored sigma %.3e", F->isym, worst / ymax);
    /* energies: direct operator vs stored */
    double ed = direct_energy(F), es = NAN;
    cis_operator *op = NULL;
    CHECK_OK(cis_operator_from_csr(H, &op));
    cis_davidson_opts o = cis_davidson_opts_default();
    o.tol = 1e-9;
    CHECK_OK(cis_davidson_operator(op, ds, &o, &es, NULL, NULL));
    es += F->ecore;
    cis_operator_free(op);
    CHECK(fabs(ed - es) <= 1e-9, "ISYM %d: direct %.10f stored %.10f", F->isym, ed, es);
    if (F->isym == 1) CHECK(fabs(ed - (-107.6541224475)) <= 1e-9, "Ag: direct %.10f vs PySCF -107.6541224475", ed);
    printf("n2 D2h ISYM %d  %5lld of %lld determinants  sigma %.1e  E direct %.10f  stored %.10f\n", F->isym,
           (long long)ns, (long long)n, worst / ymax, ed, es);
    free(x); free(y); free(xs); free(ys); free(diag); free(ds);
  next:
    cis_ci_direct_free(D);
    cis_csr_free(H);
    cis_ci_space_free(S);
  }
  cis_fcidump_free(F);
}

/* Time reversal: (anti)symmetric vectors take the half sigma; it equals the
 * full one (opts.no_time_reversal) to rounding and the stored H x, and is
 * exactly (anti)symmetric; a vector off by one bit takes the full path;
 * Davidson from the closed-shell guess runs every product as a half sigma. */
static void test_time_reversal(const char *name, cis_fcidump *F) {
  cis_ci_direct *Dh = NULL, *Df = NULL;
  cis_ci_direct_opts o = ci_direct_opts_default();
  o.no_time_reversal = 1;
  CHECK_OK(cis_ci_direct_create(F, NULL, &Dh));
  CHECK_OK(cis_ci_direct_create(F, &o, &Df));
  if (!Dh || !Df) goto done;
  cis_ci_direct_info info;
  ci_direct_get_info(Dh, &info);
  const cis_int n = cis_ci_direct_size(Dh), ns = info.alpha_strings;
  double *x = malloc((size_t)n * sizeof(double)), *yh = malloc((size_t)n * sizeof(double));
  double *yf = malloc((size_t)n * sizeof(double));
  for (int t = 1; t >= -1; t -= 2) {
    test_fill_random(x, CIS_F64, n, 4242);
    for (cis_int A = 0; A < ns; ++A) {
      for (cis_int B = 0; B < A; ++B) x[B * ns + A] = t * x[A * ns + B];
      if (t < 0) x[A * ns + A] = 0.0;
    }
    cis_int h0 = info.half_sigmas;
    CHECK_OK(cis_ci_direct_sigma(Dh, 1, x, yh));
    CHECK_OK(cis_ci_direct_sigma(Df, 1, x, yf));
    ci_direct_get_info(Dh, &info);
    CHECK(info.half_sigmas == h0 + 1, "%s t=%d: half sigma not taken", name, t);
    CHECK(rel_diff(yh, yf, n) <= 1e-13, "%s t=%d: half vs full %.3e", name, t, rel_diff(yh, yf, n));
    int asym = 0;
    for (cis_int A = 0; A < ns; ++A)
      for (cis_int B = 0; B <= A; ++B) asym += yh[A * ns + B] != t * yh[B * ns + A];
    CHECK(asym == 0, "%s t=%d: %d elements not exactly (anti)symmetric", name, t, asym);
    printf("%-12s time reversal t=%+d: half vs full sigma %.1e\n", name, t, rel_diff(yh, yf, n));
  }
  /* antisymmetric to round-off (one ulp off): the half sigma on the pure
   * part, equal to the full sigma of x to rounding */
  x[1] = nextafter(x[1], 2.0);
  cis_int h0 = info.half_sigmas;
  CHECK_OK(cis_ci_direct_sigma(Dh, 1, x, yh));
  CHECK_OK(cis_ci_direct_sigma(Df, 1, x, yf));
  ci_direct_get_info(Dh, &info);
  CHECK(info.half_sigmas == h0 + 1, "%s: one ulp off antisymmetric: half sigma not taken", name);
  CHECK(rel_diff(yh, yf, n) <= 1e-13, "%s: one ulp off: half vs full %.3e", name, rel_diff(yh, yf, n));
  /* clearly broken (1e-4 of the norm): the full sigma (yh kept for below) */
  {
    double nx = 0, *xb = malloc((size_t)n * sizeof(double)), *yb = malloc((size_t)n * sizeof(double));
    for (cis_int i = 0; i < n; ++i) nx += x[i] * x[i];
    memcpy(xb, x, (size_t)n * sizeof(double));
    xb[1] += 1e-4 * sqrt(nx);
    h0 = info.half_sigmas;
    CHECK_OK(cis_ci_direct_sigma(Dh, 1, xb, yb));
    CHECK_OK(cis_ci_direct_sigma(Df, 1, xb, yf));
    ci_direct_get_info(Dh, &info);
    CHECK(info.half_sigmas == h0, "%s: a broken symmetry still took the half sigma", name);
    CHECK(rel_diff(yb, yf, n) <= 1e-13, "%s: broken symmetry: %.3e from the full sigma", name, rel_diff(yb, yf, n));
    free(xb); free(yb);
  }
  /* cis_ci_direct_pure_guesses: a random guess (near neither) becomes its
   * symmetric part, its antisymmetric part is appended, both exactly pure,
   * their sum the guess; a pure guess stays; no room: no append; the full
   * object (no_time_reversal) changes nothing */
  {
    double *g = malloc(3 * (size_t)n * sizeof(double)), *g0 = malloc((size_t)n * sizeof(double));
    test_fill_random(g, CIS_F64, n, 99);
    memcpy(g0, g, (size_t)n * sizeof(double));
    memcpy(g + n, yh, (size_t)n * sizeof(double)); /* yh: antisymmetric but for x's last bit: made exact */
    int m = -1;
    CHECK_OK(cis_ci_direct_pure_guesses(Dh, g, 2, 3, &m));
    CHECK(m == 3, "%s: pure guesses %d, expected 3", name, m);
    double dev = 0;
    for (cis_int i = 0; i < n; ++i) dev = fmax(dev, fabs(g[i] + g[2 * (size_t)n + i] - g0[i]));
    CHECK(dev <= 1e-15, "%s: the parts do not sum to the guess (%.1e)", name, dev);
    int par[3] = {0, 0, 0};
    for (int v = 0; v < 3; ++v) {
      const double *w = g + (size_t)v * (size_t)n;
      int sy = 1, an = 1;
      for (cis_int A = 0; A < ns; ++A)
        for (cis_int B = 0; B <= A; ++B) {
          sy &= w[A * ns + B] == w[B * ns + A];
          an &= w[A * ns + B] == -w[B * ns + A];
        }
      par[v] = sy ? 1 : an ? -1 : 0;
    }
    CHECK(par[0] == 1 && par[1] == -1 && par[2] == -1, "%s: parities %d %d %d", name, par[0], par[1], par[2]);
    memcpy(g, g0, (size_t)n * sizeof(double));
    CHECK_OK(cis_ci_direct_pure_guesses(Dh, g, 1, 1, &m));
    CHECK(m == 1, "%s: no room, yet %d guesses", name, m);
    memcpy(g, g0, (size_t)n * sizeof(double));
    CHECK_OK(cis_ci_direct_pure_guesses(Df, g, 1, 3, &m));
    CHECK(m == 1 && memcmp(g, g0, (size_t)n * sizeof(double)) == 0, "%s: no_time_reversal changed the guesses", name);
    CHECK(cis_ci_direct_pure_guesses(Dh, g, 2, 1, &m) == CIS_ERR_INVALID, "%s: cap < nin accepted", name);
    free(g); free(g0);
  }
  free(x); free(yh); free(yf);
done:
  cis_ci_direct_free(Dh);
  cis_ci_direct_free(Df);
}

/* One thread and all threads give the same bits (each sigma element owned by
 * one thread, sums in a fixed order). The GEMM itself: test_ci_gemm.c. */
static void test_determinism(cis_fcidump *F) {
  cis_ci_direct *D1 = NULL, *Dn = NULL;
  int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  CHECK_OK(cis_ci_direct_create(F, NULL, &D1));
  omp_set_num_threads(threads > 1 ? threads : 2);
  CHECK_OK(cis_ci_direct_create(F, NULL, &Dn));
  if (D1 && Dn) {
    cis_int n = cis_ci_direct_size(D1);
    double *x = malloc((size_t)n * sizeof(double)), *y1 = malloc((size_t)n * sizeof(double));
    double *yn = malloc((size_t)n * sizeof(double));
    test_fill_random(x, CIS_F64, n, 99);
    CHECK_OK(cis_ci_direct_sigma(D1, 1, x, y1));
    CHECK_OK(cis_ci_direct_sigma(Dn, 1, x, yn));
    CHECK(memcmp(y1, yn, (size_t)n * sizeof(double)) == 0, "1 thread vs %d threads: not bitwise equal",
          threads > 1 ? threads : 2);
    /* the half sigma too: a symmetric vector */
    cis_ci_direct_info info;
    ci_direct_get_info(D1, &info);
    const cis_int ns = info.alpha_strings;
    for (cis_int A = 0; A < ns; ++A)
      for (cis_int B = 0; B < A; ++B) x[B * ns + A] = x[A * ns + B];
    CHECK_OK(cis_ci_direct_sigma(D1, 1, x, y1));
    CHECK_OK(cis_ci_direct_sigma(Dn, 1, x, yn));
    ci_direct_get_info(Dn, &info);
    CHECK(info.half_sigmas == 1, "half sigma taken");
    CHECK(memcmp(y1, yn, (size_t)n * sizeof(double)) == 0, "half sigma, 1 thread vs %d threads: not bitwise equal",
          threads > 1 ? threads : 2);
    free(x); free(y1); free(yn);
  }
  omp_set_num_threads(threads);
  cis_ci_direct_free(D1);
  cis_ci_direct_free(Dn);
}

typedef struct direct_call { cis_fcidump *F; cis_ci_direct *D; cis_operator *op; } direct_call;

static cis_status direct_run(void *ctx) {
  direct_call *c = ctx;
  cis_status st = cis_ci_direct_create(c->F, NULL, &c->D);
  if (st == CIS_OK) st = ci_direct_operator(c->D, &c->op);
  if (st == CIS_OK) { /* the scaled form needs the product buffer (a fresh operator: first use) */
    cis_int n = cis_ci_direct_size(c->D);
    double *xx = malloc((size_t)n * sizeof(double)), *yy = calloc((size_t)n, sizeof(double));
    test_fill_random(xx, CIS_F64, n, 5);
    st = cis_operator_apply(c->op, 2.0, xx, 1.0, yy, NULL);
    free(xx);
    free(yy);
  }
  return st;
}

static void direct_undo(void *ctx) {
  direct_call *c = ctx;
  cis_operator_free(c->op), cis_ci_direct_free(c->D), c->op = NULL, c->D = NULL;
}

/* Every allocation of create, operator and the operator's first scaled apply
 * made to fail in turn: CIS_ERR_ALLOC each time, nothing leaked (ASan build),
 * then success (test_alloc_every). */
static void test_alloc_failures(cis_fcidump *F) {
  direct_call c = {F, NULL, NULL};
  test_alloc_every("direct create + operator + apply", direct_run, direct_undo, &c);
}

static void test_refusals(cis_fcidump *F) {
  cis_ci_direct *D = NULL;
  cis_ci_direct_opts o = ci_direct_opts_default();
  o.mem_limit = 100000; /* 100 kB */
  CHECK(cis_ci_direct_create(F, &o, &D) == CIS_ERR_TOO_LARGE && !D, "too large refused");
  const char *m = cis_last_error();
  CHECK(strstr(m, "14400 determinants") && strstr(m, "120 alpha x 120 beta") && strstr(m, "GiB of memory"),
        "message has the numbers: %s", m);
  /* 64 orbitals, 32+32 electrons: C(64,32)^2 overflows (a header that
   * passes the entry's check; the sizes refuse it before any integral is read) */
  cis_fcidump G = *F;
  G.norb = 64;
  G.nelec = 64;
  G.npair = 64 * 65 / 2;
  G.neri = G.npair * (G.npair + 1) / 2;
  for (int p = 0; p < 64; ++p) G.orbsym[p] = 1;
  o = ci_direct_opts_default();
  o.ignore_symmetry = 1;
  CHECK(cis_ci_direct_create(&G, &o, &D) == CIS_ERR_TOO_LARGE && !D, "overflow refused");
  CHECK(strstr(cis_last_error(), "1832624140942590534"), "overflow message: %s", cis_last_error());
  /* point-group symmetry: projected (all C1 determinants in the vectors); an
   * irrep without determinants is refused like the stored space does */
  F->orbsym[1] = 2;
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  cis_ci_direct_info info;
  if (D) {
    ci_direct_get_info(D, &info);
    CHECK(info.projected && cis_ci_direct_size(D) == 14400 && info.symmetry_determinants < 14400,
          "projected: %lld of %lld", (long long)info.symmetry_determinants, (long long)cis_ci_direct_size(D));
  }
  cis_ci_direct_free(D);
  F->isym = 3; /* irreps 0 and 1 only: nothing of irrep 2 */
  CHECK(cis_ci_direct_create(F, NULL, &D) == CIS_ERR_INVALID && !D, "empty irrep refused");
  CHECK(strstr(cis_last_error(), "no determinants of symmetry ISYM=3"), "message: %s", cis_last_error());
  F->isym = 1;
  o = ci_direct_opts_default();
  o.ignore_symmetry = 1;
  CHECK_OK(cis_ci_direct_create(F, &o, &D));
  if (D) {
    ci_direct_get_info(D, &info);
    CHECK(!info.projected && info.symmetry_determinants == 14400, "C1 on request");
  }
  cis_ci_direct_free(D);
  F->orbsym[1] = 1;
  CHECK(cis_ci_direct_sigma(NULL, 1, NULL, NULL) == CIS_ERR_INVALID, "NULL sigma");
}

/* Lowest Davidson root of D's operator (electronic). */
static double operator_energy(cis_ci_direct *D) {
  cis_operator *op = NULL;
  double e = NAN;
  CHECK_OK(ci_direct_operator(D, &op));
  if (!op) return e;
  cis_davidson_opts o = cis_davidson_opts_default();
  o.tol = 1e-8;
  CHECK_OK(cis_davidson_operator(op, cis_operator_diagonal(op), &o, &e, NULL, NULL));
  cis_operator_free(op);
  return e;
}

/* Point-group symmetry blocked by irreps (sigma_irrep.c) against the
 * projected C1 sigma (opts.symmetry_projection), N2 and C2 STO-3G in D2h:
 * every irrep, MS2 = 0, 1 (one electron less) and 2, random vectors with
 * off-irrep entries (which both must ignore): equal to 1e-12, exactly 0 off
 * the irrep; k = 3 vectors in one call and tiny alpha blocks (many X blocks)
 * give the same; for MS2 = 0 the blocked half sigma of (anti)symmetric
 * vectors equals the projected full one and is exactly (anti)symmetric; the determinant count per irrep equals ci_count's closed
 * form (an empty irrep refused); ground-state energies of both equal to 1e-10. */
/* Under AddressSanitizer (make test-asan: a Debug build, several times
 * slower) each part of test_blocked checks irreps 1 and 4 and the empty ones
 * (the same code paths as the other irreps), the Davidson energies in irrep 1
 * only; the normal build checks all eight, energies in 1 and 4. */
#if defined(__SANITIZE_ADDRESS__)
#define BLOCKED_ALL_IRREPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BLOCKED_ALL_IRREPS 0
#endif
#endif
#ifndef BLOCKED_ALL_IRREPS
#define BLOCKED_ALL_IRREPS 1
#endif

static const char *const blocked_files[] = {CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP",
                                            CIS_TEST_DATA "/ci/c2_sto3g_d2h_pyscf.FCIDUMP"};
static const char *const blocked_names[] = {"n2", "c2"};

/* File f of blocked_files with MS2 = ms2 (one part of the test: see main). */
static void test_blocked(int f, int ms2) {
  {
    cis_fcidump *F = NULL;
    CHECK_OK(cis_fcidump_read(blocked_files[f], &F));
    if (!F) return;
    const int nelec = F->nelec, isym0 = F->isym;
    {
      F->ms2 = ms2;
      F->nelec = nelec - (ms2 & 1);
      F->isym = 1;
      /* full CI: any reference with the right electron counts (aufbau) */
      const uint64_t ra = (1ull << cis_fcidump_nalpha(F)) - 1, rb = (1ull << cis_fcidump_nbeta(F)) - 1;
      cis_ci_counts cnt;
      CHECK_OK(ci_count(F, -1, ra, rb, &cnt));
      double worst = 0, eworst = 0;
      int irreps = 0;
      for (int t = 1; t <= 8; ++t) {
        F->isym = t;
        cis_ci_direct *Db = NULL, *Dp = NULL, *Ds = NULL;
        cis_ci_direct_opts op = ci_direct_opts_default(), os = ci_direct_opts_default();
        op.symmetry_projection = 1;
        op.no_time_reversal = 1; /* the projected full sigma, the reference for the half one */
        os.block_bytes = 4096;
        if (!BLOCKED_ALL_IRREPS && cnt.per_irrep[t - 1] != 0 && t != 1 && t != 4) continue;
        if (cnt.per_irrep[t - 1] == 0) {
          CHECK(cis_ci_direct_create(F, NULL, &Db) == CIS_ERR_INVALID && !Db, "%s MS2 %d ISYM %d: empty irrep refused",
                blocked_files[f], ms2, t);
          continue;
        }
        CHECK_OK(cis_ci_direct_create(F, NULL, &Db));
        CHECK_OK(cis_ci_direct_create(F, &op, &Dp));
        CHECK_OK(cis_ci_direct_create(F, &os, &Ds));
        if (!Db || !Dp || !Ds) goto next;
        cis_ci_direct_info ib, ip;
        ci_direct_get_info(Db, &ib);
        ci_direct_get_info(Dp, &ip);
        CHECK(ib.blocked && ib.projected && !ip.blocked && ip.projected, "blocked %d / %d", ib.blocked, ip.blocked);
        CHECK((double)ib.symmetry_determinants == cnt.per_irrep[t - 1] &&
                  ip.symmetry_determinants == ib.symmetry_determinants,
              "%s MS2 %d ISYM %d: %lld determinants, closed form %.0f", blocked_files[f], ms2, t,
              (long long)ib.symmetry_determinants, cnt.per_irrep[t - 1]);
        const cis_int n = cis_ci_direct_size(Db);
        CHECK(n == cis_ci_direct_size(Dp), "same vector length");
        double *x = malloc((size_t)n * 3 * sizeof(double)), *yb = malloc((size_t)n * 3 * sizeof(double));
        double *yp = malloc((size_t)n * 3 * sizeof(double)), *ys = malloc((size_t)n * 3 * sizeof(double));
        test_fill_random(x, CIS_F64, n * 3, 100 + t);
        CHECK_OK(cis_ci_direct_sigma(Db, 3, x, yb));
        CHECK_OK(cis_ci_direct_sigma(Ds, 3, x, ys));
        for (int v = 0; v < 3; ++v) CHECK_OK(cis_ci_direct_sigma(Dp, 1, x + (cis_int)v * n, yp + (cis_int)v * n));
        double ymax = 0, d = 0, dsm = 0;
        int off = 0;
        for (cis_int i = 0; i < 3 * n; ++i) {
          ymax = fabs(yp[i]) > ymax ? fabs(yp[i]) : ymax;
          d = fabs(yb[i] - yp[i]) > d || yb[i] != yb[i] ? fabs(yb[i] - yp[i]) : d;
          dsm = fabs(ys[i] - yb[i]) > dsm || ys[i] != ys[i] ? fabs(ys[i] - yb[i]) : dsm; /* many X blocks */
          if (yp[i] == 0.0) off += yb[i] != 0.0;
        }
        CHECK(d <= 1e-12 * ymax && ymax > 0, "%s MS2 %d ISYM %d: blocked vs projected sigma %.3e", blocked_files[f], ms2, t,
              d / ymax);
        CHECK(off == 0 && dsm <= 1e-12 * ymax, "%s MS2 %d ISYM %d: %d nonzeros off the irrep, small blocks differ %g",
              blocked_files[f], ms2, t, off, dsm);
        worst = d / ymax > worst ? d / ymax : worst;
        irreps++;
        if (ms2 == 0) /* time reversal: the blocked half sigma vs the projected full one */
          for (int tr = -1; tr <= 1; tr += 2) {
            const cis_int ns = (cis_int)sqrt((double)n);
            for (cis_int a = 0; a < ns; ++a)
              for (cis_int b = 0; b <= a; ++b) x[b * ns + a] = b == a && tr < 0 ? 0.0 : tr * x[a * ns + b];
            cis_ci_direct_info i0, i1;
            ci_direct_get_info(Db, &i0);
            CHECK_OK(cis_ci_direct_sigma(Db, 1, x, yb));
            CHECK_OK(cis_ci_direct_sigma(Dp, 1, x, yp));
            CHECK_OK(cis_ci_direct_sigma(Ds, 1, x, ys)); /* half sigma over many X blocks */
            ci_direct_get_info(Db, &i1);
            double dh = 0, hmax = 0;
            int asym = 0;
            for (cis_int i = 0; i < n; ++i) {
              hmax = fabs(yp[i]) > hmax ? fabs(yp[i]) : hmax;
              dh = fabs(yb[i] - yp[i]) > dh || yb[i] != yb[i] ? fabs(yb[i] - yp[i]) : dh;
              dh = fabs(ys[i] - yp[i]) > dh || ys[i] != ys[i] ? fabs(ys[i] - yp[i]) : dh;
              asym += yb[i] != tr * yb[(i % ns) * ns + i / ns];
            }
            CHECK(i1.half_sigmas == i0.half_sigmas + 1, "%s ISYM %d t=%d: half sigma not taken", blocked_files[f], t, tr);
            CHECK(dh <= 1e-12 * hmax && asym == 0, "%s ISYM %d t=%d: half vs projected %.3e, %d not (anti)symmetric",
                  blocked_files[f], t, tr, dh / hmax, asym);
            worst = dh / hmax > worst ? dh / hmax : worst;
          }
        { /* compact vectors: size, compress/expand, the compact operator = the C1-order sigma compressed */
          const cis_int nc = ci_direct_compact_size(Db);
          CHECK(nc == ib.symmetry_determinants && ci_direct_compact_size(Dp) == n, "compact size %lld", (long long)nc);
          double *xc = malloc((size_t)nc * sizeof(double)), *yc = malloc((size_t)nc * sizeof(double));
          cis_operator *opc = NULL;
          CHECK_OK(ci_direct_compact_operator(Db, &opc));
          test_fill_random(x, CIS_F64, n, 500 + t);
          ci_direct_compress(Db, x, xc);
          CHECK_OK(cis_ci_direct_sigma(Dp, 1, x, yp));
          if (opc) CHECK_OK(cis_operator_apply(opc, 1.0, xc, 0.0, yc, NULL));
          ci_direct_expand(Db, yc, yb);
          double dc = 0, cmax = 0;
          int masked = 0;
          for (cis_int i = 0; i < n; ++i) {
            cmax = fabs(yp[i]) > cmax ? fabs(yp[i]) : cmax;
            dc = fabs(yb[i] - yp[i]) > dc || yb[i] != yb[i] ? fabs(yb[i] - yp[i]) : dc;
          }
          ci_direct_expand(Db, xc, ys); /* expand(compress(x)): x on nc entries, 0 elsewhere */
          cis_int nz = 0;
          for (cis_int i = 0; i < n; ++i) {
            nz += ys[i] != 0.0;
            masked += ys[i] != 0.0 && ys[i] != x[i];
          }
          ci_direct_compress(Db, ys, yc);
          for (cis_int i = 0; i < nc; ++i) masked += yc[i] != xc[i];
          masked += nz != nc;
          CHECK(dc <= 1e-12 * cmax && masked == 0, "%s MS2 %d ISYM %d: compact operator %.3e, %d round-trip errors",
                blocked_files[f], ms2, t, dc / cmax, masked);
          { /* Davidson's start without C1 vectors: compact diagonal, P-space guesses and pure guesses
             * equal to the C1 ones compressed, bit for bit */
            double *d1 = malloc((size_t)n * sizeof(double)), *dcmp = malloc((size_t)nc * sizeof(double));
            double *g1 = malloc((size_t)2 * n * sizeof(double)), *gc = malloc((size_t)2 * nc * sizeof(double));
            double *g1c = malloc((size_t)2 * nc * sizeof(double));
            int bad = 0, n1 = 0, n2 = 0, np1 = 0, np2 = 0;
            CHECK_OK(ci_direct_diagonal(Db, d1));
            CHECK_OK(ci_direct_compact_diagonal(Db, dcmp));
            ci_direct_compress(Db, d1, yc);
            for (cis_int i = 0; i < nc; ++i) bad += yc[i] != dcmp[i];
            CHECK_OK(ci_pspace_guess_direct(F, Db, d1, 50, 1, g1, &np1, NULL));
            CHECK_OK(ci_pspace_guess_compact(F, Db, dcmp, 50, 1, gc, &np2, NULL));
            CHECK_OK(cis_ci_direct_pure_guesses(Db, g1, 1, 2, &n1));
            CHECK_OK(cis_ci_direct_compact_pure_guesses(Db, gc, 1, 2, &n2));
            for (int v = 0; v < n1; ++v) ci_direct_compress(Db, g1 + (size_t)v * n, g1c + (size_t)v * nc);
            for (cis_int i = 0; i < (cis_int)n1 * nc && n1 == n2; ++i) bad += g1c[i] != gc[i];
            CHECK(bad == 0 && n1 == n2 && np1 == np2, "%s MS2 %d ISYM %d: compact start: %d differences, %d/%d guesses, "
                  "P-space %d/%d", blocked_files[f], ms2, t, bad, n1, n2, np1, np2);
            free(d1); free(dcmp); free(g1); free(gc); free(g1c);
          }
          if (ms2 == 0 && opc) { /* a symmetric compact vector: the compact half sigma */
            const cis_int ns = (cis_int)sqrt((double)n);
            for (cis_int a = 0; a < ns; ++a)
              for (cis_int b = 0; b < a; ++b) x[b * ns + a] = x[a * ns + b];
            cis_ci_direct_info i0, i1;
            ci_direct_get_info(Db, &i0);
            ci_direct_compress(Db, x, xc);
            CHECK_OK(cis_operator_apply(opc, 1.0, xc, 0.0, yc, NULL));
            ci_direct_get_info(Db, &i1);
            CHECK_OK(cis_ci_direct_sigma(Dp, 1, x, yp));
            ci_direct_expand(Db, yc, yb);
            double dh = 0;
            for (cis_int i = 0; i < n; ++i) dh = fabs(yb[i] - yp[i]) > dh || yb[i] != yb[i] ? fabs(yb[i] - yp[i]) : dh;
            CHECK(i1.half_sigmas == i0.half_sigmas + 1 && dh <= 1e-12 * cmax, "%s ISYM %d: compact half sigma %.3e",
                  blocked_files[f], t, dh / cmax);
          }
          const cis_int dn = opc ? cis_operator_rows(opc) : -1;
          CHECK(dn == nc, "compact operator rows %lld", (long long)dn);
          if (t == 1 || (t == 4 && BLOCKED_ALL_IRREPS)) {
            const double eb = operator_energy(Db), ep = operator_energy(Dp);
            double ec = NAN;
            cis_davidson_opts o = cis_davidson_opts_default();
            o.tol = 1e-8;
            if (opc) CHECK_OK(cis_davidson_operator(opc, cis_operator_diagonal(opc), &o, &ec, NULL, NULL));
            CHECK(fabs(eb - ep) <= 1e-10 && fabs(ec - ep) <= 1e-10,
                  "%s MS2 %d ISYM %d: E blocked %.12f compact %.12f projected %.12f", blocked_files[f], ms2, t, eb, ec, ep);
            eworst = fabs(eb - ep) > eworst ? fabs(eb - ep) : eworst;
            eworst = fabs(ec - ep) > eworst ? fabs(ec - ep) : eworst;
          }
          cis_operator_free(opc);
          free(xc); free(yc);
        }
        free(x); free(yb); free(yp); free(ys);
      next:
        cis_ci_direct_free(Db);
        cis_ci_direct_free(Dp);
        cis_ci_direct_free(Ds);
      }
      printf("%-12s MS2=%d blocked vs projected sigma %.1e over %d irreps, energies %.1e\n",
             f ? "c2 D2h" : "n2 D2h", ms2, worst, irreps, eworst);
    }
    F->ms2 = 0;
    F->nelec = nelec;
    F->isym = isym0;
    cis_fcidump_free(F);
  }
}

/* D made from F, then given F2's integrals (h1 x 0.97, eri x 1.03): its
 * sigma equals that of a D made from F2 (bitwise: the same operations) and
 * differs from F's; mismatched spaces refused, D unchanged. */
static void test_set_integrals(const char *file) {
  cis_fcidump *F = NULL, *F2 = NULL, *Fx = NULL;
  cis_ci_direct *D = NULL, *D2 = NULL;
  double *c = NULL, *s0 = NULL, *s1 = NULL, *s2 = NULL;
  CHECK_OK(cis_fcidump_read(file, &F));
  CHECK_OK(cis_fcidump_read(file, &F2));
  CHECK_OK(cis_fcidump_read(file, &Fx));
  if (!F || !F2 || !Fx) goto done;
  test_scale_integrals(F2, 0.97, 1.03);
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  CHECK_OK(cis_ci_direct_create(F2, NULL, &D2));
  if (!D || !D2) goto done;
  const cis_int n = cis_ci_direct_size(D);
  c = malloc((size_t)n * sizeof *c), s0 = malloc((size_t)n * sizeof *c);
  s1 = malloc((size_t)n * sizeof *c), s2 = malloc((size_t)n * sizeof *c);
  if (!c || !s0 || !s1 || !s2) goto done;
  test_fill_random(c, CIS_F64, n, 77);
  CHECK_OK(cis_ci_direct_sigma(D, 1, c, s0));
  CHECK_OK(cis_ci_direct_set_integrals(D, F2));
  CHECK_OK(cis_ci_direct_sigma(D, 1, c, s1));
  CHECK_OK(cis_ci_direct_sigma(D2, 1, c, s2));
  CHECK(memcmp(s1, s2, (size_t)n * sizeof *c) == 0, "%s: sigma after set_integrals != a new D's (rel %.2e)", file,
        rel_diff(s1, s2, n));
  CHECK(rel_diff(s0, s2, n) > 1e-3, "%s: new integrals left the sigma unchanged", file);
  /* refusals: other electrons, ORBSYM, ISYM, no integrals; D keeps F2 */
  Fx->ms2 = 2;
  CHECK(cis_ci_direct_set_integrals(D, Fx) == CIS_ERR_INVALID, "%s: other MS2 accepted", file);
  Fx->ms2 = F->ms2;
  Fx->orbsym[0] = Fx->orbsym[0] % 8 + 1;
  CHECK(cis_ci_direct_set_integrals(D, Fx) == CIS_ERR_INVALID, "%s: other ORBSYM accepted", file);
  Fx->orbsym[0] = F->orbsym[0];
  Fx->isym = F->isym % 8 + 1;
  CHECK(cis_ci_direct_set_integrals(D, Fx) == CIS_ERR_INVALID, "%s: other ISYM accepted", file);
  Fx->isym = F->isym;
  double *h1 = Fx->h1;
  Fx->h1 = NULL;
  CHECK(cis_ci_direct_set_integrals(D, Fx) == CIS_ERR_INVALID, "%s: no integrals accepted", file);
  Fx->h1 = h1;
  CHECK(cis_ci_direct_set_integrals(NULL, Fx) == CIS_ERR_INVALID, "NULL D accepted");
  CHECK_OK(cis_ci_direct_sigma(D, 1, c, s1));
  CHECK(memcmp(s1, s2, (size_t)n * sizeof *c) == 0, "%s: a refused set_integrals changed D", file);
  cis_ci_direct_info info;
  ci_direct_get_info(D, &info);
  printf("%-40s set_integrals: sigma = new D's bitwise (%s)\n", file, info.blocked ? "blocked" : "C1");
done:
  free(c), free(s0), free(s1), free(s2);
  cis_ci_direct_free(D);
  cis_ci_direct_free(D2);
  cis_fcidump_free(F);
  cis_fcidump_free(F2);
  cis_fcidump_free(Fx);
}

/* One part of the test, or all (argv[1] absent): the parts are separate
 * CTests (tests/CMakeLists.txt, test_ci_direct_PARTS) run side by side, each
 * within the time limit under the sanitizers. */
static const char *part;
static int wanted(const char *name) { return !part || !strcmp(part, name); }

int main(int argc, char **argv) {
  static const struct { const char *name; double efci; } mol[] = {
      {"h4_sto3g", -2.1663874485}, {"lih_sto3g", -7.8823915054}, {"h2o_sto3g", -75.0125782412},
      {"beh2_sto3g", -15.5951768689}, {"n2_sto3g", -107.6528287309}};
  char path_set[512], blocked[2][3][32];
  part = argc > 1 ? argv[1] : NULL;
  int known = !part || !strcmp(part, "molecules") || !strcmp(part, "symmetry") || !strcmp(part, "integrals");
  for (int f = 0; f < 2; ++f)
    for (int ms2 = 0; ms2 <= 2; ++ms2) {
      snprintf(blocked[f][ms2], sizeof blocked[f][ms2], "blocked-%s-ms%d", blocked_names[f], ms2);
      known |= part && !strcmp(part, blocked[f][ms2]);
    }
  if (!known) {
    fprintf(stderr, "test_ci_direct: unknown part '%s' (molecules, symmetry, blocked-{n2,c2}-ms{0,1,2}, integrals)\n", part);
    return 1;
  }
  if (wanted("molecules")) {
    test_strings();
    for (size_t m = 0; m < sizeof mol / sizeof mol[0]; ++m) {
      char sub[64], path[512];
      snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", mol[m].name);
      cis_fcidump *F = NULL;
      CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, sub), &F));
      if (!F) continue;
      compare_stored(mol[m].name, F);
      test_time_reversal(mol[m].name, F);
      double e = direct_energy(F);
      CHECK(fabs(e - mol[m].efci) <= 1e-9, "%s: direct FCI %.10f vs reference %.10f", mol[m].name, e, mol[m].efci);
      printf("%-12s FCI direct %.10f  reference %.10f  diff %.1e\n", mol[m].name, e, mol[m].efci, e - mol[m].efci);
      F->ms2 = 2; /* same integrals, two more alpha than beta electrons */
      compare_stored(mol[m].name, F);
      F->ms2 = 0;
      if (!strcmp(mol[m].name, "n2_sto3g")) {
        test_determinism(F);
        test_alloc_failures(F);
        test_refusals(F);
      }
      cis_fcidump_free(F);
    }
  }
  if (wanted("symmetry")) test_symmetry();
  for (int f = 0; f < 2; ++f)
    for (int ms2 = 0; ms2 <= 2; ++ms2)
      if (wanted(blocked[f][ms2])) test_blocked(f, ms2);
  if (wanted("integrals")) {
    test_set_integrals(test_shared_path(path_set, sizeof path_set, "ci/n2_sto3g.FCIDUMP"));
    test_set_integrals(CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP");
    /* An active space written by PySCF (ECORE = nuclear repulsion + frozen
     * core): CAS-CI energy against PySCF's CASCI on the same integrals. */
    cis_fcidump *F = NULL;
    CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/c2h4_ccpvdz_cas8.FCIDUMP", &F));
    if (F) {
      compare_stored("c2h4_cas8", F);
      double e = direct_energy(F);
      CHECK(fabs(e - (-78.0609848383)) <= 1e-9, "C2H4 CAS(8,8): direct %.10f vs PySCF CASCI -78.0609848383", e);
      printf("%-12s CAS(8,8) direct %.10f  PySCF CASCI -78.0609848383  diff %.1e\n", "c2h4", e, e + 78.0609848383);
      cis_fcidump_free(F);
    }
  }
  return test_summary("test_ci_direct");
}
