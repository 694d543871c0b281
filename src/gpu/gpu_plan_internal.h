/* gpu_plan_internal.h: internal entry points behind cisparse/gpu.h (not
 * exported; the library and its tests only). */
#ifndef CISPARSE_GPU_GPU_PLAN_INTERNAL_H
#define CISPARSE_GPU_GPU_PLAN_INTERNAL_H

#include "cisparse/gpu.h"

/* ---- moved from cisparse/gpu.h: internal, not exported ----------------------------------- */

/* 1 if the plan stores a symmetric matrix as its upper triangle. */
int gpu_plan_is_symmetric(const cis_gpu_plan *p);

/* 1 if the plan has an SpMM kernel (cis_gpu_spmm accepts it). */
int gpu_plan_has_spmm(const cis_gpu_plan *p);

/* Rows, columns and value type of the plan's matrix (any output may be NULL). */
cis_status gpu_plan_shape(const cis_gpu_plan *p, cis_int *rows, cis_int *cols, cis_dtype *t);

/* Host copy of a csr plan's matrix (e.g. one built on the device by
 * ci_hamiltonian_gpu); CIS_ERR_UNSUPPORTED for other formats. */
cis_status gpu_plan_download_csr(const cis_gpu_plan *p, cis_csr **out);

#endif
