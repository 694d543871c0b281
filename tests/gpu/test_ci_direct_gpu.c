/* test_ci_direct_gpu.c: the direct CI sigma on the GPU (src/ci/gpu/ci_sigma*)
 * against the CPU direct sigma (src/ci/sigma.c, itself tested against the
 * stored Hamiltonian in tests/unit/test_ci_direct.c):
 *  - random vectors (not time-reversal symmetric: the CPU takes its full
 *    path), device output poisoned with NaN, max |GPU - CPU| <= 1e-12 max |CPU|
 *    (NaN never passes), for: FCI in C1 (MS2 = 0, 1, 2 on the same integrals),
 *    point-group symmetry by projection (N2 D2h, every ISYM tried), a CAS(8,8)
 *    active space of C2H4, an open-shell triplet (O2, MS2 = 2); k = 1 and
 *    k = 3 in one pass and in several; the default workspace (one block) and
 *    one of a few alpha strings (many blocks, forced through work_bytes);
 *  - the operator's alpha/beta form on device vectors;
 *  - Davidson with every vector on the device = reference energies to 1e-9
 *    (H2O STO-3G, N2 STO-3G, H2O 6-31G 1.66 M determinants, N2 D2h Ag =
 *    PySCF -107.6541224475, C2H4 CAS(8,8) = PySCF CASCI -78.0609848383);
 *  - a refusal with the numbers when the caller's vectors leave no room;
 *  - new integrals (cis_ci_direct_set_integrals + _gpu_set_integrals, C1 and
 *    blocked by irreps) on a kept G = the CPU sigma of a D made from them;
 *  - the fused gather + product (option sigma = fused, ci_sigma_fused.cu):
 *    the comparisons above again with the kernel checked to be the fused one
 *    (npair 28, 55, 36 and 91: not multiples of 8; k = 1 and 3; MS2 = 0
 *    half sigma, MS2 = 1 and 2; many blocks; projection on), the fused
 *    sigma against the unfused one on the same vector (round-off apart:
 *    printed) and against itself (bitwise: deterministic), and Davidson;
 *  - the half sigma's scatter over the reached pairs only
 *    (option half_scatter, ci_sigma_dev.c): with passes of 3 and 2 alpha
 *    strings, on (anti)symmetric vectors, sigma equal bit for bit to the
 *    every-pair scatter's and to the CPU's to 1e-12, the reached passes
 *    counted (auto takes them where a pass reaches under half the strings);
 *    compare_all again with it forced on every pass that may (projection
 *    included: the last pass keeps its mask); a bad value refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_davidson_support.h"
#include "test_util.h"
#include "ci/ci_internal.h"
#include "operators/operator_internal.h"

/* The prefix info.sigma_kernel must have (NULL: any), set with option sigma. */
static const char *want_kernel;

static cis_status upload_new(double **d, const double *h, cis_int n) {
  cis_status st = cis_gpu_malloc((void **)d, (size_t)n * sizeof(double));
  if (st != CIS_OK) return st;
  return h ? cis_gpu_upload(*d, h, (size_t)n * sizeof(double)) : CIS_OK;
}

/* The ns x ns vector c made exactly symmetric (parity 1) or antisymmetric
 * (-1, zero diagonal) from its lower triangle. */
static void make_parity(double *c, cis_int ns, int parity) {
  for (cis_int A = 0; A < ns; ++A)
    for (cis_int B = 0; B <= A; ++B) c[B * ns + A] = B == A && parity < 0 ? (c[A * ns + A] = 0.0) : parity * c[A * ns + B];
}

/* GPU sigma vs CPU sigma for k vectors with opts o; returns the relative
 * error. parity +-1 (k = 1, MS2 = 0): an exactly (anti)symmetric vector, so
 * that the GPU takes the half sigma (checked: counted, output exactly
 * (anti)symmetric); parity +-2: the same one ulp off (Davidson's round-off),
 * where the half sigma of the pure part must still be taken. */
static double compare_parity(const char *name, cis_ci_direct *D, const cis_ci_direct_gpu_opts *o, int k, int par2) {
  const int parity = par2 > 0 ? 1 : par2 < 0 ? -1 : 0, ulp = par2 == 2 || par2 == -2;
  cis_ci_direct_gpu *G = NULL;
  double *dc = NULL, *ds = NULL, err = NAN;
  const cis_int n = cis_ci_direct_size(D);
  double *c = malloc((size_t)(n * k) * sizeof(double)), *s = malloc((size_t)(n * k) * sizeof(double));
  double *g = malloc((size_t)(n * k) * sizeof(double));
  CHECK_OK(cis_ci_direct_gpu_create(D, o, &G));
  if (!G || !c || !s || !g) goto done;
  test_fill_random(c, CIS_F64, n * k, 1234 + (unsigned)k);
  cis_ci_direct_info di;
  ci_direct_get_info(D, &di);
  const cis_int ns = di.alpha_strings;
  if (parity) make_parity(c, ns, parity);
  if (ulp && ns > 1) c[1] = nextafter(c[1], 2.0);
  CHECK_OK(cis_ci_direct_sigma(D, k, c, s));
  CHECK_OK(upload_new(&dc, c, n * k));
  CHECK_OK(upload_new(&ds, NULL, n * k));
  if (!dc || !ds) goto done;
  CHECK_OK(bench_fill_nan(ds, CIS_F64, n * k));
  CHECK_OK(cis_ci_direct_gpu_sigma(G, k, dc, ds, NULL));
  CHECK_OK(cis_gpu_sync());
  test_fill_nan(g, CIS_F64, n * k);
  CHECK_OK(cis_gpu_download(g, ds, (size_t)(n * k) * sizeof(double)));
  double worst = 0, smax = 0;
  for (cis_int i = 0; i < n * k; ++i) {
    smax = fabs(s[i]) > smax ? fabs(s[i]) : smax;
    double d = fabs(g[i] - s[i]);
    if (!(d <= worst)) worst = d; /* NaN sticks */
  }
  err = smax > 0 ? worst / smax : worst;
  cis_ci_direct_gpu_info info;
  ci_direct_gpu_get_info(G, &info);
  CHECK(!want_kernel || !strncmp(info.sigma_kernel, want_kernel, strlen(want_kernel)), "%s: kernels \"%s\", want %s", name,
        info.sigma_kernel, want_kernel);
  CHECK(err <= 1e-12, "%s k=%d parity %d block %lld: GPU vs CPU sigma rel diff %.3e", name, k, parity,
        (long long)info.block, err);
  if (parity) {
    int asym = 0;
    for (cis_int A = 0; A < ns; ++A)
      for (cis_int B = 0; B <= A; ++B) asym += !(g[A * ns + B] == parity * g[B * ns + A]);
    CHECK(info.half_sigmas == 1 && asym == 0, "%s parity %d: %lld half sigmas, %d elements not (anti)symmetric", name,
          par2, (long long)info.half_sigmas, asym);
  }
  printf("%-14s k=%d %s %9lld dets  block %6lld rows (%lld passes)  %.7s  GPU vs CPU %.2e\n", name, k,
         parity > 0 ? (ulp ? "sym~" : "sym ") : parity < 0 ? (ulp ? "ant~" : "anti") : "    ", (long long)n, (long long)info.block, (long long)info.passes,
         info.sigma_kernel, err);
done:
  cis_gpu_free(dc);
  cis_gpu_free(ds);
  cis_ci_direct_gpu_free(G);
  free(c); free(s); free(g);
  return err;
}

/* cis_ci_direct_gpu_correct: a vector 1e-8 off antisymmetric made exactly
 * so on the device, equal to the CPU's ci_direct_time_reversal of it; a
 * random (mixed) vector left unchanged. */
static void test_correct(const char *name, cis_ci_direct *D) {
  cis_ci_direct_gpu *G = NULL;
  double *dc = NULL;
  cis_ci_direct_info di;
  ci_direct_get_info(D, &di);
  const cis_int n = cis_ci_direct_size(D), ns = di.alpha_strings;
  double *c = malloc((size_t)n * sizeof(double)), *h = malloc((size_t)n * sizeof(double));
  double *g = malloc((size_t)n * sizeof(double));
  cis_ci_direct_gpu_opts o = ci_direct_gpu_opts_default();
  CHECK_OK(cis_ci_direct_gpu_create(D, &o, &G));
  if (!G || !c || !h || !g) goto done;
  for (int mixed = 0; mixed < 2; ++mixed) {
    test_fill_random(c, CIS_F64, n, 77 + (unsigned)mixed);
    if (!mixed)
      for (cis_int A = 0; A < ns; ++A)
        for (cis_int B = 0; B <= A; ++B) c[B * ns + A] = B == A ? (c[A * ns + A] = 0.0) : -c[A * ns + B];
    test_fill_random(h, CIS_F64, n, 5);
    for (cis_int i = 0; i < n; ++i) c[i] += 1e-8 * h[i];
    memcpy(h, c, (size_t)n * sizeof(double));
    const int t = ci_direct_time_reversal(D, h); /* the CPU reference */
    CHECK(t == (mixed ? 0 : -1), "%s: CPU time reversal %d", name, t);
    CHECK_OK(upload_new(&dc, c, n));
    if (!dc) goto done;
    CHECK_OK(cis_ci_direct_gpu_correct(G, dc, NULL));
    CHECK_OK(cis_gpu_sync());
    test_fill_nan(g, CIS_F64, n);
    CHECK_OK(cis_gpu_download(g, dc, (size_t)n * sizeof(double)));
    int bad = 0, asym = 0;
    for (cis_int i = 0; i < n; ++i) bad += !(g[i] == h[i]);
    for (cis_int A = 0; A < ns && !mixed; ++A)
      for (cis_int B = 0; B <= A; ++B) asym += !(g[A * ns + B] == -g[B * ns + A]);
    CHECK(bad == 0 && asym == 0, "%s %s: GPU correct vs CPU: %d differ, %d not antisymmetric", name,
          mixed ? "mixed" : "near-antisymmetric", bad, asym);
    cis_gpu_free(dc);
    dc = NULL;
  }
  printf("%-14s cis_ci_direct_gpu_correct: equal to the CPU's time reversal\n", name);
done:
  cis_gpu_free(dc);
  cis_ci_direct_gpu_free(G);
  free(c); free(h); free(g);
}

static double compare_once(const char *name, cis_ci_direct *D, const cis_ci_direct_gpu_opts *o, int k) {
  return compare_parity(name, D, o, k, 0);
}

/* One-block and few-string-block workspaces, k = 1 and 3; with one string
 * set also the half sigma on symmetric and antisymmetric vectors. */
static void compare_all_opts(const char *name, const cis_fcidump *F, const cis_ci_direct_opts *dopt) {
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_ci_direct_create(F, dopt, &D));
  if (!D) return;
  cis_ci_direct_info di;
  ci_direct_get_info(D, &di);
  cis_ci_direct_gpu_opts o = ci_direct_gpu_opts_default();
  compare_once(name, D, &o, 1);
  o.max_k = 3; /* three vectors in one pass (or as many passes as the memory says) */
  compare_once(name, D, &o, 3);
  /* 3 alpha strings per pass: many blocks (and the k = 3 vectors one at a time) */
  o.work_bytes = 3 * 2 * 8 * (int64_t)di.npair * di.beta_strings;
  compare_once(name, D, &o, 1);
  compare_once(name, D, &o, 3);
  o.max_k = 2; /* 2 vectors of all strings or a block: k = 3 in two passes */
  o.work_bytes = 2 * 2 * 8 * (int64_t)di.npair * di.beta_strings * di.alpha_strings;
  compare_once(name, D, &o, 3);
  if (cis_fcidump_nalpha(F) == cis_fcidump_nbeta(F))
    for (int parity = -1; parity <= 1; parity += 2) {
      o = ci_direct_gpu_opts_default();
      compare_parity(name, D, &o, 1, parity);
      compare_parity(name, D, &o, 1, 2 * parity);
      o.work_bytes = 3 * 2 * 8 * (int64_t)di.npair * di.beta_strings; /* 3 rows of columns: many half blocks */
      compare_parity(name, D, &o, 1, parity);
    }
  if (cis_fcidump_nalpha(F) == cis_fcidump_nbeta(F)) test_correct(name, D);
  cis_ci_direct_free(D);
}

static void compare_all(const char *name, const cis_fcidump *F) { compare_all_opts(name, F, NULL); }

/* Ground-state energy with Davidson on the device (P-space guess). */
static double gpu_energy(const char *name, cis_fcidump *F) {
  cis_ci_direct *D = NULL;
  cis_ci_direct_gpu *G = NULL;
  cis_operator *op = NULL;
  double e = NAN, *diag = NULL, *guess = NULL;
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (!D) return e;
  const cis_int n = cis_ci_direct_size(D);
  const int nvec = 1; /* one guess per root, as the CLI on the GPU: exactly symmetric after
                      * ci_direct_time_reversal (with 4, the later P-space vectors can be
                      * near neither parity and Davidson's vectors then lose it: measured) */
  diag = malloc((size_t)n * sizeof(double));
  guess = malloc((size_t)n * nvec * sizeof(double));
  CHECK_OK(ci_direct_diagonal(D, diag));
  CHECK_OK(ci_pspace_guess_direct(F, D, diag, 0, nvec, guess, NULL, NULL));
  for (int v = 0; v < nvec; ++v) ci_direct_time_reversal(D, guess + (size_t)v * (size_t)n);
  cis_ci_direct_gpu_opts go = ci_direct_gpu_opts_default();
  go.vectors = 60;
  CHECK_OK(cis_ci_direct_gpu_create(D, &go, &G));
  if (G) CHECK_OK(ci_direct_gpu_operator(G, diag, &op));
  if (!op) goto done;
  CHECK(operator_memspace(op) == CIS_MEM_DEVICE, "%s: device operator", name);
  { /* y = 2 H x - 0.5 y on the device */
    double *x = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
    double *hx = malloc((size_t)n * sizeof(double)), *r = malloc((size_t)n * sizeof(double));
    double *dx = NULL, *dy = NULL;
    test_fill_random(x, CIS_F64, n, 5);
    test_fill_random(y, CIS_F64, n, 6);
    CHECK_OK(upload_new(&dx, x, n));
    CHECK_OK(upload_new(&dy, y, n));
    CHECK_OK(cis_operator_apply(op, 2.0, dx, -0.5, dy, NULL));
    CHECK_OK(cis_gpu_sync());
    test_fill_nan(r, CIS_F64, n);
    CHECK_OK(cis_gpu_download(r, dy, (size_t)n * sizeof(double)));
    CHECK_OK(cis_ci_direct_sigma(D, 1, x, hx));
    double worst = 0, m = 0;
    for (cis_int i = 0; i < n; ++i) {
      double z = 2.0 * hx[i] - 0.5 * y[i], d = fabs(r[i] - z);
      m = fabs(z) > m ? fabs(z) : m;
      if (!(d <= worst)) worst = d;
    }
    CHECK(worst <= 1e-12 * m, "%s: operator alpha/beta form %.3e", name, worst / m);
    cis_gpu_free(dx);
    cis_gpu_free(dy);
    free(x); free(y); free(hx); free(r);
  }
  cis_davidson_opts o = cis_davidson_opts_default();
  o.tol = 1e-9;
  o.guess = guess;
  o.nguess = nvec;
  cis_davidson_info info;
  double ev = NAN;
  CHECK_OK(cis_davidson_operator(op, diag, &o, &ev, NULL, &info));
  e = ev + F->ecore;
  cis_ci_direct_gpu_info gi;
  ci_direct_gpu_get_info(G, &gi);
  printf("%-14s Davidson on the GPU: %.10f  %d iterations  %.3f ms per sigma, %lld of %lld by the half sigma\n", name,
         e, info.iterations, info.products ? 1e3 * info.op_seconds / (double)info.products : 0.0,
         (long long)gi.half_sigmas, (long long)gi.sigma_vectors);
  if (F->ms2 == 0 && F->isym == 1) /* closed-shell guess: all but the operator check's product are half sigmas */
    CHECK(gi.half_sigmas + 2 >= gi.sigma_vectors && gi.half_sigmas > 0, "%s: %lld of %lld half sigmas", name,
          (long long)gi.half_sigmas, (long long)gi.sigma_vectors);
done:
  cis_operator_free(op);
  cis_ci_direct_gpu_free(G);
  cis_ci_direct_free(D);
  free(diag); free(guess);
  return e;
}

static void test_refusal(const cis_fcidump *F) {
  cis_ci_direct *D = NULL;
  cis_ci_direct_gpu *G = NULL;
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (!D) return;
  cis_ci_direct_gpu_opts o = ci_direct_gpu_opts_default();
  o.vectors = 1000000; /* a million determinant-length vectors set aside: nothing left */
  cis_status st = cis_ci_direct_gpu_create(D, &o, &G);
  const char *msg = cis_last_error();
  CHECK(st == CIS_ERR_TOO_LARGE && !G, "refusal: status %d", (int)st);
  CHECK(msg && strstr(msg, "GiB") && strstr(msg, "determinants"), "refusal message: %s", msg ? msg : "(none)");
  printf("refused: %s\n", msg ? msg : "");
  o.vectors = -1;
  CHECK(cis_ci_direct_gpu_create(D, &o, &G) == CIS_ERR_INVALID && !G, "negative option refused");
  cis_ci_direct_gpu_free(G);
  cis_ci_direct_free(D);
}

/* G made for F's integrals, used, then given F2's (h1 x 0.97, eri x 1.03)
 * through its host D: the device sigma equals the CPU sigma of a D made
 * from F2 (to 1e-12), and differs from the sigma before. */
static void test_set_integrals(const char *file) {
  cis_fcidump *F = NULL, *F2 = NULL;
  cis_ci_direct *D = NULL, *D2 = NULL;
  cis_ci_direct_gpu *G = NULL;
  double *c = NULL, *s = NULL, *g0 = NULL, *g1 = NULL, *dc = NULL, *ds = NULL;
  CHECK_OK(cis_fcidump_read(file, &F));
  CHECK_OK(cis_fcidump_read(file, &F2));
  if (!F || !F2) goto done;
  test_scale_integrals(F2, 0.97, 1.03);
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  CHECK_OK(cis_ci_direct_create(F2, NULL, &D2));
  if (!D || !D2) goto done;
  CHECK_OK(cis_ci_direct_gpu_create(D, NULL, &G));
  const cis_int n = cis_ci_direct_size(D);
  c = malloc((size_t)n * sizeof *c), s = malloc((size_t)n * sizeof *c);
  g0 = malloc((size_t)n * sizeof *c), g1 = malloc((size_t)n * sizeof *c);
  if (!G || !c || !s || !g0 || !g1) goto done;
  test_fill_random(c, CIS_F64, n, 99);
  CHECK_OK(upload_new(&dc, c, n));
  CHECK_OK(upload_new(&ds, NULL, n));
  if (!dc || !ds) goto done;
  CHECK_OK(cis_ci_direct_gpu_sigma(G, 1, dc, ds, NULL));
  CHECK_OK(cis_gpu_download(g0, ds, (size_t)n * sizeof *c));
  CHECK_OK(cis_ci_direct_set_integrals(D, F2));
  CHECK_OK(cis_ci_direct_gpu_set_integrals(G));
  CHECK_OK(bench_fill_nan(ds, CIS_F64, n));
  CHECK_OK(cis_ci_direct_gpu_sigma(G, 1, dc, ds, NULL));
  CHECK_OK(cis_gpu_sync());
  test_fill_nan(g1, CIS_F64, n);
  CHECK_OK(cis_gpu_download(g1, ds, (size_t)n * sizeof *c));
  CHECK_OK(cis_ci_direct_sigma(D2, 1, c, s));
  double worst = 0, smax = 0, moved = 0;
  for (cis_int i = 0; i < n; ++i) {
    smax = fabs(s[i]) > smax ? fabs(s[i]) : smax;
    const double d = fabs(g1[i] - s[i]);
    if (!(d <= worst)) worst = d;
    moved = fabs(g0[i] - s[i]) > moved ? fabs(g0[i] - s[i]) : moved;
  }
  CHECK(worst <= 1e-12 * smax, "%s: GPU sigma after set_integrals vs CPU of new integrals: %.3e of %.3e", file, worst,
        smax);
  CHECK(moved > 1e-3 * smax, "%s: the sigma before new integrals already equals it", file);
  CHECK(cis_ci_direct_gpu_set_integrals(NULL) == CIS_ERR_INVALID, "NULL G accepted");
  printf("%-40s set_integrals on a kept G: GPU vs CPU %.2e\n", file, smax > 0 ? worst / smax : worst);
done:
  cis_gpu_free(dc);
  cis_gpu_free(ds);
  cis_ci_direct_gpu_free(G);
  cis_ci_direct_free(D);
  cis_ci_direct_free(D2);
  cis_fcidump_free(F);
  cis_fcidump_free(F2);
  free(c), free(s), free(g0), free(g1);
}

/* The sigma of c (n) with the environment's var = mode (left set) and opts
 * o (NULL: the defaults) into out (NaN-poisoned before); G's info into
 * *info when not NULL (half_sigmas -1 when G was not made). */
static void sigma_with_env(const char *var, const char *mode, cis_ci_direct *D, const cis_ci_direct_gpu_opts *o,
                           const double *c, double *out, cis_ci_direct_gpu_info *info) {
  cis_ci_direct_gpu *G = NULL;
  double *dc = NULL, *ds = NULL;
  const cis_int n = cis_ci_direct_size(D);
  CHECK_OK(cis_option_set(var, mode));
  CHECK_OK(cis_ci_direct_gpu_create(D, o, &G));
  CHECK_OK(upload_new(&dc, c, n));
  CHECK_OK(upload_new(&ds, NULL, n));
  test_fill_nan(out, CIS_F64, n);
  if (info) info->half_sigmas = -1;
  if (G && dc && ds) {
    CHECK_OK(bench_fill_nan(ds, CIS_F64, n));
    CHECK_OK(cis_ci_direct_gpu_sigma(G, 1, dc, ds, NULL));
    CHECK_OK(cis_gpu_download(out, ds, (size_t)n * sizeof(double)));
    if (info) ci_direct_gpu_get_info(G, info);
  }
  cis_gpu_free(dc);
  cis_gpu_free(ds);
  cis_ci_direct_gpu_free(G);
}

/* The sigma of the random vector c (n) with option sigma = mode into out. */
static void sigma_with(const char *mode, cis_ci_direct *D, const double *c, double *out) {
  sigma_with_env("sigma", mode, D, NULL, c, out, NULL);
}

/* Fused vs unfused on one random vector: equal to round-off (the order of
 * the product's sums; the difference printed), the fused one bitwise
 * reproducible. Leaves option sigma = fused. */
static void fused_vs_unfused(const char *name, const cis_fcidump *F) {
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (!D) return;
  const cis_int n = cis_ci_direct_size(D);
  double *c = malloc((size_t)n * sizeof *c), *u = malloc((size_t)n * sizeof *c);
  double *f = malloc((size_t)n * sizeof *c), *f2 = malloc((size_t)n * sizeof *c);
  if (c && u && f && f2) {
    test_fill_random(c, CIS_F64, n, 4242);
    sigma_with("unfused", D, c, u);
    sigma_with("fused", D, c, f);
    sigma_with("fused", D, c, f2);
    double worst = 0, smax = 0;
    int differ = 0;
    for (cis_int i = 0; i < n; ++i) {
      smax = fabs(u[i]) > smax ? fabs(u[i]) : smax;
      const double d = fabs(f[i] - u[i]);
      if (!(d <= worst)) worst = d;
      differ += memcmp(&f[i], &f2[i], sizeof *f) != 0;
    }
    CHECK(worst <= 1e-12 * smax, "%s: fused vs unfused sigma %.3e of %.3e", name, worst, smax);
    CHECK(differ == 0, "%s: two fused sigmas of one vector differ in %d elements", name, differ);
    printf("%-14s fused vs unfused sigma: max |diff| / max |sigma| = %.2e; fused bitwise reproducible\n", name,
           smax > 0 ? worst / smax : worst);
  }
  free(c), free(u), free(f), free(f2);
  cis_ci_direct_free(D);
}

/* option = value, a bad value: refused by name when set (cis_option_set),
 * the option left as it was, so the GPU sigma of H2O STO-3G is still made. */
static void check_bad_env(const char *var, const char *value) {
  char path[512];
  cis_fcidump *F = NULL;
  cis_ci_direct *D = NULL;
  cis_ci_direct_gpu *G = NULL;
  const cis_status st = cis_option_set(var, value);
  const char *msg = cis_last_error();
  CHECK(st == CIS_ERR_INVALID && msg && strstr(msg, var) && strstr(msg, value), "bad %s: status %d, %s", var,
        (int)st, msg ? msg : "(none)");
  CHECK(cis_option_get(var) == NULL, "bad %s: the option changed", var);
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, "ci/h2o_sto3g.FCIDUMP"), &F));
  if (F) CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (D) CHECK_OK(cis_ci_direct_gpu_create(D, NULL, &G));
  cis_ci_direct_gpu_free(G);
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
}

/* The half sigma of the exactly (anti)symmetric c with
 * option half_scatter = mode and o into out (NaN-poisoned before); its
 * reached passes into *reached. */
static void half_sigma_with(const char *mode, cis_ci_direct *D, const cis_ci_direct_gpu_opts *o, const double *c,
                            double *out, cis_int *reached) {
  cis_ci_direct_gpu_info info;
  sigma_with_env("half_scatter", mode, D, o, c, out, &info);
  cis_option_set("half_scatter", NULL);
  CHECK(info.half_sigmas == 1, "%s: half sigma not taken (%lld)", mode, (long long)info.half_sigmas);
  *reached = info.half_sigmas == 1 ? info.reached_passes : -1;
}

/* The reached-pairs scatter against the every-pair one and the CPU, passes
 * of `rows` alpha strings; auto_reaches: whether auto must take it somewhere. */
static void test_half_scatter(const char *name, const cis_fcidump *F, int rows, int auto_reaches) {
  cis_ci_direct *D = NULL;
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (!D) return;
  cis_ci_direct_info di;
  ci_direct_get_info(D, &di);
  const cis_int n = cis_ci_direct_size(D), ns = di.alpha_strings;
  cis_ci_direct_gpu_opts o = ci_direct_gpu_opts_default();
  o.work_bytes = (int64_t)rows * 2 * 8 * di.npair * di.beta_strings; /* packed half columns: passes of ~rows strings */
  double *c = malloc((size_t)n * sizeof *c), *s = malloc((size_t)n * sizeof *c), *g[3];
  static const char *modes[] = {"all", "reached", "auto"};
  for (int i = 0; i < 3; ++i) g[i] = malloc((size_t)n * sizeof *c);
  for (int t = -1; t <= 1 && c && s && g[0] && g[1] && g[2]; t += 2) {
    cis_int reached[3];
    test_fill_random(c, CIS_F64, n, 99 + (unsigned)(t + 1));
    make_parity(c, ns, t);
    CHECK_OK(cis_ci_direct_sigma(D, 1, c, s));
    for (int i = 0; i < 3; ++i) half_sigma_with(modes[i], D, &o, c, g[i], &reached[i]);
    double worst = 0, smax = 0;
    int differ = 0;
    for (cis_int i = 0; i < n; ++i) {
      smax = fabs(s[i]) > smax ? fabs(s[i]) : smax;
      const double d = fabs(g[1][i] - s[i]);
      if (!(d <= worst)) worst = d; /* NaN sticks */
      differ += memcmp(&g[0][i], &g[1][i], sizeof(double)) != 0 || memcmp(&g[0][i], &g[2][i], sizeof(double)) != 0;
    }
    CHECK(worst <= 1e-12 * smax, "%s parity %d: reached half scatter vs CPU %.3e of %.3e", name, t, worst, smax);
    CHECK(differ == 0, "%s parity %d: %d elements differ between the every-pair and the reached scatters", name, t,
          differ);
    /* reached passes when forced, none with all; auto: only the narrow passes (some where told) */
    CHECK(reached[1] > 1 && reached[0] == 0 && reached[2] < reached[1] && (!auto_reaches || reached[2] > 0),
          "%s parity %d: reached passes with all %lld, reached %lld, auto %lld", name, t, (long long)reached[0],
          (long long)reached[1], (long long)reached[2]);
    printf("%-14s half scatter, parity %+d: reached pairs only (%lld passes; auto %lld) = every pair bit for bit, "
           "vs CPU %.2e\n", name, t, (long long)reached[1], (long long)reached[2], smax > 0 ? worst / smax : worst);
  }
  for (int i = 0; i < 3; ++i) free(g[i]);
  free(c), free(s);
  cis_ci_direct_free(D);
}

/* test_half_scatter on a few molecules; compare_all with the reached
 * scatter forced (projection included); a bad option half_scatter. */
static void test_half_scatters(void) {
  char path[512];
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, "ci/h2o_631g.FCIDUMP"), &F));
  if (F) test_half_scatter("h2o_631g", F, 3, 1); /* 1287 strings, 46 links: a pass of 3 reaches at most 138 */
  cis_fcidump_free(F);
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/c2h4_ccpvdz_cas8.FCIDUMP", &F));
  if (F) {
    test_half_scatter("c2h4_cas8", F, 2, 0); /* 70 strings, 21 links: auto keeps every pair but on passes of 1 */
    cis_option_set("half_scatter", "reached");
    compare_all("reach_c2h4", F);
    cis_option_set("half_scatter", NULL);
  }
  cis_fcidump_free(F);
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP", &F));
  if (F) {
    cis_ci_direct_opts dopt = ci_direct_opts_default();
    dopt.symmetry_projection = 1;
    cis_option_set("half_scatter", "reached");
    for (int isym = 1; isym <= 5; isym += 4) {
      F->isym = isym;
      compare_all_opts(isym == 1 ? "reach_n2_proj1" : "reach_n2_proj5", F, &dopt);
    }
    cis_option_set("half_scatter", NULL);
  }
  cis_fcidump_free(F);
  check_bad_env("half_scatter", "some");
}

/* The comparisons of compare_all with the fused kernels (checked by name). */
static void test_fused(void) {
  char path[512];
  cis_fcidump *F = NULL;
  static const char *mol[] = {"h2o_sto3g", "n2_sto3g", "h2o_631g"};
  for (size_t m = 0; m < sizeof mol / sizeof *mol; ++m) {
    char sub[64], name[32];
    snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", mol[m]);
    snprintf(name, sizeof name, "fused_%s", mol[m]);
    CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, sub), &F));
    if (!F) continue;
    fused_vs_unfused(name, F);
    want_kernel = "fused:";
    if (m < 2) {
      compare_all(name, F);
      F->ms2 = 2;
      compare_all(name, F);
      F->ms2 = 1;
      F->nelec -= 1;
      compare_all(name, F);
    } else {
      cis_ci_direct *D = NULL;
      CHECK_OK(cis_ci_direct_create(F, NULL, &D));
      if (D) {
        cis_ci_direct_gpu_opts o = ci_direct_gpu_opts_default();
        compare_once(name, D, &o, 1);
        compare_parity(name, D, &o, 1, 1);
        o.work_bytes = (int64_t)100 << 20; /* a few blocks */
        compare_once(name, D, &o, 1);
        compare_parity(name, D, &o, 1, -2);
        cis_ci_direct_free(D);
      }
      double e = gpu_energy(name, F);
      CHECK(fabs(e - (-76.1208743460)) <= 1e-9, "%s: fused GPU direct FCI %.10f vs reference -76.1208743460", name, e);
    }
    want_kernel = NULL;
    cis_fcidump_free(F);
    F = NULL;
  }
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP", &F));
  if (F) { /* projection: the C1 sigma masked to ISYM */
    cis_ci_direct_opts dopt = ci_direct_opts_default();
    dopt.symmetry_projection = 1;
    want_kernel = "fused:";
    for (int isym = 1; isym <= 5; isym += 4) {
      F->isym = isym;
      compare_all_opts(isym == 1 ? "fused_n2_proj1" : "fused_n2_proj5", F, &dopt);
    }
    want_kernel = NULL;
    cis_fcidump_free(F);
    F = NULL;
  }
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/c2h4_ccpvdz_cas8.FCIDUMP", &F));
  if (F) {
    want_kernel = "fused:";
    compare_all("fused_c2h4", F);
    want_kernel = NULL;
    cis_fcidump_free(F);
  }
  check_bad_env("sigma", "nonsense");
}

int main(void) {
  char why[256] = "", path[512];
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  static const struct { const char *name; double efci; } mol[] = {
      {"h2o_sto3g", -75.0125782412}, {"n2_sto3g", -107.6528287309}, {"h2o_631g", -76.1208743460}};
  for (size_t m = 0; m < sizeof mol / sizeof mol[0]; ++m) {
    char sub[64];
    cis_fcidump *F = NULL;
    snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", mol[m].name);
    CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, sub), &F));
    if (!F) continue;
    const int big = !strcmp(mol[m].name, "h2o_631g");
    if (!big) {
      compare_all(mol[m].name, F);
      F->ms2 = 2; /* same integrals: MS2 = 2 */
      compare_all(mol[m].name, F);
      F->ms2 = 1; /* one electron fewer: MS2 = 1 */
      F->nelec -= 1;
      compare_all(mol[m].name, F);
      F->nelec += 1;
      F->ms2 = 0;
    } else {
      cis_ci_direct *D = NULL;
      CHECK_OK(cis_ci_direct_create(F, NULL, &D));
      if (D) {
        cis_ci_direct_gpu_opts o = ci_direct_gpu_opts_default();
        compare_once(mol[m].name, D, &o, 1);
        o.work_bytes = (int64_t)200 << 20; /* a few blocks */
        compare_once(mol[m].name, D, &o, 1);
        cis_ci_direct_free(D);
      }
      test_refusal(F);
    }
    double e = gpu_energy(mol[m].name, F);
    CHECK(fabs(e - mol[m].efci) <= 1e-9, "%s: GPU direct FCI %.10f vs reference %.10f", mol[m].name, e, mol[m].efci);
    cis_fcidump_free(F);
  }
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP", &F));
  if (F) {
    const int irreps[] = {1, 2, 5, 8};
    for (size_t t = 0; t < sizeof irreps / sizeof irreps[0]; ++t) {
      char name[32];
      F->isym = irreps[t];
      snprintf(name, sizeof name, "n2_d2h_isym%d", F->isym);
      compare_all(name, F);
    }
    F->isym = 1;
    double e = gpu_energy("n2_d2h_ag", F);
    CHECK(fabs(e - (-107.6541224475)) <= 1e-9, "N2 D2h Ag on the GPU: %.10f vs PySCF -107.6541224475", e);
    cis_fcidump_free(F);
  }
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/c2h4_ccpvdz_cas8.FCIDUMP", &F));
  if (F) {
    compare_all("c2h4_cas8", F);
    double e = gpu_energy("c2h4_cas8", F);
    CHECK(fabs(e - (-78.0609848383)) <= 1e-9, "C2H4 CAS(8,8) on the GPU: %.10f vs PySCF CASCI -78.0609848383", e);
    cis_fcidump_free(F);
  }
  test_set_integrals(test_shared_path(path, sizeof path, "ci/n2_sto3g.FCIDUMP"));
  test_set_integrals(CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP");
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/o2_sto3g_triplet_pyscf.FCIDUMP", &F));
  if (F) {
    compare_all("o2_triplet", F);
    cis_fcidump_free(F);
  }
  test_fused();
  test_half_scatters();
  return test_summary("test_ci_direct_gpu");
}
