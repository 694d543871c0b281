/* bench_sweep.c: `cisparse bench MATRIX --solvers`: the paper's grid
 * (Aliaga, Perez, Quintana-Orti, Euro-Par 2015 §4, Figure 4): 3 solvers x
 * {none, jacobi} x every device version x {spin, blocking}, each
 * configuration repeated to fill its energy window (bench_energy.c), and the
 * table relative to cublasL in spin (polling) mode; --json, --plot. It runs
 * `cisparse solve`'s pieces (solve.h) and takes its options. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/solve.h"

static const char *sweep_usage =
    "usage: cisparse bench MATRIX|SPEC --solvers [options]\n"
    "  the paper's grid (§4, Figure 4): every solver, preconditioner, device version and sync mode,\n"
    "  on x* = ones, b = A x*, x0 = 0; `cisparse solve`'s options narrow it (--method --precond\n"
    "  --version --sync) or set it up (--device --precision single|double --format --kernel --cusparse\n"
    "  --symmetric --tol --maxit ...; cisparse solve --help)\n"
    "  --repeat R          solves per configuration, median ms/iteration (default 3)\n"
    "  --energy-seconds S  each configuration runs >= S seconds (default 0.5 where the device's\n"
    "                      energy counter is readable, else 0; energy over windows under 0.25 s is n/a)\n"
    "  --json [FILE]       the table as JSON in FILE, or alone on stdout\n"
    "  --plot PREFIX       PNGs via python3 -m cisparse.plot\n"
    "Exit 0 when the grid ran (rows that did not converge say why), 1 error, 2 usage.";

typedef struct sweep_row {
  int method, precond, version, sync;
  run_result r;
  double time_rel, energy_rel; /* against cublasL, spin, same solver and preconditioner */
} sweep_row;

/* Energy of a row for the relative column: GPU + CPU package when both are
 * measured (what the paper's meter saw: both supply lines), else the GPU's
 * (the CPU package's on the CPU); NaN if none. */
static double row_joules(const sweep_row *w, int gpu) {
  double g = bench_per_it(w->r.gpu_j, &w->r), c = bench_per_it(w->r.cpu_j, &w->r);
  if (!gpu) return c;
  return isfinite(g) && isfinite(c) ? g + c : g;
}

/* The sweep's JSON: the run, then one object per row. */
static cis_status write_sweep_json(const cli_json *j, const solve_opts *o, const problem *pb, const sweep_row *rows,
                                   int n, int gpu, int repeat, double min_s) {
  FILE *f = cli_json_open(j, 0);
  if (!f) return CIS_ERR_IO;
  fprintf(f, "{");
  cli_json_str(f, "command", "bench --solvers", ", ");
  cli_json_str(f, "matrix", o->matrix, ", ");
  fprintf(f, "\"rows\": %lld, \"nnz\": %lld, ", (long long)pb->A->rows, (long long)pb->A->nnz);
  cli_json_str(f, "device", gpu ? "gpu" : "cpu", ", ");
  cli_json_str(f, "precision", solve_precision_name(o->precision), ", ");
  cli_json_str(f, "format", o->cusparse ? "cusparse" : o->format, ", ");
  cli_json_str(f, "kernel", o->cusparse ? o->cusparse : o->kernel ? o->kernel : "default", ", ");
  cli_json_num(f, "tol", o->tol, "%.10g", ", ");
  fprintf(f, "\"maxit\": %lld, \"repeat\": %d, ", o->maxit, repeat);
  cli_json_num(f, "energy_seconds", min_s, "%.10g", ", ");
  cli_json_str(f, "gpu_energy_note", cis_energy_gpu_why(), ", ");
  cli_json_str(f, "cpu_energy_note", cis_energy_cpu_why(), ", ");
  fprintf(f, "\"results\": [\n");
  for (int i = 0; i < n; ++i) {
    const sweep_row *w = &rows[i];
    fprintf(f, "  {");
    cli_json_str(f, "method", cis_krylov_method_name(w->method), ", ");
    cli_json_str(f, "precond", solve_precond_name(w->precond), ", ");
    cli_json_str(f, "version", gpu ? cis_solver_version_name(w->version) : "host", ", ");
    if (gpu) cli_json_str(f, "sync", solve_sync_name(w->sync), ", ");
    else fprintf(f, "\"sync\": null, "); /* the host loop has no device sync mode */
    cli_json_num(f, "joules_per_iteration_total", row_joules(w, gpu), "%.10g", ", ");
    cli_json_num(f, "time_vs_cublasL_spin", w->time_rel, "%.10g", ", ");
    cli_json_num(f, "energy_vs_cublasL_spin", w->energy_rel, "%.10g", ", ");
    solve_json_run(f, &w->r, gpu);
    fprintf(f, "}%s\n", i + 1 < n ? "," : "");
  }
  fprintf(f, "]}\n");
  return cli_json_close(j, f);
}

static int bench_sweep_run(const solve_opts *o, const problem *pb, FILE *out) {
  const int gpu = o->device == DEV_GPU;
  const cis_dtype t = o->precision == PREC_SINGLE ? CIS_F32 : CIS_F64;
  const int nsync = gpu ? 2 : 1, nver = gpu ? CIS_VER_COUNT : 1;
  const int repeat = o->repeat_given ? (int)o->repeat : 3;
  double min_s = o->energy_seconds;
  sweep_row *rows = calloc((size_t)(3 * 2 * CIS_VER_COUNT * 2), sizeof *rows);
  int n = 0, rc = 0;
  cis_status st = CIS_OK;
  char json[1024] = "";
  opset s = {0};
  if (!rows) return cli_fail(cis_error(CIS_ERR_ALLOC, "cannot allocate the sweep table"));
  if (isnan(min_s)) min_s = bench_default_energy_seconds(gpu);
  fprintf(out, "sweep       %s (%lld rows, %lld nnz), %s, %s%s, tol %.3g, maxit %lld\n", o->matrix,
          (long long)pb->A->rows, (long long)pb->A->nnz, solve_precision_name(o->precision),
          o->cusparse ? "cusparse " : "format ", o->cusparse ? o->cusparse : o->format, o->tol, o->maxit);
  fprintf(out, "            each configuration: >= %d solves and >= %.2f s; ms/it = median, J/it over the window\n",
          repeat, min_s);
  for (int sy = 0; sy < nsync; ++sy) {
    int sync = o->sync >= 0 ? o->sync : sy;
    if (o->sync >= 0 && sy > 0) break;
    if (gpu) {
      /* resets the device: every plan and vector is created after it */
      if ((st = cis_gpu_set_sync_mode((cis_sync_mode)sync)) != CIS_OK) goto fail;
    }
    if ((st = solve_opset_make(o, pb, t, gpu, &s)) != CIS_OK) goto fail;
    if (sy == 0) fprintf(out, "operator    %s\n", s.desc);
    for (int m = 0; m < 3; ++m) {
      if (o->method >= 0 && m != o->method) continue;
      for (int p = 0; p < 2; ++p) {
        if (o->precond >= 0 && p != o->precond) continue;
        for (int v = 0; v < nver; ++v) {
          sweep_row *w;
          cis_krylov_opts ko;
          if (gpu && o->version >= 0 && v != o->version) continue;
          w = &rows[n++];
          w->method = m;
          w->precond = p;
          w->version = gpu ? v : -1;
          w->sync = gpu ? sync : -1;
          ko = solve_krylov_opts(o, m, p, gpu ? v : -1);
          if (p == CIS_PRECOND_JACOBI && pb->zero_diag >= 0) {
            memset(&w->r, 0, sizeof w->r);
            w->r.st = CIS_ERR_INVALID;
            w->r.ms_it = w->r.relres = w->r.xerr = w->r.gpu_j = w->r.cpu_j = NAN;
            snprintf(w->r.msg, sizeof w->r.msg, "jacobi: A(%lld,%lld) = 0", (long long)pb->zero_diag + 1,
                     (long long)pb->zero_diag + 1);
          } else {
            solve_run_config(pb, &s, &ko, repeat, min_s, &w->r);
          }
          fprintf(stderr, "  %-8s %-6s %-8s %-8s %s\n", cis_krylov_method_name(m), solve_precond_name(p),
                  gpu ? cis_solver_version_name(v) : "host", gpu ? solve_sync_name(sync) : "-",
                  w->r.st == CIS_OK ? "done" : w->r.msg);
        }
      }
    }
    solve_opset_free(&s);
  }
  /* relative to cublasL in spin mode for the same solver and preconditioner */
  for (int i = 0; i < n; ++i) {
    const sweep_row *base = NULL;
    for (int j = 0; j < n; ++j)
      if (rows[j].method == rows[i].method && rows[j].precond == rows[i].precond &&
          rows[j].version == (gpu ? CIS_VER_CUBLAS_L : -1) && rows[j].sync == (gpu ? CIS_SYNC_SPIN : -1) &&
          rows[j].r.st == CIS_OK)
        base = &rows[j];
    rows[i].time_rel = rows[i].energy_rel = NAN;
    if (base && rows[i].r.st == CIS_OK) {
      rows[i].time_rel = rows[i].r.ms_it / base->r.ms_it;
      rows[i].energy_rel = row_joules(&rows[i], gpu) / row_joules(base, gpu);
    }
  }
  fprintf(out, "\n%-8s %-6s %-8s %-8s %6s %10s %10s %10s %10s %8s %8s %7s %s\n", "solver", "prec", "version",
          "sync", "its", "ms/it", "cpu ms/it", "J/it GPU", "J/it CPU", "dtime", "denergy", "launch", "true res");
  for (int i = 0; i < n; ++i) {
    const sweep_row *w = &rows[i];
    char a[16], b[16], c[16], d[16], e[16];
    if (w->r.st != CIS_OK) {
      fprintf(out, "%-8s %-6s %-8s %-8s  %s\n", cis_krylov_method_name(w->method), solve_precond_name(w->precond),
              gpu ? cis_solver_version_name(w->version) : "host", gpu ? solve_sync_name(w->sync) : "-", w->r.msg);
      continue;
    }
    snprintf(a, sizeof a, isfinite(bench_per_it(w->r.gpu_j, &w->r)) ? "%.4g" : "n/a", bench_per_it(w->r.gpu_j, &w->r));
    snprintf(b, sizeof b, isfinite(bench_per_it(w->r.cpu_j, &w->r)) ? "%.4g" : "n/a", bench_per_it(w->r.cpu_j, &w->r));
    snprintf(c, sizeof c, isfinite(w->time_rel) ? "%+.1f%%" : "n/a", 100.0 * (w->time_rel - 1));
    snprintf(d, sizeof d, isfinite(w->energy_rel) ? "%+.1f%%" : "n/a", 100.0 * (w->energy_rel - 1));
    snprintf(e, sizeof e, gpu ? "%.1f" : "n/a", w->r.info.launches_per_iteration);
    fprintf(out, "%-8s %-6s %-8s %-8s %6d %10.4f %10.4f %10s %10s %8s %8s %7s %.1e\n",
            cis_krylov_method_name(w->method), solve_precond_name(w->precond),
            gpu ? cis_solver_version_name(w->version) : "host", gpu ? solve_sync_name(w->sync) : "-", w->r.info.iterations,
            w->r.ms_it, w->r.total_its > 0 ? w->r.host_cpu_s * 1e3 / (double)w->r.total_its : NAN, a, b, c, d, e,
            w->r.relres);
  }
  if (!gpu) fprintf(out, "(the CPU has one version: the relative columns compare each row with itself)\n");
  fprintf(out, "cpu ms/it: host process CPU time per iteration (polling keeps a core busy, blocking sleeps)\n");
  fprintf(out, "dtime, denergy: change against cublasL in spin mode for the same solver and preconditioner\n"
               "(energy: GPU + CPU package where both are measured, else the GPU's). GPU energy: %s; CPU: %s\n",
          *cis_energy_gpu_why() ? cis_energy_gpu_why() : "NVML",
          *cis_energy_cpu_why() ? cis_energy_cpu_why() : "RAPL packages");
  /* JSON to --json (file or stdout) and, for --plot, to a file the plot script reads */
  const int json_file = o->json.path && !cli_json_stdout(&o->json);
  if (o->json.path && (st = write_sweep_json(&o->json, o, pb, rows, n, gpu, repeat, min_s)) != CIS_OK) goto fail;
  if (json_file) fprintf(out, "json        %s\n", o->json.path);
  if (o->plot) {
    if (json_file) {
      snprintf(json, sizeof json, "%s", o->json.path);
    } else {
      const cli_json plot_json = {json, 0};
      snprintf(json, sizeof json, "%s.json", o->plot);
      if ((st = write_sweep_json(&plot_json, o, pb, rows, n, gpu, repeat, min_s)) != CIS_OK) goto fail;
      fprintf(out, "json        %s\n", json);
    }
  }
  if (o->plot) cli_plot("solvers", json, o->plot, out);
  goto done;
fail:
  rc = cli_fail(st);
done:
  solve_opset_free(&s);
  free(rows);
  return rc;
}


int cli_bench_solvers_wanted(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (!strcmp(argv[i], "--solvers")) return 1;
  return 0;
}

int cli_bench_sweep(int argc, char **argv) {
  solve_opts o;
  problem pb;
  cis_status st;
  int rc;
  solve_opts_init(&o, "bench", sweep_usage);
  o.sweep = 1;
  if ((rc = solve_parse(argc, argv, &o))) return rc < 0 ? 0 : rc;
  if (cli_parse_only) return 0;
  if ((rc = solve_resolve_device(&o))) return rc;
  if ((st = solve_problem_make(&o, o.method < 0 || o.method == CIS_BICG, &pb)) != CIS_OK) {
    rc = cli_fail(st);
    solve_problem_free(&pb);
    return rc;
  }
  rc = bench_sweep_run(&o, &pb, cli_json_stdout(&o.json) ? stderr : stdout);
  solve_problem_free(&pb);
  return rc;
}
