/* bicg.c: the (Jacobi-preconditioned) biconjugate gradient method (Fletcher
 * 1976; Barrett et al., Templates 1994, Fig. 2.8; Aliaga et al., Euro-Par
 * 2015, Fig. 1-2), written once over the operator (A and A^T) and the vector
 * backend. M = diag(A) is symmetric, so M^-T = M^-1. One iteration:
 *   q = A p;  sigma = (p~, q);  alpha = rho / sigma        (sigma = 0: breakdown)
 *   q~ = A^T p~
 *   x += alpha p;  r -= alpha q;  r~ -= alpha q~;  z = M^-1 r;  z~ = M^-1 r~;
 *   rho' = (z, r~);  (r, r);  beta = rho'/rho              (rho' = 0: breakdown)
 *   p = z + beta p;  p~ = z~ + beta p~ */
#include "core/internal.h"
#include "solvers/krylov_problem.h"
#include "operators/operator_internal.h"

typedef struct bicg_ctx {
  kry_be *B;
  const cis_operator *A, *At;
  kry_vecs v;
} bicg_ctx;

static cis_status bicg_iteration(void *c) {
  cis_status st;
  bicg_ctx *g = c;
  CIS_TRY(kry_spmv_dots(g->B, g->A, g->v.p, g->v.q, g->v.pt, KS_SIGMA, NULL, 0, KP_BICG_ALPHA));
  CIS_TRY(g->B->ops->apply(g->B, g->At, g->v.pt, g->v.qt));
  CIS_TRY(kry_step_run(g->B, KRY_STEP_BICG_UPDATE, &g->v, KP_BICG_BETA));
  CIS_TRY(kry_step_run(g->B, KRY_STEP_BICG_P, &g->v, KP_NONE));
cleanup:
  return st;
}

cis_status kry_bicg(kry_problem *P) {
  cis_status st;
  kry_be *B = P->B;
  void *work = NULL;
  bicg_ctx g = {B, P->A, operator_transpose(P->A), {0}};
  int nv = P->dinv ? 8 : 6;
  CIS_TRY(B->ops->alloc(B, &work, nv, "BiCG vectors"));
  g.v.x = P->x;
  g.v.r = kry_vec_at(B, work, 0);
  g.v.rt = kry_vec_at(B, work, 1);
  g.v.p = kry_vec_at(B, work, 2);
  g.v.pt = kry_vec_at(B, work, 3);
  g.v.q = kry_vec_at(B, work, 4);
  g.v.qt = kry_vec_at(B, work, 5);
  g.v.z = P->dinv ? kry_vec_at(B, work, 6) : g.v.r;
  g.v.zt = P->dinv ? kry_vec_at(B, work, 7) : g.v.rt;
  g.v.dinv = P->dinv;
  CIS_TRY(kry_residual0(P, g.v.r));         /* r = b - A x */
  CIS_TRY(B->ops->copy(B, g.v.r, g.v.rt));  /* r~ = r */
  if (P->dinv) {
    CIS_TRY(B->ops->mul(B, P->dinv, g.v.r, g.v.z)); /* z = M^-1 r, z~ = M^-1 r~ */
    CIS_TRY(B->ops->copy(B, g.v.z, g.v.zt));
  }
  CIS_TRY(B->ops->copy(B, g.v.z, g.v.p));   /* p = z, p~ = z~ */
  CIS_TRY(B->ops->copy(B, g.v.zt, g.v.pt));
  CIS_TRY(kry_start_and_loop(P, g.v.z, g.v.rt, g.v.r, bicg_iteration, &g)); /* rho = (z, r~) */
cleanup:
  if (work) B->ops->release(B, work);
  return st;
}
