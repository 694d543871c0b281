/* backend_nogpu.c: the device backend and the sync mode for a build without
 * CUDA (nvcc absent or -DCISPARSE_CUDA=OFF): each reports CIS_ERR_NO_GPU. */
#include "solvers/backend.h"

#define WHY "cisparse was built without CUDA"

cis_status kry_be_gpu_create(cis_int n, cis_dtype t, cis_solver_version v, int hist_len, kry_be **out) {
  if (out) *out = NULL;
  return cis_error(CIS_ERR_NO_GPU, WHY ": no device solver backend");
}

cis_status cis_gpu_set_sync_mode(cis_sync_mode m) { return cis_error(CIS_ERR_NO_GPU, WHY); }
