/* ci_time_product.c: one product of an operator timed apart from a solve
 * (cis_ci_solve_opts.time_sigma), for the one-device and the parts paths
 * of the CI driver alike (ci_solve_direct.c, ci_solve_dist_direct.c). */
#include "ci/ci_solve_internal.h"
#include "core/internal.h"

/* ci_solve_internal.h: the median of 5 after one warm-up. */
cis_status ci_time_product(const cis_operator *op, const void *x, void *y, double *ms) {
  double t[5];
  cis_status st = cis_operator_apply(op, 1.0, x, 0.0, y, NULL);
  for (int k = 0; st == CIS_OK && k < 5; ++k) {
    const double t0 = cis_wtime();
    st = cis_operator_apply(op, 1.0, x, 0.0, y, NULL);
    t[k] = cis_wtime() - t0;
  }
  if (st == CIS_OK) *ms = 1e3 * cis_median(t, 5);
  return st;
}

