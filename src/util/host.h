/* host.h: the clock and machine queries of this host (libc only; no other
 * cisparse header). Compiled into the library, which times its solves and
 * bounds its allocations with them, and into the tool library
 * (src/tool/), which the cisparse tool links: not exported by
 * libcisparse.so, not part of the public API. */
#ifndef CISPARSE_UTIL_HOST_H
#define CISPARSE_UTIL_HOST_H

#include <stddef.h>
#include <stdint.h>

/* Seconds on a monotonic clock (CLOCK_MONOTONIC): only differences mean
 * anything (elapsed wall time). */
double cis_wtime(void);
/* Median of v[0..n) (sorted in place; the mean of the two middle values
 * for even n); NaN for n < 1 or v NULL. */
double cis_median(double *v, int n);
/* Physical memory of this machine in bytes (sysconf pages x page size), 0
 * when it cannot be read. */
int64_t cis_phys_memory(void);
/* The host memory this process may use, in bytes: the least of physical
 * memory, RLIMIT_AS (getrlimit) and the cgroup's limit (v2 memory.max of the
 * process's own cgroup, or v1 memory.limit_in_bytes); `why` (may be NULL,
 * `len` bytes) names the one that binds, e.g. "physical memory",
 * "RLIMIT_AS", "cgroup memory.max". 0 when none can be read. */
int64_t cis_host_memory_limit(char *why, size_t len);

/* The environment variable `name` of another program's convention
 * (OMP_NUM_THREADS, OMP_WAIT_POLICY, an MPI launcher's rank, NCCL's own
 * variables), or NULL when it is not set: the one place src/ reads such a
 * variable. cisparse's own settings are options (cisparse/util.h; the
 * variable CISPARSE_OPTIONS, read by core/options.c alone): a CISPARSE_
 * name gives NULL here. */
const char *cis_host_env(const char *name);

#endif
