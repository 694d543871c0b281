/* test_ci_irrep_gpu.c: the GPU direct sigma blocked by irreps on compact
 * device vectors (src/ci/gpu/ci_sigma_irrep*) against the CPU compact sigma
 * (ci_direct_compact_operator = ci_irrep_sigma_compact, itself tested
 * against the stored Hamiltonian in tests/unit/test_ci_direct.c). The shared
 * FCIDUMPs (../shared/ci) are all C1, so the D2h files of tests/data/ci:
 *  - N2 STO-3G D2h (Molpro irrep numbers), C2 STO-3G D2h (PySCF 0-based ids),
 *    O2 STO-3G triplet D2h (MS2 = 2); MS2 = 0 and 2 on the same integrals;
 *    several target irreps each (every nonempty one of N2);
 *  - random compact vectors, device output poisoned with NaN, max |GPU - CPU|
 *    <= 1e-12 max |CPU| (NaN never passes): k = 1, k = 3, MS2 = 0 symmetric
 *    and antisymmetric vectors (the half sigma on both sides: counted, the
 *    GPU output exactly (anti)symmetric), one pass and many passes (a small
 *    work_bytes);
 *  - the C1-order entry point on a blocked D (compress, sigma, expand) equal
 *    to the CPU's C1-order sigma, zeros off the irrep;
 *  - the compact operator's alpha/beta form;
 *  - Davidson on compact device vectors: energy equal to the C1-cost GPU run
 *    (projection) and the CPU compact run to 1e-9, N2 Ag to PySCF's
 *    -107.6541224475. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"
#include "operators/operator_internal.h"

static double *dev_new(const double *h, cis_int n) {
  double *d = NULL;
  if (cis_gpu_malloc((void **)&d, (size_t)(n > 0 ? n : 1) * sizeof(double)) != CIS_OK) return NULL;
  if (h && cis_gpu_upload(d, h, (size_t)n * sizeof(double)) != CIS_OK) {
    cis_gpu_free(d);
    return NULL;
  }
  return d;
}

static double rel_err(const double *g, const double *s, cis_int n) {
  double worst = 0, smax = 0;
  for (cis_int i = 0; i < n; ++i) {
    smax = fabs(s[i]) > smax ? fabs(s[i]) : smax;
    const double d = fabs(g[i] - s[i]);
    if (!(d <= worst)) worst = d; /* NaN sticks */
  }
  return smax > 0 ? worst / smax : worst;
}

/* A C1-order random vector made (anti)symmetric (parity +-1) or left as is. */
static void make_parity(double *c, cis_int ns, int parity) {
  if (!parity) return;
  for (cis_int A = 0; A < ns; ++A)
    for (cis_int B = 0; B <= A; ++B) {
      if (B == A) { if (parity < 0) c[A * ns + A] = 0.0; continue; }
      c[B * ns + A] = parity * c[A * ns + B];
    }
}

/* GPU compact sigma vs the CPU compact operator for k vectors. */
static void compare_compact(const char *name, cis_ci_direct *D, cis_operator *opc, const cis_ci_direct_gpu_opts *o,
                            int k, int parity) {
  cis_ci_direct_gpu *G = NULL;
  const cis_int n = cis_ci_direct_size(D), nc = ci_direct_compact_size(D);
  cis_ci_direct_info di;
  ci_direct_get_info(D, &di);
  double *c = malloc((size_t)n * sizeof(double)), *cc = malloc((size_t)(nc * k) * sizeof(double));
  double *sc = malloc((size_t)(nc * k) * sizeof(double)), *gc = malloc((size_t)(nc * k) * sizeof(double));
  double *dc = NULL, *ds = NULL;
  CHECK_OK(cis_ci_direct_gpu_create(D, o, &G));
  if (!G || !c || !cc || !sc || !gc) goto done;
  for (int v = 0; v < k; ++v) {
    test_fill_random(c, CIS_F64, n, 4321 + 7 * (unsigned)v + 13 * (unsigned)k);
    make_parity(c, di.alpha_strings, parity);
    ci_direct_compress(D, c, cc + (cis_int)v * nc);
  }
  for (int v = 0; v < k; ++v)
    CHECK_OK(cis_operator_apply(opc, 1.0, cc + (cis_int)v * nc, 0.0, sc + (cis_int)v * nc, NULL));
  dc = dev_new(cc, nc * k);
  ds = dev_new(NULL, nc * k);
  if (!dc || !ds) { CHECK(0, "%s: device vectors", name); goto done; }
  CHECK_OK(bench_fill_nan(ds, CIS_F64, nc * k));
  CHECK_OK(ci_direct_gpu_compact_sigma(G, k, dc, ds, NULL));
  CHECK_OK(cis_gpu_sync());
  test_fill_nan(gc, CIS_F64, nc * k);
  CHECK_OK(cis_gpu_download(gc, ds, (size_t)(nc * k) * sizeof(double)));
  const double err = rel_err(gc, sc, nc * k);
  cis_ci_direct_gpu_info gi;
  ci_direct_gpu_get_info(G, &gi);
  CHECK(err <= 1e-12, "%s k=%d parity %d passes %lld: GPU vs CPU compact sigma rel diff %.3e", name, k, parity,
        (long long)gi.passes, err);
  if (parity) { /* exactly (anti)symmetric output, by the half sigma */
    double *full = malloc((size_t)n * sizeof(double));
    int asym = 0;
    const cis_int ns = di.alpha_strings;
    ci_direct_expand(D, gc, full);
    for (cis_int A = 0; A < ns; ++A)
      for (cis_int B = 0; B <= A; ++B) asym += !(full[A * ns + B] == parity * full[B * ns + A]);
    CHECK(gi.half_sigmas == 1 && asym == 0, "%s parity %d: %lld half sigmas, %d elements not (anti)symmetric", name,
          parity, (long long)gi.half_sigmas, asym);
    free(full);
  }
  printf("%-16s k=%d %s %7lld of %8lld dets  %3lld passes (%5lld alpha strings)  GPU vs CPU %.2e\n", name, k,
         parity > 0 ? "sym " : parity < 0 ? "anti" : "    ", (long long)nc, (long long)n, (long long)gi.passes,
         (long long)gi.block, err);
done:
  cis_gpu_free(dc);
  cis_gpu_free(ds);
  cis_ci_direct_gpu_free(G);
  free(c); free(cc); free(sc); free(gc);
}

/* The C1-order entry point and the operator's alpha/beta form on a blocked D. */
static void compare_c1_and_operator(const char *name, cis_ci_direct *D) {
  cis_ci_direct_gpu *G = NULL;
  cis_operator *op = NULL;
  const cis_int n = cis_ci_direct_size(D), nc = ci_direct_compact_size(D);
  double *c = malloc((size_t)n * sizeof(double)), *s = malloc((size_t)n * sizeof(double));
  double *g = malloc((size_t)n * sizeof(double)), *y = malloc((size_t)nc * sizeof(double));
  double *cc = malloc((size_t)nc * sizeof(double)), *hc = malloc((size_t)nc * sizeof(double));
  double *dc = NULL, *ds = NULL, *dy = NULL;
  cis_ci_direct_gpu_opts o = ci_direct_gpu_opts_default();
  CHECK_OK(cis_ci_direct_gpu_create(D, &o, &G));
  if (!G || !c || !s || !g || !y || !cc || !hc) goto done;
  test_fill_random(c, CIS_F64, n, 99); /* off-irrep entries too: both must ignore them */
  CHECK_OK(cis_ci_direct_sigma(D, 1, c, s));
  dc = dev_new(c, n);
  ds = dev_new(NULL, n);
  if (!dc || !ds) goto done;
  CHECK_OK(bench_fill_nan(ds, CIS_F64, n));
  CHECK_OK(cis_ci_direct_gpu_sigma(G, 1, dc, ds, NULL));
  CHECK_OK(cis_gpu_sync());
  test_fill_nan(g, CIS_F64, n);
  CHECK_OK(cis_gpu_download(g, ds, (size_t)n * sizeof(double)));
  const double e1 = rel_err(g, s, n);
  CHECK(e1 <= 1e-12, "%s: C1-order GPU sigma on a blocked D vs CPU %.3e", name, e1);
  /* y = 2 H x - 0.5 y on compact device vectors */
  CHECK_OK(ci_direct_gpu_compact_operator(G, NULL, &op));
  if (!op) goto done;
  CHECK(operator_memspace(op) == CIS_MEM_DEVICE && cis_operator_rows(op) == nc && cis_operator_diagonal(op),
        "%s: compact device operator of %lld rows with a diagonal", name, (long long)nc);
  ci_direct_compress(D, c, cc);
  ci_direct_compress(D, s, hc);
  test_fill_random(y, CIS_F64, nc, 100);
  cis_gpu_free(dc);
  dc = dev_new(cc, nc);
  dy = dev_new(y, nc);
  if (!dc || !dy) goto done;
  CHECK_OK(cis_operator_apply(op, 2.0, dc, -0.5, dy, NULL));
  CHECK_OK(cis_gpu_sync());
  double *r = malloc((size_t)nc * sizeof(double));
  test_fill_nan(r, CIS_F64, nc);
  CHECK_OK(cis_gpu_download(r, dy, (size_t)nc * sizeof(double)));
  for (cis_int i = 0; i < nc; ++i) y[i] = 2.0 * hc[i] - 0.5 * y[i];
  const double e2 = rel_err(r, y, nc);
  CHECK(e2 <= 1e-12, "%s: compact operator alpha/beta form %.3e", name, e2);
  printf("%-16s C1-order entry point %.2e, compact operator 2Hx - y/2 %.2e\n", name, e1, e2);
  free(r);
done:
  cis_operator_free(op);
  cis_gpu_free(dc);
  cis_gpu_free(ds);
  cis_gpu_free(dy);
  cis_ci_direct_gpu_free(G);
  free(c); free(s); free(g); free(y); free(cc); free(hc);
}

/* Every check on one file at its current MS2 and ISYM. */
static void compare_file(const char *name, cis_fcidump *F) {
  cis_ci_direct *D = NULL;
  cis_operator *opc = NULL;
  CHECK_OK(cis_ci_direct_create(F, NULL, &D));
  if (!D) return;
  cis_ci_direct_info di;
  ci_direct_get_info(D, &di);
  CHECK(di.blocked, "%s: blocked by irreps", name);
  CHECK_OK(ci_direct_compact_operator(D, &opc));
  if (!opc) { cis_ci_direct_free(D); return; }
  cis_ci_direct_gpu_opts o = ci_direct_gpu_opts_default();
  compare_compact(name, D, opc, &o, 1, 0);
  compare_compact(name, D, opc, &o, 3, 0);
  cis_ci_direct_gpu_opts small = o;
  small.work_bytes = 16 * 8 * (int64_t)di.npair * di.beta_strings / 4; /* a few alpha strings per pass */
  compare_compact(name, D, opc, &small, 1, 0);
  compare_compact(name, D, opc, &small, 3, 0);
  if (cis_fcidump_nalpha(F) == cis_fcidump_nbeta(F))
    for (int parity = -1; parity <= 1; parity += 2) {
      compare_compact(name, D, opc, &o, 1, parity);
      compare_compact(name, D, opc, &small, 1, parity);
    }
  compare_c1_and_operator(name, D);
  cis_operator_free(opc);
  cis_ci_direct_free(D);
}

/* Ground state by Davidson on the GPU: compact vectors (blocked) or the
 * C1-order projected run (projection = 1), or on the CPU compact vectors. */
static double ground(cis_fcidump *F, int where, int *half, int *products) {
  cis_ci_direct *D = NULL;
  cis_ci_direct_gpu *G = NULL;
  cis_operator *op = NULL;
  double e = NAN, *diag = NULL, *guess = NULL, *gc = NULL;
  cis_ci_direct_opts dopt = ci_direct_opts_default();
  dopt.symmetry_projection = where == 1;
  CHECK_OK(cis_ci_direct_create(F, &dopt, &D));
  if (!D) return e;
  const cis_int n = cis_ci_direct_size(D), nc = ci_direct_compact_size(D);
  diag = malloc((size_t)n * sizeof(double));
  guess = malloc((size_t)n * sizeof(double));
  gc = malloc((size_t)nc * sizeof(double));
  CHECK_OK(ci_direct_diagonal(D, diag));
  CHECK_OK(ci_pspace_guess_direct(F, D, diag, 0, 1, guess, NULL, NULL));
  ci_direct_time_reversal(D, guess);
  ci_direct_compress(D, guess, gc);
  if (where == 2) {
    CHECK_OK(ci_direct_compact_operator(D, &op));
  } else {
    cis_ci_direct_gpu_opts go = ci_direct_gpu_opts_default();
    go.vectors = 60;
    CHECK_OK(cis_ci_direct_gpu_create(D, &go, &G));
    if (G) CHECK_OK(ci_direct_gpu_compact_operator(G, NULL, &op)); /* its compact diagonal */
  }
  if (!op) goto done;
  cis_davidson_opts o = cis_davidson_opts_default();
  o.tol = 1e-9;
  o.guess = gc;
  o.nguess = 1;
  cis_davidson_info info;
  double ev = NAN;
  CHECK_OK(cis_davidson_operator(op, cis_operator_diagonal(op), &o, &ev, NULL, &info));
  e = ev + F->ecore;
  *products = (int)info.products;
  if (G) {
    cis_ci_direct_gpu_info gi;
    ci_direct_gpu_get_info(G, &gi);
    *half = (int)gi.half_sigmas;
  } else {
    *half = -1;
  }
done:
  cis_operator_free(op);
  cis_ci_direct_gpu_free(G);
  cis_ci_direct_free(D);
  free(diag); free(guess); free(gc);
  return e;
}

static void energies(const char *name, cis_fcidump *F, double ref) {
  int h0 = 0, h1 = 0, h2 = 0, p0 = 0, p1 = 0, p2 = 0;
  const double eb = ground(F, 0, &h0, &p0), ep = ground(F, 1, &h1, &p1), ec = ground(F, 2, &h2, &p2);
  CHECK(fabs(eb - ep) <= 1e-9 && fabs(eb - ec) <= 1e-9,
        "%s ISYM %d: GPU compact %.10f, GPU C1-order projected %.10f, CPU compact %.10f", name, F->isym, eb, ep, ec);
  if (!isnan(ref)) CHECK(fabs(eb - ref) <= 1e-9, "%s ISYM %d: GPU compact %.10f vs reference %.10f", name, F->isym, eb, ref);
  if (F->ms2 == 0 && F->isym == 1) CHECK(h0 > 0, "%s: compact Davidson took the half sigma (%d of %d products)", name, h0, p0);
  printf("%-16s ISYM %d MS2 %d  GPU compact %.10f (%d products, %d half)  GPU projected %.10f  CPU compact %.10f\n",
         name, F->isym, F->ms2, eb, p0, h0, ep, ec);
}

int main(void) {
  char why[256] = "";
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  static const struct { const char *file, *name; int isym[4]; } cases[] = {
      {CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP", "n2_d2h", {1, 2, 5, 8}},
      {CIS_TEST_DATA "/ci/c2_sto3g_d2h_pyscf.FCIDUMP", "c2_d2h", {1, 4, 6, 0}},
      {CIS_TEST_DATA "/ci/o2_sto3g_triplet_pyscf.FCIDUMP", "o2_d2h_triplet", {1, 2, 0, 0}}};
  for (size_t f = 0; f < sizeof cases / sizeof cases[0]; ++f) {
    cis_fcidump *F = NULL;
    CHECK_OK(cis_fcidump_read(cases[f].file, &F));
    if (!F) continue;
    const int ms0 = F->ms2, isym0 = F->isym;
    for (int pass = 0; pass < 2; ++pass) {
      F->ms2 = pass == 0 ? ms0 : ms0 == 0 ? 2 : 0; /* the file's MS2, then the other of 0 and 2 */
      for (int t = 0; t < 4 && cases[f].isym[t]; ++t) {
        char name[64];
        F->isym = cases[f].isym[t];
        snprintf(name, sizeof name, "%s_ms%d_i%d", cases[f].name, F->ms2, F->isym);
        cis_ci_direct *probe = NULL;
        if (cis_ci_direct_create(F, NULL, &probe) != CIS_OK) { /* an empty irrep: refused on both sides */
          printf("%-16s empty irrep, skipped\n", name);
          continue;
        }
        cis_ci_direct_free(probe);
        compare_file(name, F);
      }
    }
    F->ms2 = ms0;
    F->isym = isym0;
    cis_fcidump_free(F);
  }
  /* energies: N2 Ag against PySCF; other irreps and MS2 against each other */
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/n2_sto3g_d2h.FCIDUMP", &F));
  if (F) {
    energies("n2_d2h", F, -107.6541224475);
    F->isym = 5;
    energies("n2_d2h", F, NAN);
    F->isym = 1;
    F->ms2 = 2;
    energies("n2_d2h", F, NAN);
    cis_fcidump_free(F);
  }
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/c2_sto3g_d2h_pyscf.FCIDUMP", &F));
  if (F) {
    energies("c2_d2h", F, NAN);
    cis_fcidump_free(F);
  }
  return test_summary("test_ci_irrep_gpu");
}
