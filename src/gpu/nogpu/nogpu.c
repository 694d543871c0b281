/* nogpu.c: the public GPU entry points (plans, device memory) for a build
 * without CUDA (nvcc absent or -DCISPARSE_CUDA=OFF): each reports
 * CIS_ERR_NO_GPU with the reason. */
#include <stdio.h>
#include "cisparse/gpu.h"
#include "gpu/gpu_plan_internal.h"

#define WHY "cisparse was built without CUDA"
static cis_status no_gpu(void) { return cis_error(CIS_ERR_NO_GPU, WHY); }

int cis_gpu_count(char *why, size_t why_len) {
  if (why && why_len) snprintf(why, why_len, WHY);
  return 0;
}
cis_status cis_gpu_get_info(cis_gpu_info *info) { return no_gpu(); }
cis_status cis_gpu_plan_create(const cis_matrix *M, const char *kernel, int block,
                               cis_gpu_plan **out) {
  if (out) *out = NULL;
  return no_gpu();
}
cis_status cis_gpu_plan_create_cusparse(const cis_csr *A, cis_dtype t, const char *alg,
                                        cis_gpu_plan **out) {
  if (out) *out = NULL;
  return no_gpu();
}
cis_status cis_gpu_spmv(cis_gpu_plan *p, double alpha, const void *d_x, double beta, void *d_y,
                        cis_stream s) {
  return no_gpu();
}
cis_int cis_gpu_plan_bytes(const cis_gpu_plan *p) { return 0; }
cis_int cis_gpu_plan_workspace_bytes(const cis_gpu_plan *p) { return 0; }
const char *cis_gpu_plan_kernel(const cis_gpu_plan *p) { return ""; }
cis_status gpu_plan_shape(const cis_gpu_plan *p, cis_int *rows, cis_int *cols, cis_dtype *t) {
  return no_gpu();
}
void cis_gpu_plan_free(cis_gpu_plan *p) {}
cis_status gpu_plan_download_csr(const cis_gpu_plan *p, cis_csr **out) {
  if (out) *out = NULL;
  return no_gpu();
}
cis_status cis_gpu_malloc(void **d, size_t bytes) {
  if (d) *d = NULL;
  return no_gpu();
}
void cis_gpu_free(void *d) {}
cis_status cis_gpu_upload(void *d, const void *h, size_t bytes) { return no_gpu(); }
cis_status cis_gpu_download(void *h, const void *d, size_t bytes) { return no_gpu(); }
cis_status cis_gpu_sync(void) { return no_gpu(); }
cis_status cis_gpu_alloc_copy(void **d, const void *h, size_t bytes, const char *what) {
  if (d) *d = NULL;
  return no_gpu();
}
cis_status cis_gpu_plan_create_symmetric(const cis_csr *U, const char *kernel, int block_size,
                                         cis_gpu_plan **out) {
  if (out) *out = NULL;
  return no_gpu();
}
int gpu_plan_is_symmetric(const cis_gpu_plan *p) { return 0; }
int gpu_plan_has_spmm(const cis_gpu_plan *p) { return 0; }
cis_status cis_gpu_spmm(cis_gpu_plan *p, int k, double alpha, const void *d_X, cis_int ldx, double beta,
                        void *d_Y, cis_int ldy, cis_layout layout, cis_stream s) {
  return no_gpu();
}
