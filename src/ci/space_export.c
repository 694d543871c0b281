/* space_export.c: every determinant of a space at once, for bindings that
 * map cisparse's determinant order to another program's (one call instead
 * of one per determinant). */
#include "ci/ci_internal.h"
#include "core/internal.h"

cis_status ci_space_dets(const cis_ci_space *S, uint64_t *alpha, uint64_t *beta) {
  if (!S || !alpha || !beta) return cis_error(CIS_ERR_INVALID, "ci_space_dets: NULL argument");
  if (ci_space_words(S) > 1)
    return cis_error(CIS_ERR_UNSUPPORTED, "ci_space_dets: strings of more than 64 orbitals (ci_space_det_bits)");
  const cis_int n = ci_space_size(S);
#pragma omp parallel for schedule(static) if (n >= 65536)
  for (cis_int i = 0; i < n; ++i) ci_space_det(S, i, alpha + i, beta + i);
  return CIS_OK;
}
