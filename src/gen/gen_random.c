/* gen_random.c: uniformly random sparse matrices. Each row's length is
 * Binomial(cols, density): exact by inversion while the mean is below 30,
 * the normal approximation N(np, np(1-p)) rounded and clamped above. The
 * columns are distinct and uniform; values uniform in (-1, 1), never zero. */
#include "gen/gen_internal.h"

typedef struct rnd_gen { cis_int cols; double p; } rnd_gen; /* cols first */

/* Binomial(n, p) by inversion of the CDF (Kachitvichyanukul & Schmeiser
 * 1988, algorithm BINV), for n p < 30. */
static int64_t binomial_inversion(gen_rng *r, int64_t n, double p) {
  const double q = 1.0 - p, s = p / q, a = (double)(n + 1) * s;
  double f = pow(q, (double)n), u = gen_uniform(r);
  int64_t x = 0;
  while (u > f && x < n) {
    u -= f;
    x++;
    f *= a / (double)x - s;
  }
  return x;
}

static int64_t rnd_row_len(const void *gp, cis_int i, gen_rng *r) {
  const rnd_gen *g = gp;
  double mean = g->p * (double)g->cols;
  if (g->p >= 1.0) return g->cols;
  if (mean < 30.0) return binomial_inversion(r, g->cols, g->p);
  return gen_clamp_round(mean + sqrt(mean * (1.0 - g->p)) * gen_normal(r), 0, g->cols);
}

cis_status gen_random(const gen_spec *sp, cis_dtype t, cis_csr **out) {
  cis_status st;
  int64_t rows, cols, seed;
  double density;
  CIS_TRY(gen_spec_int(sp, "rows", 1, 0, 1, CIS_IDX_MAX, &rows));
  CIS_TRY(gen_spec_int(sp, "cols", 1, 0, 1, CIS_IDX_MAX, &cols));
  CIS_TRY(gen_spec_double(sp, "density", 0.0, 0.0, 1, 1.0, 0, &density));
  if (!gen_spec_has(sp, "density"))
    return cis_error(CIS_ERR_INVALID, "generator spec '%s': missing density=", sp->text);
  CIS_TRY(gen_spec_int(sp, "seed", 1, 0, 0, INT64_MAX, &seed));
  rnd_gen g = {cols, density};
  gen_def d = {"random", rows, cols, (double)rows * (double)cols * density, (uint64_t)seed,
               rnd_row_len, gen_fill_uniform_row, &g};
  return gen_build(&d, t, out);
cleanup:
  return st;
}
