/* backend.h: the vector backend every solver of src/solvers runs on (not
 * public). A backend holds vectors of n values of one dtype in one memory
 * space, KS_COUNT scalar slots (kry_scalars.h) and the residual history, and
 * implements the primitive vector operations of the Krylov solvers and of
 * Davidson (PETSc-style ops table). Solvers are written once over this table
 * and an operator (cisparse/operator.h); they never see a format or a device.
 *
 * Backends: the host (OpenMP, backend_host.c: also the CPU reference of every
 * device kernel), any an operator supplies through its hook (kry_be_for),
 * and the device (backend_gpu.c), whose versions are those of
 * Aliaga, Perez, Quintana-Orti, Euro-Par 2015 §4:
 *   cublasL   cuBLAS, host pointer mode: slots live on the host, every dot
 *             returns to the host, programs run on the host;
 *   cublasN   cuBLAS, device pointer mode: slots in device memory, programs
 *             in a one-thread kernel;
 *   cuda      own kernels, one per primitive, dot = dot_ini + dot_fin;
 *   merge     the fused macro-kernels `spmv_dots` and `step` below;
 *   merge_10  merge, KS_FLAG read every 10 iterations;
 *   graph     merge captured once in a CUDA graph whose while node repeats
 *             the iteration until KS_FLAG is set (no host synchronization).
 *
 * Coefficients are kry_coef: c * s[slot] (slot < 0: the immediate c), so the
 * same call serves cuBLAS host mode, device-resident scalars and Davidson's
 * host scalars. Unless stated, operations are enqueued on the backend's
 * stream without synchronizing; `get_scalars` and `download` synchronize.
 *
 * The distributed backend (src/distributed/backend_dist.c) runs one of these
 * backends per local part. In the device-resident versions (cuda, merge,
 * merge_10, graph) it reaches each part's slots through `slots`, sums the
 * parts' partial dots over the ranks in stream order and lets `take_sums`
 * move the sums into their slots and run the program on every part; in
 * cublasL and cublasN its slots live on the host. */
#ifndef CISPARSE_BACKEND_H
#define CISPARSE_BACKEND_H

#include "cisparse/operator.h"
#include "cisparse/solver.h"
#include "solvers/kry_scalars.h"

#ifdef __cplusplus
extern "C" { /* included by the CUDA sources of src/solvers/gpu */
#endif

typedef struct kry_coef {
  double c;
  int slot; /* < 0: immediate */
} kry_coef;
static inline kry_coef kry_imm(double c) { kry_coef k = {c, -1}; return k; }
static inline kry_coef kry_slot(int slot, double c) { kry_coef k = {c, slot}; return k; }

/* The fused macro-kernels (steps) of the three solvers. A NULL dinv means no
 * preconditioner: then z == r, zt == rt, ph == p, sh == s (the same
 * pointers) and the Jacobi products are skipped. Dots land in the slots
 * named; `prog` runs after them (in the same launch on merge).
 *   CG_UPDATE      x += alpha p; r -= alpha q; z = dinv.*r;
 *                  RHO_NEW = (r, z) [only with dinv]; RR = (r, r)
 *   XPAY           p = z + beta p                          (uses z, p)
 *   BICG_UPDATE    x += alpha p; r -= alpha q; rt -= alpha qt;
 *                  z = dinv.*r; zt = dinv.*rt; RHO_NEW = (z, rt); RR = (r, r)
 *   BICG_P         p = z + beta p; pt = zt + beta pt
 *   BICGSTAB_P     p = r + beta p - beta_omega v; ph = dinv.*p
 *   BICGSTAB_S     s = r - alpha v; sh = dinv.*s
 *   BICGSTAB_XR    x += alpha ph + omega sh; r = s - omega t;
 *                  RHO_NEW = (rh, r); RR = (r, r)
 * Macro-kernels a step is fused into, and what each unfused version runs
 * instead: docs/solvers.md. */
typedef enum kry_step {
  KRY_STEP_CG_UPDATE = 0,
  KRY_STEP_XPAY,
  KRY_STEP_BICG_UPDATE,
  KRY_STEP_BICG_P,
  KRY_STEP_BICGSTAB_P,
  KRY_STEP_BICGSTAB_S,
  KRY_STEP_BICGSTAB_XR,
  KRY_STEP_COUNT
} kry_step;

/* The vectors a step reads and writes (unused ones NULL). */
typedef struct kry_vecs {
  void *x, *r, *p, *q, *z;     /* CG, BiCG */
  void *rt, *pt, *qt, *zt;     /* BiCG shadow vectors */
  void *v, *s, *t, *ph, *sh, *rh; /* BiCGStab */
  const void *dinv;            /* 1 / diag(A) (Jacobi), NULL = none */
} kry_vecs;

typedef struct kry_be kry_be;

/* Most vectors an in-place combine writes (Davidson's roots). */
#define KRY_COMBINE_MAX_K 64

typedef struct kry_be_ops {
  /* ---- memory (count = number of vectors of n values, contiguous) ---- */
  cis_status (*alloc)(kry_be *B, void **v, cis_int count, const char *what);
  void (*release)(kry_be *B, void *v);
  /* count values between host and backend memory (the backend's dtype on
   * both sides; download synchronizes) */
  cis_status (*upload)(kry_be *B, void *dst, const void *host, cis_int count);
  cis_status (*download)(kry_be *B, void *host, const void *src, cis_int count);
  /* ---- scalars ---- */
  cis_status (*set_scalars)(kry_be *B, int first, int count, const double *v);
  cis_status (*get_scalars)(kry_be *B, int first, int count, double *v); /* synchronizes */
  cis_status (*run_prog)(kry_be *B, int prog);   /* kry_prog_run on the slots */
  /* hist[0..len) of the backend's history buffer to the host (synchronizes) */
  cis_status (*get_history)(kry_be *B, double *host, int len);
  /* ---- primitives: vectors of n values ---- */
  cis_status (*apply)(kry_be *B, const cis_operator *A, const void *x, void *y); /* y = A x */
  cis_status (*copy)(kry_be *B, const void *x, void *y);
  cis_status (*fill)(kry_be *B, void *x, double v);
  cis_status (*axpy)(kry_be *B, kry_coef a, const void *x, void *y); /* y += a x */
  cis_status (*xpay)(kry_be *B, const void *x, kry_coef a, void *y); /* y = x + a y */
  cis_status (*scal)(kry_be *B, kry_coef a, void *x);                /* x = a x */
  cis_status (*mul)(kry_be *B, const void *d, const void *x, void *y); /* y = d .* x */
  cis_status (*dot)(kry_be *B, const void *x, const void *y, int slot); /* s[slot] = (x, y) */
  /* *r = (x, y) on the host (synchronizes; Davidson) */
  cis_status (*dot_host)(kry_be *B, const void *x, const void *y, double *r);
  /* out_r = sum_{j<m} c[j*m + r] V_j for r < k <= m (k <= KRY_COMBINE_MAX_K
   * when out == V); c host, m x m row-major (Davidson's Ritz vectors; a GEMM
   * on the device). out may be V itself: the k results replace V_0..V_{k-1}
   * in place (Davidson's collapse without room for k more vectors), each
   * row's first k values read before its results are written */
  cis_status (*combine)(kry_be *B, const void *V, const double *c, int m, int k, void *out);
  /* t = r / (theta - d), |theta - d| kept >= 1e-8 (Davidson correction) */
  cis_status (*dav_precond)(kry_be *B, const void *r, const void *d, double theta, void *t);
  /* x = sum_k val[k] e_{idx[k]} (k < nnz; idx ascending, each in 0..n-1,
   * as kry_sparse checks; idx and val on the host): a unit vector, or a
   * sparse guess uploaded as its nonzeros only */
  cis_status (*sparse)(kry_be *B, void *x, cis_int nnz, const cis_int *idx, const double *val);
  /* h[j] = (V_j, x) for j < m, V_j the m vectors at V (ld n), on the host:
   * m dots in one pass over V (a GEMV on the device; synchronizes). x may be
   * V_m, the vector after the block: then m + 1 gives (x, x) in h[m]. */
  cis_status (*dots_host)(kry_be *B, const void *V, int m, const void *x, double *h);
  /* x += a sum_{j<m} h[j] V_j, h on the host (a GEMV on the device) */
  cis_status (*gemv)(kry_be *B, double a, const void *V, const double *h, int m, void *x);
  /* ---- fused macro-kernels (merge versions); NULL = compose (steps.c) ---- */
  /* y = A x; s[slot0] = (u0, y) and, if u1, s[slot1] = (u1, y) (u == y allowed:
   * then (y, y)); then prog */
  cis_status (*spmv_dots)(kry_be *B, const cis_operator *A, const void *x, void *y, const void *u0,
                          int slot0, const void *u1, int slot1, int prog);
  cis_status (*step)(kry_be *B, kry_step step, const kry_vecs *v, int prog);
  /* ---- iteration loop ---- */
  /* Run `iteration` (enqueues one iteration on B) until KS_FLAG is set, at
   * most max_iters times, reading KS_FLAG every `check_every` iterations;
   * the graph version captures one iteration once and repeats it on the
   * device. NULL: the solver's plain loop (loop_plain in steps.c). */
  cis_status (*loop)(kry_be *B, cis_status (*iteration)(void *ctx), void *ctx, int max_iters,
                     int check_every);
  cis_status (*sync)(kry_be *B);
  void (*destroy)(kry_be *B);
  /* ---- for a backend that runs this one as a part (backend_dist.c) ---- */
  /* *s = the slot array (KS_COUNT + KS_SCRATCH doubles) and *where its
   * memory: the host for the host backend and cublasL, the device for the
   * other device versions. NULL: not available. */
  cis_status (*slots)(kry_be *B, double **s, cis_memspace *where);
  /* Unless KS_FLAG is set: s[dst[j]] = s[src + j] for j < k (k <= KS_NSUMS);
   * then prog. In stream order, no synchronization (a one-thread kernel on
   * the device). NULL: not available. */
  cis_status (*take_sums)(kry_be *B, const int *dst, int k, int src, int prog);
} kry_be_ops;

struct kry_be {
  const kry_be_ops *ops;
  cis_int n;
  cis_dtype dtype;
  cis_memspace where;
  cis_solver_version version; /* device backends; CIS_VER_CUDA for the host */
  cis_stream stream;
  int64_t launches;           /* kernel launches and library calls so far (device) */
  int hist_len;               /* capacity of the history buffer */
  void *impl;
};

/* Device backends allocate their kry_be with cis_alloc_zeroed: kry_be_free
 * calls ops->destroy (which frees impl and everything the backend owns) and
 * then cis_free on the struct. */

/* Host backend: n values of dtype t, history capacity hist_len. */
cis_status kry_be_host_create(cis_int n, cis_dtype t, int hist_len, kry_be **out);
/* Device backend in version v on stream s (NULL = a new stream owned by the
 * backend). CIS_ERR_NO_GPU without CUDA. */
cis_status kry_be_gpu_create(cis_int n, cis_dtype t, cis_solver_version v, int hist_len, kry_be **out);
/* The backend for operator A (backend.c): the one A's hook makes (a layer
 * with vectors of its own installs it: operator_internal.h), else the
 * backend of A's memory space and dtype. */
cis_status kry_be_for(const cis_operator *A, cis_solver_version v, int hist_len, kry_be **out);
/* Free (ops->destroy, then the struct); NULL accepted. */
void kry_be_free(kry_be *B);
/* x = sum_k val[k] e_{idx[k]} through ops->sparse, the indices checked
 * first (ascending, each in 0 .. B->n - 1: CIS_ERR_RANGE otherwise). */
cis_status kry_sparse(kry_be *B, void *x, cis_int nnz, const cis_int *idx, const double *val);

/* Step and fused SpMV through the backend: the fused ops when the backend
 * has them, else their composition from primitives (steps.c, also the CPU
 * reference of the fused kernels). */
cis_status kry_spmv_dots(kry_be *B, const cis_operator *A, const void *x, void *y, const void *u0,
                         int slot0, const void *u1, int slot1, int prog);
cis_status kry_step_run(kry_be *B, kry_step step, const kry_vecs *v, int prog);
/* The slots step `step` writes its dots to (in order; precond: a dinv is
 * given) into slot[0..), at most 2; returns their number. */
int kry_step_dots(kry_step step, int precond, int *slot);
/* The iteration loop (B->ops->loop or the plain one). */
cis_status kry_loop(kry_be *B, cis_status (*iteration)(void *ctx), void *ctx, int max_iters,
                    int check_every);

#ifdef __cplusplus
}
#endif
#endif
