/* dist_create.c: cis_dist_matrix_create (dist.h), the choice between its
 * two layouts: a symmetric matrix in a symmetric format with no exchange
 * named keeps each entry once (dist_matrix_create_once, dist_upper.c),
 * anything else full rows (dist_matrix_create_full, dist_matrix.c). Above
 * both files, so that neither needs the other. */
#include "core/internal.h"
#include "distributed/dist_matrix.h"
#include "distributed/dist_internal.h"

int dist_stores_once(const cis_dist_opts *o) {
  return o && o->exchange == CIS_XCHG_AUTO && cis_format_is_symmetric(o->format);
}

cis_status cis_dist_matrix_create(const cis_csr *A, cis_dist_comm *c, const cis_dist_opts *o, cis_dist_matrix **out) {
  if (A && c && out && dist_stores_once(o)) return dist_matrix_create_once(A, c, o, out);
  return dist_matrix_create_full(A, c, o, out);
}
