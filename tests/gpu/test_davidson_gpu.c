/* test_davidson_gpu.c: cis_davidson_operator with device vectors (a GPU
 * plan's operator: the device backend) against the same call with host
 * vectors (the CSR's operator: the host backend, the CPU reference), 3
 * roots to 1e-9, on H2O 6-31G CISD (2,241 determinants) with a hyb plan
 * uploaded from the host and a csr plan built on the device
 * (ci_hamiltonian_gpu). Device eigenvectors (downloaded) must satisfy
 * ||H x - e x|| <= 1e-7 with the reference SpMV. Outputs poisoned first. */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"
#include "operators/operator_internal.h"

enum { K = 3 };

/* Device Davidson on plan P vs the host eigenvalues eh. */
static void check_plan(const char *what, cis_gpu_plan *P, const cis_csr *H, const double *diag, const double *eh) {
  cis_operator *D = NULL;
  cis_davidson_opts o = cis_davidson_opts_default();
  cis_davidson_info info;
  double ed[K], *X = malloc((size_t)H->rows * K * sizeof(double));
  o.roots = K;
  for (int r = 0; r < K; ++r) ed[r] = NAN;
  for (cis_int i = 0; X && i < H->rows * K; ++i) X[i] = NAN;

  CHECK_OK(cis_operator_from_gpu_plan(P, &D));
  CHECK(operator_memspace(D) == CIS_MEM_DEVICE, "%s: plan operator is not on the device", what);
  CHECK_OK(cis_davidson_operator(D, diag, &o, ed, X, &info));

  for (int r = 0; r < K; ++r)
    CHECK(fabs(ed[r] - eh[r]) <= 1e-9, "%s root %d: device %.14f, host %.14f", what, r, ed[r], eh[r]);
  double res = X ? test_eig_max_residual(H, ed, X, K) : INFINITY;
  CHECK(res <= 1e-7, "%s: device eigenvectors, max ||H x - e x|| = %.3e", what, res);
  CHECK(info.products > 0 && info.op_seconds > 0, "%s: info not filled", what);
  printf("%-22s device E0 %.12f (host %+.1e), %d iterations, %lld products, %.3f ms per SpMV\n", what, ed[0],
         ed[0] - eh[0], info.iterations, (long long)info.products, 1e3 * info.op_seconds / (double)info.products);
  cis_operator_free(D);
  free(X);
}

int main(void) {
  char why[256] = "", path[512];
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  cis_csr *H = NULL;
  cis_matrix *M = NULL;
  cis_operator *Hh = NULL;
  cis_gpu_plan *Phyb = NULL, *Pbuilt = NULL;
  uint64_t a, b;
  double eh[K] = {NAN, NAN, NAN}, *diag = NULL;
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  CHECK_OK(cis_fcidump_read(test_shared_path(path, sizeof path, "ci/h2o_631g.FCIDUMP"), &F));
  if (!F) return test_summary("test_davidson_gpu");
  CHECK_OK(cis_ci_find_reference(F, &a, &b));
  CHECK_OK(cis_ci_space_create(F, 2, a, b, &S));
  CHECK_OK(cis_ci_hamiltonian(F, S, 0, &H));
  if (!S || !H) goto done;
  diag = malloc((size_t)H->rows * sizeof(double));
  CHECK_OK(ci_diagonal_all(F, S, diag));

  cis_davidson_opts o = cis_davidson_opts_default();
  o.roots = K;
  CHECK_OK(cis_operator_from_csr(H, &Hh));
  CHECK_OK(cis_davidson_operator(Hh, diag, &o, eh, NULL, NULL));

  CHECK_OK(cis_matrix_create(H, "hyb", NULL, &M));
  if (M) CHECK_OK(cis_gpu_plan_create(M, NULL, 0, &Phyb));
  if (Phyb) check_plan("hyb plan (uploaded)", Phyb, H, diag, eh);
  CHECK_OK(ci_hamiltonian_gpu(F, S, &Pbuilt, NULL));
  if (Pbuilt) check_plan("csr plan (device build)", Pbuilt, H, diag, eh);
done:
  cis_gpu_plan_free(Phyb);
  cis_gpu_plan_free(Pbuilt);
  cis_operator_free(Hh);
  cis_matrix_free(M);
  free(diag);
  cis_csr_free(H);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
  return test_summary("test_davidson_gpu");
}
