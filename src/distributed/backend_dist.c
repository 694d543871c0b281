/* backend_dist.c: the distributed vector backend (solvers/backend.h) that
 * lets CG, BiCG, BiCGStab and Davidson run unchanged on a distributed
 * operator. Vectors are distributed handles (cis_dist_vec_alloc); every
 * primitive runs on each local part through that part's own backend (the
 * host backend, or the device backend in its cublasL version on the part's
 * GPU) with immediate coefficients; the scalar slots, programs and history
 * live on the host (as in cublasL); a dot is the parts' partial dots summed
 * over all ranks by cis_dist_allreduce_host (ncclAllReduce on NCCL comms).
 * Each iteration is the serial composition of primitives (steps.c) with the
 * dots replaced by global sums (PETSc's VecDot_MPI: local dot +
 * MPI_Allreduce); the dots of one step (or of one SpMV with its dots) are
 * summed in a single all-reduce (PETSc's VecMDot / Ginkgo's fused
 * reductions): 2 all-reduces per CG iteration, 3 per BiCGStab iteration. */
#include <math.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/backend_dist.h"
#include "distributed/dist_parts.h"
#include "distributed/dist_vec.h"
#include "operators/operator_internal.h"
#include "solvers/backend.h"

/* Dots a fused step defers to one all-reduce. */
#define DIST_MAX_DEFER 4

typedef struct dist_be {
  cis_dist_matrix *D;
  kry_be *part[DIST_MAX_LOCAL];
  double s[KS_COUNT];
  double *hist;
  int defer, ndefer;                              /* inside a fused step: dots queued */
  int defer_slot[DIST_MAX_DEFER];
  double defer_part[DIST_MAX_LOCAL * DIST_MAX_DEFER]; /* [l*DIST_MAX_DEFER + k] */
  double *dots;                                   /* dots_host: the parts' partial dots, dots_cap doubles */
  int64_t dots_cap;
} dist_be;

#define DB(B) ((dist_be *)(B)->impl)
#define NL(B) (DB(B)->D->nlocal)

static double coef(const kry_be *B, kry_coef a) { return a.slot < 0 ? a.c : a.c * DB(B)->s[a.slot]; }

static cis_status sel(kry_be *B, int l) {
  cis_dist_matrix *D = DB(B)->D;
  return D->where == CIS_MEM_DEVICE ? dd_set_device(D->comm->device[l]) : CIS_OK;
}

/* Resolve up to three handles (NULL stays NULL) for every local part. */
static cis_status res3(kry_be *B, const void *a, const void *b, const void *c, void **la, void **lb, void **lc) {
  cis_status st = CIS_OK;
  cis_dist_matrix *D = DB(B)->D;
  if (a && (st = dist_vec_resolve(D, a, la, NULL)) != CIS_OK) return st;
  if (b && (st = dist_vec_resolve(D, b, lb, NULL)) != CIS_OK) return st;
  if (c && (st = dist_vec_resolve(D, c, lc, NULL)) != CIS_OK) return st;
  return st;
}

#define EACH_PART(B, l, call)                          \
  for (int l = 0; l < NL(B); ++l) {                    \
    kry_be *P_ = DB(B)->part[l];                       \
    CIS_TRY(sel(B, l));                                \
    CIS_TRY(P_->ops->call);                            \
  }

/* EACH_PART for the calls that wait for their part (dist_parts.h). */
#define EACH_PART_WAITING(B, l, call)                                               \
  DIST_EACH_PART_WAITING(DB(B)->D, l, pst_, {                                      \
    pst_ = sel(B, l);                                                               \
    if (pst_ == CIS_OK) pst_ = DB(B)->part[l]->ops->call;                           \
  })

static cis_status d_alloc(kry_be *B, void **v, cis_int count, const char *what) {
  (void)what;
  return cis_dist_vec_alloc(DB(B)->D, (int)count, v);
}
static void d_release(kry_be *B, void *v) { cis_dist_vec_free(DB(B)->D, v); }
static cis_status d_upload(kry_be *B, void *dst, const void *host, cis_int count) {
  if (count % B->n) return cis_error(CIS_ERR_INVALID, "distributed upload of %lld values: not whole vectors", (long long)count);
  return cis_dist_vec_upload(DB(B)->D, dst, host, (int)(count / B->n));
}
static cis_status d_download(kry_be *B, void *host, const void *src, cis_int count) {
  cis_status st;
  if (count % B->n) return cis_error(CIS_ERR_INVALID, "distributed download of %lld values: not whole vectors", (long long)count);
  for (int l = 0; l < NL(B); ++l) {
    CIS_TRY(sel(B, l));
    CIS_TRY(DB(B)->part[l]->ops->sync(DB(B)->part[l]));
  }
  return cis_dist_vec_download(DB(B)->D, host, src, (int)(count / B->n));
cleanup:
  return st;
}
static cis_status d_set_scalars(kry_be *B, int first, int count, const double *v) {
  memcpy(DB(B)->s + first, v, (size_t)count * sizeof(double));
  return CIS_OK;
}
static cis_status d_get_scalars(kry_be *B, int first, int count, double *v) {
  memcpy(v, DB(B)->s + first, (size_t)count * sizeof(double));
  return CIS_OK;
}
static cis_status d_run_prog(kry_be *B, int prog) {
  kry_prog_run(prog, DB(B)->s, DB(B)->hist, B->hist_len);
  return CIS_OK;
}
static cis_status d_get_history(kry_be *B, double *host, int len) {
  if (len > B->hist_len) len = B->hist_len;
  if (len > 0) memcpy(host, DB(B)->hist, (size_t)len * sizeof(double));
  return CIS_OK;
}
static cis_status d_sync(kry_be *B) {
  cis_status st;
  EACH_PART(B, l, sync(P_));
  st = CIS_OK;
cleanup:
  return st;
}
static cis_status d_apply(kry_be *B, const cis_operator *A, const void *x, void *y) {
  cis_status st;
  CIS_TRY(d_sync(B)); /* x is written by the parts' streams */
  CIS_TRY(cis_operator_apply(A, 1.0, x, 0.0, y, NULL));
cleanup:
  return st;
}
static cis_status d_copy(kry_be *B, const void *x, void *y) {
  cis_status st;
  void *lx[DIST_MAX_LOCAL], *ly[DIST_MAX_LOCAL];
  CIS_TRY(res3(B, x, y, NULL, lx, ly, NULL));
  EACH_PART(B, l, copy(P_, lx[l], ly[l]));
cleanup:
  return st;
}
static cis_status d_fill(kry_be *B, void *x, double v) {
  cis_status st;
  void *lx[DIST_MAX_LOCAL];
  CIS_TRY(res3(B, x, NULL, NULL, lx, NULL, NULL));
  EACH_PART(B, l, fill(P_, lx[l], v));
cleanup:
  return st;
}
static cis_status d_axpy(kry_be *B, kry_coef a, const void *x, void *y) {
  cis_status st;
  void *lx[DIST_MAX_LOCAL], *ly[DIST_MAX_LOCAL];
  kry_coef c = kry_imm(coef(B, a));
  CIS_TRY(res3(B, x, y, NULL, lx, ly, NULL));
  EACH_PART(B, l, axpy(P_, c, lx[l], ly[l]));
cleanup:
  return st;
}
static cis_status d_xpay(kry_be *B, const void *x, kry_coef a, void *y) {
  cis_status st;
  void *lx[DIST_MAX_LOCAL], *ly[DIST_MAX_LOCAL];
  kry_coef c = kry_imm(coef(B, a));
  CIS_TRY(res3(B, x, y, NULL, lx, ly, NULL));
  EACH_PART(B, l, xpay(P_, lx[l], c, ly[l]));
cleanup:
  return st;
}
static cis_status d_scal(kry_be *B, kry_coef a, void *x) {
  cis_status st;
  void *lx[DIST_MAX_LOCAL];
  kry_coef c = kry_imm(coef(B, a));
  CIS_TRY(res3(B, x, NULL, NULL, lx, NULL, NULL));
  EACH_PART(B, l, scal(P_, c, lx[l]));
cleanup:
  return st;
}
static cis_status d_mul(kry_be *B, const void *d, const void *x, void *y) {
  cis_status st;
  void *ld[DIST_MAX_LOCAL], *lx[DIST_MAX_LOCAL], *ly[DIST_MAX_LOCAL];
  CIS_TRY(res3(B, d, x, y, ld, lx, ly));
  EACH_PART(B, l, mul(P_, ld[l], lx[l], ly[l]));
cleanup:
  return st;
}
/* (x, y): partial dots of the parts, summed over every rank */
static cis_status d_dot_host(kry_be *B, const void *x, const void *y, double *r) {
  cis_status st;
  void *lx[DIST_MAX_LOCAL], *ly[DIST_MAX_LOCAL];
  double part[DIST_MAX_LOCAL];
  CIS_TRY(res3(B, x, y, NULL, lx, ly, NULL));
  EACH_PART_WAITING(B, l, dot_host(DB(B)->part[l], lx[l], ly[l], &part[l]));
  CIS_TRY(cis_dist_allreduce_host(DB(B)->D->comm, part, 1));
  *r = part[0];
cleanup:
  return st;
}
static cis_status d_dot(kry_be *B, const void *x, const void *y, int slot) {
  cis_status st;
  dist_be *I = DB(B);
  void *lx[DIST_MAX_LOCAL], *ly[DIST_MAX_LOCAL];
  if (!I->defer || I->ndefer == DIST_MAX_DEFER) return d_dot_host(B, x, y, &I->s[slot]);
  /* inside a fused step: the partial dots now, the sum with the step's others */
  CIS_TRY(res3(B, x, y, NULL, lx, ly, NULL));
  EACH_PART_WAITING(B, l, dot_host(DB(B)->part[l], lx[l], ly[l], &I->defer_part[l * DIST_MAX_DEFER + I->ndefer]));
  I->defer_slot[I->ndefer++] = slot;
cleanup:
  return st;
}

/* One all-reduce for the queued dots, into their slots. */
static cis_status flush_dots(kry_be *B) {
  cis_status st = CIS_OK;
  dist_be *I = DB(B);
  double v[DIST_MAX_LOCAL * DIST_MAX_DEFER];
  int k = I->ndefer, nl = NL(B);
  I->defer = 0;
  I->ndefer = 0;
  if (k == 0) return CIS_OK;
  for (int l = 0; l < nl; ++l)
    for (int j = 0; j < k; ++j) v[l * k + j] = I->defer_part[l * DIST_MAX_DEFER + j];
  if ((st = cis_dist_allreduce_host(I->D->comm, v, k)) != CIS_OK) return st;
  for (int j = 0; j < k; ++j) I->s[I->defer_slot[j]] = v[j];
  return CIS_OK;
}

/* The fused versions of spmv_dots and step: the composition of steps.c (run
 * with the backend marked unfused for the call) with its dots deferred and
 * summed in one all-reduce, then the program. The dots of every step come
 * last (steps.c), so no operation of a step reads a slot its own dots write. */
static cis_status d_spmv_dots(kry_be *B, const cis_operator *A, const void *x, void *y, const void *u0, int slot0,
                              const void *u1, int slot1, int prog) {
  cis_status st;
  cis_solver_version v = B->version;
  B->version = CIS_VER_CUBLAS_L;
  DB(B)->defer = 1;
  st = kry_spmv_dots(B, A, x, y, u0, slot0, u1, slot1, KP_NONE);
  B->version = v;
  cis_status st2 = flush_dots(B);
  if (st == CIS_OK) st = st2;
  if (st == CIS_OK) st = d_run_prog(B, prog);
  return st;
}
static cis_status d_step(kry_be *B, kry_step step, const kry_vecs *vv, int prog) {
  cis_status st;
  cis_solver_version v = B->version;
  B->version = CIS_VER_CUBLAS_L;
  DB(B)->defer = 1;
  st = kry_step_run(B, step, vv, KP_NONE);
  B->version = v;
  cis_status st2 = flush_dots(B);
  if (st == CIS_OK) st = st2;
  if (st == CIS_OK) st = d_run_prog(B, prog);
  return st;
}
static cis_status d_combine(kry_be *B, const void *V, const double *c, int m, int k, void *out) {
  cis_status st;
  void *lv[DIST_MAX_LOCAL], *lo[DIST_MAX_LOCAL];
  CIS_TRY(res3(B, V, out, NULL, lv, lo, NULL));
  EACH_PART(B, l, combine(P_, lv[l], c, m, k, lo[l]));
cleanup:
  return st;
}
/* m dots: every part's m partial dots, then one all-reduce of m values */
static cis_status d_dots_host(kry_be *B, const void *V, int m, const void *x, double *h) {
  cis_status st;
  void *lv[DIST_MAX_LOCAL], *lx[DIST_MAX_LOCAL];
  dist_be *I = DB(B);
  const int64_t need = (int64_t)NL(B) * m;
  CIS_TRY(res3(B, V, x, NULL, lv, lx, NULL));
  if (need > I->dots_cap) { /* grown once per subspace size reached, not per call */
    cis_free(I->dots);
    I->dots = NULL;
    I->dots_cap = 0;
    CIS_TRY(cis_alloc_array((void **)&I->dots, 2 * need, sizeof(double), "distributed dots"));
    I->dots_cap = 2 * need;
  }
  double *part = I->dots;
  EACH_PART_WAITING(B, l, dots_host(DB(B)->part[l], lv[l], m, lx[l], part + (size_t)l * m));
  /* the all-reduce sums the local parts' values too ([l * m + j]) */
  CIS_TRY(cis_dist_allreduce_host(I->D->comm, part, m));
  memcpy(h, part, (size_t)m * sizeof(double));
cleanup:
  return st;
}
static cis_status d_gemv(kry_be *B, double a, const void *V, const double *h, int m, void *x) {
  cis_status st;
  void *lv[DIST_MAX_LOCAL], *lx[DIST_MAX_LOCAL];
  CIS_TRY(res3(B, V, x, NULL, lv, lx, NULL));
  EACH_PART(B, l, gemv(P_, a, lv[l], h, m, lx[l]));
cleanup:
  return st;
}
static cis_status d_dav_precond(kry_be *B, const void *r, const void *d, double theta, void *t) {
  cis_status st;
  void *lr[DIST_MAX_LOCAL], *ld[DIST_MAX_LOCAL], *lt[DIST_MAX_LOCAL];
  CIS_TRY(res3(B, r, d, t, lr, ld, lt));
  EACH_PART(B, l, dav_precond(P_, lr[l], ld[l], theta, lt[l]));
cleanup:
  return st;
}
/* Each part its own entries (a run of the ascending idx, as kry_sparse
 * checked), shifted to its rows. */
static cis_status d_sparse(kry_be *B, void *x, cis_int nnz, const cis_int *idx, const double *val) {
  cis_status st;
  void *lx[DIST_MAX_LOCAL];
  cis_int *own = NULL;
  cis_dist_matrix *D = DB(B)->D;
  CIS_TRY(res3(B, x, NULL, NULL, lx, NULL, NULL));
  CIS_TRY(cis_alloc_array((void **)&own, nnz > 0 ? nnz : 1, sizeof(cis_int), "a part's sparse entries"));
  cis_int k = 0;
  for (int l = 0; l < NL(B); ++l) {
    kry_be *P = DB(B)->part[l];
    const dist_part *p = &D->part[l];
    while (k < nnz && idx[k] < p->row0) ++k;
    cis_int m = 0;
    for (; k + m < nnz && idx[k + m] < p->row0 + p->rows; ++m) own[m] = idx[k + m] - p->row0;
    CIS_TRY(sel(B, l));
    CIS_TRY(P->ops->sparse(P, lx[l], m, own, val + k));
    k += m;
  }
cleanup:
  cis_free(own);
  return st;
}
static void d_destroy(kry_be *B) {
  dist_be *I = B->impl;
  if (!I) return;
  for (int l = 0; l < I->D->nlocal; ++l)
    if (I->part[l]) {
      sel(B, l);
      kry_be_free(I->part[l]);
    }
  cis_free(I->hist);
  cis_free(I->dots);
  cis_free(I);
  B->impl = NULL;
}

static const kry_be_ops dist_ops = {
    d_alloc, d_release, d_upload, d_download, d_set_scalars, d_get_scalars, d_run_prog, d_get_history,
    d_apply, d_copy, d_fill, d_axpy, d_xpay, d_scal, d_mul, d_dot, d_dot_host, d_combine, d_dav_precond,
    d_sparse, d_dots_host, d_gemv, d_spmv_dots, d_step, NULL, d_sync, d_destroy};

/* The distributed matrix behind an operator of memory space CIS_MEM_DIST, else NULL. */
static cis_dist_matrix *dist_matrix_of(const cis_operator *A) {
  return A && A->where == CIS_MEM_DIST ? (cis_dist_matrix *)A->ctx : NULL;
}

cis_status kry_be_dist_create(const cis_operator *A, cis_solver_version v, int hist_len, kry_be **out) {
  cis_status st;
  kry_be *B = NULL;
  dist_be *I = NULL;
  cis_dist_matrix *D = dist_matrix_of(A);
  (void)v; /* the parts' device backends run cublasL (immediate coefficients) */
  *out = NULL;
  if (!D) return cis_error(CIS_ERR_INVALID, "distributed backend: the operator is not distributed");
  if (D->nlocal > DIST_MAX_LOCAL) return cis_error(CIS_ERR_UNSUPPORTED, "at most %d parts per process", DIST_MAX_LOCAL);
  CIS_TRY(cis_alloc_zeroed((void **)&B, 1, sizeof *B, "distributed vector backend"));
  CIS_TRY(cis_alloc_zeroed((void **)&I, 1, sizeof *I, "distributed vector backend"));
  B->impl = I;
  I->D = D;
  B->ops = &dist_ops;
  B->n = D->n;
  B->dtype = D->dtype;
  B->where = CIS_MEM_DIST;
  B->version = CIS_VER_MERGE; /* "fused": spmv_dots and step batch their dots */
  B->hist_len = hist_len > 0 ? hist_len : 0;
  I->s[KS_ONE] = 1.0;
  if (B->hist_len) CIS_TRY(cis_alloc_zeroed((void **)&I->hist, B->hist_len, sizeof(double), "residual history"));
  for (int l = 0; l < D->nlocal; ++l) {
    if (D->where == CIS_MEM_DEVICE) {
      CIS_TRY(dd_set_device(D->comm->device[l]));
      CIS_TRY(kry_be_gpu_create(D->part[l].rows, D->dtype, CIS_VER_CUBLAS_L, 0, &I->part[l]));
    } else {
      CIS_TRY(kry_be_host_create(D->part[l].rows, D->dtype, 0, &I->part[l]));
    }
  }
  *out = B;
  return CIS_OK;
cleanup:
  kry_be_free(B);
  return st;
}
