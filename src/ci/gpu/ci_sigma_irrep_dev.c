/* ci_sigma_irrep_dev.c: the GPU direct CI sigma blocked by irreps on compact
 * device vectors (layout and scheme in ci_sigma_irrep.h and
 * src/ci/sigma_irrep.h; kernels in ci_sigma_irrep.cu; CPU reference
 * ci_irrep_sigma_compact).
 *
 *   create: upload the host ci_irrep_sigma's arrays (strings' irreps, beta
 *           strings by irrep, links sorted by pair irrep, compact row offsets,
 *           the blocks of g) plus three small tables made here (rank of each
 *           alpha string in its irrep; for one string set the time-reversal
 *           widths and column offsets); plan the passes (consecutive alpha
 *           strings whose D and X fit the free device memory after the
 *           caller's compact vectors), full and half layouts;
 *   sigma:  per pass gather D, one cuBLAS DGEMM per pair irrep
 *           (X_h^T = D_h^T g_h^T in the column-major view: g_h stored
 *           row-major is g_h^T column-major), scatter; the half sigma when
 *           one MS2 = 0 vector is exactly (anti)symmetric (checked on the
 *           device). */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_internal.h"
#include "ci/gpu/ci_sigma.h"
#include "ci/gpu/ci_sigma_irrep.h"
#include "ci/sigma_irrep.h"
#include "cisparse/operator.h"
#include "cisparse/util.h"
#include "core/internal.h"
#include "kernels/kernel_common.cuh"
#include "gpu/cuda_check.h"
#include "gpu/gpu_mem.h"


/* Device bytes kept free beside the workspace (cuBLAS workspace, the
 * Davidson backend's scratch, allocator slack), as ci_sigma_dev.c. */
#define IR_DEVICE_MARGIN ((int64_t)512 << 20)

struct ci_irrep_gpu {
  const ci_irrep_sigma *R;
  ci_irrep_view hv;
  ci_irrep_dev d;
  void *dev[16];              /* the device arrays of d, gblk and flags, freed together */
  int ndev;
  double *gblk, *D, *X;       /* g blocks; workspace (wdoubles each) */
  double *cc, *sc, *tmp;      /* compact temporaries (lazily): C1-order path, operator alpha/beta */
  int *flags;                 /* parity answer (2 device ints) */
  cublasHandle_t cb;
  ci_irrep_pass *full, *half; /* the pass plans */
  int nfull, nhalf, no_tr, maxnp;
  cis_int maxnbg;
};

static double gib(double b) { return b / 1073741824.0; }

/* Device memory for the blocked sigma, a copy of h unless h is NULL (the
 * allocator of gpu/gpu_mem.h; 0 bytes get 8, uninitialised), remembered in
 * I's list when I is given (freed with I). */
static cis_status ir_upload(ci_irrep_gpu *I, void **d, const void *h, size_t bytes, const char *what) {
  if (bytes == 0) {
    bytes = 8;
    h = NULL;
  }
  cis_status st = cis_gpu_alloc_copy_for(d, h, bytes, "blocked sigma on the GPU", what);
  if (st == CIS_OK && I) I->dev[I->ndev++] = *d;
  return st;
}
static cis_status ir_alloc(ci_irrep_gpu *I, void **d, size_t bytes, const char *what) {
  return ir_upload(I, d, NULL, bytes, what);
}

cis_status ci_irrep_gpu_set_pairs(ci_irrep_gpu *I) {
  cis_int gtot = 0;
  for (int h = 0; h < CI_IRREPS; ++h) gtot += (cis_int)I->hv.npi[h] * I->hv.npi[h];
  CIS_CUDA_CHECK(cudaMemcpy(I->gblk, I->hv.gblk, (size_t)gtot * sizeof(double), cudaMemcpyHostToDevice));
  return CIS_OK;
}

void ci_irrep_gpu_free(ci_irrep_gpu *I) {
  if (!I) return;
  for (int i = 0; i < I->ndev; ++i) cis_gpu_free(I->dev[i]);
  void *more[] = {I->D, I->X, I->cc, I->sc, I->tmp};
  for (size_t i = 0; i < sizeof more / sizeof *more; ++i)
    cis_gpu_free(more[i]);
  if (I->cb) cublasDestroy(I->cb);
  free(I->full);
  free(I->half);
  cis_free(I);
}

cis_int ci_irrep_gpu_size(const ci_irrep_gpu *I) { return I->hv.nsym; }

/* width(A, gb) and cum(A, gb) on the host, as the kernels read them. */
static cis_int h_width(const ci_irrep_view *v, const int32_t *pc, int half, cis_int A, int gb) {
  return half ? pc[A * CI_IRREPS + gb] : v->nbg[gb];
}

/* Passes of consecutive alpha strings with D (and X) of at most cap doubles
 * and every block's columns within cuBLAS's int; *out malloc'd. */
static cis_status plan_passes(const ci_irrep_view *v, const int32_t *arank, const int32_t *pc, const int64_t *cumh,
                              int half, double cap, cis_int lo, cis_int hi, ci_irrep_pass **out, int *nout,
                              double *most) {
  const int t = v->target;
  int n = 0, room = 16;
  ci_irrep_pass *P = malloc((size_t)room * sizeof *P);
  if (!P) return cis_error(CIS_ERR_ALLOC, "blocked sigma on the GPU: pass plan");
  *most = 0;
  for (cis_int a0 = lo; a0 < hi;) {
    double tot = 0, cols[CI_IRREPS] = {0};
    cis_int a1 = a0;
    for (; a1 < hi; ++a1) {
      const int ga = v->syma[a1];
      double e = 0, c[CI_IRREPS];
      for (int h = 0; h < CI_IRREPS; ++h) c[h] = cols[h];
      for (int gb = 0; gb < CI_IRREPS; ++gb) {
        const int h = ga ^ gb ^ t;
        const double w = (double)h_width(v, pc, half, a1, gb);
        e += (double)v->npi[h] * w;
        c[h] += w;
      }
      int over = tot + e > cap;
      for (int h = 0; h < CI_IRREPS; ++h) over |= c[h] > (double)INT32_MAX;
      if (over) {
        if (a1 == a0) {
          free(P);
          return cis_error(CIS_ERR_TOO_LARGE,
                           "blocked sigma on the GPU: alpha string %lld alone needs %.3f GiB of D and X, %.3f GiB "
                           "available", (long long)a1, gib(16.0 * e), gib(16.0 * cap));
        }
        break;
      }
      tot += e;
      for (int h = 0; h < CI_IRREPS; ++h) cols[h] = c[h];
    }
    if (n == room) {
      ci_irrep_pass *q = realloc(P, (size_t)(room *= 2) * sizeof *P);
      if (!q) { free(P); return cis_error(CIS_ERR_ALLOC, "blocked sigma on the GPU: pass plan"); }
      P = q;
    }
    ci_irrep_pass *p = &P[n++];
    memset(p, 0, sizeof *p);
    p->a0 = a0;
    p->a1 = a1;
    p->half = half;
    cis_int first[CI_IRREPS];
    int64_t gcols[CI_IRREPS][CI_IRREPS];
    for (int g = 0; g < CI_IRREPS; ++g) {
      first[g] = -1;
      for (int gb = 0; gb < CI_IRREPS; ++gb) gcols[g][gb] = 0;
    }
    for (cis_int A = a0; A < a1; ++A) {
      const int ga = v->syma[A];
      if (first[ga] < 0) first[ga] = A;
      for (int gb = 0; gb < CI_IRREPS; ++gb) gcols[ga][gb] += h_width(v, pc, half, A, gb);
    }
    int64_t base = 0;
    for (int h = 0; h < CI_IRREPS; ++h) {
      int64_t c = 0;
      for (int ga = 0; ga < CI_IRREPS; ++ga) {
        const int gb = ga ^ h ^ t;
        const int64_t cum0 = first[ga] < 0 ? 0
                             : half        ? cumh[first[ga] * CI_IRREPS + gb]
                                           : (int64_t)arank[first[ga]] * v->nbg[gb];
        p->cadj[ga][gb] = c - cum0;
        c += gcols[ga][gb];
      }
      p->m[h] = c;
      p->dbase[h] = base;
      base += (int64_t)v->npi[h] * c;
    }
    if ((double)base > *most) *most = (double)base;
    a0 = a1;
  }
  *out = P;
  *nout = n;
  return CIS_OK;
}

cis_status ci_irrep_gpu_create(const void *Rv, int no_time_reversal, const cis_ci_direct_gpu_opts *o, cis_int lo,
                               cis_int hi, ci_irrep_gpu **out, cis_ci_direct_gpu_info *info) {
  cis_status st;
  ci_irrep_gpu *I = NULL;
  int32_t *arank = NULL, *pc = NULL;
  int64_t *cumh = NULL;
  *out = NULL;
  CIS_TRY(cis_alloc_zeroed((void **)&I, 1, sizeof *I, "GPU blocked sigma"));
  I->R = Rv;
  ci_irrep_get_view(I->R, &I->hv);
  const ci_irrep_view *v = &I->hv;
  const cis_int nsa = v->nsa, nsb = v->nsb;
  I->no_tr = no_time_reversal || !v->one_set;
  I->maxnp = 0;
  I->maxnbg = 1;
  cis_int gtot = 0;
  for (int h = 0; h < CI_IRREPS; ++h) {
    if (v->npi[h] > I->maxnp) I->maxnp = v->npi[h];
    if (v->nbg[h] > I->maxnbg) I->maxnbg = v->nbg[h];
    gtot += (cis_int)v->npi[h] * v->npi[h];
  }
  if ((size_t)I->maxnp * 32 * sizeof(double) > 200 * 1024) {
    st = cis_error(CIS_ERR_UNSUPPORTED, "blocked sigma on the GPU: %d orbital pairs in one pair irrep: the gather tile "
                   "exceeds shared memory", I->maxnp);
    goto cleanup;
  }
  /* host tables: rank of A in its irrep; one string set: widths (beta strings
   * of irrep gb with address <= A) and the half layout's column offsets */
  CIS_TRY(cis_alloc_array((void **)&arank, nsa > 0 ? nsa : 1, sizeof(int32_t), "alpha ranks"));
  {
    cis_int cnt[CI_IRREPS] = {0};
    for (cis_int A = 0; A < nsa; ++A) arank[A] = (int32_t)cnt[v->syma[A]]++;
  }
  if (v->one_set) {
    CIS_TRY(cis_alloc_array((void **)&pc, nsa * CI_IRREPS, sizeof(int32_t), "half widths"));
    CIS_TRY(cis_alloc_array((void **)&cumh, nsa * CI_IRREPS, sizeof(int64_t), "half column offsets"));
    int32_t run[CI_IRREPS] = {0};
    int64_t cum[CI_IRREPS][CI_IRREPS];
    memset(cum, 0, sizeof cum);
    for (cis_int A = 0; A < nsa; ++A) {
      run[v->symb[A]]++;
      const int ga = v->syma[A];
      for (int gb = 0; gb < CI_IRREPS; ++gb) {
        pc[A * CI_IRREPS + gb] = run[gb];
        cumh[A * CI_IRREPS + gb] = cum[ga][gb];
        cum[ga][gb] += run[gb];
      }
    }
  }
  /* uploads */
  ci_irrep_dev *d = &I->d;
  d->target = v->target;
  d->nla = v->nla;
  d->nlb = v->nlb;
  d->nsa = nsa;
  d->nsb = nsb;
  d->nsym = v->nsym;
  for (int h = 0; h < CI_IRREPS; ++h) d->npi[h] = v->npi[h], d->nbg[h] = v->nbg[h];
  for (int h = 0; h <= CI_IRREPS; ++h) d->bstart[h] = v->bstart[h];
  CIS_TRY(ir_upload(I, (void **)&d->syma, v->syma, (size_t)nsa, "alpha string irreps"));
  CIS_TRY(ir_upload(I, (void **)&d->symb, v->symb, (size_t)nsb, "beta string irreps"));
  CIS_TRY(ir_upload(I, (void **)&d->blist, v->blist, (size_t)nsb * sizeof(int32_t), "beta strings by irrep"));
  CIS_TRY(ir_upload(I, (void **)&d->bpos, v->bpos, (size_t)nsb * sizeof(int32_t), "beta string positions"));
  CIS_TRY(ir_upload(I, (void **)&d->alink, v->alink, (size_t)(nsa * v->nla) * sizeof(ci_link), "alpha links"));
  CIS_TRY(ir_upload(I, (void **)&d->blink, v->blink, (size_t)(nsb * v->nlb) * sizeof(ci_link), "beta links"));
  CIS_TRY(ir_upload(I, (void **)&d->astart, v->astart, (size_t)nsa * 9 * sizeof(int32_t), "alpha link offsets"));
  CIS_TRY(ir_upload(I, (void **)&d->bstart_l, v->bstart_l, (size_t)nsb * 9 * sizeof(int32_t), "beta link offsets"));
  CIS_TRY(ir_upload(I, (void **)&d->off, v->off, (size_t)(nsa + 1) * sizeof(cis_int), "compact row offsets"));
  CIS_TRY(ir_upload(I, (void **)&d->arank, arank, (size_t)nsa * sizeof(int32_t), "alpha ranks"));
  if (v->one_set) {
    CIS_TRY(ir_upload(I, (void **)&d->pc, pc, (size_t)nsa * CI_IRREPS * sizeof(int32_t), "half widths"));
    CIS_TRY(ir_upload(I, (void **)&d->cumh, cumh, (size_t)nsa * CI_IRREPS * sizeof(int64_t), "half column offsets"));
  }
  CIS_TRY(ir_upload(I, (void **)&I->gblk, v->gblk, (size_t)gtot * sizeof(double), "pair matrix blocks"));
  CIS_TRY(ir_alloc(I, (void **)&I->flags, 2 * sizeof(int), "parity flags"));
  /* workspace: D and X of one pass in what is free after the caller's
   * compact vectors and a margin */
  size_t fr = 0, tot = 0;
  if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
    st = cis_error(CIS_ERR_CUDA, "blocked sigma on the GPU: cudaMemGetInfo: %s", cudaGetErrorString(cudaGetLastError()));
    goto cleanup;
  }
  const int nvec = o->vectors > 0 ? o->vectors : o->vectors == CI_GPU_VECTORS_HELD ? 0 : 2;
  const double vec_bytes = (double)nvec * (double)v->nsym * sizeof(double);
  double avail = (double)fr - vec_bytes - (double)IR_DEVICE_MARGIN;
  if (o->work_bytes > 0 && (double)o->work_bytes < avail) avail = (double)o->work_bytes;
  if (avail < 16.0) {
    st = cis_error(CIS_ERR_TOO_LARGE,
                   "direct sigma on the GPU: %lld determinants of the target irrep (compact vectors): %.3f GiB free, "
                   "%d vectors take %.3f GiB and a margin %.3f GiB: no room for D and X",
                   (long long)v->nsym, gib((double)fr), nvec, gib(vec_bytes), gib((double)IR_DEVICE_MARGIN));
    goto cleanup;
  }
  double most_full = 0, most_half = 0;
  CIS_TRY(plan_passes(v, arank, pc, cumh, 0, floor(avail / 16.0), lo, hi, &I->full, &I->nfull, &most_full));
  if (!I->no_tr)
    CIS_TRY(plan_passes(v, arank, pc, cumh, 1, floor(avail / 16.0), lo, hi, &I->half, &I->nhalf, &most_half));
  const double wd = most_full > most_half ? most_full : most_half;
  CIS_TRY(ir_alloc(NULL, (void **)&I->D, (size_t)wd * sizeof(double), "gather intermediate D"));
  CIS_TRY(ir_alloc(NULL, (void **)&I->X, (size_t)wd * sizeof(double), "product X = g D"));
  if (cublasCreate(&I->cb) != CUBLAS_STATUS_SUCCESS) {
    I->cb = NULL;
    st = cis_error(CIS_ERR_CUDA, "blocked sigma on the GPU: cublasCreate failed");
    goto cleanup;
  }
  cis_int block = 0;
  for (int p = 0; p < I->nfull; ++p)
    if (I->full[p].a1 - I->full[p].a0 > block) block = I->full[p].a1 - I->full[p].a0;
  info->link_bytes = (int64_t)(nsa * v->nla + nsb * v->nlb) * (int64_t)sizeof(ci_link) +
                     (int64_t)(nsa + nsb) * (9 * 4 + 5) + (int64_t)(nsa + 1) * 8 + (int64_t)gtot * 8 +
                     (v->one_set ? (int64_t)nsa * CI_IRREPS * 12 : 0);
  info->work_bytes = (int64_t)(2.0 * wd * sizeof(double));
  info->free_bytes = (int64_t)fr;
  info->block = block;
  info->passes = I->nfull;
  free(arank);
  free(pc);
  free(cumh);
  *out = I;
  return CIS_OK;
cleanup:
  free(arank);
  free(pc);
  free(cumh);
  ci_irrep_gpu_free(I);
  return st;
}

/* One vector: the passes of the layout (tr = 0 full, else half with t = tr). */
static cis_status sigma_one(ci_irrep_gpu *I, int tr, const double *cc, double *sc, cudaStream_t cs) {
  cis_status st;
  const ci_irrep_pass *P = tr ? I->half : I->full;
  const int np = tr ? I->nhalf : I->nfull;
  const double one = 1.0, zero = 0.0;
  if (np == 0) { /* a part without alpha strings contributes nothing */
    CIS_CUDA_CHECK(cudaMemsetAsync(sc, 0, (size_t)I->hv.nsym * sizeof(double), cs));
    return CIS_OK;
  }
  for (int i = 0; i < np; ++i) {
    const ci_irrep_pass *p = &P[i];
    if ((st = cis_launch_ci_irrep_gather(&I->d, p, cc, I->D, I->maxnp, I->maxnbg, cs)) != CIS_OK) return st;
    for (int h = 0; h < CI_IRREPS; ++h) { /* X_h^T (m x nph) = D_h^T (m x nph) g_h^T */
      const int nph = I->hv.npi[h], m = (int)p->m[h];
      if (nph == 0 || m == 0) continue;
      CIS_CUBLAS_CHECK(cublasDgemm(I->cb, CUBLAS_OP_N, CUBLAS_OP_N, m, nph, nph, &one, I->D + p->dbase[h], m,
                              I->gblk + I->hv.goff[h], nph, &zero, I->X + p->dbase[h], m));
    }
    st = tr ? cis_launch_ci_irrep_scatter_half(&I->d, p, I->X, (double)tr, i == 0, sc, I->maxnbg, cs)
            : cis_launch_ci_irrep_scatter(&I->d, p, I->X, i == 0, sc, I->maxnbg, cs);
    if (st != CIS_OK) return st;
  }
  return CIS_OK;
}

cis_status ci_irrep_gpu_sigma(ci_irrep_gpu *I, int k, const double *d_C, double *d_S, cudaStream_t cs,
                              cis_ci_direct_gpu_info *info) {
  cis_status st;
  const cis_int n = I->hv.nsym;
  CIS_CUBLAS_CHECK(cublasSetStream(I->cb, cs));
  info->sigma_vectors += k;
  for (int v = 0; v < k; ++v) {
    int tr = 0;
    if (k == 1 && !I->no_tr) { /* (anti)symmetric vector: the half sigma */
      int flags[2] = {0, 0};
      if ((st = cis_launch_ci_irrep_parity(&I->d, d_C, I->flags, I->maxnbg, cs)) != CIS_OK) return st;
      CIS_CUDA_CHECK(cudaMemcpyAsync(flags, I->flags, sizeof flags, cudaMemcpyDeviceToHost, cs));
      CIS_CUDA_CHECK(cudaStreamSynchronize(cs));
      tr = flags[0] ? 1 : flags[1] ? -1 : 0;
    }
    if ((st = sigma_one(I, tr, d_C + (cis_int)v * n, d_S + (cis_int)v * n, cs)) != CIS_OK) return st;
    info->half_sigmas += tr != 0;
  }
  return CIS_OK;
}

cis_status ci_irrep_gpu_sigma_c1(ci_irrep_gpu *I, int k, const double *d_C, double *d_S, cudaStream_t cs,
                                 cis_ci_direct_gpu_info *info) {
  cis_status st;
  const cis_int n = I->hv.nsa * I->hv.nsb, nc = I->hv.nsym;
  if (!I->cc) CIS_TRY(ir_alloc(NULL, (void **)&I->cc, (size_t)nc * sizeof(double), "compact vector"));
  if (!I->sc) CIS_TRY(ir_alloc(NULL, (void **)&I->sc, (size_t)nc * sizeof(double), "compact sigma"));
  for (int v = 0; v < k; ++v) {
    CIS_TRY(cis_launch_ci_irrep_compress(&I->d, d_C + (cis_int)v * n, I->cc, I->maxnbg, cs));
    CIS_TRY(ci_irrep_gpu_sigma(I, 1, I->cc, I->sc, cs, info));
    CIS_TRY(cis_launch_ci_irrep_expand(&I->d, I->sc, d_S + (cis_int)v * n, cs));
  }
  return CIS_OK;
cleanup:
  return st;
}

cis_status ci_irrep_gpu_time(ci_irrep_gpu *I, const double *c, int compact, int runs, double *ms_median,
                             cis_ci_direct_gpu_info *info) {
  cis_status st = CIS_OK;
  double *dc = NULL, *ds = NULL, *h = NULL, times[64];
  cudaEvent_t e0 = NULL, e1 = NULL;
  if (runs > 64) runs = 64;
  const cis_int n = I->hv.nsym;
  CIS_TRY(ir_alloc(NULL, (void **)&dc, (size_t)n * sizeof(double), "timing vector"));
  CIS_TRY(ir_alloc(NULL, (void **)&ds, (size_t)n * sizeof(double), "timing vector"));
  CIS_TRY(cis_alloc_array((void **)&h, n, sizeof(double), "timing vector"));
  if (c && compact) memcpy(h, c, (size_t)n * sizeof(double));
  else if (c) ci_irrep_compress(I->R, c, h);
  else ci_fill_random(h, n); /* a fixed pseudo-random vector */
  if (cudaMemcpy(dc, h, (size_t)n * sizeof(double), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
    st = cis_error(CIS_ERR_CUDA, "blocked GPU sigma timing: copy or event creation failed");
    goto cleanup;
  }
  const cis_int before = info->sigma_vectors, half_before = info->half_sigmas;
  CIS_TRY(ci_irrep_gpu_sigma(I, 1, dc, ds, NULL, info)); /* warm-up */
  for (int r = 0; r < runs; ++r) {
    float ms = 0;
    cudaEventRecord(e0, 0);
    CIS_TRY(ci_irrep_gpu_sigma(I, 1, dc, ds, NULL, info));
    cudaEventRecord(e1, 0);
    if (cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess) {
      st = cis_error(CIS_ERR_CUDA, "blocked GPU sigma timing: %s", cudaGetErrorString(cudaGetLastError()));
      goto cleanup;
    }
    times[r] = ms;
  }
  info->sigma_vectors = before; /* timing products are not the caller's */
  info->half_sigmas = half_before;
  *ms_median = cis_median(times, runs);
cleanup:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cis_gpu_free(dc);
  cis_gpu_free(ds);
  cis_free(h);
  return st;
}

cis_int ci_irrep_gpu_compact_size(const ci_irrep_gpu *I) { return I->hv.nsym; }

cis_status ci_irrep_gpu_apply(ci_irrep_gpu *I, double alpha, const double *x, double beta, double *y, cudaStream_t cs,
                              cis_ci_direct_gpu_info *info) {
  cis_status st;
  if (alpha == 1.0 && beta == 0.0) return ci_irrep_gpu_sigma(I, 1, x, y, cs, info);
  if (!I->tmp) CIS_TRY(ir_alloc(NULL, (void **)&I->tmp, (size_t)I->hv.nsym * sizeof(double), "compact sigma product"));
  CIS_TRY(ci_irrep_gpu_sigma(I, 1, x, I->tmp, cs, info));
  CIS_TRY(cis_launch_ci_axpby(I->hv.nsym, alpha, I->tmp, beta, y, cs));
  return CIS_OK;
cleanup:
  return st;
}
