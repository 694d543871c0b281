/* cmd_solve.c: `cisparse solve MATRIX|SPEC`: solve A x = b with CG, BiCG or
 * BiCGStab (± Jacobi) on the CPU or the GPU, in one of the device versions
 * of Aliaga, Perez, Quintana-Orti, "Systematic Fusion of CUDA Kernels for
 * Iterative Sparse Linear System Solvers", Euro-Par 2015 §4, and report what
 * the paper reports: time and energy per iteration. The paper's grid (3
 * solvers x {none, jacobi} x every version x {spin, blocking}, Figure 4) is
 * `cisparse bench MATRIX --solvers` (bench_sweep.c), on the same pieces
 * (solve.h: solve_ops.c, solve_report.c, solve_mixed.c, bench_energy.c).
 *
 * The problem is the paper's: x* = ones, b = A x* (in double, then rounded to
 * the solve's precision), x0 = 0. Every number printed as a result is
 * recomputed after the solve: the true relative residual ||b - A x|| / ||b||
 * in double (cis_true_residual on a double operator: the solve's own for
 * double, the host CSR in double for single precision, against the double
 * b) and the error ||x - x*|| / ||x*||. A solve that ends any other way than
 * converged prints one line naming the reason and exits 1; its x is never
 * printed or written.
 *
 * Only the public API (include/cisparse) and the CLI helpers (src/cli) are used.
 * Exit status: 0 converged, 1 runtime error or no convergence, 2 usage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/solve.h"

static const char *usage_text =
    "usage: cisparse solve MATRIX|SPEC [options]\n"
    "  --device gpu|cpu             where the solve runs (default: gpu when one is usable)\n"
    "  --gpus N | --cpu-parts N     distributed over N GPUs (NCCL; 0 = all) or N CPU parts: takes\n"
    "                               --method --precond --tol --maxit --format --kernel --exchange\n"
    "                               auto|allgather|p2p|gather, --version (cublasL/cublasN: scalars on the\n"
    "                               host; the others in each part), --verbose (the path; one device\n"
    "                               always prints it), --eigs K (Davidson);\n"
    "                               docs/multi-gpu.md\n"
    "  --mpi                        one part per process of `mpirun -np N cisparse solve ... --mpi`:\n"
    "                               --device cpu (default) host parts over MPI, gpu one GPU each\n"
    "  --method cg|bicg|bicgstab    (default cg)\n"
    "  --precond none|jacobi        (default none)\n"
    "  --version cublasL|cublasN|cuda|merge|merge_10|graph   device version (default merge_10)\n"
    "  --precision single|double|mixed   (default double; mixed = float inner solves with\n"
    "                               iterative refinement in double, --inner-tol T, default 1e-4)\n"
    "  --sync spin|blocking         how the host waits for the GPU (default: CUDA's)\n"
    "  --format NAME [--kernel K]   storage format and GPU kernel (default auto: the rule for the device)\n"
    "  --cusparse ALG               a cuSPARSE SpMV instead (csr-alg1, csr-alg2, coo-alg1, ...)\n"
    "  --symmetric                  store only the upper triangle (csr; refused if A is not\n"
    "                               symmetric); GPU kernels csr-sym (default) or csr-sym-det\n"
    "  --slice S --sigma N --block Z --boundary B --boundary-mode count|column   format parameters\n"
    "  --values float                 sell16 in double with its values stored in float (opt-in)\n"
    "  --tol X (default 1e-8)  --maxit N (default 1000)  --check-every N  --stagnation N\n"
    "  --rhs FILE                   b from a vector file instead of b = A*ones (no error vs x*)\n"
    "  --write-x FILE               write the solution (Matrix Market array)\n"
    "  --repeat R                   solves, median ms/iteration (default 1)\n"
    "  --energy-seconds S           repeat the solve until the energy window lasts S seconds\n"
    "                               (default 0.5 where the device's energy counter is readable,\n"
    "                               else 0; energy over windows under 0.25 s is n/a)\n"
    "  --json [FILE]                results as JSON in FILE, or alone on stdout (no FILE, or '-'), the\n"
    "                               report then on stderr; FILE: --json=FILE, or a word after --json\n"
    "                               beside the MATRIX\n"
    "The paper's grid (§4, Figure 4: every solver, preconditioner, version and sync mode) is\n"
    "`cisparse bench MATRIX --solvers [--plot PREFIX]` (these options narrow it).\n"
    "The problem: x* = ones, b = A x*, x0 = 0. Exit 0 converged, 1 error or no convergence, 2 usage.";

/* ---- options ---------------------------------------------------------------- */

static int parse_choice(const char *cmd, const char *opt, const char *val, const char *const *names, int n, int *out) {
  for (int i = 0; val && i < n; ++i)
    if (!strcmp(val, names[i])) { *out = i; return 0; }
  {
    char list[200] = "";
    for (int i = 0, len = 0; i < n; ++i)
      len += snprintf(list + len, sizeof list - (size_t)len, "%s%s", i ? "|" : "", names[i]);
    return cli_usage("%s: %s must be %s, got '%s'", cmd, opt, list, val ? val : "(nothing)");
  }
}

int solve_parse(int argc, char **argv, solve_opts *o) {
  static const char *const devices[] = {"cpu", "gpu"}; /* DEV_CPU - 1, DEV_GPU - 1 */
  static const char *const preconds[] = {"none", "jacobi"};
  static const char *const precisions[] = {"double", "single", "mixed"};
  static const char *const syncs[] = {"spin", "blocking"};
  int rc;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    const char **str = !strcmp(a, "--format") ? &o->format : !strcmp(a, "--kernel") ? &o->kernel
                     : !strcmp(a, "--cusparse") ? &o->cusparse : !strcmp(a, "--rhs") ? &o->rhs : !strcmp(a, "--write-x") ? &o->write_x
                     : !strcmp(a, "--plot") && o->sweep ? &o->plot : NULL;
    long long *intopt = !strcmp(a, "--maxit") ? &o->maxit : !strcmp(a, "--repeat") ? &o->repeat
                      : !strcmp(a, "--check-every") ? &o->check_every
                      : !strcmp(a, "--stagnation") ? &o->stagnation : NULL;
    double *dblopt = !strcmp(a, "--tol") ? &o->tol : !strcmp(a, "--inner-tol") ? &o->inner_tol
                   : !strcmp(a, "--energy-seconds") ? &o->energy_seconds : NULL;
    if (cli_stray_value(argv, i)) return 2;
    if ((rc = cli_json_option(argc, argv, &i, &o->json)) >= 0) {
      if (rc) return rc;
      continue;
    }
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("%s\n", o->usage);
      return -1;
    }
    if (str) {
      if (!val) return cli_usage("%s: %s needs a value", o->cmd, a);
      *str = val;
      if (str == &o->format) o->format_given = 1;
    } else if (intopt) {
      if ((rc = cli_int(a, val, intopt))) return rc;
      if (intopt == &o->repeat) o->repeat_given = 1;
    } else if (dblopt) {
      if ((rc = cli_double(a, val, dblopt))) return rc;
    } else if (!strcmp(a, "--device")) {
      if ((rc = parse_choice(o->cmd, a, val, devices, 2, &o->device))) return rc;
      o->device += 1;
    } else if (!strcmp(a, "--method")) {
      cis_krylov_method m;
      if (!val) return cli_usage("%s: --method needs a value", o->cmd);
      if (cis_krylov_method_parse(val, &m) != CIS_OK) return cli_usage("%s: --method '%s': %s", o->cmd, val, cis_last_error());
      o->method = (int)m;
    } else if (!strcmp(a, "--version")) {
      cis_solver_version v;
      if (!val) return cli_usage("%s: --version needs a value", o->cmd);
      if (cis_solver_version_parse(val, &v) != CIS_OK) return cli_usage("%s: --version '%s': %s", o->cmd, val, cis_last_error());
      o->version = (int)v;
    } else if (!strcmp(a, "--precond")) {
      if ((rc = parse_choice(o->cmd, a, val, preconds, 2, &o->precond))) return rc;
    } else if (!strcmp(a, "--precision")) {
      if ((rc = parse_choice(o->cmd, a, val, precisions, 3, &o->precision))) return rc;
    } else if (!strcmp(a, "--sync")) {
      if ((rc = parse_choice(o->cmd, a, val, syncs, 2, &o->sync))) return rc;
    } else if (!strcmp(a, "--solvers") && o->sweep) { /* bench --solvers: the sweep */
      continue;
    } else if (!strcmp(a, "--symmetric")) {
      o->symmetric = 1;
      continue;
    } else if (!strcmp(a, "--verbose")) { /* one device: the path and its times are always printed */
      continue;
    } else if ((rc = cli_format_option(argc, argv, &i, &o->fp)) >= 0) {
      if (rc) return rc;
      continue;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage("%s: unknown option '%s' (cisparse %s --help)", o->cmd, a, o->sweep ? "bench --solvers" : "solve");
    } else if (o->matrix) {
      return cli_usage("%s: more than one matrix given ('%s', '%s')", o->cmd, o->matrix, a);
    } else {
      o->matrix = a;
      continue;
    }
    ++i; /* the option's value */
  }
  cli_json_settle(&o->json, &o->matrix);
  if (!o->matrix) return cli_usage("%s: no matrix given (cisparse %s --help)", o->cmd, o->sweep ? "bench --solvers" : "solve");
  if (!(o->tol > 0)) return cli_usage("%s: --tol must be > 0, got %g", o->cmd, o->tol);
  if (o->maxit < 1 || o->maxit > 2000000000LL) return cli_usage("%s: --maxit must be 1..2e9, got %lld", o->cmd, o->maxit);
  if (o->repeat < 1 || o->repeat > MAX_RUNS) return cli_usage("%s: --repeat must be 1..%d, got %lld", o->cmd, MAX_RUNS, o->repeat);
  if (o->check_every < 0 || o->check_every > 1000000) return cli_usage("%s: --check-every must be 0..1e6, got %lld", o->cmd, o->check_every);
  if (o->stagnation > 2000000000LL || o->stagnation < -1) return cli_usage("%s: --stagnation must be -1..2e9, got %lld", o->cmd, o->stagnation);
  if (o->inner_tol < 0 || o->inner_tol >= 1) return cli_usage("%s: --inner-tol must be in [0, 1), got %g", o->cmd, o->inner_tol);
  if (o->energy_seconds < 0 || o->energy_seconds > 600) /* NaN (not given) passes */
    return cli_usage("%s: --energy-seconds must be 0..600, got %g", o->cmd, o->energy_seconds);
  if (o->kernel && o->cusparse) return cli_usage("%s: --kernel and --cusparse exclude each other", o->cmd);
  if (o->symmetric && (o->cusparse || (o->format_given && strcmp(o->format, "csr"))))
    return cli_usage("%s: --symmetric stores the upper triangle in csr: no --cusparse or other --format", o->cmd);
  if (o->format_given && o->cusparse) return cli_usage("%s: --cusparse builds its own format from CSR; drop --format", o->cmd);
  if (o->inner_tol > 0 && o->precision != PREC_MIXED) return cli_usage("%s: --inner-tol applies to --precision mixed only", o->cmd);
  if (o->sweep && o->precision == PREC_MIXED) return cli_usage("%s: --solvers runs single or double precision, not mixed", o->cmd);
  if (o->sweep && (o->rhs || o->write_x)) return cli_usage("%s: --solvers solves the paper's problem (b = A*ones): no --rhs or --write-x", o->cmd);
  if (o->device == DEV_CPU) {
    const char *gpu_only = o->version >= 0 ? "--version" : o->sync >= 0 ? "--sync" : o->kernel ? "--kernel"
                         : o->cusparse ? "--cusparse" : NULL;
    if (gpu_only) return cli_usage("%s: %s applies to --device gpu only (the CPU solve has one version: OpenMP)", o->cmd, gpu_only);
  }
  return 0;
}

void solve_opts_init(solve_opts *o, const char *cmd, const char *usage) {
  memset(o, 0, sizeof *o);
  o->cmd = cmd;
  o->usage = usage;
  o->method = o->precond = o->version = o->sync = -1;
  o->tol = 1e-8;
  o->maxit = 1000;
  o->repeat = 1;
  o->energy_seconds = NAN; /* not given */
  o->format = "auto";
  o->fp = cis_format_params_default();
}

/* ---- the single solve ----------------------------------------------------- */

static int solve_single(const solve_opts *o, const problem *pb, FILE *out) {
  const int gpu = o->device == DEV_GPU, mixed = o->precision == PREC_MIXED;
  const cis_dtype t = o->precision == PREC_SINGLE ? CIS_F32 : CIS_F64;
  const int method = o->method < 0 ? CIS_CG : o->method, precond = o->precond < 0 ? 0 : o->precond;
  cis_krylov_opts ko = solve_krylov_opts(o, method, precond, o->version);
  const char *vname = gpu ? cis_solver_version_name(ko.version) : "host";
  opset s = {0}, s32 = {0};
  run_result r;
  int rc = 1;
  cis_status st;

  if (gpu && o->sync >= 0 && (st = cis_gpu_set_sync_mode((cis_sync_mode)o->sync)) != CIS_OK) return cli_fail(st);
  if ((st = solve_opset_make(o, pb, t, gpu, &s)) != CIS_OK) goto fail;
  if (mixed && (st = solve_opset_make(o, pb, CIS_F32, gpu, &s32)) != CIS_OK) goto fail;
  fprintf(out, "matrix      %s (%lld rows, %lld nnz)\n", o->matrix, (long long)pb->A->rows, (long long)pb->A->nnz);
  fprintf(out, "solve       %s + %s, %s, %s, version %s%s%s, tol %.3g, maxit %lld\n",
          cis_krylov_method_name(ko.method), solve_precond_name(precond), solve_precision_name(o->precision), s.desc,
          gpu ? vname : "host (OpenMP)", gpu ? ", sync " : "", gpu ? (o->sync >= 0 ? solve_sync_name(o->sync) : "default") : "",
          o->tol, o->maxit);
  if (o->rhs) fprintf(out, "rhs         %s (no x*: the error is n/a)\n", o->rhs);
  if (mixed) {
    rc = solve_mixed(o, pb, &s, &s32, &ko, gpu, out);
    goto done;
  }
  solve_run_config(pb, &s, &ko, (int)o->repeat,
             isnan(o->energy_seconds) ? bench_default_energy_seconds(gpu) : o->energy_seconds, &r);
  if (r.st != CIS_OK) {
    fprintf(stderr, "cisparse: %s\n", r.msg);
  } else {
    rc = 0;
    solve_print_run(out, o, &r, gpu);
    if (o->write_x && (st = solve_write_x(o, pb, &s, s.x, out)) != CIS_OK) goto fail;
  }
  if (o->json.path) {
    FILE *f = cli_json_open(&o->json, 0);
    if (!f) {
      st = CIS_ERR_IO;
      goto fail;
    }
    solve_json_head(f, o, pb, &s, gpu, ko.method, precond, vname);
    solve_json_run(f, &r, gpu);
    fprintf(f, "}\n");
    if ((st = cli_json_close(&o->json, f)) != CIS_OK) goto fail;
  }
  goto done;
fail:
  rc = cli_fail(st);
done:
  solve_opset_free(&s);
  solve_opset_free(&s32);
  return rc;
}

int cis_cmd_solve(int argc, char **argv) {
  solve_opts o;
  problem pb;
  cis_status st;
  FILE *out;
  int rc;
  if (cli_dist_wanted(argc, argv)) return cli_dist_solve(argc, argv); /* --gpus N: cmd_dist.c */
  solve_opts_init(&o, "solve", usage_text);
  if ((rc = solve_parse(argc, argv, &o))) return rc < 0 ? 0 : rc;
  if (cli_parse_only) return 0;
  if ((rc = solve_resolve_device(&o))) return rc;
  out = cli_json_stdout(&o.json) ? stderr : stdout;
  if ((st = solve_problem_make(&o, o.method == CIS_BICG, &pb)) != CIS_OK) {
    rc = cli_fail(st);
    solve_problem_free(&pb);
    return rc;
  }
  if (o.precond == CIS_PRECOND_JACOBI && pb.zero_diag >= 0) {
    fprintf(stderr, "cisparse: --precond jacobi: %s has a zero diagonal entry A(%lld,%lld) (1-based): "
                    "use --precond none\n", o.matrix, (long long)pb.zero_diag + 1, (long long)pb.zero_diag + 1);
    solve_problem_free(&pb);
    return 1;
  }
  rc = solve_single(&o, &pb, out);
  solve_problem_free(&pb);
  return rc;
}
