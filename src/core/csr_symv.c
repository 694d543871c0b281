/* csr_symv.c: y = alpha*A*x + beta*y for a symmetric A stored as its upper
 * triangle U (the "symmetric CSR" SpMV), float and double from one source.
 * The rows are split among threads in ranges of equal nonzero count. Row i
 * contributes sum_j U_ij x_j to y_i directly and U_ij x_i to y_j (j > i),
 * which other threads' rows may also touch: those go to the thread's own
 * buffer, which only needs (and only zeroes) the entries from its first row
 * on; a second loop adds the buffers. Race-free and deterministic for a fixed
 * thread count. */
#include <omp.h>
#include <string.h>
#include "core/internal.h"

/* First row of part t of T: where the row pointer reaches t/T of the nonzeros. */
static cis_int split_row(const cis_csr *U, int t, int T) {
  cis_int target = U->nnz / T * t + U->nnz % T * t / T, lo = 0, hi = U->rows;
  if (t == 0) return 0;
  if (t == T) return U->rows;
  while (lo < hi) {
    cis_int mid = lo + (hi - lo) / 2;
    if (U->rowptr[mid] < target) lo = mid + 1; else hi = mid;
  }
  return lo;
}

cis_status cis_csr_symv(const cis_csr *U, double alpha, const void *x, double beta, void *y) {
  cis_status st;
  void *buf = NULL;
  cis_int *first = NULL; /* first row of each thread's part, and rows */
  if (!U || !x || !y) return cis_error(CIS_ERR_INVALID, "cis_csr_symv: NULL argument");
  if (U->rows != U->cols || !(U->flags & CIS_FLAG_UPPER))
    return cis_error(CIS_ERR_INVALID, "cis_csr_symv needs a square upper-triangle CSR (CIS_FLAG_UPPER)");
  cis_int n = U->rows;
  int nt = cis_threads_for(2 * U->nnz, CIS_GRAIN_NNZ); /* both triangles' products */
  CIS_TRY(cis_alloc_array(&buf, (int64_t)nt * n, cis_dtype_size(U->dtype), "symmetric SpMV thread buffers"));
  CIS_TRY(cis_alloc_array((void **)&first, nt + 1, sizeof(cis_int), "symmetric SpMV row split"));
  CIS_FOR_DTYPE(U->dtype, {
    const REAL *val = U->val, *xv = x;
    REAL *yv = y, *bv = buf;
    const REAL a = (REAL)alpha, b = (REAL)beta;
    CIS_PRAGMA(omp parallel num_threads(nt))
    {
      int t = omp_get_thread_num(), T = omp_get_num_threads();
      CIS_PRAGMA(omp single)
      for (int u = 0; u <= T; ++u) first[u] = split_row(U, u, T);
      cis_int lo = first[t], hi = first[t + 1];
      REAL *yt = bv + (size_t)t * (size_t)n;
      memset(yt + lo, 0, (size_t)(n - lo) * sizeof(REAL));
      for (cis_int i = lo; i < hi; ++i) {
        REAL s = 0, xi = xv[i];
        for (cis_int k = U->rowptr[i]; k < U->rowptr[i + 1]; ++k) {
          cis_idx j = U->colind[k];
          s += val[k] * xv[j];
          if (j != i) yt[j] += val[k] * xi;
        }
        yt[i] += s; /* row i's own part, in this thread's buffer (lo <= i) */
      }
      CIS_PRAGMA(omp barrier)
      for (cis_int i = lo; i < hi; ++i) {
        REAL s = 0;
        for (int u = 0; u < T && first[u] <= i; ++u) s += bv[(size_t)u * (size_t)n + (size_t)i];
        yv[i] = (beta == 0.0) ? a * s : a * s + b * yv[i];
      }
    }
  });
  st = CIS_OK;
cleanup:
  cis_free(buf);
  cis_free(first);
  return st;
}

cis_status csr_symv_upper(const cis_csr *U, const double *x, double *y) {
  if (U && U->dtype != CIS_F64)
    return cis_error(CIS_ERR_INVALID, "csr_symv_upper needs a double upper-triangle CSR (CIS_FLAG_UPPER)");
  return cis_csr_symv(U, 1.0, x, 0.0, y);
}
