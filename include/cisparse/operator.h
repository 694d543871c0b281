/* cisparse/operator.h: a linear operator y = alpha*A*x + beta*y, whatever
 * stores A (any format on the CPU, a GPU plan of ours or of cuSPARSE,
 * symmetric storage, or a user callback). Solvers (solver.h) see only this.
 *
 * An operator knows its size, its value type and where its vectors live
 * (host memory or device memory). It never owns what it was made from: the
 * matrix, plan or callback context must outlive it. PETSc's Mat/MatMult and
 * Ginkgo's LinOp::apply are the models: a solver never knows the format. */
#ifndef CISPARSE_OPERATOR_H
#define CISPARSE_OPERATOR_H

#include "cisparse/format.h"
#include "cisparse/gpu.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where an operator's x and y vectors (and a solver's vectors) live. */
/* CIS_MEM_DIST: distributed vectors (handles of cis_dist_vec_alloc, dist.h). */
typedef enum cis_memspace { CIS_MEM_HOST = 0, CIS_MEM_DEVICE = 1, CIS_MEM_DIST = 2 } cis_memspace;

typedef struct cis_operator cis_operator;

/* User callback: y = alpha*A*x + beta*y with x, y of the operator's dtype in
 * its memory space, enqueued on stream s (device operators; NULL = default
 * stream) or done before returning (host operators). beta == 0 must
 * overwrite y (NaN in y must not propagate). */
typedef cis_status (*cis_apply_fn)(void *ctx, double alpha, const void *x, double beta, void *y,
                                   cis_stream s);

/* Operator on a CPU format (cis_matrix_spmv: OpenMP). Host vectors, M's dtype. */
CIS_API cis_status cis_operator_from_matrix(const cis_matrix *M, cis_operator **out);
/* Operator on a host CSR: the reference SpMV (cis_csr_spmv), or, when A is
 * flagged CIS_FLAG_UPPER (symmetric storage, only j >= i kept), the symmetric
 * product A_full = U + U^T - diag(U) (csr_symv_upper). The diagonal is
 * recorded for Jacobi preconditioning. Host vectors, A's dtype. */
CIS_API cis_status cis_operator_from_csr(const cis_csr *A, cis_operator **out);
/* Operator on a GPU plan (any of our kernels, or a cuSPARSE baseline).
 * Device vectors, the plan's dtype. */
CIS_API cis_status cis_operator_from_gpu_plan(cis_gpu_plan *p, cis_operator **out);
/* Operator on a user callback; destroy (may be NULL) is called with ctx by
 * cis_operator_free. */
CIS_API cis_status cis_operator_from_callback(cis_int rows, cis_int cols, cis_dtype t, cis_memspace where,
                                      cis_apply_fn apply, void *ctx, void (*destroy)(void *),
                                      cis_operator **out);
/* Free the operator (not what it was made from); NULL is accepted. */
CIS_API void cis_operator_free(cis_operator *A);

/* y = alpha*A*x + beta*y (see cis_apply_fn). Validates the arguments. */
CIS_API cis_status cis_operator_apply(const cis_operator *A, double alpha, const void *x, double beta,
                              void *y, cis_stream s);

/* A's rows, columns and value type (those of what it was made from). */
CIS_API cis_int cis_operator_rows(const cis_operator *A);
CIS_API cis_int cis_operator_cols(const cis_operator *A);
CIS_API cis_dtype cis_operator_dtype(const cis_operator *A);
/* A short description ("cpu hyb", "gpu csr-vector", "gpu cusparse csr-alg1",
 * "callback"). */
CIS_API const char *cis_operator_name(const cis_operator *A);

/* Record diag(A) (host array of rows doubles, copied) for the Jacobi
 * preconditioner; operators made from a CSR have it already. */
CIS_API cis_status cis_operator_set_diagonal(cis_operator *A, const double *diag);
/* The recorded diagonal (host, rows doubles) or NULL when none is known. */
CIS_API const double *cis_operator_diagonal(const cis_operator *A);
/* Record A^T (same size and dtype, same memory space) for solvers that need
 * transposed products (BiCG); not owned. */
CIS_API cis_status cis_operator_set_transpose(cis_operator *A, const cis_operator *At);

/* Y = alpha*A*X + beta*Y for k column-major vectors (vector c at X + c*ldx,
 * ldx, ldy >= cols, rows), on stream s: one pass over the matrix per 16
 * vectors where the operator has a block product (a GPU plan with
 * cis_gpu_spmm: csr and the symmetric csr), else k applies. */
CIS_API cis_status cis_operator_apply_block(const cis_operator *A, int k, double alpha, const void *X, cis_int ldx,
                                            double beta, void *Y, cis_int ldy, cis_stream s);

/* diag(A) of a host CSR into d (rows doubles; 0 where a row has no diagonal
 * entry). Symmetric upper storage reads the same diagonal. */
CIS_API cis_status cis_csr_diagonal(const cis_csr *A, double *d);

#ifdef __cplusplus
}
#endif
#endif
