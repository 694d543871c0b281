/* gen_powerlaw.c: irregular matrices whose row lengths follow a power law
 * (density ~ len^-alpha), the kind that defeats ELLPACK padding.
 *
 * Row length = floor(min(X, max) + U), X Pareto with P(X > x) = (xmin/x)^(alpha-1)
 * for x >= xmin, U uniform in (0, 1) (stochastic rounding keeps the mean).
 * xmin is solved (bisection) so that E[min(X, max)] = avg, so the expected
 * nonzeros per row is exactly avg. Columns: distinct, uniform over [0, cols).
 * Values uniform in (-1, 1), never zero. */
#include "gen/gen_internal.h"

typedef struct pl_gen { cis_int cols, max; double xmin, tail; } pl_gen; /* cols first */

/* E[min(X, M)] for the Pareto law with scale xmin and tail index a. */
static double capped_mean(double xmin, double a, double M) {
  if (fabs(a - 1.0) < 1e-12) return xmin + xmin * log(M / xmin);
  return xmin + pow(xmin, a) * (pow(M, 1.0 - a) - pow(xmin, 1.0 - a)) / (1.0 - a);
}

static int64_t pl_row_len(const void *gp, cis_int i, gen_rng *r) {
  const pl_gen *g = gp;
  double x = g->xmin * pow(gen_uniform(r), -1.0 / g->tail);
  if (x > (double)g->max) x = (double)g->max;
  int64_t len = (int64_t)floor(x + gen_uniform(r));
  return len > g->max ? g->max : len;
}

cis_status gen_powerlaw(const gen_spec *sp, cis_dtype t, cis_csr **out) {
  cis_status st;
  int64_t rows, cols, seed, max;
  double avg, alpha;
  CIS_TRY(gen_spec_int(sp, "rows", 1, 0, 1, CIS_IDX_MAX, &rows));
  CIS_TRY(gen_spec_int(sp, "seed", 1, 0, 0, INT64_MAX, &seed));
  CIS_TRY(gen_spec_int(sp, "cols", 0, rows, 1, CIS_IDX_MAX, &cols));
  CIS_TRY(gen_spec_int(sp, "max", 0, cols, 1, cols, &max));
  CIS_TRY(gen_spec_double(sp, "avg", 16.0, 0.0, 1, (double)max, 0, &avg));
  CIS_TRY(gen_spec_double(sp, "alpha", 2.0, 1.0, 1, 100.0, 0, &alpha));
  pl_gen g = {cols, max, 0.0, alpha - 1.0};
  double lo = 0.0, hi = (double)max;
  for (int it = 0; it < 200; ++it) { /* capped_mean rises from 0 to max with xmin */
    double mid = 0.5 * (lo + hi);
    if (capped_mean(mid, g.tail, (double)max) < avg) lo = mid; else hi = mid;
  }
  g.xmin = 0.5 * (lo + hi);
  gen_def d = {"powerlaw", rows, cols, (double)rows * avg, (uint64_t)seed, pl_row_len, gen_fill_uniform_row, &g};
  return gen_build(&d, t, out);
cleanup:
  return st;
}
