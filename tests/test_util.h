/* test_util.h: a minimal test harness (arrange / act / assert) and helpers.
 * CHECK(cond, fmt, ...) records a failure with file:line and continues;
 * a test's main returns test_summary(). Exit 77 = skipped (CTest). */
#ifndef CIS_TEST_UTIL_H
#define CIS_TEST_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include "cisparse/cisparse.h"
/* the tool library (tests link it): clock, median, energy, paper bytes,
 * and (the bench library) the device timings of bench/gpu_bench.h */
#include "tool/tool.h"

extern int test_failures, test_checks;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    test_checks++;                                                    \
    if (!(cond)) {                                                    \
      test_failures++;                                                \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);            \
      fprintf(stderr, __VA_ARGS__);                                   \
      fputc('\n', stderr);                                            \
    }                                                                 \
  } while (0)

#define CHECK_OK(call)                                                                    \
  do {                                                                                    \
    cis_status st_ = (call);                                                              \
    CHECK(st_ == CIS_OK, "%s -> %s: %s", #call, cis_status_name(st_), cis_last_error()); \
  } while (0)

/* Print "name: N checks, F failures" and return 0 (checks made, none
 * failed) or 1 (a failure, or no check at all: a test that cannot run says
 * so through test_skip instead). */
int test_summary(const char *name);
/* Skip the whole test (prints reason, returns 77). */
int test_skip(const char *reason);

/* Allocation failure made to happen at every allocation of one call (the
 * CSparse test; test_format_errors.c's loop): call(ctx) runs once freely to
 * count its allocations through the library's allocator (none is a failure:
 * a call that stopped using it would pass a loop that only accepts "OK or
 * ALLOC"), then once with each allocation n = 1..count made to fail, where
 * it must return CIS_ERR_ALLOC, then with n = count + 1, where it must
 * succeed after the same count. undo(ctx) (NULL: nothing to undo) frees what
 * each run made, whatever its status, and may check that a failed run left
 * its outputs NULL. `what` names the call in the messages. Returns the count
 * (0 when the free run failed: a failed check recorded). */
int64_t test_alloc_every(const char *what, cis_status (*call)(void *ctx), void (*undo)(void *ctx), void *ctx);

/* test_alloc_every over cis_matrix_create(A, format, p): a failed build
 * must leave no matrix. */
int64_t test_alloc_every_build(const cis_csr *A, const char *format, const cis_format_params *p);

/* Relative error ||a-b||_2 / max(||b||_2, tiny); NaN anywhere -> +inf. */
double test_rel_err(const void *a, const void *b, cis_dtype t, cis_int n);
/* Tolerance for SpMV results in precision t: 1e-12 double, 1e-5 float. */
double test_tol(cis_dtype t);
/* Fill n values with deterministic pseudo-random numbers in [-1, 1). */
void test_fill_random(void *x, cis_dtype t, cis_int n, unsigned long long seed);
/* Fill n values with NaN (poison). */
void test_fill_nan(void *x, cis_dtype t, cis_int n);
/* A CSR from a dense row-major array (zeros dropped), dtype t. */
cis_csr *test_csr_from_dense(cis_int rows, cis_int cols, const double *dense, cis_dtype t);
/* Path of a shared matrix (../shared/matrices/NAME) into buf. */
const char *test_shared_path(char *buf, size_t n, const char *sub);
/* An NCCL communicator over ngpus GPUs (0: all) into *c, or the test
 * skipped: returns 77 (test_skip, the reason printed) without a GPU, with
 * fewer than min_gpus, or without NCCL; else 0 (*c NULL when the
 * communicator failed: a failed check recorded). */
int test_nccl_or_skip(int ngpus, int min_gpus, cis_dist_comm **c);
/* The shared FCIDUMP ci/NAME.FCIDUMP and its space at `level` (-1 full CI)
 * around the reference determinant; free both (NULL where not made). */
cis_status test_ci_load(const char *name, int level, cis_fcidump **F, cis_ci_space **S);
/* max_r ||H x_r - e_r x_r|| over k eigenpairs (x_r at X + r*rows) with the
 * reference SpMV, H double; +inf if a workspace cannot be allocated. */
double test_eig_max_residual(const cis_csr *H, const double *e, const double *X, int k);
/* New integrals in place for cis_ci_direct_set_integrals tests: h1 *= a,
 * (pq|rs) *= b (the symmetry of both is kept). */
void test_scale_integrals(cis_fcidump *F, double a, double b);

#endif
