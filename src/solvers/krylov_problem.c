/* krylov_problem.c: the start every Krylov solver (cg.c, bicg.c,
 * bicgstab.c) shares: the initial residual, then rho, (r, r), KP_INIT and
 * the timed iteration loop (krylov_problem.h). */
#include "core/internal.h"
#include "solvers/krylov_problem.h"

cis_status kry_residual0(kry_problem *P, void *r) {
  cis_status st;
  kry_be *B = P->B;
  CIS_TRY(B->ops->apply(B, P->A, P->x, r));           /* r = A x */
  CIS_TRY(B->ops->xpay(B, P->b, kry_imm(-1.0), r));   /* r = b - r */
cleanup:
  return st;
}

cis_status kry_start_and_loop(kry_problem *P, const void *a, const void *b, const void *r,
                              cis_status (*iteration)(void *), void *ctx) {
  cis_status st;
  kry_be *B = P->B;
  CIS_TRY(B->ops->dot(B, a, b, KS_RHO)); /* rho = (a, b) */
  CIS_TRY(B->ops->dot(B, r, r, KS_RR));  /* (r, r) */
  CIS_TRY(B->ops->run_prog(B, KP_INIT));
  CIS_TRY(B->ops->sync(B));
  int64_t l0 = B->launches;
  double t0 = cis_wtime();
  CIS_TRY(kry_loop(B, iteration, ctx, P->maxit + P->check_every, P->check_every));
  CIS_TRY(B->ops->sync(B));
  P->loop_seconds = cis_wtime() - t0;
  P->loop_launches = B->launches - l0;
cleanup:
  return st;
}
