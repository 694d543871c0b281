/* dist_dev.c: the device helpers of the distributed layer (dist_internal.h):
 * current device, streams, events, asynchronous copies and the gather and
 * sum launchers, each CUDA call checked. */
#include <cuda_runtime.h>
#include "core/internal.h"
#include "distributed/dist_internal.h"

cis_status dist_launch_gather(cis_dtype t, const void *x, const cis_idx *idx, cis_int n, void *out, cudaStream_t s);
cis_status dist_launch_sum_parts(cis_dtype t, int parts, int own, cis_int n, const void *mine, const void *recv,
                                 double alpha, double beta, void *y, cudaStream_t s);

#define CU_RET(call)                                                                                  \
  do {                                                                                                \
    cudaError_t e_ = (call);                                                                          \
    if (e_ != cudaSuccess)                                                                            \
      return cis_error(CIS_ERR_CUDA, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
  } while (0)

cis_status dd_set_device(int dev) { CU_RET(cudaSetDevice(dev)); return CIS_OK; }
cis_status dd_stream_create(cis_stream *s) {
  cudaStream_t t;
  CU_RET(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
  *s = (cis_stream)t;
  return CIS_OK;
}
void dd_stream_destroy(cis_stream s) { if (s) cudaStreamDestroy((cudaStream_t)s); }
cis_status dd_stream_sync(cis_stream s) { CU_RET(cudaStreamSynchronize((cudaStream_t)s)); return CIS_OK; }
cis_status dd_device_sync(void) { CU_RET(cudaDeviceSynchronize()); return CIS_OK; }
cis_status dd_event_create(void **e) {
  cudaEvent_t t;
  CU_RET(cudaEventCreate(&t));
  *e = (void *)t;
  return CIS_OK;
}
void dd_event_destroy(void *e) { if (e) cudaEventDestroy((cudaEvent_t)e); }
cis_status dd_event_record(void *e, cis_stream s) { CU_RET(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s)); return CIS_OK; }
cis_status dd_stream_wait(cis_stream s, void *e) {
  CU_RET(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0));
  return CIS_OK;
}
cis_status dd_event_sync(void *e) { CU_RET(cudaEventSynchronize((cudaEvent_t)e)); return CIS_OK; }
cis_status dd_event_ms(void *start, void *end, float *ms) {
  CU_RET(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end));
  return CIS_OK;
}
cis_status dd_copy_async(void *dst, const void *src, size_t bytes, cis_stream s) {
  if (bytes) CU_RET(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)s));
  return CIS_OK;
}
cis_status dd_zero_async(void *dst, size_t bytes, cis_stream s) {
  if (bytes) CU_RET(cudaMemsetAsync(dst, 0, bytes, (cudaStream_t)s));
  return CIS_OK;
}
cis_status dd_host_register(void *p, size_t bytes) {
  const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
  if (e == cudaSuccess) return CIS_OK;
  (void)cudaGetLastError(); /* not left for the next launch check */
  return cis_error(CIS_ERR_CUDA, "cudaHostRegister of %.3f GiB: %s", (double)bytes / 1073741824.0, cudaGetErrorString(e));
}
void dd_host_unregister(void *p) {
  if (cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError(); /* memory that was never page-locked */
}
cis_status dd_gather(cis_dtype t, const void *x, const cis_idx *idx, cis_int n, void *out, cis_stream s) {
  return dist_launch_gather(t, x, idx, n, out, (cudaStream_t)s);
}
cis_status dd_sum_parts(cis_dtype t, int parts, int own, cis_int n, const void *mine, const void *recv, double alpha,
                        double beta, void *y, cis_stream s) {
  return dist_launch_sum_parts(t, parts, own, n, mine, recv, alpha, beta, y, (cudaStream_t)s);
}
