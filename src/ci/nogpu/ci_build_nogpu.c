/* ci_build_nogpu.c: ci_hamiltonian_gpu and its kin (src/ci/gpu/ci_build_dev.c) for a
 * build without CUDA (nvcc absent or -DCISPARSE_CUDA=OFF): reports
 * CIS_ERR_NO_GPU with the reason src/gpu/nogpu/nogpu.c gives. */
#include "cisparse/ci.h"
#include "ci/ci_internal.h"

cis_status ci_hamiltonian_gpu(const cis_fcidump *F, const cis_ci_space *S, cis_gpu_plan **out, cis_int *nnz) {
  if (out) *out = NULL;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}
cis_status ci_hamiltonian_gpu_upper(const cis_fcidump *F, const cis_ci_space *S, const char *kernel,
                                        cis_gpu_plan **out, cis_int *nnz) {
  if (out) *out = NULL;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}
cis_status ci_hamiltonian_gpu_rows(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1, int upper,
                                       const cis_int *row_nnz, cis_gpu_csr *out) {
  if (out) *out = (cis_gpu_csr){0};
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}
cis_status ci_hamiltonian_gpu_row_nnz(const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1,
                                          int upper, cis_int *row_nnz) {
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}
