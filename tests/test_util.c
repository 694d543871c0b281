/* test_util.c: see test_util.h. */
#include "test_util.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h" /* cis_alloc_fail_after */

int test_failures = 0, test_checks = 0;

/* The tests run as the tool does: NVLink multicast off for NCCL unless the
 * user chose (NCCL_NVLS_ENABLE, read by NCCL when a test makes its
 * communicators; the library sets no environment). Before main. */
__attribute__((constructor)) static void nvls_off_like_the_cli(void) { setenv("NCCL_NVLS_ENABLE", "0", 0); }

int test_summary(const char *name) {
  printf("%s: %d checks, %d failures\n", name, test_checks, test_failures);
  if (test_checks == 0) {
    fprintf(stderr, "FAIL %s: no checks made (a test that checks nothing proves nothing; test_skip says why not)\n",
            name);
    return 1;
  }
  return test_failures ? 1 : 0;
}

int test_skip(const char *reason) {
  printf("SKIPPED: %s\n", reason);
  return 77;
}

/* One run of call with allocation n failing (0: none); the allocations it made. */
static int64_t alloc_run(cis_status (*call)(void *), void (*undo)(void *), void *ctx, int64_t n, cis_status *st) {
  cis_alloc_fail_after(n);
  *st = call(ctx);
  const int64_t made = cis_alloc_fail_after(0);
  if (undo) undo(ctx);
  return made;
}

int64_t test_alloc_every(const char *what, cis_status (*call)(void *), void (*undo)(void *), void *ctx) {
  cis_status st;
  cis_alloc_fail_after(0);
  const int64_t count = alloc_run(call, undo, ctx, 0, &st);
  CHECK(st == CIS_OK, "%s: %s with no failure injected (%s)", what, cis_status_name(st), cis_last_error());
  CHECK(count > 0, "%s: no allocation through the library's allocator", what);
  if (st != CIS_OK) return 0;
  for (int64_t n = 1; n <= count + 1; ++n) {
    const int64_t made = alloc_run(call, undo, ctx, n, &st);
    if (n <= count)
      CHECK(st == CIS_ERR_ALLOC, "%s: allocation %lld of %lld failing -> %s (%s)", what, (long long)n,
            (long long)count, cis_status_name(st), cis_last_error());
    else
      CHECK(st == CIS_OK && made == count, "%s: failure past the last of %lld allocations -> %s after %lld (%s)",
            what, (long long)count, cis_status_name(st), (long long)made, cis_last_error());
  }
  return count;
}

typedef struct build_call { const cis_csr *A; const char *name; const cis_format_params *p; cis_matrix *M; } build_call;

static cis_status build_run(void *ctx) {
  build_call *b = ctx;
  const cis_status st = cis_matrix_create(b->A, b->name, b->p, &b->M);
  CHECK(st == CIS_OK || b->M == NULL, "%s: %s with a matrix made", b->name, cis_status_name(st));
  return st;
}

static void build_undo(void *ctx) {
  build_call *b = ctx;
  cis_matrix_free(b->M), b->M = NULL;
}

int64_t test_alloc_every_build(const cis_csr *A, const char *format, const cis_format_params *p) {
  build_call b = {A, format, p, NULL};
  return test_alloc_every(format, build_run, build_undo, &b);
}

static double getv(const void *x, cis_dtype t, cis_int i) {
  return t == CIS_F64 ? ((const double *)x)[i] : (double)((const float *)x)[i];
}

double test_rel_err(const void *a, const void *b, cis_dtype t, cis_int n) {
  double num = 0, den = 0;
  for (cis_int i = 0; i < n; ++i) {
    double u = getv(a, t, i), v = getv(b, t, i);
    if (isnan(u) || isnan(v) || isinf(u) || isinf(v)) return INFINITY;
    num += (u - v) * (u - v);
    den += v * v;
  }
  if (den < 1e-300) return sqrt(num);
  return sqrt(num / den);
}

double test_tol(cis_dtype t) { return t == CIS_F64 ? 1e-12 : 1e-5; }

void test_fill_random(void *x, cis_dtype t, cis_int n, unsigned long long seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (cis_int i = 0; i < n; ++i) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    double v = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    if (t == CIS_F64) ((double *)x)[i] = v; else ((float *)x)[i] = (float)v;
  }
}

void test_fill_nan(void *x, cis_dtype t, cis_int n) {
  for (cis_int i = 0; i < n; ++i) {
    if (t == CIS_F64) ((double *)x)[i] = NAN; else ((float *)x)[i] = NAN;
  }
}

cis_csr *test_csr_from_dense(cis_int rows, cis_int cols, const double *dense, cis_dtype t) {
  cis_coo *C = NULL;
  cis_csr *A = NULL;
  if (coo_alloc(rows, cols, rows * cols + 1, t, &C) != CIS_OK) return NULL;
  for (cis_int i = 0; i < rows; ++i)
    for (cis_int j = 0; j < cols; ++j)
      if (dense[i * cols + j] != 0.0) coo_push(C, (cis_idx)i, (cis_idx)j, dense[i * cols + j]);
  coo_to_csr(C, &A);
  coo_free(C);
  return A;
}

const char *test_shared_path(char *buf, size_t n, const char *sub) {
  snprintf(buf, n, "%s/%s", CIS_SHARED_DIR, sub);
  return buf;
}

double test_eig_max_residual(const cis_csr *H, const double *e, const double *X, int k) {
  cis_int n = H->rows;
  double *y = malloc((size_t)n * sizeof(double)), worst = 0;
  for (int r = 0; r < k && y; ++r) {
    double s = 0;
    cis_csr_spmv(H, 1.0, X + (size_t)r * n, 0.0, y);
    for (cis_int i = 0; i < n; ++i) s += (y[i] - e[r] * X[(size_t)r * n + i]) * (y[i] - e[r] * X[(size_t)r * n + i]);
    if (!(sqrt(s) <= worst)) worst = sqrt(s);
  }
  free(y);
  return y ? worst : INFINITY;
}

void test_scale_integrals(cis_fcidump *F, double a, double b) {
  for (cis_int i = 0; i < (cis_int)F->norb * F->norb; ++i) F->h1[i] *= a;
  for (cis_int i = 0; i < F->neri; ++i) F->eri[i] *= b;
}

cis_status test_ci_load(const char *name, int level, cis_fcidump **F, cis_ci_space **S) {
  char sub[64], path[512];
  uint64_t a, b;
  cis_status st;
  *F = NULL;
  *S = NULL;
  snprintf(sub, sizeof sub, "ci/%s.FCIDUMP", name);
  if ((st = cis_fcidump_read(test_shared_path(path, sizeof path, sub), F)) != CIS_OK) return st;
  if ((st = cis_ci_find_reference(*F, &a, &b)) != CIS_OK) return st;
  return cis_ci_space_create(*F, level, a, b, S);
}

int test_nccl_or_skip(int ngpus, int min_gpus, cis_dist_comm **c) {
  char why[256];
  const int count = cis_gpu_count(why, sizeof why);
  *c = NULL;
  if (count == 0) return test_skip(why);
  if (count < min_gpus) {
    snprintf(why, sizeof why, "%d GPU%s present, %d needed for the multi-GPU path", count, count == 1 ? "" : "s", min_gpus);
    return test_skip(why);
  }
  cis_status st = cis_dist_comm_nccl(ngpus, c);
  if (st == CIS_ERR_UNSUPPORTED) return test_skip(cis_last_error());
  CHECK_OK(st);
  return 0;
}
