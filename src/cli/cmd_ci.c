/* cmd_ci.c: `cisparse ci FILE.FCIDUMP ...`: CI ground (and excited) states,
 * on one process or over parts (--gpus N, --cpu-parts N, --mpi: one part per
 * process of mpirun). The options (ci_options.c, one table) become a
 * cis_ci_solve_opts, the work is one cis_ci_solve_file call (the library's
 * CI driver, cisparse/ci_solve.h: the same one Python's
 * cisparse.fci.FCISolver calls; over parts it builds each part's rows on
 * their own, or splits the direct sigma, and runs Davidson on the
 * distributed operator), and the result is printed as text (ci_report.c)
 * or JSON (ci_report_json.c). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/ci_cmd.h"

/* Seconds after which a run counts as long: its progress lines are shown
 * even when stderr is not a terminal (the help text says 2 s). */
#define CI_LONG_RUN_SECONDS 2.0

/* The driver's progress (one process): the header before the work (stdout
 * with the text report; stderr with the JSON on stdout unless --quiet), then
 * a line per Davidson iteration when asked (--progress), on a terminal, or
 * once the run is long; none with --quiet, and --verbose prints Davidson's
 * own lines instead. */
static void ci_progress(void *user, const cis_ci_progress *p) {
  ci_args *a = user;
  if (p->event == CIS_CI_PROGRESS_HEADER) {
    if (!cli_json_stdout(&a->json)) { ci_report_header(stdout, a, p->result); a->header_printed = 1; }
    else if (!a->quiet) ci_report_header(stderr, a, p->result);
    return;
  }
  const int shown = !a->quiet && (a->progress || isatty(2) || p->elapsed > CI_LONG_RUN_SECONDS);
  if (p->event == CIS_CI_PROGRESS_BUILD) { if (shown) ci_report_progress(p); return; }
  if (a->quiet || a->o.verbose) return;
  if (shown) ci_report_progress(p);
}

/* --mpi: this process's part: the communicator (*c) in a->o, the rank count
 * as the parts' count, Davidson's lines from rank 0 only; then the ranks
 * compare the flag the driver does not see (--json), before the driver
 * compares the integrals and its options (cis_ci_solve: ci_ranks_agree). */
static cis_status join_ranks(ci_args *a, cli_mpi *m, cis_dist_comm **c) {
  cis_status st = cli_mpi_comm(m, a->o.gpus != 0, c);
  if (st != CIS_OK) return st;
  a->o.comm = *c;
  if (a->o.gpus) a->o.gpus = m->size;
  else a->o.cpu_parts = m->size;
  if (m->rank != 0) a->o.verbose = 0; /* Davidson's lines once */
  const uint64_t flags = a->json.path ? 1 + (uint64_t)cli_json_stdout(&a->json) : 0;
  int differ = 0;
  if ((st = cis_dist_comm_agree(*c, &flags, 1, &differ)) != CIS_OK) return st;
  return differ ? cis_error(CIS_ERR_INVALID, "ranks disagree on the options (--json)") : CIS_OK;
}

/* --strings: the FCIDUMP read (*F, kept for the report), a solver given
 * the file's string sets, one solve (the driver's method "selected"). */
static cis_status solve_strings(ci_args *a, cis_fcidump **F, cis_ci_result **R) {
  cis_status st;
  uint64_t *alpha = NULL, *beta = NULL;
  cis_int na, nb;
  cis_ci_solver *s = NULL;
  CIS_TRY(ci_read_strings(a->strings, &alpha, &na, &beta, &nb));
  CIS_TRY(cis_fcidump_read(a->file, F));
  CIS_TRY(cis_ci_solver_create(&s));
  CIS_TRY(cis_ci_solver_set_strings(s, alpha, na, beta, nb));
  CIS_TRY(cis_ci_solver_solve(s, *F, &a->o, R));
cleanup:
  cis_ci_solver_free(s);
  free(alpha);
  free(beta);
  return st;
}

int cis_cmd_ci(int argc, char **argv) {
  const double t_start = cis_wtime();
  ci_args a;
  cli_mpi m = {0};
  cis_ci_result *R = NULL;
  cis_fcidump *F = NULL;
  cis_dist_comm *c = NULL;
  cis_status st = CIS_OK;
  m.on = cli_mpi_wanted(argc, argv);
  cli_mpi_parse_begin(&m);
  int rc = ci_parse(argc, argv, &a);
  cli_mpi_parse_end(&m);
  if (rc) return rc < 0 ? 0 : rc;
  if (cli_parse_only) return 0;
  if (cli_mpi_start(&m)) return 1;
  if (a.mpi) CIS_TRY(join_ranks(&a, &m, &c));
  if (!a.parts && !a.o.count_only) {
    a.o.progress = ci_progress;
    a.o.progress_user = &a;
  }
  if (a.strings) CIS_TRY(solve_strings(&a, &F, &R));
  else CIS_TRY(cis_ci_solve_file(a.file, &a.o, &R)); /* an unconverged root is an error, not a result */
  const double t_output = cis_wtime();
  if (!a.parts && R->format_reason[0] && !a.quiet) fprintf(stderr, "--format auto: %s\n", R->format_reason);
  if (!a.parts && !a.o.count_only) ci_report_unused(&a, R);
  if (!cli_json_stdout(&a.json)) ci_report_text(&a, R);
  if (a.json.path && m.rank == 0) { /* one file, written by the first rank */
    FILE *f = cli_json_open(&a.json, 0);
    if (!f) CIS_TRY(CIS_ERR_IO);
    ci_report_json(f, &a, R);
    CIS_TRY(cli_json_close(&a.json, f));
  }
  if (!a.parts && a.o.verbose && !a.o.count_only)
    cli_ci_phases(cli_json_stdout(&a.json) ? stderr : stdout, R, cis_wtime() - t_output, cis_wtime() - t_start);
cleanup:
  cis_ci_result_free(R);
  cis_fcidump_free(F); /* after the result, which points to it */
  cis_dist_comm_free(c);
  return cli_mpi_finish(&m, st);
}
