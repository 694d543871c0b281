/* bicgstab.c: the (Jacobi-preconditioned) BiCGStab method (van der Vorst
 * 1992; Barrett et al., Templates 1994, Fig. 2.10; Aliaga et al., Euro-Par
 * 2015, Fig. 3 right), written once over the operator and the vector
 * backend. With p = v = 0, beta = 0 before the first iteration, one iteration:
 *   p = r + beta (p - omega v);  p^ = M^-1 p
 *   v = A p^;  alpha = rho / (r^, v)                       ((r^, v) = 0: breakdown)
 *   s = r - alpha v;  s^ = M^-1 s
 *   t = A s^;  omega = (t, s) / (t, t)
 *   x += alpha p^ + omega s^;  r = s - omega t;  rho' = (r^, r);  (r, r);
 *   beta = (rho'/rho)(alpha/omega)                         (rho' = 0, omega = 0: breakdown) */
#include "core/internal.h"
#include "solvers/krylov_problem.h"

typedef struct bicgstab_ctx {
  kry_be *B;
  const cis_operator *A;
  kry_vecs v;
} bicgstab_ctx;

static cis_status bicgstab_iteration(void *c) {
  cis_status st;
  bicgstab_ctx *g = c;
  CIS_TRY(kry_step_run(g->B, KRY_STEP_BICGSTAB_P, &g->v, KP_NONE));
  CIS_TRY(kry_spmv_dots(g->B, g->A, g->v.ph, g->v.v, g->v.rh, KS_SIGMA, NULL, 0, KP_BICGSTAB_ALPHA));
  CIS_TRY(kry_step_run(g->B, KRY_STEP_BICGSTAB_S, &g->v, KP_NONE));
  CIS_TRY(kry_spmv_dots(g->B, g->A, g->v.sh, g->v.t, g->v.s, KS_TS, g->v.t, KS_TT, KP_BICGSTAB_OMEGA));
  CIS_TRY(kry_step_run(g->B, KRY_STEP_BICGSTAB_XR, &g->v, KP_BICGSTAB_BETA));
cleanup:
  return st;
}

cis_status kry_bicgstab(kry_problem *P) {
  cis_status st;
  kry_be *B = P->B;
  void *work = NULL;
  bicgstab_ctx g = {B, P->A, {0}};
  int nv = P->dinv ? 8 : 6;
  const double zero[2] = {0, 0};
  CIS_TRY(B->ops->alloc(B, &work, nv, "BiCGStab vectors"));
  g.v.x = P->x;
  g.v.r = kry_vec_at(B, work, 0);
  g.v.rh = kry_vec_at(B, work, 1);
  g.v.p = kry_vec_at(B, work, 2);
  g.v.v = kry_vec_at(B, work, 3);
  g.v.s = kry_vec_at(B, work, 4);
  g.v.t = kry_vec_at(B, work, 5);
  g.v.ph = P->dinv ? kry_vec_at(B, work, 6) : g.v.p;
  g.v.sh = P->dinv ? kry_vec_at(B, work, 7) : g.v.s;
  g.v.dinv = P->dinv;
  CIS_TRY(kry_residual0(P, g.v.r));        /* r = b - A x */
  CIS_TRY(B->ops->copy(B, g.v.r, g.v.rh)); /* r^ = r */
  CIS_TRY(B->ops->fill(B, g.v.p, 0));      /* p = v = 0, beta = beta omega = 0 */
  CIS_TRY(B->ops->fill(B, g.v.v, 0));
  CIS_TRY(B->ops->set_scalars(B, KS_BETA, 1, zero));
  CIS_TRY(B->ops->set_scalars(B, KS_BETA_OMEGA, 1, zero));
  CIS_TRY(kry_start_and_loop(P, g.v.rh, g.v.r, g.v.r, bicgstab_iteration, &g)); /* rho = (r^, r) */
cleanup:
  if (work) B->ops->release(B, work);
  return st;
}
