/* test_gpu_cusparse.c: every cuSPARSE baseline against the CPU reference in
 * double and float, beta = 0 (poisoned output) and beta != 0; bsr where the
 * size is a multiple of 2 or 4, else a clear CIS_ERR_UNSUPPORTED; unknown
 * algorithm names and empty matrices refused with a message. */
#include "gpu_cases.h"

static const char *algs[] = {"csr-alg1", "csr-alg2", "coo-alg1", "coo-alg2", "sell-alg1", "bsr"};

int main(void) {
  char why[200];
  gpu_case cases[16];
  cis_gpu_plan *p = NULL;
  int n;
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);

  n = gpu_cases(cases);

  for (int i = 0; i < n; ++i)
    for (size_t a = 0; a < sizeof algs / sizeof *algs; ++a)
      for (int t = 0; t < 2; ++t) {
        cis_dtype dt = t ? CIS_F32 : CIS_F64;
        const cis_csr *A = cases[i].A;
        cis_status st = cis_gpu_plan_create_cusparse(A, dt, algs[a], &p);
        int bsr_ok = (A->rows % 2 == 0 && A->cols % 2 == 0);
        if (!strcmp(algs[a], "bsr") && !bsr_ok) {
          CHECK(st == CIS_ERR_UNSUPPORTED && strstr(cis_last_error(), "multiple"),
                "%s bsr: expected unsupported, got %s: %s", cases[i].name, cis_status_name(st),
                cis_last_error());
          continue;
        }
        CHECK(st == CIS_OK, "%s %s: %s", cases[i].name, algs[a], cis_last_error());
        if (st != CIS_OK) continue;
        CHECK(cis_gpu_plan_bytes(p) > 0, "%s %s: no device bytes", cases[i].name, algs[a]);
        for (int b = 0; b < 2; ++b) {
          double err = check_plan(p, A, dt, b ? 0.25 : 0.0, 21 + (uint64_t)b);
          CHECK(err <= test_tol(dt), "%s %s %s beta %g: rel err %.3g", cases[i].name, algs[a],
                cis_dtype_name(dt), b ? 0.25 : 0.0, err);
        }
        cis_gpu_plan_free(p);
        p = NULL;
      }

  CHECK(cis_gpu_plan_create_cusparse(cases[0].A, CIS_F64, "csr-alg9", &p) == CIS_ERR_NOT_FOUND &&
            strstr(cis_last_error(), "csr-alg9") && !p,
        "unknown algorithm: %s", cis_last_error());
  {
    cis_csr *E = NULL;
    CHECK_OK(cis_csr_alloc(5, 5, 0, CIS_F64, &E));
    CHECK(cis_gpu_plan_create_cusparse(E, CIS_F64, "csr-alg1", &p) == CIS_ERR_UNSUPPORTED &&
              strstr(cis_last_error(), "empty"),
          "empty matrix: %s", cis_last_error());
    cis_csr_free(E);
  }
  gpu_cases_free(cases, n);
  return test_summary("test_gpu_cusparse");
}
