/* krylov_cases.h: the paper's problem (x* = ones, b = A x*, x0 = 0) solved
 * on a host operator of a CSR, shared by tests/unit/test_krylov.c and
 * tests/gpu/test_krylov_gpu.c (static helpers, included by each). */
#ifndef CIS_KRYLOV_CASES_H
#define CIS_KRYLOV_CASES_H

#include <stdlib.h>
#include <string.h>
#include "test_util.h"

typedef struct host_solved {
  cis_status st;
  cis_krylov_info info;
  double relres, xerr; /* true relative residual and error vs x* */
} host_solved;

/* Options for method m, preconditioner pc, version v, tol, maxit, history
 * hist[0..hist_len) (set to NaN first; hist may be NULL). */
static inline cis_krylov_opts krylov_opts(cis_krylov_method m, cis_precond pc, cis_solver_version v, double tol,
                                          int maxit, double *hist, int hist_len) {
  cis_krylov_opts o = cis_krylov_opts_default();
  for (int k = 0; hist && k < hist_len; ++k) hist[k] = NAN;
  o.method = m;
  o.precond = pc;
  o.version = v;
  o.tol = tol;
  o.maxit = maxit;
  o.history = hist;
  o.history_len = hist_len;
  return o;
}

/* Solve A x = A*ones from x0 = 0 on cis_operator_from_csr(A) (symmetric
 * storage included: b is the full product), At (may be NULL) as A^T for
 * BiCG; hist (may be NULL) receives hist_len residuals. */
static inline host_solved solve_host_csr(const cis_csr *A, const cis_csr *At, cis_krylov_method m, cis_precond pc,
                                         double tol, int maxit, double *hist, int hist_len) {
  host_solved r;
  memset(&r, 0, sizeof r);
  cis_operator *op = NULL, *opt = NULL;
  size_t es = cis_dtype_size(A->dtype);
  void *xs = malloc(A->rows * es), *b = malloc(A->rows * es), *x = calloc(A->rows, es);
  for (cis_int i = 0; i < A->rows; ++i) cis_set(xs, A->dtype, i, 1.0);
  CHECK_OK(cis_operator_from_csr(A, &op));
  CHECK_OK(cis_operator_apply(op, 1.0, xs, 0.0, b, NULL));
  if (At) {
    CHECK_OK(cis_operator_from_csr(At, &opt));
    CHECK_OK(cis_operator_set_transpose(op, opt));
  }
  cis_krylov_opts o = krylov_opts(m, pc, CIS_VER_MERGE_10, tol, maxit, hist, hist_len);
  r.st = cis_krylov_solve(op, b, x, &o, &r.info);
  CHECK_OK(cis_true_residual(op, b, x, xs, &r.relres, &r.xerr));
  cis_operator_free(op);
  cis_operator_free(opt);
  free(xs);
  free(b);
  free(x);
  return r;
}

/* A copy of the double CSR A with every value times s (the scaled-matrix
 * cases: a solver must give the same iterations and true relative residual
 * for s A as for A). */
static inline cis_csr *scaled_csr(const cis_csr *A, double s) {
  cis_csr *B = NULL;
  CHECK_OK(cis_csr_copy(A, CIS_F64, &B));
  for (cis_int k = 0; B && k < B->nnz; ++k) ((double *)B->val)[k] *= s;
  return B;
}

/* The scales of the scaled-matrix cases: past the square root of the
 * double range (1e+-155, 1e+-170: (b, b) under- or overflows) up to 1e+-300. */
static const double krylov_scales[] = {1e-300, 1e-170, 1e-155, 1e-150, 1e150, 1e155, 1e170, 1e300};
#define KRYLOV_NSCALES ((int)(sizeof krylov_scales / sizeof *krylov_scales))

#endif
