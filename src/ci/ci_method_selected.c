/* ci_method_selected.c: the CI driver's selected-CI method (ci_method.h):
 * the product space of the solver's alpha and beta string sets
 * (cis_ci_solver_set_strings), its Hamiltonian P H P applied by the
 * string-driven sigma restricted to the sets (cisparse/sci.h; Knowles &
 * Handy 1984, Olsen et al. 1988), Davidson (Davidson 1975) from unit
 * vectors on the lowest diagonal entries as PySCF's selected_ci, and <S^2>
 * from each root's RDMs (the space need not be spin complete). On the host. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cisparse/sci.h"
#include "ci/ci_internal.h"
#include "ci/ci_method.h"
#include "ci/sci_internal.h"
#include "solvers/solver_internal.h"

/* The sizes of the sets' product in place of full CI's (the closed-form
 * counts would refuse a large orbital space the sets cover sparsely). */
static cis_status selected_sizes(ci_run *r) {
  cis_ci_result *R = r->R;
  const cis_ci_solver *s = r->keep;
  memset(&R->counts, 0, sizeof R->counts);
  R->counts.determinants = (double)s->sci_na * (double)s->sci_nb;
  R->counts.alpha_strings = (double)s->sci_na;
  R->counts.beta_strings = (double)s->sci_nb;
  R->counts.level = r->F->nelec;
  R->counts.words = 1;
  R->determinants = (cis_int)s->sci_na * s->sci_nb;
  R->alpha_strings = s->sci_na, R->beta_strings = s->sci_nb;
  return CIS_OK;
}

/* What selected CI does not do (one line each), then the host's fit. */
static cis_status selected_fit(ci_run *r) {
  const cis_ci_solve_opts *o = r->o;
  if (o->method != CIS_CI_METHOD_AUTO)
    return cis_error(CIS_ERR_INVALID, "string sets (cis_ci_solver_set_strings) choose the selected-CI method: leave "
                     "method auto");
  if (o->gpu || o->gpus != 0 || o->cpu_parts > 0)
    return cis_error(CIS_ERR_UNSUPPORTED, "selected CI in string sets runs on the host of one process (no gpu, gpus "
                     "or cpu_parts yet)");
  if (o->level >= 0) return cis_error(CIS_ERR_INVALID, "an excitation level does not apply to string sets");
  if (o->spin_penalty > 0 || o->singlet || o->spin >= 0)
    return cis_error(CIS_ERR_UNSUPPORTED, "a spin target, the spin penalty and singlet-only states are not offered for "
                     "string sets (a product of sets need not be spin complete; <S^2> of each root is reported)");
  r->R->gpu = 0;
  /* Davidson's vectors fitted to the host's limit less the space's guess (the space checks its own bytes) */
  const double vec = 8.0 * r->R->counts.determinants;
  if (r->R->mem_limit > 0) ci_fit_subspace(r, vec, fmax((double)r->R->mem_limit - 4 * vec, 1));
  const double need = (davidson_vectors(r->nr, r->max_sub) + 2.0) * vec;
  if (r->R->mem_limit > 0 && need > (double)r->R->mem_limit)
    return cis_error(CIS_ERR_TOO_LARGE, "%.4g determinants need %.1f GiB of Davidson vectors at the smallest subspace "
                     "(%d); this process may use %.1f GiB (%s)", r->R->counts.determinants, need / 1073741824.0,
                     r->max_sub, (double)r->R->mem_limit / 1073741824.0, r->R->mem_why);
  return CIS_OK;
}

/* Equal sets with MS = 0: the grid's transpose (entry (A, B) at (B, A)),
 * which commutes with H (the alpha <-> beta swap, up to one global sign):
 * Davidson then searches both parities, each watched, and keeps every
 * vector pure (ci_space_mirror_correct). Without it a guess of one parity
 * (a unit vector on a closed-shell determinant (A, A)) never reaches a
 * lower state of the other: the wrong state, converged. */
static cis_status mirror(ci_run *r) {
  const cis_ci_solver *s = r->keep;
  if (r->F->ms2 != 0 || s->sci_na != s->sci_nb || memcmp(s->sci_alpha, s->sci_beta, (size_t)s->sci_na * sizeof(uint64_t)))
    return CIS_OK;
  const cis_int m = s->sci_na;
  cis_status st = cis_alloc_array((void **)&r->mirror, m * m, sizeof(cis_int), "the grid's alpha <-> beta mirror");
  for (cis_int a = 0; st == CIS_OK && a < m; ++a)
    for (cis_int b = 0; b < m; ++b) r->mirror[a * m + b] = b * m + a;
  return st;
}

static cis_status selected_setup(ci_run *r) {
  cis_status st;
  const cis_ci_solver *s = r->keep;
  cis_ci_result *R = r->R;
  const double tb = cis_wtime();
  CIS_TRY(cis_sci_space_create(r->F, s->sci_alpha, s->sci_na, s->sci_beta, s->sci_nb, R->mem_limit, &r->sci));
  const cis_int n = cis_sci_space_size(r->sci);
  R->size = R->determinants = n;
  ci_phase(R, "space", tb);
  ci_report_header(r); /* the diagonal and Davidson next */
  const double t = cis_wtime();
  CIS_TRY(cis_sci_operator(r->sci, &r->sop));
  CIS_TRY(mirror(r));
  r->dv = (ci_davidson_view){r->sop, cis_operator_diagonal(r->sop), n, n, 0};
  R->t_build = cis_wtime() - tb;
  ci_phase(R, "operators", t);
cleanup:
  return st;
}

/* The m lowest diagonal entries' indices into low (ascending, ties by index). */
static int lowest(const double *diag, cis_int n, int m, cis_int *low) {
  int k = 0;
  for (cis_int i = 0; i < n && m > 0; ++i) {
    const double d = diag[i];
    if (k == m && !(d < diag[low[k - 1]])) continue;
    int j = k < m ? k++ : k - 1;
    while (j > 0 && d < diag[low[j - 1]]) low[j] = low[j - 1], --j;
    low[j] = i;
  }
  return k;
}

/* The caller's guesses, then unit vectors on the nvec lowest diagonal
 * entries (PySCF's initial guess for selected CI) and one vector of every
 * determinant (ci_fill_random's fixed numbers) when the caller's are fewer
 * than the roots. The spread vector: H keeps the point group, and the
 * space is taken without ORBSYM, so unit vectors all of one irrep would
 * keep Davidson in that irrep above a lower state of another (PySCF adds
 * 1e-5 to two entries for the same reason). With equal sets and MS = 0
 * (r->mirror) every guess
 * is split into its alpha <-> beta parities, and where the caller's cover
 * the roots the units still bring the lowest of each parity the caller's
 * lack (a warm start of one parity must not hide a lower state of the
 * other). */
static cis_status selected_guesses(ci_run *r, int nvec, ci_guesses *g) {
  cis_status st = CIS_OK;
  const cis_ci_solve_opts *o = r->o;
  const cis_int n = r->dv.n;
  const int given = o->guess ? o->nguess : 0, want_units = given < r->nr || r->mirror, cold = given < r->nr;
  const int nu = !want_units ? 0 : nvec < n ? nvec : (int)n, cap = 2 * (given + nu + 1);
  cis_int *low = NULL;
  int *usec = NULL;
  memset(g, 0, sizeof *g);
  g->sectors = 1;
  CIS_TRY(cis_alloc_array((void **)&low, nu > 0 ? nu : 1, sizeof *low, "guess indices"));
  if (!(g->dense = calloc((size_t)cap * (size_t)n, sizeof(double)))) /* malloc'd: ci_guesses_free */
    CIS_TRY(cis_error(CIS_ERR_ALLOC, "cannot allocate %d guess vectors of %lld determinants", cap, (long long)n));
  if (given) memcpy(g->dense, o->guess, (size_t)given * (size_t)n * sizeof(double));
  const int m = lowest(r->dv.diag, n, nu, low), spread = n > m && (cold || r->mirror);
  r->R->pspace_used = 0;
  if (!r->mirror) {
    for (int k = 0; k < m; ++k) g->dense[(size_t)(given + k) * (size_t)n + (size_t)low[k]] = 1.0;
    if (spread) ci_fill_random(g->dense + (size_t)(given + m) * (size_t)n, n);
    g->n = given + m + spread;
    goto cleanup;
  }
  /* the caller's split first, then the units split after them */
  int nc = 0, nuo = 0, have[2] = {0, 0};
  CIS_TRY(cis_alloc_array((void **)&g->sector, cap, sizeof(int), "the guesses' parities"));
  CIS_TRY(cis_alloc_array((void **)&usec, 2 * m > 0 ? 2 * m : 1, sizeof(int), "the guesses' parities"));
  CIS_TRY(ci_space_split_guesses(r->mirror, n, g->dense, given, 2 * given, &nc, g->sector));
  double *u = g->dense + (size_t)nc * (size_t)n;
  memset(u, 0, (size_t)(cap - nc) * (size_t)n * sizeof(double)); /* a dropped part's numbers may be left there */
  for (int k = 0; k < m; ++k) u[(size_t)k * (size_t)n + (size_t)low[k]] = 1.0;
  CIS_TRY(ci_space_split_guesses(r->mirror, n, u, m, 2 * m, &nuo, usec));
  for (int k = 0; k < nc; ++k) have[g->sector[k]] = 1;
  int out = nc;
  for (int k = 0; k < nuo; ++k) { /* all of them, or the lowest of each parity the caller's lack */
    if (given >= r->nr && have[usec[k]]) continue;
    have[usec[k]] = 1;
    if (out != nc + k) memcpy(g->dense + (size_t)out * (size_t)n, u + (size_t)k * (size_t)n, (size_t)n * sizeof(double));
    g->sector[out++] = usec[k];
  }
  if (spread) { /* its two parities after the rest */
    double *x = g->dense + (size_t)out * (size_t)n;
    int ns = 0;
    memset(x, 0, 2 * (size_t)n * sizeof(double));
    ci_fill_random(x, n);
    CIS_TRY(ci_space_split_guesses(r->mirror, n, x, 1, 2, &ns, g->sector + out));
    out += ns;
  }
  g->n = out;
  g->sectors = 2;
cleanup:
  cis_free(low);
  cis_free(usec);
  if (st != CIS_OK) ci_guesses_free(g);
  return st;
}

/* Equal sets (r->mirror): corrections kept pure, as the stored path's. */
static void selected_correct(ci_run *r, cis_davidson_opts *d, int keep) {
  if (!r->mirror) return;
  r->mirror_ctx = (ci_space_mirror_ctx){r->mirror, r->dv.n, keep};
  d->correct = ci_space_mirror_correct;
  d->correct_ctx = &r->mirror_ctx;
}

static int selected_keeps_parity(const ci_run *r) { return r->mirror != NULL; }

/* <S^2> of a root (sci_s2: S^2 = S- S+ + S_z + S_z^2 from the product of
 * the roots' single-replacement intermediates, the spin flips that leave
 * the space counted); x need not be normalised. */
static cis_status selected_s2(void *ctx, const double *x, double *s2) {
  const ci_run *r = ctx;
  return sci_s2(r->sci, x, s2);
}

/* The vectors' strings: entry A * nB + B is (grid_alpha[A], grid_beta[B]). */
static cis_status selected_report(ci_run *r) {
  cis_ci_result *R = r->R;
  if (!r->o->keep_vectors) return CIS_OK;
  cis_int na, nb;
  const uint64_t *A = cis_sci_space_strings(r->sci, 0, &na), *B = cis_sci_space_strings(r->sci, 1, &nb);
  R->grid_alpha = malloc((size_t)na * sizeof(uint64_t));
  R->grid_beta = malloc((size_t)nb * sizeof(uint64_t));
  if (!R->grid_alpha || !R->grid_beta) return cis_error(CIS_ERR_ALLOC, "cannot allocate the result's strings");
  memcpy(R->grid_alpha, A, (size_t)na * sizeof(uint64_t));
  memcpy(R->grid_beta, B, (size_t)nb * sizeof(uint64_t));
  R->grid_alpha_n = na, R->grid_beta_n = nb;
  return CIS_OK;
}

static void selected_release(ci_run *r) {
  ci_method_release_common(r);
  cis_sci_space_free(r->sci);
  r->sci = NULL;
}

const ci_method ci_method_selected = {.name = "selected", .method = CIS_CI_METHOD_SELECTED, .not_spin_complete = 1,
                                      .sizes = selected_sizes, .fit = selected_fit, .setup = selected_setup,
                                      .correct = selected_correct, .guesses = selected_guesses,
                                      .keeps_parity = selected_keeps_parity, .s2 = selected_s2,
                                      .report = selected_report, .release = selected_release};
