/* backend_dist.c: the distributed vector backend (solvers/backend.h) that
 * lets CG, BiCG, BiCGStab and Davidson run unchanged on a distributed
 * operator. Vectors are distributed handles (cis_dist_vec_alloc); every
 * primitive runs on each local part through that part's own backend. A dot
 * is the parts' partial dots summed over all ranks (PETSc's VecDot_MPI:
 * local dot + MPI_Allreduce); the dots of one step (or of one SpMV with its
 * dots) are summed in a single all-reduce (PETSc's VecMDot / Ginkgo's fused
 * reductions): 2 all-reduces per CG iteration, 3 per BiCGStab iteration.
 * Two ways to hold the scalars (Aliaga, Perez, Quintana-Orti, Euro-Par 2015
 * §4, whose versions the solver names):
 *
 *   host scalars (cublasL, cublasN): the slots, programs and history live on
 *     the host; each part runs the host backend or the device backend in
 *     cublasL with immediate coefficients; every dot is brought to the host
 *     and summed by dist_allreduce_host; each iteration is the serial
 *     composition of primitives (steps.c) with its dots deferred to one
 *     all-reduce, then the program on the host.
 *   device-resident scalars (cuda, merge, merge_10, graph): every part keeps
 *     its own slots (the host backend; the device backend in merge on the
 *     part's GPU, on a stream of its own) and coefficients are read there.
 *     A step (or spmv_dots) runs on every part with NO program, leaving the
 *     part's PARTIAL dots in its slots; dist_allreduce_slots sums them over
 *     all ranks into the scratch slots KS_SUMS.. in stream order (one group
 *     of ncclAllReduce in the parts' streams); `take_sums` then moves them
 *     into their slots unless KS_FLAG is set and runs the program on every
 *     part: the same values everywhere, so the parts' slots stay equal. The
 *     product is ordered after the parts' streams by events (dist_apply_after).
 *     Nothing waits on the host but the KS_FLAG read of part 0 every
 *     check_every iterations (merge_10; graph runs the same loop: no CUDA
 *     graph over several GPUs and NCCL) and the calls that return values
 *     (get_scalars, get_history, download, Davidson's dot_host, dots_host).
 *     KS_FLAG guards the sums: once a part's fused kernels stop writing its
 *     slots, a sum of stale slots is never taken; host parts skip a step once
 *     their flag is set, as the device's fused kernels do. cuda composes the
 *     steps from primitives (each dot its own all-reduce, in place). */
#include <math.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/backend_dist.h"
#include "distributed/dist_parts.h"
#include "distributed/dist_vec.h"
#include "operators/operator_internal.h"
#include "solvers/backend.h"
#include "distributed/dist_internal.h"

/* Dots a fused step defers to one all-reduce. */
#define DIST_MAX_DEFER 4

typedef struct dist_be {
  cis_dist_matrix *D;
  kry_be *part[DIST_MAX_LOCAL];
  int resident;                         /* device-resident scalars: the parts' slots */
  double *ps[DIST_MAX_LOCAL];           /* resident: each part's slot array (its memory) */
  int ps_host;                          /* resident: the parts' slots are host memory */
  cis_stream pstream[DIST_MAX_LOCAL];   /* resident: each part's stream (NULL on the host) */
  cis_operator *done[DIST_MAX_LOCAL];   /* resident: y = A x already there (spmv_dots' dots after the product) */
  double s[KS_COUNT];                   /* host scalars */
  double *hist;
  int defer, ndefer;                              /* inside a fused step: dots queued */
  int defer_slot[DIST_MAX_DEFER];
  double defer_part[DIST_MAX_LOCAL * DIST_MAX_DEFER]; /* [l*DIST_MAX_DEFER + k] */
  double *dots;                                   /* dots_host: the parts' partial dots, dots_cap doubles */
  int64_t dots_cap;
} dist_be;

#define DB(B) ((dist_be *)(B)->impl)
#define NL(B) (DB(B)->D->nlocal)

/* The coefficient the parts get: as it is when they hold the slots, else
 * its host value. */
static kry_coef coef(const kry_be *B, kry_coef a) {
  if (DB(B)->resident || a.slot < 0) return a;
  return kry_imm(a.c * DB(B)->s[a.slot]);
}

/* Part l's GPU current when its vectors are there. */
static cis_status sel(kry_be *B, int l) { return dist_vec_set_dev(DB(B)->D, l); }

/* Resolve up to three handles (NULL stays NULL) for every local part. */
static cis_status res3(kry_be *B, const void *a, const void *b, const void *c, void **la, void **lb, void **lc) {
  cis_status st = CIS_OK;
  cis_dist_matrix *D = DB(B)->D;
  if (a && (st = dist_vec_resolve(D, a, la, NULL)) != CIS_OK) return st;
  if (b && (st = dist_vec_resolve(D, b, lb, NULL)) != CIS_OK) return st;
  if (c && (st = dist_vec_resolve(D, c, lc, NULL)) != CIS_OK) return st;
  return st;
}

/* expr (a status, naming P_: part l's backend) for every local part */
#define EACH_PART_DO(B, l, expr)                       \
  for (int l = 0; l < NL(B); ++l) {                    \
    kry_be *P_ = DB(B)->part[l];                       \
    CIS_TRY(sel(B, l));                                \
    CIS_TRY(expr);                                     \
  }
#define EACH_PART(B, l, call) EACH_PART_DO(B, l, P_->ops->call)

/* EACH_PART for the calls that wait for their part (dist_parts.h). */
#define EACH_PART_WAITING(B, l, call)                                               \
  DIST_EACH_PART_WAITING_IF(DB(B)->D, dist_vec_on_device(DB(B)->D), l, pst_, {     \
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
/* Resident: every part's slots alike; part 0's read (synchronizes it: its
 * slots hold the sums over every rank). */
static cis_status d_set_scalars(kry_be *B, int first, int count, const double *v) {
  cis_status st = CIS_OK;
  if (!DB(B)->resident) {
    memcpy(DB(B)->s + first, v, (size_t)count * sizeof(double));
    return CIS_OK;
  }
  EACH_PART(B, l, set_scalars(P_, first, count, v));
cleanup:
  return st;
}
static cis_status d_get_scalars(kry_be *B, int first, int count, double *v) {
  cis_status st;
  if (!DB(B)->resident) {
    memcpy(v, DB(B)->s + first, (size_t)count * sizeof(double));
    return CIS_OK;
  }
  CIS_TRY(sel(B, 0));
  CIS_TRY(DB(B)->part[0]->ops->get_scalars(DB(B)->part[0], first, count, v));
cleanup:
  return st;
}
static cis_status d_run_prog(kry_be *B, int prog) {
  cis_status st = CIS_OK;
  if (!DB(B)->resident) {
    kry_prog_run(prog, DB(B)->s, DB(B)->hist, B->hist_len);
    return CIS_OK;
  }
  EACH_PART(B, l, run_prog(P_, prog));
cleanup:
  return st;
}
static cis_status d_get_history(kry_be *B, double *host, int len) {
  cis_status st;
  if (len > B->hist_len) len = B->hist_len;
  if (!DB(B)->resident) {
    if (len > 0) memcpy(host, DB(B)->hist, (size_t)len * sizeof(double));
    return CIS_OK;
  }
  CIS_TRY(sel(B, 0));
  CIS_TRY(DB(B)->part[0]->ops->get_history(DB(B)->part[0], host, len));
cleanup:
  return st;
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
  dist_be *I = DB(B);
  if (I->resident && A->make_backend == kry_be_dist_create && A->ctx == I->D) { /* D's product: in stream order */
    void *lx[DIST_MAX_LOCAL], *ly[DIST_MAX_LOCAL];
    CIS_TRY(res3(B, x, y, NULL, lx, ly, NULL));
    return dist_apply_after(I->D, lx, ly, I->pstream);
  }
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
  kry_coef c = coef(B, a);
  CIS_TRY(res3(B, x, y, NULL, lx, ly, NULL));
  EACH_PART(B, l, axpy(P_, c, lx[l], ly[l]));
cleanup:
  return st;
}
static cis_status d_xpay(kry_be *B, const void *x, kry_coef a, void *y) {
  cis_status st;
  void *lx[DIST_MAX_LOCAL], *ly[DIST_MAX_LOCAL];
  kry_coef c = coef(B, a);
  CIS_TRY(res3(B, x, y, NULL, lx, ly, NULL));
  EACH_PART(B, l, xpay(P_, lx[l], c, ly[l]));
cleanup:
  return st;
}
static cis_status d_scal(kry_be *B, kry_coef a, void *x) {
  cis_status st;
  void *lx[DIST_MAX_LOCAL];
  kry_coef c = coef(B, a);
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
  CIS_TRY(dist_allreduce_host(DB(B)->D->comm, part, 1));
  *r = part[0];
cleanup:
  return st;
}
/* Resident: slots[src[j]] of every part summed over the ranks into
 * slots[dst[j]], in the parts' streams. */
static cis_status sum_slots(kry_be *B, const int *src, const int *dst, int k) {
  dist_be *I = DB(B);
  return dist_allreduce_slots(I->D->comm, I->ps, src, dst, k, I->ps_host ? NULL : I->pstream);
}

static cis_status d_dot(kry_be *B, const void *x, const void *y, int slot) {
  cis_status st;
  dist_be *I = DB(B);
  void *lx[DIST_MAX_LOCAL], *ly[DIST_MAX_LOCAL];
  if (I->resident) { /* partial dots, summed in place */
    CIS_TRY(res3(B, x, y, NULL, lx, ly, NULL));
    EACH_PART(B, l, dot(P_, lx[l], ly[l], slot));
    return sum_slots(B, &slot, &slot, 1);
  }
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
  if ((st = dist_allreduce_host(I->D->comm, v, k)) != CIS_OK) return st;
  for (int j = 0; j < k; ++j) I->s[I->defer_slot[j]] = v[j];
  return CIS_OK;
}

/* Resident: the sums of k partial dots, already in every part's slots
 * from[j], into dst[j] (through KS_SUMS.. unless in place), then prog. One
 * rank in all with from == dst: the partial dots are the sums, in their
 * slots already; prog alone (no copies through KS_SUMS and back). */
static cis_status sum_and_take(kry_be *B, const int *from, const int *dst, int k, int prog) {
  cis_status st;
  static const int sums[KS_NSUMS] = {KS_SUMS, KS_SUMS + 1, KS_SUMS + 2, KS_SUMS + 3};
  int in_place = DB(B)->D->comm->ranks == 1;
  for (int j = 0; j < k; ++j) in_place &= from[j] == dst[j];
  if (in_place) k = 0;
  else CIS_TRY(sum_slots(B, from, sums, k));
  EACH_PART(B, l, take_sums(P_, dst, k, KS_SUMS, prog));
cleanup:
  return st;
}

/* Resident spmv_dots: the product in stream order, then each part's
 * spmv_dots over y as it is (the `done` operator) with its partial dots in
 * KS_SUMS.. and no program (the device's fused dots kernel does nothing
 * once KS_FLAG is set), the sums, take_sums with prog. */
static cis_status r_spmv_dots(kry_be *B, const cis_operator *A, const void *x, void *y, const void *u0, int slot0,
                              const void *u1, int slot1, int prog) {
  cis_status st;
  void *ly[DIST_MAX_LOCAL], *lu0[DIST_MAX_LOCAL], *lu1[DIST_MAX_LOCAL];
  const int k = u1 ? 2 : 1, dst[2] = {slot0, slot1}, sums[2] = {KS_SUMS, KS_SUMS + 1};
  CIS_TRY(d_apply(B, A, x, y));
  CIS_TRY(res3(B, y, u0, u1, ly, lu0, lu1));
  EACH_PART_DO(B, l, kry_spmv_dots(P_, DB(B)->done[l], ly[l], ly[l], lu0[l], KS_SUMS, u1 ? lu1[l] : NULL,
                                    KS_SUMS + 1, KP_NONE));
  CIS_TRY(sum_and_take(B, sums, dst, k, prog));
cleanup:
  return st;
}

/* Host scalars: the fused versions of spmv_dots and step are the
 * composition of steps.c (run with the backend marked unfused for the call)
 * with its dots deferred and summed in one all-reduce, then the program.
 * The dots of every step come last (steps.c), so no operation of a step
 * reads a slot its own dots write. */
static cis_status d_spmv_dots(kry_be *B, const cis_operator *A, const void *x, void *y, const void *u0, int slot0,
                              const void *u1, int slot1, int prog) {
  cis_status st;
  if (DB(B)->resident) return r_spmv_dots(B, A, x, y, u0, slot0, u1, slot1, prog);
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
/* Every vector of v resolved to the local parts' (lv[l]). */
static cis_status res_vecs(kry_be *B, const kry_vecs *v, kry_vecs *lv) {
  cis_status st = CIS_OK;
  void *loc[DIST_MAX_LOCAL];
  cis_dist_matrix *D = DB(B)->D;
  memset(lv, 0, (size_t)NL(B) * sizeof *lv);
#define RES_VEC(f)                                                   \
  if (v->f) {                                                        \
    CIS_TRY(dist_vec_resolve(D, v->f, loc, NULL));                   \
    for (int l = 0; l < NL(B); ++l) lv[l].f = loc[l];                \
  }
  RES_VEC(x) RES_VEC(r) RES_VEC(p) RES_VEC(q) RES_VEC(z) RES_VEC(rt) RES_VEC(pt) RES_VEC(qt) RES_VEC(zt)
  RES_VEC(v) RES_VEC(s) RES_VEC(t) RES_VEC(ph) RES_VEC(sh) RES_VEC(rh) RES_VEC(dinv)
#undef RES_VEC
cleanup:
  return st;
}

/* Resident step: on every part with no program (its dots partial, in their
 * slots; host parts skip it once their KS_FLAG is set, as the device's fused
 * step does), the sums, take_sums with prog. A step without dots runs prog
 * on each part itself. */
static cis_status r_step(kry_be *B, kry_step step, const kry_vecs *vv, int prog) {
  cis_status st;
  dist_be *I = DB(B);
  kry_vecs lv[DIST_MAX_LOCAL];
  int dots[2];
  const int nd = kry_step_dots(step, vv->dinv != NULL, dots);
  CIS_TRY(res_vecs(B, vv, lv));
  for (int l = 0; l < NL(B); ++l) {
    if (I->ps_host && I->ps[l][KS_FLAG] != KF_RUNNING) continue;
    CIS_TRY(sel(B, l));
    CIS_TRY(kry_step_run(I->part[l], step, &lv[l], nd ? KP_NONE : prog));
  }
  if (nd > 0) CIS_TRY(sum_and_take(B, dots, dots, nd, prog));
cleanup:
  return st;
}

static cis_status d_step(kry_be *B, kry_step step, const kry_vecs *vv, int prog) {
  cis_status st;
  if (DB(B)->resident) return r_step(B, step, vv, prog);
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
  CIS_TRY(dist_allreduce_host(I->D->comm, part, m));
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
  for (int l = 0; l < I->D->nlocal; ++l) {
    if (I->part[l]) {
      sel(B, l);
      kry_be_free(I->part[l]);
    }
    cis_operator_free(I->done[l]);
  }
  cis_free(I->hist);
  cis_free(I->dots);
  cis_free(I);
  B->impl = NULL;
}

static const kry_be_ops dist_ops = {
    d_alloc, d_release, d_upload, d_download, d_set_scalars, d_get_scalars, d_run_prog, d_get_history,
    d_apply, d_copy, d_fill, d_axpy, d_xpay, d_scal, d_mul, d_dot, d_dot_host, d_combine, d_dav_precond,
    d_sparse, d_dots_host, d_gemv, d_spmv_dots, d_step, NULL, d_sync, d_destroy, NULL, NULL};

/* The distributed matrix behind an operator of memory space CIS_MEM_DIST, else NULL. */
static cis_dist_matrix *dist_matrix_of(const cis_operator *A) {
  return A && A->where == CIS_MEM_DIST ? (cis_dist_matrix *)A->ctx : NULL;
}

int kry_dist_resident(cis_solver_version v) { return v != CIS_VER_CUBLAS_L && v != CIS_VER_CUBLAS_N; }

const char *cis_dist_solver_path(cis_solver_version v) {
  if (!kry_dist_resident(v))
    return "host scalars (every dot to the host, summed by dist_allreduce_host; programs on the host)";
  if (v == CIS_VER_CUDA)
    return "device-resident scalars (each part's own; steps composed, each dot summed in stream order)";
  if (v == CIS_VER_GRAPH)
    return "device-resident scalars (each part's own; partial dots summed in stream order; graph runs merge_10's "
           "loop over parts, KS_FLAG read every 10 iterations)";
  return v == CIS_VER_MERGE_10 ? "device-resident scalars (each part's own; partial dots summed in stream order; "
                                 "KS_FLAG read every 10 iterations)"
                               : "device-resident scalars (each part's own; partial dots summed in stream order; "
                                 "KS_FLAG read every iteration)";
}

/* y = A x is already in y: nothing to do (spmv_dots' dots after the product). */
static cis_status already_applied(void *ctx, double alpha, const void *x, double beta, void *y, cis_stream s) {
  (void)ctx, (void)alpha, (void)x, (void)beta, (void)y, (void)s;
  return CIS_OK;
}

/* Resident: part l's slots, stream and `done` operator. */
static cis_status resident_part(kry_be *B, int l) {
  cis_status st;
  dist_be *I = DB(B);
  kry_be *P = I->part[l];
  cis_memspace where = CIS_MEM_HOST;
  if (!P->ops->slots || !P->ops->take_sums)
    return cis_error(CIS_ERR_UNSUPPORTED, "distributed backend: part %d's backend keeps no slots of its own", l);
  CIS_TRY(P->ops->slots(P, &I->ps[l], &where));
  I->ps_host = where == CIS_MEM_HOST;
  I->pstream[l] = P->stream;
  CIS_TRY(cis_operator_from_callback(P->n, P->n, P->dtype, P->where, already_applied, NULL, NULL, &I->done[l]));
cleanup:
  return st;
}

cis_status kry_be_dist_create(const cis_operator *A, cis_solver_version v, int hist_len, kry_be **out) {
  cis_status st;
  kry_be *B = NULL;
  dist_be *I = NULL;
  cis_dist_matrix *D = dist_matrix_of(A);
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
  /* host vectors on a device comm: host scalars (the comm sums device slots only) */
  I->resident = kry_dist_resident(v) && D->vwhere == D->where;
  /* "fused" (spmv_dots and step batch their dots) but for resident cuda,
   * which composes the steps from primitives as the one-device cuda does */
  B->version = I->resident ? v : CIS_VER_MERGE;
  B->hist_len = hist_len > 0 ? hist_len : 0;
  I->s[KS_ONE] = 1.0;
  if (B->hist_len && !I->resident)
    CIS_TRY(cis_alloc_zeroed((void **)&I->hist, B->hist_len, sizeof(double), "residual history"));
  for (int l = 0; l < D->nlocal; ++l) {
    int hl = I->resident ? B->hist_len : 0; /* resident: every part records it (part 0's is read) */
    if (dist_vec_on_device(D)) {
      CIS_TRY(dd_set_device(D->comm->device[l]));
      CIS_TRY(kry_be_gpu_create(D->part[l].rows, D->dtype, I->resident ? CIS_VER_MERGE : CIS_VER_CUBLAS_L, hl,
                                &I->part[l]));
    } else {
      CIS_TRY(kry_be_host_create(D->part[l].rows, D->dtype, hl, &I->part[l]));
    }
    if (I->resident) CIS_TRY(resident_part(B, l));
  }
  *out = B;
  return CIS_OK;
cleanup:
  kry_be_free(B);
  return st;
}
