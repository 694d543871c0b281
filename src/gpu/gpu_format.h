/* gpu_format.h: the device side of a format (one table per format), used by
 * the plan layer (src/gpu/plan.c). A table uploads the host format struct's
 * arrays (src/formats/format_types.h) and runs a named kernel on them.
 *
 * Each table is named `cis_gpu_format_<id>` after its entry in
 * src/formats/format_list.h, which plan.c reads. C-only header (no CUDA types):
 * streams are cis_stream (a cudaStream_t). */
#ifndef CISPARSE_GPU_FORMAT_H
#define CISPARSE_GPU_FORMAT_H

#include "cisparse/gpu.h"
#include "formats/format_types.h"
#include "gpu/gpu_mem.h"

typedef struct cis_gpu_format_ops {
  const char *format;       /* host --format name this table serves */
  const char *kernels[5];   /* kernel names; kernels[0] is the default; NULL-terminated */
  const char *citation;     /* paper, section, algorithm of the kernel(s) */
  /* Copy the host format's arrays to the device. *dev receives an opaque
   * device-side struct; *bytes the device bytes allocated for matrix arrays
   * (must equal the host format's byte count); *ws extra workspace bytes.
   * On failure everything allocated is freed. */
  cis_status (*upload)(const void *impl, void **dev, cis_int *bytes, cis_int *ws);
  /* y = alpha*A*x + beta*y with kernel `kernel` (one of kernels[]), block
   * size `block` (0 = default), enqueued on stream s. */
  cis_status (*spmv)(const void *dev, const char *kernel, int block, double alpha, const void *d_x,
                     double beta, void *d_y, cis_stream s);
  void (*release)(void *dev);
  /* Y = alpha*A*X + beta*Y for k vectors (cis_gpu_spmm); NULL = the format
   * has no SpMM kernel. */
  cis_status (*spmm)(const void *dev, int block, int k, double alpha, const void *d_X, cis_int ldx,
                     double beta, void *d_Y, cis_int ldy, int col_major, cis_stream s);
} cis_gpu_format_ops;

/* One table per entry of src/formats/format_list.h, defined in the
 * format's own file (src/gpu/<format>_gpu.c). */
#define CIS_GPU_FORMAT_EXTERN(id, storage) extern const cis_gpu_format_ops cis_gpu_format_##id;
CIS_FORMAT_LIST(CIS_GPU_FORMAT_EXTERN)
#undef CIS_GPU_FORMAT_EXTERN


#endif
