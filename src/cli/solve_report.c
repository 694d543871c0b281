/* solve_report.c: `cisparse solve`'s report: the text lines of one run,
 * its JSON (the settings, then the run's fields) and --write-x. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/solve.h"

void solve_json_head(FILE *f, const solve_opts *o, const problem *pb, const opset *s, int gpu, int method,
                      int precond, const char *version) {
  fprintf(f, "{");
  cli_json_str(f, "command", "solve", ", ");
  cli_json_str(f, "matrix", o->matrix, ", ");
  fprintf(f, "\"rows\": %lld, \"nnz\": %lld, ", (long long)pb->A->rows, (long long)pb->A->nnz);
  cli_json_str(f, "device", gpu ? "gpu" : "cpu", ", ");
  cli_json_str(f, "method", cis_krylov_method_name((cis_krylov_method)method), ", ");
  cli_json_str(f, "precond", solve_precond_name(precond), ", ");
  cli_json_str(f, "version", version, ", ");
  if (gpu) cli_json_str(f, "sync", o->sync >= 0 ? solve_sync_name(o->sync) : "default", ", ");
  else fprintf(f, "\"sync\": null, "); /* the host loop has no device sync mode */
  cli_json_str(f, "precision", solve_precision_name(o->precision), ", ");
  cli_json_str(f, "operator", s->desc, ", ");
  cli_json_num(f, "tol", o->tol, "%.10g", ", ");
  fprintf(f, "\"maxit\": %lld, ", o->maxit);
}

/* The run's fields: status, iterations, residuals, time, energy, launches. */
void solve_json_run(FILE *f, const run_result *r, int gpu) {
  cli_json_str(f, "status", r->st == CIS_OK ? "converged"
                        : solve_is_end_status(r->st, &r->info) ? cis_krylov_end_name(r->info.end) : "error", ", ");
  if (r->st != CIS_OK) cli_json_str(f, "error_message", r->msg, ", ");
  fprintf(f, "\"iterations\": %d, \"runs\": %d, ", r->info.iterations, r->runs);
  cli_json_num(f, "recurrence_relative_residual", r->info.rel_residual, "%.10g", ", ");
  cli_json_num(f, "true_relative_residual", r->relres, "%.10g", ", ");
  cli_json_num(f, "error", r->xerr, "%.10g", ", ");
  cli_json_num(f, "ms_per_iteration", r->ms_it, "%.10g", ", ");
  cli_json_num(f, "loop_seconds", r->info.seconds, "%.10g", ", ");
  cli_json_num(f, "setup_seconds", r->info.setup_seconds, "%.10g", ", ");
  bench_json_energy(f, r, gpu);
  cli_json_num(f, "launches_per_iteration", gpu && r->st == CIS_OK ? r->info.launches_per_iteration : NAN, "%.10g", NULL);
}

cis_status solve_write_x(const solve_opts *o, const problem *pb, const opset *s, const void *x, FILE *out) {
  cis_status st;
  double *h = malloc(sizeof(double) * (size_t)pb->A->rows);
  if (!h) return cis_error(CIS_ERR_ALLOC, "cannot allocate a host copy of x");
  st = solve_vec_to_host64(s, x, pb->A->rows, h);
  if (st == CIS_OK) st = cis_mm_write_vector(o->write_x, h, CIS_F64, pb->A->rows);
  free(h);
  if (st == CIS_OK) fprintf(out, "x           written to %s\n", o->write_x);
  return st;
}

void solve_print_run(FILE *out, const solve_opts *o, const run_result *r, int gpu) {
  fprintf(out, "iterations  %d (%s)\n", r->info.iterations, cis_krylov_end_name(r->info.end));
  fprintf(out, "true relative residual ||b - A x|| / ||b|| = %.3e (double; recurrence %.3e, tol %.3g)\n",
          r->relres, r->info.rel_residual, o->tol);
  if (r->relres > 10 * o->tol)
    fprintf(out, "note        the true residual is above 10 x tol: the recurrence residual drifted "
                 "from it (precision %s)\n", solve_precision_name(o->precision));
  if (isfinite(r->xerr)) fprintf(out, "error       ||x - x*|| / ||x*|| = %.3e\n", r->xerr);
  else fprintf(out, "error       n/a (no x* with --rhs)\n");
  if (isfinite(r->ms_it))
    fprintf(out, "time        %.4f ms per iteration (%s%d run%s; loop %.3f ms, setup %.3f ms)\n", r->ms_it,
            r->runs > 1 ? "median of " : "", r->runs, r->runs > 1 ? "s" : "", r->info.seconds * 1e3,
            r->info.setup_seconds * 1e3);
  else
    fprintf(out, "time        n/a per iteration: no iterations (b = 0 or x0 already solves it)\n");
  bench_print_energy(out, r, gpu);
  if (gpu) fprintf(out, "launches    %.2f kernel launches and library calls per iteration\n",
                   r->info.launches_per_iteration);
  else fprintf(out, "launches    n/a on the CPU\n");
}

