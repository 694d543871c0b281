/* test_ci_gemm.c: the dense GEMM of the CPU CI (src/ci/ci_gemm*.c) against a
 * naive triple loop (the CPU reference):
 *  - every micro-kernel this CPU runs, random shapes and the edges of the
 *    blocking (1, MR +- 1, MC +- 1, KC +- 1, k = 0), op(B) = B and B^T,
 *    C = A op(B) into a NaN-poisoned C (never read) and C += A op(B);
 *    leading dimensions larger than the widths (the padding untouched);
 *  - fanned out over threads (outside a parallel region) = one thread, bitwise;
 *  - ci_gemm_rm (the build's choice: BLAS or own) = the triple loop;
 *  - the choice named: ci_gemm_name, cis_blas_info. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_gemm.h"
#include "test_util.h"

/* |C - (A op(B) [+ C0])| <= 8 k eps sum |a||b| + tiny, elementwise; NaN fails. */
static int matches(cis_int m, cis_int n, cis_int k, const double *A, cis_int lda, const double *B, cis_int ldb,
                   int transb, const double *C0, const double *C, cis_int ldc, double *worst) {
  for (cis_int i = 0; i < m; ++i)
    for (cis_int j = 0; j < n; ++j) {
      double ref = C0 ? C0[i * ldc + j] : 0.0, mag = fabs(ref);
      for (cis_int l = 0; l < k; ++l) {
        const double b = transb ? B[j * ldb + l] : B[l * ldb + j];
        ref += A[i * lda + l] * b;
        mag += fabs(A[i * lda + l] * b);
      }
      const double err = fabs(C[i * ldc + j] - ref);
      if (!(err <= 8.0 * (double)(k + 1) * 2.2e-16 * mag + 1e-300)) {
        *worst = isnan(err) ? INFINITY : err;
        return 0;
      }
      if (err > *worst) *worst = err;
    }
  return 1;
}

/* One shape through the own GEMM: both accumulate modes, padding checked. */
static void one_shape(cis_int m, cis_int n, cis_int k, int transb, unsigned long long seed) {
  const cis_int lda = k + 3, ldb = (transb ? k : n) + 5, ldc = n + 2;
  const cis_int brows = transb ? n : k;
  double *A = malloc(sizeof(double) * (size_t)(m * lda + 1)), *B = malloc(sizeof(double) * (size_t)(brows * ldb + 1));
  double *C = malloc(sizeof(double) * (size_t)(m * ldc + 1)), *C0 = malloc(sizeof(double) * (size_t)(m * ldc + 1));
  test_fill_random(A, CIS_F64, m * lda, seed);
  test_fill_random(B, CIS_F64, brows * ldb, seed + 1);
  test_fill_nan(C, CIS_F64, m * ldc);
  double worst = 0;
  ci_gemm_own(transb, m, n, k, A, lda, B, ldb, 0, C, ldc);
  CHECK(matches(m, n, k, A, lda, B, ldb, transb, NULL, C, ldc, &worst),
        "own GEMM (%s) C = A op(B), m %lld n %lld k %lld transb %d: error %.2e", ci_gemm_own_kernel_name(),
        (long long)m, (long long)n, (long long)k, transb, worst);
  int pad_ok = 1;
  for (cis_int i = 0; i < m; ++i)
    for (cis_int j = n; j < ldc; ++j) pad_ok &= isnan(C[i * ldc + j]);
  CHECK(pad_ok, "own GEMM (%s) wrote outside C (m %lld n %lld k %lld)", ci_gemm_own_kernel_name(), (long long)m,
        (long long)n, (long long)k);
  test_fill_random(C0, CIS_F64, m * ldc, seed + 2);
  memcpy(C, C0, sizeof(double) * (size_t)(m * ldc));
  ci_gemm_own(transb, m, n, k, A, lda, B, ldb, 1, C, ldc);
  worst = 0;
  CHECK(matches(m, n, k, A, lda, B, ldb, transb, C0, C, ldc, &worst),
        "own GEMM (%s) C += A op(B), m %lld n %lld k %lld transb %d: error %.2e", ci_gemm_own_kernel_name(),
        (long long)m, (long long)n, (long long)k, transb, worst);
  free(A); free(B); free(C); free(C0);
}

static void test_own_kernels(void) {
  const int edges[] = {1, 3, 4, 5, 7, 8, 9, 23, 24, 25, 71, 72, 73, 91};
  const int nedge = (int)(sizeof edges / sizeof *edges);
  int ran = 0;
  srand(7);
  for (int kern = 0; kern < CI_GEMM_OWN_KERNELS; ++kern) {
    if (!ci_gemm_own_set_kernel(kern)) continue;
    ran++;
    for (int e = 0; e < nedge; ++e) /* edges of every dimension, one at a time */
      for (int transb = 0; transb < 2; ++transb) {
        one_shape(edges[e], 29, 17, transb, 10 + e);
        one_shape(13, edges[e], 17, transb, 30 + e);
        one_shape(13, 29, edges[e], transb, 50 + e);
      }
    const int kblock[] = {191, 192, 193, 400}; /* KC +- 1 and two K blocks */
    for (int e = 0; e < 4; ++e) one_shape(9, 37, kblock[e], e & 1, 70 + e);
    for (int trial = 0; trial < 20; ++trial) /* random shapes */
      one_shape(1 + rand() % 150, 1 + rand() % 300, 1 + rand() % 120, trial & 1, 100 + trial);
    /* k = 0: C = 0 (poison overwritten) or unchanged */
    double A[1] = {1}, B[1] = {1}, C[6];
    test_fill_nan(C, CIS_F64, 6);
    ci_gemm_own(0, 2, 3, 0, A, 1, B, 3, 0, C, 3);
    CHECK(C[0] == 0 && C[5] == 0, "own GEMM (%s) k = 0 with C = A B: C not zeroed", ci_gemm_own_kernel_name());
    C[0] = 2;
    ci_gemm_own(0, 2, 3, 0, A, 1, B, 3, 1, C, 3);
    CHECK(C[0] == 2, "own GEMM (%s) k = 0 with C += A B: C changed", ci_gemm_own_kernel_name());
  }
  CHECK(ran >= 1 && ci_gemm_own_supported(0), "the generic kernel runs everywhere (%d kernels ran)", ran);
  CHECK(!ci_gemm_own_set_kernel(-1) && !ci_gemm_own_set_kernel(CI_GEMM_OWN_KERNELS), "unknown kernels refused");
  /* back to the widest */
  for (int kern = CI_GEMM_OWN_KERNELS - 1; kern >= 0; --kern)
    if (ci_gemm_own_set_kernel(kern)) break;
}

/* Outside a parallel region a large product fans out: the same bits as one thread. */
static void test_threads(void) {
  const cis_int m = 150, n = 2000, k = 91;
  double *A = malloc(sizeof(double) * m * k), *B = malloc(sizeof(double) * k * n);
  double *C1 = malloc(sizeof(double) * m * n), *Cn = malloc(sizeof(double) * m * n);
  test_fill_random(A, CIS_F64, m * k, 201);
  test_fill_random(B, CIS_F64, k * n, 202);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  ci_gemm_own(0, m, n, k, A, k, B, n, 0, C1, n);
  omp_set_num_threads(threads > 1 ? threads : 2);
  test_fill_nan(Cn, CIS_F64, m * n);
  ci_gemm_own(0, m, n, k, A, k, B, n, 0, Cn, n);
  omp_set_num_threads(threads);
  CHECK(memcmp(C1, Cn, sizeof(double) * m * n) == 0, "own GEMM: 1 thread vs %d threads not bitwise equal",
        threads > 1 ? threads : 2);
  free(A); free(B); free(C1); free(Cn);
}

/* The build's GEMM (BLAS or own) through the sigma's entry point, and its name. */
static void test_chosen(void) {
  const int m = 37, k = 29;
  const cis_int n = 1031;
  double *A = malloc(sizeof(double) * m * k), *B = malloc(sizeof(double) * k * n), *C = malloc(sizeof(double) * m * n);
  test_fill_random(A, CIS_F64, m * k, 3);
  test_fill_random(B, CIS_F64, k * n, 4);
  test_fill_nan(C, CIS_F64, m * n);
  ci_gemm_init();
  ci_gemm_rm(m, n, k, A, B, C);
  double worst = 0;
  CHECK(matches(m, n, k, A, k, B, n, 0, NULL, C, n, &worst), "GEMM (%s) vs a triple loop: %.2e", ci_gemm_name(), worst);
  free(A); free(B); free(C);
  const char *info = cis_blas_info();
  CHECK(info && !strncmp(info, "blas: ", 6) && strstr(info, "; lapack: "), "cis_blas_info: '%s'", info ? info : "NULL");
  const int own = strstr(ci_gemm_name(), "own packed GEMM") != NULL;
  CHECK(own ? strstr(info, "own-gemm") && strstr(info, ci_gemm_own_kernel_name()) : !strstr(info, "own-gemm"),
        "the GEMM in use named alike ('%s', '%s')", ci_gemm_name(), info);
  printf("%s\n", info);
}

int main(void) {
  test_own_kernels();
  test_threads();
  test_chosen();
  return test_summary("test_ci_gemm");
}
