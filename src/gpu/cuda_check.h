/* cuda_check.h: the checked CUDA runtime and cuBLAS calls of the host-side
 * GPU drivers (the solvers' device backend, the direct CI sigma and RDMs,
 * the NCCL communicator). A failure becomes a cis_status with file:line, the
 * call and the library's message:
 *   CIS_CUBLAS_CHECK(call)  returns CIS_ERR_CUDA from the function;
 *   CIS_CUBLAS_TRY(call)    sets `st` to CIS_ERR_CUDA and jumps to `cleanup`;
 *   CIS_CUDA_TRY(call)      sets `st` (CIS_ERR_DEVICE_OOM for an allocation
 *                           failure, else CIS_ERR_CUDA), jumps to `cleanup`.
 * (CIS_CUDA_CHECK, returning, is kernels/kernel_common.cuh's; cuSPARSE's
 * CUS_TRY is cusparse_check.h's.) */
#ifndef CISPARSE_GPU_CUDA_CHECK_H
#define CISPARSE_GPU_CUDA_CHECK_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include "cisparse/status.h"

#define CIS_CUBLAS_CHECK(call)                                                                          \
  do {                                                                                                  \
    cublasStatus_t cb_ = (call);                                                                        \
    if (cb_ != CUBLAS_STATUS_SUCCESS)                                                                   \
      return cis_error(CIS_ERR_CUDA, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cublasGetStatusString(cb_)); \
  } while (0)

#define CIS_CUBLAS_TRY(call)                                                                            \
  do {                                                                                                  \
    cublasStatus_t cb_ = (call);                                                                        \
    if (cb_ != CUBLAS_STATUS_SUCCESS) {                                                                 \
      st = cis_error(CIS_ERR_CUDA, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cublasGetStatusString(cb_)); \
      goto cleanup;                                                                                     \
    }                                                                                                   \
  } while (0)

#define CIS_CUDA_TRY(call)                                                                              \
  do {                                                                                                  \
    cudaError_t ce_ = (call);                                                                           \
    if (ce_ != cudaSuccess) {                                                                           \
      st = cis_error(ce_ == cudaErrorMemoryAllocation ? CIS_ERR_DEVICE_OOM : CIS_ERR_CUDA,              \
                     "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(ce_));              \
      goto cleanup;                                                                                     \
    }                                                                                                   \
  } while (0)

#endif
