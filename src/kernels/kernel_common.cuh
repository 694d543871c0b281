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

// ---- device helpers shared by the kernel files (CUDA sources only) -----------
#ifdef __CUDACC__

// Run the body with REAL = double or float according to a cis_dtype.
#define CIS_DISPATCH_REAL(t, ...)            \
  do {                                       \
    if ((t) == CIS_F64) {                    \
      using REAL = double;                   \
      __VA_ARGS__                            \
    } else {                                 \
      using REAL = float;                    \
      __VA_ARGS__                            \
    }                                        \
  } while (0)

// y[i] = alpha*sum + beta*y[i]; beta == 0 overwrites (a NaN in y does not propagate).
template <typename T>
__device__ __forceinline__ void cis_store_y(T *y, int64_t i, T sum, T alpha, T beta) {
  y[i] = (beta == T(0)) ? alpha * sum : alpha * sum + beta * y[i];
}

// Sum over the `width` lanes of a (sub-)warp group; every lane gets the total
// (WIDTH 1: the value itself).
template <typename T, int WIDTH>
__device__ __forceinline__ T cis_group_sum(T v) {
#pragma unroll
  for (int o = WIDTH / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o, WIDTH);
  return v;
}

// Blocks for n work items of `per_block` each (at least 1).
static inline unsigned cis_blocks_for(int64_t n, int64_t per_block) {
  int64_t b = (n + per_block - 1) / per_block;
  return (unsigned)(b < 1 ? 1 : (b > 0x7fffffff ? 0x7fffffff : b));
}

// Threads per block: `block` if given (a multiple of `mult` up to 1024), else `def`.
#define CIS_BLOCK_OR(block, def, mult, name)                                                  \
  int threads_ = (block) > 0 ? (block) : (def);                                               \
  if (threads_ > 1024 || threads_ % (mult))                                                   \
    return cis_error(CIS_ERR_INVALID, "%s: block size %d must be a multiple of %d up to 1024", \
                     name, threads_, mult)

#endif  // __CUDACC__
#endif
