/* test_ci_agree.c: ranks of a caller's communicator that solve different
 * problems refuse together (issue 40; ci_agree.c, cis_dist_comm_agree in
 * dist_agree.c). The ranks of a fake world driven by threads (each thread a
 * process of an MPI job, through cis_ci_solve with opts.comm): the same
 * integrals and options solve to the one-process energy; integrals 0.01
 * apart (ECORE, h1, an ERI), or one option differing (roots, tol, max_sub,
 * method, count_only, format, guess), give CIS_ERR_INVALID "ranks disagree
 * on the integrals" / "... the options (NAME)" on every rank, never a hang
 * or an energy; 3 ranks in groups of 2 and 1. cis_dist_comm_agree alone: a
 * value differing in its high or low 32 bits, its refusals; cis_hash64
 * against FNV-1a's published values. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "test_util.h"

#define MAXG 3

typedef struct rank_job {
  cis_dist_comm *c;
  cis_fcidump *F;
  cis_ci_solve_opts o;
  cis_status st;
  double energy;
  char err[256];
} rank_job;

static void *solve_rank(void *arg) {
  rank_job *J = arg;
  cis_ci_result *R = NULL;
  J->o.comm = J->c;
  J->st = cis_ci_solve(J->F, &J->o, &R);
  J->energy = J->st == CIS_OK && R->roots > 0 ? R->energies[0] : NAN;
  snprintf(J->err, sizeof J->err, "%s", J->st == CIS_OK ? "" : cis_last_error());
  cis_ci_result_free(R);
  return NULL;
}

/* What the case changes on the last group: integrals or an option. */
typedef void (*change_fn)(cis_fcidump *F, cis_ci_solve_opts *o);
static void no_change(cis_fcidump *F, cis_ci_solve_opts *o) { (void)F, (void)o; }
static void ecore_up(cis_fcidump *F, cis_ci_solve_opts *o) { (void)o, F->ecore += 0.01; }
static void h1_up(cis_fcidump *F, cis_ci_solve_opts *o) { (void)o, F->h1[1] += 0.01, F->h1[F->norb] += 0.01; }
static void eri_up(cis_fcidump *F, cis_ci_solve_opts *o) { (void)o, F->eri[F->neri - 1] += 0.01; }
static void roots_2(cis_fcidump *F, cis_ci_solve_opts *o) { (void)F, o->roots = 2; }
static void tol_down(cis_fcidump *F, cis_ci_solve_opts *o) { (void)F, o->tol = 1e-10; }
static void sub_12(cis_fcidump *F, cis_ci_solve_opts *o) { (void)F, o->max_sub = 12; }
static void stored(cis_fcidump *F, cis_ci_solve_opts *o) { (void)F, o->method = CIS_CI_METHOD_STORED; }
static void count(cis_fcidump *F, cis_ci_solve_opts *o) { (void)F, o->count_only = 1; }
static void format_csr(cis_fcidump *F, cis_ci_solve_opts *o) { (void)F, o->format = "csr"; }
static void guess(cis_fcidump *F, cis_ci_solve_opts *o) {
  static const double g[36] = {1};
  (void)F, o->guess = g, o->nguess = 1;
}
static void ecore_and_roots(cis_fcidump *F, cis_ci_solve_opts *o) { ecore_up(F, o), roots_2(F, o); }
static void user(cis_fcidump *F, cis_ci_solve_opts *o) { (void)F, o->progress_user = o; }

/* G ranks in T groups (a thread each; the last group's input changed by
 * `change`); each group's status and message against want (NULL: every
 * group solves, to e_ref). */
static void run_case(const char *file, const char *name, int G, int T, int method, change_fn change, const char *want,
                     double e_ref) {
  rank_job J[MAXG];
  pthread_t th[MAXG];
  cis_dist_world *w = NULL;
  memset(J, 0, sizeof J);
  CHECK_OK(cis_dist_world_create(G, &w));
  for (int t = 0; t < T; ++t) {
    const int first = G * t / T, last = G * (t + 1) / T;
    CHECK_OK(cis_dist_comm_fake(w, first, last - first, &J[t].c));
    CHECK_OK(cis_fcidump_read(file, &J[t].F));
    J[t].o = cis_ci_solve_opts_default();
    J[t].o.method = method;
    J[t].o.cpu_parts = G;
    J[t].o.tol = 1e-9;
    if (t == T - 1) change(J[t].F, &J[t].o);
  }
  for (int t = 0; t < T; ++t) pthread_create(&th[t], NULL, solve_rank, &J[t]);
  for (int t = 0; t < T; ++t) pthread_join(th[t], NULL);
  for (int t = 0; t < T; ++t) {
    if (!want) {
      CHECK(J[t].st == CIS_OK && fabs(J[t].energy - e_ref) < 1e-9, "%s, %d ranks in %d groups, group %d: %s, E %.10f, "
            "one process %.10f", name, G, T, t, J[t].err, J[t].energy, e_ref);
    } else {
      CHECK(J[t].st == CIS_ERR_INVALID && !strcmp(J[t].err, want), "%s, %d ranks in %d groups, group %d: %s '%s', "
            "want '%s'", name, G, T, t, cis_status_name(J[t].st), J[t].err, want);
    }
    cis_fcidump_free(J[t].F);
    cis_dist_comm_free(J[t].c);
  }
  cis_dist_world_free(w);
}

static void test_solve_agreement(void) {
  char file[512];
  cis_fcidump *F = NULL;
  cis_ci_result *R = NULL;
  test_shared_path(file, sizeof file, "ci/h4_sto3g.FCIDUMP");
  CHECK_OK(cis_fcidump_read(file, &F));
  if (!F) return;
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  o.tol = 1e-9;
  CHECK_OK(cis_ci_solve(F, &o, &R));
  const double e1 = R ? R->energies[0] : NAN;
  cis_ci_result_free(R);
  cis_fcidump_free(F);
  const struct {
    const char *name;
    change_fn change;
    const char *want;
  } cases[] = {
      {"the same input", no_change, NULL},
      {"progress_user (not compared)", user, NULL},
      {"ECORE + 0.01", ecore_up, "ranks disagree on the integrals"},
      {"h1 + 0.01", h1_up, "ranks disagree on the integrals"},
      {"an ERI + 0.01", eri_up, "ranks disagree on the integrals"},
      {"roots", roots_2, "ranks disagree on the options (roots)"},
      {"tol", tol_down, "ranks disagree on the options (tol)"},
      {"max_sub", sub_12, "ranks disagree on the options (max_sub)"},
      {"method", stored, "ranks disagree on the options (method)"},
      {"count_only", count, "ranks disagree on the options (count_only)"},
      {"format", format_csr, "ranks disagree on the options (format)"},
      {"guess", guess, "ranks disagree on the options (guess)"},
      {"ECORE and roots", ecore_and_roots, "ranks disagree on the integrals and the options (roots)"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k)
    for (int m = 0; m < 2; ++m) { /* direct, stored */
      const int method = m ? CIS_CI_METHOD_STORED : CIS_CI_METHOD_DIRECT;
      if (m && (cases[k].change == stored || cases[k].change == guess)) continue; /* stored takes no guess */
      run_case(file, cases[k].name, 2, 2, method, cases[k].change, cases[k].want, e1);
      run_case(file, cases[k].name, 3, 2, method, cases[k].change, cases[k].want, e1);
    }
}

typedef struct agree_job {
  cis_dist_comm *c;
  uint64_t mine[3];
  int differ[3];
  cis_status st;
} agree_job;

static void *agree_rank(void *arg) {
  agree_job *J = arg;
  J->st = cis_dist_comm_agree(J->c, J->mine, 3, J->differ);
  return NULL;
}

static void test_comm_agree(void) {
  /* FNV-1a 64 of "" and "a" (the published test vectors) */
  CHECK(cis_hash64(CIS_HASH64_START, "", 0) == 0xcbf29ce484222325ull, "FNV-1a of nothing");
  CHECK(cis_hash64(CIS_HASH64_START, "a", 1) == 0xaf63dc4c8601ec8cull, "FNV-1a of 'a': %llx",
        (unsigned long long)cis_hash64(CIS_HASH64_START, "a", 1));
  agree_job J[2];
  pthread_t th[2];
  cis_dist_world *w = NULL;
  memset(J, 0, sizeof J);
  CHECK_OK(cis_dist_world_create(2, &w));
  for (int t = 0; t < 2; ++t) {
    CHECK_OK(cis_dist_comm_fake(w, t, 1, &J[t].c));
    J[t].mine[0] = 0xffffffffffffffffull;
    J[t].mine[1] = 0x123456789abcdef0ull;
    J[t].mine[2] = 0x0000000100000000ull;
  }
  J[1].mine[1] ^= 1;          /* the low half only */
  J[1].mine[2] ^= 1ull << 63; /* the high half only */
  for (int t = 0; t < 2; ++t) pthread_create(&th[t], NULL, agree_rank, &J[t]);
  for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
  for (int t = 0; t < 2; ++t)
    CHECK(J[t].st == CIS_OK && J[t].differ[0] == 0 && J[t].differ[1] == 1 && J[t].differ[2] == 1,
          "rank %d: %s, differ %d %d %d, want 0 1 1", t, cis_status_name(J[t].st), J[t].differ[0], J[t].differ[1],
          J[t].differ[2]);
  int d;
  uint64_t h = 0;
  CHECK(cis_dist_comm_agree(J[0].c, &h, 0, &d) == CIS_ERR_INVALID, "k = 0 accepted");
  CHECK(cis_dist_comm_agree(NULL, &h, 1, &d) == CIS_ERR_INVALID, "a NULL comm accepted");
  CHECK(cis_dist_comm_agree(J[0].c, NULL, 1, &d) == CIS_ERR_INVALID, "NULL values accepted");
  for (int t = 0; t < 2; ++t) cis_dist_comm_free(J[t].c);
  cis_dist_world_free(w);
}

int main(void) {
  test_comm_agree();
  test_solve_agreement();
  return test_summary("test_ci_agree");
}
