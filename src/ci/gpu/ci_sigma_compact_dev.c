/* ci_sigma_compact_dev.c: the public compact-vector entry points of the
 * direct sigma on the GPU (cisparse/ci.h: cis_ci_direct_gpu_compact_*):
 * Davidson's vectors of the ISYM determinants only, the sigma blocked by
 * irreps (ci_sigma_irrep_dev.c) when the space is, the ordinary one
 * (ci_sigma_dev.c) when not. Above both, so that neither calls the other
 * back (Olsen et al. 1988; the irrep blocking of Knowles & Handy 1989). */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_davidson_support.h"
#include "ci/gpu/ci_sigma.h"
#include "ci/gpu/ci_sigma_irrep.h"
#include "ci/sigma_irrep.h"
#include "cisparse/operator.h"
#include "cisparse/util.h"
#include "core/internal.h"
#include "kernels/kernel_common.cuh"
#include "gpu/cuda_check.h"
#include "gpu/gpu_mem.h"
#include "ci/ci_internal.h"

/* ---- public: compact device vectors (contract in cisparse/ci.h) ---- */

cis_status ci_direct_gpu_compact_sigma(cis_ci_direct_gpu *G, int k, const double *d_C, double *d_S, cis_stream s) {
  if (!G || !d_C || !d_S || k < 1)
    return cis_error(CIS_ERR_INVALID, "compact sigma on the GPU: NULL argument or k = %d < 1", k);
  ci_irrep_gpu *I = ci_direct_gpu_irrep(G);
  if (!I) return cis_ci_direct_gpu_sigma(G, k, d_C, d_S, s); /* not blocked: compact = ordinary */
  return ci_irrep_gpu_sigma(I, k, d_C, d_S, (cudaStream_t)s, ci_direct_gpu_info_ref(G));
}

/* Operator callback: y = alpha H x + beta y on compact device vectors. */
static cis_status compact_gpu_apply(void *ctx, double alpha, const void *x, double beta, void *y, cis_stream s) {
  cis_ci_direct_gpu *G = ctx;
  return ci_irrep_gpu_apply(ci_direct_gpu_irrep(G), alpha, x, beta, y, (cudaStream_t)s, ci_direct_gpu_info_ref(G));
}

cis_status ci_direct_gpu_compact_operator(cis_ci_direct_gpu *G, const double *diag, cis_operator **out) {
  cis_status st;
  cis_operator *op = NULL;
  double *dc = NULL;
  if (!G || !out) return cis_error(CIS_ERR_INVALID, "compact GPU operator: NULL argument");
  *out = NULL;
  const cis_ci_direct *D = ci_direct_gpu_host(G);
  if (!diag) { /* the compact diagonal from the integrals */
    CIS_TRY(cis_alloc_array((void **)&dc, ci_direct_compact_size(D), sizeof(double), "compact diagonal"));
    CIS_TRY(ci_direct_compact_diagonal(D, dc));
    diag = dc;
  }
  ci_irrep_gpu *I = ci_direct_gpu_irrep(G);
  if (!I) CIS_TRY(ci_direct_gpu_operator(G, diag, &op));
  else {
    const cis_int nc = ci_irrep_gpu_compact_size(I);
    CIS_TRY(cis_operator_from_callback(nc, nc, CIS_F64, CIS_MEM_DEVICE, compact_gpu_apply, G, NULL, &op));
    CIS_TRY(cis_operator_set_diagonal(op, diag));
  }
  *out = op;
  op = NULL;
  st = CIS_OK;
cleanup:
  cis_free(dc);
  cis_operator_free(op);
  return st;
}

cis_status cis_ci_direct_gpu_time_compact_sigma(cis_ci_direct_gpu *G, const double *cc, int runs, double *ms_median) {
  if (!G || !cc || !ms_median || runs < 1)
    return cis_error(CIS_ERR_INVALID, "compact GPU sigma timing: NULL argument or runs < 1");
  ci_irrep_gpu *I = ci_direct_gpu_irrep(G);
  if (!I) return cis_ci_direct_gpu_time_sigma(G, cc, runs, ms_median);
  return ci_irrep_gpu_time(I, cc, 1, runs, ms_median, ci_direct_gpu_info_ref(G));
}
