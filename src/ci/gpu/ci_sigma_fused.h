/* ci_sigma_fused.h: launchers of ci_sigma_fused.cu, the fused gather + product
 * of the GPU direct CI sigma (extern "C", raw device pointers, stream last).
 * They write the X of ci_sigma.h's gather + DGEMM (same layouts: X[pq, col]
 * at pq * m + col, full and half column numbering) without the D buffer: each
 * block builds a D tile in shared memory exactly as the gather kernel does
 * (bit-identical D) and multiplies it by 1/2 g on the FP64 tensor cores; the
 * scatters of ci_sigma.h then read X unchanged. X differs from cuBLAS's by
 * the order of the sums only (round-off). */
#ifndef CISPARSE_CI_SIGMA_FUSED_H
#define CISPARSE_CI_SIGMA_FUSED_H

#include <stddef.h>
#include "ci/gpu/ci_sigma.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The columns (beta strings) one fused block takes for npair pairs on the
 * current device: 64, else 32 when the smaller tile is what fits beside g in
 * shared memory; 0 when neither fits or the binary has no sm_80+ code for
 * the kernel (FP64 mma.sync), with the reason in why (len bytes). */
cis_status cis_ci_sigma_fused_columns(int npair, int *nb, char *why, size_t len);
/* X = 1/2 g D for the pass of ci_sigma.h's cis_launch_ci_sigma_gather (gv
 * vectors, alpha strings a0 .. a0+nr-1); g: npair x npair device, row-major
 * (symmetric); nb from cis_ci_sigma_fused_columns. */
cis_status cis_launch_ci_sigma_fused(const cis_ci_sigma_dev *d, const double *g, int nb, const double *C, int gv,
                                     cis_int a0, cis_int nr, double *X, cudaStream_t s);
/* The same for the time-reversal half pass (cis_launch_ci_sigma_gather_half:
 * columns B <= A packed by rows). */
cis_status cis_launch_ci_sigma_fused_half(const cis_ci_sigma_dev *d, const double *g, int nb, const double *C,
                                          cis_int a0, cis_int nr, double *X, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
