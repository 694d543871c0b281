/* ci_sigma_ref.h: the reference sides of the split-sigma tests (the CPU
 * test_ci_dist_direct.c and the GPU ci_dist_direct_cases.h): the whole
 * one-process sigma and an exactly alpha <-> beta symmetric vector. */
#ifndef CIS_TEST_CI_SIGMA_REF_H
#define CIS_TEST_CI_SIGMA_REF_H
#include "ci/ci_davidson_support.h"
#include "test_util.h"
#include "ci/ci_internal.h"

/* ref = H x by the one-process CPU sigma (compact: the layout of
 * ci_direct_compress, through the compact operator). */
static inline void ci_whole_sigma(cis_ci_direct *D, int compact, const double *x, double *ref) {
  if (compact) {
    cis_operator *op = NULL;
    CHECK_OK(ci_direct_compact_operator(D, &op));
    CHECK_OK(cis_operator_apply(op, 1.0, x, 0.0, ref, NULL));
    cis_operator_free(op);
  } else {
    CHECK_OK(cis_ci_direct_sigma(D, 1, x, ref));
  }
}

/* x (room for two vectors when compact) made exactly symmetric under
 * alpha <-> beta: the compact layout's first pure part, or the C1 grid's
 * lower triangle mirrored (nsa strings of one string set). */
static inline void ci_symmetric_vector(cis_ci_direct *D, int compact, cis_int nsa, double *x) {
  int out = 0;
  if (compact) CHECK_OK(cis_ci_direct_compact_pure_guesses(D, x, 1, 2, &out));
  else
    for (cis_int A = 0; A < nsa; ++A)
      for (cis_int B = 0; B < A; ++B) x[B * nsa + A] = x[A * nsa + B];
}
#endif
