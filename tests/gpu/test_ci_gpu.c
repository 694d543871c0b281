/* test_ci_gpu.c: Davidson with the SpMV on the GPU (hyb and csr plans)
 * against reference.tsv and against the CPU Davidson on the same matrix:
 * N2 STO-3G FCI (14,400 determinants) and H2O 6-31G CISD (2,241). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"

typedef struct cpu_ctx { const cis_matrix *M; } cpu_ctx;
static cis_status cpu_apply(void *c, const double *x, double *y) {
  return cis_matrix_spmv(((cpu_ctx *)c)->M, 1.0, x, 0.0, y);
}

static void check_molecule(const char *name, int level, double ref) {
  char sub[64], path[512];
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  uint64_t a, b;
  snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", name);
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, sub), &F));
  if (!F) return;
  CHECK_OK(cis_ci_find_reference(F, &a, &b));
  CHECK_OK(cis_ci_space_create(F, level, a, b, &S));
  CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
  if (!S || !H) goto done;
  cis_int n = H->rows;
  double *diag = malloc((size_t)n * sizeof(double));
  CHECK_OK(ci_diagonal_all(F, S, diag));
  const char *formats[] = {"hyb", "csr"};
  for (int f = 0; f < 2; ++f) {
    cis_matrix *M = NULL;
    CHECK_OK(cis_matrix_create(H, formats[f], NULL, &M));
    if (!M) continue;
    cis_davidson_opts o = cis_davidson_opts_default();
    o.roots = 3;
    double eg[3] = {NAN, NAN, NAN}, ec[3] = {NAN, NAN, NAN};
    cis_ci_gpu_stats gs;
    cis_davidson_info info;
    CHECK_OK(ci_davidson_gpu(M, NULL, diag, &o, eg, NULL, &info, &gs));
    cpu_ctx c = {M};
    CHECK_OK(ci_davidson(n, diag, cpu_apply, &c, &o, ec, NULL, NULL));
    CHECK(fabs(eg[0] + F->ecore - ref) < 1e-8, "%s %s GPU: %.10f, reference %.10f", name, formats[f],
          eg[0] + F->ecore, ref);
    for (int r = 0; r < 3; ++r)
      CHECK(fabs(eg[r] - ec[r]) < 1e-8, "%s %s root %d: GPU %.12f CPU %.12f", name, formats[f], r, eg[r], ec[r]);
    CHECK(gs.spmv_seconds > 0 && gs.device_bytes >= cis_matrix_bytes(M) && info.products > 0,
          "%s %s: stats not filled", name, formats[f]);
    printf("%-10s %-4s GPU %.10f (%+.1e) kernel %s, %lld products, %.3f ms per SpMV\n", name, formats[f],
           eg[0] + F->ecore, eg[0] + F->ecore - ref, gs.kernel, (long long)info.products,
           1e3 * gs.spmv_seconds / (double)info.products);
    cis_matrix_free(M);
  }
  free(diag);
done:
  cis_csr_free(H);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

/* Issue 11 on the device: C2/STO-3G (tests/data/ci, no ORBSYM) with P-space
 * guesses gives the same roots and <S^2> on the GPU as on the CPU, and the
 * ground state is PySCF's FCI (-74.69021095756578, a singlet). */
static void check_c2_states(void) {
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  cis_matrix *M = NULL;
  uint64_t a, b;
  CHECK_OK(cis_fcidump_read(CIS_TEST_DATA "/ci/c2_sto3g.FCIDUMP", &F));
  if (!F) return;
  CHECK_OK(cis_ci_find_reference(F, &a, &b));
  CHECK_OK(cis_ci_space_create(F, -1, a, b, &S));
  if (S) CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
  if (H) CHECK_OK(cis_matrix_create(H, "hyb", NULL, &M));
  if (!M) goto done;
  cis_int n = H->rows;
  enum { K = 4, NV = 8 };
  double *diag = malloc((size_t)n * sizeof(double)), *guess = malloc((size_t)n * NV * sizeof(double));
  double *vg = malloc((size_t)n * K * sizeof(double)), *vc = malloc((size_t)n * K * sizeof(double));
  double eg[K], ec[K];
  CHECK_OK(ci_diagonal_all(F, S, diag));
  CHECK_OK(ci_pspace_guess(F, S, diag, 0, NV, guess, NULL, NULL));
  cis_davidson_opts o = cis_davidson_opts_default();
  o.roots = K;
  o.guess = guess;
  o.nguess = NV;
  cis_ci_gpu_stats gs;
  CHECK_OK(ci_davidson_gpu(M, NULL, diag, &o, eg, vg, NULL, &gs));
  cpu_ctx c = {M};
  CHECK_OK(ci_davidson(n, diag, cpu_apply, &c, &o, ec, vc, NULL));
  CHECK(fabs(eg[0] + F->ecore - -74.69021095756578) < 1e-8, "C2 GPU ground state %.10f", eg[0] + F->ecore);
  for (int r = 0; r < K; ++r) {
    double sg = NAN, sc = NAN;
    CHECK_OK(ci_s2(F, S, vg + (size_t)r * n, &sg));
    CHECK_OK(ci_s2(F, S, vc + (size_t)r * n, &sc));
    CHECK(fabs(eg[r] - ec[r]) < 1e-8 && fabs(sg - sc) < 1e-6, "C2 root %d: GPU %.10f <S^2> %.6f, CPU %.10f <S^2> %.6f", r,
          eg[r], sg, ec[r], sc);
    printf("c2_sto3g   root %d GPU %.10f <S^2> %.6f (CPU %.10f, %.6f)\n", r, eg[r] + F->ecore, sg, ec[r] + F->ecore, sc);
  }
  free(diag); free(guess); free(vg); free(vc);
done:
  cis_matrix_free(M);
  cis_csr_free(H);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

int main(void) {
  char why[256] = "";
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  check_c2_states();
  check_molecule("n2_sto3g", -1, -107.6528287309);
  check_molecule("h2o_631g", 2, -76.1140864984);
  return test_summary("test_ci_gpu");
}
