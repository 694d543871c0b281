/* solve_mixed.c: `cisparse solve --precision mixed`: iterative refinement
 * in double around float inner solves (cis_krylov_solve_mixed), compared
 * with the plain double solve. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/solve.h"

/* --precision mixed: refinement in double around float inner solves
 * (cis_krylov_solve_mixed), then the plain double solve it is compared with. */
int solve_mixed(const solve_opts *o, const problem *pb, const opset *s, const opset *s32,
                       const cis_krylov_opts *ko, int gpu, FILE *out) {
  run_result m, d;
  void *x = NULL;
  double t0, c0, solve_s;
  int outer = 0, rc = 1;
  cis_energy_sample e0, e1;
  cis_status st;
  memset(&m, 0, sizeof m);
  m.ms_it = m.relres = m.xerr = NAN;
  if ((st = solve_vec_make(s->where, CIS_F64, NULL, pb->A->rows, &x)) != CIS_OK) return cli_fail(st);
  e0 = cis_energy_read(0);
  t0 = bench_wall_s();
  c0 = bench_cpu_s();
  m.st = cis_krylov_solve_mixed(s->op, s32->op, s->b, x, ko, o->inner_tol, &m.info, &outer);
  m.host_cpu_s = bench_cpu_s() - c0;
  solve_s = bench_wall_s() - t0;
  e1 = cis_energy_read(0);
  m.runs = 1;
  m.total_its = m.info.iterations;
  bench_energy_window(&m, e0, e1); /* one solve: energy only when it lasts >= ENERGY_MIN_WINDOW */
  if (m.st == CIS_OK) {
    m.ms_it = m.info.iterations > 0 ? solve_s * 1e3 / m.info.iterations : NAN;
    m.st = solve_true_residual(pb, (opset *)s, x, &m.relres, &m.xerr);
    if (m.st == CIS_OK && !isfinite(m.relres))
      m.st = cis_error(CIS_ERR_NUMERIC, "mixed precision reported convergence but the true residual is %g", m.relres);
  }
  if (m.st != CIS_OK) {
    if (solve_is_end_status(m.st, &m.info))
      solve_end_message("mixed-precision refinement", &m.info, o->tol, m.msg, sizeof m.msg);
    else
      snprintf(m.msg, sizeof m.msg, "%s", *cis_last_error() ? cis_last_error() : cis_status_name(m.st));
    fprintf(stderr, "cisparse: %s\n", m.msg);
  } else {
    rc = 0;
    fprintf(out, "mixed       %d inner (float) iterations in %d refinement steps (%s), %.3f ms to solution\n",
            m.info.iterations, outer, cis_krylov_end_name(m.info.end), solve_s * 1e3);
    fprintf(out, "true relative residual ||b - A x|| / ||b|| = %.3e (double, tol %.3g)\n", m.relres, o->tol);
    if (isfinite(m.xerr)) fprintf(out, "error       ||x - x*|| / ||x*|| = %.3e\n", m.xerr);
    fprintf(out, "time        %.4f ms per inner iteration, refinement included\n", m.ms_it);
    bench_print_energy(out, &m, gpu);
    if (o->write_x && (st = solve_write_x(o, pb, s, x, out)) != CIS_OK) rc = cli_fail(st);
  }
  solve_vec_free(s->where, x);
  /* the plain double solve, for the iteration count */
  solve_run_config(pb, (opset *)s, ko, (int)o->repeat, 0.0, &d);
  if (rc == 0) {
    if (d.st == CIS_OK)
      fprintf(out, "double      %d iterations of the plain double solve (mixed: %d inner), %.3f ms to solution, "
                   "true relative residual %.3e\n", d.info.iterations, m.info.iterations,
              (d.info.seconds + d.info.setup_seconds) * 1e3, d.relres);
    else
      fprintf(out, "double      the plain double solve did not converge: %s\n", d.msg);
  }
  if (o->json.path) {
    FILE *f = cli_json_open(&o->json, 0);
    if (!f) return cli_fail(CIS_ERR_IO);
    solve_json_head(f, o, pb, s, gpu, ko->method, ko->precond, gpu ? cis_solver_version_name(ko->version) : "host");
    fprintf(f, "\"refinement_steps\": %d, \"inner_iterations\": %d, ", outer, m.info.iterations);
    cli_json_num(f, "inner_tol", o->inner_tol > 0 ? o->inner_tol : 1e-4, "%.10g", ", ");
    fprintf(f, "\"double\": {");
    solve_json_run(f, &d, gpu);
    fprintf(f, "}, ");
    solve_json_run(f, &m, gpu);
    fprintf(f, "}\n");
    if ((st = cli_json_close(&o->json, f)) != CIS_OK && rc == 0) rc = cli_fail(st);
  }
  return rc;
}

