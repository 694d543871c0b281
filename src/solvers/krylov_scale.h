/* krylov_scale.h: scale invariance of the Krylov driver (krylov_scale.c).
 *
 * The recurrences square their vectors ((r, r), (b, b), (t, t)): a matrix
 * or a right-hand side scaled by 1e+-170 under- or overflows them although
 * the problem is the same. The driver therefore solves the equilibrated
 * problem (A / 2^ja) y = b / 2^jb, x = 2^(jb - ja) y, with 2^jb ~ ||b|| and
 * 2^ja ~ ||A b|| / ||b||: powers of two scale exactly, so a scaled matrix
 * gives the same iterations and residuals as the unscaled one (within the
 * rounding of the scale itself), and every slot of the recurrence stays
 * near 1. The operator is wrapped (a callback operator, no fused GPU
 * kernel) only when its scale leaves [2^-KRY_SCALE_FREE, 2^KRY_SCALE_FREE]:
 * ordinary matrices keep the fused versions. Norms are LAPACK's scaled sum
 * of squares (dlassq) wherever the plain sum under- or overflows. */
#ifndef CISPARSE_KRYLOV_SCALE_H
#define CISPARSE_KRYLOV_SCALE_H

#include "solvers/backend.h"

/* Operator scales within 2^+-KRY_SCALE_FREE run unwrapped. */
#define KRY_SCALE_FREE 64

/* Scaled sum of squares: the sum is scale^2 * ssq (LAPACK dlassq). Start
 * with {0, 1}. */
typedef struct kry_ssq {
  double scale, ssq;
} kry_ssq;
static inline kry_ssq kry_ssq_start(void) { kry_ssq q = {0, 1}; return q; }
/* Add v^2 (NaN propagates; Inf gives Inf). */
void kry_ssq_add(kry_ssq *q, double v);
/* sqrt of the sum (Inf when it overflows double, NaN with a NaN added). */
double kry_ssq_norm(const kry_ssq *q);

/* *nrm = ||x||_2 of a backend vector: the backend's dot when (x, x) is a
 * normal number far from the limits, else the scaled sum on a host copy
 * (downloaded; only for extreme scales). NaN when x holds NaN, Inf when it
 * holds Inf. */
cis_status kry_nrm2(kry_be *B, const void *x, double *nrm);

/* The equilibration of one solve (see the header comment). */
typedef struct kry_scaling {
  int jb, ja;            /* b / 2^jb, A / 2^ja (ja = 0: A unwrapped) */
  void *bs;              /* b / 2^jb in backend memory (owned) */
  cis_operator *As, *Ats; /* the wrapped A and A^T (ja != 0), else NULL */
  struct kry_scaled_ctx *ctx; /* their callback contexts */
} kry_scaling;

/* From b (||b|| = bnorm > 0, finite): bs = b / 2^jb, the probe A bs giving
 * ja, and the wrapped operators when |ja| > KRY_SCALE_FREE. */
cis_status kry_scaling_make(kry_be *B, const cis_operator *A, const void *b, double bnorm, kry_scaling *S);
/* The operator the solver applies: S->As or A. */
const cis_operator *kry_scaling_operator(const kry_scaling *S, const cis_operator *A);
/* Free what kry_scaling_make made (zeroed S accepted). */
void kry_scaling_free(kry_be *B, kry_scaling *S);

#endif
