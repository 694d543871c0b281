/* bench_internal.h: private to src/bench: the bench library's two
 * launchers (bench_kernels.cu: raw device pointers, the stream last, the
 * launch checked) and its one cleanup macro. */
#ifndef CISPARSE_BENCH_INTERNAL_H
#define CISPARSE_BENCH_INTERNAL_H

#include <cuda_runtime.h>
#include "cisparse/status.h"
#include "cisparse/types.h"

/* st = call; on failure jump to this function's cleanup: (the library's
 * CIS_TRY, core/internal.h, which the bench library does not include). */
#define CIS_TRY(call) do { if ((st = (call)) != CIS_OK) goto cleanup; } while (0)

#ifdef __cplusplus
extern "C" {
#endif

/* d[0..n) = NaN in dtype t. */
cis_status bench_launch_fill_nan(void *d, cis_dtype t, cis_int n, cudaStream_t s);
/* Median milliseconds (CUDA events on the default stream) of `runs` calls
 * of one(ctx) after `warmup` untimed ones (gpu_timing.c). */
cis_status bench_time_calls(cis_status (*one)(void *), void *ctx, int warmup, int runs, double *out);
/* One read pass over n doubles at d (16-byte loads), a partial sum per block
 * into d_out[0..blocks). */
cis_status bench_launch_read_bw(const double *d, cis_int n, double *d_out, int blocks, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
