/* davidson.c: the CI entry points of Davidson (cisparse/ci.h), thin glue over
 * the solver layer's one Davidson (src/solvers/davidson.c,
 * cis_davidson_operator):
 *   ci_davidson              a host callback y = H x as an operator;
 *   ci_davidson_gpu       a matrix uploaded into a GPU plan, then as below;
 *   ci_davidson_gpu_plan  a plan already on the device (e.g. the CI
 *                             Hamiltonian built there) as a device operator:
 *                             every vector on the device.
 * No CUDA here: without it the plan functions report CIS_ERR_NO_GPU. */
#include <stdio.h>
#include <string.h>
#include "cisparse/operator.h"
#include "ci/ci_internal.h"
#include "core/internal.h"
#include "gpu/gpu_plan_internal.h"

/* ---- host callback --------------------------------------------------------- */

typedef struct linop_ctx {
  ci_linop op;
  void *ctx;
  cis_int n;
} linop_ctx;

/* y = alpha*H*x + beta*y through y = H x: beta must be 0 (what Davidson asks). */
static cis_status linop_apply(void *c, double alpha, const void *x, double beta, void *y, cis_stream s) {
  linop_ctx *l = c;
  cis_status st;
  if (beta != 0) return cis_error(CIS_ERR_UNSUPPORTED, "ci_davidson: the callback gives H x only (beta = %g)", beta);
  if ((st = l->op(l->ctx, x, y)) != CIS_OK || alpha == 1) return st;
  double *yv = y;
  for (cis_int i = 0; i < l->n; ++i) yv[i] *= alpha;
  return CIS_OK;
}

cis_status ci_davidson(cis_int n, const double *diag, ci_linop op, void *ctx, const cis_davidson_opts *o,
                        double *evals, double *evecs, cis_davidson_info *info) {
  cis_status st;
  cis_operator *H = NULL;
  linop_ctx l = {op, ctx, n};
  if (!diag || !op || !evals) return cis_error(CIS_ERR_INVALID, "ci_davidson: NULL argument");
  CIS_TRY(cis_operator_from_callback(n, n, CIS_F64, CIS_MEM_HOST, linop_apply, &l, NULL, &H));
  st = cis_davidson_operator(H, diag, o, evals, evecs, info);
cleanup:
  cis_operator_free(H);
  return st;
}

/* ---- a GPU plan ----------------------------------------------------------- */

/* Davidson on `plan` (owned by the caller) as a device operator; t0 = when
 * the setup (upload) began. */
static cis_status run_on_plan(cis_gpu_plan *plan, double t0, const double *diag, const cis_davidson_opts *o,
                              double *evals, double *evecs, cis_davidson_info *info, cis_ci_gpu_stats *stats) {
  cis_status st;
  cis_operator *H = NULL;
  cis_davidson_info inf;
  memset(&inf, 0, sizeof inf);
  CIS_TRY(cis_operator_from_gpu_plan(plan, &H));
  double t_upload = cis_wtime() - t0;
  st = cis_davidson_operator(H, diag, o, evals, evecs, &inf);
  if (info) *info = inf;
  if (stats) {
    memset(stats, 0, sizeof *stats);
    stats->upload_seconds = t_upload;
    stats->spmv_seconds = inf.op_seconds; /* each product synchronized */
    stats->device_bytes = cis_gpu_plan_bytes(plan) + cis_gpu_plan_workspace_bytes(plan);
    snprintf(stats->kernel, sizeof stats->kernel, "%s", cis_gpu_plan_kernel(plan));
  }
cleanup:
  cis_operator_free(H);
  return st;
}

cis_status ci_davidson_gpu(const cis_matrix *M, const char *kernel, const double *diag,
                               const cis_davidson_opts *o, double *evals, double *evecs,
                               cis_davidson_info *info, cis_ci_gpu_stats *stats) {
  cis_status st;
  cis_gpu_plan *plan = NULL;
  if (!M || !diag || !evals) return cis_error(CIS_ERR_INVALID, "ci_davidson_gpu: NULL argument");
  if (cis_matrix_dtype(M) != CIS_F64) return cis_error(CIS_ERR_INVALID, "GPU Davidson needs a double matrix");
  if (cis_matrix_rows(M) != cis_matrix_cols(M) || cis_matrix_rows(M) > INT32_MAX)
    return cis_error(CIS_ERR_INVALID, "GPU Davidson needs a square matrix below 2^31 rows");
  double t0 = cis_wtime();
  if ((st = cis_gpu_plan_create(M, kernel, 0, &plan)) != CIS_OK) return st;
  st = run_on_plan(plan, t0, diag, o, evals, evecs, info, stats);
  cis_gpu_plan_free(plan);
  return st;
}

cis_status ci_davidson_gpu_plan(cis_gpu_plan *plan, const double *diag, const cis_davidson_opts *o,
                                    double *evals, double *evecs, cis_davidson_info *info,
                                    cis_ci_gpu_stats *stats) {
  cis_status st;
  cis_int rows, cols;
  cis_dtype t;
  if (!plan || !diag || !evals) return cis_error(CIS_ERR_INVALID, "ci_davidson_gpu_plan: NULL argument");
  if ((st = gpu_plan_shape(plan, &rows, &cols, &t)) != CIS_OK) return st;
  if (t != CIS_F64) return cis_error(CIS_ERR_INVALID, "GPU Davidson needs a double matrix");
  if (rows != cols || rows > INT32_MAX)
    return cis_error(CIS_ERR_INVALID, "GPU Davidson needs a square matrix below 2^31 rows");
  return run_on_plan(plan, cis_wtime(), diag, o, evals, evecs, info, stats);
}
