/* test_krylov_gpu.c: the device versions of the Krylov solvers (Aliaga,
 * Perez, Quintana-Orti, Euro-Par 2015 §4, plus graph) against each other and
 * against the host solver:
 *  - per solver (CG, BiCG, BiCGStab) +- Jacobi, float and double, every
 *    version reproduces the residual history of the `cuda` version over the
 *    first 20 iterations to rounding, and `cuda` reproduces the host's;
 *  - over every SpMV the solvers are meant to run on (csr-scalar,
 *    csr-vector, ell, sell, hyb, cuSPARSE csr-alg1), merge_10 and graph
 *    converge to the tolerance with the true residual below 10x it and the
 *    same iteration count as `cuda` (+-1);
 *  - breakdowns end with the same named end on the device (x finite);
 *  - mixed precision on the device reaches 1e-12;
 *  - scale invariance: s A (s = 1e+-150 ... 1e+-300) takes the iterations
 *    of A in every version, +- Jacobi.
 * Matrices: a 3D Laplacian (SPD, 20^3 = 8000 rows), add32 (unsymmetric,
 * 4960 rows) for BiCG and cage8 (unsymmetric, 1015 rows) for BiCGStab, all
 * far larger than a warp. BiCGStab on add32 converges too, but its residual
 * history is chaotic: the host solver alone takes 66, 114 or 72 iterations
 * with 1, 2 or 3 OpenMP threads (reduction order), so it cannot anchor a
 * comparison to rounding; cage8 takes 11 whatever the order. */
#include "gpu_cases.h"
#include "krylov_cases.h"
#include "core/internal.h"

#define HIST 21

typedef struct run {
  cis_status st;
  cis_krylov_info info;
  double hist[HIST];
  double relres, xerr;
} run;

/* Device buffers of x* = ones, b = A x*, x = x0 = 0 for operator op. */
static run solve_dev(cis_operator *op, cis_krylov_method m, cis_precond pc, cis_solver_version v, double tol, int maxit) {
  run r;
  memset(&r, 0, sizeof r);
  cis_int n = cis_operator_rows(op);
  cis_dtype t = cis_operator_dtype(op);
  size_t es = cis_dtype_size(t);
  void *h = malloc(n * es), *dxs = NULL, *db = NULL, *dx = NULL;
  for (cis_int i = 0; i < n; ++i) (t == CIS_F64) ? (((double *)h)[i] = 1) : (((float *)h)[i] = 1);
  CHECK_OK(cis_gpu_malloc(&dxs, n * es));
  CHECK_OK(cis_gpu_malloc(&db, n * es));
  CHECK_OK(cis_gpu_malloc(&dx, n * es));
  CHECK_OK(cis_gpu_upload(dxs, h, n * es));
  CHECK_OK(cis_operator_apply(op, 1.0, dxs, 0.0, db, NULL));
  memset(h, 0, n * es);
  CHECK_OK(cis_gpu_upload(dx, h, n * es));
  cis_krylov_opts o = krylov_opts(m, pc, v, tol, maxit, r.hist, HIST);
  r.st = cis_krylov_solve(op, db, dx, &o, &r.info);
  CHECK_OK(cis_true_residual(op, db, dx, dxs, &r.relres, &r.xerr));
  cis_gpu_free(dxs);
  cis_gpu_free(db);
  cis_gpu_free(dx);
  free(h);
  return r;
}

static run solve_host(const cis_csr *A, const cis_csr *At, cis_krylov_method m, cis_precond pc, double tol, int maxit) {
  run r;
  memset(&r, 0, sizeof r);
  host_solved h = solve_host_csr(A, At, m, pc, tol, maxit, r.hist, HIST);
  r.st = h.st;
  r.info = h.info;
  r.relres = h.relres;
  r.xerr = h.xerr;
  return r;
}

/* Largest relative difference of two residual histories over k < len,
 * while the reference is above `floor` (below it both are rounding noise). */
static double hist_diff(const double *a, const double *b, int len, double floor) {
  double d = 0;
  for (int k = 0; k < len && b[k] > floor; ++k) {
    if (!isfinite(a[k]) || !isfinite(b[k])) return INFINITY;
    double e = fabs(a[k] - b[k]) / fabs(b[k]);
    if (e > d) d = e;
  }
  return d;
}

/* A device operator of A (dtype t) with kernel `kernel` of format `format`
 * ("cusparse" = cuSPARSE csr-alg1), its transpose likewise; diagonal set. */
typedef struct dev_op {
  cis_matrix *M, *Mt;
  cis_gpu_plan *p, *pt;
  cis_operator *op, *opt;
  cis_csr *A, *At;
} dev_op;

static int dev_op_make(dev_op *d, const cis_csr *A64, cis_dtype t, const char *format, const char *kernel) {
  memset(d, 0, sizeof *d);
  cis_csr *At64 = NULL;
  double *diag = malloc(A64->rows * sizeof(double));
  CHECK_OK(cis_csr_transpose(A64, &At64));
  CHECK_OK(cis_csr_copy(A64, t, &d->A));
  CHECK_OK(cis_csr_copy(At64, t, &d->At));
  cis_csr_free(At64);
  if (!strcmp(format, "cusparse")) {
    CHECK_OK(cis_gpu_plan_create_cusparse(d->A, t, "csr-alg1", &d->p));
    CHECK_OK(cis_gpu_plan_create_cusparse(d->At, t, "csr-alg1", &d->pt));
  } else {
    cis_format_params fp = cis_format_params_default();
    fp.dtype = t;
    CHECK_OK(cis_matrix_create(d->A, format, &fp, &d->M));
    CHECK_OK(cis_matrix_create(d->At, format, &fp, &d->Mt));
    CHECK_OK(cis_gpu_plan_create(d->M, kernel, 0, &d->p));
    CHECK_OK(cis_gpu_plan_create(d->Mt, kernel, 0, &d->pt));
  }
  if (!d->p || !d->pt) return 0;
  CHECK_OK(cis_operator_from_gpu_plan(d->p, &d->op));
  CHECK_OK(cis_operator_from_gpu_plan(d->pt, &d->opt));
  CHECK_OK(cis_operator_set_transpose(d->op, d->opt));
  CHECK_OK(cis_csr_diagonal(A64, diag));
  CHECK_OK(cis_operator_set_diagonal(d->op, diag));
  free(diag);
  return d->op != NULL;
}

static void dev_op_free(dev_op *d) {
  cis_operator_free(d->op);
  cis_operator_free(d->opt);
  cis_gpu_plan_free(d->p);
  cis_gpu_plan_free(d->pt);
  cis_matrix_free(d->M);
  cis_matrix_free(d->Mt);
  cis_csr_free(d->A);
  cis_csr_free(d->At);
}

/* Histories: every version vs cuda, cuda vs host, on the csr-vector kernel. */
static void test_histories(const cis_csr *A64, const char *name, int m) {
  for (int t = 0; t < 2; ++t)
    for (int pc = 0; pc < 2; ++pc) {
      cis_dtype dt = t ? CIS_F32 : CIS_F64;
      /* two valid summation orders (the host backend's threads, the device's
       * reductions) differ by rounding that 20 iterations amplify: 1.3e-9 on
       * cage8 BiCGStab + Jacobi with the host on one thread; a wrong step is
       * off by 1e-3 or more */
      double tol = dt == CIS_F64 ? 1e-8 : 2e-3;
      dev_op d;
      if (!dev_op_make(&d, A64, dt, "csr", "csr-vector")) continue;
      run ref = solve_dev(d.op, (cis_krylov_method)m, (cis_precond)pc, CIS_VER_CUDA, 1e-30, HIST - 1);
      run host = solve_host(d.A, d.At, (cis_krylov_method)m, (cis_precond)pc, 1e-30, HIST - 1);
      CHECK(ref.info.iterations >= 8, "%s %s pc %d %s cuda: %d iterations (%s)", name,
            cis_krylov_method_name(m), pc, cis_dtype_name(dt), ref.info.iterations, cis_last_error());
      double floor = dt == CIS_F64 ? 1e-12 : 1e-5;
      double e = hist_diff(ref.hist, host.hist, HIST, floor);
      CHECK(e <= tol, "%s %s pc %d %s: cuda vs host history differs by %.3e", name, cis_krylov_method_name(m), pc,
            cis_dtype_name(dt), e);
      for (int v = 0; v < CIS_VER_COUNT; ++v) {
        if (v == CIS_VER_CUDA) continue;

        run r = solve_dev(d.op, (cis_krylov_method)m, (cis_precond)pc, (cis_solver_version)v, 1e-30, HIST - 1);

        e = hist_diff(r.hist, ref.hist, HIST, floor);
        CHECK(e <= tol, "%s %s pc %d %s %s: history differs from cuda by %.3e", name, cis_krylov_method_name(m), pc,
              cis_dtype_name(dt), cis_solver_version_name(v), e);
        CHECK((r.info.end == CIS_END_MAXIT && r.info.iterations == HIST - 1) || r.info.end == ref.info.end,
              "%s %s %s: end %s after %d", name,
              cis_krylov_method_name(m), cis_solver_version_name(v), cis_krylov_end_name(r.info.end),
              r.info.iterations);
      }
      dev_op_free(&d);
    }
}

/* Convergence over each SpMV kernel: merge_10 and graph vs cuda. */
static void test_kernels(const cis_csr *A64, const char *name, int m) {
  const char *fk[][2] = {{"csr", "csr-scalar"}, {"csr", "csr-vector"}, {"ell", "ell"}, {"sell", "sell"},
                         {"hyb", "hyb"}, {"cusparse", NULL}};
  for (size_t k = 0; k < sizeof fk / sizeof *fk; ++k)
    for (int t = 0; t < 2; ++t) {
      cis_dtype dt = t ? CIS_F32 : CIS_F64;
      double tol = dt == CIS_F64 ? 1e-10 : 1e-5;
      dev_op d;
      if (!dev_op_make(&d, A64, dt, fk[k][0], fk[k][1])) continue;
      run ref = solve_dev(d.op, (cis_krylov_method)m, CIS_PRECOND_JACOBI, CIS_VER_CUDA, tol, 3000);
      CHECK(ref.st == CIS_OK, "%s %s %s %s cuda: %s", name, cis_krylov_method_name(m), fk[k][0], cis_dtype_name(dt),
            cis_last_error());
      for (int v = CIS_VER_MERGE; v < CIS_VER_COUNT; ++v) {

        run r = solve_dev(d.op, (cis_krylov_method)m, CIS_PRECOND_JACOBI, (cis_solver_version)v, tol, 3000);

        CHECK(r.st == CIS_OK && r.relres <= 10 * tol, "%s %s %s/%s %s %s: %s, true relative residual %.3e", name,
              cis_krylov_method_name(m), fk[k][0], fk[k][1] ? fk[k][1] : "csr-alg1", cis_dtype_name(dt),
              cis_solver_version_name(v), cis_last_error(), r.relres);
        CHECK(dt == CIS_F32 || abs(r.info.iterations - ref.info.iterations) <= 1,
              "%s %s %s %s: %d iterations vs cuda %d", name, cis_krylov_method_name(m), fk[k][0],
              cis_solver_version_name(v), r.info.iterations, ref.info.iterations);
        CHECK(r.info.launches_per_iteration > 0, "%s: launches per iteration not counted", cis_solver_version_name(v));
      }
      dev_op_free(&d);
    }
}

/* CG on diag(1, -1, 1, -1, ...) breaks down (p^T A p <= 0) in every version. */
static void test_breakdown(void) {
  cis_int n = 1000;
  cis_coo *C = NULL;
  cis_csr *A = NULL;
  CHECK_OK(coo_alloc(n, n, n, CIS_F64, &C));
  for (cis_int i = 0; i < n; ++i) coo_push(C, (cis_idx)i, (cis_idx)i, i % 2 ? -1.0 : 1.0 + i * 1e-3);
  CHECK_OK(coo_to_csr(C, &A));
  dev_op d;
  if (dev_op_make(&d, A, CIS_F64, "csr", "csr-vector"))
    for (int v = 0; v < CIS_VER_COUNT; ++v) {
      run r = solve_dev(d.op, CIS_CG, CIS_PRECOND_NONE, (cis_solver_version)v, 1e-10, 100);
      CHECK(r.st == CIS_ERR_BREAKDOWN && r.info.end == CIS_END_BREAK_PAP && isfinite(r.xerr),
            "indefinite CG %s: %s, end %s, x error %g", cis_solver_version_name(v), cis_status_name(r.st),
            cis_krylov_end_name(r.info.end), r.xerr);
    }
  dev_op_free(&d);
  coo_free(C);
  cis_csr_free(A);
}

/* Scaled matrices in every version: s A (s = 1e+-150 ... 1e+-300, double)
 * takes the iterations of A in the same version (within 1) to a true
 * relative residual below 10 tol; the wrapped operator of the extreme
 * scales runs unfused, 1e+-150 fused. */
static void test_scaled(const cis_csr *A64, const char *name, int m) {
  const double tol = 1e-10;
  dev_op d0;
  if (!dev_op_make(&d0, A64, CIS_F64, "csr", "csr-vector")) return;
  for (int pc = 0; pc < 2; ++pc)
    for (int v = 0; v < CIS_VER_COUNT; ++v) {
      run ref = solve_dev(d0.op, (cis_krylov_method)m, (cis_precond)pc, (cis_solver_version)v, tol, 3000);
      for (int k = 0; k < KRYLOV_NSCALES; ++k) {
        cis_csr *S = scaled_csr(A64, krylov_scales[k]);
        dev_op d;
        if (S && dev_op_make(&d, S, CIS_F64, "csr", "csr-vector")) {

          run r = solve_dev(d.op, (cis_krylov_method)m, (cis_precond)pc, (cis_solver_version)v, tol, 3000);

          CHECK(r.st == CIS_OK && r.relres <= 10 * tol && abs(r.info.iterations - ref.info.iterations) <= 1,
                "%s %s pc %d scaled by %g, %s: %s, %d iterations (unscaled %d), true relative residual %.3e",
                name, cis_krylov_method_name(m), pc, krylov_scales[k], cis_solver_version_name(v), cis_last_error(),
                r.info.iterations, ref.info.iterations, r.relres);
          dev_op_free(&d);
        }
        cis_csr_free(S);
      }
    }
  dev_op_free(&d0);
}

static void test_mixed(const cis_csr *A64) {
  dev_op d64, d32;
  if (!dev_op_make(&d64, A64, CIS_F64, "csr", "csr-vector") || !dev_op_make(&d32, A64, CIS_F32, "csr", "csr-vector"))
    return;
  cis_int n = A64->rows;
  double *h = malloc(n * sizeof(double));
  void *dxs = NULL, *db = NULL, *dx = NULL;
  for (cis_int i = 0; i < n; ++i) h[i] = 1;
  CHECK_OK(cis_gpu_malloc(&dxs, n * 8));
  CHECK_OK(cis_gpu_malloc(&db, n * 8));
  CHECK_OK(cis_gpu_malloc(&dx, n * 8));
  CHECK_OK(cis_gpu_upload(dxs, h, n * 8));
  CHECK_OK(cis_operator_apply(d64.op, 1.0, dxs, 0.0, db, NULL));
  memset(h, 0, n * 8);
  CHECK_OK(cis_gpu_upload(dx, h, n * 8));
  cis_krylov_opts o = cis_krylov_opts_default();
  o.precond = CIS_PRECOND_JACOBI;
  o.tol = 1e-12;
  o.maxit = 3000;
  cis_krylov_info inf;
  int outer = 0;
  double rel = NAN, err;

  cis_status st = cis_krylov_solve_mixed(d64.op, d32.op, db, dx, &o, 1e-4, &inf, &outer);

  CHECK_OK(cis_true_residual(d64.op, db, dx, dxs, &rel, &err));
  CHECK(st == CIS_OK && rel <= 1e-12, "device mixed precision: %s, true relative residual %.3e", cis_last_error(), rel);
  cis_gpu_free(dxs);
  cis_gpu_free(db);
  cis_gpu_free(dx);
  free(h);
  dev_op_free(&d64);
  dev_op_free(&d32);
}

int main(void) {
  char why[200], path[512];
  cis_csr *L = NULL, *U = NULL, *C = NULL;
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  CHECK_OK(cis_generate("laplace3d:size=20,points=7", CIS_F64, &L));
  CHECK_OK(cis_load(test_shared_path(path, sizeof path, "matrices/add32.mtx"), CIS_F64, &U));
  CHECK_OK(cis_load(test_shared_path(path, sizeof path, "matrices/cage8.mtx"), CIS_F64, &C));
  if (!L || !U || !C) return test_summary("test_krylov_gpu");

  test_histories(L, "laplace 20^3", CIS_CG);
  test_histories(U, "add32", CIS_BICG);
  test_histories(C, "cage8", CIS_BICGSTAB);
  test_kernels(L, "laplace 20^3", CIS_CG);
  test_kernels(U, "add32", CIS_BICG);
  test_kernels(C, "cage8", CIS_BICGSTAB);
  test_breakdown();
  test_mixed(L);
  test_scaled(L, "laplace 20^3", CIS_CG);
  test_scaled(U, "add32", CIS_BICG);
  test_scaled(C, "cage8", CIS_BICGSTAB);

  cis_csr_free(L);
  cis_csr_free(U);
  cis_csr_free(C);
  return test_summary("test_krylov_gpu");
}
