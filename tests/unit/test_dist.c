/* test_dist.c: the distributed layer (src/distributed) on the CPU with the fake
 * communicator. Partition, blocks, needed-entry lists and the exchange plan
 * on a 6 x 6 matrix a reviewer can check by hand; the exchange rule both
 * ways; bad input; the distributed product against cis_csr_spmv for
 * G = 1..4 parts (all-gather and point-to-point, one thread driving every
 * part and one thread per part); CG, BiCGStab, BiCG and Davidson on the
 * distributed operator against the serial solve (same iterations, results
 * equal to rounding). The matrix built part by part from a row builder
 * (dist_matrix_create_rows): its split, blocks' exchange lists, plan,
 * diagonal and products equal, bit for bit, those of the matrix split whole,
 * each part asking only for its own rows; its refusals and allocation
 * failures. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "dist_groups.h"
#include "distributed/dist_matrix.h"
#include "test_util.h"
#include "distributed/dist_internal.h"

/* 6 x 6, 16 nonzeros (3 4 2 | 2 3 2), split {0,1,2} {3,4,5}: the prefix reaches 8 at row 3:
 *   row 0: 0 1 . . . 5
 *   row 1: 0 1 2 3 . .      part 0 needs x3, x5 (remote)
 *   row 2: . 1 2 . . .
 *   row 3: . . . 3 4 .
 *   row 4: 0 . . . 4 5      part 1 needs x0
 *   row 5: . . . 3 . 5 */
static const double D6[36] = {4, 1, 0, 0, 0, 2, /**/ 1, 5, 1, 3, 0, 0, /**/ 0, 1, 6, 0, 0, 0,
                              0, 0, 0, 7, 1, 0, /**/ 1, 0, 0, 0, 8, 1, /**/ 0, 0, 0, 1, 0, 9};

static void test_blocks_by_hand(void) {
  cis_csr *A = test_csr_from_dense(6, 6, D6, CIS_F64);
  cis_int rs[3];
  dist_block b[2];
  dist_plan pl;
  memset(b, 0, sizeof b);

  CHECK_OK(dist_partition_rows(A, 2, rs));
  CHECK_OK(dist_block_split(A, rs, 2, 0, &b[0]));
  CHECK_OK(dist_block_split(A, rs, 2, 1, &b[1]));
  CHECK_OK(dist_plan_build(b, 2, CIS_XCHG_P2P, 0, &pl));

  CHECK(rs[0] == 0 && rs[1] == 3 && rs[2] == 6, "row split %lld %lld %lld, expected 0 3 6", (long long)rs[0],
        (long long)rs[1], (long long)rs[2]);
  CHECK(b[0].local->nnz == 7 && b[0].remote->nnz == 2 && b[1].local->nnz == 6 && b[1].remote->nnz == 1,
        "block nonzeros %lld %lld %lld %lld, expected 7 2 6 1", (long long)b[0].local->nnz, (long long)b[0].remote->nnz,
        (long long)b[1].local->nnz, (long long)b[1].remote->nnz);
  CHECK(b[0].nneeded == 2 && b[0].needed[0] == 3 && b[0].needed[1] == 5 && b[1].nneeded == 1 && b[1].needed[0] == 0,
        "needed lists wrong");
  /* row 0's remote entry (column 5) is compressed column 1, row 1's (column 3) column 0 */
  CHECK(b[0].remote->colind[0] == 1 && b[0].remote->colind[1] == 0 && b[0].remote->cols == 2, "remote columns not compressed");
  CHECK(b[1].local->colind[0] == 0 && b[1].local->rowptr[3] == 6, "local block of part 1 not renumbered");
  CHECK(pl.count[0 * 2 + 1] == 2 && pl.count[1 * 2 + 0] == 1 && pl.p2p_values == 3 && pl.p2p_messages == 2,
        "plan counts wrong");
  CHECK(pl.send_idx[1][0] == 0 && pl.send_idx[1][1] == 2 && pl.send_idx[0][0] == 0, "send lists wrong");
  CHECK(pl.allgather_values == 6 && pl.max_rows == 3, "all-gather volume %lld, expected 6", (long long)pl.allgather_values);
  dist_plan_clear(&pl);

  /* the rule: 3 values + 2 messages vs 6 values: p2p only with a small message cost */
  CHECK_OK(dist_plan_build(b, 2, CIS_XCHG_AUTO, 1, &pl));
  CHECK(pl.kind == CIS_XCHG_P2P, "rule with 1-byte messages chose %s", cis_dist_exchange_name(pl.kind));
  dist_plan_clear(&pl);
  CHECK_OK(dist_plan_build(b, 2, CIS_XCHG_AUTO, 0, &pl));
  CHECK(pl.kind == CIS_XCHG_GATHER, "rule with default message cost chose %s", cis_dist_exchange_name(pl.kind));
  dist_plan_clear(&pl);
  dist_block_clear(&b[0]);
  dist_block_clear(&b[1]);
  cis_csr_free(A);
}

static void test_bad_input(void) {
  cis_csr *A = test_csr_from_dense(6, 6, D6, CIS_F64), *R = NULL, *U = NULL;
  static const double r6[12] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0};
  cis_int rs[8];
  dist_block b;
  cis_dist_world *w = NULL;
  cis_dist_comm *c = NULL, *c2 = NULL;
  cis_dist_exchange k;
  R = test_csr_from_dense(2, 6, r6, CIS_F64);

  CHECK(dist_partition_rows(A, 7, rs) == CIS_ERR_INVALID, "7 parts of 6 rows accepted");
  CHECK(dist_partition_rows(A, 0, rs) == CIS_ERR_INVALID, "0 parts accepted");
  CHECK(dist_block_split(R, rs, 1, 0, &b) == CIS_ERR_INVALID, "non-square matrix accepted");
  { /* a column outside the matrix: the first such row named, whichever thread met it */
    cis_csr *B = test_csr_from_dense(6, 6, D6, CIS_F64);
    CHECK_OK(dist_partition_rows(B, 2, rs));
    B->colind[B->rowptr[4]] = 6;     /* row 4 */
    B->colind[B->rowptr[2] + 1] = -1; /* row 2 */
    CHECK(dist_block_split(B, rs, 2, 1, &b) == CIS_ERR_INVALID && strstr(cis_last_error(), "row 4 has column 6"),
          "column 6 of 6 accepted in part 1: %s", cis_last_error());
    CHECK(dist_block_split(B, rs, 2, 0, &b) == CIS_ERR_INVALID && strstr(cis_last_error(), "row 2 has column -1"),
          "column -1 accepted in part 0: %s", cis_last_error());
    cis_clear_error();
    cis_csr_free(B);
  }
  CHECK_OK(csr_upper(A, &U));
  if (U) {
    CHECK_OK(dist_partition_rows(U, 2, rs));
    CHECK(dist_block_split(U, rs, 2, 0, &b) == CIS_ERR_UNSUPPORTED, "upper storage accepted");
  }
  CHECK(cis_dist_exchange_parse("ring", &k) == CIS_ERR_NOT_FOUND && strstr(cis_last_error(), "p2p"),
        "unknown exchange name accepted");
  CHECK_OK(cis_dist_world_create(2, &w));
  CHECK(cis_dist_comm_fake(w, 1, 2, &c) == CIS_ERR_INVALID, "ranks outside the world accepted");
  CHECK_OK(cis_dist_comm_fake(w, 0, 1, &c));
  CHECK(cis_dist_comm_fake(w, 0, 2, &c2) == CIS_ERR_INVALID, "rank 0 given twice");
  cis_dist_comm_free(c);
  cis_dist_world_free(w);
  CHECK_OK(cis_dist_world_create(8, &w));
  CHECK_OK(cis_dist_comm_fake(w, 0, 8, &c));
  {
    cis_dist_matrix *D = NULL;
    CHECK(cis_dist_matrix_create(A, c, NULL, &D) == CIS_ERR_INVALID, "8 parts of 6 rows accepted");
  }
  cis_dist_comm_free(c);
  cis_dist_world_free(w);
  c = NULL;
  if (!cis_built_with_cuda())
    CHECK(cis_dist_comm_nccl(1, &c) == CIS_ERR_NO_GPU && !c, "NCCL comm without CUDA");
  cis_csr_free(U);
  cis_csr_free(R);
  cis_csr_free(A);
}

/* ---- a row builder over a whole matrix (dist_matrix_create_rows) ------- */

typedef struct rows_src {
  const cis_csr *A;
  pthread_mutex_t mu;
  int calls, fail, wrong_cols, upper;
  cis_int r0[64], r1[64]; /* the ranges asked for, in order */
} rows_src;

/* Rows r0..r1-1 of A copied (global columns), as a CI row builder gives them. */
static cis_status slice_rows(void *ctx, cis_int r0, cis_int r1, cis_csr **out) {
  rows_src *s = ctx;
  const cis_csr *A = s->A;
  cis_csr *R = NULL;
  cis_status st;
  pthread_mutex_lock(&s->mu);
  if (s->calls < 64) {
    s->r0[s->calls] = r0;
    s->r1[s->calls] = r1;
  }
  s->calls++;
  pthread_mutex_unlock(&s->mu);
  if (s->fail) return cis_error(CIS_ERR_NUMERIC, "row builder failed on purpose");
  if ((st = csr_rows(A, r0, r1, &R)) != CIS_OK) return st;
  if (s->wrong_cols) R->cols = A->cols - 1;
  if (s->upper) R->flags |= CIS_FLAG_UPPER;
  *out = R;
  return CIS_OK;
}

/* The row counts of A (n entries, malloc'd). */
static cis_int *row_counts(const cis_csr *A) {
  cis_int *c = malloc((size_t)A->rows * sizeof *c);
  for (cis_int i = 0; c && i < A->rows; ++i) c[i] = A->rowptr[i + 1] - A->rowptr[i];
  return c;
}

/* D and E hold the same split, plan, diagonal and exchange lists (their
 * local parts; host parts: the fake comm). */
static int dist_same(const cis_dist_matrix *D, const cis_dist_matrix *E) {
  const dist_plan *a = &D->plan, *b = &E->plan;
  int G = a->parts;
  if (D->n != E->n || D->dtype != E->dtype || D->nlocal != E->nlocal || G != b->parts || a->kind != b->kind ||
      a->max_rows != b->max_rows || a->p2p_values != b->p2p_values || a->allgather_values != b->allgather_values ||
      a->p2p_messages != b->p2p_messages)
    return 0;
  if (memcmp(a->row_start, b->row_start, (size_t)(G + 1) * sizeof(cis_int)) ||
      memcmp(a->count, b->count, (size_t)G * G * sizeof(cis_int)) || memcmp(D->diag, E->diag, (size_t)D->n * sizeof(double)))
    return 0;
  for (int q = 0; q < G; ++q) {
    cis_int tot = 0;
    for (int p = 0; p < G; ++p) tot += a->count[(int64_t)p * G + q];
    if (memcmp(a->send_idx[q], b->send_idx[q], (size_t)tot * sizeof(cis_idx))) return 0;
  }
  for (int l = 0; l < D->nlocal; ++l) {
    const dist_part *P = &D->part[l], *Q = &E->part[l];
    if (P->rank != Q->rank || P->row0 != Q->row0 || P->rows != Q->rows || P->nneeded != Q->nneeded ||
        P->nsend != Q->nsend || !P->Ml != !Q->Ml || !P->Mr != !Q->Mr)
      return 0;
    cis_int ni = a->kind == CIS_XCHG_ALLGATHER ? P->nneeded : P->nsend;
    if (memcmp(P->idx, Q->idx, (size_t)ni * sizeof(cis_idx))) return 0;
  }
  return 1;
}

/* ---- one rank group (a thread) --------------------------------------------- */

typedef struct job {
  const cis_csr *A;
  cis_dist_comm *c;
  cis_dist_exchange xk;
  const char *format;
  /* built from rows (dist_matrix_create_rows) when set; counts: NULL
   * splits by rows; compare: also split A whole, *differs = 1 if unequal */
  rows_src *rows;
  const cis_int *counts;
  int compare, *differs;
  /* product */
  const double *x, *y0;
  double *y;
  /* solve */
  cis_krylov_method method;
  cis_precond precond;
  const double *b;
  double *xs;
  int iterations;
  /* Davidson */
  int roots;
  double *evals, *evecs;
  cis_status st;
  char err[256];
} job;

static void *run_job(void *arg) {
  job *J = arg;
  cis_dist_matrix *D = NULL;
  cis_operator *op = NULL;
  void *vx = NULL, *vy = NULL;
  cis_dist_opts o = cis_dist_opts_default();
  cis_status st;
  o.exchange = J->xk;
  o.format = J->format;
  if (!J->rows) st = cis_dist_matrix_create(J->A, J->c, &o, &D);
  else st = dist_matrix_create_rows(J->A->rows, J->counts, slice_rows, J->rows, J->c, &o, &D);
  if (st != CIS_OK) goto done;
  if (J->compare) {
    cis_dist_matrix *E = NULL;
    if ((st = cis_dist_matrix_create(J->A, J->c, &o, &E)) != CIS_OK) goto done;
    if (!dist_same(D, E)) *J->differs = 1;
    cis_dist_matrix_free(E);
  }
  if ((st = cis_operator_from_dist(D, &op)) != CIS_OK) goto done;
  if ((st = cis_dist_vec_alloc(D, 2, &vx)) != CIS_OK) goto done;
  vy = (char *)vx + (size_t)J->A->rows * sizeof(double); /* the second vector, by offset */
  if (J->x) { /* y = 2 A x - 0.5 y0 */
    if ((st = cis_dist_vec_upload(D, vx, J->x, 1)) != CIS_OK) goto done;
    if ((st = cis_dist_vec_upload(D, vy, J->y0, 1)) != CIS_OK) goto done;
    if ((st = cis_operator_apply(op, 2.0, vx, -0.5, vy, NULL)) != CIS_OK) goto done;
    if ((st = cis_dist_vec_download(D, J->y, vy, 1)) != CIS_OK) goto done;
  }
  if (J->b) {
    cis_krylov_opts ko = cis_krylov_opts_default();
    cis_krylov_info info;
    ko.method = J->method;
    ko.precond = J->precond;
    ko.tol = 1e-10;
    if (J->method == CIS_BICG && (st = cis_operator_set_transpose(op, op)) != CIS_OK) goto done; /* A symmetric */
    double *zero = calloc((size_t)J->A->rows, sizeof *zero); /* x0 = 0 */
    st = zero ? cis_dist_vec_upload(D, vx, zero, 1) : CIS_ERR_ALLOC;
    free(zero);
    if (st != CIS_OK) goto done;
    if ((st = cis_dist_vec_upload(D, vy, J->b, 1)) != CIS_OK) goto done;
    if ((st = cis_krylov_solve(op, vy, vx, &ko, &info)) != CIS_OK) goto done;
    if ((st = cis_dist_vec_download(D, J->xs, vx, 1)) != CIS_OK) goto done;
    J->iterations = info.iterations;
  }
  if (J->roots) {
    cis_davidson_opts dop = cis_davidson_opts_default();
    dop.roots = J->roots;
    dop.tol = 1e-9;
    if ((st = cis_davidson_operator(op, cis_operator_diagonal(op), &dop, J->evals, J->evecs, NULL)) != CIS_OK) goto done;
  }
done:
  J->st = st;
  if (st != CIS_OK) snprintf(J->err, sizeof J->err, "%s", cis_last_error());
  cis_dist_vec_free(D, vx);
  cis_operator_free(op);
  cis_dist_matrix_free(D);
  return NULL;
}

/* Run the job template over G ranks in T groups (threads when T > 1). The
 * outputs are shared: each group writes only its own rows. */
static cis_status run_distributed(job tmpl, int G, int T) {
  cis_dist_world *w = NULL;
  job jobs[8];
  cis_status st = CIS_OK;
  if (cis_dist_world_create(G, &w) != CIS_OK) return CIS_ERR_ALLOC;
  for (int t = 0; t < T; ++t) jobs[t] = tmpl;
  run_fake_groups(w, G, T, jobs, sizeof *jobs, offsetof(job, c), run_job);
  for (int t = 0; t < T; ++t) {
    if (jobs[t].st != CIS_OK) {
      fprintf(stderr, "  G=%d T=%d group %d: %s\n", G, T, t, jobs[t].err);
      st = jobs[t].st;
    }
    CHECK(jobs[t].iterations == jobs[0].iterations, "groups disagree on iterations");
    cis_dist_comm_free(jobs[t].c);
  }
  cis_dist_world_free(w);
  return st;
}

/* A symmetric matrix with couplings near and far (every split has remote
 * entries) and a spread diagonal (Davidson converges fast). */
static cis_csr *sym_test_matrix(cis_int n) {
  cis_coo *C = NULL;
  cis_csr *A = NULL;
  coo_alloc(n, n, 8 * n, CIS_F64, &C);
  for (cis_int i = 0; i < n; ++i) {
    coo_push(C, (cis_idx)i, (cis_idx)i, 10.0 + 0.25 * (double)i);
    cis_int far[3] = {i + 1, i + 7, i + n / 3};
    for (int k = 0; k < 3; ++k)
      if (far[k] < n && far[k] != i) {
        double v = 0.3 / (1 + k) * (((i * 7 + k) % 5) - 2.0 + 0.5);
        coo_push(C, (cis_idx)i, (cis_idx)far[k], v);
        coo_push(C, (cis_idx)far[k], (cis_idx)i, v);
      }
  }
  coo_to_csr(C, &A);
  coo_free(C);
  return A;
}

static void test_product(void) {
  cis_csr *A = NULL;
  CHECK_OK(cis_generate("ci:rows=300,seed=3", CIS_F64, &A)); /* unsymmetric, rows wider than a warp */
  if (!A) return;
  cis_int n = A->rows;
  double *x = malloc(n * sizeof *x), *y0 = malloc(n * sizeof *y0), *ref = malloc(n * sizeof *ref),
         *y = malloc(n * sizeof *y);
  test_fill_random(x, CIS_F64, n, 11);
  test_fill_random(y0, CIS_F64, n, 12);
  memcpy(ref, y0, n * sizeof *ref);
  CHECK_OK(cis_csr_spmv(A, 2.0, x, -0.5, ref));
  const char *formats[] = {"csr", "sell", "hyb"};
  for (int G = 1; G <= 4; ++G)
    for (int xk = CIS_XCHG_ALLGATHER; xk <= CIS_XCHG_GATHER; ++xk)
      for (int T = 1; T <= G; T += (G > 1 ? G - 1 : 1))
        for (int f = 0; f < 3; ++f) {
          job J;
          memset(&J, 0, sizeof J);
          J.A = A;
          J.xk = (cis_dist_exchange)xk;
          J.format = formats[f];
          J.x = x;
          J.y0 = y0;
          J.y = y;
          test_fill_nan(y, CIS_F64, n);
          CHECK_OK(run_distributed(J, G, T));
          double e = test_rel_err(y, ref, CIS_F64, n);
          CHECK(e <= test_tol(CIS_F64), "product G=%d %s T=%d %s: rel err %.3e", G,
                cis_dist_exchange_name((cis_dist_exchange)xk), T, formats[f], e);
        }
  /* symmetric (upper) storage is expanded: the product of the full matrix */
  {
    cis_csr *S = sym_test_matrix(n), *U = NULL;
    CHECK_OK(csr_upper(S, &U));
    memcpy(ref, y0, n * sizeof *ref);
    CHECK_OK(cis_csr_spmv(S, 2.0, x, -0.5, ref));
    if (U) {
      job J;
      memset(&J, 0, sizeof J);
      J.A = U;
      J.xk = CIS_XCHG_P2P;
      J.x = x;
      J.y0 = y0;
      J.y = y;
      test_fill_nan(y, CIS_F64, n);
      CHECK_OK(run_distributed(J, 3, 1));
      double e = test_rel_err(y, ref, CIS_F64, n);
      CHECK(e <= test_tol(CIS_F64), "product of upper storage over 3 parts: rel err %.3e", e);
    }
    cis_csr_free(U);
    cis_csr_free(S);
  }
  free(x);
  free(y0);
  free(ref);
  free(y);
  cis_csr_free(A);
}

static void test_krylov(void) {
  cis_csr *A = NULL;
  CHECK_OK(cis_generate("laplace3d:size=8,points=7", CIS_F64, &A));
  if (!A) return;
  cis_int n = A->rows;
  double *b = malloc(n * sizeof *b), *xs = malloc(n * sizeof *xs), *xd = malloc(n * sizeof *xd);
  test_fill_random(b, CIS_F64, n, 5);
  const cis_krylov_method methods[] = {CIS_CG, CIS_BICGSTAB, CIS_BICG};
  for (int mi = 0; mi < 3; ++mi)
    for (int pc = 0; pc <= 1; ++pc) {
      cis_operator *S = NULL;
      cis_krylov_opts ko = cis_krylov_opts_default();
      cis_krylov_info info;
      ko.method = methods[mi];
      ko.precond = pc ? CIS_PRECOND_JACOBI : CIS_PRECOND_NONE;
      ko.tol = 1e-10;
      memset(xs, 0, n * sizeof *xs);
      CHECK_OK(cis_operator_from_csr(A, &S));
      if (ko.method == CIS_BICG) CHECK_OK(cis_operator_set_transpose(S, S));
      CHECK_OK(cis_krylov_solve(S, b, xs, &ko, &info));
      cis_operator_free(S);
      for (int G = 1; G <= 4; ++G)
        for (int T = 1; T <= G; T += (G > 1 ? G - 1 : 1)) {
          job J;
          memset(&J, 0, sizeof J);
          J.A = A;
          J.xk = G % 2 ? CIS_XCHG_P2P : CIS_XCHG_ALLGATHER;
          J.method = ko.method;
          J.precond = ko.precond;
          J.b = b;
          J.xs = xd;
          test_fill_nan(xd, CIS_F64, n);
          CHECK_OK(run_distributed(J, G, T));
          double e = test_rel_err(xd, xs, CIS_F64, n);
          CHECK(e < 1e-9, "%s%s G=%d T=%d: x differs from the serial solve by %.3e", cis_krylov_method_name(ko.method),
                pc ? " jacobi" : "", G, T, e);
        }
      (void)info;
    }
  free(b);
  free(xs);
  free(xd);
  cis_csr_free(A);
}

/* iterations: the serial count must be matched (the dots differ from the
 * serial ones only in summation order) */
static void test_krylov_iterations(void) {
  cis_csr *A = NULL;
  CHECK_OK(cis_generate("laplace3d:size=8,points=7", CIS_F64, &A));
  if (!A) return;
  cis_int n = A->rows;
  double *b = malloc(n * sizeof *b), *x = calloc(n, sizeof *x), *xd = malloc(n * sizeof *xd);
  cis_operator *S = NULL;
  cis_krylov_opts ko = cis_krylov_opts_default();
  cis_krylov_info info;
  ko.tol = 1e-10;
  test_fill_random(b, CIS_F64, n, 9);
  CHECK_OK(cis_operator_from_csr(A, &S));
  CHECK_OK(cis_krylov_solve(S, b, x, &ko, &info));
  for (int G = 2; G <= 4; ++G) {
    job J;
    cis_dist_world *w = NULL;
    memset(&J, 0, sizeof J);
    J.A = A;
    J.xk = CIS_XCHG_P2P;
    J.method = CIS_CG;
    J.b = b;
    J.xs = xd;
    CHECK_OK(cis_dist_world_create(G, &w));
    CHECK_OK(cis_dist_comm_fake(w, 0, G, &J.c));
    run_job(&J);
    CHECK(J.st == CIS_OK && J.iterations == info.iterations, "CG G=%d: %d iterations, serial %d (%s)", G,
          J.iterations, info.iterations, J.err);
    cis_dist_comm_free(J.c);
    cis_dist_world_free(w);
  }
  cis_operator_free(S);
  free(b);
  free(x);
  free(xd);
  cis_csr_free(A);
}

static void test_davidson(void) {
  enum { K = 3 };
  cis_csr *A = sym_test_matrix(240);
  cis_int n = A->rows;
  cis_operator *S = NULL;
  double *diag = malloc(n * sizeof *diag), es[K], ed[K], *X = malloc(n * K * sizeof *X);
  cis_davidson_opts o = cis_davidson_opts_default();
  o.roots = K;
  o.tol = 1e-9;
  CHECK_OK(cis_operator_from_csr(A, &S));
  CHECK_OK(cis_davidson_operator(S, cis_operator_diagonal(S), &o, es, NULL, NULL));
  for (int G = 1; G <= 4; ++G)
    for (int T = 1; T <= G; T += (G > 1 ? G - 1 : 1)) {
      job J;
      memset(&J, 0, sizeof J);
      J.A = A;
      J.xk = G == 3 ? CIS_XCHG_ALLGATHER : CIS_XCHG_P2P;
      J.roots = K;
      J.evals = ed;
      J.evecs = X;
      test_fill_nan(X, CIS_F64, n * K);
      CHECK_OK(run_distributed(J, G, T));
      for (int r = 0; r < K; ++r)
        CHECK(fabs(ed[r] - es[r]) < 1e-10 * fabs(es[r]), "Davidson G=%d T=%d root %d: %.15g vs serial %.15g", G, T, r,
              ed[r], es[r]);
      double res = test_eig_max_residual(A, ed, X, K);
      CHECK(res < 1e-8, "Davidson G=%d T=%d: eigenvector residual %.3e", G, T, res);
    }
  cis_operator_free(S);
  free(diag);
  free(X);
  cis_csr_free(A);
}

/* dist_partition_counts equals dist_partition_rows on the same
 * counts; NULL counts split by rows; refusals. */
static void test_partition_counts(void) {
  const char *specs[] = {"ci:rows=300,seed=3", "laplace3d:size=6,points=7"};
  for (int m = 0; m < 3; ++m) {
    cis_csr *A = NULL;
    if (m < 2) CHECK_OK(cis_generate(specs[m], CIS_F64, &A));
    else A = test_csr_from_dense(6, 6, D6, CIS_F64);
    if (!A) continue;
    cis_int *cnt = row_counts(A), ra[9], rb[9];
    for (int G = 1; G <= 6 && G <= A->rows; ++G) {
      CHECK_OK(dist_partition_rows(A, G, ra));
      CHECK_OK(dist_partition_counts(A->rows, cnt, G, rb));
      CHECK(!memcmp(ra, rb, (size_t)(G + 1) * sizeof *ra), "matrix %d G=%d: split from counts differs", m, G);
      CHECK_OK(dist_partition_counts(A->rows, NULL, G, rb));
      int ok = rb[0] == 0 && rb[G] == A->rows;
      for (int p = 0; p < G; ++p) ok &= rb[p + 1] - rb[p] >= A->rows / G && rb[p + 1] - rb[p] <= A->rows / G + 1;
      CHECK(ok, "matrix %d G=%d: split by rows uneven", m, G);
    }
    CHECK(dist_partition_counts(A->rows, cnt, (int)A->rows + 1, ra) == CIS_ERR_INVALID, "more parts than rows accepted");
    CHECK(dist_partition_counts(A->rows, cnt, 0, ra) == CIS_ERR_INVALID, "0 parts accepted");
    CHECK(dist_partition_counts(A->rows, cnt, 2, NULL) == CIS_ERR_INVALID, "NULL split accepted");
    cnt[1] = -3;
    CHECK(dist_partition_counts(A->rows, cnt, 2, ra) == CIS_ERR_INVALID, "a negative count accepted");
    free(cnt);
    cis_csr_free(A);
  }
}

/* The matrix from a row builder against the matrix split whole: the same
 * split, plan, diagonal and exchange lists, and the same products bit for
 * bit, for 1-4 parts driven by one thread and by one thread per part (the
 * needed lists and the diagonal then summed through the comm); each part
 * asks only for its own rows, once. */
static void test_rows_builder(void) {
  cis_csr *A = NULL;
  CHECK_OK(cis_generate("ci:rows=300,seed=3", CIS_F64, &A));
  if (!A) return;
  cis_csr *S = sym_test_matrix(A->rows);
  cis_int n = A->rows;
  double *x = malloc(n * sizeof *x), *y0 = malloc(n * sizeof *y0), *ref = malloc(n * sizeof *ref),
         *y = malloc(n * sizeof *y);
  test_fill_random(x, CIS_F64, n, 21);
  test_fill_random(y0, CIS_F64, n, 22);
  const cis_csr *mats[2] = {A, S};
  for (int m = 0; m < 2; ++m) {
    cis_int *cnt = row_counts(mats[m]);
    for (int G = 1; G <= 4; ++G)
      for (int xk = CIS_XCHG_ALLGATHER; xk <= CIS_XCHG_P2P; ++xk)
        for (int T = 1; T <= G; T += (G > 1 ? G - 1 : 1)) {
          job J;
          rows_src src;
          int differs = 0;
          memset(&J, 0, sizeof J);
          memset(&src, 0, sizeof src);
          pthread_mutex_init(&src.mu, NULL);
          src.A = mats[m];
          J.A = mats[m];
          J.xk = (cis_dist_exchange)xk;
          J.format = "csr";
          J.x = x;
          J.y0 = y0;
          J.y = ref;
          test_fill_nan(ref, CIS_F64, n);
          CHECK_OK(run_distributed(J, G, T)); /* split whole */
          J.y = y;
          J.rows = &src;
          J.counts = cnt;
          J.compare = 1;
          J.differs = &differs;
          test_fill_nan(y, CIS_F64, n);
          CHECK_OK(run_distributed(J, G, T));
          CHECK(!differs, "matrix %d G=%d %s T=%d: rows-built matrix differs from the split one", m, G,
                cis_dist_exchange_name((cis_dist_exchange)xk), T);
          CHECK(!memcmp(y, ref, (size_t)n * sizeof *y), "matrix %d G=%d %s T=%d: products differ", m, G,
                cis_dist_exchange_name((cis_dist_exchange)xk), T);
          cis_int rs[5];
          CHECK_OK(dist_partition_rows(mats[m], G, rs));
          int asked = src.calls == G;
          for (int k = 0; asked && k < G; ++k) {
            int p = 0;
            while (p < G && rs[p] != src.r0[k]) ++p;
            asked &= p < G && src.r1[k] == rs[p + 1];
          }
          CHECK(asked, "matrix %d G=%d T=%d: %d builder calls, not one per part for its own rows", m, G, T, src.calls);
          pthread_mutex_destroy(&src.mu);
        }
    free(cnt);
  }
  free(x);
  free(y0);
  free(ref);
  free(y);
  cis_csr_free(S);
  cis_csr_free(A);
  /* more rows than one gather round carries (65,536): the diagonal in chunks */
  CHECK_OK(cis_generate("laplace3d:size=42,points=7", CIS_F64, &A));
  if (A) {
    job J;
    rows_src src;
    int differs = 0;
    cis_int *cnt = row_counts(A);
    memset(&J, 0, sizeof J);
    memset(&src, 0, sizeof src);
    pthread_mutex_init(&src.mu, NULL);
    src.A = A;
    J.A = A;
    J.xk = CIS_XCHG_P2P;
    J.format = "csr";
    J.rows = &src;
    J.counts = cnt;
    J.compare = 1;
    J.differs = &differs;
    CHECK_OK(run_distributed(J, 3, 3));
    CHECK(!differs, "laplace3d 42 (%lld rows) over 3 threads: rows-built matrix differs", (long long)A->rows);
    pthread_mutex_destroy(&src.mu);
    free(cnt);
    cis_csr_free(A);
  }
}

/* Refusals of dist_matrix_create_rows: the builder's error passed on,
 * rows of the wrong shape, upper-triangle rows, too few rows, NULLs. */
static void test_rows_builder_errors(void) {
  cis_csr *A = test_csr_from_dense(6, 6, D6, CIS_F64);
  cis_dist_world *w = NULL;
  cis_dist_comm *c = NULL;
  cis_dist_matrix *D = NULL;
  rows_src src;
  memset(&src, 0, sizeof src);
  pthread_mutex_init(&src.mu, NULL);
  src.A = A;
  CHECK_OK(cis_dist_world_create(2, &w));
  CHECK_OK(cis_dist_comm_fake(w, 0, 2, &c));
  src.fail = 1;
  CHECK(dist_matrix_create_rows(6, NULL, slice_rows, &src, c, NULL, &D) == CIS_ERR_NUMERIC && !D,
        "the builder's error not passed on");
  src.fail = 0;
  src.wrong_cols = 1;
  CHECK(dist_matrix_create_rows(6, NULL, slice_rows, &src, c, NULL, &D) == CIS_ERR_INVALID && !D &&
            strstr(cis_last_error(), "columns"),
        "rows of 5 columns accepted for a 6 x 6 matrix: %s", cis_last_error());
  src.wrong_cols = 0;
  src.upper = 1;
  CHECK(dist_matrix_create_rows(6, NULL, slice_rows, &src, c, NULL, &D) == CIS_ERR_UNSUPPORTED && !D,
        "upper-triangle rows accepted");
  src.upper = 0;
  CHECK(dist_matrix_create_rows(1, NULL, slice_rows, &src, c, NULL, &D) == CIS_ERR_INVALID && !D,
        "1 row over 2 parts accepted");
  CHECK(dist_matrix_create_rows(6, NULL, NULL, &src, c, NULL, &D) == CIS_ERR_INVALID && !D, "NULL builder accepted");
  cis_dist_opts og = cis_dist_opts_default();
  og.exchange = CIS_XCHG_GATHER;
  CHECK(dist_matrix_create_rows(6, NULL, slice_rows, &src, c, &og, &D) == CIS_ERR_UNSUPPORTED && !D &&
            strstr(cis_last_error(), "gather"),
        "the gather exchange accepted for rows built part by part: %s", cis_last_error());
  CHECK(dist_matrix_create_rows(6, NULL, slice_rows, &src, NULL, NULL, &D) == CIS_ERR_INVALID && !D,
        "NULL comm accepted");
  CHECK_OK(dist_matrix_create_rows(6, NULL, slice_rows, &src, c, NULL, &D)); /* by rows: 3 + 3 */
  CHECK(D && D->plan.row_start[1] == 3, "split by rows of 6 over 2: not 3 + 3");
  if (D) { /* the public view of the plan: cis_dist_matrix_info and _part_rows */
    cis_dist_info inf;
    cis_int r0 = -1, nr = -1;
    CHECK_OK(cis_dist_matrix_info(D, &inf));
    CHECK(inf.parts == 2 && inf.exchange == D->plan.kind && inf.p2p_values == D->plan.p2p_values &&
              inf.p2p_messages == D->plan.p2p_messages && inf.allgather_values == D->plan.allgather_values,
          "cis_dist_matrix_info differs from the plan");
    CHECK_OK(cis_dist_matrix_part_rows(D, 1, &r0, &nr));
    CHECK(r0 == 3 && nr == 3, "part 1: rows from %lld, %lld of them; expected 3, 3", (long long)r0, (long long)nr);
    CHECK(cis_dist_matrix_part_rows(D, 2, &r0, &nr) == CIS_ERR_INVALID, "part 2 of 2 accepted");
    CHECK(cis_dist_matrix_part_rows(D, -1, &r0, &nr) == CIS_ERR_INVALID, "part -1 accepted");
    CHECK(cis_dist_matrix_info(NULL, &inf) == CIS_ERR_INVALID, "NULL matrix accepted");
  }
  cis_dist_matrix_free(D);
  pthread_mutex_destroy(&src.mu);
  cis_dist_comm_free(c);
  cis_dist_world_free(w);
  cis_csr_free(A);
}

/* Allocation failure at every step of the partition, the plan, the matrix,
 * a vector and a solve: CIS_ERR_ALLOC at each (test_alloc_every), then success. */
/* The parts of test_alloc_failures: a world of 3 fake ranks, a distributed
 * matrix (from A, or from the row builder when src is set) and, from A, an
 * operator, a vector and a solve over it. */
typedef struct dist_call {
  const cis_csr *A;
  rows_src *src;
  cis_int *cnt;
  const double *b, *x;
  cis_dist_world *w; cis_dist_comm *c; cis_dist_matrix *D; cis_operator *op; void *v; /* made */
} dist_call;

static cis_status dist_run(void *ctx) {
  dist_call *d = ctx;
  const cis_int n = d->A->rows;
  cis_krylov_opts ko = cis_krylov_opts_default();
  cis_status st;
  if ((st = cis_dist_world_create(3, &d->w)) != CIS_OK || (st = cis_dist_comm_fake(d->w, 0, 3, &d->c)) != CIS_OK)
    return st;
  if (d->src) return dist_matrix_create_rows(n, d->cnt, slice_rows, d->src, d->c, NULL, &d->D);
  if ((st = cis_dist_matrix_create(d->A, d->c, NULL, &d->D)) == CIS_OK && (st = cis_operator_from_dist(d->D, &d->op)) == CIS_OK &&
      (st = cis_dist_vec_alloc(d->D, 2, &d->v)) == CIS_OK && (st = cis_dist_vec_upload(d->D, d->v, d->x, 1)) == CIS_OK &&
      (st = cis_dist_vec_upload(d->D, (char *)d->v + n * sizeof(double), d->b, 1)) == CIS_OK)
    st = cis_krylov_solve(d->op, (char *)d->v + n * sizeof(double), d->v, &ko, NULL);
  return st;
}

static void dist_undo(void *ctx) {
  dist_call *d = ctx;
  cis_dist_vec_free(d->D, d->v), cis_operator_free(d->op), cis_dist_matrix_free(d->D), cis_dist_comm_free(d->c),
      cis_dist_world_free(d->w), d->v = NULL, d->op = NULL, d->D = NULL, d->c = NULL, d->w = NULL;
}

static void test_alloc_failures(void) {
  cis_csr *A = sym_test_matrix(64);
  double *b = malloc(64 * sizeof *b), *x = calloc(64, sizeof *x);
  rows_src src;
  dist_call d;
  test_fill_random(b, CIS_F64, 64, 3);
  memset(&d, 0, sizeof d);
  d.A = A;
  d.b = b;
  d.x = x;
  test_alloc_every("dist matrix + operator + vector + solve", dist_run, dist_undo, &d);
  /* the same for the matrix from a row builder */
  memset(&src, 0, sizeof src);
  pthread_mutex_init(&src.mu, NULL);
  src.A = A;
  d.src = &src;
  d.cnt = row_counts(A);
  test_alloc_every("dist matrix from rows", dist_run, dist_undo, &d);
  pthread_mutex_destroy(&src.mu);
  free(d.cnt);
  free(b);
  free(x);
  cis_csr_free(A);
}

int main(void) {
  test_blocks_by_hand();
  test_bad_input();
  test_product();
  test_partition_counts();
  test_rows_builder();
  test_rows_builder_errors();
  test_krylov();
  test_krylov_iterations();
  test_davidson();
  test_alloc_failures();
  return test_summary("test_dist");
}
