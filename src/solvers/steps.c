/* steps.c: the fused steps of the Krylov solvers (backend.h) and their
 * composition from primitive vector operations. A backend with fused
 * macro-kernels (the device backend in merge, merge_10 and graph: Aliaga,
 * Perez, Quintana-Orti, Euro-Par 2015 §3.3-3.5) runs a step in one launch;
 * every other backend/version runs the composition below, which is also the
 * CPU reference the GPU tests hold the fused kernels to. Also kry_sparse,
 * the checked entry to the backends' sparse vectors. */
#include "core/internal.h"
#include "solvers/backend.h"

#define OP(call) CIS_TRY(B->ops->call)

static int fused(const kry_be *B) {
  return B->version == CIS_VER_MERGE || B->version == CIS_VER_MERGE_10 || B->version == CIS_VER_GRAPH;
}

cis_status kry_spmv_dots(kry_be *B, const cis_operator *A, const void *x, void *y, const void *u0, int slot0,
                         const void *u1, int slot1, int prog) {
  cis_status st;
  if (fused(B) && B->ops->spmv_dots) return B->ops->spmv_dots(B, A, x, y, u0, slot0, u1, slot1, prog);
  OP(apply(B, A, x, y));          /* y = A x */
  OP(dot(B, u0, y, slot0));       /* s0 = (u0, y) */
  if (u1) OP(dot(B, u1, y, slot1)); /* s1 = (u1, y) */
  OP(run_prog(B, prog));
cleanup:
  return st;
}

/* z = dinv .* r, or nothing without a preconditioner (z == r). */
static cis_status jacobi(kry_be *B, const void *dinv, const void *r, void *z) {
  return dinv ? B->ops->mul(B, dinv, r, z) : CIS_OK;
}

cis_status kry_step_run(kry_be *B, kry_step step, const kry_vecs *v, int prog) {
  cis_status st;
  const kry_coef alpha = kry_slot(KS_ALPHA, 1), nalpha = kry_slot(KS_ALPHA, -1);
  const kry_coef beta = kry_slot(KS_BETA, 1), omega = kry_slot(KS_OMEGA, 1), nomega = kry_slot(KS_OMEGA, -1);
  if (fused(B) && B->ops->step) return B->ops->step(B, step, v, prog);
  switch (step) {
    case KRY_STEP_CG_UPDATE:
      OP(axpy(B, alpha, v->p, v->x));  /* x += alpha p */
      OP(axpy(B, nalpha, v->q, v->r)); /* r -= alpha q */
      if (v->dinv) {
        CIS_TRY(jacobi(B, v->dinv, v->r, v->z)); /* z = M^-1 r */
        OP(dot(B, v->r, v->z, KS_RHO_NEW));      /* rho' = (r, z) */
      }
      OP(dot(B, v->r, v->r, KS_RR)); /* (r, r) */
      break;
    case KRY_STEP_XPAY:
      OP(xpay(B, v->z, beta, v->p)); /* p = z + beta p */
      break;
    case KRY_STEP_BICG_UPDATE:
      OP(axpy(B, alpha, v->p, v->x));    /* x += alpha p */
      OP(axpy(B, nalpha, v->q, v->r));   /* r -= alpha q */
      OP(axpy(B, nalpha, v->qt, v->rt)); /* r~ -= alpha q~ */
      CIS_TRY(jacobi(B, v->dinv, v->r, v->z));   /* z = M^-1 r */
      CIS_TRY(jacobi(B, v->dinv, v->rt, v->zt)); /* z~ = M^-T r~ */
      OP(dot(B, v->z, v->rt, KS_RHO_NEW)); /* rho' = (z, r~) */
      OP(dot(B, v->r, v->r, KS_RR));
      break;
    case KRY_STEP_BICG_P:
      OP(xpay(B, v->z, beta, v->p));   /* p = z + beta p */
      OP(xpay(B, v->zt, beta, v->pt)); /* p~ = z~ + beta p~ */
      break;
    case KRY_STEP_BICGSTAB_P:
      OP(xpay(B, v->r, beta, v->p));                         /* p = r + beta p */
      OP(axpy(B, kry_slot(KS_BETA_OMEGA, -1), v->v, v->p));  /*   - beta omega v */
      CIS_TRY(jacobi(B, v->dinv, v->p, v->ph));               /* p^ = M^-1 p */
      break;
    case KRY_STEP_BICGSTAB_S:
      OP(copy(B, v->r, v->s));          /* s = r */
      OP(axpy(B, nalpha, v->v, v->s));  /*   - alpha v */
      CIS_TRY(jacobi(B, v->dinv, v->s, v->sh)); /* s^ = M^-1 s */
      break;
    case KRY_STEP_BICGSTAB_XR:
      OP(axpy(B, alpha, v->ph, v->x)); /* x += alpha p^ */
      OP(axpy(B, omega, v->sh, v->x)); /*    + omega s^ */
      OP(copy(B, v->s, v->r));         /* r = s */
      OP(axpy(B, nomega, v->t, v->r)); /*   - omega t */
      OP(dot(B, v->rh, v->r, KS_RHO_NEW)); /* rho' = (r^, r) */
      OP(dot(B, v->r, v->r, KS_RR));
      break;
    default:
      return cis_error(CIS_ERR_INVALID, "unknown solver step %d", (int)step);
  }
  OP(run_prog(B, prog));
cleanup:
  return st;
}

int kry_step_dots(kry_step step, int precond, int *slot) {
  switch (step) {
    case KRY_STEP_CG_UPDATE:
      if (!precond) {
        slot[0] = KS_RR;
        return 1;
      }
      /* fall through */
    case KRY_STEP_BICG_UPDATE:
    case KRY_STEP_BICGSTAB_XR:
      slot[0] = KS_RHO_NEW;
      slot[1] = KS_RR;
      return 2;
    default:
      return 0;
  }
}

cis_status kry_loop(kry_be *B, cis_status (*iteration)(void *ctx), void *ctx, int max_iters, int check_every) {
  cis_status st;
  double flag = 0;
  if (check_every < 1) check_every = 1;
  if (B->ops->loop) return B->ops->loop(B, iteration, ctx, max_iters, check_every);
  for (int k = 1; k <= max_iters; ++k) {
    CIS_TRY(iteration(ctx));
    if (k % check_every == 0 || k == max_iters) {
      OP(get_scalars(B, KS_FLAG, 1, &flag));
      if (flag != KF_RUNNING) break;
    }
  }
cleanup:
  return st;
}

cis_status kry_sparse(kry_be *B, void *x, cis_int nnz, const cis_int *idx, const double *val) {
  if (nnz < 0 || (nnz > 0 && (!idx || !val)))
    return cis_error(CIS_ERR_INVALID, "sparse vector: %lld entries", (long long)nnz);
  for (cis_int k = 0; k < nnz; ++k)
    if (idx[k] < 0 || idx[k] >= B->n || (k > 0 && idx[k] <= idx[k - 1]))
      return cis_error(CIS_ERR_RANGE, "sparse vector: entry %lld at index %lld (dimension %lld, indices ascending)",
                       (long long)k, (long long)idx[k], (long long)B->n);
  return B->ops->sparse(B, x, nnz, idx, val);
}
