/* gen_ci.c: CI-structured matrices (Mahmoud, Hoffmann, Reza 2018, §2.2 and
 * §6, Tables 3-4).
 *
 * The paper's CI matrix has two regions: the Reference region, the first
 * ~10% of the columns, 70-80% sparse, and the Expansion Space region, the
 * rest, 98-99% sparse. Its ten 32,768-row matrices (Table 3) hold exactly
 * 21,463,040 = 32,768 x 655 Reference nonzeros (655 = round(0.2 x 3,277)),
 * 9.66-9.68 M Expansion Space nonzeros (295.1 per row on average) and a
 * longest row of 1,060-1,079. Here:
 *   Reference region  = columns [0, ref), ref = ceil(ref_frac x cols);
 *                       every row has exactly ref_per_row (655) distinct
 *                       random columns there (ref_density=D instead asks
 *                       for round(D x ref)); clamped to ref.
 *   Expansion region  = columns [ref, cols); row i has
 *                       round(N(exp_per_row, exp_sd^2)) distinct random
 *                       columns there, clamped to [0, cols - ref]. With
 *                       295.1 and 30, the longest of 32,768 rows lands at
 *                       ~1,065-1,080, as in Table 3.
 *   Values            = uniform in (-1, 1), never zero. No special diagonal
 *                       and no symmetry: the paper's format study needs the
 *                       structure only, and a symmetric matrix could not
 *                       keep 655 nonzeros per row in the first 10% of the
 *                       columns without the first 10% of the rows being
 *                       dense.
 * Nonzeros per row are independent of rows, so nnz grows linearly (the
 * paper's 1,048,576-row matrices: ~10^9 nonzeros). */
#include "gen/gen_internal.h"

typedef struct ci_gen {
  cis_int cols, ref, ref_k;
  double exp_mean, exp_sd;
} ci_gen;

static int64_t ci_row_len(const void *gp, cis_int i, gen_rng *r) {
  const ci_gen *g = gp;
  return g->ref_k + gen_clamp_round(g->exp_mean + g->exp_sd * gen_normal(r), 0, g->cols - g->ref);
}

static void ci_fill_row(const void *gp, cis_int i, int64_t len, gen_rng *r, cis_idx *col,
                        double *val, gen_ws *ws) {
  const ci_gen *g = gp;
  gen_sample_sorted(r, 0, g->ref, g->ref_k, col, ws);
  gen_sample_sorted(r, g->ref, g->cols - g->ref, len - g->ref_k, col + g->ref_k, ws);
  for (int64_t k = 0; k < len; ++k) val[k] = gen_value(r);
}

/* ceil(f x cols), except that a product within rounding of an integer is
 * that integer (0.1 x 30 is 3, not 4). */
static cis_int region_cols(double f, cis_int cols) {
  double x = f * (double)cols, n = nearbyint(x);
  cis_int ref = (cis_int)(fabs(x - n) <= 1e-9 * (x > 1 ? x : 1) ? n : ceil(x));
  return ref < 1 ? 1 : ref > cols ? cols : ref;
}

cis_status gen_ci_reference_cols(const gen_spec *sp, cis_int cols, cis_int *ref) {
  double f;
  cis_status st = gen_spec_double(sp, "ref_frac", 0.1, 0.0, 1, 1.0, 0, &f);
  *ref = st == CIS_OK ? region_cols(f, cols) : 0;
  return st;
}

cis_status gen_ci(const gen_spec *sp, cis_dtype t, cis_csr **out) {
  cis_status st;
  int64_t rows, cols, seed, ref_k;
  double dens;
  ci_gen g;
  CIS_TRY(gen_spec_int(sp, "rows", 1, 0, 1, CIS_IDX_MAX, &rows));
  CIS_TRY(gen_spec_int(sp, "seed", 1, 0, 0, INT64_MAX, &seed));
  CIS_TRY(gen_spec_int(sp, "cols", 0, rows, 1, CIS_IDX_MAX, &cols));
  CIS_TRY(gen_ci_reference_cols(sp, cols, &g.ref));
  CIS_TRY(gen_spec_int(sp, "ref_per_row", 0, 655, 0, CIS_IDX_MAX, &ref_k));
  if (gen_spec_has(sp, "ref_density")) {
    if (gen_spec_has(sp, "ref_per_row"))
      return cis_error(CIS_ERR_INVALID, "generator spec '%s': give ref_per_row or ref_density, not both",
                       sp->text);
    CIS_TRY(gen_spec_double(sp, "ref_density", 0.2, 0.0, 0, 1.0, 0, &dens));
    ref_k = (int64_t)llround(dens * (double)g.ref);
  }
  CIS_TRY(gen_spec_double(sp, "exp_per_row", 295.1, 0.0, 0, 2147483647.0, 0, &g.exp_mean));
  CIS_TRY(gen_spec_double(sp, "exp_sd", 30.0, 0.0, 0, 2147483647.0, 0, &g.exp_sd));
  g.cols = cols;
  g.ref_k = ref_k < g.ref ? ref_k : g.ref;
  double exp_k = g.exp_mean < (double)(cols - g.ref) ? g.exp_mean : (double)(cols - g.ref);
  gen_def d = {"ci", rows, cols, (double)rows * ((double)g.ref_k + exp_k), (uint64_t)seed,
               ci_row_len, ci_fill_row, &g};
  return gen_build(&d, t, out);
cleanup:
  return st;
}
