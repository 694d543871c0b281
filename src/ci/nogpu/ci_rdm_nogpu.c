/* ci_rdm_nogpu.c: the GPU RDMs (src/ci/gpu/ci_rdm_dev.c) for a build without
 * CUDA: every entry point reports CIS_ERR_NO_GPU (cis_ci_direct_rdm12 is
 * the host path). */
#include "cisparse/ci.h"
#include "ci/ci_internal.h"

cis_status cis_ci_direct_gpu_rdm_create(const cis_ci_direct *D, int64_t work_bytes, cis_ci_direct_gpu_rdm **out) {
  (void)D, (void)work_bytes;
  if (out) *out = NULL;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

void cis_ci_direct_gpu_rdm_free(cis_ci_direct_gpu_rdm *R) { (void)R; }

cis_status cis_ci_direct_gpu_rdm12(cis_ci_direct_gpu_rdm *R, const double *bra, const double *ket, int device_vectors,
                                   const cis_ci_rdm12 *out, cis_stream s) {
  (void)R, (void)bra, (void)ket, (void)device_vectors, (void)out, (void)s;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

void ci_direct_gpu_rdm_blocks(const cis_ci_direct_gpu_rdm *R, cis_int *rows, cis_int *blocks) {
  (void)R;
  if (rows) *rows = 0;
  if (blocks) *blocks = 0;
}
