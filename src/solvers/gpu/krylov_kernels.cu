// krylov_kernels.cu: the vector kernels and fused macro-kernels of the
// Krylov solvers on the device (Aliaga, Perez, Quintana-Orti, "Systematic
// Fusion of CUDA Kernels for Iterative Sparse Linear System Solvers",
// Euro-Par 2015): the primitives of the `cuda` version with the two-stage
// dot (dot_ini: block partials, dot_fin: one block sums them, §3.3), and the
// macro-kernels of the merge versions (§3.4-3.5, Figs. 2-3), where the
// partials are summed by the last block to finish (a thread fence + atomic
// ticket, Harris / CUDA threadFenceReduction), so that dot_fin and the
// scalar update that follows it (kry_prog_run) need no launch of their own.
//
// All kernels are grid-stride with a capped grid (kry_reduce_grid), sum in
// double for both dtypes, and sum partials in a fixed order (deterministic:
// same grid, same result). Fused kernels read s[KS_FLAG] first and do nothing
// when it is set (iterations queued past the end by merge_10 and graph).
// The value type comes from CIS_DISPATCH_REAL (one source, float + double).
// CPU reference: the host backend composing the same step from primitives.
#include <stdlib.h>
#include "kernels/kernel_common.cuh"
#include "kernels/spmv_templates.cuh"
#include "solvers/gpu/krylov_kernels.h"
#include "solvers/kry_scalars.h"
#include "core/options.h"

#define KRY_THREADS 256

extern "C" int kry_reduce_grid(const kry_ws *w, cis_int n) {
  int64_t g = ((int64_t)n + KRY_THREADS - 1) / KRY_THREADS;
  int64_t cap = (int64_t)w->sms * (2048 / KRY_THREADS);
  if (cap > w->cap) cap = w->cap;
  if (g > cap) g = cap;
  return g < 1 ? 1 : (int)g;
}

// Blocks of `threads` of kernel fn resident on one SM, from the occupancy
// calculator (registers and shared memory of that instantiation), cached by
// (fn, threads): a grid-stride kernel capped at exactly one full wave has no
// partial second wave. Capping at 2048/threads per SM instead ran the fused
// ELL SpMV (more registers than the plain one) in 1.6 waves: 154 us for 440 MB
// at 160^3 double on an H200, 2.9 TB/s (ncu, bench/NOTES.md). Entries are
// written once; two threads racing on a slot compute the same value.
static int resident_blocks(const void *fn, int threads) {
  static struct { const void *fn; int threads, per_sm; } cache[64];
  for (int k = 0; k < 64 && cache[k].fn; ++k)
    if (cache[k].fn == fn && cache[k].threads == threads) return cache[k].per_sm;
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, threads, 0) != cudaSuccess || per_sm < 1) {
    (void)cudaGetLastError();
    per_sm = 1;
  }
  for (int k = 0; k < 64; ++k)
    if (!cache[k].fn) {
      cache[k].threads = threads;
      cache[k].per_sm = per_sm;
      cache[k].fn = fn;
      break;
    }
  return per_sm;
}

// Grid for a fused kernel fn: `need` blocks of `threads`, capped at one full
// wave (resident_blocks per SM) and at the partial buffer.
template <typename F>
static unsigned fused_grid(F fn, const kry_ws *w, int64_t need, int threads) {
  int64_t cap = (int64_t)w->sms * resident_blocks((const void *)fn, threads);
  if (cap > w->cap) cap = w->cap;
  if (need > cap) need = cap;
  return need < 1 ? 1u : (unsigned)need;
}

// ---- reductions -------------------------------------------------------------

__device__ __forceinline__ double kry_warp_sum(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Sum v[0..1] over the block (blockDim a multiple of 32, every thread
// calling); the totals are valid in thread 0. Fixed order: deterministic.
__device__ __forceinline__ void kry_block_sum2(double (&v)[2]) {
  __shared__ double sh[2][32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  v[0] = kry_warp_sum(v[0]);
  v[1] = kry_warp_sum(v[1]);
  __syncthreads(); /* sh may still be read by a previous call */
  if (lane == 0) {
    sh[0][w] = v[0];
    sh[1][w] = v[1];
  }
  __syncthreads();
  if (w == 0) {
    v[0] = kry_warp_sum(lane < nw ? sh[0][lane] : 0.0);
    v[1] = kry_warp_sum(lane < nw ? sh[1][lane] : 0.0);
  }
}

// The scalar programs run on a shared-memory copy of the slots: the block
// loads all KS_COUNT slots at once, one thread runs kry_prog_run on the copy
// (shared-memory latency instead of a chain of dependent global loads: the
// program reads a dozen slots behind branches), the block writes them back.
__device__ __forceinline__ void kry_slots_load(double *ss, const double *s) {
  for (int k = threadIdx.x; k < KS_COUNT; k += blockDim.x) ss[k] = s[k];
}
__device__ __forceinline__ void kry_slots_store(double *s, const double *ss) {
  for (int k = threadIdx.x; k < KS_COUNT; k += blockDim.x) s[k] = ss[k];
}
// s[slot] = v through the shared copy when the slot is one of KS_COUNT.
__device__ __forceinline__ void kry_slot_put(double *ss, double *s, int slot, double v) {
  if (slot < KS_COUNT) ss[slot] = v;
  else s[slot] = v;
}

// End of a fused macro-kernel (§3.3): the block's partials of nd (0..2) dots
// go to w.part; the last block to take a ticket sums all partials in block
// order into s[slot0], s[slot1], runs prog and resets the ticket for the next
// launch. Every thread of every block calls it (or none: skipped when
// KS_FLAG is set).
__device__ void kry_finish(const kry_ws &w, double (&a)[2], int slot0, int slot1, int nd,
                           int prog) {
  __shared__ unsigned int am_last;
  __shared__ double ss[KS_COUNT];
  kry_block_sum2(a);
  if (threadIdx.x == 0) {
    if (nd > 0) w.part[blockIdx.x] = a[0];
    if (nd > 1) w.part[w.cap + blockIdx.x] = a[1];
    __threadfence(); /* partials visible before the ticket */
    am_last = atomicAdd(w.ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!am_last) return;
  __threadfence();
  kry_slots_load(ss, w.s); /* issued together with the partials' loads */
  /* Up to 8 partials per thread per round, loaded before any is added (the
   * loads overlap instead of one L2 round trip each); each thread still adds
   * its partials in increasing block order: deterministic. */
  double t[2] = {0.0, 0.0};
  const unsigned G = gridDim.x;
  for (unsigned b0 = threadIdx.x; b0 < G; b0 += 8u * blockDim.x) {
    double v0[8], v1[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const unsigned b = b0 + (unsigned)u * blockDim.x;
      v0[u] = (nd > 0 && b < G) ? __ldcg(&w.part[b]) : 0.0;
      v1[u] = (nd > 1 && b < G) ? __ldcg(&w.part[w.cap + b]) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      t[0] += v0[u];
      t[1] += v1[u];
    }
  }
  kry_block_sum2(t); /* its barriers also publish ss */
  if (threadIdx.x == 0) {
    if (nd > 0) kry_slot_put(ss, w.s, slot0, t[0]);
    if (nd > 1) kry_slot_put(ss, w.s, slot1, t[1]);
    kry_prog_run(prog, ss, w.hist, w.hist_len);
    *w.ticket = 0;
  }
  __syncthreads();
  kry_slots_store(w.s, ss);
}

__device__ __forceinline__ double kry_coef_of(double c, int slot, const double *s) {
  return slot < 0 ? c : c * s[slot];
}

// ---- primitives (cuda version) ----------------------------------------------

#define GRID_STRIDE(i, n)                                                          \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, st_ = (int64_t)gridDim.x * blockDim.x; \
       i < (n); i += st_)

template <typename T>
__global__ void fill_k(int64_t n, T *x, T v) {
  GRID_STRIDE(i, n) x[i] = v;
}

template <typename T>
__global__ void axpy_k(int64_t n, double c, int slot, const double *s, const T *x, T *y) {
  const T a = (T)kry_coef_of(c, slot, s);
  GRID_STRIDE(i, n) y[i] += a * x[i];
}

template <typename T>
__global__ void xpay_k(int64_t n, const T *x, double c, int slot, const double *s, T *y) {
  const T a = (T)kry_coef_of(c, slot, s);
  GRID_STRIDE(i, n) y[i] = x[i] + a * y[i];
}

template <typename T>
__global__ void scal_k(int64_t n, double c, int slot, const double *s, T *x) {
  const T a = (T)kry_coef_of(c, slot, s);
  GRID_STRIDE(i, n) x[i] = a * x[i];
}

template <typename T>
__global__ void mul_k(int64_t n, const T *d, const T *x, T *y) {
  GRID_STRIDE(i, n) y[i] = d[i] * x[i];
}

// dot_ini (§3.3): per-block partial sums of x .* y, in double.
template <typename T>
__global__ void dot_ini_k(int64_t n, const T *x, const T *y, double *part) {
  double a[2] = {0.0, 0.0};
  GRID_STRIDE(i, n) a[0] += (double)x[i] * (double)y[i];
  kry_block_sum2(a);
  if (threadIdx.x == 0) part[blockIdx.x] = a[0];
}

// dot_fin (§3.3): one block sums the partials in a fixed order, then the
// scalar program (cuda version: dot_fin and the scalar update in one launch).
__global__ void dot_fin_k(int nparts, int slot, int prog, kry_ws w) {
  __shared__ double ss[KS_COUNT];
  double a[2] = {0.0, 0.0};
  if (prog != KP_NONE) kry_slots_load(ss, w.s);
  for (int b = threadIdx.x; b < nparts; b += blockDim.x) a[0] += w.part[b];
  kry_block_sum2(a);
  if (prog == KP_NONE) {
    if (threadIdx.x == 0) w.s[slot] = a[0];
    return;
  }
  if (threadIdx.x == 0) {
    kry_slot_put(ss, w.s, slot, a[0]);
    kry_prog_run(prog, ss, w.hist, w.hist_len);
  }
  __syncthreads();
  kry_slots_store(w.s, ss);
}

// The scalar programs in one thread (cublasN, cuda: §4 "maintains the
// scalars in the GPU memory").
__global__ void prog_k(int prog, kry_ws w) {
  __shared__ double ss[KS_COUNT];
  kry_slots_load(ss, w.s);
  __syncthreads();
  if (threadIdx.x == 0) kry_prog_run(prog, ss, w.hist, w.hist_len);
  __syncthreads();
  kry_slots_store(w.s, ss);
}

// take_sums (the distributed backend's parts): unless KS_FLAG is set, the
// sums s[src + j] into their slots d.slot[j]; then the program.
__global__ void take_sums_k(kry_dst d, int src, int prog, kry_ws w) {
  __shared__ double ss[KS_COUNT];
  kry_slots_load(ss, w.s);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (ss[KS_FLAG] == KF_RUNNING)
      for (int j = 0; j < d.k; ++j) ss[d.slot[j]] = w.s[src + j];
    kry_prog_run(prog, ss, w.hist, w.hist_len);
  }
  __syncthreads();
  kry_slots_store(w.s, ss);
}

#define CHECKED_LAUNCH(name, ...) \
  do {                            \
    __VA_ARGS__;                  \
    CIS_CUDA_LAUNCH_CHECK(name);  \
  } while (0)

extern "C" cis_status kry_launch_fill(cis_dtype t, cis_int n, void *x, double v, const kry_ws *w,
                                      cudaStream_t st) {
  if (n <= 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, { fill_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(n, (REAL *)x, (REAL)v); });
  CIS_CUDA_LAUNCH_CHECK("fill");
  return CIS_OK;
}

extern "C" cis_status kry_launch_axpy(cis_dtype t, cis_int n, double c, int slot, const void *x,
                                      void *y, const kry_ws *w, cudaStream_t st) {
  if (n <= 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, {
    axpy_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(n, c, slot, w->s, (const REAL *)x, (REAL *)y);
  });
  CIS_CUDA_LAUNCH_CHECK("axpy");
  return CIS_OK;
}

extern "C" cis_status kry_launch_xpay(cis_dtype t, cis_int n, const void *x, double c, int slot,
                                      void *y, const kry_ws *w, cudaStream_t st) {
  if (n <= 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, {
    xpay_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(n, (const REAL *)x, c, slot, w->s, (REAL *)y);
  });
  CIS_CUDA_LAUNCH_CHECK("xpay");
  return CIS_OK;
}

extern "C" cis_status kry_launch_scal(cis_dtype t, cis_int n, double c, int slot, void *x,
                                      const kry_ws *w, cudaStream_t st) {
  if (n <= 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, { scal_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(n, c, slot, w->s, (REAL *)x); });
  CIS_CUDA_LAUNCH_CHECK("scal");
  return CIS_OK;
}

extern "C" cis_status kry_launch_mul(cis_dtype t, cis_int n, const void *d, const void *x, void *y,
                                     const kry_ws *w, cudaStream_t st) {
  if (n <= 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, {
    mul_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(n, (const REAL *)d, (const REAL *)x, (REAL *)y);
  });
  CIS_CUDA_LAUNCH_CHECK("mul (Jacobi)");
  return CIS_OK;
}

extern "C" cis_status kry_launch_dot_ini(cis_dtype t, cis_int n, const void *x, const void *y,
                                         const kry_ws *w, cudaStream_t st) {
  CIS_DISPATCH_REAL(t, {
    dot_ini_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(n, (const REAL *)x, (const REAL *)y, w->part);
  });
  CIS_CUDA_LAUNCH_CHECK("dot_ini");
  return CIS_OK;
}

extern "C" cis_status kry_launch_dot_fin(int nparts, int slot, int prog, const kry_ws *w,
                                         cudaStream_t st) {
  dot_fin_k<<<1, KRY_THREADS, 0, st>>>(nparts, slot, prog, *w);
  CIS_CUDA_LAUNCH_CHECK("dot_fin");
  return CIS_OK;
}

extern "C" cis_status kry_launch_take_sums(const kry_dst *d, int src, int prog, const kry_ws *w, cudaStream_t st) {
  take_sums_k<<<1, 32, 0, st>>>(*d, src, prog, *w);
  CIS_CUDA_LAUNCH_CHECK("take sums");
  return CIS_OK;
}

extern "C" cis_status kry_launch_prog(int prog, const kry_ws *w, cudaStream_t st) {
  prog_k<<<1, 32, 0, st>>>(prog, *w);
  CIS_CUDA_LAUNCH_CHECK("scalar program");
  return CIS_OK;
}

// ---- fused steps (merge) ------------------------------------------------------

// The vectors of a step by index (kry_vecs order), and which ones each step
// reads and writes (compile-time masks: only those are loaded or stored).
enum { SX, SR, SP, SQ, SZ, SRT, SPT, SQT, SZT, SV, SS, ST, SPH, SSH, SRH, SD, SNV };
#define SB(k) (1u << (k))

__host__ __device__ constexpr unsigned step_reads(int step, bool prec) {
  return step == KRY_STEP_CG_UPDATE    ? SB(SX) | SB(SP) | SB(SR) | SB(SQ) | (prec ? SB(SD) : 0u)
         : step == KRY_STEP_XPAY       ? SB(SZ) | SB(SP)
         : step == KRY_STEP_BICG_UPDATE ? SB(SX) | SB(SP) | SB(SR) | SB(SQ) | SB(SRT) | SB(SQT) | (prec ? SB(SD) : 0u)
         : step == KRY_STEP_BICG_P     ? SB(SZ) | SB(SP) | SB(SZT) | SB(SPT)
         : step == KRY_STEP_BICGSTAB_P ? SB(SR) | SB(SP) | SB(SV) | (prec ? SB(SD) : 0u)
         : step == KRY_STEP_BICGSTAB_S ? SB(SR) | SB(SV) | (prec ? SB(SD) : 0u)
         : /* BICGSTAB_XR */ SB(SX) | SB(SPH) | SB(SSH) | SB(SS) | SB(ST) | SB(SRH);
}
/* Without Jacobi z, zt, ph, sh alias r, rt, p, s and are never written. */
__host__ __device__ constexpr unsigned step_writes(int step, bool prec) {
  return step == KRY_STEP_CG_UPDATE    ? SB(SX) | SB(SR) | (prec ? SB(SZ) : 0u)
         : step == KRY_STEP_XPAY       ? SB(SP)
         : step == KRY_STEP_BICG_UPDATE ? SB(SX) | SB(SR) | SB(SRT) | (prec ? SB(SZ) | SB(SZT) : 0u)
         : step == KRY_STEP_BICG_P     ? SB(SP) | SB(SPT)
         : step == KRY_STEP_BICGSTAB_P ? SB(SP) | (prec ? SB(SPH) : 0u)
         : step == KRY_STEP_BICGSTAB_S ? SB(SS) | (prec ? SB(SSH) : 0u)
         : /* BICGSTAB_XR */ SB(SX) | SB(SR);
}

template <typename T>
struct StepVecs {
  T *v[SNV];
};

template <typename T>
struct StepCoefs {
  T alpha, beta, omega, bo;
};

// One element of a step (Aliaga et al. 2015, Fig. 3 (CG, BiCGStab) and Fig. 2
// (BiCG) macro-kernels): e holds the element of every vector the step reads;
// the ones it writes are updated in place; a[0], a[1] the dot terms.
template <typename T, int STEP, bool PREC>
__host__ __device__ __forceinline__ void step_elem(T (&e)[SNV], const StepCoefs<T> &c, double (&a)[2]) {
  if (STEP == KRY_STEP_CG_UPDATE) {
    /* x += alpha p; r -= alpha q; z = dinv.*r; RHO_NEW = (r, z); RR = (r, r) */
    e[SX] += c.alpha * e[SP];
    const T r = e[SR] - c.alpha * e[SQ];
    e[SR] = r;
    a[1] += (double)r * (double)r;
    if (PREC) {
      e[SZ] = e[SD] * r;
      a[0] += (double)r * (double)e[SZ];
    }
  } else if (STEP == KRY_STEP_XPAY) {
    /* p = z + beta p */
    e[SP] = e[SZ] + c.beta * e[SP];
  } else if (STEP == KRY_STEP_BICG_UPDATE) {
    /* x += alpha p; r -= alpha q; rt -= alpha qt; z = dinv.*r; zt = dinv.*rt;
       RHO_NEW = (z, rt); RR = (r, r) */
    e[SX] += c.alpha * e[SP];
    const T r = e[SR] - c.alpha * e[SQ];
    const T rt = e[SRT] - c.alpha * e[SQT];
    e[SR] = r;
    e[SRT] = rt;
    T z = r;
    if (PREC) {
      z = e[SD] * r;
      e[SZ] = z;
      e[SZT] = e[SD] * rt;
    }
    a[0] += (double)z * (double)rt;
    a[1] += (double)r * (double)r;
  } else if (STEP == KRY_STEP_BICG_P) {
    /* p = z + beta p; pt = zt + beta pt */
    e[SP] = e[SZ] + c.beta * e[SP];
    e[SPT] = e[SZT] + c.beta * e[SPT];
  } else if (STEP == KRY_STEP_BICGSTAB_P) {
    /* p = r + beta p - beta_omega v; ph = dinv.*p */
    const T p = e[SR] + c.beta * e[SP];
    e[SP] = p - c.bo * e[SV];
    if (PREC) e[SPH] = e[SD] * e[SP];
  } else if (STEP == KRY_STEP_BICGSTAB_S) {
    /* s = r - alpha v; sh = dinv.*s */
    e[SS] = e[SR] - c.alpha * e[SV];
    if (PREC) e[SSH] = e[SD] * e[SS];
  } else { /* KRY_STEP_BICGSTAB_XR */
    /* x += alpha ph + omega sh; r = s - omega t; RHO_NEW = (rh, r); RR = (r, r) */
    const T x = e[SX] + c.alpha * e[SPH];
    e[SX] = x + c.omega * e[SSH];
    e[SR] = e[SS] - c.omega * e[ST];
    a[0] += (double)e[SRH] * (double)e[SR];
    a[1] += (double)e[SR] * (double)e[SR];
  }
}

template <typename T> struct Vec16;
template <> struct Vec16<double> { typedef double2 type; };
template <> struct Vec16<float> { typedef float4 type; };

// The step over all n elements, grid-stride; each element is read and written
// by one thread (mapped access, §3.2), so the vector updates fuse. VEC: every
// vector used is 16-byte aligned: 16-byte loads and stores of 16/sizeof(T)
// elements, the last n mod 16/sizeof(T) elements one by one. The dots of the
// step are block partials finished by the last block (kry_finish), which
// then runs prog.
template <typename T, int STEP, bool PREC, bool VEC>
__global__ void step_k(int64_t n, StepVecs<T> V, int prog, kry_ws w) {
  constexpr unsigned RD = step_reads(STEP, PREC), WR = step_writes(STEP, PREC);
  const double *s = w.s;
  /* the flag and the coefficients in one round trip */
  const double flag = s[KS_FLAG], alpha = s[KS_ALPHA], beta = s[KS_BETA], omega = s[KS_OMEGA],
               bo = s[KS_BETA_OMEGA];
  if (flag != KF_RUNNING) return; /* uniform: set only after every block started */
  const StepCoefs<T> c = {(T)alpha, (T)beta, (T)omega, (T)bo};
  double a[2] = {0.0, 0.0};
  int64_t done = 0;
  if (VEC) {
    typedef typename Vec16<T>::type VT;
    constexpr int L = (int)(sizeof(VT) / sizeof(T));
    const int64_t nv = n / L;
    GRID_STRIDE(j, nv) {
      T e[SNV][L];
#pragma unroll
      for (int k = 0; k < SNV; ++k)
        if (RD & SB(k)) {
          const VT t = reinterpret_cast<const VT *>(V.v[k])[j];
#pragma unroll
          for (int u = 0; u < L; ++u) e[k][u] = reinterpret_cast<const T *>(&t)[u];
        }
#pragma unroll
      for (int u = 0; u < L; ++u) {
        T el[SNV];
#pragma unroll
        for (int k = 0; k < SNV; ++k) el[k] = (RD & SB(k)) ? e[k][u] : T(0);
        step_elem<T, STEP, PREC>(el, c, a);
#pragma unroll
        for (int k = 0; k < SNV; ++k)
          if (WR & SB(k)) e[k][u] = el[k];
      }
#pragma unroll
      for (int k = 0; k < SNV; ++k)
        if (WR & SB(k)) {
          VT t;
#pragma unroll
          for (int u = 0; u < L; ++u) reinterpret_cast<T *>(&t)[u] = e[k][u];
          reinterpret_cast<VT *>(V.v[k])[j] = t;
        }
    }
    done = nv * L;
  }
  for (int64_t i = done + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    T el[SNV];
#pragma unroll
    for (int k = 0; k < SNV; ++k) el[k] = (RD & SB(k)) ? V.v[k][i] : T(0);
    step_elem<T, STEP, PREC>(el, c, a);
#pragma unroll
    for (int k = 0; k < SNV; ++k)
      if (WR & SB(k)) V.v[k][i] = el[k];
  }
  int nd = 0, slot0 = KS_RHO_NEW, slot1 = KS_RR;
  if (STEP == KRY_STEP_CG_UPDATE) {
    nd = PREC ? 2 : 1;
    if (!PREC) {
      a[0] = a[1];
      slot0 = KS_RR;
    }
  } else if (STEP == KRY_STEP_BICG_UPDATE || STEP == KRY_STEP_BICGSTAB_XR) {
    nd = 2;
  }
  if (nd == 0 && prog == KP_NONE) return; /* uniform */
  kry_finish(w, a, slot0, slot1, nd, prog);
}

template <typename T, int STEP, bool PREC>
static void launch_step_p(int64_t n, const StepVecs<T> &V, int prog, const kry_ws *w, cudaStream_t st) {
  constexpr unsigned used = step_reads(STEP, PREC) | step_writes(STEP, PREC);
  bool vec = true;
  for (int k = 0; k < SNV; ++k)
    if ((used & SB(k)) && ((uintptr_t)V.v[k] % 16u)) vec = false;
  const int64_t elems_per_thread = vec ? (int64_t)(16 / sizeof(T)) : 1;
  const int64_t need = (n + elems_per_thread - 1) / elems_per_thread;
  const int64_t blocks = (need + KRY_THREADS - 1) / KRY_THREADS;
  if (vec)
    step_k<T, STEP, PREC, true><<<fused_grid(step_k<T, STEP, PREC, true>, w, blocks, KRY_THREADS), KRY_THREADS, 0, st>>>(
        n, V, prog, *w);
  else
    step_k<T, STEP, PREC, false><<<fused_grid(step_k<T, STEP, PREC, false>, w, blocks, KRY_THREADS), KRY_THREADS, 0, st>>>(
        n, V, prog, *w);
}

template <typename T, int STEP>
static void launch_step_t(int64_t n, const kry_vecs *v, int prog, const kry_ws *w, cudaStream_t st) {
  StepVecs<T> V = {{(T *)v->x, (T *)v->r, (T *)v->p, (T *)v->q, (T *)v->z, (T *)v->rt, (T *)v->pt,
                    (T *)v->qt, (T *)v->zt, (T *)v->v, (T *)v->s, (T *)v->t, (T *)v->ph, (T *)v->sh,
                    (T *)v->rh, (T *)v->dinv}};
  if (v->dinv)
    launch_step_p<T, STEP, true>(n, V, prog, w, st);
  else
    launch_step_p<T, STEP, false>(n, V, prog, w, st);
}

template <typename T>
static cis_status launch_step(int64_t n, kry_step step, const kry_vecs *v, int prog,
                              const kry_ws *w, cudaStream_t st) {
  switch (step) {
    case KRY_STEP_CG_UPDATE: launch_step_t<T, KRY_STEP_CG_UPDATE>(n, v, prog, w, st); break;
    case KRY_STEP_XPAY: launch_step_t<T, KRY_STEP_XPAY>(n, v, prog, w, st); break;
    case KRY_STEP_BICG_UPDATE: launch_step_t<T, KRY_STEP_BICG_UPDATE>(n, v, prog, w, st); break;
    case KRY_STEP_BICG_P: launch_step_t<T, KRY_STEP_BICG_P>(n, v, prog, w, st); break;
    case KRY_STEP_BICGSTAB_P: launch_step_t<T, KRY_STEP_BICGSTAB_P>(n, v, prog, w, st); break;
    case KRY_STEP_BICGSTAB_S: launch_step_t<T, KRY_STEP_BICGSTAB_S>(n, v, prog, w, st); break;
    case KRY_STEP_BICGSTAB_XR: launch_step_t<T, KRY_STEP_BICGSTAB_XR>(n, v, prog, w, st); break;
    default: return cis_error(CIS_ERR_INVALID, "kry_launch_step: unknown step %d", (int)step);
  }
  CIS_CUDA_LAUNCH_CHECK("fused step");
  return CIS_OK;
}

extern "C" cis_status kry_launch_step(cis_dtype t, cis_int n, kry_step step, const kry_vecs *v,
                                      int prog, const kry_ws *w, cudaStream_t st) {
  if (n <= 0) return cis_error(CIS_ERR_INVALID, "kry_launch_step: n = %lld", (long long)n);
  CIS_DISPATCH_REAL(t, { return launch_step<REAL>(n, step, v, prog, w, st); });
  return CIS_OK;
}

// ---- SpMV fused with its dots (merge: §3.3 "SpMV -> dot_ini", dot_fin in the
// last block) -----------------------------------------------------------------

// Epilogue of spmv_templates.cuh: y_i = v; partials of (u0, y) and (u1, y).
template <typename T>
struct DotsEpi {
  T *y;
  const T *u0, *u1;
  int u0y, u1y, nd, slot0, slot1, prog;
  kry_ws w;
  bool on;
  double a[2];
  __device__ __forceinline__ bool start() {
    a[0] = a[1] = 0.0;
    on = w.s[KS_FLAG] == KF_RUNNING; /* uniform: set only after every block started */
    return on;
  }
  __device__ __forceinline__ void row(int64_t i, T v) {
    y[i] = v;
    a[0] += (double)(u0y ? v : u0[i]) * (double)v;
    if (nd > 1) a[1] += (double)(u1y ? v : u1[i]) * (double)v;
  }
  __device__ __forceinline__ void finish() {
    if (on) kry_finish(w, a, slot0, slot1, nd, prog);
  }
};

// The stand-alone dots after an SpMV that cannot fuse (cuSPARSE, csb, csr5,
// callbacks): the same epilogue over y already computed.
template <typename T>
__global__ void dots_k(int64_t n, const T *y, DotsEpi<T> e) {
  if (e.start()) {
    GRID_STRIDE(i, n) {
      const T v = y[i];
      e.a[0] += (double)(e.u0y ? v : e.u0[i]) * (double)v;
      if (e.nd > 1) e.a[1] += (double)(e.u1y ? v : e.u1[i]) * (double)v;
    }
  }
  e.finish();
}

template <typename T, typename O, int G>
static void launch_hyb_u(const cis_spmv_view *A, int u, int64_t need, int threads, const T *x,
                         DotsEpi<T> e, const kry_ws *w, cudaStream_t st) {
  const cis_hyb_dev *h = &A->hyb;
#define HYB_ARGS                                                                        \
  h->rows, h->width, h->column_mode, h->ell_col, (const T *)h->ell_val, h->rownnz,      \
      (const O *)h->start, (const O *)h->end, h->csr_col, (const T *)h->csr_val, x, e
  switch (u) {
    case 1: hyb_fast_tk<T, O, G, 1><<<fused_grid(hyb_fast_tk<T, O, G, 1, DotsEpi<T>>, w, need, threads), threads, 0, st>>>(HYB_ARGS); break;
    case 2: hyb_fast_tk<T, O, G, 2><<<fused_grid(hyb_fast_tk<T, O, G, 2, DotsEpi<T>>, w, need, threads), threads, 0, st>>>(HYB_ARGS); break;
    case 8: hyb_fast_tk<T, O, G, 8><<<fused_grid(hyb_fast_tk<T, O, G, 8, DotsEpi<T>>, w, need, threads), threads, 0, st>>>(HYB_ARGS); break;
    default: hyb_fast_tk<T, O, G, 4><<<fused_grid(hyb_fast_tk<T, O, G, 4, DotsEpi<T>>, w, need, threads), threads, 0, st>>>(HYB_ARGS); break;
  }
#undef HYB_ARGS
}

// The hybrid format's fast kernel, unlocked (the phase-locked variant keeps
// __syncthreads per chunk and is not fused), G and U by hyb.cu's rule
// (cis_hyb_fast_variant, its unlocked branch).
template <typename T, typename O>
static cis_status launch_hyb(const cis_spmv_view *A, const T *x, DotsEpi<T> e, const kry_ws *w,
                             cudaStream_t st) {
  const cis_hyb_dev *h = &A->hyb;
  int lock, g, u_env;
  cis_hyb_fast_variant(h, sizeof(T), 1, &lock, &g, &u_env);
  int threads = A->block > 0 ? A->block : 256;
  if (threads % 32 || threads > 1024)
    return cis_error(CIS_ERR_INVALID, "hyb: block size %d must be a multiple of 32 up to 1024", threads);
  if (g != 1 && g != 4 && g != 8 && g != 16) g = 32;
  const int64_t need = ((int64_t)h->rows * g + threads - 1) / threads;
  switch (g) {
    case 1: launch_hyb_u<T, O, 1>(A, u_env, need, threads, x, e, w, st); break;
    case 4: launch_hyb_u<T, O, 4>(A, u_env, need, threads, x, e, w, st); break;
    case 8: launch_hyb_u<T, O, 8>(A, u_env, need, threads, x, e, w, st); break;
    case 16: launch_hyb_u<T, O, 16>(A, u_env, need, threads, x, e, w, st); break;
    default: launch_hyb_u<T, O, 32>(A, u_env, need, threads, x, e, w, st); break;
  }
  CIS_CUDA_LAUNCH_CHECK("hyb + dots");
  return CIS_OK;
}

template <typename T>
static cis_status launch_spmv_dots(const cis_spmv_view *A, const T *x, DotsEpi<T> e,
                                   const kry_ws *w, cudaStream_t st) {
  const int64_t rows = A->rows;
  int threads;
  switch (A->kind) {
    case CIS_SPMV_CSR_SCALAR:
    case CIS_SPMV_CSR_VECTOR: {
      int vector = A->kind == CIS_SPMV_CSR_VECTOR;
      CIS_BLOCK_OR(A->block, vector ? 256 : 128, 32, vector ? "csr-vector" : "csr-scalar");
      threads = threads_;
      const int64_t need = vector ? (rows * 32 + threads - 1) / threads : (rows + threads - 1) / threads;
      if (vector) {
        if (A->wide)
          csr_vector_tk<T, int64_t><<<fused_grid(csr_vector_tk<T, int64_t, DotsEpi<T>>, w, need, threads), threads, 0, st>>>(
              rows, (const int64_t *)A->rowptr, A->col, (const T *)A->val, x, e);
        else
          csr_vector_tk<T, uint32_t><<<fused_grid(csr_vector_tk<T, uint32_t, DotsEpi<T>>, w, need, threads), threads, 0, st>>>(
              rows, (const uint32_t *)A->rowptr, A->col, (const T *)A->val, x, e);
      } else {
        if (A->wide)
          csr_scalar_tk<T, int64_t><<<fused_grid(csr_scalar_tk<T, int64_t, DotsEpi<T>>, w, need, threads), threads, 0, st>>>(
              rows, (const int64_t *)A->rowptr, A->col, (const T *)A->val, x, e);
        else
          csr_scalar_tk<T, uint32_t><<<fused_grid(csr_scalar_tk<T, uint32_t, DotsEpi<T>>, w, need, threads), threads, 0, st>>>(
              rows, (const uint32_t *)A->rowptr, A->col, (const T *)A->val, x, e);
      }
      CIS_CUDA_LAUNCH_CHECK(vector ? "csr-vector + dots" : "csr-scalar + dots");
      return CIS_OK;
    }
    case CIS_SPMV_ELL: {
      CIS_BLOCK_OR(A->block, 128, 32, "ell");
      threads = threads_;
      const int lb = cis_opt_int(CIS_OPT_FUSED_ELL_LB, 0) > 0; /* the 32-register build (bench/NOTES.md) */
      if (lb) {
        unsigned grid = fused_grid(ell_tk<T, DotsEpi<T>, 2>, w, (rows + threads - 1) / threads, threads);
        ell_tk<T, DotsEpi<T>, 2><<<grid, threads, 0, st>>>(rows, A->width, A->col, (const T *)A->val, A->rowlen, x, e);
      } else {
        unsigned grid = fused_grid(ell_tk<T, DotsEpi<T>, 1>, w, (rows + threads - 1) / threads, threads);
        ell_tk<T, DotsEpi<T>, 1><<<grid, threads, 0, st>>>(rows, A->width, A->col, (const T *)A->val, A->rowlen, x, e);
      }
      CIS_CUDA_LAUNCH_CHECK("ell + dots");
      return CIS_OK;
    }
    case CIS_SPMV_SELL: {
      CIS_BLOCK_OR(A->block, 256, 32, "sell");
      threads = threads_;
      if (A->S <= 0) return cis_error(CIS_ERR_INVALID, "sell: slice height %lld", (long long)A->S);
      int64_t nsr = (int64_t)A->nslices * A->S;
      unsigned grid = fused_grid(sell_tk<T, true, DotsEpi<T>>, w, (nsr + threads - 1) / threads, threads);
      int shift = 0;
      while (((int64_t)1 << shift) < A->S) shift++;
      if (((int64_t)1 << shift) == A->S)
        sell_tk<T, true><<<grid, threads, 0, st>>>(rows, A->S, shift, nsr, A->slice_ptr, A->col, (const T *)A->val, A->rowlen, A->perm, x, e);
      else
        sell_tk<T, false><<<grid, threads, 0, st>>>(rows, A->S, shift, nsr, A->slice_ptr, A->col, (const T *)A->val, A->rowlen, A->perm, x, e);
      CIS_CUDA_LAUNCH_CHECK("sell + dots");
      return CIS_OK;
    }
    case CIS_SPMV_HYB:
      return A->hyb.wide ? launch_hyb<T, int64_t>(A, x, e, w, st) : launch_hyb<T, uint32_t>(A, x, e, w, st);
    default:
      return cis_error(CIS_ERR_INVALID, "kry_launch_spmv_dots: the plan's kernel takes no epilogue");
  }
}

template <typename T>
static DotsEpi<T> make_epi(void *y, const void *u0, int slot0, const void *u1, int slot1, int prog,
                           const kry_ws *w) {
  DotsEpi<T> e;
  e.y = (T *)y;
  e.u0 = (const T *)u0;
  e.u1 = (const T *)u1;
  e.u0y = u0 == y;
  e.u1y = u1 == y;
  e.nd = u1 ? 2 : 1;
  e.slot0 = slot0;
  e.slot1 = slot1;
  e.prog = prog;
  e.w = *w;
  e.on = false;
  e.a[0] = e.a[1] = 0.0;
  return e;
}

extern "C" cis_status kry_launch_spmv_dots(const cis_spmv_view *A, const void *x, void *y,
                                           const void *u0, int slot0, const void *u1, int slot1,
                                           int prog, const kry_ws *w, cudaStream_t st) {
  if (!A || A->kind == CIS_SPMV_NONE || A->rows <= 0 || !u0)
    return cis_error(CIS_ERR_INVALID, "kry_launch_spmv_dots: no fusable SpMV or no u0");
  CIS_DISPATCH_REAL(A->t, {
    return launch_spmv_dots<REAL>(A, (const REAL *)x, make_epi<REAL>(y, u0, slot0, u1, slot1, prog, w), w, st);
  });
  return CIS_OK;
}

extern "C" cis_status kry_launch_dots(cis_dtype t, cis_int n, const void *y, const void *u0,
                                      int slot0, const void *u1, int slot1, int prog,
                                      const kry_ws *w, cudaStream_t st) {
  if (n <= 0 || !u0) return cis_error(CIS_ERR_INVALID, "kry_launch_dots: n = %lld or no u0", (long long)n);
  CIS_DISPATCH_REAL(t, {
    dots_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(
        n, (const REAL *)y, make_epi<REAL>((void *)y, u0, slot0, u1, slot1, prog, w));
  });
  CIS_CUDA_LAUNCH_CHECK("dots");
  return CIS_OK;
}

// ---- Davidson (E. R. Davidson, J. Comput. Phys. 17, 87 (1975), eq. 9) --------

template <typename T>
__global__ void dav_precond_k(int64_t n, const T *r, const T *d, double theta, T *out) {
  GRID_STRIDE(i, n) {
    double den = theta - (double)d[i];
    if (fabs(den) < 1e-8) den = den < 0 ? -1e-8 : 1e-8;
    out[i] = (T)((double)r[i] / den);
  }
}

template <typename T>
__global__ void set_entries_k(int64_t nnz, const int64_t *idx, const double *val, T *x) {
  GRID_STRIDE(k, nnz) x[idx[k]] = (T)val[k];
}

extern "C" cis_status kry_launch_dav_precond(cis_dtype t, cis_int n, const void *r, const void *d,
                                             double theta, void *out, const kry_ws *w,
                                             cudaStream_t st) {
  if (n <= 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, {
    dav_precond_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(n, (const REAL *)r, (const REAL *)d, theta, (REAL *)out);
  });
  CIS_CUDA_LAUNCH_CHECK("Davidson preconditioner");
  return CIS_OK;
}

// Davidson's collapse in place (Liu 1978's restart to the Ritz vectors): row
// i's first k values kept in registers (local memory past what fits), the k
// results written over them; the coefficients C are of the vectors' type.
template <typename T>
__global__ void combine_inplace_k(int64_t n, T *V, int m, int k, const T *C) {
  GRID_STRIDE(i, n) {
    double head[KRY_COMBINE_MAX_K];
    for (int j = 0; j < k; ++j) head[j] = (double)V[(size_t)j * n + i];
    for (int r = 0; r < k; ++r) {
      double s = 0;
      for (int j = 0; j < m; ++j) s += (double)C[j + (size_t)r * m] * (j < k ? head[j] : (double)V[(size_t)j * n + i]);
      V[(size_t)r * n + i] = (T)s;
    }
  }
}

extern "C" cis_status kry_launch_combine_inplace(cis_dtype t, cis_int n, void *V, int m, int k, const void *C,
                                                 const kry_ws *w, cudaStream_t st) {
  if (n <= 0) return CIS_OK;
  if (k < 1 || k > m || k > KRY_COMBINE_MAX_K)
    return cis_error(CIS_ERR_INVALID, "combine in place: m = %d, k = %d (k <= m, k <= %d)", m, k, KRY_COMBINE_MAX_K);
  CIS_DISPATCH_REAL(t, {
    combine_inplace_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(n, (REAL *)V, m, k, (const REAL *)C);
  });
  CIS_CUDA_LAUNCH_CHECK("Davidson in-place combine");
  return CIS_OK;
}

extern "C" cis_status kry_launch_sparse(cis_dtype t, cis_int n, void *x, cis_int nnz, const int64_t *idx,
                                        const double *val, const kry_ws *w, cudaStream_t st) {
  if (n <= 0) return CIS_OK;
  CIS_DISPATCH_REAL(t, {
    fill_k<REAL><<<kry_reduce_grid(w, n), KRY_THREADS, 0, st>>>(n, (REAL *)x, REAL(0));
    if (nnz > 0) set_entries_k<REAL><<<kry_reduce_grid(w, nnz), KRY_THREADS, 0, st>>>(nnz, idx, val, (REAL *)x);
  });
  CIS_CUDA_LAUNCH_CHECK("sparse vector");
  return CIS_OK;
}

// ---- cublasN helpers -----------------------------------------------------------

template <typename T>
__global__ void coef_k(double c, int slot, const double *s, T *out) {
  *out = (T)kry_coef_of(c, slot, s);
}

// cublasN (§4: "maintains the scalars in the GPU memory"): pending float
// dots into their double slots, the program, then the mirrors cuBLAS reads
// its coefficients from (-alpha etc. without a launch of their own).
__global__ void cublasn_prog_k(int prog, unsigned long long pending, kry_mirror m, kry_ws w) {
  __shared__ double ss[KS_COUNT];
  for (int k = threadIdx.x; k < m.count && k < 64; k += blockDim.x) {
    const bool fresh = pending >> k & 1ull;
    if (k < KS_COUNT) ss[k] = fresh ? (double)m.fdot[k] : w.s[k];
    else if (fresh) w.s[k] = (double)m.fdot[k]; /* a scratch slot */
  }
  __syncthreads();
  if (threadIdx.x == 0) kry_prog_run(prog, ss, w.hist, w.hist_len);
  __syncthreads();
  for (int k = threadIdx.x; k < KS_COUNT; k += blockDim.x) {
    const double v = ss[k];
    w.s[k] = v;
    m.dneg[k] = -v;
    m.fpos[k] = (float)v;
    m.fneg[k] = (float)-v;
  }
}

extern "C" cis_status kry_launch_coef(cis_dtype t, double c, int slot, void *out, const kry_ws *w,
                                      cudaStream_t st) {
  CIS_DISPATCH_REAL(t, { coef_k<REAL><<<1, 1, 0, st>>>(c, slot, w->s, (REAL *)out); });
  CIS_CUDA_LAUNCH_CHECK("cublasN coefficient");
  return CIS_OK;
}

extern "C" cis_status kry_launch_cublasn_prog(int prog, unsigned long long pending,
                                              const kry_mirror *m, const kry_ws *w, cudaStream_t st) {
  cublasn_prog_k<<<1, 32, 0, st>>>(prog, pending, *m, *w);
  CIS_CUDA_LAUNCH_CHECK("cublasN scalar program");
  return CIS_OK;
}

// ---- graph: the condition of the while node (CUDA >= 12.4) -----------------------

__global__ void graph_cond_k(cudaGraphConditionalHandle h, unsigned int *count, unsigned int limit,
                             const double *s) {
  unsigned int c = ++*count;
  cudaGraphSetConditional(h, s[KS_FLAG] == KF_RUNNING && c < limit ? 1u : 0u);
}

extern "C" cis_status kry_launch_graph_cond(cudaGraphConditionalHandle h, unsigned int *count,
                                            unsigned int limit, const kry_ws *w, cudaStream_t st) {
  graph_cond_k<<<1, 1, 0, st>>>(h, count, limit, w->s);
  CIS_CUDA_LAUNCH_CHECK("graph condition");
  return CIS_OK;
}
