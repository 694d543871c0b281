/* test_ci_progress.c: the CI driver's progress callback (cis_ci_solve_opts.
 * progress): one header event before any iteration, with the method and the
 * space already known; on the stored path build events after the header and
 * before the iterations, pass 1 then pass 2, rows never going back, each
 * pass ending at all its rows, the last at the result's nonzeros; one
 * iteration event per Davidson iteration, numbered 1..iterations, energies
 * total (core included: the last equals the result's lowest root), residuals
 * ending at the result's, times and clock sane; the stored and the direct
 * paths; no callback, no events and the same energies. The result's phases
 * (cis_ci_result.phases) sum to its total time but for a little; the stored
 * path without verbose builds no format but the one that runs. */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"

#define DATA CIS_TEST_DATA "/ci/"

typedef struct seen {
  int headers, iterations, header_after_iteration, numbering_ok;
  int builds, build_order_ok, pass, pass_ends; /* BUILD events: in order after the header, passes ended */
  cis_int last_rows, last_nnz;
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
  if (p->event == CIS_CI_PROGRESS_BUILD) {
    const int same = p->pass == s->pass;
    s->builds++;
    s->build_order_ok &= s->headers == 1 && s->iterations == 0 && (same ? p->rows_done >= s->last_rows
                         : p->pass == s->pass + 1 && s->last_rows == (s->pass ? p->rows : 0));
    s->pass = p->pass;
    s->pass_ends += p->rows_done == p->rows;
    s->last_rows = p->rows_done, s->last_nnz = p->nnz;
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

/* Build events of a stored solve: both passes in order, each ended, the last at all rows and nonzeros. */
static void check_build_events(const char *file, const seen *s, const cis_ci_result *R) {
  CHECK(s->builds >= 2 && s->build_order_ok && s->pass == 2 && s->pass_ends == 2 && s->last_rows == R->determinants &&
            s->last_nnz == R->nnz,
        "%s: %d build events (order %d, last pass %d, %d pass ends, last rows %lld of %lld, nonzeros %lld of %lld)",
        file, s->builds, s->build_order_ok, s->pass, s->pass_ends, (long long)s->last_rows,
        (long long)R->determinants, (long long)s->last_nnz, (long long)R->nnz);
}

/* R's phases: parse first, then the path's own, each >= 0, summing to its
 * total less at most a tenth and 20 ms (allocations, checks: no phase). */
static void check_phases(const char *file, const cis_ci_result *R) {
  double sum = 0;
  int ok = R->nphases > 3 && !strcmp(R->phases[0].name, "parse"), davidson = 0;
  for (int k = 0; k < R->nphases; ++k) {
    ok &= R->phases[k].seconds >= 0;
    davidson += !strcmp(R->phases[k].name, "davidson");
    sum += R->phases[k].seconds;
  }
  CHECK(ok && davidson == 1, "%s: %d phases, the first '%s', davidson %d times", file, R->nphases,
        R->nphases ? R->phases[0].name : "", davidson);
  CHECK(sum <= R->t_total + 1e-6 && sum >= 0.9 * R->t_total - 0.02, "%s: phases sum to %.4f s of %.4f s in all", file,
        sum, R->t_total);
}

/* The stored path on the host without verbose: only the format that runs built (its bytes), csr, ell and
 * ellr by formula where not built, no other format's bytes. */
static void check_formats_built(const char *file, const cis_ci_result *R) {
  if (R->method != CIS_CI_METHOD_STORED) return;
  int built = 0, used = -1;
  for (int f = 0; f < cis_format_count() && f < CIS_CI_MAX_FORMATS; ++f) {
    built += R->format_bytes[f] >= 0;
    if (!strcmp(cis_format_name(f), R->format)) used = f;
  }
  CHECK(built == 1 && used >= 0 && R->format_bytes[used] > 0, "%s: %d formats built (format_bytes), %s's %lld", file,
        built, R->format, used >= 0 ? (long long)R->format_bytes[used] : -1LL);
}

/* A solve of file with method m, roots k, watched by the callback. */
static void check_path(const char *file, cis_ci_method m, int level, int roots) {
  seen s = {.numbering_ok = 1, .build_order_ok = 1, .header_method = -1, .header_determinants = -1,
            .min_seconds = 1e300, .elapsed_ok = 1};
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
  if (R->method == CIS_CI_METHOD_STORED) check_build_events(file, &s, R);
  else CHECK(s.builds == 0, "%s: %d build events on the direct path", file, s.builds);
  check_phases(file, R0);
  check_formats_built(file, R0);
  cis_ci_result_free(R);
  cis_ci_result_free(R0);
}

int main(void) {
  check_path(DATA "c2_sto3g.FCIDUMP", CIS_CI_METHOD_DIRECT, -1, 1);
  check_path(DATA "c2_sto3g.FCIDUMP", CIS_CI_METHOD_STORED, 2, 2);
  check_path(DATA "n2_sto3g_d2h.FCIDUMP", CIS_CI_METHOD_DIRECT, -1, 1); /* blocked by irreps */
  return test_summary("test_ci_progress");
}
