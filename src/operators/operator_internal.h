/* operator_internal.h: the operator object behind cisparse/operator.h (not
 * public). One struct, one apply pointer filled by each constructor; the
 * backends of src/solvers read `plan` to fuse work into our own SpMV kernels
 * (Aliaga et al. 2015 §3.3) and fall back to `apply` otherwise.
 *
 * The operator also supplies the vector backend its solvers run on (PETSc's
 * MatCreateVecs): `make_backend`, installed by a layer above whose vectors
 * are its own (the distributed operator of src/distributed), or NULL for the
 * backend of the memory space (host, or the device in the solver's
 * version: kry_be_for in src/solvers/backend.c). So the solvers never name
 * the layer an operator comes from. */
#ifndef CISPARSE_OPERATOR_INTERNAL_H
#define CISPARSE_OPERATOR_INTERNAL_H

#include "cisparse/operator.h"
#include "cisparse/solver.h"

struct kry_be; /* the vector backend (src/solvers/backend.h) */

/* Make the vector backend for A's vectors: version v (device backends),
 * a residual history of hist_len entries. */
typedef cis_status (*cis_backend_maker)(const cis_operator *A, cis_solver_version v, int hist_len,
                                        struct kry_be **out);

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
  cis_backend_maker make_backend; /* NULL: the backend of `where` */
};

/* ---- moved from cisparse/operator.h: internal, not exported ------------------------------ */

/* Where A's x and y vectors live (cis_memspace). */
cis_memspace operator_memspace(const cis_operator *A);

/* Record A^T (same size and dtype, same memory space) for solvers that need
 * transposed products (BiCG); not owned. */
const cis_operator *operator_transpose(const cis_operator *A);

/* 1 if cis_operator_apply_block runs as a block product (SpMM). */
int operator_has_block(const cis_operator *A);

#endif
