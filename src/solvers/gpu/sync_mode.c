/* sync_mode.c: cis_gpu_set_sync_mode (cisparse/solver.h): how the host waits
 * for the device, the "polling" and "blocking" modes of Aliaga, Perez,
 * Quintana-Orti, Euro-Par 2015 §4 (cudaDeviceScheduleSpin /
 * cudaDeviceScheduleBlockingSync). The primary context's state is read
 * through the driver entry point cuDevicePrimaryCtxGetState (no link
 * against libcuda): when a context is active with another mode the device is
 * reset first (every device allocation is lost, as the contract says), so
 * the new mode surely applies. */
#include <cuda.h>
#include <cuda_runtime.h>
#include "cisparse/solver.h"
#include "kernels/kernel_common.cuh"

typedef CUresult (*primary_state_fn)(CUdevice, unsigned int *, int *);

cis_status cis_gpu_set_sync_mode(cis_sync_mode m) {
  char why[160];
  unsigned want, flags = 0;
  int dev = 0, active = 0;
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q;
  if (m != CIS_SYNC_SPIN && m != CIS_SYNC_BLOCKING)
    return cis_error(CIS_ERR_INVALID, "cis_gpu_set_sync_mode: mode %d", (int)m);
  if (cis_gpu_count(why, sizeof why) == 0) return cis_error(CIS_ERR_NO_GPU, "%s", why);
  want = m == CIS_SYNC_SPIN ? cudaDeviceScheduleSpin : cudaDeviceScheduleBlockingSync;
  CIS_CUDA_CHECK(cudaGetDevice(&dev));
  CIS_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxGetState", &fn, 12000,
                                                  cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || !fn)
    return cis_error(CIS_ERR_CUDA, "cis_gpu_set_sync_mode: the driver has no cuDevicePrimaryCtxGetState");
  if (((primary_state_fn)fn)((CUdevice)dev, &flags, &active) != CUDA_SUCCESS)
    return cis_error(CIS_ERR_CUDA, "cis_gpu_set_sync_mode: cuDevicePrimaryCtxGetState failed");
  if ((flags & cudaDeviceScheduleMask) == want) return CIS_OK;
  if (active) CIS_CUDA_CHECK(cudaDeviceReset()); /* a context with another mode exists */
  CIS_CUDA_CHECK(cudaSetDeviceFlags(want | (flags & ~(unsigned)cudaDeviceScheduleMask)));
  return CIS_OK;
}
