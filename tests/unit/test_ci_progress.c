/* test_ci_progress.c: the CI driver's progress callback (cis_ci_solve_opts.
 * progress): one header event before any iteration, with the method and the
 * space already known; one iteration event per Davidson iteration, numbered
 * 1..iterations, energies total (core included: the last equals the result's
 * lowest root), residuals ending at the result's, times and clock sane; the
 * stored and the direct paths; no callback, no events and the same energies. */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"

#define DATA CIS_TEST_DATA "/ci/"

typedef struct seen {
  int headers, iterations, header_after_iteration, numbering_ok;
  int header_method;
  cis_int header_determinants;
  double last_energy, last_residual, last_elapsed, min_seconds;
  int elapsed_ok;
} seen;

static void record(void *user, const cis_ci_progress *p) {
  seen *s = user;
  if (p->event == CIS_CI_PROGRESS_HEADER) {
    s->headers++;
    s->header_after_iteration |= s->iterations > 0;
    s->header_method = p->result ? p->result->method : -1;
    s->header_determinants = p->result ? p->result->determinants : -1;
    return;
  }
  s->iterations++;
  s->numbering_ok &= p->iteration == s->iterations && p->roots >= 1 && p->converged <= p->roots;
  s->elapsed_ok &= p->elapsed >= s->last_elapsed && p->elapsed >= 0;
  if (p->seconds < s->min_seconds) s->min_seconds = p->seconds;
  s->last_energy = p->energy;
  s->last_residual = p->max_residual;
  s->last_elapsed = p->elapsed;
}

/* A solve of file with method m, roots k, watched by the callback. */
static void check_path(const char *file, cis_ci_method m, int level, int roots) {
  seen s = {0, 0, 0, 1, -1, -1, 0, 0, 0, 1e300, 1};
  cis_ci_solve_opts o = cis_ci_solve_opts_default();
  cis_ci_result *R = NULL, *R0 = NULL;
  o.method = m;
  o.level = level;
  o.roots = roots;
  o.progress = record;
  o.progress_user = &s;

  cis_status st = cis_ci_solve_file(file, &o, &R);
  o.progress = NULL;
  cis_status st0 = cis_ci_solve_file(file, &o, &R0);

  CHECK(st == CIS_OK && st0 == CIS_OK, "%s: %s", file, cis_last_error());
  if (st != CIS_OK || st0 != CIS_OK) { cis_ci_result_free(R); cis_ci_result_free(R0); return; }
  CHECK(s.headers == 1 && !s.header_after_iteration, "%s: %d header events, one after an iteration: %d", file,
        s.headers, s.header_after_iteration);
  CHECK(s.header_method == R->method, "%s: header method %d, result %d", file, s.header_method, R->method);
  CHECK(s.header_determinants == R->determinants, "%s: header determinants %lld, result %lld", file,
        (long long)s.header_determinants, (long long)R->determinants);
  CHECK(s.iterations == R->davidson.iterations && s.iterations > 0, "%s: %d iteration events, %d iterations", file,
        s.iterations, R->davidson.iterations);
  CHECK(s.numbering_ok && s.elapsed_ok && s.min_seconds >= 0, "%s: iterations numbered / clock monotone / seconds >= 0",
        file);
  CHECK(fabs(s.last_energy - R->energies[0]) < 1e-9, "%s: last progress energy %.12f, result %.12f (core included)",
        file, s.last_energy, R->energies[0]);
  CHECK(s.last_residual == R->davidson.max_residual, "%s: last residual %.3e, result %.3e", file, s.last_residual,
        R->davidson.max_residual);
  CHECK(fabs(R0->energies[0] - R->energies[0]) < 1e-12, "%s: the callback changed the energy", file);
  cis_ci_result_free(R);
  cis_ci_result_free(R0);
}

int main(void) {
  check_path(DATA "c2_sto3g.FCIDUMP", CIS_CI_METHOD_DIRECT, -1, 1);
  check_path(DATA "c2_sto3g.FCIDUMP", CIS_CI_METHOD_STORED, 2, 2);
  check_path(DATA "n2_sto3g_d2h.FCIDUMP", CIS_CI_METHOD_DIRECT, -1, 1); /* blocked by irreps */
  return test_summary("test_ci_progress");
}
