/* backend_nogpu.c: the device backend and sync-mode entry points for a build
 * without CUDA: each reports CIS_ERR_NO_GPU with the reason. */
#include "solvers/backend.h"

cis_status kry_be_gpu_create(cis_int n, cis_dtype t, cis_solver_version v, int hist_len, kry_be **out) {
  if (out) *out = NULL;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status cis_gpu_set_sync_mode(cis_sync_mode m) {
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}
