/* backend_dist.h: the distributed vector backend (backend_dist.c, not
 * public), which cis_operator_from_dist installs as its operator's backend
 * hook (operators/operator_internal.h), so the solvers of src/solvers run on
 * distributed vectors without naming this layer. */
#ifndef CISPARSE_BACKEND_DIST_H
#define CISPARSE_BACKEND_DIST_H

#include "operators/operator_internal.h"

/* The backend for A (memory space CIS_MEM_DIST, from cis_operator_from_dist):
 * scalar slots, programs and history on the host, each local part's vectors
 * on its own backend (host, or the device in cublasL on the part's GPU); v
 * is not used. A cis_backend_maker. */
cis_status kry_be_dist_create(const cis_operator *A, cis_solver_version v, int hist_len, struct kry_be **out);

#endif
