/* krylov_scale.c: scaled norms and the power-of-two equilibration of a
 * Krylov solve (krylov_scale.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "solvers/krylov_scale.h"
#include "operators/operator_internal.h"

/* Plain sums of squares inside (2^-900, 2^900) lost nothing to underflow that
 * matters and did not overflow. */
#define KRY_SS_LO 0x1p-900
#define KRY_SS_HI 0x1p900

struct kry_scaled_ctx {
  const cis_operator *A;
  double scale;
};

void kry_ssq_add(kry_ssq *q, double v) {
  double a = fabs(v);
  if (isnan(a)) { q->scale = NAN; return; }
  if (isnan(q->scale) || isinf(q->scale) || a == 0) return;
  if (isinf(a)) { q->scale = INFINITY; q->ssq = 1; return; }
  if (q->scale < a) {
    double t = q->scale / a;
    q->ssq = 1 + q->ssq * t * t;
    q->scale = a;
  } else {
    double t = a / q->scale;
    q->ssq += t * t;
  }
}

double kry_ssq_norm(const kry_ssq *q) { return q->scale * sqrt(q->ssq); }

cis_status kry_nrm2(kry_be *B, const void *x, double *nrm) {
  cis_status st;
  void *h = NULL;
  double ss = 0;
  CIS_TRY(B->ops->dot_host(B, x, x, &ss));
  if (isnan(ss) || (ss > KRY_SS_LO && ss < KRY_SS_HI)) {
    *nrm = sqrt(ss);
    goto cleanup;
  }
  /* 0, tiny or Inf: the scaled sum on a host copy */
  CIS_TRY(cis_alloc_array(&h, B->n, cis_dtype_size(B->dtype), "scaled norm"));
  CIS_TRY(B->ops->download(B, h, x, B->n));
  kry_ssq q = kry_ssq_start();
  for (cis_int i = 0; i < B->n; ++i) kry_ssq_add(&q, cis_get(h, B->dtype, i));
  *nrm = kry_ssq_norm(&q);
cleanup:
  cis_free(h);
  return st;
}

static cis_status scaled_apply(void *c, double alpha, const void *x, double beta, void *y, cis_stream s) {
  const struct kry_scaled_ctx *k = c;
  return cis_operator_apply(k->A, alpha * k->scale, x, beta, y, s);
}

/* *out = the callback operator k->scale * k->A. */
static cis_status wrap(struct kry_scaled_ctx *k, cis_operator **out) {
  const cis_operator *A = k->A;
  return cis_operator_from_callback(cis_operator_rows(A), cis_operator_cols(A), cis_operator_dtype(A),
                                    operator_memspace(A), scaled_apply, k, NULL, out);
}

/* ja: the binary exponent of ||A bs|| (||bs|| in [1/2, 1)), 0 when the
 * product is 0 or not finite (the solve then reports it). */
static cis_status probe_scale(kry_be *B, const cis_operator *A, const void *bs, int *ja) {
  cis_status st;
  void *y = NULL;
  double yn = 0;
  *ja = 0;
  CIS_TRY(B->ops->alloc(B, &y, 1, "scale probe"));
  CIS_TRY(B->ops->apply(B, A, bs, y));
  CIS_TRY(kry_nrm2(B, y, &yn));
  if (yn > 0 && isfinite(yn)) frexp(yn, ja);
cleanup:
  if (y) B->ops->release(B, y);
  return st;
}

cis_status kry_scaling_make(kry_be *B, const cis_operator *A, const void *b, double bnorm, kry_scaling *S) {
  cis_status st;
  memset(S, 0, sizeof *S);
  if (B->dtype != CIS_F64) return CIS_OK; /* float data cannot hold such scales */
  frexp(bnorm, &S->jb);
  CIS_TRY(B->ops->alloc(B, &S->bs, 1, "scaled right-hand side"));
  CIS_TRY(B->ops->copy(B, b, S->bs));
  if (S->jb != 0) CIS_TRY(B->ops->scal(B, kry_imm(ldexp(1.0, -S->jb)), S->bs));
  if (operator_memspace(A) == CIS_MEM_DIST) return CIS_OK; /* no callback operators there */
  CIS_TRY(probe_scale(B, A, S->bs, &S->ja));
  if (abs(S->ja) <= KRY_SCALE_FREE) {
    S->ja = 0;
    return CIS_OK;
  }
  CIS_TRY(cis_alloc_array((void **)&S->ctx, 2, sizeof *S->ctx, "scaled operator"));
  S->ctx[0].A = A;
  S->ctx[0].scale = S->ctx[1].scale = ldexp(1.0, -S->ja);
  CIS_TRY(wrap(&S->ctx[0], &S->As));
  if ((S->ctx[1].A = operator_transpose(A)) != NULL) {
    CIS_TRY(wrap(&S->ctx[1], &S->Ats));
    CIS_TRY(cis_operator_set_transpose(S->As, S->Ats));
  }
cleanup:
  return st;
}

const cis_operator *kry_scaling_operator(const kry_scaling *S, const cis_operator *A) {
  return S->As ? S->As : A;
}

void kry_scaling_free(kry_be *B, kry_scaling *S) {
  if (S->bs) B->ops->release(B, S->bs);
  cis_operator_free(S->As);
  cis_operator_free(S->Ats);
  cis_free(S->ctx);
  memset(S, 0, sizeof *S);
}
