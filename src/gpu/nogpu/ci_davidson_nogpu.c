/* ci_davidson_nogpu.c: the GPU CI entry points (Davidson, Hamiltonian build)
 * in a build without CUDA. */
#include "cisparse/ci.h"

cis_status cis_ci_davidson_gpu(const cis_matrix *M, const char *kernel, const double *diag,
                               const cis_davidson_opts *o, double *evals, double *evecs,
                               cis_davidson_info *info, cis_ci_gpu_stats *stats) {
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status cis_ci_davidson_gpu_plan(cis_gpu_plan *plan, const double *diag, const cis_davidson_opts *o,
                                    double *evals, double *evecs, cis_davidson_info *info,
                                    cis_ci_gpu_stats *stats) {
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status cis_ci_hamiltonian_gpu(const cis_fcidump *F, const cis_ci_space *S, cis_gpu_plan **out, cis_int *nnz) {
  if (out) *out = NULL;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}
