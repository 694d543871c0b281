/* operator_internal.h: the operator object behind cisparse/operator.h (not
 * public). One struct, one apply pointer filled by each constructor; the
 * backends of src/solvers read `plan` to fuse work into our own SpMV kernels
 * (Aliaga et al. 2015 §3.3) and fall back to `apply` otherwise. */
#ifndef CISPARSE_OPERATOR_INTERNAL_H
#define CISPARSE_OPERATOR_INTERNAL_H

#include "cisparse/operator.h"

struct cis_operator {
  cis_int rows, cols;
  cis_dtype dtype;
  cis_memspace where;
  char name[64];
  cis_status (*apply)(const cis_operator *A, double alpha, const void *x, double beta, void *y,
                      cis_stream s);
  const cis_matrix *M;   /* from_matrix */
  const cis_csr *csr;    /* from_csr (plain or upper) */
  cis_gpu_plan *plan;    /* from_gpu_plan */
  cis_apply_fn user;     /* from_callback */
  void *ctx;
  void (*destroy)(void *);
  double *diag;          /* owned copy, or NULL */
  const cis_operator *At;
};

#endif
