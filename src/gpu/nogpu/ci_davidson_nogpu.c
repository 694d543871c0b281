/* ci_davidson_nogpu.c: the GPU Davidson entry point in a build without CUDA. */
#include "cisparse/ci.h"

cis_status cis_ci_davidson_gpu(const cis_matrix *M, const char *kernel, const double *diag,
                               const cis_davidson_opts *o, double *evals, double *evecs,
                               cis_davidson_info *info, cis_ci_gpu_stats *stats) {
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}
