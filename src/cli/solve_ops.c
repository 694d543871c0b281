/* solve_ops.c: what one solve and the sweep run: the problem, one
 * precision's operators and vectors, one configuration's repeated solves
 * (the energy window around them: bench_energy.c), the true residual and
 * the line for a solve that did not converge. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/solve.h"

const char *solve_precond_name(int p) { return p == CIS_PRECOND_JACOBI ? "jacobi" : "none"; }
const char *solve_sync_name(int s) { return s == CIS_SYNC_BLOCKING ? "blocking" : "spin"; }
const char *solve_precision_name(int p) {
  return p == PREC_SINGLE ? "single" : p == PREC_MIXED ? "mixed" : "double";
}


/* ---- the problem: A, b = A x*, x*, diag(A), A^T, a host double operator ---- */

void solve_problem_free(problem *pb) {
  cis_operator_free(pb->host64);
  cis_csr_free(pb->A);
  cis_csr_free(pb->At);
  free(pb->b);
  free(pb->xstar);
  free(pb->diag);
  memset(pb, 0, sizeof *pb);
}

cis_status solve_problem_make(const solve_opts *o, int need_transpose, problem *pb) {
  cis_status st;
  size_t n;
  memset(pb, 0, sizeof *pb);
  pb->zero_diag = -1;
  if ((st = cli_load(o->matrix, CIS_F64, &pb->A)) != CIS_OK) return st;
  if (pb->A->rows != pb->A->cols)
    return cis_error(CIS_ERR_INVALID, "%s is %lld x %lld: the Krylov solvers need a square matrix", o->matrix,
                     (long long)pb->A->rows, (long long)pb->A->cols);
  if (pb->A->rows == 0) return cis_error(CIS_ERR_INVALID, "%s is empty (0 rows)", o->matrix);
  n = (size_t)pb->A->rows;
  pb->b = malloc(n * sizeof(double));
  pb->diag = malloc(n * sizeof(double));
  if (!o->rhs) pb->xstar = malloc(n * sizeof(double));
  if (!pb->b || !pb->diag || (!o->rhs && !pb->xstar))
    return cis_error(CIS_ERR_ALLOC, "cannot allocate host vectors for %zu rows", n);
  if ((st = cis_csr_diagonal(pb->A, pb->diag)) != CIS_OK) return st;
  for (size_t i = 0; i < n && pb->zero_diag < 0; ++i)
    if (pb->diag[i] == 0) pb->zero_diag = (cis_int)i;
  if (o->rhs) {
    void *v = NULL;
    if ((st = cis_vector_read(o->rhs, CIS_F64, (cis_int)n, &v)) != CIS_OK) return st;
    memcpy(pb->b, v, n * sizeof(double));
    cis_free(v);
  } else {
    for (size_t i = 0; i < n; ++i) pb->xstar[i] = 1.0;
    if ((st = cis_csr_spmv(pb->A, 1.0, pb->xstar, 0.0, pb->b)) != CIS_OK) return st;
  }
  for (size_t i = 0; i < n; ++i)
    if (!isfinite(pb->b[i]))
      return cis_error(CIS_ERR_NUMERIC, "b = A*ones has a non-finite entry in row %zu (the matrix holds NaN or Inf)", i + 1);
  if (need_transpose && (st = cis_csr_transpose(pb->A, &pb->At)) != CIS_OK) return st;
  return cis_operator_from_csr(pb->A, &pb->host64);
}

/* ---- one precision's operators and vectors -------------------------------- */

void solve_vec_free(cis_memspace where, void *p) {
  if (where == CIS_MEM_DEVICE) cis_gpu_free(p);
  else free(p);
}

/* A vector of n values of type t in `where`, from host doubles (NULL: zeros). */
cis_status solve_vec_make(cis_memspace where, cis_dtype t, const double *src, cis_int n, void **out) {
  size_t vs = cis_dtype_size(t), bytes = vs * (size_t)n;
  cis_status st = CIS_OK;
  void *h = calloc((size_t)n, vs);
  *out = NULL;
  if (!h) return cis_error(CIS_ERR_ALLOC, "cannot allocate a host vector of %lld values", (long long)n);
  for (cis_int i = 0; src && i < n; ++i) {
    if (t == CIS_F64) ((double *)h)[i] = src[i];
    else ((float *)h)[i] = (float)src[i];
  }
  if (where == CIS_MEM_HOST) {
    *out = h;
    return CIS_OK;
  }
  if ((st = cis_gpu_malloc(out, bytes)) == CIS_OK) st = cis_gpu_upload(*out, h, bytes);
  if (st != CIS_OK) {
    cis_gpu_free(*out);
    *out = NULL;
  }
  free(h);
  return st;
}

/* x (the set's dtype and space) -> host doubles. */
cis_status solve_vec_to_host64(const opset *s, const void *x, cis_int n, double *dst) {
  size_t vs = cis_dtype_size(s->t);
  const void *h = x;
  void *tmp = NULL;
  cis_status st;
  if (s->where == CIS_MEM_DEVICE) {
    if (!(tmp = malloc(vs * (size_t)n))) return cis_error(CIS_ERR_ALLOC, "cannot allocate a host copy of x");
    if ((st = cis_gpu_download(tmp, x, vs * (size_t)n)) != CIS_OK) {
      free(tmp);
      return st;
    }
    h = tmp;
  }
  for (cis_int i = 0; i < n; ++i)
    dst[i] = s->t == CIS_F64 ? ((const double *)h)[i] : (double)((const float *)h)[i];
  free(tmp);
  return CIS_OK;
}

static cis_status vec_reset(opset *s, cis_int n, void *x) {
  size_t bytes = cis_dtype_size(s->t) * (size_t)n;
  if (s->where == CIS_MEM_DEVICE) return cis_gpu_upload(x, s->zeros, bytes);
  memset(x, 0, bytes);
  return CIS_OK;
}

void solve_opset_free(opset *s) {
  cis_operator_free(s->op);
  cis_operator_free(s->opt);
  solve_vec_free(s->where, s->b);
  solve_vec_free(s->where, s->x);
  solve_vec_free(s->where, s->xstar);
  free(s->zeros);
  cis_gpu_plan_free(s->P);
  cis_gpu_plan_free(s->Pt);
  cis_matrix_free(s->M);
  cis_matrix_free(s->Mt);
  cis_csr_free(s->U);
  cis_csr_free(s->Ut);
  memset(s, 0, sizeof *s);
}

/* One operator (and its transpose when pb->At is set) of A in precision t. */
static cis_status build_one(const solve_opts *o, const cis_csr *A, cis_dtype t, int gpu, cis_matrix **M,
                            cis_csr **U, cis_gpu_plan **P, cis_operator **op) {
  cis_status st;
  cis_format_params fp = o->fp;
  fp.dtype = t;
  if (o->symmetric) { /* symmetric storage: refused unless A is symmetric */
    cis_csr *U64 = NULL;
    if ((st = cis_csr_upper_symmetric(A, CLI_SYM_TOL, &U64)) != CIS_OK) return st;
    st = cis_csr_copy(U64, t, U);
    cis_csr_free(U64);
    if (st != CIS_OK) return st;
    if (!gpu) return cis_operator_from_csr(*U, op);
    if ((st = cis_gpu_plan_create_symmetric(*U, o->kernel, 0, P)) != CIS_OK) return st;
    return cis_operator_from_gpu_plan(*P, op);
  }
  if (gpu && o->cusparse) {
    if ((st = cis_gpu_plan_create_cusparse(A, t, o->cusparse, P)) != CIS_OK) return st;
    return cis_operator_from_gpu_plan(*P, op);
  }
  const char *format = o->format, *kernel = o->kernel;
  if ((st = cli_format_auto(A, gpu, o->format_given, &format, &fp, &kernel)) != CIS_OK) return st;
  if ((st = cis_matrix_create(A, format, &fp, M)) != CIS_OK) return st;
  if (!gpu) return cis_operator_from_matrix(*M, op);
  st = cis_gpu_plan_create(*M, kernel, 0, P);
  cis_matrix_free(*M); /* the plan holds the device copy */
  *M = NULL;
  return st == CIS_OK ? cis_operator_from_gpu_plan(*P, op) : st;
}

cis_status solve_opset_make(const solve_opts *o, const problem *pb, cis_dtype t, int gpu, opset *s) {
  cis_status st;
  cis_int n = pb->A->rows;
  memset(s, 0, sizeof *s);
  s->t = t;
  s->where = gpu ? CIS_MEM_DEVICE : CIS_MEM_HOST;
  if ((st = build_one(o, pb->A, t, gpu, &s->M, &s->U, &s->P, &s->op)) != CIS_OK) return st;
  if ((st = cis_operator_set_diagonal(s->op, pb->diag)) != CIS_OK) return st;
  if (pb->At) {
    double *dt = malloc(sizeof(double) * (size_t)n);
    if (!dt) return cis_error(CIS_ERR_ALLOC, "cannot allocate the transpose's diagonal");
    st = build_one(o, pb->At, t, gpu, &s->Mt, &s->Ut, &s->Pt, &s->opt);
    if (st == CIS_OK) st = cis_csr_diagonal(pb->At, dt);
    if (st == CIS_OK) st = cis_operator_set_diagonal(s->opt, dt);
    free(dt);
    if (st == CIS_OK) st = cis_operator_set_transpose(s->op, s->opt);
    if (st != CIS_OK) return st;
  }
  if ((st = solve_vec_make(s->where, t, pb->b, n, &s->b)) != CIS_OK) return st;
  if ((st = solve_vec_make(s->where, t, NULL, n, &s->x)) != CIS_OK) return st;
  if (pb->xstar && (st = solve_vec_make(s->where, t, pb->xstar, n, &s->xstar)) != CIS_OK) return st;
  if (!(s->zeros = calloc((size_t)n, cis_dtype_size(t))))
    return cis_error(CIS_ERR_ALLOC, "cannot allocate a zero vector");
  snprintf(s->desc, sizeof s->desc, "%s%s%s", cis_operator_name(s->op),
           gpu && !o->cusparse ? " from format " : "",
           gpu && !o->cusparse ? (o->symmetric ? "csr (symmetric, upper triangle)" : o->format) : "");
  return CIS_OK;
}

/* The one line for a solve that did not converge. */
void solve_end_message(const char *method, const cis_krylov_info *in, double tol, char *buf, size_t len) {
  const char *why;
  char tmp[200];
  switch (in->end) {
    case CIS_END_MAXIT:
      snprintf(tmp, sizeof tmp, "maxit: %d iterations reached with relative residual %.3g > tol %.3g (raise --maxit)",
               in->iterations, in->rel_residual, tol);
      why = tmp;
      break;
    case CIS_END_BREAK_RHO: /* each method's rho in its own terms */
      why = !strcmp(method, "cg") ? "breakdown: (r, M^-1 r) = 0 with r != 0, the Jacobi preconditioner M = diag(A) "
                                    "is not positive definite (CG needs an SPD preconditioner; try bicgstab)"
            : !strcmp(method, "bicg") ? "breakdown: rho = (z, r~) = 0"
                                      : "breakdown: rho = (r^, r) = 0";
      break;
    case CIS_END_BREAK_OMEGA: why = "breakdown: omega = (t, s) / (t, t) = 0"; break;
    case CIS_END_BREAK_RV:
      why = !strcmp(method, "bicg") ? "breakdown: (p~, q) = 0" : "breakdown: (r^, v) = 0";
      break;
    case CIS_END_BREAK_PAP:
      why = "breakdown: p^T A p <= 0, A is not positive definite (CG needs an SPD matrix; try bicgstab)";
      break;
    case CIS_END_STAGNATION:
      snprintf(tmp, sizeof tmp, "stagnation: the residual stopped decreasing (relative residual %.3g > tol %.3g)",
               in->rel_residual, tol);
      why = tmp;
      break;
    case CIS_END_NONFINITE: why = "NaN or Inf in the recurrence"; break;
    default: why = cis_krylov_end_name(in->end); break;
  }
  if (in->end == CIS_END_MAXIT || in->end == CIS_END_STAGNATION)
    snprintf(buf, len, "%s did not converge after %d iterations: %s", method, in->iterations, why);
  else
    snprintf(buf, len, "%s broke down in iteration %d: %s", method, in->iterations + 1, why);
}

/* 1 if st is how a solve reports ending without convergence (info->end set). */
int solve_is_end_status(cis_status st, const cis_krylov_info *in) {
  return (st == CIS_ERR_NOT_CONVERGED || st == CIS_ERR_BREAKDOWN || st == CIS_ERR_NUMERIC) &&
         in->end != CIS_END_CONVERGED;
}

/* The true relative residual and error of x in s (double, see the top). */
cis_status solve_true_residual(const problem *pb, opset *s, const void *x, double *relres, double *xerr) {
  cis_status st;
  cis_int n = pb->A->rows;
  double *x64;
  *relres = *xerr = NAN;
  if (s->t == CIS_F64)
    return cis_true_residual(s->op, s->b, x, s->xstar, relres, s->xstar ? xerr : NULL);
  if (!(x64 = malloc(sizeof(double) * (size_t)n))) return cis_error(CIS_ERR_ALLOC, "cannot allocate x in double");
  st = solve_vec_to_host64(s, x, n, x64);
  if (st == CIS_OK) st = cis_true_residual(pb->host64, pb->b, x64, pb->xstar, relres, pb->xstar ? xerr : NULL);
  free(x64);
  return st;
}

/* Solve at least min_runs times and for at least min_seconds (energy window). */
void solve_run_config(const problem *pb, opset *s, const cis_krylov_opts *ko, int min_runs, double min_seconds,
                       run_result *r) {
  double *ms = malloc(sizeof(double) * MAX_RUNS), t0, c0;
  cis_energy_sample e0, e1;
  memset(r, 0, sizeof *r);
  r->ms_it = r->relres = r->xerr = r->gpu_j = r->cpu_j = NAN;
  if (!ms) {
    r->st = cis_error(CIS_ERR_ALLOC, "cannot allocate timings");
    snprintf(r->msg, sizeof r->msg, "%s", cis_last_error());
    return;
  }
  e0 = cis_energy_read(0);
  t0 = bench_wall_s();
  c0 = bench_cpu_s();
  while (r->runs < MAX_RUNS) {
    if ((r->st = vec_reset(s, pb->A->rows, s->x)) != CIS_OK) break;
    memset(&r->info, 0, sizeof r->info);
    r->st = cis_krylov_solve(s->op, s->b, s->x, ko, &r->info);
    if (r->st != CIS_OK) break;
    ms[r->runs++] = r->info.iterations > 0 ? r->info.seconds * 1e3 / r->info.iterations : NAN;
    r->total_its += r->info.iterations;
    if (r->runs >= min_runs && bench_wall_s() - t0 >= min_seconds) break;
  }
  r->host_cpu_s = bench_cpu_s() - c0;
  e1 = cis_energy_read(0);
  bench_energy_window(r, e0, e1);
  if (r->st == CIS_OK) {
    r->ms_it = cis_median(ms, r->runs);
    r->st = solve_true_residual(pb, s, s->x, &r->relres, &r->xerr);
    if (r->st == CIS_OK && !isfinite(r->relres))
      r->st = cis_error(CIS_ERR_NUMERIC, "the solve reported convergence but the true residual is %g", r->relres);
  }
  if (r->st != CIS_OK) {
    if (solve_is_end_status(r->st, &r->info))
      solve_end_message(cis_krylov_method_name(ko->method), &r->info, ko->tol, r->msg, sizeof r->msg);
    else
      snprintf(r->msg, sizeof r->msg, "%s", *cis_last_error() ? cis_last_error() : cis_status_name(r->st));
  }
  free(ms);
}


int solve_resolve_device(solve_opts *o) {
  char why[256] = "";
  int ngpu = cis_gpu_count(why, sizeof why);
  if (o->device == DEV_GPU && ngpu == 0) {
    fprintf(stderr, "cisparse: --device gpu: no usable GPU (%s)\n", why[0] ? why : "none found");
    return 1;
  }
  if (o->device == DEV_AUTO) {
    o->device = ngpu > 0 ? DEV_GPU : DEV_CPU;
    if (o->device == DEV_CPU) {
      const char *gpu_only = o->version >= 0 ? "--version" : o->sync >= 0 ? "--sync" : o->kernel ? "--kernel"
                           : o->cusparse ? "--cusparse" : NULL;
      if (gpu_only) {
        fprintf(stderr, "cisparse: %s needs a GPU: none is usable (%s)\n", gpu_only, why[0] ? why : "none found");
        return 1;
      }
    }
  }
  return 0;
}

cis_krylov_opts solve_krylov_opts(const solve_opts *o, int method, int precond, int version) {
  cis_krylov_opts k = cis_krylov_opts_default();
  k.method = (cis_krylov_method)method;
  k.precond = (cis_precond)precond;
  if (version >= 0) k.version = (cis_solver_version)version;
  k.tol = o->tol;
  k.maxit = (int)o->maxit;
  k.check_every = (int)o->check_every;
  k.stagnation = (int)o->stagnation;
  return k;
}

