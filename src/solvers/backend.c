/* backend.c: the vector backend for an operator, and its release. The
 * operator decides (PETSc's MatCreateVecs): the backend its hook makes (the
 * distributed operator installs one), else the backend of its memory space,
 * the host backend for host vectors or the device backend in the solver's
 * version for device vectors. The solvers above call only kry_be_for and
 * never name the layer an operator comes from. */
#include "core/internal.h"
#include "operators/operator_internal.h"
#include "solvers/backend.h"

cis_status kry_be_for(const cis_operator *A, cis_solver_version v, int hist_len, kry_be **out) {
  if (!A || !out) return cis_error(CIS_ERR_INVALID, "kry_be_for: NULL argument");
  if (A->make_backend) return A->make_backend(A, v, hist_len, out);
  if (A->where == CIS_MEM_HOST) return kry_be_host_create(A->rows, A->dtype, hist_len, out);
  return kry_be_gpu_create(A->rows, A->dtype, v, hist_len, out);
}

void kry_be_free(kry_be *B) {
  if (!B) return;
  if (B->ops && B->ops->destroy) B->ops->destroy(B);
  cis_free(B);
}
