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
#include "core/internal.h"

cis_davidson_opts cis_davidson_opts_default(void) {
  cis_davidson_opts o = {1, 1e-8, 1e-10, 200, 0, 0};
  return o;
}

static double dot(const double *a, const double *b, cis_int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (cis_int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

static void axpy(double alpha, const double *x, double *y, cis_int n) {
#pragma omp parallel for schedule(static)
  for (cis_int i = 0; i < n; ++i) y[i] += alpha * x[i];
}

/* out_r = sum_j c[j*m + r] * V_j for r < k (V: m vectors of length n). */
static void combine(const double *V, const double *c, int m, int k, cis_int n, double *out) {
#pragma omp parallel for schedule(static)
  for (cis_int i = 0; i < n; ++i)
    for (int r = 0; r < k; ++r) {
      double s = 0;
      for (int j = 0; j < m; ++j) s += c[j * m + r] * V[(size_t)j * n + i];
      out[(size_t)r * n + i] = s;
    }
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
  double *V, *W, *X, *HX, *R, *G, *Gc, *c, *theta, *prev;
} work;

static void work_free(work *w) {
  cis_free(w->V); cis_free(w->W); cis_free(w->X); cis_free(w->HX); cis_free(w->R);
  cis_free(w->G); cis_free(w->Gc); cis_free(w->c); cis_free(w->theta); cis_free(w->prev);
}

/* Orthonormalise t against V_0..V_{m-1} (two Gram-Schmidt passes); returns its final norm
 * relative to the norm before. */
static double orthonormalise(const double *V, int m, cis_int n, double *t) {
  double n0 = sqrt(dot(t, t, n));
  if (n0 == 0 || !isfinite(n0)) return 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int j = 0; j < m; ++j) axpy(-dot(V + (size_t)j * n, t, n), V + (size_t)j * n, t, n);
  double n1 = sqrt(dot(t, t, n));
  if (n1 > 0) {
    double inv = 1 / n1;
#pragma omp parallel for schedule(static)
    for (cis_int i = 0; i < n; ++i) t[i] *= inv;
  }
  return n1 / n0;
}

cis_status cis_davidson(cis_int n, const double *diag, cis_linop op, void *ctx, const cis_davidson_opts *o_in,
                        double *evals, double *evecs, cis_davidson_info *info) {
  cis_status st;
  cis_davidson_opts o = o_in ? *o_in : cis_davidson_opts_default();
  work w;
  memset(&w, 0, sizeof w);
  cis_davidson_info inf;
  memset(&inf, 0, sizeof inf);
  double t_start = cis_wtime();
  int k = o.roots;
  if (!diag || !op || !evals) return cis_error(CIS_ERR_INVALID, "cis_davidson: NULL argument");
  if (k > 64) return cis_error(CIS_ERR_INVALID, "Davidson: at most 64 roots, %d requested", k);
  if (k < 1 || k > n) return cis_error(CIS_ERR_INVALID, "Davidson: %d roots requested, dimension %lld", k, (long long)n);
  if (!(o.tol > 0) || !(o.etol > 0) || o.max_iter < 1)
    return cis_error(CIS_ERR_INVALID, "Davidson: tolerances must be > 0 and max_iter >= 1");
  int max_sub = o.max_sub > 0 ? o.max_sub : (8 * k > 24 ? 8 * k : 24);
  if (max_sub < 2 * k) max_sub = 2 * k;
  if (max_sub > n) max_sub = (int)n;
  for (cis_int i = 0; i < n; ++i)
    if (!isfinite(diag[i])) return cis_error(CIS_ERR_NUMERIC, "Davidson: diagonal element %lld is not finite", (long long)i);
  CIS_TRY(cis_alloc_array((void **)&w.V, (int64_t)max_sub * n, sizeof(double), "Davidson subspace"));
  CIS_TRY(cis_alloc_array((void **)&w.W, (int64_t)max_sub * n, sizeof(double), "Davidson H*subspace"));
  CIS_TRY(cis_alloc_array((void **)&w.X, (int64_t)k * n, sizeof(double), "Davidson Ritz vectors"));
  CIS_TRY(cis_alloc_array((void **)&w.HX, (int64_t)k * n, sizeof(double), "Davidson Ritz vectors"));
  CIS_TRY(cis_alloc_array((void **)&w.R, (int64_t)n, sizeof(double), "Davidson residual"));
  CIS_TRY(cis_alloc_zeroed((void **)&w.G, (int64_t)max_sub * max_sub, sizeof(double), "Davidson subspace matrix"));
  CIS_TRY(cis_alloc_array((void **)&w.Gc, (int64_t)max_sub * max_sub, sizeof(double), "Davidson subspace matrix"));
  CIS_TRY(cis_alloc_array((void **)&w.c, (int64_t)max_sub * max_sub, sizeof(double), "Davidson subspace vectors"));
  CIS_TRY(cis_alloc_array((void **)&w.theta, max_sub, sizeof(double), "Davidson Ritz values"));
  CIS_TRY(cis_alloc_array((void **)&w.prev, k, sizeof(double), "Davidson Ritz values"));
  for (int r = 0; r < k; ++r) w.prev[r] = INFINITY;

  /* guesses: unit vectors on the k lowest diagonal elements */
  memset(w.V, 0, (size_t)k * n * sizeof(double));
  for (int r = 0; r < k; ++r) {
    cis_int best = -1;
    for (cis_int i = 0; i < n; ++i) {
      int used = 0;
      for (int q = 0; q < r; ++q) used |= w.V[(size_t)q * n + i] != 0;
      if (!used && (best < 0 || diag[i] < diag[best])) best = i;
    }
    w.V[(size_t)r * n + best] = 1;
  }
  int m = 0, m_new = k, converged = 0;
  for (int it = 1; it <= o.max_iter; ++it) {
    /* W_j = H V_j for the new vectors; G_ij = V_i . W_j */
    for (int j = m; j < m + m_new; ++j) {
      double t0 = cis_wtime();
      CIS_TRY(op(ctx, w.V + (size_t)j * n, w.W + (size_t)j * n));
      inf.op_seconds += cis_wtime() - t0;
      inf.products++;
    }
    int mm = m + m_new;
    for (int j = m; j < mm; ++j)
      for (int i = 0; i <= j; ++i)
        w.G[i * max_sub + j] = w.G[j * max_sub + i] = dot(w.V + (size_t)i * n, w.W + (size_t)j * n, n);
    m = mm;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) w.Gc[i * m + j] = w.G[i * max_sub + j];
    jacobi(w.Gc, m, w.theta, w.c);
    if (!isfinite(w.theta[0])) { st = cis_error(CIS_ERR_NUMERIC, "Davidson: Ritz value is not finite (operator gave NaN/Inf)"); goto cleanup; }
    /* Ritz vectors x = V c, H x = W c, residuals r = H x - theta x */
    combine(w.V, w.c, m, k, n, w.X);
    combine(w.W, w.c, m, k, n, w.HX);
    inf.iterations = it;
    inf.max_residual = 0;
    int all = 1, room = max_sub - m, added = 0, nconv = 0, done[64];
    for (int r = 0; r < k; ++r) {
      double *x = w.X + (size_t)r * n, *hx = w.HX + (size_t)r * n, th = w.theta[r];
      double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
      for (cis_int i = 0; i < n; ++i) { double d = hx[i] - th * x[i]; s += d * d; }
      double rn = sqrt(s);
      if (rn > inf.max_residual) inf.max_residual = rn;
      int ok = (rn < o.tol && fabs(th - w.prev[r]) < o.etol) || m == n;
      done[r] = ok;
      nconv += ok;
      all &= ok;
    }
    if (o.verbose)
      fprintf(stderr, "davidson %3d  subspace %3d  E0 %.12f  max residual %.3e  converged %d/%d\n", it, m,
              w.theta[0], inf.max_residual, nconv, k);
    for (int r = 0; r < k; ++r) w.prev[r] = w.theta[r];
    if (all) { converged = 1; break; }
    if (room < k) { /* collapse: V <- X, W <- HX, G <- diag(theta) */
      memcpy(w.V, w.X, (size_t)k * n * sizeof(double));
      memcpy(w.W, w.HX, (size_t)k * n * sizeof(double));
      memset(w.G, 0, (size_t)max_sub * max_sub * sizeof(double));
      for (int r = 0; r < k; ++r) w.G[r * max_sub + r] = w.theta[r];
      m = k;
      room = max_sub - m;
    }
    /* corrections t = r / (theta - D) for unconverged roots */
    for (int r = 0; r < k && added < room; ++r) {
      if (done[r]) continue;
      double *x = w.X + (size_t)r * n, *hx = w.HX + (size_t)r * n, th = w.theta[r];
      double *t = w.V + (size_t)(m + added) * n;
#pragma omp parallel for schedule(static)
      for (cis_int i = 0; i < n; ++i) {
        double den = th - diag[i];
        if (fabs(den) < 1e-8) den = den < 0 ? -1e-8 : 1e-8;
        t[i] = (hx[i] - th * x[i]) / den;
      }
      if (orthonormalise(w.V, m + added, n, t) > 1e-10) added++;
    }
    m_new = added; /* 0: only energy changes pending; the next pass re-checks them */
  }
  for (int r = 0; r < k; ++r) evals[r] = w.theta[r];
  if (evecs) memcpy(evecs, w.X, (size_t)k * n * sizeof(double));
  inf.total_seconds = cis_wtime() - t_start;
  if (info) *info = inf;
  st = converged ? CIS_OK
                 : cis_error(CIS_ERR_NOT_CONVERGED, "Davidson did not converge in %d iterations (max residual %.3e, tol %.1e)",
                             inf.iterations, inf.max_residual, o.tol);
cleanup:
  work_free(&w);
  return st;
}
