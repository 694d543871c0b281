/* ci_rdm.h (gpu): launcher of ci_rdm.cu, the gather kernel of the GPU
 * reduced density matrices (extern "C", raw device pointers, stream last).
 * The driver is ci_rdm_dev.c; the CPU reference src/ci/rdm.c (its gather,
 * same links with full orbital-pair rows: src/ci/ci_rdm.h). */
#ifndef CISPARSE_CI_GPU_RDM_H
#define CISPARSE_CI_GPU_RDM_H

#include <cuda_runtime.h>
#include "ci/strings.h"
#include "cisparse/status.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device copies of the RDM links (row = q*n + p of a^+_p a_q in .pair). */
typedef struct cis_ci_rdm_dev {
  int n2;                 /* norb^2: rows of D */
  cis_int nsa, nsb;
  int nla, nlb;
  const ci_link *alink;   /* nsa * nla: the links of alpha string A at A * nla */
  const ci_link *blink_t; /* nlb * nsb, transposed: link l of beta string B at l * nsb + B */
} cis_ci_rdm_dev;

/* D[row, (A - a0) nsb + B] (row-major, n2 x m, m = nr nsb) for the alpha
 * strings a0 .. a0+nr-1 of the device vector c: mode 0 <I|E^a_pq|c>, 1
 * <I|E^b_pq|c>, 2 their sum (src/ci/rdm.c's gather, the same order of
 * additions: zero, alpha links, beta links). */
cis_status cis_launch_ci_rdm_gather(const cis_ci_rdm_dev *d, const double *c, cis_int a0, cis_int nr, int mode,
                                    double *D, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
