/* symv.c: y = A x for a symmetric A stored as its upper triangle U (the
 * "symmetric CSR" SpMV). Row i contributes sum_j U_ij x_j to y_i directly
 * (rows are split among threads) and U_ij x_i to y_j for j > i, which other
 * threads' rows may also touch: those go to a per-thread buffer, summed in a
 * second parallel loop. Race-free and deterministic for a fixed thread count. */
#include <omp.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

cis_status cis_csr_symv_upper(const cis_csr *U, const double *x, double *y) {
  cis_status st;
  double *buf = NULL;
  if (!U || !x || !y) return cis_error(CIS_ERR_INVALID, "cis_csr_symv_upper: NULL argument");
  if (U->rows != U->cols || U->dtype != CIS_F64 || !(U->flags & CIS_FLAG_UPPER))
    return cis_error(CIS_ERR_INVALID, "cis_csr_symv_upper needs a square double upper-triangle CSR (CIS_FLAG_UPPER)");
  cis_int n = U->rows;
  int nt = omp_get_max_threads();
  CIS_TRY(cis_alloc_zeroed((void **)&buf, (int64_t)nt * n, sizeof(double), "symmetric SpMV thread buffers"));
  const double *val = U->val;
#pragma omp parallel num_threads(nt)
  {
    double *yt = buf + (size_t)omp_get_thread_num() * (size_t)n;
#pragma omp for schedule(static)
    for (cis_int i = 0; i < n; ++i) {
      double s = 0, xi = x[i];
      for (cis_int k = U->rowptr[i]; k < U->rowptr[i + 1]; ++k) {
        cis_idx j = U->colind[k];
        s += val[k] * x[j];
        if (j != i) yt[j] += val[k] * xi;
      }
      y[i] = s;
    }
#pragma omp for schedule(static)
    for (cis_int i = 0; i < n; ++i) {
      double s = y[i];
      for (int t = 0; t < nt; ++t) s += buf[(size_t)t * (size_t)n + (size_t)i];
      y[i] = s;
    }
  }
  st = CIS_OK;
cleanup:
  cis_free(buf);
  return st;
}
