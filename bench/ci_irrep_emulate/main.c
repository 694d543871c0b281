#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "ci/ci_internal.h"
#include "ci/gpu/ci_sigma_irrep.h"
#include "cisparse/ci.h"
#include "cisparse/operator.h"
static unsigned long long seed = 1;
static double rnd(void) { seed = seed * 6364136223846793005ull + 1442695040888963407ull; return (double)(seed >> 11) / 9007199254740992.0 - 0.5; }
static int fails = 0;
static void one(const char *file, int ms2, int isym, long long wb) {
  cis_fcidump *F = NULL;
  if (cis_fcidump_read(file, &F) != CIS_OK) { printf("read fail\n"); exit(1); }
  F->ms2 = ms2; F->isym = isym;
  cis_ci_direct *D = NULL;
  if (cis_ci_direct_create(F, NULL, &D) != CIS_OK) { printf("%s ms2 %d isym %d: empty\n", file, ms2, isym); return; }
  ci_direct_view v; ci_direct_get_view(D, &v);
  cis_operator *opc; cis_ci_direct_compact_operator(D, &opc);
  cis_ci_direct_gpu_opts o = {0, 0, 0}; o.work_bytes = wb;
  ci_irrep_gpu *I = NULL; cis_ci_direct_gpu_info info = {0};
  cis_status st = ci_irrep_gpu_create(v.irrep, 0, &o, &I, &info);
  if (st) { printf("create: %s\n", cis_last_error()); exit(1); }
  cis_int n = cis_ci_direct_size(D), nc = cis_ci_direct_compact_size(D);
  cis_ci_direct_info di; cis_ci_direct_get_info(D, &di);
  double *c = malloc(n * 8), *cc = malloc(nc * 8), *s = malloc(nc * 8), *g = malloc(nc * 8);
  for (int par = -1; par <= 1; ++par) {
    if (par && di.alpha_strings != di.beta_strings) continue;
    for (cis_int i = 0; i < n; ++i) c[i] = rnd();
    cis_int ns = di.alpha_strings;
    if (par) for (cis_int A = 0; A < ns; ++A) for (cis_int B = 0; B <= A; ++B) { if (A == B) { if (par < 0) c[A*ns+A] = 0; } else c[B*ns+A] = par * c[A*ns+B]; }
    cis_ci_direct_compress(D, c, cc);
    cis_operator_apply(opc, 1, cc, 0, s, NULL);
    for (cis_int i = 0; i < nc; ++i) g[i] = NAN;
    long long h0 = info.half_sigmas;
    ci_irrep_gpu_sigma(I, 1, cc, g, 0, &info);
    double w = 0, m = 0;
    for (cis_int i = 0; i < nc; ++i) { double d = fabs(g[i] - s[i]); if (!(d <= w)) w = d; if (fabs(s[i]) > m) m = fabs(s[i]); }
    int ok = w <= 1e-12 * m && (info.half_sigmas - h0 == (par != 0));
    fails += !ok;
    printf("%s ms2 %d isym %d wb %lld passes %lld par %d: nc %lld err %.2e half %lld %s\n", file, ms2, isym, wb, (long long)info.passes, par, (long long)nc, w / m, info.half_sigmas - h0, ok ? "ok" : "FAIL");
  }
  /* C1 path k=2 */
  double *c2 = malloc(2 * n * 8), *s2 = malloc(2 * n * 8), *g2 = malloc(2 * n * 8);
  for (cis_int i = 0; i < 2 * n; ++i) c2[i] = rnd(), g2[i] = NAN;
  cis_ci_direct_sigma(D, 2, c2, s2);
  ci_irrep_gpu_sigma_c1(I, 2, c2, g2, 0, &info);
  double w = 0, m = 0;
  for (cis_int i = 0; i < 2 * n; ++i) { double d = fabs(g2[i] - s2[i]); if (!(d <= w)) w = d; if (fabs(s2[i]) > m) m = fabs(s2[i]); }
  fails += !(w <= 1e-12 * m);
  printf("   C1 path k=2 err %.2e %s\n", w / m, w <= 1e-12 * m ? "ok" : "FAIL");
  ci_irrep_gpu_free(I);
  cis_operator_free(opc);
  cis_ci_direct_free(D);
  cis_fcidump_free(F);
  free(c); free(cc); free(s); free(g); free(c2); free(s2); free(g2);
}
int main(void) {
  const char *n2 = "/work/wt-girrep/tests/data/ci/n2_sto3g_d2h.FCIDUMP", *c2 = "/work/wt-girrep/tests/data/ci/c2_sto3g_d2h_pyscf.FCIDUMP", *o2 = "/work/wt-girrep/tests/data/ci/o2_sto3g_triplet_pyscf.FCIDUMP";
  one(n2, 0, 1, 0); one(n2, 0, 5, 0); one(n2, 2, 1, 0); one(n2, 0, 1, 200000); one(n2, 0, 2, 100000);
  one(c2, 0, 4, 0); one(c2, 2, 6, 150000); one(o2, 2, 1, 0); one(o2, 0, 2, 120000);
  printf("fails %d\n", fails);
  return fails != 0;
}
