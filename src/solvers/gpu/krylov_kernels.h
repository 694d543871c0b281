/* krylov_kernels.h: launchers of the Krylov solver kernels
 * (krylov_kernels.cu) for the device backend (backend_gpu.c). extern "C",
 * raw device pointers, the stream last; every launch is checked. Values are
 * of dtype t (float or double); scalar slots are doubles (kry_scalars.h) and
 * every reduction accumulates in double for both dtypes.
 *
 * The versions of Aliaga, Perez, Quintana-Orti, Euro-Par 2015 §4 use:
 *   cuda      fill/axpy/xpay/scal/mul, dot_ini + dot_fin, prog;
 *   merge     spmv_dots (or apply + dots), step: one launch each, the
 *             reduction finished by the last block to finish (§3.3: dot_fin
 *             becomes a grid-wide barrier inside the macro-kernel);
 *   graph     merge + graph_cond (the while node's condition);
 *   cublasN   cublasn_prog (programs + the slots' device mirrors cuBLAS
 *             reads its coefficients from) and coef.
 * CPU reference of every kernel: the host backend (src/solvers/backend_host.c)
 * composing the same operation from primitives (src/solvers/steps.c). */
#ifndef CISPARSE_KRYLOV_KERNELS_H
#define CISPARSE_KRYLOV_KERNELS_H

#include <cuda_runtime.h>
#include "gpu/gpu_view.h"
#include "solvers/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device workspace of one backend, passed by value to the kernels. */
typedef struct kry_ws {
  int sms;              /* multiprocessors (cached once by the backend) */
  int cap;              /* partial sums per dot the buffer holds = largest grid of a reduction */
  double *part;         /* 2 * cap doubles: block partials of up to two dots */
  unsigned int *ticket; /* 0 between launches (the last block resets it) */
  double *s;            /* scalar slots (KS_COUNT and scratch after), device memory */
  double *hist;         /* history (hist_len doubles) or NULL */
  int hist_len;
} kry_ws;

/* Blocks of 256 threads a reduction of n elements uses: min(ceil(n/256),
 * 8 * sms, cap) (>= 1). */
int kry_reduce_grid(const kry_ws *w, cis_int n);

/* ---- primitives (cuda version); coefficient a = c * s[slot], slot < 0: c ---- */
/* x = v */
cis_status kry_launch_fill(cis_dtype t, cis_int n, void *x, double v, const kry_ws *w, cudaStream_t st);
/* y += a x */
cis_status kry_launch_axpy(cis_dtype t, cis_int n, double c, int slot, const void *x, void *y,
                           const kry_ws *w, cudaStream_t st);
/* y = x + a y */
cis_status kry_launch_xpay(cis_dtype t, cis_int n, const void *x, double c, int slot, void *y,
                           const kry_ws *w, cudaStream_t st);
/* x = a x */
cis_status kry_launch_scal(cis_dtype t, cis_int n, double c, int slot, void *x, const kry_ws *w,
                           cudaStream_t st);
/* y = d .* x (Jacobi) */
cis_status kry_launch_mul(cis_dtype t, cis_int n, const void *d, const void *x, void *y,
                          const kry_ws *w, cudaStream_t st);
/* dot_ini: w->part[b] = sum over block b of x_i y_i (double), for the
 * kry_reduce_grid(w, n) blocks. */
cis_status kry_launch_dot_ini(cis_dtype t, cis_int n, const void *x, const void *y, const kry_ws *w,
                              cudaStream_t st);
/* dot_fin: one block sums w->part[0..nparts) in a fixed order into
 * s[slot], then runs program prog (KP_NONE: none). */
cis_status kry_launch_dot_fin(int nparts, int slot, int prog, const kry_ws *w, cudaStream_t st);
/* Destination slots of take_sums, passed by value. */
typedef struct kry_dst {
  int k;              /* <= KS_NSUMS */
  int slot[KS_NSUMS]; /* each < KS_COUNT */
} kry_dst;
/* One thread: unless s[KS_FLAG] is set, s[d->slot[j]] = s[src + j] for
 * j < d->k; then kry_prog_run(prog) (the distributed backend's parts). */
cis_status kry_launch_take_sums(const kry_dst *d, int src, int prog, const kry_ws *w, cudaStream_t st);
/* kry_prog_run(prog, s, hist, hist_len) in a one-thread kernel. */
cis_status kry_launch_prog(int prog, const kry_ws *w, cudaStream_t st);

/* ---- fused macro-kernels (merge, merge_10, graph) ---- */
/* One launch of step `step` (backend.h), the dots it forms in its slots and
 * prog after them, run by the last block; nothing when s[KS_FLAG] != 0. */
cis_status kry_launch_step(cis_dtype t, cis_int n, kry_step step, const kry_vecs *v, int prog,
                           const kry_ws *w, cudaStream_t st);
/* y = A x with the kernel body of view A (kind != NONE), s[slot0] = (u0, y)
 * and, if u1, s[slot1] = (u1, y) (u == y allowed), then prog; one launch;
 * nothing when s[KS_FLAG] != 0. */
cis_status kry_launch_spmv_dots(const cis_spmv_view *A, const void *x, void *y, const void *u0,
                                int slot0, const void *u1, int slot1, int prog, const kry_ws *w,
                                cudaStream_t st);
/* The dots of spmv_dots alone (after an SpMV that cannot fuse): one launch;
 * nothing when s[KS_FLAG] != 0. */
cis_status kry_launch_dots(cis_dtype t, cis_int n, const void *y, const void *u0, int slot0,
                           const void *u1, int slot1, int prog, const kry_ws *w, cudaStream_t st);

/* ---- Davidson ---- */
/* out_i = r_i / (theta - d_i), |theta - d_i| kept >= 1e-8 (computed in double) */
cis_status kry_launch_dav_precond(cis_dtype t, cis_int n, const void *r, const void *d, double theta,
                                  void *out, const kry_ws *w, cudaStream_t st);
/* V_r = sum_{j<m} C[j + r*m] V_j for r < k <= min(m, KRY_COMBINE_MAX_K), in
 * place (V: m vectors of n, column-major; C: device, column-major m x k):
 * each row's first k values read before its results are written, summed in
 * the order of j in double (CPU reference: the host backend's combine with
 * out == V). Davidson's collapse to its Ritz vectors without room for
 * them. */
cis_status kry_launch_combine_inplace(cis_dtype t, cis_int n, void *V, int m, int k, const void *C, const kry_ws *w,
                                      cudaStream_t st);
/* x = sum_k val[k] e_{idx[k]} (k < nnz; idx, val device arrays, indices in
 * range and distinct: Davidson's unit and sparse guesses) */
cis_status kry_launch_sparse(cis_dtype t, cis_int n, void *x, cis_int nnz, const int64_t *idx, const double *val,
                             const kry_ws *w, cudaStream_t st);

/* ---- cublasN helpers ---- */
/* out[0] = (t)(c * s[slot]) (slot < 0: c): a device coefficient for cuBLAS. */
cis_status kry_launch_coef(cis_dtype t, double c, int slot, void *out, const kry_ws *w, cudaStream_t st);
/* cuBLAS in device pointer mode reads each coefficient from device memory
 * in the vector dtype: the mirrors hold -s (double) and (float)s, (float)-s
 * of the first KS_COUNT slots; fdot receives float cuBLAS dots (count slots)
 * before they are converted into s. */
typedef struct kry_mirror {
  double *dneg;      /* KS_COUNT */
  float *fpos, *fneg; /* KS_COUNT each */
  float *fdot;       /* count */
  int count;         /* slots in w->s (KS_COUNT + scratch) */
} kry_mirror;
/* One thread: s[k] = fdot[k] for every bit k of `pending`, then program
 * prog (KP_NONE: none), then every mirror recomputed from s. */
cis_status kry_launch_cublasn_prog(int prog, unsigned long long pending, const kry_mirror *m,
                                   const kry_ws *w, cudaStream_t st);

/* ---- graph ---- */
/* The while node's condition: ++*count; set h to s[KS_FLAG] == 0 && *count < limit. */
cis_status kry_launch_graph_cond(cudaGraphConditionalHandle h, unsigned int *count,
                                 unsigned int limit, const kry_ws *w, cudaStream_t st);

#ifdef __cplusplus
}
#endif
#endif
