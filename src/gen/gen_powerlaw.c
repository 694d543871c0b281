/* gen_powerlaw.c: irregular matrices whose row lengths follow a power law
 * (density ~ len^-alpha), the kind that defeats ELLPACK padding.
 *
 * Row length = floor(min(X, max) + U), X Pareto with P(X > x) = (xmin/x)^a,
 * a = alpha - 1, for x >= xmin, U uniform in (0, 1) (stochastic rounding
 * keeps the mean). xmin is solved (bisection) so that E[min(X, max)] = avg,
 * so the expected nonzeros per row is exactly avg. As alpha -> 1 the tail
 * flattens and xmin falls like (avg/max)^(1/a) (1e-210 at alpha = 1.01 for
 * avg 16 of max 2000, beyond any double at 1 + 1e-10): everything is
 * therefore done in logarithms, with c = a ln xmin as the unknown (finite
 * for every alpha).
 * Columns: distinct, uniform over [0, cols). Values uniform in (-1, 1),
 * never zero. */
#include "gen/gen_internal.h"

typedef struct pl_gen { cis_int cols, max; double lx, tail; } pl_gen; /* cols first; lx = ln xmin */

/* ln(expm1(z) / b) for z = b L, L > 0 (the integral of x^-a over [xmin, M]
 * divided by xmin^(1-a), b = 1 - a), without overflow or cancellation. */
static double log_ratio(double b, double L) {
  double z = b * L;
  if (fabs(b) < 1e-300 || fabs(z) < 1e-300) return log(L);
  if (z > 700) return z + log1p(-exp(-z)) - log(b);
  return log(expm1(z) / b);
}

/* ln E[min(X, M)] for the Pareto law with ln xmin = lx <= ln M and tail a:
 * E = xmin + xmin * expm1((1 - a) L) / (1 - a), L = ln(M / xmin). */
static double log_capped_mean(double lx, double a, double lnM) {
  double L = lnM - lx;
  if (L <= 0) return lx;
  double t = log_ratio(1.0 - a, L); /* ln of the second term over xmin */
  return lx + (t > 0 ? t + log1p(exp(-t)) : log1p(exp(t)));
}

static int64_t pl_row_len(const void *gp, cis_int i, gen_rng *r) {
  const pl_gen *g = gp;
  double lnx = g->lx - log(gen_uniform(r)) / g->tail; /* ln X = ln xmin + E / a, E ~ Exp(1) */
  double x = lnx >= log((double)g->max) ? (double)g->max : exp(lnx);
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
  double a = g.tail, lnM = log((double)max), lavg = log(avg);
  double lo = -800.0 * fmax(1.0, a), hi = a * lnM; /* c = a ln xmin: the mean rises from ~0 to max */
  for (int it = 0; it < 200; ++it) {
    double mid = 0.5 * (lo + hi);
    if (log_capped_mean(mid / a, a, lnM) < lavg) lo = mid; else hi = mid;
  }
  g.lx = 0.5 * (lo + hi) / a;
  gen_def d = {"powerlaw", rows, cols, (double)rows * avg, (uint64_t)seed, pl_row_len, gen_fill_uniform_row, &g};
  return gen_build(&d, t, out);
cleanup:
  return st;
}
