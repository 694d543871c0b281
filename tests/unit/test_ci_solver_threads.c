/* test_ci_solver_threads.c: one cis_ci_solver used from several threads at
 * once (issue 40 item 6): its calls are serialised by the solver's mutex, so
 * every solve equals the serial one (1e-9 Eh), whichever integrals the other
 * threads hand the same kept space in between; cis_ci_solver_dets beside
 * the solves. C2H4 CAS(8,8) (tests/data/ci) and the same with h1 scaled by 1.01,
 * direct and stored, on the CPU. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "test_util.h"

#define DATA CIS_TEST_DATA "/ci/"
enum { THREADS = 4, ROUNDS = 3 };

typedef struct job {
  cis_ci_solver *s;
  const cis_fcidump *F[2];
  int method;
  double e[ROUNDS][2];
  cis_status st;
  cis_int ndets;
  char msg[256];
} job;

static double energy(cis_ci_solver *s, const cis_fcidump *F, int method, cis_status *st) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R = NULL;
  o.method = method;
  o.tol = 1e-8;
  o.etol = 1e-12;
  *st = cis_ci_solver_solve(s, F, &o, &R);
  const double e = *st == CIS_OK ? ((const double *)cis_ci_result_array(R, "energies"))[0] : NAN;
  cis_ci_result_free(R);
  return e;
}

static void *worker(void *p) {
  job *j = p;
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  o.method = j->method;
  for (int r = 0; r < ROUNDS && j->st == CIS_OK; ++r)
    for (int k = 0; k < 2 && j->st == CIS_OK; ++k) {
      j->e[r][k] = energy(j->s, j->F[k], j->method, &j->st);
      if (j->st == CIS_OK) j->st = cis_ci_solver_dets(j->s, j->F[1 - k], &o, NULL, NULL, &j->ndets);
    }
  if (j->st != CIS_OK) snprintf(j->msg, sizeof j->msg, "%s", cis_last_error());
  return NULL;
}

static void test_threads(const cis_fcidump *F, const cis_fcidump *F2, int method) {
  cis_ci_solver *s = NULL;
  cis_status st;
  double ref[2];
  job jobs[THREADS];
  pthread_t tid[THREADS];
  CHECK_OK(cis_ci_solver_create(&s));
  for (int k = 0; k < 2; ++k) {
    ref[k] = energy(s, k ? F2 : F, method, &st);
    CHECK(st == CIS_OK, "serial solve %d (method %d): %s", k, method, cis_last_error());
  }
  CHECK(fabs(ref[0] - ref[1]) > 1e-3, "the two problems differ (%.10f, %.10f)", ref[0], ref[1]);

  for (int t = 0; t < THREADS; ++t) {
    jobs[t] = (job){.s = s, .F = {t % 2 ? F2 : F, t % 2 ? F : F2}, .method = method, .st = CIS_OK};
    CHECK(pthread_create(&tid[t], NULL, worker, &jobs[t]) == 0, "pthread_create %d", t);
  }
  for (int t = 0; t < THREADS; ++t) pthread_join(tid[t], NULL);

  for (int t = 0; t < THREADS; ++t) {
    CHECK(jobs[t].st == CIS_OK, "thread %d (method %d): %s: %s", t, method, cis_status_name(jobs[t].st), jobs[t].msg);
    for (int r = 0; r < ROUNDS && jobs[t].st == CIS_OK; ++r)
      for (int k = 0; k < 2; ++k) {
        const double want = ref[(jobs[t].F[k] == F2)];
        CHECK(fabs(jobs[t].e[r][k] - want) < 1e-9, "thread %d round %d (method %d): %.12f, serial %.12f", t, r,
              method, jobs[t].e[r][k], want);
      }
  }
  cis_ci_solver_free(s);
}

int main(void) {
  cis_fcidump *F = NULL;
  CHECK_OK(cis_fcidump_read(DATA "c2h4_ccpvdz_cas8.FCIDUMP", &F));
  if (!F) return test_summary("test_ci_solver_threads");
  cis_fcidump F2 = *F; /* the same header, h1 scaled by 1.01 */
  const size_t nh = (size_t)F->norb * (size_t)F->norb;
  double *h1 = malloc(nh * sizeof(double));
  CHECK(h1 != NULL, "allocating h1");
  if (h1) {
    for (size_t i = 0; i < nh; ++i) h1[i] = 1.01 * F->h1[i];
    F2.h1 = h1;
    test_threads(F, &F2, CIS_CI_METHOD_DIRECT);
    test_threads(F, &F2, CIS_CI_METHOD_STORED);
  }
  free(h1);
  cis_fcidump_free(F);
  return test_summary("test_ci_solver_threads");
}
