/* ci_davidson_support.h: what the CI driver (ci_solve*.c) hands Davidson for
 * the direct sigma, internal to the library: guesses made exactly pure under
 * alpha <-> beta and the correction callbacks that keep them so (every
 * product a time-reversal half sigma, Olsen et al. 1988), and the GPU
 * sigma's timers. */
#ifndef CISPARSE_CI_DAVIDSON_SUPPORT_H
#define CISPARSE_CI_DAVIDSON_SUPPORT_H
#include "cisparse/ci.h"

/* Davidson's first vectors made exactly pure under alpha <-> beta, so that
 * every product it asks for is a half sigma (H commutes with the swap; a
 * subspace of pure vectors stays pure): each of the nin guesses (vector v at
 * guess + v*size) that ci_direct_time_reversal cannot make pure is
 * replaced by its symmetric part (g + g^T)/2, and its antisymmetric part
 * (g - g^T)/2 is appended while fewer than cap vectors are held (guess has
 * room for cap), unless it is zero. *nout: the guesses now. Nothing changes
 * (*nout = nin) where the half sigma does not apply (two string sets,
 * opts.no_time_reversal). CIS_ERR_INVALID for NULL or cap < nin. */
cis_status cis_ci_direct_pure_guesses(const cis_ci_direct *D, double *guess, int nin, int cap, int *nout);
/* Of the nin guesses (each exactly pure under alpha <-> beta, as
 * cis_ci_direct_pure_guesses leaves them; compact = 1: compact vectors of
 * ci_direct_compact_operator), the symmetric ones, c(A,B) = c(B,A), moved
 * to the front in order; *nout: how many (the singlet-only subspace of
 * PySCF's direct_spin0). CIS_ERR_INVALID for NULL or where the alpha and beta
 * strings differ or time reversal is off (no such subspace). */
cis_status cis_ci_direct_keep_symmetric(const cis_ci_direct *D, int compact, double *guess, int nin, int *nout);
/* cis_davidson_opts.correct for Davidson on host vectors of
 * ci_direct_operator (compact = 0: C1 order) or of
 * ci_direct_compact_operator (compact = 1), ctx = the cis_ci_direct:
 * each correction made exactly (anti)symmetric under alpha <-> beta when
 * within 1e-6 of it (ci_direct_time_reversal), which keeps the
 * subspace pure as Davidson converges (an impurity of round-off in the Ritz
 * vectors grows relative to the shrinking residual) and so every product a
 * half sigma. Always CIS_OK (a vector near neither parity stays as it is). */
cis_status cis_ci_direct_correct_c1(void *ctx, void *t, cis_stream s);
cis_status cis_ci_direct_correct_compact(void *ctx, void *t, cis_stream s);

/* cis_ci_direct_pure_guesses on compact vectors (without blocking, the C1 one). */
cis_status cis_ci_direct_compact_pure_guesses(const cis_ci_direct *D, double *guess, int nin, int cap, int *nout);

/* cis_davidson_opts.correct for Davidson on ci_direct_gpu_operator (ctx =
 * G, t a device vector in C1 order — not a compact vector of
 * ci_direct_gpu_compact_operator —, stream s): cis_ci_direct_correct_c1 on the device
 * (each correction made exactly alpha <-> beta pure when within 1e-6 of it),
 * so that with roots of both parities every product stays a half sigma.
 * Synchronizes s. CIS_ERR_NO_GPU without CUDA. */
cis_status cis_ci_direct_gpu_correct(void *ctx, void *t, cis_stream s);
/* Median milliseconds of `runs` single-vector sigmas (after one untimed),
 * each synchronized, on the host vector c (n doubles; NULL: a fixed
 * pseudo-random vector). Allocates two device vectors for the time. */
cis_status cis_ci_direct_gpu_time_sigma(cis_ci_direct_gpu *G, const double *c, int runs, double *ms_median);

/* cis_ci_direct_gpu_time_sigma on the compact host vector cc (not NULL). */
cis_status cis_ci_direct_gpu_time_compact_sigma(cis_ci_direct_gpu *G, const double *cc, int runs,
                                                        double *ms_median);

#endif
