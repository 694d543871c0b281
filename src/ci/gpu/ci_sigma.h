/* ci_sigma.h: launchers of ci_sigma.cu, the kernels of the GPU direct CI
 * sigma (extern "C", raw device pointers, stream last). The driver is
 * ci_sigma_dev.c; the CPU reference is src/ci/sigma.c (same D, same 1/2 g,
 * same link lists, same determinant order A * nsb + B).
 *
 * One pass takes gv vectors and the alpha strings a0 .. a0+nr-1; its columns
 * are col = (v * nr + (A - a0)) * nsb + B, m = gv * nr * nsb of them, and D and
 * X are npair x m row-major (element [pq, col] at pq * m + col). */
#ifndef CISPARSE_CI_SIGMA_H
#define CISPARSE_CI_SIGMA_H

#include <cuda_runtime.h>
#include <stdint.h>
#include "ci/strings.h"
#include "cisparse/status.h"
#include "cisparse/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device copies of the direct sigma's strings and links (ci_direct_view). */
typedef struct cis_ci_sigma_dev {
  int npair;
  cis_int nsa, nsb, ndet;
  int nla, nlb;
  const ci_link *alink;       /* nsa * nla: the links of alpha string A at A * nla */
  const ci_link *blink_t;     /* nlb * nsb, transposed: link l of beta string B at l * nsb + B */
  int project, target;        /* point-group projection onto irrep target */
  const uint8_t *syma, *symb; /* string irreps (project only) */
} cis_ci_sigma_dev;

/* Gather: D[rs, col] = (E_rs c_v)(A, B) = sum over the alpha links of A with
 * pair rs of sign c_v(J, B) + sum over the beta links of B with pair rs of
 * sign c_v(A, J) (zero where no link has pair rs). C: vector v at C + v*ndet. */
cis_status cis_launch_ci_sigma_gather(const cis_ci_sigma_dev *d, const double *C, int gv, cis_int a0, cis_int nr,
                                      double *D, cudaStream_t s);
/* Scatter (pull form: every sigma element is written by one thread, no
 * atomics): for every alpha string I and beta string B of the gv vectors,
 *   t = sum over the alpha links (J, pq, sign) of I with a0 <= J < a0+nr of sign X[pq, col(v, J, B)]
 *     + [a0 <= I < a0+nr] sum over the beta links (J, pq, sign) of B of sign X[pq, col(v, I, J)];
 * S_v(I, B) = t when first, else S_v(I, B) + t; with last and projection,
 * S_v(I, B) = 0 outside irrep target. S: vector v at S + v*ndet. */
cis_status cis_launch_ci_sigma_scatter(const cis_ci_sigma_dev *d, const double *X, int gv, cis_int a0, cis_int nr,
                                       int first, int last, double *S, cudaStream_t s);
/* The time-reversal half sigma (MS2 = 0, one string set, one vector with
 * c(A,B) = t c(B,A) exactly; the algebra in sigma.c's sigma_block_half):
 * gather of the columns B <= A of rows a0 .. a0+nr-1 into D packed by rows
 * (column (A, B) at tri(A) - tri(a0) + B, tri(A) = A(A+1)/2, m =
 * tri(a0+nr) - tri(a0) columns); and the scatter sigma(I,B) += Q(I,B) +
 * t Q(B,I) for B <= I, sigma(B,I) += t (the same), the mask on the last pass. */
cis_status cis_launch_ci_sigma_gather_half(const cis_ci_sigma_dev *d, const double *C, cis_int a0, cis_int nr,
                                           double *D, cudaStream_t s);
cis_status cis_launch_ci_sigma_scatter_half(const cis_ci_sigma_dev *d, const double *X, cis_int a0, cis_int nr,
                                            double t, int first, int last, double *S, cudaStream_t s);
/* Device scratch of the reached half scatter: flag (nsa), list (nsa), count (1). */
typedef struct cis_half_reach {
  unsigned *flag;
  cis_int *list;
  unsigned *count;
} cis_half_reach;
/* The most strings a pass of nr rows reaches: min(nsa, nr (nla + 1)). */
cis_int cis_ci_half_reach_bound(const cis_ci_sigma_dev *d, cis_int nr);
/* The half scatter of a pass that is not the first (sigma already written)
 * over the pairs with a string the pass reaches (its rows and the strings
 * linked to them, found first into w); every other pair adds nothing. The
 * same sigma as cis_launch_ci_sigma_scatter_half, bit for bit; for the
 * first pass, and the last with projection, call that one instead (it writes
 * or masks every pair).
 * (cis_ci_half_reach_bound(d, nr) * ceil(nsb / 128) blocks.) */
cis_status cis_launch_ci_sigma_scatter_half_reached(const cis_ci_sigma_dev *d, const double *X, cis_int a0,
                                                    cis_int nr, double t, cis_half_reach *w, double *S, cudaStream_t s);
/* The alpha <-> beta parity of the ns x ns vector c: out (3 device doubles)
 * = ||c||^2, ||c - c^T||^2 / 2, ||c + c^T||^2 / 2 (sigma.c's transpose_parity). */
cis_status cis_launch_ci_parity_sums(const double *c, cis_int ns, double *out, cudaStream_t s);
/* out = (c + t c^T) / 2, t = +1 or -1 (the diagonal zero for -1); out == c allowed. */
cis_status cis_launch_ci_purify(const double *c, cis_int ns, double t, double *out, cudaStream_t s);
/* y = alpha t + beta y (beta == 0: y = alpha t, NaN in y does not propagate). */
cis_status cis_launch_ci_axpby(cis_int n, double alpha, const double *t, double beta, double *y, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
