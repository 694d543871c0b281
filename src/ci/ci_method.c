/* ci_method.c: the choice of the CI driver's method (ci_method.h) and what
 * the methods' tables share. */
#include <stdlib.h>
#include "ci/ci_internal.h"
#include "ci/ci_method.h"

const ci_method *ci_method_choose(const ci_run *r) {
  const cis_ci_solve_opts *o = r->o;
  if (r->keep && r->keep->sci_alpha) return &ci_method_selected;
  if (o->gpus != 0 || o->cpu_parts > 0) return r->direct ? &ci_method_direct_parts : &ci_method_stored_parts;
  if (!r->direct) return &ci_method_stored;
  /* the sigma blocked by irreps where it is (cis_ci_direct_create); the
   * spin penalty acts on C1 vectors, the irreps then by projection */
  return ci_has_symmetry(r->F) && !o->symmetry_projection && !(o->spin_penalty > 0) ? &ci_method_direct_irreps
                                                                                     : &ci_method_direct;
}

void ci_method_no_correct(ci_run *r, cis_davidson_opts *d, int keep) { (void)r, (void)d, (void)keep; }

int ci_method_no_parity(const ci_run *r) { (void)r; return 0; }

int ci_method_pure(const ci_run *r) { (void)r; return 1; }

cis_status ci_method_direct_s2(void *ctx, const double *x, double *s2) {
  const ci_run *r = ctx;
  return r->dv.compact ? ci_s2_direct_compact(r->F, r->D, x, s2) : ci_s2_direct(r->F, r->D, x, s2);
}

cis_status ci_method_direct_report(ci_run *r) {
  cis_ci_result *R = r->R;
  ci_direct_get_info(r->D, &R->direct);
  if (r->G) ci_direct_gpu_get_info(r->G, &R->direct_gpu);
  R->half_sigmas = r->G ? R->direct_gpu.half_sigmas : R->direct.half_sigmas;
  if (!r->o->keep_vectors) return CIS_OK;
  /* the direct vectors are a grid: alpha string A times beta string B at A * nB + B */
  const cis_int na = R->direct.alpha_strings, nb = R->direct.beta_strings;
  uint64_t unused;
  R->grid_alpha = malloc((size_t)na * sizeof(uint64_t));
  R->grid_beta = malloc((size_t)nb * sizeof(uint64_t));
  if (!R->grid_alpha || !R->grid_beta) return cis_error(CIS_ERR_ALLOC, "cannot allocate the result's strings");
  for (cis_int A = 0; A < na; ++A) cis_ci_direct_det(r->D, A * nb, &R->grid_alpha[A], &unused);
  for (cis_int B = 0; B < nb; ++B) cis_ci_direct_det(r->D, B, &unused, &R->grid_beta[B]);
  R->grid_alpha_n = na, R->grid_beta_n = nb;
  return CIS_OK;
}

void ci_method_release_common(ci_run *r) {
  cis_operator_free(r->pen);
  cis_operator_free(r->op);
  cis_operator_free(r->opc);
  r->pen = r->op = r->opc = NULL;
  r->correct = NULL, r->correct_ctx = NULL;
  free(r->gdiag);
  free(r->diag);
  r->gdiag = r->diag = NULL;
  cis_operator_free(r->sop);
  r->sop = NULL;
  cis_free(r->mirror);
  r->mirror = NULL;
  r->dv = (ci_davidson_view){0};
}
