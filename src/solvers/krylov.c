/* krylov.c: the Krylov driver (cisparse/solver.h): validates the problem,
 * creates the vector backend for the operator (host, or the device in the
 * requested version of Aliaga, Perez, Quintana-Orti, Euro-Par 2015 §4),
 * equilibrates the problem by powers of two (krylov_scale.h: scaled
 * matrices take the unscaled iterations), sets the scalar slots, uploads
 * the Jacobi preconditioner, runs the solver (cg.c, bicg.c, bicgstab.c:
 * each written once over the backend) and turns the final slots into a
 * status, an end reason and one message. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "solvers/krylov_problem.h"
#include "solvers/krylov_scale.h"
#include "operators/operator_internal.h"

static const char *const method_names[] = {"cg", "bicg", "bicgstab"};
static const kry_method_fn methods[] = {kry_cg, kry_bicg, kry_bicgstab}; /* by cis_krylov_method */
static const char *const version_names[CIS_VER_COUNT] = {"cublasL", "cublasN", "cuda", "merge", "merge_10", "graph"};
static const char *const end_names[] = {
    "converged", "maxit reached", "breakdown: rho = 0", "breakdown: omega = 0",
    "breakdown: (r^, v) = 0", "breakdown: p^T A p <= 0 (A is not positive definite)",
    "stagnation", "NaN or Inf in the recurrence"};

const char *cis_krylov_end_name(cis_krylov_end e) {
  return (unsigned)e < sizeof end_names / sizeof *end_names ? end_names[e] : "?";
}
const char *cis_krylov_method_name(cis_krylov_method m) {
  return (unsigned)m < sizeof method_names / sizeof *method_names ? method_names[m] : "?";
}
const char *cis_solver_version_name(cis_solver_version v) {
  return (unsigned)v < CIS_VER_COUNT ? version_names[v] : "?";
}

/* Index of s in names[0..n), or -1. */
static int lookup(const char *s, const char *const *names, int n) {
  for (int i = 0; s && i < n; ++i)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

cis_status cis_krylov_method_parse(const char *s, cis_krylov_method *m) {
  int i = lookup(s, method_names, 3);
  if (i < 0) return cis_error(CIS_ERR_NOT_FOUND, "unknown method '%s' (known: cg, bicg, bicgstab)", s ? s : "");
  *m = (cis_krylov_method)i;
  return CIS_OK;
}
cis_status cis_solver_version_parse(const char *s, cis_solver_version *v) {
  int i = lookup(s, version_names, CIS_VER_COUNT);
  if (i < 0)
    return cis_error(CIS_ERR_NOT_FOUND, "unknown version '%s' (known: cublasL, cublasN, cuda, merge, merge_10, graph)",
                     s ? s : "");
  *v = (cis_solver_version)i;
  return CIS_OK;
}

cis_krylov_opts cis_krylov_opts_default(void) {
  cis_krylov_opts o;
  memset(&o, 0, sizeof o);
  o.method = CIS_CG;
  o.precond = CIS_PRECOND_NONE;
  o.version = CIS_VER_MERGE_10;
  o.tol = 1e-8;
  o.maxit = 1000;
  return o;
}

static cis_status check_args(const cis_operator *A, const void *b, void *x, const cis_krylov_opts *o) {
  if (!A || !b || !x || !o) return cis_error(CIS_ERR_INVALID, "cis_krylov_solve: NULL argument");
  if (cis_operator_rows(A) != cis_operator_cols(A))
    return cis_error(CIS_ERR_INVALID, "a Krylov solve needs a square matrix, got %lld x %lld",
                     (long long)cis_operator_rows(A), (long long)cis_operator_cols(A));
  if ((unsigned)o->method > CIS_BICGSTAB) return cis_error(CIS_ERR_INVALID, "unknown Krylov method %d", (int)o->method);
  if ((unsigned)o->precond > CIS_PRECOND_JACOBI) return cis_error(CIS_ERR_INVALID, "unknown preconditioner %d", (int)o->precond);
  if ((unsigned)o->version >= CIS_VER_COUNT) return cis_error(CIS_ERR_INVALID, "unknown solver version %d", (int)o->version);
  if (!(o->tol > 0) || !isfinite(o->tol)) return cis_error(CIS_ERR_INVALID, "tolerance must be a finite number > 0, got %g", o->tol);
  if (o->maxit < 1) return cis_error(CIS_ERR_INVALID, "maxit must be >= 1, got %d", o->maxit);
  if (o->history_len < 0 || (o->history_len > 0 && !o->history))
    return cis_error(CIS_ERR_INVALID, "history: %d entries requested without a buffer", o->history_len);
  if (o->method == CIS_BICG && !operator_transpose(A))
    return cis_error(CIS_ERR_INVALID, "BiCG needs A^T: give the operator its transpose (cis_operator_set_transpose)");
  return CIS_OK;
}

/* 2^ja / diag(A) in the backend (dtype of A): the Jacobi preconditioner of
 * A / 2^ja, refusing a missing or zero diagonal. */
static cis_status jacobi_inverse(kry_be *B, const cis_operator *A, int ja, void **dinv) {
  cis_status st;
  void *h = NULL;
  const double *d = cis_operator_diagonal(A);
  *dinv = NULL;
  if (!d)
    return cis_error(CIS_ERR_INVALID, "the Jacobi preconditioner needs diag(A): this operator has none (cis_operator_set_diagonal)");
  for (cis_int i = 0; i < B->n; ++i)
    if (d[i] == 0 || !isfinite(d[i]))
      return cis_error(CIS_ERR_INVALID, "jacobi preconditioner: diagonal element %lld is %s", (long long)i + 1,
                       d[i] == 0 ? "zero" : "not finite");
  CIS_TRY(cis_alloc_array(&h, B->n, cis_dtype_size(B->dtype), "Jacobi preconditioner"));
  for (cis_int i = 0; i < B->n; ++i) cis_set(h, B->dtype, i, ldexp(1.0 / d[i], ja));
  CIS_TRY(B->ops->alloc(B, dinv, 1, "Jacobi preconditioner"));
  CIS_TRY(B->ops->upload(B, *dinv, h, B->n));
cleanup:
  cis_free(h);
  return st;
}

static cis_status end_status(const cis_krylov_opts *o, cis_krylov_end end, int it, double rel) {
  const char *pc = o->precond == CIS_PRECOND_JACOBI ? " (jacobi)" : "";
  switch (end) {
    case CIS_END_CONVERGED:
      return CIS_OK;
    case CIS_END_MAXIT:
    case CIS_END_STAGNATION:
      return cis_error(CIS_ERR_NOT_CONVERGED, "%s%s did not converge: %s after %d iterations (relative residual %.3e, tol %.1e)",
                       cis_krylov_method_name(o->method), pc, cis_krylov_end_name(end), it, rel, o->tol);
    case CIS_END_NONFINITE:
      return cis_error(CIS_ERR_NUMERIC, "%s%s: %s at iteration %d", cis_krylov_method_name(o->method), pc,
                       cis_krylov_end_name(end), it + 1);
    case CIS_END_BREAK_RHO:
      if (o->method == CIS_CG) /* rho = (r, M^-1 r): only a preconditioned CG can reach 0 unconverged */
        return cis_error(CIS_ERR_BREAKDOWN,
                         "%s%s: breakdown: (r, M^-1 r) = 0 with r != 0 (the preconditioner M is not positive "
                         "definite) at iteration %d (relative residual %.3e)",
                         cis_krylov_method_name(o->method), pc, it + 1, rel);
      /* fall through */
    default:
      return cis_error(CIS_ERR_BREAKDOWN, "%s%s: %s at iteration %d (relative residual %.3e)",
                       cis_krylov_method_name(o->method), pc, cis_krylov_end_name(end), it + 1, rel);
  }
}

/* x *= 2^e in the backend (exact; nothing for e = 0). */
static cis_status scale_x(kry_be *B, void *x, int e) {
  return e == 0 ? CIS_OK : B->ops->scal(B, kry_imm(ldexp(1.0, e)), x);
}

cis_status cis_krylov_solve(const cis_operator *A, const void *b, void *x, const cis_krylov_opts *o,
                            cis_krylov_info *info) {
  cis_status st;
  kry_be *B = NULL;
  void *dinv = NULL;
  double s[KS_COUNT], bb = 0, bnorm = 0, t0 = cis_wtime();
  kry_scaling S;
  int x_scaled = 0;
  cis_krylov_info inf;
  memset(&inf, 0, sizeof inf);
  memset(&S, 0, sizeof S);
  if (info) memset(info, 0, sizeof *info);
  if ((st = check_args(A, b, x, o)) != CIS_OK) return st;
  int device = operator_memspace(A) == CIS_MEM_DEVICE, dist = operator_memspace(A) == CIS_MEM_DIST;
  int hist_len = o->history ? o->history_len : 0;
  /* KS_FLAG read every 10 iterations: merge_10 on the device; over parts
   * also graph, which runs merge_10's loop there (backend_dist.c) */
  int every10 = o->version == CIS_VER_MERGE_10 || (dist && o->version == CIS_VER_GRAPH);
  int check = o->check_every > 0 ? o->check_every : ((device || dist) && every10 ? 10 : 1);
  CIS_TRY(kry_be_for(A, o->version, hist_len, &B));
  CIS_TRY(kry_nrm2(B, b, &bnorm)); /* scaled: only NaN or Inf in b make it non-finite */
  if (!isfinite(bnorm)) {
    st = cis_error(CIS_ERR_NUMERIC, "the right-hand side b holds NaN or Inf");
    goto cleanup;
  }
  if (bnorm > 0) CIS_TRY(kry_scaling_make(B, A, b, bnorm, &S)); /* solve A/2^ja y = b/2^jb */
  const void *bs = S.bs ? S.bs : b;
  if (bnorm > 0) CIS_TRY(B->ops->dot_host(B, bs, bs, &bb));
  if (o->precond == CIS_PRECOND_JACOBI) CIS_TRY(jacobi_inverse(B, A, S.ja, &dinv));
  memset(s, 0, sizeof s);
  s[KS_ONE] = 1;
  s[KS_TOL] = o->tol;
  s[KS_MAXIT] = o->maxit;
  s[KS_STAG_MAX] = o->stagnation == 0 ? 200 : o->stagnation < 0 ? 0 : o->stagnation;
  s[KS_PRECOND] = dinv != NULL;
  s[KS_BB] = bb;
  CIS_TRY(B->ops->set_scalars(B, 0, KS_COUNT, s));
  if (bnorm == 0) { /* b = 0: x = 0 exactly */
    CIS_TRY(B->ops->fill(B, x, 0));
    inf.end = CIS_END_CONVERGED;
    goto report;
  }
  CIS_TRY(scale_x(B, x, S.ja - S.jb)); /* x0 of the equilibrated problem */
  x_scaled = 1;
  kry_problem P = {B, kry_scaling_operator(&S, A), bs, x, dinv, o->maxit, check, 0, 0};
  double t_setup = cis_wtime();
  CIS_TRY(methods[o->method](&P));
  CIS_TRY(B->ops->get_scalars(B, 0, KS_COUNT, s));
  inf.iterations = (int)s[KS_IT];
  inf.rel_residual = sqrt(s[KS_RR] / bb);
  inf.seconds = P.loop_seconds;
  inf.setup_seconds = t_setup - t0 + (cis_wtime() - t_setup - P.loop_seconds);
  inf.launches = P.loop_launches;
  inf.launches_per_iteration = inf.iterations > 0 ? (double)P.loop_launches / inf.iterations : 0;
  inf.end = s[KS_FLAG] == KF_RUNNING ? CIS_END_MAXIT : (cis_krylov_end)((int)s[KS_FLAG] - 1);
  if (hist_len > 0) {
    int w = inf.iterations + 1 < hist_len ? inf.iterations + 1 : hist_len;
    CIS_TRY(B->ops->get_history(B, o->history, w));
    inf.history_written = w;
  }
report:
  if (info) *info = inf;
  st = end_status(o, inf.end, inf.iterations, inf.rel_residual);
cleanup:
  if (x_scaled) { /* back to the caller's scale, whatever happened */
    cis_status st2 = scale_x(B, x, S.jb - S.ja);
    if (st == CIS_OK) st = st2;
  }
  if (B) kry_scaling_free(B, &S);
  if (B && dinv) B->ops->release(B, dinv);
  kry_be_free(B);
  return st;
}

/* ||e|| / ||s|| of two scaled sums (||e|| when s = 0). */
static double rel_norm(const kry_ssq *e, const kry_ssq *s) {
  double en = kry_ssq_norm(e), sn = kry_ssq_norm(s);
  if (!(sn > 0)) return en;
  if (e->scale == 0) return 0;
  return (e->scale / s->scale) * sqrt(e->ssq / s->ssq); /* no overflow of the norms themselves */
}

cis_status cis_true_residual(const cis_operator *A, const void *b, const void *x, const void *xstar, double *relres,
                             double *xerr) {
  cis_status st;
  void *hb = NULL, *hx = NULL, *hy = NULL, *hs = NULL, *dy = NULL;
  if (!A || !b || !x || !relres) return cis_error(CIS_ERR_INVALID, "cis_true_residual: NULL argument");
  if (operator_memspace(A) == CIS_MEM_DIST)
    return cis_error(CIS_ERR_UNSUPPORTED, "cis_true_residual: download the distributed vectors (cis_dist_vec_download) and use a host operator");
  cis_int n = cis_operator_rows(A), m = cis_operator_cols(A);
  cis_dtype t = cis_operator_dtype(A);
  size_t es = cis_dtype_size(t);
  int dev = operator_memspace(A) == CIS_MEM_DEVICE;
  CIS_TRY(cis_alloc_array(&hy, n, es, "true residual"));
  if (dev) { /* y = A x on the device, then everything to the host */
    CIS_TRY(cis_gpu_malloc(&dy, (size_t)n * es));
    CIS_TRY(cis_operator_apply(A, 1.0, x, 0.0, dy, NULL));
    CIS_TRY(cis_gpu_sync());
    CIS_TRY(cis_gpu_download(hy, dy, (size_t)n * es));
    CIS_TRY(cis_alloc_array(&hb, n, es, "true residual"));
    CIS_TRY(cis_alloc_array(&hx, m, es, "true residual"));
    CIS_TRY(cis_gpu_download(hb, b, (size_t)n * es));
    CIS_TRY(cis_gpu_download(hx, x, (size_t)m * es));
    if (xstar) {
      CIS_TRY(cis_alloc_array(&hs, m, es, "true residual"));
      CIS_TRY(cis_gpu_download(hs, xstar, (size_t)m * es));
    }
  } else {
    CIS_TRY(cis_operator_apply(A, 1.0, x, 0.0, hy, NULL));
  }
  const void *B = dev ? hb : b, *X = dev ? hx : x, *S = dev ? hs : xstar;
  kry_ssq rr = kry_ssq_start(), bb = kry_ssq_start(), ee = kry_ssq_start(), ss = kry_ssq_start();
  for (cis_int i = 0; i < n; ++i) { /* scaled sums: no under- or overflow for scaled matrices */
    double bi = cis_get(B, t, i);
    kry_ssq_add(&rr, bi - cis_get(hy, t, i));
    kry_ssq_add(&bb, bi);
  }
  *relres = rel_norm(&rr, &bb);
  if (!isfinite(*relres)) *relres = NAN;
  if (xerr && S) {
    for (cis_int i = 0; i < m; ++i) {
      double si = cis_get(S, t, i);
      kry_ssq_add(&ee, cis_get(X, t, i) - si);
      kry_ssq_add(&ss, si);
    }
    *xerr = rel_norm(&ee, &ss);
  } else if (xerr) {
    *xerr = NAN;
  }
  st = CIS_OK;
cleanup:
  cis_gpu_free(dy);
  cis_free(hb);
  cis_free(hx);
  cis_free(hy);
  cis_free(hs);
  return st;
}
