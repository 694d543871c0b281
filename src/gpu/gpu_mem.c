/* gpu_mem.c: device discovery and checked device memory (the thin layer
 * every other GPU file uses): the library's one device allocator
 * (gpu_mem.h). An out-of-memory cudaMalloc is reported as
 * CIS_ERR_DEVICE_OOM naming what was asked, the bytes asked and the bytes
 * free; the CUDA error state is cleared so the process carries on. */
#include <stdio.h>
#include <string.h>
#include "gpu/gpu_internal.h"
#include "gpu/gpu_mem.h"

/* Why no device: "no NVIDIA GPU/driver found" when the machine has no
 * NVIDIA driver loaded (the CUDA runtime then says "driver version is
 * insufficient"), an old driver named as such, else the runtime's words. */
static void no_device_why(cudaError_t e, char *why, size_t why_len) {
  FILE *f = fopen("/proc/driver/nvidia/version", "r");
  const int driver = f != NULL;
  if (f) fclose(f);
  if (e == cudaErrorNoDevice || e == cudaSuccess || (e == cudaErrorInsufficientDriver && !driver))
    snprintf(why, why_len, "no NVIDIA GPU/driver found");
  else if (e == cudaErrorInsufficientDriver)
    snprintf(why, why_len, "the NVIDIA driver is older than this build's CUDA runtime (update the driver)");
  else
    snprintf(why, why_len, "no usable CUDA device: %s", cudaGetErrorString(e));
}

int cis_gpu_count(char *why, size_t why_len) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why && why_len) no_device_why(e, why, why_len);
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

cis_status cis_gpu_get_info(cis_gpu_info *info) {
  struct cudaDeviceProp p;
  size_t free_b = 0, total_b = 0;
  if (!info) return cis_error(CIS_ERR_INVALID, "cis_gpu_get_info: NULL output");
  memset(info, 0, sizeof *info);
  if (cis_gpu_count(NULL, 0) == 0) {
    char why[160];
    cis_gpu_count(why, sizeof why);
    return cis_error(CIS_ERR_NO_GPU, "%s", why);
  }
  CIS_CUDA_CHECK(cudaGetDevice(&info->device));
  CIS_CUDA_CHECK(cudaGetDeviceProperties(&p, info->device));
  CIS_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  CIS_CUDA_CHECK(cudaDriverGetVersion(&info->driver_version));
  CIS_CUDA_CHECK(cudaRuntimeGetVersion(&info->runtime_version));
  snprintf(info->name, sizeof info->name, "%.127s", p.name);
  info->sm_count = p.multiProcessorCount;
  info->cc_major = p.major;
  info->cc_minor = p.minor;
  info->global_mem = (int64_t)p.totalGlobalMem;
  info->free_mem = (int64_t)free_b;
  info->l2_bytes = p.l2CacheSize;
  return CIS_OK;
}

cis_status cis_gpu_alloc_copy_for(void **d, const void *h, size_t bytes, const char *who, const char *what) {
  size_t free_b = 0, total_b = 0;
  cudaError_t e;
  *d = NULL;
  if (bytes == 0) return CIS_OK;
  e = cudaMalloc(d, bytes);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError(); /* not sticky: clear it and carry on */
    *d = NULL;
    cudaMemGetInfo(&free_b, &total_b);
    return cis_error(CIS_ERR_DEVICE_OOM,
                     "GPU out of memory for %s%s%s%s: asked %zu bytes (%.2f GiB), %zu free of %zu", what,
                     who ? " (" : "", who ? who : "", who ? ")" : "", bytes, (double)bytes / 1073741824.0,
                     free_b, total_b);
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    *d = NULL;
    return cis_error(CIS_ERR_CUDA, "%s:%d: cudaMalloc of %zu bytes for %s: %s", __FILE__, __LINE__,
                     bytes, what, cudaGetErrorString(e));
  }
  if (h && (e = cudaMemcpy(*d, h, bytes, cudaMemcpyHostToDevice)) != cudaSuccess) {
    cudaFree(*d);
    *d = NULL;
    return cis_error(CIS_ERR_CUDA, "%s:%d: upload of %s (%zu bytes): %s", __FILE__, __LINE__, what,
                     bytes, cudaGetErrorString(e));
  }
  return CIS_OK;
}

cis_status cis_gpu_alloc_copy(void **d, const void *h, size_t bytes, const char *what) {
  return cis_gpu_alloc_copy_for(d, h, bytes, NULL, what);
}

cis_status cis_gpu_upload_array(void **d, const void *h, cis_int count, size_t elem,
                                const char *what, cis_int *total) {
  int64_t bytes;
  *d = NULL;
  if (count < 0 || cis_mul_overflows(count, (int64_t)elem, &bytes))
    return cis_error(CIS_ERR_OVERFLOW, "%s: %lld elements overflow", what, (long long)count);
  cis_status st = cis_gpu_alloc_copy(d, h, (size_t)bytes, what);
  if (st == CIS_OK) *total += bytes;
  return st;
}

cis_status cis_gpu_malloc(void **d, size_t bytes) {
  if (!d) return cis_error(CIS_ERR_INVALID, "cis_gpu_malloc: NULL output");
  return cis_gpu_alloc_copy(d, NULL, bytes, "a device buffer");
}

void cis_gpu_free(void *d) {
  if (d) cudaFree(d);
}

cis_status cis_gpu_upload(void *d, const void *h, size_t bytes) {
  if (bytes && (!d || !h)) return cis_error(CIS_ERR_INVALID, "cis_gpu_upload: NULL pointer");
  if (bytes) CIS_CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
  return CIS_OK;
}

cis_status cis_gpu_download(void *h, const void *d, size_t bytes) {
  if (bytes && (!d || !h)) return cis_error(CIS_ERR_INVALID, "cis_gpu_download: NULL pointer");
  if (bytes) CIS_CUDA_CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
  return CIS_OK;
}

cis_status cis_gpu_sync(void) {
  CIS_CUDA_CHECK(cudaDeviceSynchronize());
  return CIS_OK;
}

cis_status cis_gpu_upload_offsets(cis_offsets *d, const cis_offsets *h, cis_int n, const char *what,
                                  cis_int *total) {
  d->wide = h->wide;
  d->u32 = NULL;
  d->i64 = NULL;
  if (h->wide) return cis_gpu_upload_array((void **)&d->i64, h->i64, n, 8, what, total);
  return cis_gpu_upload_array((void **)&d->u32, h->u32, n, 4, what, total);
}

void cis_gpu_free_offsets(cis_offsets *d) {
  cis_gpu_free(d->u32);
  cis_gpu_free(d->i64);
  d->u32 = NULL;
  d->i64 = NULL;
}

cis_status cis_gpu_scratch_grow(void **d, size_t *have, size_t need, const char *what) {
  if (*d && need <= *have) return CIS_OK;
  cis_gpu_free(*d);
  *d = NULL;
  *have = 0;
  cis_status st = cis_gpu_alloc_copy(d, NULL, need ? need : 1, what);
  if (st == CIS_OK) *have = need;
  return st;
}
