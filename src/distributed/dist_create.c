/* dist_create.c: cis_dist_matrix_create (dist.h), the choice between its
 * two layouts: a symmetric matrix in a symmetric format with no exchange
 * named keeps each entry once (dist_matrix_create_once, dist_upper.c),
 * anything else full rows (dist_matrix_create_full, dist_matrix.c). Above
 * both files, so that neither needs the other. */
#include "core/internal.h"
#include "distributed/dist_matrix.h"

cis_status cis_dist_matrix_create(const cis_csr *A, cis_dist_comm *c, const cis_dist_opts *o, cis_dist_matrix **out) {
  const cis_dist_opts d = o ? *o : cis_dist_opts_default();
  if (A && c && out && cis_format_is_symmetric(d.format) && d.exchange == CIS_XCHG_AUTO)
    return dist_matrix_create_once(A, c, &d, out);
  return dist_matrix_create_full(A, c, o, out);
}
