/* test_ci_warm_watches.c: a warm start keeps the watches (CASSCF's calls:
 * the same kept space, the last roots as the caller's guesses, integrals
 * that moved a little). With MS = 0 Davidson follows, beside the roots, the
 * next state of each alpha <-> beta parity holding fewer of them; the CI
 * solver keeps those watches' Ritz vectors (cis_davidson_opts.watch_vectors)
 * and seeds the next solve of the space with them.
 *  - a solve warm from its own roots converges in at most 3 iterations
 *    (before: 25 for N2 CAS(10,10) with 3 roots, the watches starting from
 *    P-space vectors), its energies equal to 1e-9;
 *  - with integrals changed (eri x 1.02: new states, new watches) the warm
 *    solve equals a cold solve of those integrals in a fresh solver, 1e-9 Eh,
 *    roots and <S^2> (a kept watch is a guess, never a result);
 *  - a space of another size drops the kept watches (never a vector of the
 *    wrong length);
 *  - direct (C1 and blocked by irreps: N2 STO-3G in D2h) and stored, 3 and
 *    5 roots. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ci/ci_solve_internal.h"
#include "test_util.h"

typedef struct run {
  double e[8], s2[8];
  int iterations, watches, roots;
  double *vec;
  cis_int size;
} run;

static cis_status solve(cis_ci_solver *s, const cis_fcidump *F, int method, int roots, const double *guess,
                        int nguess, run *out) {
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R = NULL;
  o.method = method;
  o.roots = roots;
  o.tol = 1e-7;
  o.etol = 1e-11;
  o.keep_vectors = 1;
  o.guess = guess;
  o.nguess = nguess;
  memset(out, 0, sizeof *out);
  cis_status st = cis_ci_solver_solve(s, F, &o, &R);
  if (st != CIS_OK) return st;
  const double *e = cis_ci_result_array(R, "energies"), *s2 = cis_ci_result_array(R, "s2"),
               *v = cis_ci_result_array(R, "vectors");
  out->roots = roots;
  for (int k = 0; k < roots; ++k) out->e[k] = e[k], out->s2[k] = s2[k];
  out->iterations = R->davidson.iterations;
  out->watches = R->davidson.watches;
  out->size = (cis_int)cis_ci_result_value(R, "size");
  out->vec = malloc((size_t)roots * (size_t)out->size * sizeof(double));
  memcpy(out->vec, v, (size_t)roots * (size_t)out->size * sizeof(double));
  cis_ci_result_free(R);
  return CIS_OK;
}

static double worst(const run *a, const run *b) {
  double d = 0;
  for (int k = 0; k < a->roots; ++k) {
    const double x = fabs(a->e[k] - b->e[k]), y = fabs(a->s2[k] - b->s2[k]);
    d = !(x <= d) ? x : d;
    d = !(y <= d) ? y : d;
  }
  return d;
}

/* file: under ../shared, or with data under tests/data (the D2h file). */
static void warm_case(const char *file, int data, int method, int roots) {
  char path[512], name[96];
  cis_fcidump *F = NULL, *G = NULL;
  if (data) snprintf(path, sizeof path, "%s/%s", CIS_TEST_DATA, file);
  else test_shared_path(path, sizeof path, file);
  CHECK_OK(cis_fcidump_read(path, &F));
  CHECK_OK(cis_fcidump_read(path, &G));
  if (!F || !G) goto done;
  for (cis_int i = 0; i < G->neri; ++i) G->eri[i] *= 1.02;
  snprintf(name, sizeof name, "%s %s, %d roots", file,
           method == CIS_CI_METHOD_DIRECT ? "direct" : "stored", roots);
  cis_ci_solver *s = NULL, *fresh = NULL;
  CHECK_OK(cis_ci_solver_create(&s));
  CHECK_OK(cis_ci_solver_create(&fresh));
  run cold = {0}, warm = {0}, moved = {0}, ref = {0};
  cis_status st = solve(s, F, method, roots, NULL, 0, &cold);
  if (st == CIS_OK) st = solve(s, F, method, roots, cold.vec, roots, &warm);
  if (st == CIS_OK) st = solve(s, G, method, roots, warm.vec, roots, &moved);
  if (st == CIS_OK) st = solve(fresh, G, method, roots, NULL, 0, &ref);
  CHECK(st == CIS_OK, "%s: %s: %s", name, cis_status_name(st), cis_last_error());
  if (st == CIS_OK) {
    CHECK(cold.watches == 0 || s->nwatch > 0, "%s: %d watches at the end, none kept", name, cold.watches);
    CHECK(warm.iterations <= 3, "%s: warm from its own roots took %d iterations (cold %d)", name, warm.iterations,
          cold.iterations);
    CHECK(worst(&warm, &cold) < 1e-9, "%s: warm differs from cold by %.2e", name, worst(&warm, &cold));
    CHECK(worst(&moved, &ref) < 1e-9, "%s: warm on new integrals differs from a fresh cold solve by %.2e", name,
          worst(&moved, &ref));
    printf("%-44s cold %2d iterations, warm %d, moved %2d (fresh %2d), watches kept %d\n", name, cold.iterations,
           warm.iterations, moved.iterations, ref.iterations, s->nwatch);
  }
  /* another space in the same solver: the kept watches are not used (nor read past a shorter vector) */
  F->nelec -= 2;
  run other = {0};
  run again = {0};
  st = solve(s, F, method, 1, NULL, 0, &other);
  if (st == CIS_OK) st = solve(s, F, method, 1, other.vec, 1, &again);
  CHECK(st == CIS_OK, "%s, fewer electrons: %s: %s", name, cis_status_name(st), cis_last_error());
  if (st == CIS_OK)
    CHECK(fabs(again.e[0] - other.e[0]) < 1e-9, "%s: fewer electrons, warm %.12f cold %.12f", name, again.e[0],
          other.e[0]);
  free(again.vec);
  free(other.vec);
  F->nelec += 2;
  free(cold.vec), free(warm.vec), free(moved.vec), free(ref.vec);
  cis_ci_solver_free(s);
  cis_ci_solver_free(fresh);
done:
  cis_fcidump_free(F);
  cis_fcidump_free(G);
}

int main(void) {
  warm_case("ci/n2_sto3g.FCIDUMP", 0, CIS_CI_METHOD_DIRECT, 3);
  warm_case("ci/n2_sto3g_d2h.FCIDUMP", 1, CIS_CI_METHOD_DIRECT, 3);
  warm_case("ci/h2o_sto3g.FCIDUMP", 0, CIS_CI_METHOD_STORED, 5);
  warm_case("ci/lih_sto3g.FCIDUMP", 0, CIS_CI_METHOD_DIRECT, 5);
  return test_summary("test_ci_warm_watches");
}
