/* gpu_mem.h: the device allocator every device allocation of the library
 * goes through (gpu_mem.c; host C, not public; CUDA builds only). Out of
 * memory is CIS_ERR_DEVICE_OOM naming what was asked, the bytes asked and the
 * bytes free, with the CUDA error state cleared so the process carries on;
 * any other CUDA failure is CIS_ERR_CUDA. Free with cis_gpu_free (gpu.h). */
#ifndef CISPARSE_GPU_MEM_H
#define CISPARSE_GPU_MEM_H

#include <stddef.h>
#include "cisparse/status.h"

/* *d = `bytes` of device memory, a copy of h unless h is NULL (then left
 * uninitialised); bytes == 0 gives *d = NULL. On failure *d = NULL and
 * nothing stays allocated. */
cis_status cis_gpu_alloc_copy(void **d, const void *h, size_t bytes, const char *what);
/* The same for a part of a larger computation: the out-of-memory message
 * names `what` and, in parentheses, `who` ("direct sigma", "RDMs", ...). */
cis_status cis_gpu_alloc_copy_for(void **d, const void *h, size_t bytes, const char *who, const char *what);

/* CUB's (or any kernel's) scratch *d of at least `need` bytes, its size in
 * *have: kept when large enough, else freed and made again (grown, never
 * shrunk; at least one byte). On failure *d = NULL and *have = 0. */
cis_status cis_gpu_scratch_grow(void **d, size_t *have, size_t need, const char *what);

#endif
