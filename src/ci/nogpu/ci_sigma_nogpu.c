/* ci_sigma_nogpu.c: the GPU direct sigma (src/ci/gpu/ci_sigma_dev.c) for a
 * build without CUDA: every entry point reports CIS_ERR_NO_GPU. */
#include <string.h>
#include "ci/ci_davidson_support.h"
#include "ci/ci_internal.h"
#include "cisparse/ci.h"

cis_ci_direct_gpu_opts ci_direct_gpu_opts_default(void) {
  cis_ci_direct_gpu_opts o = {0, 0, 0};
  return o;
}

cis_status cis_ci_direct_gpu_create(const cis_ci_direct *D, const cis_ci_direct_gpu_opts *o, cis_ci_direct_gpu **out) {
  (void)D, (void)o;
  if (out) *out = NULL;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status ci_direct_gpu_create_part(const cis_ci_direct *D, const cis_ci_direct_gpu_opts *o, cis_int lo, cis_int hi,
                                     cis_ci_direct_gpu **out) {
  (void)lo, (void)hi;
  return cis_ci_direct_gpu_create(D, o, out);
}

void ci_direct_gpu_input_scratch(cis_ci_direct_gpu *G) { (void)G; }

void cis_ci_direct_gpu_free(cis_ci_direct_gpu *G) { (void)G; }

cis_status cis_ci_direct_gpu_set_integrals(cis_ci_direct_gpu *G) {
  (void)G;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

void ci_direct_gpu_get_info(const cis_ci_direct_gpu *G, cis_ci_direct_gpu_info *info) {
  (void)G;
  memset(info, 0, sizeof *info);
}

cis_status cis_ci_direct_gpu_sigma(cis_ci_direct_gpu *G, int k, const double *d_C, double *d_S, cis_stream s) {
  (void)G, (void)k, (void)d_C, (void)d_S, (void)s;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status ci_direct_gpu_operator(cis_ci_direct_gpu *G, const double *diag, cis_operator **out) {
  (void)G, (void)diag;
  if (out) *out = NULL;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status cis_ci_direct_gpu_correct(void *ctx, void *t, cis_stream s) {
  (void)ctx, (void)t, (void)s;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status cis_ci_direct_gpu_time_sigma(cis_ci_direct_gpu *G, const double *c, int runs, double *ms_median) {
  (void)G, (void)c, (void)runs, (void)ms_median;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status ci_direct_gpu_compact_sigma(cis_ci_direct_gpu *G, int k, const double *d_C, double *d_S, cis_stream s) {
  (void)G, (void)k, (void)d_C, (void)d_S, (void)s;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status ci_direct_gpu_compact_operator(cis_ci_direct_gpu *G, const double *diag, cis_operator **out) {
  (void)G, (void)diag;
  if (out) *out = NULL;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}

cis_status cis_ci_direct_gpu_time_compact_sigma(cis_ci_direct_gpu *G, const double *cc, int runs, double *ms_median) {
  (void)G, (void)cc, (void)runs, (void)ms_median;
  return cis_error(CIS_ERR_NO_GPU, "cisparse was built without CUDA");
}
