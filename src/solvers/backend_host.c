/* backend_host.c: the host vector backend (backend.h): OpenMP loops over n
 * values, float and double from one source (CIS_FOR_DTYPE), scalar slots and
 * history in host memory, reductions accumulated in double. It is also the
 * CPU reference of every device kernel of src/solvers/gpu: the GPU tests
 * compare each fused kernel with the composition of these primitives
 * (steps.c). No fused ops: the solvers compose the steps. */
#include <math.h>
#include <omp.h>
#include <string.h>
#include "core/internal.h"
#include "solvers/backend.h"

typedef struct host_impl {
  double s[KS_COUNT + KS_SCRATCH];
  double *hist;
  int nt; /* OpenMP threads for one n-vector operation (1 for small n) */
} host_impl;

#define HI(B) ((host_impl *)(B)->impl)
static double coef(const kry_be *B, kry_coef a) { return a.slot < 0 ? a.c : a.c * HI(B)->s[a.slot]; }

static cis_status h_alloc(kry_be *B, void **v, cis_int count, const char *what) {
  return cis_alloc_array(v, count * B->n, cis_dtype_size(B->dtype), what);
}
static void h_release(kry_be *B, void *v) { cis_free(v); }
static cis_status h_upload(kry_be *B, void *dst, const void *host, cis_int count) {
  if (count > 0 && dst != host) memcpy(dst, host, (size_t)count * cis_dtype_size(B->dtype));
  return CIS_OK;
}
static cis_status h_download(kry_be *B, void *host, const void *src, cis_int count) {
  return h_upload(B, host, src, count);
}
static cis_status h_set_scalars(kry_be *B, int first, int count, const double *v) {
  memcpy(HI(B)->s + first, v, (size_t)count * sizeof(double));
  return CIS_OK;
}
static cis_status h_get_scalars(kry_be *B, int first, int count, double *v) {
  memcpy(v, HI(B)->s + first, (size_t)count * sizeof(double));
  return CIS_OK;
}
static cis_status h_run_prog(kry_be *B, int prog) {
  kry_prog_run(prog, HI(B)->s, HI(B)->hist, B->hist_len);
  return CIS_OK;
}
static cis_status h_get_history(kry_be *B, double *host, int len) {
  if (len > B->hist_len) len = B->hist_len;
  if (len > 0) memcpy(host, HI(B)->hist, (size_t)len * sizeof(double));
  return CIS_OK;
}
static cis_status h_apply(kry_be *B, const cis_operator *A, const void *x, void *y) {
  return cis_operator_apply(A, 1.0, x, 0.0, y, B->stream);
}
static cis_status h_copy(kry_be *B, const void *x, void *y) {
  if (x != y) memcpy(y, x, (size_t)B->n * cis_dtype_size(B->dtype));
  return CIS_OK;
}
static cis_status h_fill(kry_be *B, void *x, double v) {
  cis_int n = B->n;
  CIS_FOR_DTYPE(B->dtype, {
    REAL *xv = x;
    CIS_PRAGMA(omp parallel for schedule(static) num_threads(HI(B)->nt))
    for (cis_int i = 0; i < n; ++i) xv[i] = (REAL)v;
  });
  return CIS_OK;
}
static cis_status h_axpy(kry_be *B, kry_coef a, const void *x, void *y) {
  cis_int n = B->n;
  CIS_FOR_DTYPE(B->dtype, {
    const REAL al = (REAL)coef(B, a), *xv = x;
    REAL *yv = y;
    CIS_PRAGMA(omp parallel for schedule(static) num_threads(HI(B)->nt))
    for (cis_int i = 0; i < n; ++i) yv[i] += al * xv[i];
  });
  return CIS_OK;
}
static cis_status h_xpay(kry_be *B, const void *x, kry_coef a, void *y) {
  cis_int n = B->n;
  CIS_FOR_DTYPE(B->dtype, {
    const REAL al = (REAL)coef(B, a), *xv = x;
    REAL *yv = y;
    CIS_PRAGMA(omp parallel for schedule(static) num_threads(HI(B)->nt))
    for (cis_int i = 0; i < n; ++i) yv[i] = xv[i] + al * yv[i];
  });
  return CIS_OK;
}
static cis_status h_scal(kry_be *B, kry_coef a, void *x) {
  cis_int n = B->n;
  CIS_FOR_DTYPE(B->dtype, {
    const REAL al = (REAL)coef(B, a);
    REAL *xv = x;
    CIS_PRAGMA(omp parallel for schedule(static) num_threads(HI(B)->nt))
    for (cis_int i = 0; i < n; ++i) xv[i] *= al;
  });
  return CIS_OK;
}
static cis_status h_mul(kry_be *B, const void *d, const void *x, void *y) {
  cis_int n = B->n;
  CIS_FOR_DTYPE(B->dtype, {
    const REAL *dv = d, *xv = x;
    REAL *yv = y;
    CIS_PRAGMA(omp parallel for schedule(static) num_threads(HI(B)->nt))
    for (cis_int i = 0; i < n; ++i) yv[i] = dv[i] * xv[i];
  });
  return CIS_OK;
}
static cis_status h_dot_host(kry_be *B, const void *x, const void *y, double *r) {
  cis_int n = B->n;
  double sum = 0;
  CIS_FOR_DTYPE(B->dtype, {
    const REAL *xv = x, *yv = y;
    CIS_PRAGMA(omp parallel for reduction(+ : sum) schedule(static) num_threads(HI(B)->nt))
    for (cis_int i = 0; i < n; ++i) sum += (double)xv[i] * (double)yv[i];
  });
  *r = sum;
  return CIS_OK;
}
static cis_status h_dot(kry_be *B, const void *x, const void *y, int slot) {
  return h_dot_host(B, x, y, &HI(B)->s[slot]);
}
/* In place (out == V): row by row, the row's first k values kept before
 * its k results overwrite them (the CPU reference of the device's
 * kry_launch_combine_inplace, summed in the same order). */
static cis_status h_combine(kry_be *B, const void *V, const double *c, int m, int k, void *out) {
  cis_int n = B->n;
  if (k < 1 || k > m) return cis_error(CIS_ERR_INVALID, "combine: m = %d, k = %d", m, k);
  if (out == V) {
    if (k > KRY_COMBINE_MAX_K) return cis_error(CIS_ERR_INVALID, "combine in place: k = %d > %d", k, KRY_COMBINE_MAX_K);
    CIS_FOR_DTYPE(B->dtype, {
      REAL *Vv = out;
      CIS_PRAGMA(omp parallel for schedule(static) num_threads(cis_threads_for((int64_t)n * m * k, CIS_GRAIN_VECTOR)))
      for (cis_int i = 0; i < n; ++i) {
        double head[KRY_COMBINE_MAX_K];
        for (int j = 0; j < k; ++j) head[j] = (double)Vv[(size_t)j * n + i];
        for (int r = 0; r < k; ++r) {
          double s = 0;
          for (int j = 0; j < m; ++j) s += c[j * m + r] * (j < k ? head[j] : (double)Vv[(size_t)j * n + i]);
          Vv[(size_t)r * n + i] = (REAL)s;
        }
      }
    });
    return CIS_OK;
  }
  CIS_FOR_DTYPE(B->dtype, {
    const REAL *Vv = V;
    REAL *ov = out;
    CIS_PRAGMA(omp parallel for schedule(static) num_threads(cis_threads_for((int64_t)n * m * k, CIS_GRAIN_VECTOR)))
    for (cis_int i = 0; i < n; ++i)
      for (int r = 0; r < k; ++r) {
        double s = 0;
        for (int j = 0; j < m; ++j) s += c[j * m + r] * (double)Vv[(size_t)j * n + i];
        ov[(size_t)r * n + i] = (REAL)s;
      }
  });
  return CIS_OK;
}
static cis_status h_dav_precond(kry_be *B, const void *r, const void *d, double theta, void *t) {
  cis_int n = B->n;
  CIS_FOR_DTYPE(B->dtype, {
    const REAL *rv = r, *dv = d;
    REAL *tv = t;
    CIS_PRAGMA(omp parallel for schedule(static) num_threads(HI(B)->nt))
    for (cis_int i = 0; i < n; ++i) {
      double den = theta - (double)dv[i];
      if (fabs(den) < 1e-8) den = den < 0 ? -1e-8 : 1e-8;
      tv[i] = (REAL)((double)rv[i] / den);
    }
  });
  return CIS_OK;
}
static cis_status h_sparse(kry_be *B, void *x, cis_int nnz, const cis_int *idx, const double *val) {
  memset(x, 0, (size_t)B->n * cis_dtype_size(B->dtype));
  for (cis_int k = 0; k < nnz; ++k) cis_set(x, B->dtype, idx[k], val[k]);
  return CIS_OK;
}
static cis_status h_sync(kry_be *B) { return CIS_OK; }
static void h_destroy(kry_be *B) {
  if (!B->impl) return;
  cis_free(HI(B)->hist);
  cis_free(B->impl);
}

/* m dots in one pass over x: each thread walks blocks of DOTS_BLOCK rows,
 * x's block read once from memory and then from cache for every V_j (m + 1
 * vectors read instead of 2 m: a host-memory-bound multi-dot, as in
 * Davidson's Gram-Schmidt over vectors of gigabytes). Per-thread partial
 * sums in a fixed order, added in thread order: deterministic for a given
 * thread count. Falls back to m separate dots past DOTS_MAX_M vectors. */
#define DOTS_BLOCK 2048
#define DOTS_MAX_M 256
static cis_status h_dots_host(kry_be *B, const void *V, int m, const void *x, double *h) {
  const cis_int n = B->n;
  const size_t vs = (size_t)n * cis_dtype_size(B->dtype);
  if (m > DOTS_MAX_M || m < 2) {
    for (int j = 0; j < m; ++j) h_dot_host(B, (const char *)V + (size_t)j * vs, x, &h[j]);
    return CIS_OK;
  }
  const int nt = HI(B)->nt > 0 ? HI(B)->nt : 1;
  double *part = NULL;
  cis_status st = cis_alloc_zeroed((void **)&part, (int64_t)nt * m, sizeof(double), "multi-dot partial sums");
  if (st != CIS_OK) return st;
  const cis_int blocks = (n + DOTS_BLOCK - 1) / DOTS_BLOCK;
  CIS_FOR_DTYPE(B->dtype, {
    const REAL *Vv = V, *xv = x;
    CIS_PRAGMA(omp parallel num_threads(nt))
    {
      double *acc = part + (size_t)omp_get_thread_num() * (size_t)m;
      CIS_PRAGMA(omp for schedule(static))
      for (cis_int b = 0; b < blocks; ++b) {
        const cis_int lo = b * DOTS_BLOCK, hi = lo + DOTS_BLOCK < n ? lo + DOTS_BLOCK : n;
        for (int j = 0; j < m; ++j) {
          const REAL *vj = Vv + (size_t)j * (size_t)n;
          double s = 0;
          for (cis_int i = lo; i < hi; ++i) s += (double)vj[i] * (double)xv[i];
          acc[j] += s;
        }
      }
    }
  });
  for (int j = 0; j < m; ++j) {
    double s = 0;
    for (int t = 0; t < nt; ++t) s += part[(size_t)t * m + j];
    h[j] = s;
  }
  cis_free(part);
  return CIS_OK;
}
static cis_status h_gemv(kry_be *B, double a, const void *V, const double *h, int m, void *x) {
  cis_int n = B->n;
  CIS_FOR_DTYPE(B->dtype, {
    const REAL *Vv = V;
    REAL *xv = x;
    CIS_PRAGMA(omp parallel for schedule(static) num_threads(cis_threads_for((int64_t)n * m, CIS_GRAIN_VECTOR)))
    for (cis_int i = 0; i < n; ++i) {
      double s = 0;
      for (int j = 0; j < m; ++j) s += h[j] * (double)Vv[(size_t)j * n + i];
      xv[i] = (REAL)((double)xv[i] + a * s);
    }
  });
  return CIS_OK;
}

static cis_status h_slots(kry_be *B, double **s, cis_memspace *where) {
  *s = HI(B)->s;
  *where = CIS_MEM_HOST;
  return CIS_OK;
}
static cis_status h_take_sums(kry_be *B, const int *dst, int k, int src, int prog) {
  double *s = HI(B)->s;
  if (s[KS_FLAG] == KF_RUNNING)
    for (int j = 0; j < k; ++j) s[dst[j]] = s[src + j];
  return h_run_prog(B, prog);
}

static const kry_be_ops host_ops = {
    h_alloc, h_release, h_upload, h_download, h_set_scalars, h_get_scalars, h_run_prog, h_get_history,
    h_apply, h_copy, h_fill, h_axpy, h_xpay, h_scal, h_mul, h_dot, h_dot_host, h_combine, h_dav_precond,
    h_sparse, h_dots_host, h_gemv, NULL, NULL, NULL, h_sync, h_destroy, h_slots, h_take_sums};

cis_status kry_be_host_create(cis_int n, cis_dtype t, int hist_len, kry_be **out) {
  cis_status st;
  kry_be *B = NULL;
  *out = NULL;
  if (n < 0 || hist_len < 0) return cis_error(CIS_ERR_INVALID, "host backend: negative size");
  CIS_TRY(cis_alloc_zeroed((void **)&B, 1, sizeof *B, "host vector backend"));
  B->ops = &host_ops;
  B->n = n;
  B->dtype = t;
  B->where = CIS_MEM_HOST;
  B->version = CIS_VER_CUDA;
  B->hist_len = hist_len;
  CIS_TRY(cis_alloc_zeroed(&B->impl, 1, sizeof(host_impl), "host vector backend"));
  HI(B)->s[KS_ONE] = 1.0;
  HI(B)->nt = cis_threads_for(n, CIS_GRAIN_VECTOR);
  if (hist_len > 0) CIS_TRY(cis_alloc_zeroed((void **)&HI(B)->hist, hist_len, sizeof(double), "residual history"));
  *out = B;
  return CIS_OK;
cleanup:
  if (B) h_destroy(B);
  cis_free(B);
  return st;
}
