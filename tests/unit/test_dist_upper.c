/* test_dist_upper.c: a symmetric matrix over CPU parts with each stored
 * entry held once (dist_matrix_create_upper_rows, src/distributed/
 * dist_upper.c). On a random symmetric matrix of 301 rows whose rows reach
 * across the whole matrix (every part's block has mirror terms for every
 * later part): the product y = 2 A x - 0.5 y0 against cis_csr_spmv of the
 * full matrix, at 1..4 parts, csr-sym and sym-seg blocks, the padded whole
 * vectors' reduce-scatter and the rank-order sum, every part in one thread
 * and the ranks in groups (threads, as processes: the diagonal then arrives
 * through the host all-reduce); the diagonal; the split balanced by
 * stored entries (fewer rows to the first parts); each part asking only for
 * its own rows; the rows split evenly (no padding) with every allocation
 * poisoned (NaN), x random and zero. Refusals (a lower entry, a full-storage format, the
 * builders, a GPU builder on host parts, a builder's error) and allocation
 * failures at every step. cis_dist_matrix_create of a whole symmetric
 * matrix with a symmetric format takes the same path (test_whole_matrix). */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "dist_groups.h"
#include "distributed/dist_matrix.h"
#include "test_util.h"
#include "distributed/dist_internal.h"

#define N 301

/* Symmetric, N x N: a diagonal and in each row up to 5 entries at random
 * columns anywhere (mirrored), values in [-1, 1). */
static cis_csr *random_symmetric(unsigned seed) {
  cis_coo *C = NULL;
  cis_csr *A = NULL;
  CHECK_OK(coo_alloc(N, N, 11 * N, CIS_F64, &C));
  for (cis_int i = 0; i < N; ++i) {
    CHECK_OK(coo_push(C, (cis_idx)i, (cis_idx)i, 4.0 + (double)(i % 7)));
    for (int k = 0; k < 5; ++k) {
      seed = seed * 1103515245u + 12345u;
      const cis_idx j = (cis_idx)((seed >> 8) % N);
      seed = seed * 1103515245u + 12345u;
      const double v = (double)((seed >> 8) % 2000) / 1000.0 - 1.0;
      if (j == i) continue;
      CHECK_OK(coo_push(C, (cis_idx)i, j, v));
      CHECK_OK(coo_push(C, j, (cis_idx)i, v));
    }
  }
  CHECK_OK(coo_to_csr(C, &A)); /* duplicates summed: still symmetric */
  coo_free(C);
  return A;
}

/* The rows of U (an upper triangle, or any CSR for the refusals) that a part
 * asks for, recorded. */
typedef struct upper_src {
  const cis_csr *U;
  pthread_mutex_t mu;
  int calls, fail, short_rows;
  cis_int asked; /* rows asked for, over all calls */
} upper_src;

static cis_status slice(void *ctx, cis_int r0, cis_int r1, cis_csr **out) {
  upper_src *s = ctx;
  pthread_mutex_lock(&s->mu);
  s->calls++;
  s->asked += r1 - r0;
  pthread_mutex_unlock(&s->mu);
  if (s->fail) return cis_error(CIS_ERR_NUMERIC, "row builder failed on purpose");
  if (s->short_rows && r1 > r0) --r1;
  return csr_rows(s->U, r0, r1, out);
}

static cis_int *row_counts(const cis_csr *A) {
  cis_int *c = malloc((size_t)A->rows * sizeof *c);
  for (cis_int i = 0; c && i < A->rows; ++i) c[i] = A->rowptr[i + 1] - A->rowptr[i];
  return c;
}

/* y = alpha A x + beta y0 through D's operator op on its two vectors v
 * (beta == 0: y0 unused); this process's rows of y written. */
static cis_status apply_dist(cis_dist_matrix *D, cis_operator *op, void *v, double alpha, const double *x, double beta,
                             const double *y0, double *y) {
  void *vy = (char *)v + (size_t)D->n * sizeof(double);
  cis_status st = cis_dist_vec_upload(D, v, x, 1);
  if (st == CIS_OK && beta != 0) st = cis_dist_vec_upload(D, vy, y0, 1);
  if (st == CIS_OK) st = cis_operator_apply(op, alpha, v, beta, vy, NULL);
  return st == CIS_OK ? cis_dist_vec_download(D, y, vy, 1) : st;
}

/* One group of ranks: make the matrix, y = 2 A x - 0.5 y0 (every process
 * uploads and downloads the whole vectors), its diagonal and split kept. */
typedef struct job {
  cis_dist_comm *c;
  upper_src *src;
  const cis_int *counts;
  const char *format;
  const double *x, *y0;
  double y[N], diag[N];
  cis_int row_start[65];
  cis_int lo, hi; /* the group's rows: what its download writes */
  int padded, collective; /* the whole vectors' layout and the sum */
  char op_name[64];
  cis_status st;
  char err[256];
} job;

static void *run_job(void *arg) {
  job *J = arg;
  cis_dist_matrix *D = NULL;
  cis_operator *op = NULL;
  void *v = NULL;
  cis_dist_opts o = cis_dist_opts_default();
  cis_status st;
  o.format = J->format;
  if ((st = dist_matrix_create_upper_rows(N, J->counts, slice, NULL, J->src, J->c, &o, &D)) != CIS_OK) goto done;
  if ((st = cis_operator_from_dist(D, &op)) != CIS_OK) goto done;
  if ((st = cis_dist_vec_alloc(D, 2, &v)) != CIS_OK) goto done;
  if ((st = apply_dist(D, op, v, 2.0, J->x, -0.5, J->y0, J->y)) != CIS_OK) goto done;
  memcpy(J->diag, cis_operator_diagonal(op), sizeof J->diag);
  memcpy(J->row_start, D->plan.row_start, (size_t)(D->plan.parts + 1) * sizeof(cis_int));
  snprintf(J->op_name, sizeof J->op_name, "%s", cis_operator_name(op));
  J->padded = D->summed_padded;
  J->collective = D->summed_collective;
  J->lo = D->part[0].row0;
  J->hi = D->part[D->nlocal - 1].row0 + D->part[D->nlocal - 1].rows;
done:
  J->st = st;
  if (st != CIS_OK) snprintf(J->err, sizeof J->err, "%s", cis_last_error());
  if (D && v) cis_dist_vec_free(D, v);
  cis_operator_free(op);
  cis_dist_matrix_free(D);
  cis_dist_comm_free(J->c);
  return NULL;
}

/* T jobs on the upper triangle U (src set up for them), each with its y and
 * diagonal poisoned with NaN. */
static void jobs_init(upper_src *src, const cis_csr *U, job *J, int T, const cis_int *counts, const char *format,
                      const double *x, const double *y0) {
  memset(src, 0, sizeof *src);
  pthread_mutex_init(&src->mu, NULL);
  src->U = U;
  for (int t = 0; t < T; ++t) {
    J[t] = (job){.src = src, .counts = counts, .format = format, .x = x, .y0 = y0};
    for (int i = 0; i < N; ++i) J[t].y[i] = J[t].diag[i] = NAN; /* poisoned */
  }
}

static void test_product(void) {
  cis_csr *A = random_symmetric(7), *U = NULL;
  double x[N], y0[N], ref[N];
  test_fill_random(x, CIS_F64, N, 11);
  test_fill_random(y0, CIS_F64, N, 12);
  memcpy(ref, y0, sizeof ref);
  CHECK_OK(cis_csr_spmv(A, 2.0, x, -0.5, ref));
  CHECK_OK(csr_upper(A, &U));
  cis_int *counts = row_counts(U);
  double ymax = 0;
  for (int i = 0; i < N; ++i) ymax = fabs(ref[i]) > ymax ? fabs(ref[i]) : ymax;
  const char *formats[] = {"csr-sym", "sym-seg", NULL};
  for (int f = 0; f < 4; ++f) /* the 4th: auto with the rank-order sum instead of the reduce-scatter */
    for (int G = 1; G <= 4; ++G)
      for (int T = 1; T <= G; T += G > 1 ? G - 1 : 1) { /* every part in one thread, or a thread each */
        upper_src src;
        job J[4];
        cis_dist_world *w = NULL;
        if (f == 3) cis_option_set("dist_sum", "rank");
        jobs_init(&src, U, J, T, counts, formats[f % 3], x, y0);
        CHECK_OK(cis_dist_world_create(G, &w));
        run_fake_groups(w, G, T, J, sizeof *J, offsetof(job, c), run_job);
        cis_option_set("dist_sum", NULL);
        cis_dist_world_free(w);
        for (int k = 0; k < T; ++k) {
          CHECK(J[k].st == CIS_OK, "%s, %d parts in %d groups, group %d: %s", f < 2 ? formats[f] : f == 2 ? "auto" : "auto, rank-order sum", G, T, k,
                J[k].err);
          if (J[k].st != CIS_OK) continue;
          double err = 0, derr = 0;
          CHECK(J[k].hi - J[k].lo == (T == 1 ? N : J[k].row_start[k + 1] - J[k].row_start[k]),
                "group %d of %d: rows %lld..%lld", k, T, (long long)J[k].lo, (long long)J[k].hi - 1);
          for (cis_int i = J[k].lo; i < J[k].hi; ++i) {
            const double e = fabs(J[k].y[i] - ref[i]);
            err = e > err || e != e ? e : err;
          }
          for (int i = 0; i < N; ++i) { /* every row's: the other groups' through the all-reduce */
            const double d = fabs(J[k].diag[i] - cis_get(U->val, CIS_F64, U->rowptr[i])); /* U's row i starts at (i, i) */
            derr = d > derr || d != d ? d : derr;
          }
          CHECK(err <= 1e-13 * ymax, "%s, %d parts in %d groups, group %d: |y - A x| %.3e (NaN never passes)",
                f < 2 ? formats[f] : f == 2 ? "auto" : "auto, rank-order sum", G, T, k, err);
          CHECK(derr == 0, "%s, %d parts in %d groups, group %d: the diagonal differs by %.3e",
                f < 2 ? formats[f] : f == 2 ? "auto" : "auto, rank-order sum", G, T, k, derr);
          CHECK(J[k].padded == (G > 1) && J[k].collective == (G > 1 && f < 3),
                "%d parts, sum %s: padded %d, collective %d", G, f < 3 ? "default" : "rank", J[k].padded,
                J[k].collective);
          CHECK(strstr(J[k].op_name, "upper") && strstr(J[k].op_name, f < 2 ? formats[f] : "csr-sym"),
                "operator '%s' for format %s", J[k].op_name, f < 2 ? formats[f] : f == 2 ? "auto" : "auto, rank-order sum");
        }
        if (J[0].st == CIS_OK) { /* balanced by stored entries: each part within one row of the mean */
          cis_int maxrow = 0;
          for (int i = 0; i < N; ++i) maxrow = counts[i] > maxrow ? counts[i] : maxrow;
          for (int p = 0; p < G; ++p) {
            const cis_int s = U->rowptr[J[0].row_start[p + 1]] - U->rowptr[J[0].row_start[p]];
            CHECK(s <= U->nnz / G + 2 * maxrow && s >= U->nnz / G - 2 * maxrow,
                  "%d parts: part %d stores %lld of %lld entries", G, p, (long long)s, (long long)U->nnz);
          }
          if (G > 1)
            CHECK(J[0].row_start[1] < N / G, "%d parts: the first part has %lld rows, not fewer than %d (its rows reach "
                  "further)", G, (long long)J[0].row_start[1], N / G);
        }
        CHECK(src.asked == (cis_int)N, "%d parts: %lld rows asked for, expected %d (each part its own)", G,
              (long long)src.asked, N);
        pthread_mutex_destroy(&src.mu);
      }
  free(counts);
  cis_csr_free(U);
  cis_csr_free(A);
}

/* The rows split evenly (N = 301 = 7 x 43: 7 parts of 43 rows, 43 of 7;
 * the split by rows, no counts), so the padded whole vectors have no padding:
 * every allocation poisoned with NaN (cis_alloc_poison, MALLOC_PERTURB_'s
 * effect on any size), the product y = 2 A x - 0.5 y0 exact, over every
 * part in one thread and (7 parts) a thread each; A 0 = 0 exactly. Each
 * part's f leaves y before its rows alone and sums it onto the owners:
 * unless the operator zeroed all of it, NaN (or, in Release with
 * MALLOC_PERTURB_, -3.5e127 Eh energies) came out. */
static void test_even_split(void) {
  cis_csr *A = random_symmetric(9), *U = NULL;
  double x[N], y0[N], ref[N], zero[N];
  test_fill_random(x, CIS_F64, N, 31);
  test_fill_random(y0, CIS_F64, N, 32);
  memcpy(ref, y0, sizeof ref);
  memset(zero, 0, sizeof zero);
  CHECK_OK(cis_csr_spmv(A, 2.0, x, -0.5, ref));
  CHECK_OK(csr_upper(A, &U));
  double ymax = 0;
  for (int i = 0; i < N; ++i) ymax = fabs(ref[i]) > ymax ? fabs(ref[i]) : ymax;
  const struct { int G, T; const char *format; } cases[] = {
      {7, 1, "csr-sym"}, {7, 7, "csr-sym"}, {7, 1, "sym-seg"}, {43, 1, "csr-sym"}, {43, 1, "sym-seg"}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k)
    for (int zero_x = 0; zero_x < 2; ++zero_x) {
      const int G = cases[k].G, T = cases[k].T;
      upper_src src;
      job J[8];
      cis_dist_world *w = NULL;
      jobs_init(&src, U, J, T, NULL, cases[k].format, zero_x ? zero : x, y0);
      CHECK_OK(cis_dist_world_create(G, &w));
      const int was = cis_alloc_poison(0xff); /* every cis_malloc'd byte 0xff: NaN doubles */
      run_fake_groups(w, G, T, J, sizeof *J, offsetof(job, c), run_job);
      cis_alloc_poison(was);
      cis_dist_world_free(w);
      for (int t = 0; t < T; ++t) {
        CHECK(J[t].st == CIS_OK, "%s, %d parts in %d groups, group %d: %s", cases[k].format, G, T, t, J[t].err);
        if (J[t].st != CIS_OK) continue;
        for (int p = 0; p < G; ++p)
          CHECK(J[t].row_start[p + 1] - J[t].row_start[p] == N / G, "%d parts: part %d has %lld rows, not %d", G, p,
                (long long)(J[t].row_start[p + 1] - J[t].row_start[p]), N / G);
        double err = 0;
        for (cis_int i = J[t].lo; i < J[t].hi; ++i) {
          const double want = zero_x ? -0.5 * y0[i] : ref[i], e = fabs(J[t].y[i] - want);
          err = e > err || e != e ? e : err;
        }
        CHECK(zero_x ? err == 0 : err <= 1e-13 * ymax,
              "%s, %d parts split evenly in %d groups, group %d, x %s, allocations poisoned: |y - (2 A x - y0/2)| "
              "%.3e (NaN never passes)", cases[k].format, G, T, t, zero_x ? "= 0" : "random", err);
        CHECK(J[t].padded == 1, "%d parts: the whole vectors not in the padded layout", G);
      }
      pthread_mutex_destroy(&src.mu);
    }
  cis_csr_free(U);
  cis_csr_free(A);
}

/* Refusals: a row with an entry below its diagonal (full rows given), a
 * format without symmetric storage, no or two builders, a GPU builder on
 * host parts, the builder's error, a short answer, too few rows. */
static cis_status no_gpu_rows(void *ctx, int local, cis_int r0, cis_int r1, cis_gpu_csr *rows) {
  (void)ctx, (void)local, (void)r0, (void)r1, (void)rows;
  return cis_error(CIS_ERR_NO_GPU, "not called");
}

/* test_errors' allocation failures: a world of 3 fake ranks and an upper
 * matrix over them. */
typedef struct upper_call {
  cis_int n;
  const cis_int *counts;
  upper_src *src;
  cis_dist_world *w; cis_dist_comm *c; cis_dist_matrix *D; /* made */
} upper_call;

static cis_status upper_run(void *ctx) {
  upper_call *u = ctx;
  cis_status st;
  if ((st = cis_dist_world_create(3, &u->w)) == CIS_OK && (st = cis_dist_comm_fake(u->w, 0, 3, &u->c)) == CIS_OK)
    st = dist_matrix_create_upper_rows(u->n, u->counts, slice, NULL, u->src, u->c, NULL, &u->D);
  return st;
}

static void upper_undo(void *ctx) {
  upper_call *u = ctx;
  cis_dist_matrix_free(u->D), cis_dist_comm_free(u->c), cis_dist_world_free(u->w),
      u->D = NULL, u->c = NULL, u->w = NULL;
}

static void test_errors(void) {
  cis_csr *A = random_symmetric(3), *U = NULL;
  cis_dist_world *w = NULL;
  cis_dist_comm *c = NULL;
  cis_dist_matrix *D = NULL;
  upper_src src;
  CHECK_OK(csr_upper(A, &U));
  memset(&src, 0, sizeof src);
  pthread_mutex_init(&src.mu, NULL);
  CHECK_OK(cis_dist_world_create(2, &w));
  CHECK_OK(cis_dist_comm_fake(w, 0, 2, &c));
  src.U = A; /* full rows: row 1 has (1, 0)... or the first such row */
  cis_int first_low = -1;
  for (cis_int i = 0; i < N && first_low < 0; ++i)
    if (A->rowptr[i + 1] > A->rowptr[i] && A->colind[A->rowptr[i]] < i) first_low = i;
  CHECK(dist_matrix_create_upper_rows(N, NULL, slice, NULL, &src, c, NULL, &D) == CIS_ERR_INVALID && !D &&
            strstr(cis_last_error(), "below its diagonal"),
        "full rows accepted as an upper triangle: %s", cis_last_error());
  char want[64];
  snprintf(want, sizeof want, "row %lld ", (long long)first_low);
  CHECK(strstr(cis_last_error(), want) != NULL, "the error names '%s', expected row %lld", cis_last_error(),
        (long long)first_low);
  src.U = U;
  cis_dist_opts o = cis_dist_opts_default();
  o.format = "csr";
  CHECK(dist_matrix_create_upper_rows(N, NULL, slice, NULL, &src, c, &o, &D) == CIS_ERR_UNSUPPORTED && !D &&
            strstr(cis_last_error(), "csr"),
        "csr blocks accepted for a matrix stored once: %s", cis_last_error());
  CHECK(dist_matrix_create_upper_rows(N, NULL, NULL, NULL, &src, c, NULL, &D) == CIS_ERR_INVALID && !D,
        "no builder accepted");
  CHECK(dist_matrix_create_upper_rows(N, NULL, slice, no_gpu_rows, &src, c, NULL, &D) == CIS_ERR_INVALID && !D,
        "two builders accepted");
  CHECK(dist_matrix_create_upper_rows(N, NULL, NULL, no_gpu_rows, &src, c, NULL, &D) == CIS_ERR_INVALID && !D &&
            strstr(cis_last_error(), "GPU"),
        "a GPU builder on host parts accepted: %s", cis_last_error());
  src.fail = 1;
  CHECK(dist_matrix_create_upper_rows(N, NULL, slice, NULL, &src, c, NULL, &D) == CIS_ERR_NUMERIC && !D,
        "the builder's error not passed on");
  src.fail = 0;
  src.short_rows = 1;
  CHECK(dist_matrix_create_upper_rows(N, NULL, slice, NULL, &src, c, NULL, &D) == CIS_ERR_INVALID && !D,
        "a builder giving one row too few accepted");
  src.short_rows = 0;
  CHECK(dist_matrix_create_upper_rows(1, NULL, slice, NULL, &src, c, NULL, &D) == CIS_ERR_INVALID && !D,
        "1 row over 2 parts accepted");
  CHECK(dist_matrix_create_upper_rows(N, NULL, slice, NULL, &src, NULL, NULL, &D) == CIS_ERR_INVALID && !D,
        "NULL comm accepted");
  cis_dist_comm_free(c);
  cis_dist_world_free(w);
  /* allocation failure at every step: CIS_ERR_ALLOC each time, then success */
  cis_int *counts = row_counts(U);
  upper_call u = {N, counts, &src, NULL, NULL, NULL};
  test_alloc_every("upper rows over 3 parts", upper_run, upper_undo, &u);
  free(counts);
  pthread_mutex_destroy(&src.mu);
  cis_csr_free(U);
  cis_csr_free(A);
}

/* cis_dist_matrix_create of a whole symmetric matrix with a symmetric format
 * and no exchange named: each entry once (its upper triangle over the parts),
 * from the full matrix or its triangle flagged CIS_FLAG_UPPER, the product
 * equal to the full one's; a named exchange keeps full rows; a matrix that is
 * not symmetric is refused. */
static void test_whole_matrix(void) {
  cis_csr *A = random_symmetric(5), *U = NULL, *B = NULL;
  cis_dist_world *w = NULL;
  cis_dist_comm *c = NULL;
  double x[N], y[N], ref[N];
  CHECK_OK(csr_upper(A, &U));
  test_fill_random(x, CIS_F64, N, 21);
  CHECK_OK(cis_csr_spmv(A, 1.0, x, 0.0, ref));
  CHECK_OK(cis_dist_world_create(3, &w));
  CHECK_OK(cis_dist_comm_fake(w, 0, 3, &c));
  const cis_csr *inputs[2] = {A, U};
  for (int k = 0; k < 2; ++k)
    for (int e = 0; e < 2; ++e) {
      cis_dist_matrix *D = NULL;
      cis_operator *op = NULL;
      void *v = NULL;
      cis_dist_opts o = cis_dist_opts_default();
      o.format = "sym-seg";
      o.exchange = e ? CIS_XCHG_P2P : CIS_XCHG_AUTO;
      for (int i = 0; i < N; ++i) y[i] = NAN;
      CHECK_OK(cis_dist_matrix_create(inputs[k], c, &o, &D));
      if (D) CHECK_OK(cis_operator_from_dist(D, &op));
      if (op) CHECK_OK(cis_dist_vec_alloc(D, 2, &v));
      if (v) {
        CHECK_OK(apply_dist(D, op, v, 1.0, x, 0.0, NULL, y));
        double err = 0, ymax = 0;
        for (int i = 0; i < N; ++i) {
          const double d = fabs(y[i] - ref[i]);
          err = d > err || d != d ? d : err;
          ymax = fabs(ref[i]) > ymax ? fabs(ref[i]) : ymax;
        }
        CHECK(err <= 1e-13 * ymax, "%s input, %s: |y - A x| %.3e", k ? "upper" : "full", e ? "p2p" : "auto", err);
        CHECK(e ? strstr(cis_operator_name(op), "dist sym-seg x3") != NULL
                : strstr(cis_operator_name(op), "dist upper sym-seg x3") != NULL,
              "%s input, %s exchange: operator '%s'", k ? "upper" : "full", e ? "p2p" : "auto", cis_operator_name(op));
        cis_dist_vec_free(D, v);
      }
      cis_operator_free(op);
      cis_dist_matrix_free(D);
    }
  /* not symmetric: one mirrored value changed */
  CHECK_OK(cis_csr_copy(A, CIS_F64, &B));
  if (B) {
    for (cis_int k = B->rowptr[1]; k < B->rowptr[2]; ++k)
      if (B->colind[k] != 1) {
        ((double *)B->val)[k] += 0.5;
        break;
      }
    cis_dist_matrix *D = NULL;
    cis_dist_opts o = cis_dist_opts_default();
    o.format = "csr-sym";
    CHECK(cis_dist_matrix_create(B, c, &o, &D) == CIS_ERR_INVALID && !D && strstr(cis_last_error(), "symmetric"),
          "a non-symmetric matrix accepted as symmetric storage: %s", cis_last_error());
  }
  cis_dist_comm_free(c);
  cis_dist_world_free(w);
  cis_csr_free(B);
  cis_csr_free(U);
  cis_csr_free(A);
}

/* Parts without stored entries (a matrix whose only entries sit in row 0,
 * over 4 parts: parts 1-3 hold empty rows) contribute zeros; a NaN in x
 * reaches y (never a finite answer from a NaN input). */
static void test_empty_parts_and_nan(void) {
  const double d[16] = {3, 1, 0, 2, /**/ 1, 0, 0, 0, /**/ 0, 0, 0, 0, /**/ 2, 0, 0, 0};
  cis_csr *A = test_csr_from_dense(4, 4, d, CIS_F64);
  cis_dist_world *w = NULL;
  cis_dist_comm *c = NULL;
  cis_dist_matrix *D = NULL;
  cis_operator *op = NULL;
  void *v = NULL;
  const double x[4] = {1, 2, 3, 4};
  double y[4] = {NAN, NAN, NAN, NAN};
  cis_dist_opts o = cis_dist_opts_default();
  o.format = "csr-sym";
  CHECK_OK(cis_dist_world_create(4, &w));
  CHECK_OK(cis_dist_comm_fake(w, 0, 4, &c));
  CHECK_OK(cis_dist_matrix_create(A, c, &o, &D));
  if (D) {
    int empty = 0;
    for (int l = 0; l < D->nlocal; ++l) empty += !D->part[l].Ml && !D->part[l].Pl;
    CHECK(empty == 3, "%d of 4 parts without stored entries, expected 3", empty);
    CHECK_OK(cis_operator_from_dist(D, &op));
    CHECK_OK(cis_dist_vec_alloc(D, 2, &v));
  }
  if (v) {
    CHECK_OK(apply_dist(D, op, v, 1.0, x, 0.0, NULL, y));
    CHECK(y[0] == 3 + 2 + 8 && y[1] == 1 && y[2] == 0 && y[3] == 2, "y = %g %g %g %g, expected 13 1 0 2", y[0], y[1],
          y[2], y[3]);
    const double xn[4] = {1, NAN, 3, 4};
    CHECK_OK(apply_dist(D, op, v, 1.0, xn, 0.0, NULL, y));
    CHECK(y[0] != y[0], "x with a NaN in column 1 gave a finite y[0] = %g", y[0]);
    cis_dist_vec_free(D, v);
  }
  cis_operator_free(op);
  cis_dist_matrix_free(D);
  cis_dist_comm_free(c);
  cis_dist_world_free(w);
  cis_csr_free(A);
}

int main(void) {
  test_product();
  test_even_split();
  test_errors();
  test_whole_matrix();
  test_empty_parts_and_nan();
  return test_summary("test_dist_upper");
}
