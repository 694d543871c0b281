/* krylov_problem.h: what the driver (krylov.c) hands each Krylov solver
 * (cg.c, bicg.c, bicgstab.c), and the start every solver shares
 * (krylov_problem.c). The driver validates, creates the backend, sets the
 * scalar slots (tolerance, limits, preconditioning) and uploads 1/diag(A);
 * the solver allocates its vectors, forms r0, runs KP_INIT and loops; the
 * driver reads the slots back and reports. Includes point one way: the
 * driver -> the solvers -> this header and krylov_problem.c. */
#ifndef CISPARSE_KRYLOV_PROBLEM_H
#define CISPARSE_KRYLOV_PROBLEM_H

#include "solvers/backend.h"

typedef struct kry_problem {
  kry_be *B;
  const cis_operator *A;
  const void *b;       /* backend memory */
  void *x;             /* backend memory: x0 in, last iterate out */
  const void *dinv;    /* 1 / diag(A) in backend memory, NULL = no preconditioner */
  int maxit, check_every;
  /* filled by the solver */
  double loop_seconds;
  int64_t loop_launches;
} kry_problem;

/* The solvers, one per cis_krylov_method (cg.c, bicg.c, bicgstab.c). */
typedef cis_status (*kry_method_fn)(kry_problem *P);
cis_status kry_cg(kry_problem *P);
cis_status kry_bicg(kry_problem *P);
cis_status kry_bicgstab(kry_problem *P);

/* Vector k of a backend allocation of several vectors. */
static inline void *kry_vec_at(const kry_be *B, void *work, int k) {
  return (char *)work + (size_t)k * (size_t)B->n * cis_dtype_size(B->dtype);
}

/* r = b - A x (the initial residual of every solver). */
cis_status kry_residual0(kry_problem *P, void *r);
/* From r0: rho = (a, b), (r, r), KP_INIT, then the loop over `iteration`
 * with timing and launch counting into P (every solver ends this way). */
cis_status kry_start_and_loop(kry_problem *P, const void *a, const void *b, const void *r,
                              cis_status (*iteration)(void *), void *ctx);

#endif
