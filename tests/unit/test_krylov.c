/* test_krylov.c: the Krylov solvers on the host backend (the CPU versions;
 * tests/gpu/test_krylov_gpu.c holds the device versions to these).
 *  - tiny exact cases a reviewer can check by hand (3x3 CG, 2x2 breakdowns);
 *  - CG +- Jacobi on 3D Laplacians, float and double; BiCG and BiCGStab
 *    +- Jacobi on the unsymmetric add32 and cage8 (SuiteSparse; both converge
 *    with and without Jacobi);
 *  - every breakdown and refusal: p^T A p <= 0, (p~, q) = 0, rho = 0,
 *    omega = 0, maxit, zero diagonal with Jacobi, NaN in b, missing A^T;
 *  - b = 0, the residual history, symmetric storage, mixed precision;
 *  - scale invariance: s A for s = 1e+-150 ... 1e+-300 takes the iterations
 *    of A, to the same true relative residual, with every method +- Jacobi. */
#include <stdlib.h>
#include <string.h>
#include "krylov_cases.h"
#include "core/internal.h"
#include "operators/operator_internal.h"

typedef host_solved solved;

static solved solve(const cis_csr *A, const cis_csr *At, cis_krylov_method m, cis_precond pc, double tol, int maxit,
                    double *hist, int hist_len) {
  return solve_host_csr(A, At, m, pc, tol, maxit, hist, hist_len);
}

static cis_csr *load(const char *spec, cis_dtype t) {
  cis_csr *A = NULL;
  char path[512];
  const char *p = strchr(spec, ':') ? spec : test_shared_path(path, sizeof path, spec);
  CHECK_OK(cis_load(p, t, &A));
  return A;
}

static void test_tiny_cg(void) {
  /* A = [4 1 0; 1 3 1; 0 1 2] (SPD): CG ends in at most 3 iterations, exact to rounding. */
  const double d[9] = {4, 1, 0, 1, 3, 1, 0, 1, 2};
  cis_csr *A = test_csr_from_dense(3, 3, d, CIS_F64);

  solved r = solve(A, NULL, CIS_CG, CIS_PRECOND_NONE, 1e-14, 10, NULL, 0);

  CHECK(r.st == CIS_OK, "tiny CG: %s", cis_last_error());
  CHECK(r.info.iterations <= 3, "tiny CG took %d iterations (at most n = 3)", r.info.iterations);
  CHECK(r.xerr < 1e-13, "tiny CG error %.3e", r.xerr);
  cis_csr_free(A);
}

static void test_laplace_cg(void) {
  for (int t = 0; t < 2; ++t)
    for (int pc = 0; pc < 2; ++pc) {
      cis_dtype dt = t ? CIS_F32 : CIS_F64;
      cis_csr *A = load("laplace3d:size=12,points=7", dt);
      double tol = dt == CIS_F64 ? 1e-10 : 1e-5;
      double hist[40];

      solved r = solve(A, NULL, CIS_CG, (cis_precond)pc, tol, 500, hist, 40);

      CHECK(r.st == CIS_OK && r.info.end == CIS_END_CONVERGED, "CG %s pc %d: %s", cis_dtype_name(dt), pc, cis_last_error());
      CHECK(r.relres <= 10 * tol, "CG %s pc %d: true relative residual %.3e > 10 tol", cis_dtype_name(dt), pc, r.relres);
      CHECK(r.info.iterations > 5 && r.info.iterations < 200, "CG iterations %d", r.info.iterations);
      CHECK(fabs(hist[0] - 1) < 1e-6, "history[0] = %g, expected 1 (x0 = 0)", hist[0]);
      CHECK(r.info.history_written == (r.info.iterations + 1 < 40 ? r.info.iterations + 1 : 40), "history written %d",
            r.info.history_written);
      CHECK(isfinite(hist[1]) && hist[1] < hist[0] * 1.5, "history[1] = %g", hist[1]);
      cis_csr_free(A);
    }
}

static void test_unsymmetric(void) {
  const char *mats[] = {"matrices/add32.mtx", "matrices/cage8.mtx"};
  for (int k = 0; k < 2; ++k)
    for (int m = CIS_BICG; m <= CIS_BICGSTAB; ++m)
      for (int pc = 0; pc < 2; ++pc) {
        cis_csr *A = load(mats[k], CIS_F64), *At = NULL;
        if (!A) continue; /* the failed load is already a reported failure */
        CHECK_OK(cis_csr_transpose(A, &At));

        solved r = solve(A, At, (cis_krylov_method)m, (cis_precond)pc, 1e-10, 2000, NULL, 0);

        CHECK(r.st == CIS_OK, "%s %s pc %d: %s", mats[k], cis_krylov_method_name(m), pc, cis_last_error());
        CHECK(r.relres <= 1e-9, "%s %s pc %d: true relative residual %.3e", mats[k], cis_krylov_method_name(m), pc, r.relres);
        cis_csr_free(A);
        cis_csr_free(At);
      }
}

/* Solve a 2x2 (or small dense) case and expect a given end and status. */
static void expect_end(const char *what, int n, const double *dense, const double *bv, cis_krylov_method m,
                       cis_precond pc, cis_krylov_end end, cis_status want) {
  cis_csr *A = test_csr_from_dense(n, n, dense, CIS_F64), *At = NULL;
  cis_operator *op = NULL, *opt = NULL;
  double x[8] = {0}, b[8];
  memcpy(b, bv, n * sizeof(double));
  CHECK_OK(cis_csr_transpose(A, &At));
  CHECK_OK(cis_operator_from_csr(A, &op));
  CHECK_OK(cis_operator_from_csr(At, &opt));
  CHECK_OK(cis_operator_set_transpose(op, opt));
  cis_krylov_opts o = cis_krylov_opts_default();
  o.method = m;
  o.precond = pc;
  cis_krylov_info inf;

  cis_status st = cis_krylov_solve(op, b, x, &o, &inf);

  CHECK(st == want, "%s: status %s (%s), expected %s", what, cis_status_name(st), cis_last_error(), cis_status_name(want));
  CHECK(inf.end == end, "%s: end '%s', expected '%s'", what, cis_krylov_end_name(inf.end), cis_krylov_end_name(end));
  CHECK(strchr(cis_last_error(), '\n') == NULL && strlen(cis_last_error()) > 10, "%s: one-line message", what);
  for (int i = 0; i < n; ++i) CHECK(isfinite(x[i]), "%s: x[%d] is not finite after the breakdown", what, i);
  cis_operator_free(op);
  cis_operator_free(opt);
  cis_csr_free(A);
  cis_csr_free(At);
}

static void test_breakdowns(void) {
  const double indef[4] = {1, 0, 0, -1}, swap[4] = {0, 1, 1, 0}, omega[4] = {1, 1, 0, 0};
  const double b1[2] = {1, 2}, b10[2] = {1, 0}, b11[2] = {1, 1};
  /* CG on diag(1,-1), b = (1,2): p^T A p = 1 - 4 < 0 */
  expect_end("CG indefinite", 2, indef, b1, CIS_CG, CIS_PRECOND_NONE, CIS_END_BREAK_PAP, CIS_ERR_BREAKDOWN);
  /* BiCG on [0 1; 1 0], b = (1,0): q = A p = (0,1), (p~, q) = 0 */
  expect_end("BiCG (p~,q)=0", 2, swap, b10, CIS_BICG, CIS_PRECOND_NONE, CIS_END_BREAK_RV, CIS_ERR_BREAKDOWN);
  /* BiCGStab on the same: (r^, v) = 0 */
  expect_end("BiCGStab (r^,v)=0", 2, swap, b10, CIS_BICGSTAB, CIS_PRECOND_NONE, CIS_END_BREAK_RV, CIS_ERR_BREAKDOWN);
  /* BiCG + Jacobi on diag(1,-1), b = (1,1): rho = (M^-1 r, r) = 1 - 1 = 0 */
  expect_end("BiCG rho=0", 2, indef, b11, CIS_BICG, CIS_PRECOND_JACOBI, CIS_END_BREAK_RHO, CIS_ERR_BREAKDOWN);
  /* PCG on the same: (r, M^-1 r) = 0, said in CG's terms (not BiCG's "rho = 0") */
  expect_end("PCG (r, M^-1 r)=0", 2, indef, b11, CIS_CG, CIS_PRECOND_JACOBI, CIS_END_BREAK_RHO, CIS_ERR_BREAKDOWN);
  CHECK(strstr(cis_last_error(), "cg (jacobi): breakdown: (r, M^-1 r) = 0") &&
            strstr(cis_last_error(), "not positive definite") && !strstr(cis_last_error(), "rho"),
        "PCG breakdown message: %s", cis_last_error());
  /* BiCGStab on [1 1; 0 0] (singular), b = (1,1): s = (-1,1), t = A s = 0: omega = 0 */
  expect_end("BiCGStab omega=0", 2, omega, b11, CIS_BICGSTAB, CIS_PRECOND_NONE, CIS_END_BREAK_OMEGA, CIS_ERR_BREAKDOWN);
}

static void test_refusals(void) {
  cis_csr *A = load("laplace3d:size=6,points=7", CIS_F64);
  cis_operator *op = NULL;
  cis_int n = A->rows;
  double *b = calloc(n, sizeof(double)), *x = calloc(n, sizeof(double));
  cis_krylov_opts o = cis_krylov_opts_default();
  cis_krylov_info inf;
  CHECK_OK(cis_operator_from_csr(A, &op));
  for (cis_int i = 0; i < n; ++i) b[i] = 1;

  /* maxit */
  o.maxit = 3;
  CHECK(cis_krylov_solve(op, b, x, &o, &inf) == CIS_ERR_NOT_CONVERGED && inf.end == CIS_END_MAXIT &&
            inf.iterations == 3, "maxit 3: %s, %d iterations", cis_last_error(), inf.iterations);
  CHECK(strstr(cis_last_error(), "maxit") != NULL, "maxit message: %s", cis_last_error());
  /* bad options */
  o = cis_krylov_opts_default();
  o.tol = 0;
  CHECK(cis_krylov_solve(op, b, x, &o, &inf) == CIS_ERR_INVALID, "tol 0 accepted");
  o = cis_krylov_opts_default();
  o.maxit = 0;
  CHECK(cis_krylov_solve(op, b, x, &o, &inf) == CIS_ERR_INVALID, "maxit 0 accepted");
  o = cis_krylov_opts_default();
  o.method = CIS_BICG;
  CHECK(cis_krylov_solve(op, b, x, &o, &inf) == CIS_ERR_INVALID && strstr(cis_last_error(), "A^T"),
        "BiCG without A^T: %s", cis_last_error());
  /* NaN in b */
  o = cis_krylov_opts_default();
  b[3] = NAN;
  CHECK(cis_krylov_solve(op, b, x, &o, &inf) == CIS_ERR_NUMERIC, "NaN in b: %s", cis_last_error());
  /* b = 0: x = 0 in 0 iterations */
  for (cis_int i = 0; i < n; ++i) { b[i] = 0; x[i] = 5; }
  CHECK(cis_krylov_solve(op, b, x, &o, &inf) == CIS_OK && inf.iterations == 0 && x[0] == 0 && x[n - 1] == 0,
        "b = 0: %s", cis_last_error());
  cis_operator_free(op);

  /* Jacobi with a zero on the diagonal is refused before the first iteration */
  const double zd[9] = {2, 1, 0, 1, 0, 1, 0, 1, 2};
  cis_csr *Z = test_csr_from_dense(3, 3, zd, CIS_F64);
  double bz[3] = {1, 1, 1}, xz[3] = {0, 0, 0};
  CHECK_OK(cis_operator_from_csr(Z, &op));
  o.precond = CIS_PRECOND_JACOBI;
  CHECK(cis_krylov_solve(op, bz, xz, &o, &inf) == CIS_ERR_INVALID && strstr(cis_last_error(), "element 2 is zero"),
        "zero diagonal with jacobi: %s", cis_last_error());
  /* an operator without a diagonal (callback) is refused for jacobi */
  cis_operator_free(op);
  cis_csr_free(Z);
  free(b);
  free(x);
  cis_csr_free(A);
}

static void test_symmetric_storage(void) {
  cis_csr *A = load("laplace3d:size=10,points=27", CIS_F64), *U = NULL;
  CHECK_OK(csr_upper(A, &U));
  solved full = solve(A, NULL, CIS_CG, CIS_PRECOND_JACOBI, 1e-10, 500, NULL, 0);

  solved sym = solve(U, NULL, CIS_CG, CIS_PRECOND_JACOBI, 1e-10, 500, NULL, 0);

  CHECK(sym.st == CIS_OK && sym.xerr < 1e-8, "CG on symmetric storage: %s, error %.3e", cis_last_error(), sym.xerr);
  CHECK(abs(sym.info.iterations - full.info.iterations) <= 1, "symmetric storage %d vs full %d iterations",
        sym.info.iterations, full.info.iterations);
  cis_csr_free(A);
  cis_csr_free(U);
}

static void test_mixed(void) {
  cis_csr *A = load("laplace3d:size=12,points=7", CIS_F64), *A32 = NULL;
  cis_operator *o64 = NULL, *o32 = NULL;
  cis_int n = A->rows;
  double *xs = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)), *x = calloc(n, sizeof(double));
  for (cis_int i = 0; i < n; ++i) xs[i] = 1;
  CHECK_OK(cis_csr_spmv(A, 1.0, xs, 0.0, b));
  CHECK_OK(cis_csr_copy(A, CIS_F32, &A32));
  CHECK_OK(cis_operator_from_csr(A, &o64));
  CHECK_OK(cis_operator_from_csr(A32, &o32));
  cis_krylov_opts o = cis_krylov_opts_default();
  o.precond = CIS_PRECOND_JACOBI;
  o.tol = 1e-12;
  o.maxit = 2000;
  cis_krylov_info inf;
  int outer = 0;
  double rel, err;

  cis_status st = cis_krylov_solve_mixed(o64, o32, b, x, &o, 1e-4, &inf, &outer);

  CHECK_OK(cis_true_residual(o64, b, x, xs, &rel, &err));
  CHECK(st == CIS_OK && rel <= 1e-12, "mixed precision: %s, true relative residual %.3e", cis_last_error(), rel);
  CHECK(outer >= 2 && inf.iterations > 0, "mixed precision: %d refinement steps, %d inner iterations", outer,
        inf.iterations);
  cis_operator_free(o64);
  cis_operator_free(o32);
  cis_csr_free(A);
  cis_csr_free(A32);
  free(xs);
  free(b);
  free(x);
}

/* Every CPU format and a callback give the same operator. */
static cis_status cb_apply(void *ctx, double alpha, const void *x, double beta, void *y, cis_stream s) {
  return cis_csr_spmv(ctx, alpha, x, beta, y);
}
static void test_operators(void) {
  cis_csr *A = load("laplace3d:size=8,points=27", CIS_F64);
  cis_int n = A->rows;
  double *x = malloc(n * sizeof(double)), *y0 = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  test_fill_random(x, CIS_F64, n, 7);
  CHECK_OK(cis_csr_spmv(A, 1.0, x, 0.0, y0));
  for (int f = 0; f < cis_format_count(); ++f) {
    cis_matrix *M = NULL;
    cis_operator *op = NULL;
    cis_format_params p = cis_format_params_default();
    CHECK_OK(cis_matrix_create(A, cis_format_name(f), &p, &M));
    CHECK_OK(cis_operator_from_matrix(M, &op));
    test_fill_nan(y, CIS_F64, n);
    CHECK_OK(cis_operator_apply(op, 1.0, x, 0.0, y, NULL));
    CHECK(test_rel_err(y, y0, CIS_F64, n) < 1e-13, "operator on %s differs", cis_format_name(f));
    CHECK(operator_memspace(op) == CIS_MEM_HOST && cis_operator_rows(op) == n, "operator shape");
    cis_operator_free(op);
    cis_matrix_free(M);
  }
  cis_operator *cb = NULL;
  CHECK_OK(cis_operator_from_callback(n, n, CIS_F64, CIS_MEM_HOST, cb_apply, A, NULL, &cb));
  test_fill_nan(y, CIS_F64, n);
  CHECK_OK(cis_operator_apply(cb, 1.0, x, 0.0, y, NULL));
  CHECK(test_rel_err(y, y0, CIS_F64, n) < 1e-15, "callback operator differs");
  /* a callback has no diagonal: jacobi is refused */
  cis_krylov_opts o = cis_krylov_opts_default();
  o.precond = CIS_PRECOND_JACOBI;
  CHECK(cis_krylov_solve(cb, y0, y, &o, NULL) == CIS_ERR_INVALID && strstr(cis_last_error(), "diag"),
        "jacobi without a diagonal: %s", cis_last_error());
  cis_operator_free(cb);
  free(x);
  free(y0);
  free(y);
  cis_csr_free(A);
}

/* Scaled matrices: the same iterations (within 1) and true relative
 * residual (within a factor 2, and below tol) as the unscaled one. */
static void test_scaled(void) {
  const char *mats[] = {"laplace3d:size=10,points=7", "matrices/add32.mtx", "matrices/cage8.mtx"};
  for (int m = CIS_CG; m <= CIS_BICGSTAB; ++m)
    for (int pc = 0; pc < 2; ++pc) {
      cis_csr *A = load(mats[m], CIS_F64), *At = NULL;
      if (!A) continue;
      CHECK_OK(cis_csr_transpose(A, &At));
      solved r0 = solve(A, At, (cis_krylov_method)m, (cis_precond)pc, 1e-10, 2000, NULL, 0);
      CHECK(r0.st == CIS_OK, "unscaled %s pc %d: %s", cis_krylov_method_name(m), pc, cis_last_error());
      for (int k = 0; k < KRYLOV_NSCALES; ++k) {
        double sc = krylov_scales[k];
        cis_csr *S = scaled_csr(A, sc), *St = scaled_csr(At, sc);

        solved r = solve(S, St, (cis_krylov_method)m, (cis_precond)pc, 1e-10, 2000, NULL, 0);

        const char *name = cis_krylov_method_name(m);
        CHECK(r.st == CIS_OK, "%s pc %d scaled by %g: %s", name, pc, sc, cis_last_error());
        CHECK(abs(r.info.iterations - r0.info.iterations) <= 1, "%s pc %d scaled by %g: %d iterations, unscaled %d",
              name, pc, sc, r.info.iterations, r0.info.iterations);
        CHECK(r.relres <= 1e-9 && r.relres <= 2 * r0.relres + 1e-15 && r.relres >= r0.relres / 2 - 1e-15,
              "%s pc %d scaled by %g: true relative residual %.3e, unscaled %.3e", name, pc, sc, r.relres, r0.relres);
        CHECK(fabs(r.info.rel_residual - r0.info.rel_residual) <= 0.5 * r0.info.rel_residual + 1e-15,
              "%s pc %d scaled by %g: reported residual %.3e, unscaled %.3e", name, pc, sc, r.info.rel_residual,
              r0.info.rel_residual);
        CHECK(r.xerr < 1e-6, "%s pc %d scaled by %g: error %.3e", name, pc, sc, r.xerr);
        cis_csr_free(S);
        cis_csr_free(St);
      }
      cis_csr_free(A);
      cis_csr_free(At);
    }
}

int main(void) {
  test_tiny_cg();
  test_laplace_cg();
  test_unsymmetric();
  test_breakdowns();
  test_refusals();
  test_symmetric_storage();
  test_mixed();
  test_operators();
  test_scaled();
  return test_summary("test_krylov");
}
