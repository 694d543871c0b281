/* davidson.c: the Davidson method for the lowest eigenpairs of a large
 * symmetric operator (E. R. Davidson, J. Comput. Phys. 17, 87 (1975); block
 * form of Liu 1978): subspace V, W = H V, Rayleigh matrix G = V^T W, Ritz
 * pairs (theta, x = V c), residual r = W c - theta x, correction
 * t = r / (theta - diag(H)) orthogonalised against V, collapse to the Ritz
 * vectors when the subspace is full. The operator is a callback, so the same
 * iteration runs with any CPU format or with the SpMV on the GPU. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/davidson_core.h"
#include "core/internal.h"

cis_davidson_opts cis_davidson_opts_default(void) {
  cis_davidson_opts o = {1, 1e-8, 1e-10, 200, 0, 0};
  return o;
}

/* Eigen-decomposition of the symmetric m x m matrix a (destroyed) by cyclic
 * Jacobi rotations: w ascending, column r of v (v[j*m + r]) its vector. */
static void jacobi(double *a, int m, double *w, double *v) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) v[i * m + j] = i == j;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, tot = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) { tot += a[i * m + j] * a[i * m + j]; if (i != j) off += a[i * m + j] * a[i * m + j]; }
    if (off <= 1e-30 * tot || off == 0) break;
    for (int p = 0; p < m; ++p)
      for (int q = p + 1; q < m; ++q) {
        double apq = a[p * m + q];
        if (apq == 0) continue;
        double theta = (a[q * m + q] - a[p * m + p]) / (2 * apq);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < m; ++k) { /* columns p, q */
          double akp = a[k * m + p], akq = a[k * m + q];
          a[k * m + p] = c * akp - s * akq;
          a[k * m + q] = s * akp + c * akq;
        }
        for (int k = 0; k < m; ++k) { /* rows p, q */
          double apk = a[p * m + k], aqk = a[q * m + k];
          a[p * m + k] = c * apk - s * aqk;
          a[q * m + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < m; ++k) {
          double vkp = v[k * m + p], vkq = v[k * m + q];
          v[k * m + p] = c * vkp - s * vkq;
          v[k * m + q] = s * vkp + c * vkq;
        }
      }
  }
  for (int i = 0; i < m; ++i) w[i] = a[i * m + i];
  for (int i = 0; i < m; ++i) { /* selection sort of the pairs */
    int b = i;
    for (int j = i + 1; j < m; ++j) if (w[j] < w[b]) b = j;
    if (b == i) continue;
    double t = w[i]; w[i] = w[b]; w[b] = t;
    for (int k = 0; k < m; ++k) { t = v[k * m + i]; v[k * m + i] = v[k * m + b]; v[k * m + b] = t; }
  }
}

typedef struct work {
  double *V, *W, *X, *HX, *R;                 /* backend vectors */
  double *G, *Gc, *c, *theta, *prev;          /* host, subspace sized */
} work;

#define OPS_TRY(call) CIS_TRY(ops->call)

/* Orthonormalise t against V_0..V_{m-1} (two Gram-Schmidt passes); *keep = 1
 * when its norm after is above 1e-10 of the norm before. */
static cis_status orthonormalise(const dav_ops *ops, const double *V, int m, double *t, int *keep) {
  cis_status st;
  double n0, n1, c;
  cis_int n = ops->n;
  *keep = 0;
  OPS_TRY(dot(ops->ctx, t, t, &n0));
  n0 = sqrt(n0);
  if (n0 == 0 || !isfinite(n0)) return CIS_OK;
  for (int pass = 0; pass < 2; ++pass)
    for (int j = 0; j < m; ++j) {
      OPS_TRY(dot(ops->ctx, V + (size_t)j * n, t, &c));
      OPS_TRY(axpy(ops->ctx, -c, V + (size_t)j * n, t));
    }
  OPS_TRY(dot(ops->ctx, t, t, &n1));
  n1 = sqrt(n1);
  if (n1 > 1e-10 * n0) {
    OPS_TRY(scal(ops->ctx, 1 / n1, t));
    *keep = 1;
  }
  return CIS_OK;
cleanup:
  return st;
}

static void work_free(const dav_ops *ops, work *w) {
  ops->release(ops->ctx, w->V); ops->release(ops->ctx, w->W); ops->release(ops->ctx, w->X);
  ops->release(ops->ctx, w->HX); ops->release(ops->ctx, w->R);
  cis_free(w->G); cis_free(w->Gc); cis_free(w->c); cis_free(w->theta); cis_free(w->prev);
}

/* Guesses: unit vectors on the k lowest diagonal elements. */
static cis_status guesses(const dav_ops *ops, const double *diag, int k, double *V) {
  cis_status st;
  cis_int *pick = NULL;
  CIS_TRY(cis_alloc_array((void **)&pick, k, sizeof(cis_int), "Davidson guesses"));
  for (int r = 0; r < k; ++r) {
    cis_int best = -1;
    for (cis_int i = 0; i < ops->n; ++i) {
      int used = 0;
      for (int q = 0; q < r; ++q) used |= pick[q] == i;
      if (!used && (best < 0 || diag[i] < diag[best])) best = i;
    }
    pick[r] = best;
    OPS_TRY(unit(ops->ctx, V + (size_t)r * ops->n, best));
  }
cleanup:
  cis_free(pick);
  return st;
}

cis_status dav_run(const dav_ops *ops, const double *diag, const cis_davidson_opts *o_in, double *evals,
                   double *evecs, cis_davidson_info *info) {
  cis_status st;
  cis_davidson_opts o = o_in ? *o_in : cis_davidson_opts_default();
  cis_int n = ops->n;
  work w;
  memset(&w, 0, sizeof w);
  cis_davidson_info inf;
  memset(&inf, 0, sizeof inf);
  double t_start = cis_wtime();
  int k = o.roots;
  if (!diag || !evals) return cis_error(CIS_ERR_INVALID, "Davidson: NULL argument");
  if (k > 64) return cis_error(CIS_ERR_INVALID, "Davidson: at most 64 roots, %d requested", k);
  if (k < 1 || k > n) return cis_error(CIS_ERR_INVALID, "Davidson: %d roots requested, dimension %lld", k, (long long)n);
  if (!(o.tol > 0) || !(o.etol > 0) || o.max_iter < 1)
    return cis_error(CIS_ERR_INVALID, "Davidson: tolerances must be > 0 and max_iter >= 1");
  int max_sub = o.max_sub > 0 ? o.max_sub : (8 * k > 24 ? 8 * k : 24);
  if (max_sub < 2 * k) max_sub = 2 * k;
  if (max_sub > n) max_sub = (int)n;
  for (cis_int i = 0; i < n; ++i)
    if (!isfinite(diag[i])) return cis_error(CIS_ERR_NUMERIC, "Davidson: diagonal element %lld is not finite", (long long)i);
  OPS_TRY(alloc(ops->ctx, &w.V, max_sub, "Davidson subspace"));
  OPS_TRY(alloc(ops->ctx, &w.W, max_sub, "Davidson H*subspace"));
  OPS_TRY(alloc(ops->ctx, &w.X, k, "Davidson Ritz vectors"));
  OPS_TRY(alloc(ops->ctx, &w.HX, k, "Davidson Ritz vectors"));
  OPS_TRY(alloc(ops->ctx, &w.R, 1, "Davidson residual"));
  CIS_TRY(cis_alloc_zeroed((void **)&w.G, (int64_t)max_sub * max_sub, sizeof(double), "Davidson subspace matrix"));
  CIS_TRY(cis_alloc_array((void **)&w.Gc, (int64_t)max_sub * max_sub, sizeof(double), "Davidson subspace matrix"));
  CIS_TRY(cis_alloc_array((void **)&w.c, (int64_t)max_sub * max_sub, sizeof(double), "Davidson subspace vectors"));
  CIS_TRY(cis_alloc_array((void **)&w.theta, max_sub, sizeof(double), "Davidson Ritz values"));
  CIS_TRY(cis_alloc_array((void **)&w.prev, k, sizeof(double), "Davidson Ritz values"));
  for (int r = 0; r < k; ++r) w.prev[r] = INFINITY;
  CIS_TRY(guesses(ops, diag, k, w.V));
  int m = 0, m_new = k, converged = 0;
  for (int it = 1; it <= o.max_iter; ++it) {
    /* W_j = H V_j for the new vectors; G_ij = V_i . W_j */
    for (int j = m; j < m + m_new; ++j) {
      double t0 = cis_wtime();
      OPS_TRY(apply(ops->ctx, w.V + (size_t)j * n, w.W + (size_t)j * n));
      inf.op_seconds += cis_wtime() - t0;
      inf.products++;
    }
    int mm = m + m_new;
    for (int j = m; j < mm; ++j)
      for (int i = 0; i <= j; ++i) {
        OPS_TRY(dot(ops->ctx, w.V + (size_t)i * n, w.W + (size_t)j * n, &w.G[i * max_sub + j]));
        w.G[j * max_sub + i] = w.G[i * max_sub + j];
      }
    m = mm;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) w.Gc[i * m + j] = w.G[i * max_sub + j];
    jacobi(w.Gc, m, w.theta, w.c);
    if (!isfinite(w.theta[0])) { st = cis_error(CIS_ERR_NUMERIC, "Davidson: Ritz value is not finite (operator gave NaN/Inf)"); goto cleanup; }
    /* Ritz vectors x = V c, H x = W c */
    OPS_TRY(combine(ops->ctx, w.V, w.c, m, k, w.X));
    OPS_TRY(combine(ops->ctx, w.W, w.c, m, k, w.HX));
    inf.iterations = it;
    inf.max_residual = 0;
    int all = 1, nconv = 0, done[64];
    for (int r = 0; r < k; ++r) { /* ||r|| = ||H x - theta x|| */
      double rn;
      OPS_TRY(copy(ops->ctx, w.HX + (size_t)r * n, w.R));
      OPS_TRY(axpy(ops->ctx, -w.theta[r], w.X + (size_t)r * n, w.R));
      OPS_TRY(dot(ops->ctx, w.R, w.R, &rn));
      rn = sqrt(rn);
      if (!(rn <= inf.max_residual)) inf.max_residual = rn;
      done[r] = (rn < o.tol && fabs(w.theta[r] - w.prev[r]) < o.etol) || m == n;
      nconv += done[r];
      all &= done[r];
    }
    if (o.verbose)
      fprintf(stderr, "davidson %3d  subspace %3d  E0 %.12f  max residual %.3e  converged %d/%d\n", it, m,
              w.theta[0], inf.max_residual, nconv, k);
    for (int r = 0; r < k; ++r) w.prev[r] = w.theta[r];
    if (all) { converged = 1; break; }
    if (max_sub - m < k) { /* collapse: V <- X, W <- HX, G <- diag(theta) */
      for (int r = 0; r < k; ++r) {
        OPS_TRY(copy(ops->ctx, w.X + (size_t)r * n, w.V + (size_t)r * n));
        OPS_TRY(copy(ops->ctx, w.HX + (size_t)r * n, w.W + (size_t)r * n));
      }
      memset(w.G, 0, (size_t)max_sub * max_sub * sizeof(double));
      for (int r = 0; r < k; ++r) w.G[r * max_sub + r] = w.theta[r];
      m = k;
    }
    /* corrections t = (H x - theta x) / (theta - D) for unconverged roots */
    int added = 0;
    for (int r = 0; r < k && m + added < max_sub; ++r) {
      if (done[r]) continue;
      double *t = w.V + (size_t)(m + added) * n;
      int keep;
      OPS_TRY(copy(ops->ctx, w.HX + (size_t)r * n, w.R));
      OPS_TRY(axpy(ops->ctx, -w.theta[r], w.X + (size_t)r * n, w.R));
      OPS_TRY(precond(ops->ctx, w.R, w.theta[r], t));
      CIS_TRY(orthonormalise(ops, w.V, m + added, t, &keep));
      added += keep;
    }
    m_new = added; /* 0: only energy changes pending; the next pass re-checks them */
  }
  for (int r = 0; r < k; ++r) evals[r] = w.theta[r];
  if (evecs) OPS_TRY(to_host(ops->ctx, w.X, evecs, k));
  inf.total_seconds = cis_wtime() - t_start;
  if (info) *info = inf;
  st = converged ? CIS_OK
                 : cis_error(CIS_ERR_NOT_CONVERGED, "Davidson did not converge in %d iterations (max residual %.3e, tol %.1e)",
                             inf.iterations, inf.max_residual, o.tol);
cleanup:
  work_free(ops, &w);
  return st;
}

/* ---- host backend: OpenMP over the vector length ------------------------- */

typedef struct host_ctx {
  cis_int n;
  const double *diag;
  cis_linop op;
  void *op_ctx;
} host_ctx;

static cis_status h_alloc(void *c, double **p, cis_int count, const char *what) {
  return cis_alloc_array((void **)p, count * ((host_ctx *)c)->n, sizeof(double), what);
}
static void h_release(void *c, double *p) { cis_free(p); }
static cis_status h_apply(void *c, const double *x, double *y) {
  host_ctx *h = c;
  return h->op(h->op_ctx, x, y);
}
static cis_status h_dot(void *c, const double *a, const double *b, double *r) {
  cis_int n = ((host_ctx *)c)->n;
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (cis_int i = 0; i < n; ++i) s += a[i] * b[i];
  *r = s;
  return CIS_OK;
}
static cis_status h_axpy(void *c, double alpha, const double *x, double *y) {
  cis_int n = ((host_ctx *)c)->n;
#pragma omp parallel for schedule(static)
  for (cis_int i = 0; i < n; ++i) y[i] += alpha * x[i];
  return CIS_OK;
}
static cis_status h_scal(void *c, double alpha, double *x) {
  cis_int n = ((host_ctx *)c)->n;
#pragma omp parallel for schedule(static)
  for (cis_int i = 0; i < n; ++i) x[i] *= alpha;
  return CIS_OK;
}
static cis_status h_copy(void *c, const double *x, double *y) {
  memcpy(y, x, (size_t)((host_ctx *)c)->n * sizeof(double));
  return CIS_OK;
}
static cis_status h_combine(void *c, const double *V, const double *cf, int m, int k, double *out) {
  cis_int n = ((host_ctx *)c)->n;
#pragma omp parallel for schedule(static)
  for (cis_int i = 0; i < n; ++i)
    for (int r = 0; r < k; ++r) {
      double s = 0;
      for (int j = 0; j < m; ++j) s += cf[j * m + r] * V[(size_t)j * n + i];
      out[(size_t)r * n + i] = s;
    }
  return CIS_OK;
}
static cis_status h_precond(void *c, const double *r, double theta, double *t) {
  host_ctx *h = c;
#pragma omp parallel for schedule(static)
  for (cis_int i = 0; i < h->n; ++i) {
    double den = theta - h->diag[i];
    if (fabs(den) < 1e-8) den = den < 0 ? -1e-8 : 1e-8;
    t[i] = r[i] / den;
  }
  return CIS_OK;
}
static cis_status h_unit(void *c, double *x, cis_int i) {
  memset(x, 0, (size_t)((host_ctx *)c)->n * sizeof(double));
  x[i] = 1;
  return CIS_OK;
}
static cis_status h_to_host(void *c, const double *x, double *h, cis_int count) {
  memcpy(h, x, (size_t)(count * ((host_ctx *)c)->n) * sizeof(double));
  return CIS_OK;
}

cis_status cis_davidson(cis_int n, const double *diag, cis_linop op, void *ctx, const cis_davidson_opts *o,
                        double *evals, double *evecs, cis_davidson_info *info) {
  if (!diag || !op || !evals) return cis_error(CIS_ERR_INVALID, "cis_davidson: NULL argument");
  host_ctx h = {n, diag, op, ctx};
  dav_ops ops = {&h, n, h_alloc, h_release, h_apply, h_dot, h_axpy, h_scal, h_copy,
                 h_combine, h_precond, h_unit, h_to_host};
  return dav_run(&ops, diag, o, evals, evecs, info);
}
