/* test_dist_resident.c: the distributed backend's two ways of holding the
 * Krylov scalars (src/distributed/backend_dist.c) over 1, 2 and 3 CPU parts
 * of the fake communicator, in double and float: CG, BiCG and BiCGStab,
 * with and without Jacobi, in the device-resident versions (merge_10,
 * merge, cuda, graph: every part's slots its own, partial dots summed in
 * stream order) and in cublasL (slots on the host), against the serial host
 * solve: iterations within one, x within a tolerance scaled to the
 * precision; and the communicator's all-reduce counters against the rule of
 * dist_counts.h (so a resident solve that brought a dot to the host, or
 * summed a step's dots in two calls, fails). One thread driving every part,
 * and one thread per part. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "distributed/dist_matrix.h"
#include "dist_counts.h"
#include "dist_groups.h"
#include "test_util.h"

typedef struct job {
  cis_status st;    /* and its message in err */
  char err[256];
  const cis_csr *A;
  cis_dist_comm *c;
  cis_krylov_opts ko;
  const void *b;
  void *x;          /* shared: each group downloads its own rows */
  int iterations;
  dist_counts before, after;
} job;

/* The solve of one group: x0 = 0, the counters around cis_krylov_solve. */
static void *run_job(void *arg) {
  job *J = arg;
  cis_krylov_info info;
  void *v = NULL, *zero = NULL;
  cis_operator *op = NULL;
  cis_dist_matrix *D = NULL;
  const cis_dtype t = J->A->dtype;
  const size_t vs = (size_t)J->A->rows * cis_dtype_size(t);
  cis_status st;
  if ((st = cis_dist_matrix_create(J->A, J->c, NULL, &D)) != CIS_OK) goto done;
  if ((st = cis_operator_from_dist(D, &op)) != CIS_OK) goto done;
  if (J->ko.method == CIS_BICG && (st = cis_operator_set_transpose(op, op)) != CIS_OK) goto done; /* A symmetric */
  if ((st = cis_dist_vec_alloc(D, 2, &v)) != CIS_OK) goto done;
  if (!(zero = calloc(1, vs))) {
    st = CIS_ERR_ALLOC;
    goto done;
  }
  if ((st = cis_dist_vec_upload(D, v, zero, 1)) != CIS_OK) goto done;
  if ((st = cis_dist_vec_upload(D, (char *)v + vs, J->b, 1)) != CIS_OK) goto done;
  J->before = dist_counts_now(J->c);
  if ((st = cis_krylov_solve(op, (char *)v + vs, v, &J->ko, &info)) != CIS_OK) goto done;
  J->after = dist_counts_now(J->c);
  J->iterations = info.iterations;
  st = cis_dist_vec_download(D, J->x, v, 1);
done:
  J->st = st;
  if (st != CIS_OK) snprintf(J->err, sizeof J->err, "%s", cis_last_error());
  free(zero);
  cis_dist_vec_free(D, v);
  cis_operator_free(op);
  cis_dist_matrix_free(D);
  return NULL;
}

/* The job over G ranks in T groups (a thread each when T > 1): x, the
 * iterations (every group the same) and group 0's counters in *out. */
static void run_distributed(const job *tmpl, int G, int T, job *out) {
  cis_dist_world *w = NULL;
  job jobs[4];
  CHECK_OK(cis_dist_world_create(G, &w));
  if (!w) return;
  for (int k = 0; k < T; ++k) jobs[k] = *tmpl;
  run_fake_groups(w, G, T, jobs, sizeof *jobs, offsetof(job, c), run_job);
  for (int k = 0; k < T; ++k) {
    CHECK(jobs[k].st == CIS_OK, "G=%d T=%d group %d: %s", G, T, k, jobs[k].err);
    CHECK(jobs[k].iterations == jobs[0].iterations, "G=%d T=%d: groups disagree on iterations (%d, %d)", G, T,
          jobs[k].iterations, jobs[0].iterations);
    cis_dist_comm_free(jobs[k].c);
  }
  *out = jobs[0];
  cis_dist_world_free(w);
}

static void solves(cis_dtype t) {
  cis_csr *A = NULL;
  CHECK_OK(cis_generate("laplace3d:size=8,points=7", t, &A));
  if (!A) return;
  const cis_int n = A->rows;
  const size_t vs = (size_t)n * cis_dtype_size(t);
  void *b = malloc(vs), *xs = malloc(vs), *xd = malloc(vs);
  /* float: the recurrences stall near 1e-6 of ||b||; the two solves' x
   * then differ by about kappa (~30 here) times that */
  const double tol = t == CIS_F64 ? 1e-10 : 1e-5, xtol = t == CIS_F64 ? 1e-8 : 1e-3;
  const cis_krylov_method methods[] = {CIS_CG, CIS_BICG, CIS_BICGSTAB};
  const cis_solver_version versions[] = {CIS_VER_MERGE_10, CIS_VER_MERGE, CIS_VER_CUDA, CIS_VER_GRAPH,
                                         CIS_VER_CUBLAS_L};
  test_fill_random(b, t, n, 5);
  for (int mi = 0; mi < 3; ++mi)
    for (int pc = 0; pc <= 1; ++pc) {
      cis_operator *S = NULL;
      cis_krylov_info is;
      cis_krylov_opts ko = cis_krylov_opts_default();
      ko.method = methods[mi];
      ko.precond = pc ? CIS_PRECOND_JACOBI : CIS_PRECOND_NONE;
      ko.tol = tol;
      memset(xs, 0, vs);
      CHECK_OK(cis_operator_from_csr(A, &S));
      if (ko.method == CIS_BICG) CHECK_OK(cis_operator_set_transpose(S, S));
      CHECK_OK(cis_krylov_solve(S, b, xs, &ko, &is));
      cis_operator_free(S);
      for (int vi = 0; vi < 5; ++vi)
        for (int G = 1; G <= 3; ++G)
          for (int T = 1; T <= G; T += G > 1 ? G - 1 : 1) {
            job J, R;
            char what[128];
            memset(&J, 0, sizeof J);
            memset(&R, 0, sizeof R);
            J.A = A;
            J.ko = ko;
            J.ko.version = versions[vi];
            J.b = b;
            J.x = xd;
            test_fill_nan(xd, t, n);
            run_distributed(&J, G, T, &R);
            snprintf(what, sizeof what, "%s%s %s %s G=%d T=%d", cis_krylov_method_name(ko.method),
                     pc ? " jacobi" : "", t == CIS_F64 ? "f64" : "f32", cis_solver_version_name(versions[vi]), G,
                     T);
            if (R.st != CIS_OK) continue;
            double e = test_rel_err(xd, xs, t, n);
            CHECK(e < xtol && abs(R.iterations - is.iterations) <= 1,
                  "%s: x differs from the serial solve by %.3e, %d iterations vs %d", what, e, R.iterations,
                  is.iterations);
            if (versions[vi] != CIS_VER_CUDA) /* cuda: each dot its own sum (steps composed) */
              check_dist_counts(what, ko.method, versions[vi], G, R.iterations, R.before, R.after);
          }
    }
  free(b);
  free(xs);
  free(xd);
  cis_csr_free(A);
}

/* The comm's slot sums by hand: rank r's slots hold r + 1 and 10 (r + 1);
 * over 3 ranks in 2 groups the sums 6 and 60 land in every rank's dst
 * slots, in place and out of place; the sources stay; bad input refused. */
typedef struct slot_job {
  cis_dist_comm *c;
  double s[2][8];
  cis_status st;
} slot_job;

static void *slot_sum(void *arg) {
  slot_job *J = arg;
  double *ps[2] = {J->s[0], J->s[1]};
  const int src[2] = {0, 1}, dst[2] = {4, 1};
  J->st = dist_allreduce_slots(J->c, ps, src, dst, 2, NULL);
  return NULL;
}

static void slots_by_hand(void) {
  cis_dist_world *w = NULL;
  slot_job J[2];
  pthread_t th;
  memset(J, 0, sizeof J);
  CHECK_OK(cis_dist_world_create(3, &w));
  CHECK_OK(cis_dist_comm_fake(w, 0, 2, &J[0].c));
  CHECK_OK(cis_dist_comm_fake(w, 2, 1, &J[1].c));
  for (int r = 0; r < 3; ++r) {
    double *s = J[r / 2].s[r % 2];
    s[0] = r + 1;
    s[1] = 10.0 * (r + 1);
  }
  pthread_create(&th, NULL, slot_sum, &J[1]);
  slot_sum(&J[0]);
  pthread_join(th, NULL);
  for (int r = 0; r < 3; ++r) {
    const double *s = J[r / 2].s[r % 2];
    CHECK(J[r / 2].st == CIS_OK && s[4] == 6 && s[1] == 60 && s[0] == r + 1,
          "rank %d: slots %g %g (expected 6, 60), source %g", r, s[4], s[1], s[0]);
  }
  CHECK(J[0].c->allreduces_slots == 1 && J[0].c->allreduces_host == 0, "counted %lld slot sums, %lld host",
        (long long)J[0].c->allreduces_slots, (long long)J[0].c->allreduces_host);
  {
    double *ps[2] = {J[0].s[0], J[0].s[1]};
    const int ids[9] = {0};
    CHECK(dist_allreduce_slots(J[0].c, ps, ids, ids, 9, NULL) == CIS_ERR_INVALID, "9 slots accepted");
    CHECK(dist_allreduce_slots(J[0].c, NULL, ids, ids, 1, NULL) == CIS_ERR_INVALID, "NULL slots accepted");
  }
  cis_dist_comm_free(J[0].c);
  cis_dist_comm_free(J[1].c);
  cis_dist_world_free(w);
}

int main(void) {
  slots_by_hand();
  solves(CIS_F64);
  solves(CIS_F32);
  return test_summary("test_dist_resident");
}
