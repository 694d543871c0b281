/* test_krylov_kernels.c: the device backend's kernels (src/solvers/gpu)
 * against the host backend, the CPU reference (src/solvers/backend_host.c
 * composing each step from primitives in src/solvers/steps.c):
 *  - every fused step (CG_UPDATE, XPAY, BICG_UPDATE, BICG_P, BICGSTAB_P,
 *    BICGSTAB_S, BICGSTAB_XR), with and without Jacobi, with its program, in
 *    every version (merge: one fused kernel; the others compose the step from
 *    their own primitives: cuBLAS host/device mode, our kernels + two-stage
 *    dot): every vector, every slot and the history entry written;
 *  - spmv_dots (SpMV + up to two dots + program) fused into csr-scalar,
 *    csr-vector, ell, ellr, sell, sellcs and hyb, and the fallback (SpMV then
 *    the dots kernel) on csb and a cuSPARSE plan; the composed version on
 *    csr-vector for every version;
 *  - with KS_FLAG set, fused steps and fused spmv_dots change nothing;
 *  - the loop of merge, merge_10 and graph (while node) stops at the
 *    iteration the program ends, queued iterations leaving the vectors as
 *    the host's;
 *  - fill, sparse (unit) vectors, dot_host, dav_precond, combine (and in
 *    place: Davidson's collapse) against the host;
 *  - cis_gpu_set_sync_mode switches the device's schedule flag both ways.
 * float and double; n = 10,000 random rows, a 3D Laplacian (22^3 = 10,648
 * rows) and 10,001 random rows (vectors packed: misaligned, the steps'
 * scalar path; and padded: 16-byte packets and a tail), far above a warp;
 * device outputs poisoned with NaN before each run; tolerance 1e-12
 * (double) / 1e-5 (float), NaN never passes. */
#ifdef CISPARSE_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include "gpu_cases.h"
#include "solvers/backend.h"

enum { VX, VR, VP, VQ, VZ, VRT, VPT, VQT, VZT, VV, VS, VT, VPH, VSH, VRH, VD, NVEC };
static const char *vec_names[NVEC] = {"x", "r", "p", "q", "z", "rt", "pt", "qt", "zt", "v", "s", "t", "ph", "sh", "rh", "dinv"};
#define HIST 64

typedef struct side {
  kry_be *B;
  void *mem;       /* NVEC vectors of n, ld values apart */
  void *vec[NVEC];
} side;

/* Values between consecutive test vectors: n (packed), or n rounded up to a
 * multiple of 4 (every vector 16-byte aligned) when g_pad is set. With n odd
 * the packed layout misaligns the vectors (the fused steps' scalar path) and
 * the padded one leaves a tail after the 16-byte packets. */
static int g_pad = 0;
static cis_int ld_of(cis_int n) { return g_pad ? (n + 3) / 4 * 4 : n; }

static double tol_of(cis_dtype t) { return t == CIS_F64 ? 1e-12 : 1e-5; }

static int side_open(side *S, kry_be *B) {
  size_t vs = cis_dtype_size(B->dtype);
  cis_int ld = ld_of(B->n);
  memset(S, 0, sizeof *S);
  S->B = B;
  if (B->ops->alloc(B, &S->mem, ld > B->n ? NVEC + 1 : NVEC, "test vectors") != CIS_OK) return 0;
  for (int k = 0; k < NVEC; ++k) S->vec[k] = (char *)S->mem + (size_t)k * (size_t)ld * vs;
  return 1;
}

/* All NVEC vectors to / from a host array of NVEC * n values. */
static int side_put(side *S, const void *h) {
  size_t vs = cis_dtype_size(S->B->dtype);
  for (int k = 0; k < NVEC; ++k)
    if (S->B->ops->upload(S->B, S->vec[k], (const char *)h + (size_t)k * S->B->n * vs, S->B->n) != CIS_OK) return 0;
  return 1;
}
static int side_get(side *S, void *h) {
  size_t vs = cis_dtype_size(S->B->dtype);
  for (int k = 0; k < NVEC; ++k)
    if (S->B->ops->download(S->B, (char *)h + (size_t)k * S->B->n * vs, S->vec[k], S->B->n) != CIS_OK) return 0;
  return 1;
}

static void side_close(side *S) {
  if (S->B && S->mem) S->B->ops->release(S->B, S->mem);
  kry_be_free(S->B);
  memset(S, 0, sizeof *S);
}

/* A host side H (the CPU reference) and a device side D in version ver, n
 * values of t each; 0 on failure with nothing left allocated (reported as a
 * failure naming `what` unless what is NULL). */
static int sides_open(side *H, side *D, cis_int n, cis_dtype t, cis_solver_version ver, const char *what) {
  kry_be *bh = NULL, *bd = NULL;
  CHECK_OK(kry_be_host_create(n, t, HIST, &bh));
  CHECK_OK(kry_be_gpu_create(n, t, ver, HIST, &bd));
  int okh = bh && side_open(H, bh), okd = okh && bd && side_open(D, bd);
  if (okd) return 1;
  if (what) CHECK(0, "%s: setup: %s", what, cis_last_error());
  if (okh) side_close(H);
  else kry_be_free(bh);
  kry_be_free(bd);
  return 0;
}

/* Positive values in [0.5, 1.5) (well-conditioned dots), NVEC vectors. */
static void *make_init(cis_int n, cis_dtype t, uint64_t seed) {
  size_t vs = cis_dtype_size(t);
  char *h = malloc((size_t)NVEC * (size_t)n * vs);
  test_fill_random(h, t, NVEC * n, seed);
  for (cis_int i = 0; i < NVEC * n; ++i) {
    if (t == CIS_F64) ((double *)h)[i] = 1.0 + 0.5 * ((double *)h)[i];
    else ((float *)h)[i] = 1.0f + 0.5f * ((float *)h)[i];
  }
  return h;
}

static void init_slots(double *s, cis_int n, int prec) {
  memset(s, 0, sizeof(double) * KS_COUNT);
  s[KS_ONE] = 1;
  s[KS_ALPHA] = 0.37;
  s[KS_BETA] = 0.61;
  s[KS_OMEGA] = 0.83;
  s[KS_BETA_OMEGA] = 0.61 * 0.83;
  s[KS_RHO] = 1.3 * (double)n;
  s[KS_RHO_NEW] = 1.1 * (double)n;
  s[KS_SIGMA] = 0.9 * (double)n;
  s[KS_TS] = 0.7 * (double)n;
  s[KS_TT] = 1.7 * (double)n;
  s[KS_RR] = (double)n;
  s[KS_BB] = 4.0 * (double)n;
  s[KS_TOL] = 1e-30;
  s[KS_IT] = 3;
  s[KS_MAXIT] = 1000;
  s[KS_STAG_MAX] = 0;
  s[KS_BEST] = 1e300;
  s[KS_STAG] = 0;
  s[KS_PRECOND] = prec;
  s[KS_FLAG] = KF_RUNNING;
}

/* The step's vectors; without Jacobi z == r, zt == rt, ph == p, sh == s. */
static kry_vecs vecs_of(const side *S, int prec) {
  kry_vecs v;
  memset(&v, 0, sizeof v);
  v.x = S->vec[VX]; v.r = S->vec[VR]; v.p = S->vec[VP]; v.q = S->vec[VQ]; v.z = S->vec[VZ];
  v.rt = S->vec[VRT]; v.pt = S->vec[VPT]; v.qt = S->vec[VQT]; v.zt = S->vec[VZT];
  v.v = S->vec[VV]; v.s = S->vec[VS]; v.t = S->vec[VT]; v.ph = S->vec[VPH]; v.sh = S->vec[VSH];
  v.rh = S->vec[VRH]; v.dinv = S->vec[VD];
  if (!prec) {
    v.z = v.r; v.zt = v.rt; v.ph = v.p; v.sh = v.s; v.dinv = NULL;
  }
  return v;
}

/* Load the initial vectors and slots into a side. */
static int side_load(side *S, const void *init, const double *s) {
  kry_be *B = S->B;
  return side_put(S, init) && B->ops->set_scalars(B, 0, KS_COUNT, s) == CIS_OK;
}

/* Poison (NaN) vector k of a device side. */
static void poison(side *S, int k) { CHECK_OK(bench_fill_nan(S->vec[k], S->B->dtype, S->B->n)); }

/* Compare every vector, slot and the history entry written of dev against host. */
static void compare(const char *what, side *H, side *D) {
  cis_int n = H->B->n;
  cis_dtype t = H->B->dtype;
  size_t vs = cis_dtype_size(t);
  void *hv = malloc((size_t)NVEC * (size_t)n * vs), *dv = malloc((size_t)NVEC * (size_t)n * vs);
  double hs[KS_COUNT], ds[KS_COUNT], hh[HIST], dh[HIST];
  double tol = tol_of(t);
  test_fill_nan(dv, t, NVEC * n);
  CHECK(side_get(H, hv) && side_get(D, dv), "%s: download: %s", what, cis_last_error());
  for (int k = 0; k < NVEC; ++k) {
    double e = test_rel_err((char *)dv + (size_t)k * n * vs, (char *)hv + (size_t)k * n * vs, t, n);
    CHECK(e <= tol, "%s: vector %s: rel err %.3g", what, vec_names[k], e);
  }
  CHECK_OK(H->B->ops->get_scalars(H->B, 0, KS_COUNT, hs));
  CHECK_OK(D->B->ops->get_scalars(D->B, 0, KS_COUNT, ds));
  for (int k = 0; k < KS_COUNT; ++k) {
    double e = fabs(ds[k] - hs[k]);
    CHECK(e <= tol * fabs(hs[k]) || (hs[k] == 0 && ds[k] == 0) || (isinf(hs[k]) && ds[k] == hs[k]),
          "%s: slot %d: device %.17g host %.17g", what, k, ds[k], hs[k]);
  }
  int it = (int)hs[KS_IT];
  if (it >= 0 && it < HIST) {
    CHECK_OK(H->B->ops->get_history(H->B, hh, HIST));
    CHECK_OK(D->B->ops->get_history(D->B, dh, HIST));
    CHECK(fabs(dh[it] - hh[it]) <= tol * fabs(hh[it]), "%s: history[%d]: device %.17g host %.17g",
          what, it, dh[it], hh[it]);
  }
  free(hv);
  free(dv);
}

typedef struct step_case {
  kry_step step;
  const char *name;
  int prog;
  int outs[3];     /* pure outputs (poisoned), -1 ends */
  int outs_prec[3];/* extra pure outputs with Jacobi */
  int dots;        /* slots RHO_NEW / RR written */
} step_case;

static const step_case steps[] = {
    {KRY_STEP_CG_UPDATE, "CG_UPDATE", KP_CG_BETA, {-1}, {VZ, -1}, 1},
    {KRY_STEP_XPAY, "XPAY", KP_NONE, {-1}, {-1}, 0},
    {KRY_STEP_BICG_UPDATE, "BICG_UPDATE", KP_BICG_BETA, {-1}, {VZ, VZT, -1}, 1},
    {KRY_STEP_BICG_P, "BICG_P", KP_NONE, {-1}, {-1}, 0},
    {KRY_STEP_BICG_P, "BICG_P+prog", KP_BICG_ALPHA, {-1}, {-1}, 0}, /* no dots, a program */
    {KRY_STEP_BICGSTAB_P, "BICGSTAB_P", KP_NONE, {-1}, {VPH, -1}, 0},
    {KRY_STEP_BICGSTAB_S, "BICGSTAB_S", KP_NONE, {VS, -1}, {VSH, -1}, 0},
    {KRY_STEP_BICGSTAB_XR, "BICGSTAB_XR", KP_BICGSTAB_BETA, {VR, -1}, {-1}, 1},
};

static void run_steps(cis_int n, cis_dtype t, cis_solver_version ver, const void *init) {
  for (size_t c = 0; c < sizeof steps / sizeof *steps; ++c)
    for (int prec = 0; prec < 2; ++prec) {
      const step_case *sc = &steps[c];
      side H, D;
      double s[KS_COUNT];
      char what[160];
      snprintf(what, sizeof what, "%s %s %s%s n=%lld%s", cis_solver_version_name(ver), sc->name,
               cis_dtype_name(t), prec ? " jacobi" : "", (long long)n, g_pad ? " padded" : "");
      if (!sides_open(&H, &D, n, t, ver, what)) return;
      init_slots(s, n, prec);
      CHECK(side_load(&H, init, s), "%s: host load", what);
      if (sc->dots) s[KS_RHO_NEW] = s[KS_RR] = NAN; /* the device must write them */
      CHECK(side_load(&D, init, s), "%s: device load", what);
      for (int k = 0; k < 3 && sc->outs[k] >= 0; ++k) poison(&D, sc->outs[k]);
      for (int k = 0; prec && k < 3 && sc->outs_prec[k] >= 0; ++k) poison(&D, sc->outs_prec[k]);
      kry_vecs vh = vecs_of(&H, prec), vd = vecs_of(&D, prec);
      CHECK_OK(kry_step_run(H.B, sc->step, &vh, sc->prog));
      CHECK_OK(kry_step_run(D.B, sc->step, &vd, sc->prog));
      compare(what, &H, &D);
      side_close(&H);
      side_close(&D);
    }
}

/* ---- spmv_dots ---- */

typedef struct plan_case {
  const char *format, *kernel; /* format "cusparse": a cuSPARSE csr-alg1 plan */
  int fused;                   /* the view takes an epilogue */
} plan_case;

static const plan_case plans[] = {
    {"csr", "csr-scalar", 1}, {"csr", "csr-vector", 1}, {"ell", "ell", 1},   {"ellr", "ellr", 1},
    {"sell", "sell", 1},      {"sellcs", "sellcs", 1},  {"hyb", "hyb", 1},   {"csb", "csb", 0},
    {"cusparse", "csr-alg1", 0},
};

typedef struct dev_op {
  cis_matrix *M;
  cis_gpu_plan *p;
  cis_operator *op;
} dev_op;

static int dev_op_open(dev_op *d, const cis_csr *A, cis_dtype t, const plan_case *pc) {
  memset(d, 0, sizeof *d);
  if (!strcmp(pc->format, "cusparse")) {
    if (cis_gpu_plan_create_cusparse(A, t, pc->kernel, &d->p) != CIS_OK) return 0;
  } else {
    cis_format_params fp = cis_format_params_default();
    fp.dtype = t;
    if (cis_matrix_create(A, pc->format, &fp, &d->M) != CIS_OK) return 0;
    if (cis_gpu_plan_create(d->M, pc->kernel, 0, &d->p) != CIS_OK) return 0;
  }
  return cis_operator_from_gpu_plan(d->p, &d->op) == CIS_OK;
}

static void dev_op_close(dev_op *d) {
  cis_operator_free(d->op);
  cis_gpu_plan_free(d->p);
  cis_matrix_free(d->M);
}

/* (a) CG: q = A p, SIGMA = (p, q), alpha program; (b) BiCGStab: t = A sh,
 * TS = (s, t), TT = (t, t), omega program. */
static void run_spmv_dots(const char *mname, const cis_csr *A, cis_dtype t, cis_solver_version ver,
                          const plan_case *pc, const void *init) {
  cis_int n = A->rows;
  cis_csr *At = NULL;
  cis_operator *oh = NULL;
  dev_op d;
  char what[200];
  CHECK_OK(cis_csr_copy(A, t, &At));
  CHECK_OK(cis_operator_from_csr(At, &oh));
  if (!dev_op_open(&d, A, t, pc)) {
    CHECK(0, "%s %s/%s: plan: %s", mname, pc->format, pc->kernel, cis_last_error());
    dev_op_close(&d);
    cis_operator_free(oh);
    cis_csr_free(At);
    return;
  }
  for (int c = 0; c < 2; ++c) {
    side H, D;
    double s[KS_COUNT];
    snprintf(what, sizeof what, "%s spmv_dots(%s) %s/%s %s", cis_solver_version_name(ver),
             c ? "bicgstab t,s,t" : "cg q,p", pc->format, pc->kernel, cis_dtype_name(t));
    if (!sides_open(&H, &D, n, t, ver, what)) break;
    init_slots(s, n, 1);
    CHECK(side_load(&H, init, s), "%s: host load", what);
    if (c == 0) s[KS_SIGMA] = NAN;
    else s[KS_TS] = s[KS_TT] = NAN;
    CHECK(side_load(&D, init, s), "%s: device load", what);
    poison(&D, c ? VT : VQ);
    int64_t l0 = D.B->launches;
    for (int k = 0; k < 2; ++k) {
      side *S = k ? &D : &H;
      const cis_operator *op = k ? d.op : oh;
      if (c == 0)
        CHECK_OK(kry_spmv_dots(S->B, op, S->vec[VP], S->vec[VQ], S->vec[VP], KS_SIGMA, NULL, 0, KP_CG_ALPHA));
      else
        CHECK_OK(kry_spmv_dots(S->B, op, S->vec[VSH], S->vec[VT], S->vec[VS], KS_TS, S->vec[VT], KS_TT,
                               KP_BICGSTAB_OMEGA));
    }
    /* merge: one fused launch, or apply + dots for a plan that takes no epilogue */
    if (ver == CIS_VER_MERGE)
      CHECK(D.B->launches - l0 == (pc->fused ? 1 : 2), "%s: %lld launches, expected %d", what,
            (long long)(D.B->launches - l0), pc->fused ? 1 : 2);
    char w2[260];
    snprintf(w2, sizeof w2, "%s on %s", what, mname);
    compare(w2, &H, &D);
    side_close(&H);
    side_close(&D);
  }
  dev_op_close(&d);
  cis_operator_free(oh);
  cis_csr_free(At);
}

/* ---- KS_FLAG set: nothing changes ---- */

static int same_bytes(side *D, const void *before, size_t bytes, const double *s0) {
  void *after = malloc(bytes);
  double s[KS_COUNT];
  int ok = side_get(D, after) && !memcmp(after, before, bytes) && D->B->ops->get_scalars(D->B, 0, KS_COUNT, s) == CIS_OK &&
           !memcmp(s, s0, sizeof s);
  free(after);
  return ok;
}

static void run_flag_set(const cis_csr *A, cis_dtype t, const void *init) {
  cis_int n = A->rows;
  side D;
  kry_be *bd = NULL;
  double s[KS_COUNT];
  size_t bytes = (size_t)NVEC * (size_t)n * cis_dtype_size(t);
  CHECK_OK(kry_be_gpu_create(n, t, CIS_VER_MERGE, HIST, &bd));
  if (!bd || !side_open(&D, bd)) {
    kry_be_free(bd);
    return;
  }
  init_slots(s, n, 1);
  s[KS_FLAG] = KF_CONVERGED;
  CHECK(side_load(&D, init, s), "flag: load");
  for (size_t c = 0; c < sizeof steps / sizeof *steps; ++c)
    for (int prec = 0; prec < 2; ++prec) {
      kry_vecs v = vecs_of(&D, prec);
      CHECK_OK(kry_step_run(D.B, steps[c].step, &v, steps[c].prog));
      CHECK(same_bytes(&D, init, bytes, s), "flag set: %s%s %s changed something", steps[c].name,
            prec ? " jacobi" : "", cis_dtype_name(t));
    }
  for (size_t k = 0; k < sizeof plans / sizeof *plans; ++k) {
    dev_op d;
    if (!plans[k].fused) continue;
    if (!dev_op_open(&d, A, t, &plans[k])) {
      CHECK(0, "flag: plan %s: %s", plans[k].kernel, cis_last_error());
      dev_op_close(&d);
      continue;
    }
    CHECK_OK(kry_spmv_dots(D.B, d.op, D.vec[VSH], D.vec[VT], D.vec[VS], KS_TS, D.vec[VT], KS_TT,
                           KP_BICGSTAB_OMEGA));
    CHECK(same_bytes(&D, init, bytes, s), "flag set: spmv_dots %s %s changed something",
          plans[k].kernel, cis_dtype_name(t));
    dev_op_close(&d);
  }
  side_close(&D);
}

/* ---- loops ---- */

typedef struct loop_ctx {
  kry_be *B;
  kry_vecs v;
} loop_ctx;

/* p = z + beta p; z = p; end of iteration (IT += 1, ends at MAXIT). */
static cis_status loop_iteration(void *c) {
  loop_ctx *L = c;
  cis_status st = kry_step_run(L->B, KRY_STEP_BICG_P, &L->v, KP_NONE);
  if (st != CIS_OK) return st;
  return kry_step_run(L->B, KRY_STEP_XPAY, &L->v, KP_CG_BETA);
}

static void run_loops(cis_int n, cis_dtype t, const void *init) {
  const cis_solver_version vers[] = {CIS_VER_CUDA, CIS_VER_MERGE, CIS_VER_MERGE_10, CIS_VER_GRAPH};
  for (size_t k = 0; k < sizeof vers / sizeof *vers; ++k) {
    side H, D;
    double s[KS_COUNT];
    char what[120];
    int check = vers[k] == CIS_VER_MERGE_10 ? 10 : 1;
    snprintf(what, sizeof what, "loop %s %s", cis_solver_version_name(vers[k]), cis_dtype_name(t));
    if (!sides_open(&H, &D, n, t, vers[k], NULL)) return;
    init_slots(s, n, 1);
    s[KS_MAXIT] = s[KS_IT] + 23; /* ends after 23 iterations, not a multiple of 10 */
    CHECK(side_load(&H, init, s) && side_load(&D, init, s), "%s: load", what);
    loop_ctx lh = {H.B, vecs_of(&H, 1)}, ld = {D.B, vecs_of(&D, 1)};
    int64_t l0 = D.B->launches;
    CHECK_OK(kry_loop(H.B, loop_iteration, &lh, 100, 1));
    CHECK_OK(kry_loop(D.B, loop_iteration, &ld, 100, check));
    /* launches: per iteration BICG_P + XPAY (merge: 2 kernels; cuda: 3 xpay
     * + 1 program) and a flag read (a memcpy) every `check` iterations, one
     * read before the loop; graph: that read, a memset and one graph launch */
    const int64_t want[] = {23 * (4 + 1) + 1, 23 * (2 + 1) + 1, 30 * 2 + 3 + 1, 1 + 2};
    CHECK(D.B->launches - l0 == want[k], "%s: %lld launches counted, expected %lld", what,
          (long long)(D.B->launches - l0), (long long)want[k]);
    double ds[KS_COUNT];
    CHECK_OK(D.B->ops->get_scalars(D.B, 0, KS_COUNT, ds));
    CHECK(ds[KS_FLAG] == KF_MAXIT && ds[KS_IT] == s[KS_MAXIT], "%s: flag %g it %g", what, ds[KS_FLAG], ds[KS_IT]);
    compare(what, &H, &D);
    side_close(&H);
    side_close(&D);
  }
}

/* ---- Davidson helpers and the rest ---- */

static void run_misc(cis_int n, cis_dtype t, cis_solver_version ver, const void *init) {
  side H, D;
  double s[KS_COUNT], rh = 0, rd = NAN;
  char what[120];
  const int m = 5;
  double c[25], hh[6], hd[6];
  snprintf(what, sizeof what, "misc %s %s", cis_solver_version_name(ver), cis_dtype_name(t));
  for (int i = 0; i < m * m; ++i) c[i] = 0.1 * (i % 7) - 0.25;
  if (!sides_open(&H, &D, n, t, ver, NULL)) return;
  init_slots(s, n, 1);
  CHECK(side_load(&H, init, s) && side_load(&D, init, s), "%s: load", what);
  poison(&D, VX);
  poison(&D, VZ);
  poison(&D, VZT);
  poison(&D, VQT);
  poison(&D, VT);
  poison(&D, VPH);
  for (int j = 0; j < 2; ++j) {
    side *S = j ? &D : &H;
    kry_be *B = S->B;
    CHECK_OK(B->ops->fill(B, S->vec[VX], -2.5));
    /* z = a sparse vector (a unit vector is its one-entry case): three
     * entries, both ends included; unordered and out-of-range refused */
    const cis_int zi[3] = {0, n / 3, n - 1}, bad[2] = {n / 3, 0}, far = n;
    const double zv[3] = {0.5, -1.25, 2.0};
    CHECK_OK(kry_sparse(B, S->vec[VZ], 3, zi, zv));
    CHECK(kry_sparse(B, S->vec[VX], 2, bad, zv) == CIS_ERR_RANGE, "%s: unordered entries refused", what);
    CHECK(kry_sparse(B, S->vec[VX], 1, &far, zv) == CIS_ERR_RANGE, "%s: entry past the end refused", what);
    CHECK_OK(B->ops->dav_precond(B, S->vec[VR], S->vec[VD], 2.0, S->vec[VZT]));
    CHECK_OK(B->ops->copy(B, S->vec[VP], S->vec[VQT]));
    CHECK_OK(B->ops->scal(B, kry_slot(KS_OMEGA, -2.0), S->vec[VQT]));
    /* V = vectors r, p, q, z (= e_i), rt (contiguous VR..VRT); out = t, ph */
    CHECK_OK(B->ops->combine(B, S->vec[VR], c, m, 2, S->vec[VT]));
    CHECK_OK(B->ops->dot_host(B, S->vec[VR], S->vec[VP], j ? &rd : &rh));
    /* Davidson's Gram-Schmidt: m + 1 dots with V = r..rt and x = the
     * vector after them, then ph -= V h (ph overwritten first) */
    double *h = j ? hd : hh;
    for (int i = 0; i <= m; ++i) h[i] = NAN;
    CHECK_OK(B->ops->dots_host(B, S->vec[VR], m + 1, S->vec[VR + m], h));
    CHECK_OK(B->ops->copy(B, S->vec[VP], S->vec[VPH]));
    CHECK_OK(B->ops->gemv(B, -0.5, S->vec[VR], c, m, S->vec[VPH]));
    /* Davidson's collapse in place: r, p, q <- (r..rt) c's first 3 columns
     * (the device's kernel against the host's row-by-row reference) */
    CHECK_OK(B->ops->combine(B, S->vec[VR], c, m, 3, S->vec[VR]));
    CHECK(B->ops->combine(B, S->vec[VR], c, m, m + 1, S->vec[VR]) == CIS_ERR_INVALID, "%s: combine k > m refused", what);
    cis_clear_error();
  }
  CHECK(fabs(rd - rh) <= tol_of(t) * fabs(rh), "%s: dot_host %.17g vs %.17g", what, rd, rh);
  for (int i = 0; i <= m; ++i) /* finite and equal (NaN fails both) */
    CHECK(fabs(hd[i] - hh[i]) <= tol_of(t) * (fabs(hh[i]) + 1e-30), "%s: dots_host[%d] %.17g vs %.17g", what, i,
          hd[i], hh[i]);
  compare(what, &H, &D);
  side_close(&H);
  side_close(&D);
}

int main(void) {
  char why[200];
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);

#ifdef CISPARSE_HAVE_CUDA
  /* sync modes, before any allocation (a change of mode resets the device) */
  for (int m = 0; m < 3; ++m) {
    cis_sync_mode mode = m == 1 ? CIS_SYNC_SPIN : CIS_SYNC_BLOCKING;
    unsigned flags = 0;
    CHECK_OK(cis_gpu_set_sync_mode(mode));
    CHECK(cudaGetDeviceFlags(&flags) == cudaSuccess &&
              (flags & cudaDeviceScheduleMask) ==
                  (mode == CIS_SYNC_SPIN ? cudaDeviceScheduleSpin : cudaDeviceScheduleBlockingSync),
          "sync mode %d: device flags %#x", (int)mode, flags);
    CHECK(cudaFree(NULL) == cudaSuccess, "context after sync mode %d", (int)mode); /* make it active */
  }
#endif
  cis_csr *mats[3] = {case_random(10000, 10000, len_uniform, 42), NULL,
                      case_random(10001, 10001, len_short, 43)};
  CHECK_OK(cis_generate("laplace3d:size=22,points=7", CIS_F64, &mats[1]));
  const char *mnames[3] = {"random 10000", "laplace3d 22^3", "random 10001"};
  /* positive values (|a| + 0.1; the Laplacian's |a|) with the positive test
   * vectors: products A p and the dots of spmv_dots are then free of
   * cancellation, so the float comparisons measure the kernels, not the
   * conditioning of a sum */
  for (int mi = 0; mi < 3; ++mi)
    for (cis_int k = 0; mats[mi] && k < mats[mi]->nnz; ++k) {
      double *val = mats[mi]->val;
      val[k] = fabs(val[k]) + (mi == 1 ? 0.0 : 0.1);
    }
  for (int dt = 0; dt < 2; ++dt) {
    cis_dtype t = dt ? CIS_F32 : CIS_F64;
    for (int mi = 0; mi < 3; ++mi) {
      if (!mats[mi]) continue;
      cis_int n = mats[mi]->rows;
      void *init = make_init(n, t, 100 + (uint64_t)mi);
      /* n = 10001: packed (misaligned: scalar path) and padded (packets + tail) */
      for (g_pad = 0; g_pad <= (mi == 2); ++g_pad) {
        for (int v = 0; v < CIS_VER_COUNT; ++v) {
          run_steps(n, t, (cis_solver_version)v, init);
          if (g_pad) continue;
          run_misc(n, t, (cis_solver_version)v, init);
          if (v == CIS_VER_MERGE) {
            for (size_t k = 0; k < sizeof plans / sizeof *plans; ++k)
              run_spmv_dots(mnames[mi], mats[mi], t, (cis_solver_version)v, &plans[k], init);
          } else {
            run_spmv_dots(mnames[mi], mats[mi], t, (cis_solver_version)v, &plans[1], init);
          }
        }
        run_flag_set(mats[mi], t, init);
        run_loops(n, t, init);
      }
      g_pad = 0;
      free(init);
    }
  }
  for (int mi = 0; mi < 3; ++mi) cis_csr_free(mats[mi]);
  return test_summary("test_krylov_kernels");
}
