/* cisparse/util.h: the clock and machine queries the library uses for its
 * own timings and memory limits, for programs that report the same way (the
 * cisparse tool uses these). */
#ifndef CISPARSE_UTIL_H
#define CISPARSE_UTIL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds on a monotonic clock (CLOCK_MONOTONIC): only differences mean
 * anything (elapsed wall time). */
double cis_wtime(void);
/* Physical memory of this machine in bytes (sysconf pages x page size), 0
 * when it cannot be read. */
int64_t cis_phys_memory(void);

#ifdef __cplusplus
}
#endif
#endif
