/* ci_sigma_irrep.h: the GPU direct CI sigma blocked by irreps (point-group
 * symmetry, D2h and subgroups) on compact device vectors: the launchers of
 * ci_sigma_irrep.cu (extern "C", raw device pointers, stream last) and the
 * host driver of ci_sigma_irrep_dev.c, for ci_sigma_dev.c.
 *
 * Scheme and compact layout: src/ci/sigma_irrep.h (Olsen et al., J. Chem.
 * Phys. 89, 2185 (1988), §II.C; PySCF fci.direct_spin1_symm); the device
 * arrays are uploaded from the host ci_irrep_sigma (ci_irrep_get_view) and
 * that object's ci_irrep_sigma_compact is the CPU reference.
 *
 * Device layout of one pass (alpha strings a0 .. a1-1): D and X are split by
 * pair irrep h; block h holds npi[h] rows (the pairs of irrep h) and m[h]
 * columns, row-major at dbase[h] (element [pq, col] at dbase[h] + pq * m[h] +
 * col). The columns of block h are the (alpha string A, beta string B) with
 * irrep(A) XOR irrep(B) XOR target = h, grouped by alpha irrep ga (the beta
 * irrep is then gb = ga ^ h ^ target), inside a group alpha strings in address
 * order, each taking width(A, gb) consecutive columns (the beta strings of
 * irrep gb in address order: all of them, or with the time-reversal half only
 * those with address <= A). So X_h = g_h D_h is ONE wide GEMM per pair irrep
 * (npi[h] x npi[h] times npi[h] x m[h]) over every alpha string of the pass,
 * 8 GEMMs per pass for D2h. Column of (A, gb, j):
 *   cadj[ga][gb] + cum(A, gb) + j,  cum(A, gb) = half ? cumh[A*8+gb] : arank[A] * nbg[gb]
 * (cumh: widths of the alpha strings of A's irrep before A, exclusive). */
#ifndef CISPARSE_CI_GPU_SIGMA_IRREP_H
#define CISPARSE_CI_GPU_SIGMA_IRREP_H

#include <cuda_runtime.h>
#include <stdint.h>
#include "ci/strings.h"
#include "cisparse/ci.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CI_IRREPS 8

/* Device copies of the blocked sigma's arrays (passed to kernels by value). */
typedef struct ci_irrep_dev {
  int target, nla, nlb;
  cis_int nsa, nsb, nsym;
  int npi[CI_IRREPS];
  cis_int nbg[CI_IRREPS], bstart[CI_IRREPS + 1];
  const uint8_t *syma, *symb;
  const int32_t *blist, *bpos;
  const ci_link *alink, *blink;     /* sorted by pair irrep (sigma_irrep.c) */
  const int32_t *astart, *bstart_l; /* 9 offsets per string */
  const cis_int *off;               /* nsa + 1 compact row offsets */
  const int32_t *arank;             /* rank of A among the alpha strings of its irrep */
  const int32_t *pc;                /* one string set: nsa*8, beta strings of irrep gb with address <= A */
  const int64_t *cumh;              /* one string set: nsa*8, half-layout columns before A in its group */
} ci_irrep_dev;

/* One pass (see above). half: the time-reversal layout (columns B <= A). */
typedef struct ci_irrep_pass {
  cis_int a0, a1;
  int half;
  int64_t dbase[CI_IRREPS], m[CI_IRREPS];
  int64_t cadj[CI_IRREPS][CI_IRREPS];
} ci_irrep_pass;

/* Gather D (all blocks of the pass) from the compact vector cc; maxnp =
 * the largest npi[h] (shared-memory tile), maxnbg the largest nbg[gb]. */
cis_status cis_launch_ci_irrep_gather(const ci_irrep_dev *d, const ci_irrep_pass *p, const double *cc, double *D,
                                      int maxnp, cis_int maxnbg, cudaStream_t s);
/* Full scatter (pull form, one thread per compact element): S = t (first)
 * or S + t, t the alpha and beta parts of this pass. */
cis_status cis_launch_ci_irrep_scatter(const ci_irrep_dev *d, const ci_irrep_pass *p, const double *X, int first,
                                       double *S, cis_int maxnbg, cudaStream_t s);
/* Half scatter (c(A,B) = t c(B,A)): one thread per (I, B) with B <= I:
 * u = Q(I,B) + t Q(B,I), sigma(I,B) (+)= u, sigma(B,I) (+)= t u. */
cis_status cis_launch_ci_irrep_scatter_half(const ci_irrep_dev *d, const ci_irrep_pass *p, const double *X, double t,
                                            int first, double *S, cis_int maxnbg, cudaStream_t s);
/* cc <- the target-irrep entries of the C1-order c (nsa x nsb); c <- cc
 * expanded (every entry written, zeros off the irrep). */
cis_status cis_launch_ci_irrep_compress(const ci_irrep_dev *d, const double *c, double *cc, cis_int maxnbg,
                                        cudaStream_t s);
cis_status cis_launch_ci_irrep_expand(const ci_irrep_dev *d, const double *cc, double *c, cudaStream_t s);
/* flags[0] != 0 when the compact cc is exactly symmetric under alpha <->
 * beta, flags[1] != 0 when exactly antisymmetric (one string set). */
cis_status cis_launch_ci_irrep_parity(const ci_irrep_dev *d, const double *cc, int *flags, cis_int maxnbg,
                                      cudaStream_t s);

/* ---- host driver (ci_sigma_irrep_dev.c) ---- */
typedef struct ci_irrep_gpu ci_irrep_gpu;
/* Upload the blocked sigma R (a const ci_irrep_sigma *, from ci_direct_view)
 * and size the workspace from the free device memory after o->vectors
 * compact vectors (or o->work_bytes); fills info's sizes. Its sigma is the
 * contribution of the alpha strings lo .. hi-1 (passes planned over them
 * only; 0 .. nsa: the whole sigma; see ci_direct_sigma_part). */
cis_status ci_irrep_gpu_create(const void *R, int no_time_reversal, const cis_ci_direct_gpu_opts *o, cis_int lo,
                               cis_int hi, ci_irrep_gpu **out, cis_ci_direct_gpu_info *info);
void ci_irrep_gpu_free(ci_irrep_gpu *I);
/* Upload the host blocks of g again (after ci_irrep_sigma_set_pairs). */
cis_status ci_irrep_gpu_set_pairs(ci_irrep_gpu *I);
/* S = H C on k compact device vectors (size nsym each). */
cis_status ci_irrep_gpu_sigma(ci_irrep_gpu *I, int k, const double *d_C, double *d_S, cudaStream_t s,
                              cis_ci_direct_gpu_info *info);
/* The same on C1-order device vectors (compress, compact sigma, expand). */
cis_status ci_irrep_gpu_sigma_c1(ci_irrep_gpu *I, int k, const double *d_C, double *d_S, cudaStream_t s,
                                 cis_ci_direct_gpu_info *info);
cis_int ci_irrep_gpu_size(const ci_irrep_gpu *I);
/* Median ms of runs compact sigmas on the host c (compact when compact, else
 * C1 order, compressed; NULL: a fixed pseudo-random compact vector). */
cis_status ci_irrep_gpu_time(ci_irrep_gpu *I, const double *c, int compact, int runs, double *ms_median,
                             cis_ci_direct_gpu_info *info);

/* ci_sigma_dev.c's object, for the public compact entry points. */
/* Entries of a compact vector (the ISYM determinants). */
cis_int ci_irrep_gpu_compact_size(const ci_irrep_gpu *I);
/* y = alpha H x + beta y on compact device vectors (a scratch vector kept in I
 * for beta != 0 or alpha != 1). */
cis_status ci_irrep_gpu_apply(ci_irrep_gpu *I, double alpha, const double *x, double beta, double *y, cudaStream_t cs,
                              cis_ci_direct_gpu_info *info);
ci_irrep_gpu *ci_direct_gpu_irrep(cis_ci_direct_gpu *G);
cis_ci_direct_gpu_info *ci_direct_gpu_info_ref(cis_ci_direct_gpu *G);
const cis_ci_direct *ci_direct_gpu_host(const cis_ci_direct_gpu *G);

#ifdef __cplusplus
}
#endif
#endif
