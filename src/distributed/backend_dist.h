/* backend_dist.h: the distributed vector backend (backend_dist.c, not
 * public), which cis_operator_from_dist installs as its operator's backend
 * hook (operators/operator_internal.h), so the solvers of src/solvers run on
 * distributed vectors without naming this layer. */
#ifndef CISPARSE_BACKEND_DIST_H
#define CISPARSE_BACKEND_DIST_H

#include "operators/operator_internal.h"

/* The backend for A (memory space CIS_MEM_DIST, from cis_operator_from_dist),
 * each local part's vectors on its own backend. Versions cublasL and
 * cublasN: scalar slots, programs and history on the host (the parts: host,
 * or the device in cublasL on the part's GPU); the others: device-resident
 * scalars, every part's slots in its own memory (host, or the device in
 * merge), dots summed in stream order (backend_dist.c). A cis_backend_maker. */
cis_status kry_be_dist_create(const cis_operator *A, cis_solver_version v, int hist_len, struct kry_be **out);
/* 1 when version v runs the distributed backend with device-resident
 * scalars, 0 when on the host (cublasL, cublasN). */
int kry_dist_resident(cis_solver_version v);

#endif
