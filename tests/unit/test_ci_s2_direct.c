/* test_ci_s2_direct.c: <S^2> on the direct space (ci_s2_direct and
 * ci_s2_direct_compact, string-driven) against the reference below:
 * the determinant-by-determinant evaluation they replaced, which for every
 * determinant J and every pair (p alpha-only, q beta-only) swaps the two
 * spins and looks the partner up (ci_direct_find), with the sign of the
 * four operators counted one by one.
 *  - random vectors (not eigenvectors: their <S^2> is no s(s+1), and the
 *    off-diagonal part is checked to be large, so a wrong sign or a missed
 *    pair shows), to 1e-12: every FCIDUMP of shared/ci but H2O 6-31G at
 *    MS2 = 0, 1, 2 and H4 at MS2 = 4 (no beta electron: <S^2> = 6 for any
 *    vector); O2 (PySCF) at MS2 = 0, 2, 4; C2H4 CAS(8,8);
 *  - blocked by irreps (N2 and C2 in D2h, MS2 = 0, 1, 2, every ISYM): the
 *    compact <S^2> of a random compact vector against the reference and the
 *    C1 <S^2> on its C1 expansion (the compact vector alone is read: its
 *    expansion's zeros are not there to hide a wrong offset);
 *  - exact eigenvectors (dense diagonalisation of H4 and LiH, MS2 = 0 and 2):
 *    every <S^2> is s(s+1) to 1e-9, singlets and triplets among them; N2 in
 *    D2h (compact, Davidson to 1e-9): the lowest Ag roots at MS2 = 0 and 2
 *    are pure spin states, a singlet ground state, and the MS2 = 2 ground
 *    state is the lowest MS2 = 0 root of spin >= 1;
 *  - refusals: NULL arguments, a zero vector, a direct space of another MS2
 *    than the FCIDUMP's.
 * With an FCIDUMP as argument it times the two on a random vector of that
 * file's space (C1, and compact when it has symmetry) and checks they agree:
 * the benchmark of bench/NOTES.md (issue 24). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"

/* Reference <S^2> of the C1 direct vector c, split into its diagonal part
 * (Sz^2 + Sz + sum c_I^2 nbo(I)) and its off-diagonal part (the swaps), both
 * over ||c||^2. */
static void s2_reference(const cis_fcidump *F, const cis_ci_direct *D, const double *c, double *diag, double *off) {
  const cis_int n = cis_ci_direct_size(D);
  const int na = cis_fcidump_nalpha(F);
  double norm = 0, d = 0, o = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : norm, d, o)
  for (cis_int j = 0; j < n; ++j) {
    uint64_t a, b;
    cis_ci_direct_det(D, j, &a, &b);
    const uint64_t ao = a & ~b, bo = b & ~a;
    norm += c[j] * c[j];
    d += c[j] * c[j] * __builtin_popcountll(bo);
    for (uint64_t ps = ao; ps; ps &= ps - 1)
      for (uint64_t qs = bo; qs; qs &= qs - 1) {
        const int p = __builtin_ctzll(ps), q = __builtin_ctzll(qs);
        uint64_t a1 = a, b1 = b;
        int par = na + __builtin_popcountll(b1 & ((1ull << q) - 1)); /* a_{q beta} */
        b1 ^= 1ull << q;
        par += __builtin_popcountll(a1 & ((1ull << q) - 1));          /* a+_{q alpha} */
        a1 ^= 1ull << q;
        par += __builtin_popcountll(a1 & ((1ull << p) - 1));          /* a_{p alpha} */
        a1 ^= 1ull << p;
        par += na + __builtin_popcountll(b1 & ((1ull << p) - 1));     /* a+_{p beta} */
        b1 ^= 1ull << p;
        const cis_int i = ci_direct_find(D, a1, b1);
        if (i >= 0) o += (par & 1 ? -1.0 : 1.0) * c[j] * c[i];
      }
  }
  const double sz = 0.5 * F->ms2;
  *diag = sz * sz + sz + d / norm;
  *off = o / norm;
}

/* The new <S^2> of the C1 vector c equals the reference to 1e-12, and the
 * off-diagonal part is large enough that its sign matters. */
static void check_random(const char *name, const cis_fcidump *F, const cis_ci_direct *D, unsigned long long seed) {
  const cis_int n = cis_ci_direct_size(D);
  double *c = malloc((size_t)n * sizeof(double));
  test_fill_random(c, CIS_F64, n, seed);
  double s2 = NAN, d = NAN, o = NAN;
  CHECK_OK(ci_s2_direct(F, D, c, &s2));
  s2_reference(F, D, c, &d, &o);
  CHECK(fabs(s2 - (d + o)) <= 1e-12 * fmax(1.0, fabs(d + o)), "%s MS2=%d: <S^2> %.15f, reference %.15f", name, F->ms2,
        s2, d + o);
  const int swaps = cis_fcidump_nbeta(F) > 0 && cis_fcidump_nalpha(F) < F->norb; /* a (p alpha-only, q beta-only) */
  CHECK(swaps ? fabs(o) > 1e-6 : o == 0 && fabs(s2 - d) <= 1e-12 * d,
        "%s MS2=%d: off-diagonal part %.3e (%s expected)", name, F->ms2, o, swaps ? "a sizeable one" : "none");
  printf("%-10s MS2=%d  %7lld determinants  <S^2> %.12f (off-diagonal %+.6f)  vs reference %.1e\n", name, F->ms2,
         (long long)n, s2, o, fabs(s2 - (d + o)));
  free(c);
}

static void check_file_random(const char *name, cis_fcidump *F, int ms2_max) {
  const int nelec = F->nelec, ms2 = F->ms2;
  for (int m = 0; m <= ms2_max; ++m) {
    F->ms2 = m;
    F->nelec = nelec - ((m ^ nelec) & 1); /* an odd MS2 with one electron fewer */
    cis_ci_direct_opts o = ci_direct_opts_default();
    o.ignore_symmetry = 1;
    cis_ci_direct *D = NULL;
    CHECK_OK(cis_ci_direct_create(F, &o, &D));
    if (D) check_random(name, F, D, 100 + m);
    cis_ci_direct_free(D);
  }
  F->ms2 = ms2;
  F->nelec = nelec;
}

/* <S^2> of exact eigenvectors (dense H of the direct sigma, every root):
 * each is s(s+1) to 1e-9; *seen gets bit s set for every s found. */
static void check_eigenvectors(const char *name, const cis_fcidump *F, int *seen) {
  cis_ci_direct_opts o = ci_direct_opts_default();
  o.ignore_symmetry = 1;
  o.no_time_reversal = 1;
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_ci_direct_create(F, &o, &D));
  if (!D) return;
  const cis_int n = cis_ci_direct_size(D);
  double *H = calloc((size_t)(n * n), sizeof(double)), *e = calloc((size_t)n, sizeof(double));
  double *x = calloc((size_t)n, sizeof(double)), *v = malloc((size_t)n * sizeof(double));
  for (cis_int j = 0; j < n; ++j) { /* column j of H = H e_j */
    x[j] = 1;
    CHECK_OK(cis_ci_direct_sigma(D, 1, x, v));
    x[j] = 0;
    for (cis_int i = 0; i < n; ++i) H[i * n + j] = v[i];
  }
  CHECK_OK(ci_dense_eigh(H, (int)n, e));
  double worst = 0;
  for (cis_int r = 0; r < n; ++r) {
    for (cis_int i = 0; i < n; ++i) v[i] = H[i * n + r];
    double s2 = NAN, d = NAN, off = NAN;
    CHECK_OK(ci_s2_direct(F, D, v, &s2));
    s2_reference(F, D, v, &d, &off);
    const double s = cis_ci_spin_from_s2(s2), s_round = floor(2 * s + 0.5) / 2;
    const double dev = fabs(s2 - s_round * (s_round + 1));
    worst = fmax(worst, dev);
    CHECK(dev <= 1e-9 && fabs(s2 - (d + off)) <= 1e-12 * fmax(1.0, fabs(s2)),
          "%s MS2=%d root %lld: <S^2> %.15f (S %.6f), reference %.15f", name, F->ms2, (long long)r, s2, s, d + off);
    if (dev <= 1e-9) *seen |= 1 << (int)s_round;
  }
  printf("%-10s MS2=%d  %lld exact eigenvectors: worst |<S^2> - s(s+1)| %.1e\n", name, F->ms2, (long long)n, worst);
  free(H); free(e); free(x); free(v);
  cis_ci_direct_free(D);
}

/* Blocked by irreps: every non-empty ISYM at MS2 = 0, 1, 2, a random compact
 * vector against the reference on its C1 expansion. */
static void check_compact(const char *file) {
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(file, &F));
  if (!F) return;
  const int nelec = F->nelec;
  int blocks = 0;
  for (int ms2 = 0; ms2 <= 2; ++ms2) {
    F->ms2 = ms2;
    F->nelec = nelec - (ms2 & 1);
    for (int t = 1; t <= 8; ++t) {
      F->isym = t;
      cis_ci_direct *D = NULL;
      if (cis_ci_direct_create(F, NULL, &D) != CIS_OK) { cis_clear_error(); continue; } /* an empty irrep */
      const cis_int n = cis_ci_direct_size(D), nc = ci_direct_compact_size(D);
      double *cc = malloc((size_t)nc * sizeof(double)), *c = malloc((size_t)n * sizeof(double));
      test_fill_random(cc, CIS_F64, nc, 40 + t);
      ci_direct_expand(D, cc, c);
      double s2 = NAN, s2_c1 = NAN, d = NAN, o = NAN;
      CHECK_OK(ci_s2_direct_compact(F, D, cc, &s2));
      CHECK_OK(ci_s2_direct(F, D, c, &s2_c1));
      s2_reference(F, D, c, &d, &o);
      CHECK(nc < n && fabs(s2 - (d + o)) <= 1e-12 * fmax(1.0, fabs(d + o)) && fabs(o) > 1e-6 &&
                fabs(s2_c1 - s2) <= 1e-12 * fmax(1.0, fabs(s2)),
            "%s MS2 %d ISYM %d: compact <S^2> %.15f, C1 %.15f, reference %.15f (off-diagonal %.3e; %lld of %lld "
            "determinants)", file, ms2, t, s2, s2_c1, d + o, o, (long long)nc, (long long)n);
      blocks++;
      free(cc); free(c);
      cis_ci_direct_free(D);
    }
  }
  CHECK(blocks >= 16, "%s: %d non-empty blocks checked", file, blocks);
  printf("%s: %d blocks, compact <S^2> = reference\n", file, blocks);
  F->ms2 = 0;
  F->nelec = nelec;
  cis_fcidump_free(F);
}

/* N2 in D2h, Ag, compact: the lowest roots by Davidson are pure spin states,
 * a singlet ground state at MS2 = 0; at MS2 = 2 no singlet, and its lowest
 * root is the lowest MS2 = 0 root of spin >= 1 (one multiplet, two Ms). */
static void check_compact_roots(const char *file) {
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(file, &F));
  if (!F) return;
  double e_high = NAN; /* lowest MS2 = 0 root of spin >= 1 */
  for (int ms2 = 0; ms2 <= 2; ms2 += 2) {
    F->ms2 = ms2;
    F->isym = 1;
    cis_ci_direct_opts opt = ci_direct_opts_default();
    opt.no_time_reversal = 1; /* roots of either parity */
    cis_ci_direct *D = NULL;
    cis_operator *H = NULL;
    CHECK_OK(cis_ci_direct_create(F, &opt, &D));
    if (D) CHECK_OK(ci_direct_compact_operator(D, &H));
    if (!H) { cis_ci_direct_free(D); continue; }
    enum { K = 4 };
    const cis_int nc = ci_direct_compact_size(D);
    double e[K], *v = malloc((size_t)nc * K * sizeof(double));
    cis_davidson_opts o = cis_davidson_opts_default();
    o.roots = K;
    o.tol = 1e-9;
    o.max_iter = 400;
    CHECK_OK(cis_davidson_operator(H, cis_operator_diagonal(H), &o, e, v, NULL));
    for (int r = 0; r < K; ++r) {
      double s2 = NAN;
      CHECK_OK(ci_s2_direct_compact(F, D, v + (size_t)r * nc, &s2));
      const double s = cis_ci_spin_from_s2(s2), s_round = floor(2 * s + 0.5) / 2;
      CHECK(fabs(s2 - s_round * (s_round + 1)) <= 1e-9 && s_round >= ms2 / 2 && (r > 0 || ms2 > 0 || s_round == 0),
            "%s MS2=%d root %d: <S^2> %.15f", file, ms2, r, s2);
      if (ms2 == 0 && s_round >= 1 && isnan(e_high)) e_high = e[r];
      printf("%s MS2=%d Ag root %d: E %.10f  <S^2> %.12f\n", file, ms2, r, e[r] + F->ecore, s2);
    }
    if (ms2 == 2)
      CHECK(fabs(e[0] - e_high) <= 1e-7, "%s: MS2=2 lowest root %.10f, MS2=0 lowest of spin >= 1 %.10f", file, e[0],
            e_high);
    free(v);
    cis_operator_free(H);
    cis_ci_direct_free(D);
  }
  cis_fcidump_free(F);
}

static void check_refusals(cis_fcidump *F) {
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (!D) return;
  const cis_int n = cis_ci_direct_size(D);
  double *z = calloc((size_t)n, sizeof(double)), s2 = NAN;
  CHECK(ci_s2_direct(F, D, z, &s2) == CIS_ERR_INVALID && strstr(cis_last_error(), "zero vector"),
        "zero vector refused: %s", cis_last_error());
  CHECK(ci_s2_direct_compact(F, D, z, &s2) == CIS_ERR_INVALID, "zero compact vector refused");
  CHECK(ci_s2_direct(F, NULL, z, &s2) == CIS_ERR_INVALID, "NULL space refused");
  CHECK(ci_s2_direct(F, D, NULL, &s2) == CIS_ERR_INVALID, "NULL vector refused");
  CHECK(ci_s2_direct_compact(NULL, D, z, &s2) == CIS_ERR_INVALID, "NULL FCIDUMP refused");
  CHECK(ci_s2_direct_compact(F, D, z, NULL) == CIS_ERR_INVALID, "NULL result refused");
  F->ms2 += 2; /* the same integrals, another MS2: D is not its space */
  CHECK(ci_s2_direct(F, D, z, &s2) == CIS_ERR_INVALID && strstr(cis_last_error(), "does not match"),
        "a direct space of another MS2 refused: %s", cis_last_error());
  CHECK(ci_s2_direct_compact(F, D, z, &s2) == CIS_ERR_INVALID, "compact: another MS2 refused");
  F->ms2 -= 2;
  cis_clear_error();
  free(z);
  cis_ci_direct_free(D);
}

/* The benchmark: new and reference <S^2> of one random vector of file's
 * space, timed; compact too when the file has symmetry. */
static int time_file(const char *file) {
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(file, &F));
  if (!F) return test_summary("test_ci_s2_direct");
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (D) {
    const cis_int n = cis_ci_direct_size(D), nc = ci_direct_compact_size(D);
    double *cc = malloc((size_t)nc * sizeof(double)), *c = malloc((size_t)n * sizeof(double));
    test_fill_random(cc, CIS_F64, nc, 7);
    ci_direct_expand(D, cc, c);
    double s2 = NAN, s2c = NAN, d = NAN, o = NAN;
    double t0 = cis_wtime();
    CHECK_OK(ci_s2_direct(F, D, c, &s2));
    double t1 = cis_wtime();
    if (nc < n) CHECK_OK(ci_s2_direct_compact(F, D, cc, &s2c));
    double t2 = cis_wtime();
    s2_reference(F, D, c, &d, &o);
    double t3 = cis_wtime();
    CHECK(fabs(s2 - (d + o)) <= 1e-12 * fmax(1.0, fabs(d + o)), "<S^2> %.15f, reference %.15f", s2, d + o);
    CHECK(nc == n || fabs(s2c - s2) <= 1e-12 * fmax(1.0, fabs(s2)), "compact <S^2> %.15f, C1 %.15f", s2c, s2);
    printf("%s: %lld determinants (%lld compact)  <S^2> %.12f  C1 %.3f s", file, (long long)n, (long long)nc, s2,
           t1 - t0);
    if (nc < n) printf("  compact %.3f s", t2 - t1);
    printf("  reference (C1) %.3f s  speed-up %.1fx\n", t3 - t2, (t3 - t2) / (t1 - t0));
    free(cc); free(c);
  }
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
  return test_summary("test_ci_s2_direct");
}

int main(int argc, char **argv) {
  if (argc > 1) return time_file(argv[1]);
  static const char *mol[] = {"h4_sto3g", "lih_sto3g", "h2o_sto3g", "beh2_sto3g", "n2_sto3g"};
  for (size_t m = 0; m < sizeof mol / sizeof mol[0]; ++m) {
    cis_fcidump *F = NULL;
    cis_ci_space *ref = NULL; /* the reference determinant alone (unused) */
    CHECK_OK(test_ci_load(mol[m], 0, &F, &ref));
    cis_ci_space_free(ref);
    if (!F) continue;
    check_file_random(mol[m], F, 2);
    if (m == 0) {
      F->ms2 = 4; /* all four electrons alpha */
      cis_ci_direct *D = NULL;
      CHECK_OK(cis_ci_direct_create(F, NULL, &D));
      double one = 1, s2 = NAN;
      if (D) CHECK_OK(ci_s2_direct(F, D, &one, &s2));
      CHECK(s2 == 6.0, "h4 MS2=4: <S^2> %.15f, not 6", s2);
      cis_ci_direct_free(D);
      F->ms2 = 0;
      check_refusals(F);
    }
    if (m <= 1) {
      int seen = 0;
      check_eigenvectors(mol[m], F, &seen);
      CHECK((seen & 3) == 3, "%s MS2=0: singlets and triplets among the exact roots (spins seen 0x%x)", mol[m], seen);
      F->ms2 = 2;
      seen = 0;
      check_eigenvectors(mol[m], F, &seen);
      CHECK(seen & 2 && !(seen & 1), "%s MS2=2: triplets, no singlet among the exact roots (0x%x)", mol[m], seen);
    }
    cis_fcidump_free(F);
  }
  static const char *local[][2] = {{"o2_sto3g", "/ci/o2_sto3g_triplet_pyscf.FCIDUMP"},
                                   {"c2h4_cas8", "/ci/c2h4_ccpvdz_cas8.FCIDUMP"}};
  for (size_t m = 0; m < 2; ++m) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", CIS_TEST_DATA, local[m][1]);
    cis_fcidump *F = NULL;
    CHECK_OK(cis_fcidump_read(path, &F));
    if (!F) continue;
    F->isym = 1;
    check_file_random(local[m][0], F, m == 0 ? 4 : 2);
    cis_fcidump_free(F);
  }
  check_compact(CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP");
  check_compact(CIS_TEST_DATA "/ci/c2_sto3g_d2h_pyscf.FCIDUMP");
  check_compact_roots(CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP");
  return test_summary("test_ci_s2_direct");
}
