/* cisparse/util.h: the clock and machine queries the library uses for its
 * own timings and memory limits, for programs that report the same way (the
 * cisparse tool uses these). */
#ifndef CISPARSE_UTIL_H
#define CISPARSE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include "cisparse/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds on a monotonic clock (CLOCK_MONOTONIC): only differences mean
 * anything (elapsed wall time). */
CIS_API double cis_wtime(void);
/* Physical memory of this machine in bytes (sysconf pages x page size), 0
 * when it cannot be read. */
CIS_API int64_t cis_phys_memory(void);
/* The host memory this process may use, in bytes: the least of physical
 * memory, RLIMIT_AS (getrlimit) and the cgroup's limit (v2 memory.max of the
 * process's own cgroup, or v1 memory.limit_in_bytes); `why` (may be NULL,
 * `len` bytes) names the one that binds, e.g. "physical memory",
 * "RLIMIT_AS", "cgroup memory.max". 0 when none can be read. */
CIS_API int64_t cis_host_memory_limit(char *why, size_t len);

/* Median of v[0..n) (sorted in place; the mean of the two middle values
 * for even n); NaN for n < 1. The timings of the library and the tool. */
CIS_API double cis_median(double *v, int n);

/* The library's version, "MAJOR.MINOR.PATCH" (CISPARSE_VERSION_STRING of
 * cisparse/version.h when the header and the library match). Never NULL. */
CIS_API const char *cis_version(void);
/* 1 if this library was built with the CUDA kernels (GPU calls may still
 * report CIS_ERR_NO_GPU where no device is present), else 0. */
CIS_API int cis_built_with_cuda(void);

#ifdef __cplusplus
}
#endif
#endif
