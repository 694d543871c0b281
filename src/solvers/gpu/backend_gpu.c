/* backend_gpu.c: the device vector backend (backend.h) in the six versions
 * of Aliaga, Perez, Quintana-Orti, Euro-Par 2015 §4 (cis_solver_version):
 *
 *   cublasL   cuBLAS, CUBLAS_POINTER_MODE_HOST. CUDA 13 has no legacy cuBLAS
 *             API (cublas.h's implicit-handle interface is gone), so this is
 *             the v2 API in host pointer mode, which behaves as the paper's
 *             legacy calls did: the slots live in HOST memory, every dot
 *             returns its result to the host (cublas[SD]dot, synchronizing),
 *             programs run on the host (kry_prog_run), coefficients are host
 *             values (c * hs[slot]). xpay = scal + axpy; mul = [SD]dgmm (n x 1).
 *   cublasN   cuBLAS, CUBLAS_POINTER_MODE_DEVICE: slots in device memory,
 *             programs in a one-thread kernel. cuBLAS reads a coefficient
 *             c * s[slot] from device memory in the vector dtype, so the
 *             program kernel (kry_launch_cublasn_prog) also keeps mirrors of
 *             the slots: -s (double), (float)s and (float)-s. c = 1 (double)
 *             is the slot itself, c = +-1 a mirror, an immediate 1 a device
 *             constant: no extra launch for alpha, -alpha, beta, -omega,
 *             ...; any other c is written by a one-thread kernel
 *             (kry_launch_coef) into a small device ring. Dots: double
 *             cublasDdot writes straight into its slot; float cublasSdot
 *             writes a device float (cublasDotEx has no float-in/double-out
 *             combination) that the next program kernel converts into the
 *             double slot before it runs. The host tracks which mirrors are
 *             stale (a dot or set_scalars since the last program kernel) and
 *             which float dots wait for conversion; using one of those first
 *             launches the program kernel with no program (a refresh).
 *   cuda      our kernels, one per primitive; dot = dot_ini + dot_fin.
 *   merge     cuda + the fused macro-kernels spmv_dots and step (one launch
 *             each, dot_fin in the last block to finish).
 *   merge_10  merge; the solver asks `loop` to read KS_FLAG every 10 iterations.
 *   graph     merge; `loop` captures one iteration into the body of a CUDA
 *             graph while node whose condition kernel tests KS_FLAG, so the
 *             whole solve is one graph launch and one synchronization.
 *
 * `launches` counts what the host enqueues: kernel launches, cuBLAS and
 * cuSPARSE calls (an apply counts 1), memcpys and memsets. A graph launch
 * counts 1 (the kernels of its body run on the device without the host: the
 * body's kernels per iteration are those of merge plus one condition kernel).
 *
 * SpMV: cis_operator_apply(A, 1, x, 0, y, stream); spmv_dots fuses its dots
 * into our own kernel body when A was made from one of our GPU plans whose
 * kernel takes an epilogue (gpu_view.h), else apply + the dots kernel. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "gpu/gpu_internal.h"
#include "gpu/gpu_view.h"
#include "operators/operator_internal.h"
#include "solvers/backend.h"
#include "solvers/gpu/krylov_kernels.h"
#include "gpu/cuda_check.h"


#define N_SCRATCH KS_SCRATCH /* device slots after KS_COUNT: [KS_COUNT] = dot_host (kry_scalars.h) */
#define N_COEF 8      /* cublasN coefficient ring; entry 0 holds the constant 1 */
#define MAX_PARTS 4096 /* partial sums per dot (largest reduction grid) */

typedef struct gpu_be {
  cudaStream_t stream;
  cublasHandle_t cb;              /* cublasL/N at creation; others on the first combine */
  cublasPointerMode_t cb_mode;
  kry_ws w;                       /* device slots, partials, ticket, history */
  unsigned int *d_count;          /* graph iteration counter */
  double *hs, *hhist;             /* cublasL: host slots and history */
  double *pin;                    /* pinned staging for slot reads (KS_COUNT + N_SCRATCH) */
  void *coef;                     /* cublasN: N_COEF device values of the dtype */
  int coef_next;
  kry_mirror mir;                 /* cublasN: slot mirrors and float dots (one allocation) */
  void *mir_mem;
  unsigned long long dirty;       /* cublasN: slots whose mirrors are stale */
  unsigned long long pending;     /* cublasN: slots whose float dot waits in mir.fdot */
  double *d_c;                    /* combine: device coefficients, cap_c doubles */
  void *h_c;                      /* host staging */
  size_t cap_c;
} gpu_be;

static gpu_be *G(kry_be *B) { return (gpu_be *)B->impl; }
static size_t vsize(const kry_be *B) { return cis_dtype_size(B->dtype); }
static int is_cublas(const kry_be *B) {
  return B->version == CIS_VER_CUBLAS_L || B->version == CIS_VER_CUBLAS_N;
}
static int host_slots(const kry_be *B) { return B->version == CIS_VER_CUBLAS_L; }
#define STREAM(B) (G(B)->stream)
static int cublas_n(const kry_be *B) { return B->version == CIS_VER_CUBLAS_N; }
static unsigned long long slot_bits(int first, int count) {
  return (count >= 64 ? ~0ull : ((1ull << count) - 1)) << first;
}

/* cublasN: pending float dots into their slots, program prog, fresh mirrors. */
static cis_status cbn_prog(kry_be *B, int prog) {
  gpu_be *g = G(B);
  cis_status st = kry_launch_cublasn_prog(prog, g->pending, &g->mir, &g->w, g->stream);
  B->launches++;
  g->dirty = g->pending = 0;
  return st;
}

static cis_status need_cublas(kry_be *B) {
  gpu_be *g = G(B);
  if (g->cb) return CIS_OK;
  CIS_CUBLAS_CHECK(cublasCreate(&g->cb));
  CIS_CUBLAS_CHECK(cublasSetStream(g->cb, g->stream));
  CIS_CUBLAS_CHECK(cublasSetPointerMode(g->cb, CUBLAS_POINTER_MODE_HOST));
  g->cb_mode = CUBLAS_POINTER_MODE_HOST;
  return CIS_OK;
}

static cis_status cb_mode(kry_be *B, cublasPointerMode_t m) {
  gpu_be *g = G(B);
  cis_status st = need_cublas(B);
  if (st != CIS_OK) return st;
  if (g->cb_mode != m) {
    CIS_CUBLAS_CHECK(cublasSetPointerMode(g->cb, m));
    g->cb_mode = m;
  }
  return CIS_OK;
}

/* ---- memory ---------------------------------------------------------------- */

/* count vectors of n values on the device; CIS_ERR_DEVICE_OOM naming `what`. */
static cis_status g_alloc(kry_be *B, void **v, cis_int count, const char *what) {
  int64_t bytes;
  *v = NULL;
  if (count < 0 || cis_mul_overflows(count * B->n, (int64_t)vsize(B), &bytes))
    return cis_error(CIS_ERR_OVERFLOW, "%s: %lld vectors of %lld values overflow", what,
                     (long long)count, (long long)B->n);
  return cis_gpu_alloc_copy(v, NULL, (size_t)bytes, what ? what : "solver vectors");
}

static void g_release(kry_be *B, void *v) { cis_gpu_free(v); }

static cis_status g_upload(kry_be *B, void *dst, const void *host, cis_int count) {
  if (count <= 0) return CIS_OK;
  CIS_CUDA_CHECK(cudaMemcpyAsync(dst, host, (size_t)count * vsize(B), cudaMemcpyHostToDevice, STREAM(B)));
  B->launches++;
  return CIS_OK;
}

static cis_status g_download(kry_be *B, void *host, const void *src, cis_int count) {
  if (count > 0) {
    CIS_CUDA_CHECK(cudaMemcpyAsync(host, src, (size_t)count * vsize(B), cudaMemcpyDeviceToHost, STREAM(B)));
    B->launches++;
  }
  CIS_CUDA_CHECK(cudaStreamSynchronize(STREAM(B)));
  return CIS_OK;
}

/* ---- scalars ----------------------------------------------------------------- */

static cis_status check_slots(int first, int count, const char *who) {
  if (first < 0 || count < 0 || first + count > KS_COUNT)
    return cis_error(CIS_ERR_INVALID, "%s: slots %d..%d outside 0..%d", who, first, first + count - 1,
                     KS_COUNT - 1);
  return CIS_OK;
}

static cis_status g_set_scalars(kry_be *B, int first, int count, const double *v) {
  gpu_be *g = G(B);
  cis_status st = check_slots(first, count, "set_scalars");
  if (st != CIS_OK || count == 0) return st;
  if (host_slots(B)) {
    memcpy(g->hs + first, v, (size_t)count * sizeof(double));
    return CIS_OK;
  }
  g->dirty |= slot_bits(first, count); /* cublasN: these mirrors are stale, */
  g->pending &= ~slot_bits(first, count); /* and no float dot may overwrite them */
  /* through pinned memory so the copy stays asynchronous; wait for an
   * earlier read of the staging buffer first (it is only read by the host) */
  CIS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  memcpy(g->pin + first, v, (size_t)count * sizeof(double));
  CIS_CUDA_CHECK(cudaMemcpyAsync(g->w.s + first, g->pin + first, (size_t)count * sizeof(double),
                                 cudaMemcpyHostToDevice, g->stream));
  B->launches++;
  return CIS_OK;
}

static cis_status read_slots(kry_be *B, int first, int count, double *v) {
  gpu_be *g = G(B);
  if (host_slots(B)) {
    CIS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    memcpy(v, g->hs + first, (size_t)count * sizeof(double));
    return CIS_OK;
  }
  if (cublas_n(B) && (g->pending & slot_bits(first, count))) {
    cis_status st = cbn_prog(B, KP_NONE); /* float dots into their slots first */
    if (st != CIS_OK) return st;
  }
  CIS_CUDA_CHECK(cudaMemcpyAsync(g->pin + first, g->w.s + first, (size_t)count * sizeof(double),
                                 cudaMemcpyDeviceToHost, g->stream));
  B->launches++;
  CIS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  memcpy(v, g->pin + first, (size_t)count * sizeof(double));
  return CIS_OK;
}

static cis_status g_get_scalars(kry_be *B, int first, int count, double *v) {
  cis_status st = check_slots(first, count, "get_scalars");
  if (st != CIS_OK) return st;
  return read_slots(B, first, count, v);
}

static cis_status g_run_prog(kry_be *B, int prog) {
  gpu_be *g = G(B);
  if (prog == KP_NONE) return CIS_OK;
  if (host_slots(B)) {
    kry_prog_run(prog, g->hs, g->hhist, B->hist_len);
    return CIS_OK;
  }
  if (cublas_n(B)) return cbn_prog(B, prog);
  B->launches++;
  return kry_launch_prog(prog, &g->w, g->stream);
}

static cis_status g_get_history(kry_be *B, double *host, int len) {
  gpu_be *g = G(B);
  if (len > B->hist_len) len = B->hist_len; /* as the host backend: the capacity at most */
  CIS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  if (len <= 0) return CIS_OK;
  if (host_slots(B)) {
    memcpy(host, g->hhist, (size_t)len * sizeof(double));
    return CIS_OK;
  }
  CIS_CUDA_CHECK(cudaMemcpy(host, g->w.hist, (size_t)len * sizeof(double), cudaMemcpyDeviceToHost));
  return CIS_OK;
}

/* ---- primitives ---------------------------------------------------------------- */

static cis_status g_apply(kry_be *B, const cis_operator *A, const void *x, void *y) {
  B->launches++;
  return cis_operator_apply(A, 1.0, x, 0.0, y, (cis_stream)STREAM(B));
}

static cis_status g_copy(kry_be *B, const void *x, void *y) {
  gpu_be *g = G(B);
  B->launches++;
  if (is_cublas(B)) {
    if (B->dtype == CIS_F64) CIS_CUBLAS_CHECK(cublasDcopy_64(g->cb, B->n, x, 1, y, 1));
    else CIS_CUBLAS_CHECK(cublasScopy_64(g->cb, B->n, x, 1, y, 1));
    return CIS_OK;
  }
  if (x != y)
    CIS_CUDA_CHECK(cudaMemcpyAsync(y, x, (size_t)B->n * vsize(B), cudaMemcpyDeviceToDevice, g->stream));
  return CIS_OK;
}

static cis_status g_fill(kry_be *B, void *x, double v) {
  B->launches++;
  return kry_launch_fill(B->dtype, B->n, x, v, &G(B)->w, STREAM(B));
}

/* cublasL: the host value of a coefficient. */
static double host_coef(kry_be *B, kry_coef a) { return a.slot < 0 ? a.c : a.c * G(B)->hs[a.slot]; }

/* cublasN: a device pointer to the coefficient in the backend's dtype. */
static cis_status dev_coef(kry_be *B, kry_coef a, const void **p) {
  gpu_be *g = G(B);
  cis_status st;
  const int dbl = B->dtype == CIS_F64;
  const unsigned long long bit = a.slot >= 0 ? 1ull << a.slot : 0;
  if (a.slot < 0 && a.c == 1.0) {
    *p = g->coef; /* ring entry 0: the constant 1 */
    return CIS_OK;
  }
  if (a.slot >= 0 && a.c == 1.0 && dbl) {
    *p = g->w.s + a.slot; /* the slot itself */
    return CIS_OK;
  }
  if (a.slot >= 0 && a.slot < KS_COUNT && (a.c == 1.0 || a.c == -1.0)) {
    if (((g->dirty | g->pending) & bit) && (st = cbn_prog(B, KP_NONE)) != CIS_OK) return st;
    *p = a.c == 1.0 ? (const void *)(g->mir.fpos + a.slot)
                    : dbl ? (const void *)(g->mir.dneg + a.slot) : (const void *)(g->mir.fneg + a.slot);
    return CIS_OK;
  }
  if ((g->pending & bit) && (st = cbn_prog(B, KP_NONE)) != CIS_OK) return st;
  g->coef_next = g->coef_next % (N_COEF - 1) + 1;
  void *e = (char *)g->coef + (size_t)g->coef_next * vsize(B);
  B->launches++;
  *p = e;
  return kry_launch_coef(B->dtype, a.c, a.slot, e, &g->w, g->stream);
}

/* cuBLAS y += a x in the version's pointer mode. */
static cis_status cb_axpy(kry_be *B, kry_coef a, const void *x, void *y) {
  gpu_be *g = G(B);
  cis_status st;
  B->launches++;
  if (host_slots(B)) {
    double ad = host_coef(B, a);
    float af = (float)ad;
    if (B->dtype == CIS_F64) CIS_CUBLAS_CHECK(cublasDaxpy_64(g->cb, B->n, &ad, x, 1, y, 1));
    else CIS_CUBLAS_CHECK(cublasSaxpy_64(g->cb, B->n, &af, x, 1, y, 1));
    return CIS_OK;
  }
  const void *pa;
  if ((st = dev_coef(B, a, &pa)) != CIS_OK) return st;
  if (B->dtype == CIS_F64) CIS_CUBLAS_CHECK(cublasDaxpy_64(g->cb, B->n, pa, x, 1, y, 1));
  else CIS_CUBLAS_CHECK(cublasSaxpy_64(g->cb, B->n, pa, x, 1, y, 1));
  return CIS_OK;
}

static cis_status cb_scal(kry_be *B, kry_coef a, void *x) {
  gpu_be *g = G(B);
  cis_status st;
  B->launches++;
  if (host_slots(B)) {
    double ad = host_coef(B, a);
    float af = (float)ad;
    if (B->dtype == CIS_F64) CIS_CUBLAS_CHECK(cublasDscal_64(g->cb, B->n, &ad, x, 1));
    else CIS_CUBLAS_CHECK(cublasSscal_64(g->cb, B->n, &af, x, 1));
    return CIS_OK;
  }
  const void *pa;
  if ((st = dev_coef(B, a, &pa)) != CIS_OK) return st;
  if (B->dtype == CIS_F64) CIS_CUBLAS_CHECK(cublasDscal_64(g->cb, B->n, pa, x, 1));
  else CIS_CUBLAS_CHECK(cublasSscal_64(g->cb, B->n, pa, x, 1));
  return CIS_OK;
}

static cis_status g_axpy(kry_be *B, kry_coef a, const void *x, void *y) {
  if (is_cublas(B)) return cb_axpy(B, a, x, y);
  B->launches++;
  return kry_launch_axpy(B->dtype, B->n, a.c, a.slot, x, y, &G(B)->w, STREAM(B));
}

static cis_status g_scal(kry_be *B, kry_coef a, void *x) {
  if (is_cublas(B)) return cb_scal(B, a, x);
  B->launches++;
  return kry_launch_scal(B->dtype, B->n, a.c, a.slot, x, &G(B)->w, STREAM(B));
}

/* y = x + a y: cuBLAS has no xpay, so scal + axpy (two calls). */
static cis_status g_xpay(kry_be *B, const void *x, kry_coef a, void *y) {
  cis_status st;
  if (is_cublas(B)) {
    if ((st = cb_scal(B, a, y)) != CIS_OK) return st;
    return cb_axpy(B, kry_imm(1.0), x, y);
  }
  B->launches++;
  return kry_launch_xpay(B->dtype, B->n, x, a.c, a.slot, y, &G(B)->w, STREAM(B));
}

/* y = d .* x: cuBLAS dgmm of the n x 1 matrix x by diag(d). */
static cis_status g_mul(kry_be *B, const void *d, const void *x, void *y) {
  gpu_be *g = G(B);
  B->launches++;
  if (is_cublas(B)) {
    if (B->dtype == CIS_F64)
      CIS_CUBLAS_CHECK(cublasDdgmm_64(g->cb, CUBLAS_SIDE_LEFT, B->n, 1, x, B->n, d, 1, y, B->n));
    else
      CIS_CUBLAS_CHECK(cublasSdgmm_64(g->cb, CUBLAS_SIDE_LEFT, B->n, 1, x, B->n, d, 1, y, B->n));
    return CIS_OK;
  }
  return kry_launch_mul(B->dtype, B->n, d, x, y, &g->w, g->stream);
}

/* s[slot] = (x, y) in the version's way (slot may be a scratch slot). */
static cis_status dot_to_slot(kry_be *B, const void *x, const void *y, int slot) {
  gpu_be *g = G(B);
  cis_status st;
  if (B->version == CIS_VER_CUBLAS_L) { /* host mode: the result returns to the host */
    B->launches++;
    if (B->dtype == CIS_F64) {
      CIS_CUBLAS_CHECK(cublasDdot_64(g->cb, B->n, x, 1, y, 1, &g->hs[slot]));
    } else {
      float r = 0;
      CIS_CUBLAS_CHECK(cublasSdot_64(g->cb, B->n, x, 1, y, 1, &r));
      g->hs[slot] = r;
    }
    return CIS_OK;
  }
  if (B->version == CIS_VER_CUBLAS_N) {
    B->launches++;
    g->dirty |= 1ull << slot;
    if (B->dtype == CIS_F64) {
      CIS_CUBLAS_CHECK(cublasDdot_64(g->cb, B->n, x, 1, y, 1, g->w.s + slot));
      g->pending &= ~(1ull << slot);
      return CIS_OK;
    }
    CIS_CUBLAS_CHECK(cublasSdot_64(g->cb, B->n, x, 1, y, 1, g->mir.fdot + slot));
    g->pending |= 1ull << slot; /* converted by the next program kernel */
    return CIS_OK;
  }
  B->launches += 2; /* dot_ini + dot_fin */
  if ((st = kry_launch_dot_ini(B->dtype, B->n, x, y, &g->w, g->stream)) != CIS_OK) return st;
  return kry_launch_dot_fin(kry_reduce_grid(&g->w, B->n), slot, KP_NONE, &g->w, g->stream);
}

static cis_status g_dot(kry_be *B, const void *x, const void *y, int slot) {
  cis_status st = check_slots(slot, 1, "dot");
  if (st != CIS_OK) return st;
  return dot_to_slot(B, x, y, slot);
}

/* *r = (x, y) through the scratch slot KS_COUNT (synchronizes). */
static cis_status g_dot_host(kry_be *B, const void *x, const void *y, double *r) {
  cis_status st;
  if ((st = dot_to_slot(B, x, y, KS_COUNT)) != CIS_OK) return st;
  return read_slots(B, KS_COUNT, 1, r);
}

/* The coefficient staging of combine, dots_host and gemv: count values of
 * the dtype in pinned host memory (h_c) and device memory (d_c), grown
 * geometrically (Davidson's subspace grows by one vector per iteration); the
 * stream drained first, since the previous staging may still be in flight.
 * Leaves cuBLAS in host pointer mode. */
static cis_status staging(kry_be *B, size_t count) {
  gpu_be *g = G(B);
  cis_status st;
  if ((st = cb_mode(B, CUBLAS_POINTER_MODE_HOST)) != CIS_OK) return st;
  CIS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  if (count <= g->cap_c) return CIS_OK;
  size_t cap = 2 * g->cap_c > count ? 2 * g->cap_c : count;
  if (cap < 1024) cap = 1024;
  cis_gpu_free(g->d_c);
  cudaFreeHost(g->h_c);
  g->d_c = NULL;
  g->h_c = NULL;
  g->cap_c = 0;
  if ((st = cis_gpu_alloc_copy((void **)&g->d_c, NULL, cap * sizeof(double), "Davidson coefficients")) != CIS_OK)
    return st;
  CIS_CUDA_CHECK(cudaMallocHost(&g->h_c, cap * sizeof(double)));
  g->cap_c = cap;
  return CIS_OK;
}

/* Back to the version's pointer mode after a staged call. */
static cis_status staged_done(kry_be *B) {
  return cb_mode(B, B->version == CIS_VER_CUBLAS_N ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST);
}

/* Host coefficient i of the staging set to v (dtype of the backend). */
static void stage_set(kry_be *B, size_t i, double v) {
  if (B->dtype == CIS_F64) ((double *)G(B)->h_c)[i] = v;
  else ((float *)G(B)->h_c)[i] = (float)v;
}

/* out (n x k, column-major) = V (n x m) C with C[j + r*m] = c[j*m + r]. */
static cis_status g_combine(kry_be *B, const void *V, const double *c, int m, int k, void *out) {
  gpu_be *g = G(B);
  cis_status st;
  size_t need = (size_t)m * (size_t)k;
  if (m <= 0 || k <= 0 || k > m) return cis_error(CIS_ERR_INVALID, "combine: m = %d, k = %d", m, k);
  if ((st = staging(B, need)) != CIS_OK) return st;
  for (int r = 0; r < k; ++r)
    for (int j = 0; j < m; ++j) stage_set(B, (size_t)j + (size_t)r * m, c[j * m + r]);
  CIS_CUDA_CHECK(cudaMemcpyAsync(g->d_c, g->h_c, need * vsize(B), cudaMemcpyHostToDevice, g->stream));
  B->launches += 2;
  if (out == V) { /* in place: a GEMM may not overwrite its input */
    st = kry_launch_combine_inplace(B->dtype, B->n, out, m, k, g->d_c, &g->w, g->stream);
    return st != CIS_OK ? st : staged_done(B);
  }
  if (B->dtype == CIS_F64) {
    const double one = 1.0, zero = 0.0;
    CIS_CUBLAS_CHECK(cublasDgemm_64(g->cb, CUBLAS_OP_N, CUBLAS_OP_N, B->n, k, m, &one, V, B->n, g->d_c, m,
                            &zero, out, B->n));
  } else {
    const float one = 1.0f, zero = 0.0f;
    CIS_CUBLAS_CHECK(cublasSgemm_64(g->cb, CUBLAS_OP_N, CUBLAS_OP_N, B->n, k, m, &one, V, B->n,
                            (const float *)g->d_c, m, &zero, out, B->n));
  }
  return staged_done(B);
}

/* h = V^T x: one transposed GEMV into the staging, one copy back. */
static cis_status g_dots_host(kry_be *B, const void *V, int m, const void *x, double *h) {
  gpu_be *g = G(B);
  cis_status st;
  if (m <= 0) return CIS_OK;
  if ((st = staging(B, (size_t)m)) != CIS_OK) return st;
  B->launches += 2;
  if (B->dtype == CIS_F64) {
    const double one = 1.0, zero = 0.0;
    CIS_CUBLAS_CHECK(cublasDgemv_64(g->cb, CUBLAS_OP_T, B->n, m, &one, V, B->n, x, 1, &zero, g->d_c, 1));
  } else {
    const float one = 1.0f, zero = 0.0f;
    CIS_CUBLAS_CHECK(cublasSgemv_64(g->cb, CUBLAS_OP_T, B->n, m, &one, V, B->n, x, 1, &zero, (float *)g->d_c, 1));
  }
  CIS_CUDA_CHECK(cudaMemcpyAsync(g->h_c, g->d_c, (size_t)m * vsize(B), cudaMemcpyDeviceToHost, g->stream));
  CIS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
  for (int j = 0; j < m; ++j) h[j] = B->dtype == CIS_F64 ? ((double *)g->h_c)[j] : ((float *)g->h_c)[j];
  return staged_done(B);
}

/* x += a V h: h staged to the device, one GEMV. */
static cis_status g_gemv(kry_be *B, double a, const void *V, const double *h, int m, void *x) {
  gpu_be *g = G(B);
  cis_status st;
  if (m <= 0) return CIS_OK;
  if ((st = staging(B, (size_t)m)) != CIS_OK) return st;
  for (int j = 0; j < m; ++j) stage_set(B, (size_t)j, h[j]);
  CIS_CUDA_CHECK(cudaMemcpyAsync(g->d_c, g->h_c, (size_t)m * vsize(B), cudaMemcpyHostToDevice, g->stream));
  B->launches += 2;
  if (B->dtype == CIS_F64) {
    const double one = 1.0;
    CIS_CUBLAS_CHECK(cublasDgemv_64(g->cb, CUBLAS_OP_N, B->n, m, &a, V, B->n, g->d_c, 1, &one, x, 1));
  } else {
    const float af = (float)a, one = 1.0f;
    CIS_CUBLAS_CHECK(cublasSgemv_64(g->cb, CUBLAS_OP_N, B->n, m, &af, V, B->n, (const float *)g->d_c, 1, &one, x, 1));
  }
  return staged_done(B);
}

static cis_status g_dav_precond(kry_be *B, const void *r, const void *d, double theta, void *t) {
  B->launches++;
  return kry_launch_dav_precond(B->dtype, B->n, r, d, theta, t, &G(B)->w, STREAM(B));
}

/* The entries go up in one copy (indices, then values) to a buffer freed
 * once the kernels have read it. */
static cis_status g_sparse(kry_be *B, void *x, cis_int nnz, const cis_int *idx, const double *val) {
  cis_status st;
  void *buf = NULL, *dev = NULL;
  const size_t bytes = (size_t)nnz * (sizeof(int64_t) + sizeof(double));
  if (nnz > 0) {
    CIS_TRY(cis_alloc_array(&buf, nnz, sizeof(int64_t) + sizeof(double), "sparse vector staging"));
    memcpy(buf, idx, (size_t)nnz * sizeof(int64_t));
    memcpy((int64_t *)buf + nnz, val, (size_t)nnz * sizeof(double));
    CIS_CUDA_TRY(cudaMalloc(&dev, bytes));
    CIS_CUDA_TRY(cudaMemcpyAsync(dev, buf, bytes, cudaMemcpyHostToDevice, STREAM(B)));
  }
  B->launches += 2;
  CIS_TRY(kry_launch_sparse(B->dtype, B->n, x, nnz, dev, (const double *)((int64_t *)dev + nnz), &G(B)->w, STREAM(B)));
  if (dev) CIS_CUDA_TRY(cudaStreamSynchronize(STREAM(B)));
  st = CIS_OK;
cleanup:
  if (dev) cudaFree(dev);
  cis_free(buf);
  return st;
}

/* ---- fused macro-kernels (merge, merge_10, graph) ----------------------------- */

static cis_status g_spmv_dots(kry_be *B, const cis_operator *A, const void *x, void *y,
                              const void *u0, int slot0, const void *u1, int slot1, int prog) {
  gpu_be *g = G(B);
  cis_status st;
  cis_spmv_view v;
  if (!A || !u0) return cis_error(CIS_ERR_INVALID, "spmv_dots: NULL operator or u0");
  /* a scratch slot too: the distributed backend's partial dots (KS_SUMS..) */
  for (int k = 0; k < (u1 ? 2 : 1); ++k) {
    const int slot = k ? slot1 : slot0;
    if (slot < 0 || slot >= KS_COUNT + N_SCRATCH)
      return cis_error(CIS_ERR_INVALID, "spmv_dots: slot %d outside 0..%d", slot, KS_COUNT + N_SCRATCH - 1);
  }
  cis_gpu_plan_view(A->plan, &v);
  if (v.kind != CIS_SPMV_NONE && v.t == B->dtype && v.rows == B->n && A->where == CIS_MEM_DEVICE) {
    B->launches++;
    return kry_launch_spmv_dots(&v, x, y, u0, slot0, u1, slot1, prog, &g->w, g->stream);
  }
  /* the operator cannot fuse: SpMV, then the dots in one launch */
  B->launches += 2;
  if ((st = cis_operator_apply(A, 1.0, x, 0.0, y, (cis_stream)g->stream)) != CIS_OK) return st;
  return kry_launch_dots(B->dtype, B->n, y, u0, slot0, u1, slot1, prog, &g->w, g->stream);
}

static cis_status g_step(kry_be *B, kry_step step, const kry_vecs *v, int prog) {
  if (!v) return cis_error(CIS_ERR_INVALID, "step: NULL vectors");
  B->launches++;
  return kry_launch_step(B->dtype, B->n, step, v, prog, &G(B)->w, STREAM(B));
}

/* ---- iteration loops ------------------------------------------------------------ */

static cis_status read_flag(kry_be *B, double *flag) { return read_slots(B, KS_FLAG, 1, flag); }

/* Enqueue iterations; read KS_FLAG every check_every (and at the limit);
 * at most max_iters + check_every iterations. */
static cis_status plain_loop(kry_be *B, cis_status (*iteration)(void *), void *ctx, int max_iters,
                             int check_every) {
  cis_status st;
  double flag = 0;
  if (check_every < 1) check_every = 1;
  if ((st = read_flag(B, &flag)) != CIS_OK || flag != KF_RUNNING) return st;
  for (int it = 1; it <= max_iters + check_every; ++it) {
    if ((st = iteration(ctx)) != CIS_OK) return st;
    if (it % check_every == 0 || it == max_iters) {
      if ((st = read_flag(B, &flag)) != CIS_OK) return st;
      if (flag != KF_RUNNING) return CIS_OK;
    }
  }
  return CIS_OK;
}

/* Capture `count` iterations (and, with a handle, the condition kernel) on
 * the stream into graph `into` (NULL: a new graph returned in *out). The
 * captured calls are not launches: the counter is restored. */
static cis_status capture(kry_be *B, cudaGraph_t into, cudaGraph_t *out, int count,
                          cis_status (*iteration)(void *), void *ctx, int cond,
                          cudaGraphConditionalHandle h, unsigned limit) {
  gpu_be *g = G(B);
  cis_status st = CIS_OK;
  cudaError_t e;
  int64_t saved = B->launches;
  if (into)
    CIS_CUDA_CHECK(cudaStreamBeginCaptureToGraph(g->stream, into, NULL, NULL, 0,
                                                 cudaStreamCaptureModeThreadLocal));
  else
    CIS_CUDA_CHECK(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < count && st == CIS_OK; ++i) st = iteration(ctx);
  if (st == CIS_OK && cond) st = kry_launch_graph_cond(h, g->d_count, limit, &g->w, g->stream);
  cudaGraph_t got = NULL;
  e = cudaStreamEndCapture(g->stream, &got); /* always end the capture */
  B->launches = saved;
  if (st != CIS_OK) {
    if (!into && got) cudaGraphDestroy(got);
    return st;
  }
  if (e != cudaSuccess)
    return cis_error(CIS_ERR_CUDA, "%s:%d: capture of the solver iteration: %s (the iteration must "
                     "only enqueue work on the backend's stream)", __FILE__, __LINE__, cudaGetErrorString(e));
  if (out) *out = got;
  return CIS_OK;
}

/* Fallback without conditional nodes: 10 iterations per graph launch, the
 * flag read after each launch. */
static cis_status graph_loop_unrolled(kry_be *B, cis_status (*iteration)(void *), void *ctx,
                                      int max_iters) {
  gpu_be *g = G(B);
  cis_status st;
  cudaGraph_t gr = NULL;
  cudaGraphExec_t ge = NULL;
  double flag = 0;
  const int per = 10;
  if ((st = read_flag(B, &flag)) != CIS_OK || flag != KF_RUNNING) return st;
  if ((st = capture(B, NULL, &gr, per, iteration, ctx, 0, 0, 0)) != CIS_OK) return st;
  if (cudaGraphInstantiate(&ge, gr, 0) != cudaSuccess) {
    cudaGraphDestroy(gr);
    return cis_error(CIS_ERR_CUDA, "graph: cannot instantiate the captured iterations: %s",
                     cudaGetErrorString(cudaGetLastError()));
  }
  for (int it = 0; it < max_iters + per; it += per) {
    cudaError_t e = cudaGraphLaunch(ge, g->stream);
    B->launches++;
    if (e != cudaSuccess) {
      st = cis_error(CIS_ERR_CUDA, "%s:%d: cudaGraphLaunch: %s", __FILE__, __LINE__, cudaGetErrorString(e));
      break;
    }
    if ((st = read_flag(B, &flag)) != CIS_OK || flag != KF_RUNNING) break;
  }
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(gr);
  return st;
}

/* graph: one iteration captured into the body of a while node whose
 * condition kernel (kry_launch_graph_cond) keeps it running while KS_FLAG is
 * 0 and fewer than max_iters + check_every bodies ran; instantiated once,
 * launched once, one synchronization. Needs CUDA >= 12.4 conditional nodes;
 * when the runtime refuses them, graph_loop_unrolled (10 iterations per
 * launch, a flag read in between) runs instead and a note goes to stderr. */
static cis_status graph_loop(kry_be *B, cis_status (*iteration)(void *), void *ctx, int max_iters,
                             int check_every) {
  gpu_be *g = G(B);
  cis_status st;
  cudaGraph_t gr = NULL;
  cudaGraphExec_t ge = NULL;
  cudaGraphConditionalHandle h;
  cudaGraphNode_t node;
  struct cudaGraphNodeParams p;
  double flag = 0;
  cudaError_t e;
  unsigned limit = (unsigned)max_iters + (unsigned)(check_every > 0 ? check_every : 1);
  if ((st = read_flag(B, &flag)) != CIS_OK || flag != KF_RUNNING) return st;
  CIS_CUDA_CHECK(cudaGraphCreate(&gr, 0));
  e = cudaGraphConditionalHandleCreate(&h, gr, 1, cudaGraphCondAssignDefault);
  if (e == cudaSuccess) {
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 1;
    e = cudaGraphAddNode(&node, gr, NULL, NULL, 0, &p);
  }
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    cudaGraphDestroy(gr);
    fprintf(stderr, "note: CUDA graph conditional nodes refused (%s): graph runs 10 iterations per "
                    "graph launch instead\n", cudaGetErrorString(e));
    return graph_loop_unrolled(B, iteration, ctx, max_iters);
  }
  CIS_TRY(capture(B, p.conditional.phGraph_out[0], NULL, 1, iteration, ctx, 1, h, limit));
  if ((e = cudaGraphInstantiate(&ge, gr, 0)) != cudaSuccess) {
    st = cis_error(CIS_ERR_CUDA, "%s:%d: cudaGraphInstantiate (while node): %s", __FILE__, __LINE__,
                   cudaGetErrorString(e));
    goto cleanup;
  }
  if ((e = cudaMemsetAsync(g->d_count, 0, sizeof(unsigned), g->stream)) != cudaSuccess ||
      (e = cudaGraphLaunch(ge, g->stream)) != cudaSuccess ||
      (e = cudaStreamSynchronize(g->stream)) != cudaSuccess) {
    st = cis_error(CIS_ERR_CUDA, "%s:%d: graph launch: %s", __FILE__, __LINE__, cudaGetErrorString(e));
    goto cleanup;
  }
  B->launches += 2; /* the memset and the graph launch */
  st = CIS_OK;
cleanup:
  if (ge) cudaGraphExecDestroy(ge);
  cudaGraphDestroy(gr);
  return st;
}

static cis_status g_loop(kry_be *B, cis_status (*iteration)(void *), void *ctx, int max_iters,
                         int check_every) {
  if (!iteration) return cis_error(CIS_ERR_INVALID, "loop: NULL iteration");
  if (B->version == CIS_VER_GRAPH) return graph_loop(B, iteration, ctx, max_iters, check_every);
  return plain_loop(B, iteration, ctx, max_iters, check_every);
}

static cis_status g_sync(kry_be *B) {
  CIS_CUDA_CHECK(cudaStreamSynchronize(STREAM(B)));
  return CIS_OK;
}

/* The slots: host memory for cublasL, device memory otherwise. */
static cis_status g_slots(kry_be *B, double **s, cis_memspace *where) {
  *s = host_slots(B) ? G(B)->hs : G(B)->w.s;
  *where = host_slots(B) ? CIS_MEM_HOST : CIS_MEM_DEVICE;
  return CIS_OK;
}

/* cuda/merge: one thread in stream order; cublasL: on the host after the
 * stream (its dots already returned there); cublasN keeps mirrors of the
 * slots that this would bypass. */
static cis_status g_take_sums(kry_be *B, const int *dst, int k, int src, int prog) {
  gpu_be *g = G(B);
  if (k < 0 || k > KS_NSUMS || src < KS_COUNT || src + k > KS_COUNT + N_SCRATCH)
    return cis_error(CIS_ERR_INVALID, "take_sums: %d sums from slot %d", k, src);
  for (int j = 0; j < k; ++j)
    if (dst[j] < 0 || dst[j] >= KS_COUNT) return cis_error(CIS_ERR_INVALID, "take_sums: slot %d", dst[j]);
  if (cublas_n(B)) return cis_error(CIS_ERR_UNSUPPORTED, "take_sums: not in version cublasN");
  if (host_slots(B)) {
    CIS_CUDA_CHECK(cudaStreamSynchronize(g->stream));
    if (g->hs[KS_FLAG] == KF_RUNNING)
      for (int j = 0; j < k; ++j) g->hs[dst[j]] = g->hs[src + j];
    kry_prog_run(prog, g->hs, g->hhist, B->hist_len);
    return CIS_OK;
  }
  kry_dst d;
  memset(&d, 0, sizeof d);
  d.k = k;
  for (int j = 0; j < k; ++j) d.slot[j] = dst[j];
  B->launches++;
  return kry_launch_take_sums(&d, src, prog, &g->w, g->stream);
}

/* Free the backend's device and host state (not B: kry_be_free does). */
static void g_destroy(kry_be *B) {
  gpu_be *g;
  if (!B) return;
  g = G(B);
  if (g) {
    if (g->stream) cudaStreamSynchronize(g->stream);
    if (g->cb) cublasDestroy(g->cb);
    cis_gpu_free(g->w.s);
    cis_gpu_free(g->w.part);
    cis_gpu_free(g->w.ticket);
    cis_gpu_free(g->w.hist);
    cis_gpu_free(g->d_count);
    cis_gpu_free(g->coef);
    cis_gpu_free(g->mir_mem);
    cis_gpu_free(g->d_c);
    if (g->h_c) cudaFreeHost(g->h_c);
    if (g->pin) cudaFreeHost(g->pin);
    cis_free(g->hs);
    cis_free(g->hhist);
    if (g->stream) cudaStreamDestroy(g->stream);
    cis_free(g);
    B->impl = NULL;
  }
  /* B itself is freed by kry_be_free (backend.c) */
}

/* Unfused versions: spmv_dots and step NULL (steps.c composes them). */
static const kry_be_ops gpu_ops_unfused = {
    g_alloc, g_release, g_upload, g_download, g_set_scalars, g_get_scalars, g_run_prog,
    g_get_history, g_apply, g_copy, g_fill, g_axpy, g_xpay, g_scal, g_mul, g_dot, g_dot_host,
    g_combine, g_dav_precond, g_sparse, g_dots_host, g_gemv, NULL, NULL, g_loop, g_sync, g_destroy,
    g_slots, g_take_sums};
static const kry_be_ops gpu_ops_fused = {
    g_alloc, g_release, g_upload, g_download, g_set_scalars, g_get_scalars, g_run_prog,
    g_get_history, g_apply, g_copy, g_fill, g_axpy, g_xpay, g_scal, g_mul, g_dot, g_dot_host,
    g_combine, g_dav_precond, g_sparse, g_dots_host, g_gemv, g_spmv_dots, g_step, g_loop, g_sync, g_destroy,
    g_slots, g_take_sums};

cis_status kry_be_gpu_create(cis_int n, cis_dtype t, cis_solver_version v, int hist_len, kry_be **out) {
  cis_status st;
  kry_be *B = NULL;
  gpu_be *g = NULL;
  char why[200];
  int dev = 0;
  if (!out) return cis_error(CIS_ERR_INVALID, "kry_be_gpu_create: NULL output");
  *out = NULL;
  if (n <= 0) return cis_error(CIS_ERR_INVALID, "kry_be_gpu_create: n = %lld", (long long)n);
  if (t != CIS_F64 && t != CIS_F32) return cis_error(CIS_ERR_INVALID, "kry_be_gpu_create: dtype %d", (int)t);
  if ((int)v < 0 || (int)v >= CIS_VER_COUNT)
    return cis_error(CIS_ERR_INVALID, "kry_be_gpu_create: version %d", (int)v);
  if (hist_len < 0) hist_len = 0;
  if (cis_gpu_count(why, sizeof why) == 0) return cis_error(CIS_ERR_NO_GPU, "%s", why);
  if (!(B = cis_calloc(1, sizeof *B)) || !(g = cis_calloc(1, sizeof *g))) {
    cis_free(B);
    return cis_error(CIS_ERR_ALLOC, "cannot allocate the device backend");
  }
  B->impl = g;
  B->ops = v >= CIS_VER_MERGE ? &gpu_ops_fused : &gpu_ops_unfused;
  B->n = n;
  B->dtype = t;
  B->where = CIS_MEM_DEVICE;
  B->version = v;
  B->hist_len = hist_len;
  /* a stream of our own (blocking: ordered after work on the legacy stream) */
  CIS_CUDA_TRY(cudaStreamCreate(&g->stream));
  B->stream = (cis_stream)g->stream;
  CIS_CUDA_TRY(cudaGetDevice(&dev));
  CIS_CUDA_TRY(cudaDeviceGetAttribute(&g->w.sms, cudaDevAttrMultiProcessorCount, dev)); /* cached */
  if (g->w.sms < 1) g->w.sms = 1;
  g->w.cap = MAX_PARTS;
  g->w.hist_len = hist_len;
  CIS_TRY(cis_gpu_alloc_copy((void **)&g->w.s, NULL, (KS_COUNT + N_SCRATCH) * sizeof(double), "solver scalars"));
  CIS_TRY(cis_gpu_alloc_copy((void **)&g->w.part, NULL, 2 * MAX_PARTS * sizeof(double), "solver partial sums"));
  CIS_TRY(cis_gpu_alloc_copy((void **)&g->w.ticket, NULL, 2 * sizeof(unsigned), "solver ticket counter"));
  CIS_TRY(cis_gpu_alloc_copy((void **)&g->d_count, NULL, sizeof(unsigned), "graph iteration counter"));
  if (hist_len)
    CIS_TRY(cis_gpu_alloc_copy((void **)&g->w.hist, NULL, (size_t)hist_len * sizeof(double), "residual history"));
  CIS_CUDA_TRY(cudaMemset(g->w.s, 0, (KS_COUNT + N_SCRATCH) * sizeof(double)));
  CIS_CUDA_TRY(cudaMemset(g->w.ticket, 0, 2 * sizeof(unsigned)));
  if (hist_len) CIS_CUDA_TRY(cudaMemset(g->w.hist, 0, (size_t)hist_len * sizeof(double))); /* as the host's */
  CIS_CUDA_TRY(cudaMallocHost((void **)&g->pin, (KS_COUNT + N_SCRATCH) * sizeof(double)));
  {
    double one = 1.0;
    CIS_CUDA_TRY(cudaMemcpy(g->w.s + KS_ONE, &one, sizeof one, cudaMemcpyHostToDevice));
  }
  if (v == CIS_VER_CUBLAS_L) {
    CIS_TRY(cis_alloc_array((void **)&g->hs, KS_COUNT + N_SCRATCH, sizeof(double), "host solver scalars"));
    memset(g->hs, 0, (KS_COUNT + N_SCRATCH) * sizeof(double));
    g->hs[KS_ONE] = 1.0;
    if (hist_len) CIS_TRY(cis_alloc_zeroed((void **)&g->hhist, hist_len, sizeof(double), "residual history"));
  }
  if (is_cublas(B)) {
    CIS_TRY(need_cublas(B));
    if (v == CIS_VER_CUBLAS_N) {
      CIS_TRY(cb_mode(B, CUBLAS_POINTER_MODE_DEVICE));
      CIS_TRY(cis_gpu_alloc_copy(&g->coef, NULL, N_COEF * sizeof(double), "cuBLAS coefficients"));
      if (t == CIS_F64) {
        double one = 1.0;
        CIS_CUDA_TRY(cudaMemcpy(g->coef, &one, sizeof one, cudaMemcpyHostToDevice));
      } else {
        float one = 1.0f;
        CIS_CUDA_TRY(cudaMemcpy(g->coef, &one, sizeof one, cudaMemcpyHostToDevice));
      }
      /* mirrors: dneg (doubles) first, then fpos, fneg, fdot (floats) */
      CIS_TRY(cis_gpu_alloc_copy(&g->mir_mem, NULL,
                                 KS_COUNT * sizeof(double) + (3 * KS_COUNT + N_SCRATCH) * sizeof(float),
                                 "cuBLAS scalar mirrors"));
      g->mir.dneg = g->mir_mem;
      g->mir.fpos = (float *)(g->mir.dneg + KS_COUNT);
      g->mir.fneg = g->mir.fpos + KS_COUNT;
      g->mir.fdot = g->mir.fneg + KS_COUNT;
      g->mir.count = KS_COUNT + N_SCRATCH;
      g->dirty = slot_bits(0, KS_COUNT + N_SCRATCH); /* nothing mirrored yet */
      g->pending = 0;
    }
  }
  *out = B;
  return CIS_OK;
cleanup:
  g_destroy(B);
  cis_free(B);
  return st;
}
