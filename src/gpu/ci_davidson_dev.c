/* ci_davidson_dev.c: the Davidson iteration (src/ci/davidson_core.h) with
 * every vector on the device: H x is cis_gpu_spmv on the uploaded plan (any
 * format, e.g. the hybrid format with its warp kernel, Mahmoud et al. 2018
 * §4), dots/axpys/copies/Ritz combinations are cuBLAS, the preconditioner is
 * ci_precond.cu. Only subspace-sized data (m x m matrices, scalars) cross the
 * bus per iteration. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include "ci/davidson_core.h"
#include "cisparse/gpu.h"
#include "core/internal.h"
#include "kernels/ci_precond.h"
#include "gpu/gpu_internal.h"

#define CIS_CUBLAS_CHECK(call)                                                                  \
  do {                                                                                          \
    cublasStatus_t s_ = (call);                                                                 \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                                            \
      return cis_error(CIS_ERR_CUSPARSE, "%s:%d: %s: cuBLAS status %d", __FILE__, __LINE__, #call, \
                       (int)s_);                                                                \
  } while (0)

typedef struct dev_ctx {
  cis_int n;
  cublasHandle_t h;
  cis_gpu_plan *plan;
  double *d_diag, *d_c, *h_c; /* Ritz coefficients: device and host staging, 64 x 64 at most */
  double spmv_seconds;
} dev_ctx;

static cis_status d_alloc(void *c, double **p, cis_int count, const char *what) {
  cis_status st = cis_gpu_malloc((void **)p, (size_t)(count * ((dev_ctx *)c)->n) * sizeof(double));
  if (st == CIS_OK) return st;
  char why[400]; /* cis_error formats into the buffer cis_last_error() reads */
  snprintf(why, sizeof why, "%s", cis_last_error());
  *p = NULL;
  return cis_error(st, "%s on the device: %s", what, why);
}
static void d_release(void *c, double *p) { cis_gpu_free(p); }
static cis_status d_apply(void *c, const double *x, double *y) {
  dev_ctx *d = c;
  cis_status st;
  double t0 = cis_wtime();
  if ((st = cis_gpu_spmv(d->plan, 1.0, x, 0.0, y, NULL)) != CIS_OK) return st;
  CIS_CUDA_CHECK(cudaDeviceSynchronize());
  d->spmv_seconds += cis_wtime() - t0;
  return CIS_OK;
}
static cis_status d_dot(void *c, const double *a, const double *b, double *r) {
  dev_ctx *d = c;
  CIS_CUBLAS_CHECK(cublasDdot(d->h, (int)d->n, a, 1, b, 1, r));
  return CIS_OK;
}
static cis_status d_axpy(void *c, double alpha, const double *x, double *y) {
  dev_ctx *d = c;
  CIS_CUBLAS_CHECK(cublasDaxpy(d->h, (int)d->n, &alpha, x, 1, y, 1));
  return CIS_OK;
}
static cis_status d_scal(void *c, double alpha, double *x) {
  dev_ctx *d = c;
  CIS_CUBLAS_CHECK(cublasDscal(d->h, (int)d->n, &alpha, x, 1));
  return CIS_OK;
}
static cis_status d_copy(void *c, const double *x, double *y) {
  dev_ctx *d = c;
  CIS_CUBLAS_CHECK(cublasDcopy(d->h, (int)d->n, x, 1, y, 1));
  return CIS_OK;
}
/* out (n x k, column-major) = V (n x m) * C, C[j + r*m] = c[j*m + r]. */
static cis_status d_combine(void *c, const double *V, const double *cf, int m, int k, double *out) {
  dev_ctx *d = c;
  const double one = 1.0, zero = 0.0;
  for (int r = 0; r < k; ++r)
    for (int j = 0; j < m; ++j) d->h_c[j + r * m] = cf[j * m + r];
  CIS_CUDA_CHECK(cudaMemcpy(d->d_c, d->h_c, (size_t)m * k * sizeof(double), cudaMemcpyHostToDevice));
  CIS_CUBLAS_CHECK(cublasDgemm(d->h, CUBLAS_OP_N, CUBLAS_OP_N, (int)d->n, k, m, &one, V, (int)d->n, d->d_c, m, &zero,
                               out, (int)d->n));
  return CIS_OK;
}
static cis_status d_precond(void *c, const double *r, double theta, double *t) {
  dev_ctx *d = c;
  return cis_launch_ci_precond(d->n, r, d->d_diag, theta, t, NULL);
}
static cis_status d_unit(void *c, double *x, cis_int i) {
  dev_ctx *d = c;
  const double one = 1.0;
  CIS_CUDA_CHECK(cudaMemset(x, 0, (size_t)d->n * sizeof(double)));
  CIS_CUDA_CHECK(cudaMemcpy(x + i, &one, sizeof one, cudaMemcpyHostToDevice));
  return CIS_OK;
}
static cis_status d_to_host(void *c, const double *x, double *h, cis_int count) {
  dev_ctx *d = c;
  CIS_CUDA_CHECK(cudaMemcpy(h, x, (size_t)(count * d->n) * sizeof(double), cudaMemcpyDeviceToHost));
  return CIS_OK;
}

static cis_status make_handle(cublasHandle_t *h) {
  CIS_CUBLAS_CHECK(cublasCreate(h));
  return CIS_OK;
}

/* Davidson on d->plan (owned by the caller); t0 = when the setup began. */
static cis_status run_on_plan(dev_ctx *d, double t0, const double *diag, const cis_davidson_opts *o,
                              double *evals, double *evecs, cis_davidson_info *info, cis_ci_gpu_stats *stats) {
  cis_status st;
  int max_sub = o && o->max_sub > 64 ? o->max_sub : 64 * 8;
  CIS_TRY(cis_gpu_malloc((void **)&d->d_diag, (size_t)d->n * sizeof(double)));
  CIS_TRY(cis_gpu_upload(d->d_diag, diag, (size_t)d->n * sizeof(double)));
  CIS_TRY(cis_gpu_malloc((void **)&d->d_c, (size_t)max_sub * 64 * sizeof(double)));
  CIS_TRY(cis_alloc_array((void **)&d->h_c, (int64_t)max_sub * 64, sizeof(double), "Ritz coefficients"));
  CIS_TRY(make_handle(&d->h));
  CIS_TRY(cis_gpu_sync());
  double t_upload = cis_wtime() - t0;
  dav_ops ops = {d, d->n, d_alloc, d_release, d_apply, d_dot, d_axpy, d_scal, d_copy,
                 d_combine, d_precond, d_unit, d_to_host};
  st = dav_run(&ops, diag, o, evals, evecs, info);
  if (stats) {
    memset(stats, 0, sizeof *stats);
    stats->upload_seconds = t_upload;
    stats->spmv_seconds = d->spmv_seconds;
    stats->device_bytes = cis_gpu_plan_bytes(d->plan) + cis_gpu_plan_workspace_bytes(d->plan);
    snprintf(stats->kernel, sizeof stats->kernel, "%s", cis_gpu_plan_kernel(d->plan));
  }
cleanup:
  if (d->h) cublasDestroy(d->h);
  cis_gpu_free(d->d_diag);
  cis_gpu_free(d->d_c);
  cis_free(d->h_c);
  return st;
}

cis_status cis_ci_davidson_gpu(const cis_matrix *M, const char *kernel, const double *diag,
                               const cis_davidson_opts *o, double *evals, double *evecs,
                               cis_davidson_info *info, cis_ci_gpu_stats *stats) {
  cis_status st;
  dev_ctx d;
  memset(&d, 0, sizeof d);
  if (!M || !diag || !evals) return cis_error(CIS_ERR_INVALID, "cis_ci_davidson_gpu: NULL argument");
  if (cis_matrix_dtype(M) != CIS_F64) return cis_error(CIS_ERR_INVALID, "GPU Davidson needs a double matrix");
  if (cis_matrix_rows(M) != cis_matrix_cols(M) || cis_matrix_rows(M) > INT32_MAX)
    return cis_error(CIS_ERR_INVALID, "GPU Davidson needs a square matrix below 2^31 rows");
  d.n = cis_matrix_rows(M);
  double t0 = cis_wtime();
  if ((st = cis_gpu_plan_create(M, kernel, 0, &d.plan)) != CIS_OK) return st;
  st = run_on_plan(&d, t0, diag, o, evals, evecs, info, stats);
  cis_gpu_plan_free(d.plan);
  return st;
}

cis_status cis_ci_davidson_gpu_plan(cis_gpu_plan *plan, const double *diag, const cis_davidson_opts *o,
                                    double *evals, double *evecs, cis_davidson_info *info,
                                    cis_ci_gpu_stats *stats) {
  dev_ctx d;
  memset(&d, 0, sizeof d);
  if (!plan || !diag || !evals) return cis_error(CIS_ERR_INVALID, "cis_ci_davidson_gpu_plan: NULL argument");
  if (plan->dtype != CIS_F64) return cis_error(CIS_ERR_INVALID, "GPU Davidson needs a double matrix");
  if (plan->rows != plan->cols || plan->rows > INT32_MAX)
    return cis_error(CIS_ERR_INVALID, "GPU Davidson needs a square matrix below 2^31 rows");
  d.n = plan->rows;
  d.plan = plan;
  return run_on_plan(&d, cis_wtime(), diag, o, evals, evecs, info, stats);
}
