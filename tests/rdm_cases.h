/* rdm_cases.h: what the RDM tests (test_ci_rdm.c, test_sci_rdm.c) share:
 * one fermion operator on an occupation (the brute-force references), the
 * relative difference and the eight outputs of cis_ci_rdm12 in one
 * NaN-poisoned buffer. */
#ifndef CISPARSE_TESTS_RDM_CASES_H
#define CISPARSE_TESTS_RDM_CASES_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "cisparse/cisparse.h"
#include "test_util.h"

/* Annihilate (create = 0) or create (create = 1) spin orbital k in occ;
 * 0 when the result vanishes, else the sign (-1)^(occupied below k). */
static inline int rdm_apply(uint64_t *occ, int k, int create) {
  const uint64_t bit = 1ull << k;
  if (create == !!(*occ & bit)) return 0;
  const int sgn = (__builtin_popcountll(*occ & (bit - 1)) & 1) ? -1 : 1;
  *occ ^= bit;
  return sgn;
}

/* max |a - b| / max |b| (max |a - b| when b is zero); NaN sticks. */
static inline double rdm_rel_diff(const double *a, const double *b, cis_int len) {
  double worst = 0, big = 0;
  for (cis_int i = 0; i < len; ++i) {
    const double d = fabs(a[i] - b[i]);
    if (!(d <= worst)) worst = d;
    big = fabs(b[i]) > big ? fabs(b[i]) : big;
  }
  return big > 0 ? worst / big : worst;
}

/* buf: rdm1, rdm1a, rdm1b (n^2 each), rdm2, rdm2aa, rdm2ab, rdm2ba, rdm2bb
 * (n^4 each), poisoned with NaN; o points into it. */
typedef struct rdm_outs {
  double *buf;
  cis_ci_rdm12 o;
} rdm_outs;

static inline void rdm_outs_alloc(rdm_outs *x, int n) {
  const size_t n2 = (size_t)n * n, n4 = n2 * n2;
  x->buf = malloc((3 * n2 + 5 * n4) * sizeof(double));
  test_fill_nan(x->buf, CIS_F64, (cis_int)(3 * n2 + 5 * n4));
  double *b = x->buf;
  x->o = (cis_ci_rdm12){b, b + 3 * n2, b + n2, b + 2 * n2, b + 3 * n2 + n4, b + 3 * n2 + 2 * n4, b + 3 * n2 + 3 * n4,
                        b + 3 * n2 + 4 * n4};
}

#endif
