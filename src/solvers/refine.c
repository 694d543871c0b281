/* refine.c: mixed-precision iterative refinement (Moler 1967; for Krylov
 * inner solvers on GPUs, Anzt et al., IGCC 2011, cited by Aliaga et al.,
 * Euro-Par 2015 §4): residual and update in double, correction from a
 * single-precision solve:
 *   r = b - A64 x;  stop if ||r|| <= tol ||b||
 *   solve A32 d = r / ||r||  to inner_tol (float)
 *   x += ||r|| d   (double)
 * The scaling keeps the float right-hand side of unit norm whatever the
 * residual has become. Vectors cross between the two precisions through
 * host staging (one download and one upload per refinement step). */
#include <math.h>
#include <string.h>
#include "core/internal.h"
#include "solvers/backend.h"
#include "operators/operator_internal.h"

#define MAX_OUTER 60

cis_status cis_krylov_solve_mixed(const cis_operator *A64, const cis_operator *A32, const double *b, double *x,
                                  const cis_krylov_opts *o, double inner_tol, cis_krylov_info *info, int *outer) {
  cis_status st;
  kry_be *B64 = NULL, *B32 = NULL;
  void *r = NULL, *r32 = NULL, *d32 = NULL, *d64 = NULL;
  double *hr = NULL;
  float *hf = NULL;
  cis_krylov_info inf, in;
  memset(&inf, 0, sizeof inf);
  if (info) memset(info, 0, sizeof *info);
  if (outer) *outer = 0;
  if (!A64 || !A32 || !b || !x || !o) return cis_error(CIS_ERR_INVALID, "cis_krylov_solve_mixed: NULL argument");
  if (cis_operator_dtype(A64) != CIS_F64 || cis_operator_dtype(A32) != CIS_F32)
    return cis_error(CIS_ERR_INVALID, "mixed precision needs a double and a float operator");
  if (cis_operator_rows(A64) != cis_operator_rows(A32) || cis_operator_cols(A64) != cis_operator_cols(A32) ||
      operator_memspace(A64) != operator_memspace(A32))
    return cis_error(CIS_ERR_INVALID, "mixed precision: the double and float operators differ in size or memory space");
  if (!(o->tol > 0) || o->maxit < 1) return cis_error(CIS_ERR_INVALID, "mixed precision: tol must be > 0 and maxit >= 1");
  if (inner_tol <= 0) inner_tol = 1e-4;
  cis_int n = cis_operator_rows(A64);
  double t0 = cis_wtime(), bb, rr, prev = INFINITY;
  CIS_TRY(kry_be_for(A64, o->version, 0, &B64));
  CIS_TRY(kry_be_for(A32, o->version, 0, &B32));
  CIS_TRY(B64->ops->alloc(B64, &r, 1, "refinement residual"));
  CIS_TRY(B64->ops->alloc(B64, &d64, 1, "refinement correction"));
  CIS_TRY(B32->ops->alloc(B32, &r32, 1, "refinement residual (float)"));
  CIS_TRY(B32->ops->alloc(B32, &d32, 1, "refinement correction (float)"));
  CIS_TRY(cis_alloc_array((void **)&hr, n, sizeof(double), "refinement staging"));
  CIS_TRY(cis_alloc_array((void **)&hf, n, sizeof(float), "refinement staging"));
  CIS_TRY(B64->ops->dot_host(B64, b, b, &bb));
  if (!isfinite(bb)) { st = cis_error(CIS_ERR_NUMERIC, "the right-hand side b holds NaN or Inf"); goto cleanup; }
  if (bb == 0) { CIS_TRY(B64->ops->fill(B64, x, 0)); inf.end = CIS_END_CONVERGED; goto done; }
  for (int k = 0;; ++k) {
    CIS_TRY(B64->ops->apply(B64, A64, x, r));          /* r = b - A x (double) */
    CIS_TRY(B64->ops->xpay(B64, b, kry_imm(-1.0), r));
    CIS_TRY(B64->ops->dot_host(B64, r, r, &rr));
    inf.rel_residual = sqrt(rr / bb);
    if (!isfinite(rr)) { inf.end = CIS_END_NONFINITE; break; }
    if (inf.rel_residual <= o->tol) { inf.end = CIS_END_CONVERGED; break; }
    if (inf.iterations >= o->maxit) { inf.end = CIS_END_MAXIT; break; }
    if (k >= MAX_OUTER || !(rr < 0.25 * prev)) { inf.end = CIS_END_STAGNATION; break; }
    prev = rr;
    double rn = sqrt(rr);
    CIS_TRY(B64->ops->download(B64, hr, r, n)); /* r32 = r / ||r|| */
    for (cis_int i = 0; i < n; ++i) hf[i] = (float)(hr[i] / rn);
    CIS_TRY(B32->ops->upload(B32, r32, hf, n));
    CIS_TRY(B32->ops->fill(B32, d32, 0));
    cis_krylov_opts oi = *o; /* inner solve in float */
    oi.tol = inner_tol;
    oi.maxit = o->maxit - inf.iterations;
    oi.history = NULL;
    oi.history_len = 0;
    st = cis_krylov_solve(A32, r32, d32, &oi, &in);
    inf.iterations += in.iterations;
    inf.seconds += in.seconds;
    inf.launches += in.launches;
    if (st != CIS_OK && st != CIS_ERR_NOT_CONVERGED) goto cleanup; /* breakdown, NaN: say so */
    if (outer) *outer = k + 1;
    CIS_TRY(B32->ops->download(B32, hf, d32, n));      /* x += ||r|| d (double) */
    for (cis_int i = 0; i < n; ++i) hr[i] = (double)hf[i];
    CIS_TRY(B64->ops->upload(B64, d64, hr, n));
    CIS_TRY(B64->ops->axpy(B64, kry_imm(rn), d64, x));
  }
done:
  inf.setup_seconds = cis_wtime() - t0 - inf.seconds;
  inf.launches_per_iteration = inf.iterations > 0 ? (double)inf.launches / inf.iterations : 0;
  if (info) *info = inf;
  if (inf.end == CIS_END_CONVERGED) st = CIS_OK;
  else if (inf.end == CIS_END_NONFINITE) st = cis_error(CIS_ERR_NUMERIC, "mixed precision: NaN or Inf in the residual");
  else
    st = cis_error(CIS_ERR_NOT_CONVERGED, "mixed precision did not converge: %s after %d inner iterations (relative residual %.3e, tol %.1e)",
                   inf.end == CIS_END_MAXIT ? "maxit reached" : "refinement stagnated", inf.iterations, inf.rel_residual, o->tol);
cleanup:
  if (B64) { if (r) B64->ops->release(B64, r); if (d64) B64->ops->release(B64, d64); }
  if (B32) { if (r32) B32->ops->release(B32, r32); if (d32) B32->ops->release(B32, d32); }
  kry_be_free(B64);
  kry_be_free(B32);
  cis_free(hr);
  cis_free(hf);
  return st;
}
