/* ci_rdm_dev.c: 1- and 2-particle (transition) reduced density matrices on
 * the GPU (contract in cisparse/ci.h; gather kernel in ci_rdm.cu; CPU
 * reference src/ci/rdm.c; shared plan and assembly src/ci/ci_rdm.h).
 *
 *   create: the links with full orbital-pair rows (ci_rdm_links), alpha as
 *           they are, beta transposed (link l of string B at l*nsb + B:
 *           a warp of consecutive B reads them coalesced), uploaded once;
 *   rdm12:  per block of alpha strings (m = rows * nsb determinants):
 *             gather D_ket (and D_bra) [n2 x m]         (ci_rdm.cu)
 *             raw1 += D_ket bra_block                   cuBLAS DGEMV
 *             raw2 += D_bra D_ket^T                     cuBLAS DGEMM (FP64 tensor cores)
 *           (column-major view: D is m x n2 with ld m, so raw2 = D_bra^T D_ket
 *           is DGEMM(T, N)). The product is n2 x n2 over millions of
 *           determinants: split over `slices` column ranges by one strided
 *           batched DGEMM into as many accumulators (split-K: enough thread
 *           blocks for the whole GPU, whatever cuBLAS's heuristics), summed
 *           on the host in slice order; there PySCF's delta term and
 *           particle-symmetrization follow (ci_rdm_finish). */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_rdm.h"
#include "ci/gpu/ci_rdm.h"
#include "core/internal.h"
#include "kernels/kernel_common.cuh"
#include "gpu/cuda_check.h"
#include "gpu/gpu_mem.h"
#include "ci/ci_internal.h"


#define RDM_DEFAULT_WORK ((int64_t)4 << 30)
#define RDM_MAX_SLICES 64                         /* split-K accumulators per 2-RDM */
#define RDM_SLICE_COLS 1024                       /* at least this many determinants per slice */
#define RDM_SLICE_BYTES ((double)(256 << 20))     /* all accumulators together at most */
#define RDM_DEVICE_MARGIN ((int64_t)256 << 20) /* cuBLAS workspace, allocator slack */

struct cis_ci_direct_gpu_rdm {
  ci_direct_view v;
  cis_ci_rdm_dev d;
  ci_link *alink, *blink_t; /* device */
  int64_t work_bytes;
  cublasHandle_t cb;
  cis_int rows, blocks; /* of the last call */
};

static double gib(double b) { return b / 1073741824.0; }

/* Device memory for the RDMs (the allocator of gpu/gpu_mem.h). */
static cis_status dev_alloc(void **d, size_t bytes, const char *what) {
  return cis_gpu_alloc_copy_for(d, NULL, bytes, "RDMs on the GPU", what);
}

void cis_ci_direct_gpu_rdm_free(cis_ci_direct_gpu_rdm *R) {
  if (!R) return;
  cis_gpu_free(R->alink);
  cis_gpu_free(R->blink_t);
  if (R->cb) cublasDestroy(R->cb);
  cis_free(R);
}

cis_status cis_ci_direct_gpu_rdm_create(const cis_ci_direct *D, int64_t work_bytes, cis_ci_direct_gpu_rdm **out) {
  cis_status st;
  cis_ci_direct_gpu_rdm *R = NULL;
  ci_link *La = NULL, *Lb = NULL, *Lt = NULL;
  char why[160];
  if (!D || !out || work_bytes < 0)
    return cis_error(CIS_ERR_INVALID, "RDMs on the GPU: NULL argument or negative work_bytes");
  *out = NULL;
  if (cis_gpu_count(why, sizeof why) == 0) return cis_error(CIS_ERR_NO_GPU, "%s", why);
  CIS_TRY(cis_alloc_zeroed((void **)&R, 1, sizeof *R, "GPU RDMs"));
  CIS_TRY(ci_rdm_links(D, &R->v, &La, &Lb));
  const ci_direct_view *v = &R->v;
  const cis_int nsb = v->nsb, nlb = v->nlb;
  CIS_TRY(cis_alloc_array((void **)&Lt, nsb * nlb > 0 ? nsb * nlb : 1, sizeof(ci_link), "transposed beta links"));
  for (cis_int B = 0; B < nsb; ++B)
    for (int l = 0; l < nlb; ++l) Lt[(cis_int)l * nsb + B] = Lb[B * nlb + l];
  const size_t la = (size_t)(v->nsa * v->nla) * sizeof(ci_link), lb = (size_t)(nsb * nlb) * sizeof(ci_link);
  CIS_TRY(dev_alloc((void **)&R->alink, la, "alpha link lists"));
  CIS_TRY(dev_alloc((void **)&R->blink_t, lb, "beta link lists"));
  if (la) CIS_CUDA_TRY(cudaMemcpy(R->alink, La, la, cudaMemcpyHostToDevice));
  if (lb) CIS_CUDA_TRY(cudaMemcpy(R->blink_t, Lt, lb, cudaMemcpyHostToDevice));
  if (cublasCreate(&R->cb) != CUBLAS_STATUS_SUCCESS) {
    R->cb = NULL;
    st = cis_error(CIS_ERR_CUDA, "RDMs on the GPU: cublasCreate failed");
    goto cleanup;
  }
  R->d = (cis_ci_rdm_dev){v->norb * v->norb, v->nsa, nsb, v->nla, (int)nlb, R->alink, R->blink_t};
  R->work_bytes = work_bytes > 0 ? work_bytes : RDM_DEFAULT_WORK;
  cis_free(La), cis_free(Lb), cis_free(Lt);
  *out = R;
  return CIS_OK;
cleanup:
  cis_free(La), cis_free(Lb), cis_free(Lt);
  cis_ci_direct_gpu_rdm_free(R);
  return st;
}

void ci_direct_gpu_rdm_blocks(const cis_ci_direct_gpu_rdm *R, cis_int *rows, cis_int *blocks) {
  if (rows) *rows = R ? R->rows : 0;
  if (blocks) *blocks = R ? R->blocks : 0;
}

/* acc[s] += Db[:, cols of slice s] Dk[:, cols of slice s]^T for the column
 * slices of m (row-major D n2 x m; column-major: rows of the m x n2 D_cm):
 * one strided batched DGEMM over the whole slices, one DGEMM for the rest. */
static cis_status gemm_slices(cis_ci_direct_gpu_rdm *R, int n2, int m, int slices, const double *Db,
                              const double *Dk, double *acc) {
  cis_status st = CIS_OK;
  const double one = 1.0;
  const long long n4 = (long long)n2 * n2;
  int per = (m + slices - 1) / slices;
  if (per < RDM_SLICE_COLS) per = m < RDM_SLICE_COLS ? m : RDM_SLICE_COLS;
  const int whole = m / per, rest = m - whole * per;
  if (whole > 0)
    CIS_CUBLAS_TRY(cublasDgemmStridedBatched(R->cb, CUBLAS_OP_T, CUBLAS_OP_N, n2, n2, per, &one, Db, m, per, Dk, m, per, &one,
                                     acc, n2, n4, whole));
  if (rest > 0) /* into the next slice (whole < slices: per >= ceil(m / slices)) */
    CIS_CUBLAS_TRY(cublasDgemm(R->cb, CUBLAS_OP_T, CUBLAS_OP_N, n2, n2, rest, &one, Db + (cis_int)whole * per, m,
                       Dk + (cis_int)whole * per, m, &one, acc + (cis_int)whole * n4, n2));
cleanup:
  return st;
}

cis_status cis_ci_direct_gpu_rdm12(cis_ci_direct_gpu_rdm *R, const double *bra, const double *ket, int device_vectors,
                                   const cis_ci_rdm12 *o, cis_stream s) {
  cis_status st;
  ci_rdm_plan p;
  cudaStream_t cs = (cudaStream_t)s;
  double *dket = NULL, *dbra = NULL, *buf[4] = {NULL, NULL, NULL, NULL}, *draw1 = NULL, *draw2 = NULL;
  double *hraw = NULL, *raw2[4] = {NULL, NULL, NULL, NULL};
  if (!R || !ket || !o) return cis_error(CIS_ERR_INVALID, "RDMs on the GPU: NULL argument");
  CIS_TRY(ci_rdm_plan_of(o, bra, ket, &p));
  const ci_direct_view *v = &R->v;
  const int n = v->norb, n2 = n * n;
  const cis_int nsa = v->nsa, nsb = v->nsb, ndet = v->ndet, n4 = (cis_int)n2 * n2;
  const int nraw = p.traced ? 1 : 4;
  int slices = RDM_MAX_SLICES;
  while (slices > 1 && (double)slices * nraw * (double)n4 * sizeof(double) > RDM_SLICE_BYTES) slices /= 2;
  const cis_int acc = (cis_int)slices * n4; /* doubles per raw2: its slices' accumulators */
  /* the vectors on the device */
  if (device_vectors) {
    dket = (double *)ket;
    dbra = p.same ? dket : (double *)bra;
  } else {
    CIS_TRY(dev_alloc((void **)&dket, (size_t)ndet * sizeof(double), "ket vector"));
    CIS_CUDA_TRY(cudaMemcpyAsync(dket, ket, (size_t)ndet * sizeof(double), cudaMemcpyHostToDevice, cs));
    if (!p.same) {
      CIS_TRY(dev_alloc((void **)&dbra, (size_t)ndet * sizeof(double), "bra vector"));
      CIS_CUDA_TRY(cudaMemcpyAsync(dbra, bra, (size_t)ndet * sizeof(double), cudaMemcpyHostToDevice, cs));
    } else {
      dbra = dket;
    }
  }
  /* D buffers: traced (ket[, bra]); separated (ket a, ket b[, bra a, bra b]) */
  const int nket = p.traced ? 1 : 2, nbuf = p.same ? nket : 2 * nket;
  size_t fr = 0, tot = 0;
  CIS_CUDA_TRY(cudaMemGetInfo(&fr, &tot));
  double avail = (double)fr - (double)RDM_DEVICE_MARGIN - 8.0 * (2.0 * n2 + (double)nraw * acc);
  if ((double)R->work_bytes < avail) avail = (double)R->work_bytes;
  const double row_bytes = (double)nbuf * n2 * (double)nsb * sizeof(double);
  double rows = floor(avail / row_bytes);
  if (rows > (double)nsa) rows = (double)nsa;
  if (rows * (double)nsb > (double)INT32_MAX) rows = floor((double)INT32_MAX / (double)nsb); /* cuBLAS int m */
  if (rows < 1) {
    st = cis_error(CIS_ERR_TOO_LARGE,
                   "RDMs on the GPU: one alpha string's %d D blocks need %.3f GiB, %.3f GiB free (work_bytes %.3f GiB)",
                   nbuf, gib(row_bytes), gib((double)fr), gib((double)R->work_bytes));
    goto cleanup;
  }
  const cis_int nr = (cis_int)rows;
  for (int b = 0; b < nbuf; ++b)
    CIS_TRY(dev_alloc((void **)&buf[b], (size_t)n2 * (size_t)(nr * nsb) * sizeof(double), "RDM intermediate D"));
  CIS_TRY(dev_alloc((void **)&draw1, 2 * (size_t)n2 * sizeof(double), "RDM 1-particle sums"));
  CIS_TRY(dev_alloc((void **)&draw2, (size_t)nraw * (size_t)acc * sizeof(double), "RDM 2-particle sums"));
  CIS_CUDA_TRY(cudaMemsetAsync(draw1, 0, 2 * (size_t)n2 * sizeof(double), cs));
  CIS_CUDA_TRY(cudaMemsetAsync(draw2, 0, (size_t)nraw * (size_t)acc * sizeof(double), cs));
  CIS_CUBLAS_TRY(cublasSetStream(R->cb, cs));
  double *Kt = buf[0], *Ka = buf[0], *Kb = buf[1 % nbuf];
  double *Bt = p.same ? Kt : buf[1], *Ba = p.same ? Ka : buf[2 % nbuf], *Bb = p.same ? Kb : buf[3 % nbuf];
  const double one = 1.0;
  R->rows = nr;
  R->blocks = 0;
  for (cis_int a0 = 0; a0 < nsa; a0 += nr) {
    const cis_int r = nsa - a0 < nr ? nsa - a0 : nr;
    const int m = (int)(r * nsb);
    const double *w = dbra + a0 * nsb;
    if (p.traced) {
      CIS_TRY(cis_launch_ci_rdm_gather(&R->d, dket, a0, r, 2, Kt, cs));
      if (!p.same) CIS_TRY(cis_launch_ci_rdm_gather(&R->d, dbra, a0, r, 2, Bt, cs));
      CIS_CUBLAS_TRY(cublasDgemv(R->cb, CUBLAS_OP_T, m, n2, &one, Kt, m, w, 1, &one, draw1, 1));
      if (p.raw2_traced) CIS_TRY(gemm_slices(R, n2, m, slices, Bt, Kt, draw2));
    } else {
      CIS_TRY(cis_launch_ci_rdm_gather(&R->d, dket, a0, r, 0, Ka, cs));
      CIS_TRY(cis_launch_ci_rdm_gather(&R->d, dket, a0, r, 1, Kb, cs));
      if (!p.same) {
        CIS_TRY(cis_launch_ci_rdm_gather(&R->d, dbra, a0, r, 0, Ba, cs));
        CIS_TRY(cis_launch_ci_rdm_gather(&R->d, dbra, a0, r, 1, Bb, cs));
      }
      CIS_CUBLAS_TRY(cublasDgemv(R->cb, CUBLAS_OP_T, m, n2, &one, Ka, m, w, 1, &one, draw1, 1));
      CIS_CUBLAS_TRY(cublasDgemv(R->cb, CUBLAS_OP_T, m, n2, &one, Kb, m, w, 1, &one, draw1 + n2, 1));
      const double *bs[4] = {Ba, Ba, Bb, Bb}, *ks[4] = {Ka, Kb, Ka, Kb};
      for (int k = 0; k < 4; ++k)
        if (p.raw2[k]) CIS_TRY(gemm_slices(R, n2, m, slices, bs[k], ks[k], draw2 + (cis_int)k * acc));
    }
    R->blocks++;
  }
  CIS_TRY(cis_alloc_array((void **)&hraw, 2 * n2 + (cis_int)nraw * acc, sizeof(double), "RDM sums (host)"));
  CIS_CUDA_TRY(cudaMemcpyAsync(hraw, draw1, 2 * (size_t)n2 * sizeof(double), cudaMemcpyDeviceToHost, cs));
  CIS_CUDA_TRY(cudaMemcpyAsync(hraw + 2 * n2, draw2, (size_t)nraw * (size_t)acc * sizeof(double), cudaMemcpyDeviceToHost,
                         cs));
  CIS_CUDA_TRY(cudaStreamSynchronize(cs));
  for (int k = 0; k < nraw; ++k) { /* the slices' sums, in slice order, into slice 0 */
    raw2[k] = hraw + 2 * n2 + (cis_int)k * acc;
    for (int sl = 1; sl < slices; ++sl)
      for (cis_int i = 0; i < n4; ++i) raw2[k][i] += raw2[k][(cis_int)sl * n4 + i];
  }
  ci_rdm_finish(n, &p, hraw, hraw + n2, raw2, o);
  st = CIS_OK;
cleanup:
  if (st != CIS_OK) cudaStreamSynchronize(cs); /* nothing in flight reads what is freed below */
  if (!device_vectors) {
    cis_gpu_free(dket);
    if (dbra != dket) cis_gpu_free(dbra);
  }
  for (int b = 0; b < 4; ++b)
    cis_gpu_free(buf[b]);
  cis_gpu_free(draw1);
  cis_gpu_free(draw2);
  cis_free(hraw);
  return st;
}
