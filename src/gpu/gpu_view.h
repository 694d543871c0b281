/* gpu_view.h: a read-only view of a GPU plan for the fused Krylov kernels
 * (src/solvers/gpu/krylov_kernels.cu): which of our SpMV kernel bodies the
 * plan runs and its raw device arrays, so that a solver can instantiate the
 * same body with its own epilogue (Aliaga et al. 2015 §3.3, SpMV fused with
 * dot_ini). Internal to the GPU layers; plain C, no object pointers. */
#ifndef CISPARSE_GPU_VIEW_H
#define CISPARSE_GPU_VIEW_H

#include "cisparse/gpu.h"
#include "kernels/launchers.h"

/* The kernel bodies of kernels/spmv_templates.cuh. NONE: the plan's kernel
 * cannot take an epilogue (csb, csr5, hyb-paper, cuSPARSE baselines). */
typedef enum cis_spmv_kind {
  CIS_SPMV_NONE = 0,
  CIS_SPMV_CSR_SCALAR, /* rowptr (wide), col, val */
  CIS_SPMV_CSR_VECTOR, /* rowptr (wide), col, val */
  CIS_SPMV_ELL,        /* width, col, val, rowlen (NULL = ell, else ellr) */
  CIS_SPMV_SELL,       /* S, nslices, slice_ptr, col, val, rowlen, perm */
  CIS_SPMV_HYB         /* hyb (the fast kernel's arrays) */
} cis_spmv_kind;

typedef struct cis_spmv_view {
  cis_spmv_kind kind;
  cis_dtype t;
  cis_int rows, cols, nnz;
  int block;                 /* the plan's block size (0 = the kernel's default) */
  /* csr */
  int wide;                  /* 64-bit row pointers */
  const void *rowptr;
  /* csr, ell, sell: columns and values */
  const cis_idx *col;
  const void *val;
  /* ell / ellr */
  cis_int width;
  const cis_idx *rowlen;     /* ellr, sellr; NULL otherwise */
  /* sell family */
  cis_int S, nslices;
  const int64_t *slice_ptr;
  const cis_idx *perm;       /* sellcs; NULL otherwise */
  /* hyb */
  cis_hyb_dev hyb;
} cis_spmv_view;

/* Fill *v from plan p (kind NONE when the plan's kernel takes no epilogue).
 * Never fails for a valid plan; NULL p gives kind NONE. */
void cis_gpu_plan_view(const cis_gpu_plan *p, cis_spmv_view *v);

#endif
