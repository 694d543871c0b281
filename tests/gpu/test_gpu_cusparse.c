/* test_gpu_cusparse.c: every cuSPARSE baseline against the CPU reference in
 * double and float, beta = 0 (the device output NaN-poisoned before each
 * product: check_plan) and beta != 0; the SpMM baseline's Y (NaN-poisoned
 * before each call) against the reference column by column; bsr where the
 * size is a multiple of 2 or 4, else a clear CIS_ERR_UNSUPPORTED; unknown
 * algorithm names and empty matrices refused with a message and no plan
 * (the plan pointer poisoned before each create). A NaN output never
 * passes: the comparison is checked to fail on one. */
#include "gpu_cases.h"

static const char *algs[] = {"csr-alg1", "csr-alg2", "coo-alg1", "coo-alg2", "sell-alg1", "bsr"};

/* A pointer no create may leave behind: the plan output poisoned. */
static char poison_plan;
#define POISONED_PLAN ((cis_gpu_plan *)&poison_plan)

/* The comparison itself: one NaN in an output fails it, however small the
 * rest of the error. */
static void test_nan_fails(void) {
  double ref[4] = {1, 2, 3, 4}, y[4] = {1, 2, NAN, 4};
  float yf[4] = {1, 2, 3, NAN};
  CHECK(!(rel_err_vs(y, CIS_F64, ref, 4) <= test_tol(CIS_F64)), "a NaN double output passed");
  CHECK(!(rel_err_vs(yf, CIS_F32, ref, 4) <= test_tol(CIS_F32)), "a NaN float output passed");
}

/* The cuSPARSE SpMM baseline: Y = A*X for k vectors in layout lay with alg,
 * d_Y NaN-poisoned before the call and the host copy before the download;
 * each column against the reference SpMV. Returns the largest relative
 * error (inf on a failure, the reason printed). */
static double check_spmm(bench_cusparse_mm *m, const cis_csr *A, cis_dtype t, const char *alg, int k,
                         cis_layout lay) {
  const size_t vs = cis_dtype_size(t);
  const cis_int nx = A->cols, ny = A->rows;
  const int cm = lay == CIS_COL_MAJOR;
  void *X = malloc(vs * (size_t)nx * k), *Y = malloc(vs * (size_t)ny * k), *xv = malloc(vs * (size_t)nx);
  void *yv = malloc(vs * (size_t)ny), *zero = calloc((size_t)ny, vs), *dX = NULL, *dY = NULL;
  double worst = INFINITY, ms = 0;
  if (!X || !Y || !xv || !yv || !zero) goto done;
  test_fill_random(X, t, nx * k, 31 + (uint64_t)k);
  if (cis_gpu_malloc(&dX, vs * (size_t)nx * k) || cis_gpu_malloc(&dY, vs * (size_t)ny * k)) goto done;
  if (cis_gpu_upload(dX, X, vs * (size_t)nx * k) || bench_fill_nan(dY, t, ny * k)) goto done;
  if (bench_cusparse_mm_time(m, alg, k, lay, dX, dY, 0, 1, &ms) != CIS_OK || cis_gpu_sync() != CIS_OK) {
    fprintf(stderr, "cuSPARSE SpMM %s: %s\n", alg, cis_last_error());
    goto done;
  }
  test_fill_nan(Y, t, ny * k);
  if (cis_gpu_download(Y, dY, vs * (size_t)ny * k)) goto done;
  worst = 0;
  for (int v = 0; v < k; ++v) { /* column v of X and Y (row-major: stride k; column-major: contiguous) */
    for (cis_int j = 0; j < nx; ++j)
      memcpy((char *)xv + vs * (size_t)j, (char *)X + vs * (cm ? (size_t)v * nx + j : (size_t)j * k + v), vs);
    for (cis_int i = 0; i < ny; ++i)
      memcpy((char *)yv + vs * (size_t)i, (char *)Y + vs * (cm ? (size_t)v * ny + i : (size_t)i * k + v), vs);
    double *ref = reference_spmv(A, t, xv, 1.0, 0.0, zero);
    const double err = ref ? rel_err_vs(yv, t, ref, ny) : INFINITY;
    if (!(err <= worst)) worst = err;
    free(ref);
  }
done:
  cis_gpu_free(dX);
  cis_gpu_free(dY);
  free(X);
  free(Y);
  free(xv);
  free(yv);
  free(zero);
  return worst;
}

static void test_spmm(const gpu_case *cases, int n) {
  static const struct { const char *alg; cis_layout lay; } mm[] = {
      {"csr-alg2", CIS_ROW_MAJOR}, {"csr-alg3", CIS_ROW_MAJOR}, {"csr-alg1", CIS_COL_MAJOR}};
  for (int i = 0; i < n && i < 7; ++i) /* the generated cases: random, empty rows, a long row, rectangular */
    for (int t = 0; t < 2; ++t) {
      const cis_dtype dt = t ? CIS_F32 : CIS_F64;
      bench_cusparse_mm *m = NULL;
      CHECK_OK(bench_cusparse_mm_create(cases[i].A, dt, &m));
      for (size_t a = 0; m && a < sizeof mm / sizeof *mm; ++a) {
        const double err = check_spmm(m, cases[i].A, dt, mm[a].alg, 3, mm[a].lay);
        CHECK(err <= test_tol(dt), "%s SpMM %s %s: rel err %.3g", cases[i].name, mm[a].alg, cis_dtype_name(dt), err);
      }
      bench_cusparse_mm_free(m);
    }
}

int main(void) {
  char why[200];
  gpu_case cases[16];
  cis_gpu_plan *p = NULL;
  int n;
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);

  test_nan_fails();
  n = gpu_cases(cases);

  for (int i = 0; i < n; ++i)
    for (size_t a = 0; a < sizeof algs / sizeof *algs; ++a)
      for (int t = 0; t < 2; ++t) {
        cis_dtype dt = t ? CIS_F32 : CIS_F64;
        const cis_csr *A = cases[i].A;
        p = POISONED_PLAN;
        cis_status st = cis_gpu_plan_create_cusparse(A, dt, algs[a], &p);
        CHECK(st == CIS_OK ? p != NULL && p != POISONED_PLAN : p == NULL, "%s %s: %s and the plan %s", cases[i].name,
              algs[a], cis_status_name(st), p == POISONED_PLAN ? "left as it was" : "set");
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

  test_spmm(cases, n);

  p = POISONED_PLAN;
  CHECK(cis_gpu_plan_create_cusparse(cases[0].A, CIS_F64, "csr-alg9", &p) == CIS_ERR_NOT_FOUND &&
            strstr(cis_last_error(), "csr-alg9") && !p,
        "unknown algorithm: %s", cis_last_error());
  {
    cis_csr *E = NULL;
    CHECK_OK(cis_csr_alloc(5, 5, 0, CIS_F64, &E));
    p = POISONED_PLAN;
    CHECK(cis_gpu_plan_create_cusparse(E, CIS_F64, "csr-alg1", &p) == CIS_ERR_UNSUPPORTED &&
              strstr(cis_last_error(), "empty") && !p,
          "empty matrix: %s", cis_last_error());
    cis_csr_free(E);
  }
  gpu_cases_free(cases, n);
  return test_summary("test_gpu_cusparse");
}
