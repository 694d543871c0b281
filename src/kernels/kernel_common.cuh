// kernel_common.cuh: shared by the CUDA kernel files. Launchers are
// extern "C", take raw device pointers and the stream last, and return a
// cis_status after checking the launch (CIS_CUDA_LAUNCH_CHECK).
#ifndef CISPARSE_KERNEL_COMMON_CUH
#define CISPARSE_KERNEL_COMMON_CUH

#include <cuda_runtime.h>
#include "cisparse/status.h"

#define CIS_CUDA_CHECK(call)                                                              \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess)                                                                \
      return cis_error(e_ == cudaErrorMemoryAllocation ? CIS_ERR_DEVICE_OOM : CIS_ERR_CUDA, \
                       "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
  } while (0)

// After a <<<...>>> launch: report launch-configuration errors with the kernel name.
#define CIS_CUDA_LAUNCH_CHECK(name)                                                       \
  do {                                                                                    \
    cudaError_t e_ = cudaGetLastError();                                                  \
    if (e_ != cudaSuccess)                                                                \
      return cis_error(CIS_ERR_CUDA, "%s:%d: launch of %s failed: %s", __FILE__, __LINE__, \
                       name, cudaGetErrorString(e_));                                     \
  } while (0)

#endif
