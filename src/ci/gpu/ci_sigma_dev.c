/* ci_sigma_dev.c: the direct (matrix-free) CI sigma on the GPU (contract in
 * cisparse/ci.h; kernels in ci_sigma.cu; CPU reference src/ci/sigma.c).
 *
 *   create: upload the host object's alpha links, the beta links transposed
 *           (link l of string B at l*nsb + B, so that a warp of consecutive B
 *           reads them coalesced), 1/2 g and the string irreps; size D and X
 *           from the free device memory after the caller's vectors;
 *   sigma:  per pass (gv vectors, alpha strings a0 .. a0+nr-1):
 *           gather D, DGEMM X = 1/2 g D (cuBLAS, column-major view:
 *           X^T (m x npair) = D^T (m x npair) g, g symmetric), scatter;
 *           or, fused (ci_sigma_fused.cu), X = 1/2 g D with D only in shared
 *           memory, then the same scatter: no D buffer, twice the rows.
 *
 * The kernels of the product: option sigma=fused|unfused|auto, read when G
 * is made (unset = auto; auto = SIGMA_AUTO_FUSED below); fused falls back to
 * unfused where its tile and g do not fit shared memory, and info.sigma_kernel
 * says which runs and why.
 *
 * The half sigma's scatter after a pass's product: over every pair (I, B <= I)
 * on the first pass (it writes sigma) and on a last pass that projects (its
 * mask), else over the pairs with a string the pass reaches (its rows and the
 * strings linked to them) when those are under half the strings
 * (cis_ci_half_reach_bound): with many passes (a small workspace) most pairs
 * have no link into a pass. The option half_scatter=all|reached|auto, read when
 * G is made (unset = auto; reached: on every pass that may). */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_davidson_support.h"
#include "ci/ci_internal.h"
#include "ci/gpu/ci_sigma.h"
#include "ci/gpu/ci_sigma_fused.h"
#include "ci/gpu/ci_sigma_irrep.h"
#include "cisparse/operator.h"
#include "core/internal.h"
#include "kernels/kernel_common.cuh"
#include "gpu/cuda_check.h"
#include "gpu/gpu_mem.h"
#include "core/options.h"


/* Device bytes kept free beside the workspace (cuBLAS workspace, the
 * Davidson backend's scratch, allocator slack). */
#define SIGMA_DEVICE_MARGIN ((int64_t)512 << 20)
/* What the option sigma=auto (or unset) takes: 0 unfused until the fused
 * kernel is measured on the GPU (bench/NOTES.md), then 1. */
#define SIGMA_AUTO_FUSED 0
enum { HALF_SCATTER_ALL, HALF_SCATTER_AUTO, HALF_SCATTER_REACHED };

struct cis_ci_direct_gpu {
  const cis_ci_direct *host;
  ci_direct_view v;
  cis_ci_sigma_dev d; /* device pointers below */
  ci_link *alink, *blink_t;
  uint8_t *syma, *symb;
  double *g, *D, *X, *tmp;
  double *sums; /* 3 device doubles: the parity sums */
  double *pure; /* ndet: a nearly pure vector's pure part (lazily) */
  cublasHandle_t cb;
  cis_int rows; /* (vector, alpha string) rows of D and X (fused: of X) */
  cis_int lo, hi; /* the alpha strings whose contributions the sigma sums (ci_direct_gpu_create_part) */
  int input_scratch; /* the sigma may overwrite its input (ci_direct_gpu_input_scratch) */
  int fused_nb; /* columns per block of the fused gather + product; 0 = gather + DGEMM */
  int half_scatter;     /* HALF_SCATTER_*: option half_scatter when G was made */
  cis_half_reach reach; /* its scratch (lazily) */
  cudaEvent_t split[4]; /* phase marks of one timed sigma (cis_ci_direct_gpu_time_sigma); NULL: not timing */
  double split_acc[3];  /* its phases summed over the passes, ms */
  ci_irrep_gpu *ir; /* host D blocked by irreps: the blocked sigma (ci_sigma_irrep_dev.c) instead of the C1 one */
  cis_ci_direct_gpu_info info;
};

cis_ci_direct_gpu_opts ci_direct_gpu_opts_default(void) {
  cis_ci_direct_gpu_opts o = {0, 0, 0};
  return o;
}

static double gib(double b) { return b / 1073741824.0; }

/* Device memory for the direct sigma, a copy of h unless h is NULL (the
 * allocator of gpu/gpu_mem.h). */
static cis_status dev_upload(void **d, const void *h, size_t bytes, const char *what) {
  return cis_gpu_alloc_copy_for(d, h, bytes, "direct sigma on the GPU", what);
}
static cis_status dev_alloc(void **d, size_t bytes, const char *what) { return dev_upload(d, NULL, bytes, what); }

void cis_ci_direct_gpu_free(cis_ci_direct_gpu *G) {
  if (!G) return;
  void *dev[] = {G->alink, G->blink_t, G->syma, G->symb, G->g, G->D, G->X, G->tmp, G->sums, G->pure,
                 G->reach.flag, G->reach.list, G->reach.count};
  for (int i = 0; i < 4; ++i)
    if (G->split[i]) cudaEventDestroy(G->split[i]);
  for (size_t i = 0; i < sizeof dev / sizeof *dev; ++i)
    cis_gpu_free(dev[i]);
  if (G->cb) cublasDestroy(G->cb);
  ci_irrep_gpu_free(G->ir);
  cis_free(G);
}

cis_status cis_ci_direct_gpu_set_integrals(cis_ci_direct_gpu *G) {
  if (!G) return cis_error(CIS_ERR_INVALID, "direct sigma on the GPU: set integrals: NULL argument");
  CIS_CUDA_CHECK(cudaDeviceSynchronize()); /* no product under way reads the old pair matrix */
  if (G->ir) return ci_irrep_gpu_set_pairs(G->ir);
  CIS_CUDA_CHECK(cudaMemcpy(G->g, G->v.g, (size_t)(G->v.npair * G->v.npair) * sizeof(double), cudaMemcpyHostToDevice));
  return CIS_OK;
}

/* The n links of each of ns strings (L, string S's at S * n) sorted by the
 * string they reach (stable: a string's diagonal links E_pp keep their
 * order; row: n links of scratch), into out at S * n + l, or transposed at
 * l * ns + S: the scatters
 * find a pass's links by binary search (ci_sigma.cu). The gathers add each
 * link to its own pair's row, so their D does not depend on the order. */
static void sort_links(const ci_link *L, cis_int ns, int n, int transposed, ci_link *row, ci_link *out) {
  for (cis_int S = 0; S < ns; ++S) {
    for (int l = 0; l < n; ++l) { /* insertion sort: n is the link count of one string (<= a few hundred) */
      const ci_link k = L[S * n + l];
      int i = l;
      for (; i > 0 && row[i - 1].str > k.str; --i) row[i] = row[i - 1];
      row[i] = k;
    }
    for (int l = 0; l < n; ++l) out[transposed ? (cis_int)l * ns + S : S * n + l] = row[l];
  }
}

/* The alpha links (string A's at A*nla) and the beta links transposed (link
 * l of string B at l*nsb + B, coalesced for a warp of consecutive B), both
 * sorted by the string they reach (sort_links). */
static cis_status upload_links(cis_ci_direct_gpu *G) {
  cis_status st;
  const ci_direct_view *v = &G->v;
  ci_link *t = NULL, *row = NULL;
  const cis_int na = v->nsa * v->nla, nb = v->nsb * v->nlb, most = na > nb ? na : nb;
  const int nl = v->nla > v->nlb ? v->nla : v->nlb;
  CIS_TRY(cis_alloc_array((void **)&t, most > 0 ? most : 1, sizeof(ci_link), "sorted link lists"));
  CIS_TRY(cis_alloc_array((void **)&row, nl > 0 ? nl : 1, sizeof(ci_link), "one string's links"));
  sort_links(v->alink, v->nsa, v->nla, 0, row, t);
  CIS_TRY(dev_upload((void **)&G->alink, t, (size_t)na * sizeof(ci_link), "alpha link lists"));
  if (v->nlb > 0) {
    sort_links(v->blink, v->nsb, v->nlb, 1, row, t);
    CIS_TRY(dev_upload((void **)&G->blink_t, t, (size_t)nb * sizeof(ci_link), "beta link lists"));
  }
  st = CIS_OK;
cleanup:
  cis_free(t);
  cis_free(row);
  return st;
}

/* The product's kernels from the option sigma (fused, unfused, auto; unset
 * = auto; cis_option_set checked the word): G->fused_nb and
 * info.sigma_kernel. Fused where asked for and possible
 * (cis_ci_sigma_fused_columns), else unfused with the reason. */
static cis_status choose_kernels(cis_ci_direct_gpu *G, int np) {
  char why[160] = "";
  const int want = cis_opt_is(CIS_OPT_SIGMA, "fused") ? 1 : cis_opt_is(CIS_OPT_SIGMA, "unfused") ? 0 : SIGMA_AUTO_FUSED;
  G->fused_nb = 0;
  if (want) {
    const cis_status st = cis_ci_sigma_fused_columns(np, &G->fused_nb, why, sizeof why);
    if (st != CIS_OK) return st;
  }
  if (G->fused_nb)
    snprintf(G->info.sigma_kernel, sizeof G->info.sigma_kernel, "fused: gather + FP64 MMA in shared memory, %d columns",
             G->fused_nb);
  else if (want)
    snprintf(G->info.sigma_kernel, sizeof G->info.sigma_kernel, "unfused (fused not possible: %s)", why);
  else
    snprintf(G->info.sigma_kernel, sizeof G->info.sigma_kernel, "unfused: gather + cuBLAS DGEMM");
  return CIS_OK;
}

/* The half sigma's scatter from the option half_scatter (all, reached,
 * auto; unset = auto): G->half_scatter. */
static cis_status choose_half_scatter(cis_ci_direct_gpu *G) {
  G->half_scatter = cis_opt_is(CIS_OPT_HALF_SCATTER, "all")       ? HALF_SCATTER_ALL
                    : cis_opt_is(CIS_OPT_HALF_SCATTER, "reached") ? HALF_SCATTER_REACHED
                                                                  : HALF_SCATTER_AUTO;
  return CIS_OK;
}

cis_status cis_ci_direct_gpu_create(const cis_ci_direct *D, const cis_ci_direct_gpu_opts *o_in, cis_ci_direct_gpu **out) {
  if (o_in && (o_in->work_bytes < 0 || o_in->vectors < 0 || o_in->max_k < 0))
    return cis_error(CIS_ERR_INVALID, "direct sigma on the GPU: negative option (work_bytes %lld, vectors %d, max_k %d)",
                     (long long)o_in->work_bytes, o_in->vectors, o_in->max_k);
  return ci_direct_gpu_create_part(D, o_in, 0, -1, out);
}

cis_status ci_direct_gpu_create_part(const cis_ci_direct *D, const cis_ci_direct_gpu_opts *o_in, cis_int lo, cis_int hi,
                                     cis_ci_direct_gpu **out) {
  cis_status st;
  cis_ci_direct_gpu *G = NULL;
  char why[160];
  if (!D || !out) return cis_error(CIS_ERR_INVALID, "direct sigma on the GPU: NULL argument");
  *out = NULL;
  const cis_ci_direct_gpu_opts o = o_in ? *o_in : ci_direct_gpu_opts_default();
  if (o.work_bytes < 0 || o.vectors < CI_GPU_VECTORS_HELD || o.max_k < 0)
    return cis_error(CIS_ERR_INVALID, "direct sigma on the GPU: negative option (work_bytes %lld, vectors %d, max_k %d)",
                     (long long)o.work_bytes, o.vectors, o.max_k);
  if (cis_gpu_count(why, sizeof why) == 0) return cis_error(CIS_ERR_NO_GPU, "%s", why);
  CIS_TRY(cis_alloc_zeroed((void **)&G, 1, sizeof *G, "GPU direct sigma"));
  G->host = D;
  ci_direct_get_view(D, &G->v);
  const ci_direct_view *v = &G->v;
  if (hi < 0) hi = v->nsa;
  if (lo < 0 || lo > hi || hi > v->nsa) {
    st = cis_error(CIS_ERR_INVALID, "direct sigma on the GPU: alpha strings %lld .. %lld of %lld", (long long)lo,
                   (long long)hi - 1, (long long)v->nsa);
    goto cleanup;
  }
  G->lo = lo, G->hi = hi;
  if (v->irrep) { /* blocked by irreps: compact vectors, none of the C1 workspace */
    CIS_TRY(ci_irrep_gpu_create(v->irrep, v->no_time_reversal, &o, lo, hi, &G->ir, &G->info));
    snprintf(G->info.sigma_kernel, sizeof G->info.sigma_kernel, "unfused: blocked by irreps, gather + DGEMM per pair irrep");
    cis_gpu_info gi;
    if (cis_gpu_get_info(&gi) == CIS_OK) snprintf(G->info.device, sizeof G->info.device, "%s", gi.name);
    *out = G;
    return CIS_OK;
  }
  const int np = (int)v->npair;
  const size_t la = (size_t)(v->nsa * v->nla) * sizeof(ci_link), lb = (size_t)(v->nsb * v->nlb) * sizeof(ci_link);
  const size_t gb = (size_t)np * (size_t)np * sizeof(double);
  if ((size_t)np * 32 * sizeof(double) > 200 * 1024) {
    st = cis_error(CIS_ERR_UNSUPPORTED, "direct sigma on the GPU: %d orbitals (%d pairs): the gather tile exceeds shared memory",
                   v->norb, np);
    goto cleanup;
  }
  CIS_TRY(choose_kernels(G, np));
  CIS_TRY(choose_half_scatter(G));
  CIS_TRY(upload_links(G));
  CIS_TRY(dev_upload((void **)&G->g, v->g, gb, "pair matrix"));
  if (v->project) {
    CIS_TRY(dev_upload((void **)&G->syma, v->syma, (size_t)v->nsa, "alpha string irreps"));
    CIS_TRY(dev_upload((void **)&G->symb, v->symb, (size_t)v->nsb, "beta string irreps"));
  }
  G->d = (cis_ci_sigma_dev){np, v->nsa, v->nsb, v->ndet, v->nla, v->nlb, G->alink, G->blink_t, v->project,
                            v->target, G->syma, G->symb};
  /* Workspace: D and X of `rows` (vector, alpha string) rows, 2 npair nsb
   * doubles each (fused: X alone, npair nsb), in what is free after the
   * caller's vectors and a margin. */
  size_t fr = 0, tot = 0;
  if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
    st = cis_error(CIS_ERR_CUDA, "direct sigma on the GPU: cudaMemGetInfo: %s", cudaGetErrorString(cudaGetLastError()));
    goto cleanup;
  }
  const int nvec = o.vectors > 0 ? o.vectors : o.vectors == CI_GPU_VECTORS_HELD ? 0 : 2, max_k = o.max_k > 0 ? o.max_k : 1;
  const int buffers = G->fused_nb ? 1 : 2; /* X, or D and X */
  const double row_bytes = buffers * np * (double)v->nsb * sizeof(double);
  const double vec_bytes = (double)nvec * (double)v->ndet * sizeof(double);
  double avail = (double)fr - vec_bytes - (double)SIGMA_DEVICE_MARGIN;
  if (o.work_bytes > 0 && (double)o.work_bytes < avail) avail = (double)o.work_bytes;
  double rows = floor(avail / row_bytes);
  if (rows > (double)(hi - lo) * max_k) rows = (double)(hi - lo) * max_k;
  if (rows * (double)v->nsb > (double)INT32_MAX) rows = floor((double)INT32_MAX / (double)v->nsb); /* cuBLAS int m */
  if (v->nelec > 0 && rows < 1) {
    st = cis_error(CIS_ERR_TOO_LARGE,
                   "direct sigma on the GPU: %lld determinants (%lld x %lld strings, %d pairs): one alpha string's %s "
                   "need %.3f GiB; the device has %.3f GiB free after the lists (%.3f GiB), of which %d vectors take "
                   "%.3f GiB and a margin %.3f GiB: %.3f GiB left%s",
                   (long long)v->ndet, (long long)v->nsa, (long long)v->nsb, np, buffers == 2 ? "D and X" : "X", gib(row_bytes), gib((double)fr),
                   gib((double)(la + lb + gb)), nvec, gib(vec_bytes), gib((double)SIGMA_DEVICE_MARGIN),
                   gib(avail > 0 ? avail : 0), o.work_bytes > 0 ? " (or opts.work_bytes)" : "");
    goto cleanup;
  }
  if (rows < 1) rows = 1;
  G->rows = (cis_int)rows;
  const size_t wbytes = (size_t)G->rows * (size_t)v->nsb * (size_t)np * sizeof(double);
  if (v->nelec > 0) {
    if (!G->fused_nb) CIS_TRY(dev_alloc((void **)&G->D, wbytes, "gather intermediate D"));
    CIS_TRY(dev_alloc((void **)&G->X, wbytes, "product X = g D"));
  }
  if (cublasCreate(&G->cb) != CUBLAS_STATUS_SUCCESS) {
    G->cb = NULL;
    st = cis_error(CIS_ERR_CUDA, "direct sigma on the GPU: cublasCreate failed");
    goto cleanup;
  }
  G->info.link_bytes = (int64_t)(la + lb + gb + (v->project ? v->nsa + v->nsb : 0));
  G->info.work_bytes = v->nelec > 0 ? (int64_t)(buffers * wbytes) : 0;
  G->info.free_bytes = (int64_t)fr;
  G->info.block = G->rows;
  G->info.passes = (hi - lo + G->rows - 1) / G->rows;
  cis_gpu_info gi;
  if (cis_gpu_get_info(&gi) == CIS_OK) snprintf(G->info.device, sizeof G->info.device, "%s", gi.name);
  *out = G;
  return CIS_OK;
cleanup:
  cis_ci_direct_gpu_free(G);
  return st;
}

void ci_direct_gpu_get_info(const cis_ci_direct_gpu *G, cis_ci_direct_gpu_info *info) { *info = G->info; }

/* Mark i of a timed sigma's pass (0 before the product, 1 after the gather
 * or the fused product, 2 after the DGEMM, 3 after the scatter). */
static void split_mark(cis_ci_direct_gpu *G, int i, cudaStream_t cs) {
  if (G->split[0]) cudaEventRecord(G->split[i], cs);
}

/* After a pass of a timed sigma: its phases added to G->split_acc. */
static cis_status split_add(cis_ci_direct_gpu *G) {
  if (!G->split[0]) return CIS_OK;
  CIS_CUDA_CHECK(cudaEventSynchronize(G->split[3]));
  for (int i = 0; i < 3; ++i) {
    float ms = 0;
    CIS_CUDA_CHECK(cudaEventElapsedTime(&ms, G->split[i], G->split[i + 1]));
    G->split_acc[i] += ms;
  }
  return CIS_OK;
}

/* X = 1/2 g D of one pass (half: the packed columns B <= A of the rows
 * a0 .. a0+r-1, one vector; else gv vectors), m columns: fused, or gather +
 * DGEMM (column-major: X^T (m x np) = D^T (m x np) * g (np x np)). */
static cis_status product(cis_ci_direct_gpu *G, int half, const double *c, int gv, cis_int a0, cis_int r, int m,
                          cudaStream_t cs) {
  const int np = (int)G->v.npair;
  const double one = 1.0, zero = 0.0;
  cis_status st;
  split_mark(G, 0, cs);
  if (G->fused_nb) {
    st = half ? cis_launch_ci_sigma_fused_half(&G->d, G->g, G->fused_nb, c, a0, r, G->X, cs)
              : cis_launch_ci_sigma_fused(&G->d, G->g, G->fused_nb, c, gv, a0, r, G->X, cs);
    if (st != CIS_OK) return st;
    split_mark(G, 1, cs);
  } else {
    st = half ? cis_launch_ci_sigma_gather_half(&G->d, c, a0, r, G->D, cs)
              : cis_launch_ci_sigma_gather(&G->d, c, gv, a0, r, G->D, cs);
    if (st != CIS_OK) return st;
    split_mark(G, 1, cs);
    CIS_CUBLAS_CHECK(cublasDgemm(G->cb, CUBLAS_OP_N, CUBLAS_OP_N, m, np, np, &one, G->D, m, G->g, np, &zero, G->X, m));
  }
  split_mark(G, 2, cs);
  return CIS_OK;
}

/* Whether the half scatter of the pass a0 .. a0+r-1 runs over the reached
 * pairs only (the file's comment), its scratch (8 bytes a string) made at
 * the first such pass; where the device has no room for it, the every-pair
 * scatter (the same sigma). */
static int half_reached(cis_ci_direct_gpu *G, cis_int a0, cis_int r) {
  const int last = a0 + r == G->hi;
  if (G->half_scatter == HALF_SCATTER_ALL || a0 == G->lo || (last && G->v.project) ||
      (G->half_scatter == HALF_SCATTER_AUTO && 2 * (int64_t)cis_ci_half_reach_bound(&G->d, r) >= G->v.nsa))
    return 0;
  if (G->reach.count) return 1;
  const size_t ns = (size_t)G->v.nsa;
  if (dev_alloc((void **)&G->reach.flag, ns * sizeof(unsigned), "strings a pass reaches (flags)") == CIS_OK &&
      dev_alloc((void **)&G->reach.list, ns * sizeof(cis_int), "strings a pass reaches (list)") == CIS_OK &&
      dev_alloc((void **)&G->reach.count, sizeof(unsigned), "strings a pass reaches (count)") == CIS_OK)
    return 1;
  cis_clear_error(); /* none half made: the next pass tries again */
  cis_gpu_free(G->reach.flag);
  cis_gpu_free(G->reach.list);
  G->reach = (cis_half_reach){NULL, NULL, NULL};
  return 0;
}

/* The half sigma for c(A,B) = t c(B,A): blocks of whole alpha rows whose
 * packed lower-triangle columns fit the workspace (rows * nsb columns). */
static cis_status sigma_half(cis_ci_direct_gpu *G, double t, const double *d_C, double *d_S, cudaStream_t cs) {
  cis_status st;
  const cis_int lo = G->lo, hi = G->hi, cap = G->rows * G->v.nsb;
  for (cis_int a0 = lo, r; a0 < hi; a0 += r) {
    const cis_int tri0 = a0 * (a0 + 1) / 2;
    for (r = 1; a0 + r < hi && (a0 + r + 1) * (a0 + r + 2) / 2 - tri0 <= cap; ++r) {}
    const int m = (int)((a0 + r) * (a0 + r + 1) / 2 - tri0);
    if ((st = product(G, 1, d_C, 1, a0, r, m, cs)) != CIS_OK) return st;
    const int reached = half_reached(G, a0, r);
    st = reached ? cis_launch_ci_sigma_scatter_half_reached(&G->d, G->X, a0, r, t, &G->reach, d_S, cs)
                 : cis_launch_ci_sigma_scatter_half(&G->d, G->X, a0, r, t, a0 == lo, a0 + r == hi, d_S, cs);
    if (st != CIS_OK) return st;
    G->info.reached_passes += reached;
    split_mark(G, 3, cs);
    if ((st = split_add(G)) != CIS_OK) return st;
  }
  G->info.half_sigmas++;
  return CIS_OK;
}

/* +1 / -1 when the device vector c is (anti)symmetric to tol (squared,
 * relative), else 0; *exact when exactly so. Synchronizes cs. */
static cis_status parity(cis_ci_direct_gpu *G, const double *c, double tol, cudaStream_t cs, int *par, int *exact) {
  cis_status st;
  double h[3];
  *par = *exact = 0;
  if (!G->sums && (st = dev_alloc((void **)&G->sums, 3 * sizeof(double), "parity sums")) != CIS_OK) return st;
  if ((st = cis_launch_ci_parity_sums(c, G->v.nsa, G->sums, cs)) != CIS_OK) return st;
  CIS_CUDA_CHECK(cudaMemcpyAsync(h, G->sums, sizeof h, cudaMemcpyDeviceToHost, cs));
  CIS_CUDA_CHECK(cudaStreamSynchronize(cs));
  *par = h[1] <= tol * h[0] ? 1 : h[2] <= tol * h[0] ? -1 : 0; /* NaN: 0 */
  *exact = *par && (*par > 0 ? h[1] : h[2]) == 0;
  return CIS_OK;
}

/* The pure-part scratch (ndet doubles, made once); NULL when the device has
 * no room (then the full sigma). */
static double *pure_scratch(cis_ci_direct_gpu *G) {
  if (!G->pure && dev_alloc((void **)&G->pure, (size_t)G->v.ndet * sizeof(double), "pure part of a CI vector") != CIS_OK) {
    cis_clear_error();
    G->pure = NULL;
  }
  return G->pure;
}

cis_status cis_ci_direct_gpu_correct(void *ctx, void *t, cis_stream s) {
  cis_ci_direct_gpu *G = ctx;
  cis_status st;
  int par, exact;
  if (!G || !t || !G->v.one_set || G->v.no_time_reversal || G->v.nsa == 0) return CIS_OK;
  cudaStream_t cs = (cudaStream_t)s;
  if ((st = parity(G, t, CI_PURE_TOL, cs, &par, &exact)) != CIS_OK) return st; /* as cis_ci_direct_correct_c1 */
  if (par && !exact) return cis_launch_ci_purify(t, G->v.nsa, par, t, cs);
  return CIS_OK;
}

cis_status cis_ci_direct_gpu_sigma(cis_ci_direct_gpu *G, int k, const double *d_C, double *d_S, cis_stream s) {
  if (!G || !d_C || !d_S || k < 1)
    return cis_error(CIS_ERR_INVALID, "direct sigma on the GPU: NULL argument or k = %d < 1", k);
  cudaStream_t cs = (cudaStream_t)s;
  const cis_int n = G->v.ndet, nsa = G->v.nsa, nsb = G->v.nsb;
  cis_status st;
  if (G->ir) return ci_irrep_gpu_sigma_c1(G->ir, k, d_C, d_S, cs, &G->info); /* counts its own vectors */
  G->info.sigma_vectors += k;
  if (G->v.nelec == 0 || G->lo == G->hi) { /* the vacuum (H = 0, electronic), or a part without alpha strings */
    CIS_CUDA_CHECK(cudaMemsetAsync(d_S, 0, (size_t)(n * k) * sizeof(double), cs));
    return CIS_OK;
  }
  CIS_CUBLAS_CHECK(cublasSetStream(G->cb, cs));
  if (k == 1 && G->v.one_set && !G->v.no_time_reversal) { /* (anti)symmetric vector: the half sigma */
    int par, exact;
    if ((st = parity(G, d_C, CI_PARITY_TOL, cs, &par, &exact)) != CIS_OK) return st; /* Davidson's round-off */
    if (par && !exact && G->input_scratch) { /* the caller's copy: made pure in place */
      if ((st = cis_launch_ci_purify(d_C, nsa, par, (double *)d_C, cs)) != CIS_OK) return st;
      return sigma_half(G, par, d_C, d_S, cs);
    }
    if (par && !exact && pure_scratch(G)) { /* its pure part (sigma.c's transpose_parity) */
      if ((st = cis_launch_ci_purify(d_C, nsa, par, G->pure, cs)) != CIS_OK) return st;
      return sigma_half(G, par, G->pure, d_S, cs);
    }
    if (par && exact) return sigma_half(G, par, d_C, d_S, cs);
  }
  /* g vectors of nr alpha strings per pass */
  const cis_int na = G->hi - G->lo; /* the alpha strings of this sigma (all of them unless a part's) */
  const cis_int gv = G->rows >= na ? (G->rows / na < k ? G->rows / na : k) : 1;
  const cis_int nr = G->rows >= na ? na : G->rows;
  for (cis_int v0 = 0; v0 < k; v0 += gv) {
    const int g = (int)(k - v0 < gv ? k - v0 : gv);
    const double *c = d_C + v0 * n;
    double *sg = d_S + v0 * n;
    for (cis_int a0 = G->lo; a0 < G->hi; a0 += nr) {
      const cis_int r = G->hi - a0 < nr ? G->hi - a0 : nr;
      const int m = (int)((cis_int)g * r * nsb);
      if ((st = product(G, 0, c, g, a0, r, m, cs)) != CIS_OK) return st;
      if ((st = cis_launch_ci_sigma_scatter(&G->d, G->X, g, a0, r, a0 == G->lo, a0 + r == G->hi, sg, cs)) != CIS_OK)
        return st;
      split_mark(G, 3, cs);
      if ((st = split_add(G)) != CIS_OK) return st;
    }
  }
  return CIS_OK;
}

/* Operator callback: y = alpha H x + beta y. */
static cis_status gpu_apply(void *ctx, double alpha, const void *x, double beta, void *y, cis_stream s) {
  cis_ci_direct_gpu *G = ctx;
  cis_status st;
  if (alpha == 1.0 && beta == 0.0) return cis_ci_direct_gpu_sigma(G, 1, x, y, s);
  if (!G->tmp) CIS_TRY(dev_alloc((void **)&G->tmp, (size_t)G->v.ndet * sizeof(double), "sigma product"));
  CIS_TRY(cis_ci_direct_gpu_sigma(G, 1, x, G->tmp, s));
  CIS_TRY(cis_launch_ci_axpby(G->v.ndet, alpha, G->tmp, beta, y, (cudaStream_t)s));
  return CIS_OK;
cleanup:
  return st;
}

cis_status ci_direct_gpu_operator(cis_ci_direct_gpu *G, const double *diag, cis_operator **out) {
  cis_status st;
  cis_operator *op = NULL;
  if (!G || !out) return cis_error(CIS_ERR_INVALID, "direct GPU operator: NULL argument");
  *out = NULL;
  CIS_TRY(cis_operator_from_callback(G->v.ndet, G->v.ndet, CIS_F64, CIS_MEM_DEVICE, gpu_apply, G, NULL, &op));
  if (diag) CIS_TRY(cis_operator_set_diagonal(op, diag));
  *out = op;
  return CIS_OK;
cleanup:
  cis_operator_free(op);
  return st;
}

/* One more sigma of the device vector dc into ds with every pass's phases
 * marked by events: info.split_ms[half] = their sums (the passes then wait
 * for each other; not part of the medians). */
static cis_status time_split(cis_ci_direct_gpu *G, const double *dc, double *ds) {
  cis_status st;
  const cis_int half_before = G->info.half_sigmas;
  for (int i = 0; i < 4; ++i)
    if (!G->split[i] && cudaEventCreate(&G->split[i]) != cudaSuccess) {
      G->split[i] = NULL;
      return cis_error(CIS_ERR_CUDA, "direct GPU sigma timing: event creation failed");
    }
  memset(G->split_acc, 0, sizeof G->split_acc);
  st = cis_ci_direct_gpu_sigma(G, 1, dc, ds, NULL);
  if (st == CIS_OK) memcpy(G->info.split_ms[G->info.half_sigmas != half_before], G->split_acc, sizeof G->split_acc);
  for (int i = 0; i < 4; ++i) {
    cudaEventDestroy(G->split[i]);
    G->split[i] = NULL;
  }
  return st;
}

cis_status cis_ci_direct_gpu_time_sigma(cis_ci_direct_gpu *G, const double *c, int runs, double *ms_median) {
  cis_status st = CIS_OK;
  double *dc = NULL, *ds = NULL, *h = NULL, times[64];
  cudaEvent_t e0 = NULL, e1 = NULL;
  if (!G || !ms_median || runs < 1) return cis_error(CIS_ERR_INVALID, "direct GPU sigma timing: NULL argument or runs < 1");
  if (runs > 64) runs = 64;
  if (G->ir) return ci_irrep_gpu_time(G->ir, c, 0, runs, ms_median, &G->info);
  const cis_int n = G->v.ndet;
  CIS_TRY(dev_alloc((void **)&dc, (size_t)n * sizeof(double), "timing vector"));
  CIS_TRY(dev_alloc((void **)&ds, (size_t)n * sizeof(double), "timing vector"));
  if (!c) { /* a fixed pseudo-random vector (xorshift), uniform in [-1, 1) */
    CIS_TRY(cis_alloc_array((void **)&h, n, sizeof(double), "timing vector"));
    ci_fill_random(h, n);
    c = h;
  }
  if (cudaMemcpy(dc, c, (size_t)n * sizeof(double), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
    st = cis_error(CIS_ERR_CUDA, "direct GPU sigma timing: copy or event creation failed");
    goto cleanup;
  }
  const cis_int before = G->info.sigma_vectors, half_before = G->info.half_sigmas;
  CIS_TRY(cis_ci_direct_gpu_sigma(G, 1, dc, ds, NULL)); /* warm-up */
  for (int r = 0; r < runs; ++r) {
    float ms = 0;
    cudaEventRecord(e0, 0);
    CIS_TRY(cis_ci_direct_gpu_sigma(G, 1, dc, ds, NULL));
    cudaEventRecord(e1, 0);
    if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess) {
      st = cis_error(CIS_ERR_CUDA, "direct GPU sigma timing: %s", cudaGetErrorString(cudaGetLastError()));
      goto cleanup;
    }
    times[r] = ms;
  }
  CIS_TRY(time_split(G, dc, ds));
  G->info.sigma_vectors = before; /* timing products are not the caller's */
  G->info.half_sigmas = half_before;
  *ms_median = cis_median(times, runs);
cleanup:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cis_gpu_free(dc);
  cis_gpu_free(ds);
  cis_free(h);
  return st;
}

void ci_direct_gpu_input_scratch(cis_ci_direct_gpu *G) { G->input_scratch = 1; }
ci_irrep_gpu *ci_direct_gpu_irrep(cis_ci_direct_gpu *G) { return G->ir; }
cis_ci_direct_gpu_info *ci_direct_gpu_info_ref(cis_ci_direct_gpu *G) { return &G->info; }
const cis_ci_direct *ci_direct_gpu_host(const cis_ci_direct_gpu *G) { return G->host; }
