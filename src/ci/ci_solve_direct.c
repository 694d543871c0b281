/* ci_solve_direct.c: the driver's direct methods on one device
 * (ci_method.h: "direct" on C1 vectors, "direct by irreps" on the target
 * irrep's determinants; Olsen et al. 1988, Knowles & Handy 1984: the
 * string-driven sigma, cis_ci_direct_*): the direct space kept in the
 * solver across solves of one space (CASSCF's macro-iterations load new
 * integrals into it), its operators on the CPU or the GPU, the spin
 * penalty, the separately timed sigma, and the correction hooks that keep
 * Davidson's vectors alpha <-> beta pure. */
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/ci_method.h"
#include "solvers/solver_internal.h"

cis_status ci_run_direct_space(ci_run *r) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  cis_ci_solver *s = r->keep;
  const int nr = r->nr, dav = davidson_vectors(nr, r->max_sub);
  const int gpu = r->R->gpu;
  /* on the GPU the host holds the guesses, the results and the diagonal
   * only; blocked by irreps (ORBSYM/ISYM not all 1, no projection) only the
   * roots in C1 order (for <S^2>), the rest compact */
  const int blocked = ci_has_symmetry(r->F) && !o->symmetry_projection;
  const int nvec = 2 * ci_guess_count(nr);
  cis_ci_direct_opts dopt = ci_direct_opts_default();
  dopt.no_time_reversal = o->no_time_reversal;
  dopt.symmetry_projection = o->symmetry_projection;
  dopt.vectors = gpu ? (blocked ? nr + 1 : nvec + nr + 1) : dav;
  char key[600];
  ci_space_key(r->F, o, 1, key, sizeof key);
  size_t k = strlen(key);
  snprintf(key + k, sizeof key - k, "|%d", dopt.vectors);
  r->R->space_reused = s->D && !strcmp(key, s->key_D);
  if (r->R->space_reused) { /* the same space: new integrals only */
    CIS_TRY(cis_ci_direct_set_integrals(s->D, r->F));
    if (s->G) CIS_TRY(cis_ci_direct_gpu_set_integrals(s->G));
  } else {
    cis_ci_direct_gpu_free(s->G);
    cis_ci_direct_free(s->D);
    s->G = NULL, s->D = NULL, s->G_vectors = 0;
    CIS_TRY(cis_ci_direct_create(r->F, &dopt, &s->D));
    snprintf(s->key_D, sizeof s->key_D, "%s", key);
  }
  if (gpu && !r->parts && (!s->G || s->G_vectors < dav)) {
    cis_ci_direct_gpu_free(s->G);
    s->G = NULL;
    cis_ci_direct_gpu_opts go = ci_direct_gpu_opts_default();
    go.vectors = dav;
    if (o->gpu_leave_free > 0) { /* the workspace leaves room for what the caller does next (RDMs) */
      cis_gpu_info gi;
      CIS_TRY(cis_gpu_get_info(&gi));
      int64_t work = gi.free_mem - 8 * (int64_t)cis_ci_direct_size(s->D) * dav - o->gpu_leave_free;
      go.work_bytes = work > ((int64_t)256 << 20) ? work : (int64_t)256 << 20;
    }
    CIS_TRY(cis_ci_direct_gpu_create(s->D, &go, &s->G));
    s->G_vectors = dav;
  }
  r->D = s->D;
  r->G = gpu && !r->parts ? s->G : NULL;
  st = CIS_OK;
cleanup:
  return st;
}

/* On the CPU one sigma of Davidson's operator on a pseudo-random vector
 * (so the full sigma: the half sigma takes symmetric vectors only), the
 * sigma's counters left as they were. */
static cis_status time_sigma_cpu(ci_run *r) {
  const cis_operator *op = r->opc ? r->opc : r->op;
  const cis_int n = cis_operator_rows(op);
  cis_ci_direct_info before;
  double *x = malloc(2 * (size_t)n * sizeof(double));
  if (!x) return cis_error(CIS_ERR_ALLOC, "cannot allocate two vectors of %lld determinants", (long long)n);
  ci_fill_random(x, n);
  ci_direct_get_info(r->D, &before);
  cis_status st = ci_time_product(op, x, x + n, &r->R->sigma_ms);
  ci_direct_set_info(r->D, &before);
  free(x);
  return st;
}

/* One sigma and one half sigma on the GPU, medians of 5, timed apart (not
 * part of the time to solution). */
static cis_status time_sigma(ci_run *r) {
  cis_status st;
  cis_ci_result *R = r->R;
  const cis_ci_solve_opts *o = r->o;
  double *c = NULL;
  CIS_TRY(cis_ci_direct_gpu_time_sigma(r->G, NULL, 5, &R->sigma_ms));
  const cis_int na = R->direct.alpha_strings, nb = R->direct.beta_strings;
  if (R->direct.blocked && na == nb && !o->no_time_reversal) { /* a symmetric compact vector */
    const cis_int nc = ci_direct_compact_size(r->D);
    int one = 1;
    if (!(c = malloc((size_t)nc * sizeof(double))))
      { st = cis_error(CIS_ERR_ALLOC, "cannot allocate a vector of %lld determinants", (long long)nc); goto cleanup; }
    ci_fill_random(c, nc);
    CIS_TRY(cis_ci_direct_compact_pure_guesses(r->D, c, 1, 1, &one)); /* (c + c^T) / 2: exactly symmetric */
    CIS_TRY(cis_ci_direct_gpu_time_compact_sigma(r->G, c, 5, &R->sigma_half_ms));
  } else if (na == nb && !o->no_time_reversal && cis_fcidump_nalpha(r->F) == cis_fcidump_nbeta(r->F)) {
    const cis_int n = cis_ci_direct_size(r->D);
    if (!(c = malloc((size_t)n * sizeof(double))))
      { st = cis_error(CIS_ERR_ALLOC, "cannot allocate a vector of %lld determinants", (long long)n); goto cleanup; }
    ci_fill_random(c, n); /* then its lower triangle mirrored: exactly symmetric */
    for (cis_int A = 0; A < na; ++A)
      for (cis_int B = 0; B < A; ++B) c[B * nb + A] = c[A * nb + B];
    CIS_TRY(cis_ci_direct_gpu_time_sigma(r->G, c, 5, &R->sigma_half_ms));
  }
  st = CIS_OK;
cleanup:
  free(c);
  return st;
}

/* The spin penalty of PySCF's fix_spin_: H + shift (S^2 - ss), squared above
 * the lowest spin (cis_ci_spin_penalty_operator), on the host sigma; its
 * diagonal becomes Davidson's (r->gdiag, the preconditioner): H's alone
 * ignores shift (S^2 - ss)^2, up to shift (Smax(Smax+1) - ss)^2, and the
 * corrections of a state of high spin then stall. */
static cis_status spin_penalty(ci_run *r) {
  const cis_ci_solve_opts *o = r->o;
  double sz = abs(r->F->ms2) * 0.5, ss = o->spin_penalty_ss >= 0 ? o->spin_penalty_ss : sz * (sz + 1);
  cis_status st = cis_ci_spin_penalty_operator(r->op, r->F, r->D, o->spin_penalty, ss, &r->pen);
  const double *pd = st == CIS_OK ? cis_operator_diagonal(r->pen) : NULL;
  if (pd && r->gdiag) memcpy(r->gdiag, pd, (size_t)cis_ci_direct_size(r->D) * sizeof(double));
  return st;
}

cis_status ci_run_direct_setup_space(ci_run *r) {
  cis_status st;
  const cis_ci_solve_opts *o = r->o;
  cis_ci_result *R = r->R;
  double tb = cis_wtime();
  CIS_TRY(ci_run_direct_space(r));
  r->t_space = cis_wtime() - tb;
  ci_direct_get_info(r->D, &R->direct);
  R->size = cis_ci_direct_size(r->D);
  R->determinants = R->direct.symmetry_determinants;
  R->alpha_strings = R->direct.alpha_strings;
  R->beta_strings = R->direct.beta_strings;
  if (o->roots > R->determinants)
    return cis_error(CIS_ERR_INVALID, "%d roots asked; the space has %lld determinants", o->roots,
                     (long long)R->determinants);
  ci_phase(R, "space", tb);
  ci_report_header(r); /* the operators, the sigma timing and Davidson next */
  st = CIS_OK;
cleanup:
  return st;
}

/* The sigma timed apart (o->time_sigma; not part of the time to solution),
 * the setup's time (strings, links, pair matrix, diagonal, uploads) from tb. */
static cis_status operators_done(ci_run *r, double tb, double t) {
  cis_status st;
  cis_ci_result *R = r->R;
  R->t_build = cis_wtime() - tb;
  t = ci_phase(R, "operators", t);
  R->t_timing = 0;
  if (r->o->time_sigma) {
    const double t0 = cis_wtime();
    CIS_TRY(r->G ? time_sigma(r) : time_sigma_cpu(r));
    R->t_timing = cis_wtime() - t0;
    ci_phase(R, "sigma timing", t);
  }
  if (r->G) ci_direct_gpu_get_info(r->G, &R->direct_gpu);
  st = CIS_OK;
cleanup:
  return st;
}

/* C1 vectors: the sigma (on the GPU with the diagonal handed to it), the
 * diagonal, and under the spin penalty H + shift (S^2 - ss) (a host
 * operator; with point-group symmetry the irreps by projection). */
static cis_status direct_setup(ci_run *r) {
  cis_status st;
  const double tb = cis_wtime();
  CIS_TRY(ci_run_direct_setup_space(r));
  const double t = cis_wtime();
  const cis_int n = cis_ci_direct_size(r->D);
  if (!(r->gdiag = malloc((size_t)n * sizeof(double))))
    return cis_error(CIS_ERR_ALLOC, "cannot allocate the diagonal of %lld determinants", (long long)n);
  CIS_TRY(ci_direct_diagonal(r->D, r->gdiag));
  CIS_TRY(r->G ? ci_direct_gpu_operator(r->G, r->gdiag, &r->op) : ci_direct_operator(r->D, &r->op));
  if (r->o->spin_penalty > 0) CIS_TRY(spin_penalty(r));
  r->dv = (ci_davidson_view){r->pen ? r->pen : r->op, r->gdiag, n, n, 0};
  CIS_TRY(operators_done(r, tb, t));
cleanup:
  return st;
}

/* Blocked by irreps: Davidson on compact vectors (the target irrep's
 * determinants), the operator's own diagonal. */
static cis_status irreps_setup(ci_run *r) {
  cis_status st;
  const double tb = cis_wtime();
  CIS_TRY(ci_run_direct_setup_space(r));
  const double t = cis_wtime();
  CIS_TRY(r->G ? ci_direct_gpu_compact_operator(r->G, NULL, &r->opc) : ci_direct_compact_operator(r->D, &r->opc));
  r->dv = (ci_davidson_view){r->opc, cis_operator_diagonal(r->opc), cis_ci_direct_size(r->D),
                             ci_direct_compact_size(r->D), 1};
  CIS_TRY(operators_done(r, tb, t));
cleanup:
  return st;
}

/* Corrections kept exactly alpha <-> beta pure (every product a half
 * sigma): onto the one parity kept (a spin target; host vectors), else
 * each made pure; compact vectors on the GPU have no device projection yet
 * (the sigma takes the pure part of a nearly pure vector); under the spin
 * penalty none unless singlet-only. */
static void direct_correct(ci_run *r, cis_davidson_opts *d, int keep) {
  const int compact = r->dv.compact;
  if (!r->G && keep) {
    r->parity_ctx = (ci_direct_parity_ctx){r->D, compact, keep};
    d->correct = ci_direct_parity_correct;
    d->correct_ctx = &r->parity_ctx;
  } else if (!(compact && r->G) && (!r->pen || r->o->singlet)) {
    d->correct = r->G ? cis_ci_direct_gpu_correct : compact ? cis_ci_direct_correct_compact : cis_ci_direct_correct_c1;
    d->correct_ctx = r->G ? (void *)r->G : (void *)r->D;
  }
}

const ci_method ci_method_direct = {.name = "direct", .method = CIS_CI_METHOD_DIRECT, .fit = ci_fit_memory,
                                    .setup = direct_setup, .correct = direct_correct,
                                    .keeps_parity = ci_method_pure, .s2 = ci_method_direct_s2,
                                    .report = ci_method_direct_report, .release = ci_method_release_common};
const ci_method ci_method_direct_irreps = {.name = "direct by irreps", .method = CIS_CI_METHOD_DIRECT,
                                           .fit = ci_fit_memory, .setup = irreps_setup, .correct = direct_correct,
                                           .keeps_parity = ci_method_pure, .s2 = ci_method_direct_s2,
                                           .report = ci_method_direct_report, .release = ci_method_release_common};
