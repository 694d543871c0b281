/* cg.c: the (Jacobi-preconditioned) conjugate gradient method (Hestenes &
 * Stiefel 1952; Saad 2003, Algorithm 9.1; Aliaga et al., Euro-Par 2015,
 * Fig. 3 left), written once over the operator and the vector backend.
 * One iteration, as the three macro-kernels of the merge version:
 *   q = A p;  sigma = (p, q);  alpha = rho / sigma      (sigma <= 0: breakdown)
 *   x += alpha p;  r -= alpha q;  z = M^-1 r;  rho' = (r, z);  (r, r);  beta = rho'/rho
 *   p = z + beta p */
#include "core/internal.h"
#include "solvers/krylov_problem.h"

typedef struct cg_ctx {
  kry_be *B;
  const cis_operator *A;
  kry_vecs v;
} cg_ctx;

static cis_status cg_iteration(void *c) {
  cis_status st;
  cg_ctx *g = c;
  CIS_TRY(kry_spmv_dots(g->B, g->A, g->v.p, g->v.q, g->v.p, KS_SIGMA, NULL, 0, KP_CG_ALPHA));
  CIS_TRY(kry_step_run(g->B, KRY_STEP_CG_UPDATE, &g->v, KP_CG_BETA));
  CIS_TRY(kry_step_run(g->B, KRY_STEP_XPAY, &g->v, KP_NONE));
cleanup:
  return st;
}

cis_status kry_cg(kry_problem *P) {
  cis_status st;
  kry_be *B = P->B;
  void *work = NULL;
  cg_ctx g = {B, P->A, {0}};
  CIS_TRY(B->ops->alloc(B, &work, P->dinv ? 4 : 3, "CG vectors"));
  g.v.x = P->x;
  g.v.r = kry_vec_at(B, work, 0);
  g.v.p = kry_vec_at(B, work, 1);
  g.v.q = kry_vec_at(B, work, 2);
  g.v.z = P->dinv ? kry_vec_at(B, work, 3) : g.v.r;
  g.v.dinv = P->dinv;
  CIS_TRY(kry_residual0(P, g.v.r));                           /* r = b - A x */
  if (P->dinv) CIS_TRY(B->ops->mul(B, P->dinv, g.v.r, g.v.z)); /* z = M^-1 r */
  CIS_TRY(B->ops->copy(B, g.v.z, g.v.p));                     /* p = z */
  CIS_TRY(kry_start_and_loop(P, g.v.r, g.v.z, g.v.r, cg_iteration, &g)); /* rho = (r, z) */
cleanup:
  if (work) B->ops->release(B, work);
  return st;
}
