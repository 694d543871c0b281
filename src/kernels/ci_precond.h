/* ci_precond.h: launcher of ci_precond.cu (extern "C", raw device pointers,
 * stream last). */
#ifndef CISPARSE_CI_PRECOND_H
#define CISPARSE_CI_PRECOND_H

#include <cuda_runtime.h>
#include "cisparse/status.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* t_i = r_i / (theta - diag_i), |theta - diag_i| kept >= 1e-8: the Davidson
 * (diagonal) preconditioner; CPU reference h_precond in src/ci/davidson.c. */
cis_status cis_launch_ci_precond(cis_int n, const double *r, const double *diag, double theta, double *t,
                                 cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
