/* sci_operator.c: the selected-CI sigma's entry point (cisparse/sci.h):
 * which sigma a product takes (the general one, sci_sigma.c, or for equal
 * sets the alpha <-> beta half sigma, sci_half.c, by the option sci_half),
 * and the host operator applying it for cis_davidson_operator. */
#include "ci/sci_internal.h"
#include "core/internal.h"
#include "core/options.h"

cis_status cis_sci_sigma(const cis_sci_space *S, int k, const double *C, double *Sig) {
  if (!S || !C || !Sig) return cis_error(CIS_ERR_INVALID, "sci sigma: NULL argument");
  if (k < 1) return cis_error(CIS_ERR_INVALID, "sci sigma: %d vectors (at least 1)", k);
  if (S->same && !cis_opt_is(CIS_OPT_SCI_HALF, "off"))
    return sci_sigma_half(S, k, C, Sig, cis_opt_is(CIS_OPT_SCI_HALF, "on"));
  return sci_sigma_general(S, k, C, Sig);
}

/* The operator: y = alpha sigma(x) + beta y through a scratch vector. */
typedef struct sci_op {
  const cis_sci_space *S;
  double *tmp;
} sci_op;

static cis_status sci_apply(void *ctx, double alpha, const void *x, double beta, void *yv, cis_stream s) {
  (void)s;
  sci_op *o = ctx;
  double *y = yv;
  const cis_int n = o->S->ndet;
  if (alpha == 1.0 && beta == 0.0 && x != yv) return cis_sci_sigma(o->S, 1, x, y);
  cis_status st = cis_sci_sigma(o->S, 1, x, o->tmp);
  if (st != CIS_OK) return st;
  for (cis_int i = 0; i < n; ++i) y[i] = beta == 0.0 ? alpha * o->tmp[i] : alpha * o->tmp[i] + beta * y[i];
  return CIS_OK;
}

static void sci_op_free(void *ctx) {
  sci_op *o = ctx;
  if (!o) return;
  cis_free(o->tmp);
  cis_free(o);
}

cis_status cis_sci_operator(const cis_sci_space *S, cis_operator **out) {
  cis_status st;
  sci_op *o = NULL;
  double *diag = NULL;
  cis_operator *op = NULL;
  if (!S || !out) return cis_error(CIS_ERR_INVALID, "sci operator: NULL argument");
  *out = NULL;
  CIS_TRY(cis_alloc_zeroed((void **)&o, 1, sizeof *o, "sci operator"));
  o->S = S;
  CIS_TRY(cis_alloc_array((void **)&o->tmp, S->ndet, sizeof(double), "sci operator scratch vector"));
  CIS_TRY(cis_alloc_array((void **)&diag, S->ndet, sizeof(double), "sci diagonal"));
  CIS_TRY(cis_sci_diagonal(S, diag));
  CIS_TRY(cis_operator_from_callback(S->ndet, S->ndet, CIS_F64, CIS_MEM_HOST, sci_apply, o, sci_op_free, &op));
  o = NULL; /* the operator owns it now */
  CIS_TRY(cis_operator_set_diagonal(op, diag));
  *out = op, op = NULL; /* now the caller's */
  st = CIS_OK;
cleanup:
  sci_op_free(o), cis_operator_free(op), cis_free(diag);
  return st;
}
