/* cmd_dist.c: `cisparse bench|solve MATRIX --gpus N` (and --cpu-parts N,
 * --mpi): the matrix spread over N GPUs of this host with NCCL
 * (cisparse/dist.h; N = 0: every GPU), over N CPU parts in this process (the
 * fake communicator: the same code path on the CPU), or one part per process
 * of `mpirun -np N` (--mpi: --device cpu host parts over MPI, --device gpu
 * one GPU per process through NCCL; cli_mpi.c). bench times the
 * distributed SpMV; solve runs CG / BiCG / BiCGStab on b = A*ones, or
 * Davidson (--eigs K) for the lowest K eigenvalues. Each reports the
 * exchange volume per product and its share of the product time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

typedef struct dist_cli {
  const char *cmd, *matrix, *format, *kernel;
  long long gpus, cpu_parts, maxit, runs, eigs;
  double tol;
  int method, precond, gpus_given, cpu_given;
  int version, verbose; /* solve: the solver version (default merge_10); --verbose: the path it runs */
  int mpi, mpi_gpu, device_given; /* --mpi, with --device gpu */
  cis_dist_exchange xk;
} dist_cli;

/* --mpi solve / bench: the ranks check that they run one problem before the
 * first collective that depends on it (the matrix's distribution): the
 * matrix and each option that steers the run hashed (cis_hash64) and
 * compared in one fixed-size all-reduce (cis_dist_comm_agree); else the
 * ranks of different solves hang or sum parts of different matrices.
 * CIS_ERR_INVALID "ranks disagree on the matrix" / "... the options (--tol)". */
static cis_status ranks_agree(cis_dist_comm *c, const dist_cli *o, const cis_csr *A) {
  const uint64_t s0 = CIS_HASH64_START;
  const size_t vs = cis_dtype_size(A->dtype);
  uint64_t m = cis_hash64(s0, &A->rows, sizeof A->rows);
  m = cis_hash64(m, &A->cols, sizeof A->cols);
  m = cis_hash64(m, &A->nnz, sizeof A->nnz);
  m = cis_hash64(m, A->rowptr, (size_t)(A->rows + 1) * sizeof *A->rowptr);
  m = cis_hash64(m, A->colind, (size_t)A->nnz * sizeof *A->colind);
  m = cis_hash64(m, A->val, (size_t)A->nnz * vs);
  const char *fmt = o->format ? o->format : "", *ker = o->kernel ? o->kernel : "";
  const uint64_t h[] = {m,
                        cis_hash64(s0, &o->tol, sizeof o->tol),
                        cis_hash64(s0, &o->maxit, sizeof o->maxit),
                        cis_hash64(s0, &o->runs, sizeof o->runs),
                        cis_hash64(s0, &o->eigs, sizeof o->eigs),
                        cis_hash64(s0, &o->method, sizeof o->method),
                        cis_hash64(s0, &o->precond, sizeof o->precond),
                        cis_hash64(s0, &o->version, sizeof o->version),
                        cis_hash64(s0, fmt, strlen(fmt) + 1),
                        cis_hash64(s0, ker, strlen(ker) + 1),
                        cis_hash64(s0, &o->xk, sizeof o->xk)};
  static const char *const name[] = {"the matrix", "--tol", "--maxit", "--runs", "--eigs", "--method", "--precond",
                                     "--version", "--format", "--kernel", "--exchange"};
  enum { K = sizeof h / sizeof *h };
  int differ[K];
  char opts[256] = "";
  size_t len = 0;
  cis_status st = cis_dist_comm_agree(c, h, K, differ);
  if (st != CIS_OK) return st;
  for (int g = 1; g < K; ++g)
    if (differ[g]) len += (size_t)snprintf(opts + len, sizeof opts - len, "%s%s", len ? ", " : "", name[g]);
  if (differ[0] && len) return cis_error(CIS_ERR_INVALID, "ranks disagree on the matrix and the options (%s)", opts);
  if (differ[0]) return cis_error(CIS_ERR_INVALID, "ranks disagree on the matrix");
  if (len) return cis_error(CIS_ERR_INVALID, "ranks disagree on the options (%s)", opts);
  return CIS_OK;
}

int cli_dist_wanted(int argc, char **argv) {
  for (int i = 0; i < argc; ++i)
    if (!strcmp(argv[i], "--gpus") || !strcmp(argv[i], "--cpu-parts") || !strcmp(argv[i], "--mpi")) return 1;
  return 0;
}

/* --device cpu|gpu (with --mpi) into *gpu; 0 ok, 2 with the usage error printed. */
static int mpi_device(const char *cmd, const char *v, int *gpu) {
  if (strcmp(v, "cpu") && strcmp(v, "gpu")) return cli_usage("%s: --device must be cpu or gpu, got '%s'", cmd, v);
  *gpu = !strcmp(v, "gpu");
  return 0;
}

/* The parts' options against each other: --mpi takes its parts from mpirun,
 * --device goes with --mpi only; 0 ok, 2 usage error printed. */
static int parts_consistent(const char *cmd, int mpi, int gpus_given, int cpu_given, int device_given) {
  if (gpus_given && cpu_given) return cli_usage("%s: --gpus and --cpu-parts exclude each other", cmd);
  if (mpi && (gpus_given || cpu_given))
    return cli_usage("%s: --mpi runs one part per process of mpirun -np N: drop --%s", cmd, gpus_given ? "gpus" : "cpu-parts");
  if (device_given && !mpi)
    return cli_usage("%s: --device goes with --mpi (--gpus and --cpu-parts name the device already)", cmd);
  return 0;
}

static int parse(int argc, char **argv, dist_cli *o) {
  int rc;
  for (int i = 1; i < argc; ++i) { /* argv[0]: the command's name */
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (cli_stray_value(argv, i)) return 2;
    if (a[0] != '-') {
      if (o->matrix) return cli_usage("%s: more than one matrix given ('%s', '%s')", o->cmd, o->matrix, a);
      o->matrix = a;
      continue;
    }
    if (!strcmp(a, "--mpi")) {
      o->mpi = 1;
      continue;
    }
    if (!strcmp(a, "--verbose")) {
      o->verbose = 1;
      continue;
    }
    static const char *const known[] = {"--gpus", "--cpu-parts", "--format", "--kernel", "--exchange", "--method",
                                        "--precond", "--tol", "--maxit", "--runs", "--repeat", "--eigs", "--device",
                                        "--version"};
    int is_known = 0;
    for (size_t k = 0; k < sizeof known / sizeof *known; ++k) is_known |= !strcmp(a, known[k]);
    if (!is_known)
      return cli_usage("%s: option '%s' is not available with --gpus / --cpu-parts / --mpi (these take --format "
                       "--kernel --exchange --runs --device (with --mpi)%s)", o->cmd, a,
                       strcmp(o->cmd, "solve") ? "" : " --method --precond --tol --maxit --eigs --version --verbose");
    if (!strcmp(o->cmd, "bench") && (!strcmp(a, "--method") || !strcmp(a, "--precond") || !strcmp(a, "--tol") ||
                                     !strcmp(a, "--maxit") || !strcmp(a, "--eigs") || !strcmp(a, "--version")))
      return cli_usage("bench: %s belongs to cisparse solve", a);
    if (!v) return cli_usage("%s: %s needs a value", o->cmd, a);
    if (!strcmp(a, "--gpus")) {
      if ((rc = cli_int(a, v, &o->gpus))) return rc;
      o->gpus_given = 1;
    } else if (!strcmp(a, "--cpu-parts")) {
      if ((rc = cli_int(a, v, &o->cpu_parts))) return rc;
      o->cpu_given = 1;
    } else if (!strcmp(a, "--device")) {
      if ((rc = mpi_device(o->cmd, v, &o->mpi_gpu))) return rc;
      o->device_given = 1;
    } else if (!strcmp(a, "--format")) o->format = v;
    else if (!strcmp(a, "--kernel")) o->kernel = v;
    else if (!strcmp(a, "--exchange")) {
      if (cis_dist_exchange_parse(v, &o->xk) != CIS_OK) return cli_usage("%s: --exchange: %s", o->cmd, cis_last_error());
    } else if (!strcmp(a, "--method")) {
      cis_krylov_method m;
      if (cis_krylov_method_parse(v, &m) != CIS_OK) return cli_usage("%s: --method '%s': %s", o->cmd, v, cis_last_error());
      o->method = (int)m;
    } else if (!strcmp(a, "--version")) {
      cis_solver_version sv;
      if (cis_solver_version_parse(v, &sv) != CIS_OK) return cli_usage("%s: --version '%s': %s", o->cmd, v, cis_last_error());
      o->version = (int)sv;
    } else if (!strcmp(a, "--precond")) {
      if (!strcmp(v, "none")) o->precond = CIS_PRECOND_NONE;
      else if (!strcmp(v, "jacobi")) o->precond = CIS_PRECOND_JACOBI;
      else return cli_usage("%s: --precond '%s': expected none or jacobi", o->cmd, v);
    } else if (!strcmp(a, "--tol")) {
      if ((rc = cli_double(a, v, &o->tol))) return rc;
    } else if (!strcmp(a, "--maxit")) {
      if ((rc = cli_int(a, v, &o->maxit))) return rc;
    } else if (!strcmp(a, "--runs") || !strcmp(a, "--repeat")) {
      if ((rc = cli_int(a, v, &o->runs))) return rc;
    } else {
      if ((rc = cli_int(a, v, &o->eigs))) return rc; /* --eigs */
    }
    ++i;
  }
  if (!o->matrix) return cli_usage("%s: no matrix given", o->cmd);
  if ((rc = parts_consistent(o->cmd, o->mpi, o->gpus_given, o->cpu_given, o->device_given))) return rc;
  if (o->gpus < 0 || o->gpus > 4096) return cli_usage("%s: --gpus must be 0 (every GPU) .. the GPU count, got %lld", o->cmd, o->gpus);
  if (o->cpu_given && (o->cpu_parts < 1 || o->cpu_parts > 64))
    return cli_usage("%s: --cpu-parts must be 1..64, got %lld", o->cmd, o->cpu_parts);
  if (o->runs < 1 || o->runs > 100000) return cli_usage("%s: --runs must be 1..100000, got %lld", o->cmd, o->runs);
  if (!(o->tol > 0)) return cli_usage("%s: --tol must be > 0", o->cmd);
  if (o->maxit < 1 || o->maxit > 2000000000LL) return cli_usage("%s: --maxit must be 1..2e9", o->cmd);
  if (o->eigs < 0 || o->eigs > 64) return cli_usage("%s: --eigs must be 1..64, got %lld", o->cmd, o->eigs);
  if (o->eigs && o->method == CIS_BICG) return cli_usage("%s: --eigs runs Davidson: drop --method", o->cmd);
  if (o->eigs && o->version >= 0) return cli_usage("%s: --eigs runs Davidson: drop --version (Krylov solves only)", o->cmd);
  return 0;
}


static int run(int argc, char **argv, const char *cmd) {
  dist_cli o;
  cli_mpi m = {0};
  cis_status st = CIS_OK;
  cis_csr *A = NULL;
  cis_dist_world *w = NULL;
  cis_dist_comm *c = NULL;
  cis_dist_matrix *D = NULL;
  cis_operator *op = NULL;
  void *v = NULL;
  double *h = NULL, *hb = NULL, *t = NULL;
  int rc;
  memset(&o, 0, sizeof o);
  o.cmd = cmd;
  o.tol = 1e-8;
  o.maxit = 1000;
  o.runs = strcmp(cmd, "bench") ? 1 : 50;
  o.xk = CIS_XCHG_AUTO;
  o.version = -1;
  m.on = cli_mpi_wanted(argc, argv);
  cli_mpi_parse_begin(&m);
  rc = parse(argc, argv, &o);
  cli_mpi_parse_end(&m);
  if (rc || cli_parse_only) return rc;
  if (cli_mpi_start(&m)) return 1;
  if (o.mpi) {
    CIS_TRY(cli_mpi_comm(&m, o.mpi_gpu, &c));
  } else if (o.cpu_given) {
    CIS_TRY(cis_dist_world_create((int)o.cpu_parts, &w));
    CIS_TRY(cis_dist_comm_fake(w, 0, (int)o.cpu_parts, &c));
  } else {
    CIS_TRY(cis_dist_comm_nccl((int)o.gpus, &c));
  }
  CIS_TRY(cli_load(o.matrix, CIS_F64, &A));
  if (o.mpi) CIS_TRY(ranks_agree(c, &o, A));
  cis_dist_opts dopt = cis_dist_opts_default();
  dopt.exchange = o.xk;
  dopt.format = o.format;
  dopt.kernel = o.kernel;
  double t_setup = cis_wtime();
  CIS_TRY(cis_dist_matrix_create(A, c, &dopt, &D));
  CIS_TRY(cis_operator_from_dist(D, &op));
  t_setup = cis_wtime() - t_setup;
  cis_dist_info pl;
  CIS_TRY(cis_dist_matrix_info(D, &pl));
  cis_int n = A->rows;
  printf("matrix %s: %lld rows, %lld nonzeros\n", o.matrix, (long long)n, (long long)A->nnz);
  printf("parts %d over %s (%s), NCCL_NVLS_ENABLE=%s, exchange %s (p2p %lld values + %lld messages, all-gather %lld values)\n",
         cis_dist_comm_ranks(c), cis_dist_comm_name(c), cis_operator_name(op),
         cis_host_env("NCCL_NVLS_ENABLE") ? cis_host_env("NCCL_NVLS_ENABLE") : "unset", cis_dist_exchange_name(pl.exchange),
         (long long)pl.p2p_values, (long long)pl.p2p_messages, (long long)pl.allgather_values);
  for (int p = 0; p < pl.parts; ++p) {
    cis_int row0, rows;
    CIS_TRY(cis_dist_matrix_part_rows(D, p, &row0, &rows));
    printf("  part %d: rows %lld..%lld\n", p, (long long)row0, (long long)(row0 + rows) - 1);
  }
  printf("setup %.3f s, exchange %.3f MB per product\n", t_setup, (double)cis_dist_matrix_exchange_bytes(D) / 1e6);
  CIS_TRY(cis_dist_vec_alloc(D, 2, &v));
  void *v2 = (char *)v + (size_t)n * sizeof(double);
  h = malloc((size_t)n * sizeof *h);
  hb = malloc((size_t)n * sizeof *hb);
  t = malloc((size_t)(o.runs + 1) * sizeof *t);
  if (!h || !hb || !t) CIS_TRY(cis_error(CIS_ERR_ALLOC, "out of host memory"));
  for (cis_int i = 0; i < n; ++i) h[i] = 1.0;
  CIS_TRY(cis_dist_vec_upload(D, v, h, 1));
  if (!strcmp(cmd, "bench")) { /* y = A x, median of runs after one warm-up */
    CIS_TRY(cis_operator_apply(op, 1.0, v, 0.0, v2, NULL));
    cis_dist_matrix_reset_times(D);
    for (long long r = 0; r < o.runs; ++r) {
      double t0 = cis_wtime();
      CIS_TRY(cis_operator_apply(op, 1.0, v, 0.0, v2, NULL));
      t[r] = cis_wtime() - t0;
    }
    double xs, ps;
    int64_t np;
    cis_dist_matrix_times(D, &xs, &ps, &np);
    double med = cis_median(t, (int)o.runs);
    printf("spmv: %.4f ms median of %lld, %.2f GFLOP/s, exchange %.1f%% of the product time (%.4f ms per product)\n",
           med * 1e3, o.runs, 2.0 * (double)A->nnz / med / 1e9, ps > 0 ? 100 * xs / ps : 0, xs / (double)np * 1e3);
  } else if (o.eigs) {
    cis_davidson_opts dav = cis_davidson_opts_default();
    cis_davidson_info info;
    double e[64];
    dav.roots = (int)o.eigs;
    dav.tol = o.tol;
    dav.max_iter = (int)(o.maxit < 100000 ? o.maxit : 100000);
    cis_dist_matrix_reset_times(D);
    CIS_TRY(cis_davidson_operator(op, cis_operator_diagonal(op), &dav, e, NULL, &info));
    double xs, ps;
    int64_t np;
    cis_dist_matrix_times(D, &xs, &ps, &np);
    for (int r = 0; r < dav.roots; ++r) printf("eigenvalue %d: %.12f\n", r, e[r]);
    printf("davidson: %d iterations, %lld products, %.3f s total, %.3f s in H x, exchange %.1f%% of the product time\n",
           info.iterations, (long long)info.products, info.total_seconds, info.op_seconds, ps > 0 ? 100 * xs / ps : 0);
  } else { /* b = A * ones, x0 = 0: the error against x* = ones is printed */
    cis_krylov_opts ko = cis_krylov_opts_default();
    cis_krylov_info info;
    ko.method = (cis_krylov_method)o.method;
    ko.precond = (cis_precond)o.precond;
    ko.tol = o.tol;
    ko.maxit = (int)o.maxit;
    if (o.version >= 0) ko.version = (cis_solver_version)o.version;
    printf("version %s: %s\n", cis_solver_version_name(ko.version), cis_dist_solver_path(ko.version));
    if (ko.method == CIS_BICG) {
      int sym = 1; /* BiCG needs A^T: the same operator when A is symmetric */
      cis_csr *T = NULL;
      CIS_TRY(cis_csr_transpose(A, &T));
      sym = T->nnz == A->nnz && !memcmp(T->rowptr, A->rowptr, (size_t)(n + 1) * sizeof *A->rowptr) &&
            !memcmp(T->colind, A->colind, (size_t)A->nnz * sizeof *A->colind) &&
            !memcmp(T->val, A->val, (size_t)A->nnz * sizeof(double));
      cis_csr_free(T);
      if (!sym) CIS_TRY(cis_error(CIS_ERR_UNSUPPORTED, "--method bicg with --gpus needs a symmetric matrix (A^T is not distributed)"));
      CIS_TRY(cis_operator_set_transpose(op, op));
    }
    CIS_TRY(cis_operator_apply(op, 1.0, v, 0.0, v2, NULL)); /* b = A ones */
    memset(h, 0, (size_t)n * sizeof *h);
    CIS_TRY(cis_dist_vec_upload(D, v, h, 1));
    cis_dist_matrix_reset_times(D);
    int64_t ah0, as0, ah1, as1;
    cis_dist_comm_allreduces(c, &ah0, &as0);
    CIS_TRY(cis_krylov_solve(op, v2, v, &ko, &info));
    cis_dist_comm_allreduces(c, &ah1, &as1);
    if (o.verbose)
      printf("all-reduces of this process: %lld of scalar slots in stream order, %lld through the host\n",
             (long long)(as1 - as0), (long long)(ah1 - ah0));
    double xs, ps, err = 0;
    int64_t np;
    cis_dist_matrix_times(D, &xs, &ps, &np);
    CIS_TRY(cis_dist_vec_download(D, h, v, 1));
    CIS_TRY(cis_dist_vec_gather_host(D, h, 1)); /* the other processes' rows (--mpi) */
    for (cis_int i = 0; i < n; ++i) err = fmax(err, fabs(h[i] - 1.0));
    printf("%s%s: converged in %d iterations, relative residual %.3e, max |x - 1| %.3e\n",
           cis_krylov_method_name(ko.method), ko.precond ? " jacobi" : "", info.iterations, info.rel_residual, err);
    printf("solve %.4f s (%.4f ms per iteration), %lld products, exchange %.1f%% of the product time\n", info.seconds,
           info.iterations ? info.seconds / info.iterations * 1e3 : 0, (long long)np, ps > 0 ? 100 * xs / ps : 0);
  }
cleanup:
  free(h);
  free(hb);
  free(t);
  cis_dist_vec_free(D, v);
  cis_operator_free(op);
  cis_dist_matrix_free(D);
  cis_dist_comm_free(c);
  cis_dist_world_free(w);
  cis_csr_free(A);
  return cli_mpi_finish(&m, st);
}

int cli_dist_bench(int argc, char **argv) { return run(argc, argv, "bench"); }
int cli_dist_solve(int argc, char **argv) { return run(argc, argv, "solve"); }

/* ---- cisparse ci FILE --gpus N ------------------------------------------------
 * The stored Hamiltonian over N GPUs (or --cpu-parts N, or --mpi: one part
 * per process of mpirun): the CI driver (cis_ci_solve_file with gpus /
 * cpu_parts, and with --mpi the part's communicator) builds each part's rows
 * on their own (the whole matrix is never held) and runs Davidson on the
 * distributed operator; this prints what it did (text, or --json). */

/* The distributed run's result as one JSON object. */
static void print_ci_json(FILE *f, const char *file, const cis_ci_solve_opts *o, const cis_ci_result *R) {
  const cis_davidson_info *d = &R->davidson;
  fprintf(f, "{\"file\": ");
  cli_json_string(f, file);
  fprintf(f, ", \"units\": {\"energies\": \"hartree\", \"times\": \"s\", \"memory\": \"bytes\"}, \"method\": \"%s\", "
         "\"determinants\": %lld, \"parts\": %d, \"comm\": \"%s\", \"operator\": \"%s\", "
         "\"exchange_bytes_per_product\": %.0f, \"energies\": [",
         R->method == CIS_CI_METHOD_DIRECT ? "direct" : "stored", (long long)R->determinants, R->parts,
         R->parts_comm, R->parts_op, R->exchange_bytes);
  for (int r = 0; r < R->roots; ++r) fprintf(f, "%s%.12f", r ? ", " : "", R->energies[r]);
  fprintf(f, "], \"davidson\": {\"iterations\": %d, \"products\": %lld, \"seconds\": %.6f, \"product_seconds\": %.6f, "
         "\"ms_per_product\": %.6f}, \"exchange_share\": %.6f, \"setup_seconds\": %.6f",
         d->iterations, (long long)d->products, d->total_seconds, d->op_seconds,
         d->products ? d->op_seconds / (double)d->products * 1e3 : 0,
         R->product_seconds > 0 ? R->exchange_seconds / R->product_seconds : 0, R->t_build);
  fprintf(f, ", \"guess_seconds\": %.6f, \"parse_seconds\": %.6f, \"to_solution_seconds\": %.6f", R->t_guess, R->t_parse,
         R->to_solution[0]);
  if (o->time_sigma) fprintf(f, ", \"sigma_ms\": %.6f", R->sigma_ms);
  else fprintf(f, ", \"sigma_ms\": null"); /* not timed (no --time-sigma) */
  if (R->method == CIS_CI_METHOD_DIRECT)
    fprintf(f, ", \"subspace\": %d, \"host_vectors\": %s, \"half_sigmas\": %lld}\n", R->subspace,
           R->host_vectors ? "true" : "false", (long long)R->half_sigmas);
  else
    fprintf(f, ", \"nnz\": %lld, \"split_seconds\": %.6f, \"store_seconds\": %.6f}\n", (long long)R->nnz, R->split_seconds,
           R->store_seconds);
}

/* The ci options of the distributed path into *o, *file, *json, *mpi (with
 * --mpi o->gpus is 1 for --device gpu, else o->cpu_parts 1: the caller sets
 * the rank count and the communicator). 0 ok, 2 usage error printed. */
static int parse_ci(int argc, char **argv, cis_ci_solve_opts *o, const char **file, cli_json *json, int *mpi) {
  long long gpus = 0, cpu_parts = 0, level = -1, roots = 1, max_iter = 200;
  int gpus_given = 0, cpu_given = 0, mpi_gpu = 0, device_given = 0, rc;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (cli_stray_value(argv, i)) return 2;
    if (a[0] != '-') {
      if (*file) return cli_usage("ci: more than one file given ('%s', '%s')", *file, a);
      *file = a;
      continue;
    }
    if (!strcmp(a, "--count")) { /* the sizes and the memory per part, nothing built */
      o->count_only = 1;
      continue;
    }
    if (!strcmp(a, "--verbose")) { /* Davidson's iterations and the set-up's times on stderr */
      o->verbose = 1;
      continue;
    }
    if (!strcmp(a, "--mpi")) { /* one part per process of mpirun */
      *mpi = 1;
      continue;
    }
    if (!strcmp(a, "--time-sigma")) { /* the direct sigma timed apart (sigma_ms) */
      o->time_sigma = 1;
      continue;
    }
    if ((rc = cli_json_option(argc, argv, &i, json)) >= 0) {
      if (rc) return rc;
      continue;
    }
    if (!v) return cli_usage("ci: %s needs a value", a);
    if (!strcmp(a, "--gpus")) {
      if ((rc = cli_int(a, v, &gpus))) return rc;
      gpus_given = 1;
    } else if (!strcmp(a, "--cpu-parts")) {
      if ((rc = cli_int(a, v, &cpu_parts))) return rc;
      cpu_given = 1;
    } else if (!strcmp(a, "--device")) {
      if ((rc = mpi_device("ci", v, &mpi_gpu))) return rc;
      device_given = 1;
    } else if (!strcmp(a, "--level")) {
      if (!strcmp(v, "full")) level = -1;
      else if ((rc = cli_int(a, v, &level))) return rc;
    } else if (!strcmp(a, "--roots")) {
      if ((rc = cli_int(a, v, &roots))) return rc;
    } else if (!strcmp(a, "--max-iter")) {
      if ((rc = cli_int(a, v, &max_iter))) return rc;
    } else if (!strcmp(a, "--tol")) {
      if ((rc = cli_double(a, v, &o->tol))) return rc;
    } else if (!strcmp(a, "--format")) {
      if ((rc = cli_ci_format(v))) return rc;
      o->format = v;
    } else if (!strcmp(a, "--method")) {
      if ((rc = cli_ci_method(v, &o->method))) return rc;
    } else if (!strcmp(a, "--subspace")) {
      if ((rc = cli_ci_subspace(v, &o->max_sub))) return rc;
    } else if (!strcmp(a, "--host-vectors")) { /* Davidson's vectors in host memory: auto, always, never */
      if (!strcmp(v, "auto")) o->host_vectors = 0;
      else if (!strcmp(v, "always")) o->host_vectors = 1;
      else if (!strcmp(v, "never")) o->host_vectors = -1;
      else return cli_usage("ci: --host-vectors must be auto, always or never, got '%s'", v);
    } else if (!strcmp(a, "--exchange")) {
      cis_dist_exchange xk;
      if (cis_dist_exchange_parse(v, &xk) != CIS_OK) return cli_usage("ci: --exchange: %s", cis_last_error());
      o->exchange = v;
    } else {
      return cli_usage("ci: option '%s' is not available with --gpus / --cpu-parts / --mpi (these take --method "
                       "--level --roots --tol --max-iter --subspace --host-vectors --count --verbose --time-sigma --format --exchange --json, "
                       "and --device with --mpi)", a);
    }
    ++i;
  }
  cli_json_settle(json, file);
  if (!*file) return cli_usage("ci: no FCIDUMP file given");
  if ((rc = parts_consistent("ci", *mpi, gpus_given, cpu_given, device_given))) return rc;
  if (gpus < 0 || gpus > 4096) return cli_usage("ci: --gpus must be 0 (every GPU) .. the GPU count, got %lld", gpus);
  if (cpu_given && (cpu_parts < 1 || cpu_parts > 64)) return cli_usage("ci: --cpu-parts must be 1..64, got %lld", cpu_parts);
  if (roots < 1 || roots > 64) return cli_usage("ci: --roots must be 1..64, got %lld", roots);
  if (max_iter < 1 || max_iter > 100000) return cli_usage("ci: --max-iter must be 1..100000, got %lld", max_iter);
  if (!(o->tol > 0)) return cli_usage("ci: --tol must be > 0");
  if (level < -1 || level > 128) /* the one-process range (cmd_ci.c) */
    return cli_usage("--level must be 0..128 or full, got %lld", level);
  if (json->path && o->count_only) return cli_usage("ci: --json prints a run's result over parts, not --count's");
  o->gpus = *mpi ? mpi_gpu : cpu_given ? 0 : gpus == 0 ? CIS_CI_ALL_GPUS : (int)gpus;
  o->cpu_parts = *mpi ? !mpi_gpu : (int)cpu_parts;
  o->level = (int)level;
  o->roots = (int)roots;
  o->max_iter = (int)max_iter;
  o->no_s2 = 1;
  return 0;
}

/* The text report of a distributed ci run (or of --count). */
static void print_ci_text(const char *file, const cis_ci_solve_opts *o, const cis_ci_result *R) {
  if (o->count_only) {
    const double gib = 1073741824.0, whole = 8.0 * R->counts.determinants, parts = R->parts > 0 ? R->parts : 1;
    /* Davidson's vectors as the driver counted them to check the run (R->need) */
    const double dav = R->need.davidson, share = dav / parts; /* a part holds its rows of each */
    printf("ci %s: %.0f determinants (%.0f x %.0f strings), one vector %.3f GiB\n", file, R->counts.determinants,
           R->counts.alpha_strings, R->counts.beta_strings, whole / gib);
    if (R->method == CIS_CI_METHOD_DIRECT && R->host_vectors)
      printf("direct over %d GPUs, Davidson's vectors on the host: per GPU %.3f GiB = 2 whole vectors (the gathered "
             "one, its partial sigma) %.3f GiB + its rows of sigma %.3f GiB, before the sigma's workspace; host %.3f "
             "GiB of Davidson's vectors (subspace %d%s)\n", (int)parts, (2 * whole + whole / parts) / gib,
             2 * whole / gib, whole / parts / gib, dav / gib, R->subspace,
             R->subspace_reduced_from ? ", fitted to the host's memory" : "");
    else if (R->method == CIS_CI_METHOD_DIRECT)
      printf("direct over %d %s: per part %.3f GiB = 2 whole vectors (the gathered one, its partial sigma) %.3f GiB "
             "+ Davidson's share %.3f GiB (subspace %d%s, %.3f GiB of vectors in all), before the sigma's workspace\n",
             (int)parts, o->cpu_parts > 0 ? "CPU parts" : "GPUs", (2 * whole + share) / gib, 2 * whole / gib,
             share / gib, R->subspace, R->subspace_reduced_from ? ", fitted to the memory" : "", dav / gib);
    else
      printf("stored over parts: the Hamiltonian's bound %.3f GiB in all\n", R->need.matrix / gib);
    return;
  }
  const cis_davidson_info *d = &R->davidson;
  if (R->method == CIS_CI_METHOD_DIRECT)
    printf("ci %s: %lld determinants, direct sigma (%lld x %lld strings%s) split by alpha strings, set up in %.3f s\n",
           file, (long long)R->determinants, (long long)R->alpha_strings, (long long)R->beta_strings,
           R->direct.blocked ? ", blocked by irreps" : "", R->t_build);
  else
    printf("ci %s: %lld determinants, %lld nonzeros, counted in %.3f s, built by parts in %.3f s (%s rows), split "
           "in %.3f s, stored in %.3f s (%s blocks), set up in %.3f s in all\n",
           file, (long long)R->determinants, (long long)R->nnz, R->count_seconds, R->build_rows_seconds,
           R->gpu ? "GPU" : "host", R->split_seconds, R->store_seconds, R->format, R->t_build);
  printf("parts %d over %s (%s), exchange %.3f MB per product\n", R->parts, R->parts_comm, R->parts_op,
         R->exchange_bytes / 1e6);
  for (int r = 0; r < R->roots; ++r) printf("root %d  E = %.10f Eh\n", r, R->energies[r]);
  printf("davidson: %d iterations, %lld products, %.3f s total, %.3f s in H x (%.3f ms per product), exchange %.1f%% "
         "of the product time\n",
         d->iterations, (long long)d->products, d->total_seconds, d->op_seconds,
         d->products ? d->op_seconds / (double)d->products * 1e3 : 0,
         R->product_seconds > 0 ? 100 * R->exchange_seconds / R->product_seconds : 0);
  if (R->method == CIS_CI_METHOD_DIRECT)
    printf("direct: subspace %d%s, %lld half sigmas, to solution %.3f s\n", R->subspace,
           R->host_vectors == 2   ? " (Davidson's vectors in page-locked host memory)"
           : R->host_vectors ? " (Davidson's vectors in pageable host memory)"
                             : "", (long long)R->half_sigmas, R->to_solution[0]);
  printf("time: set-up %.3f s, guess %.3f s (P-space of %d), Davidson %.3f s, to solution %.3f s after the parse "
         "(%.3f s)", R->t_build, R->t_guess, R->pspace_used, d->total_seconds, R->to_solution[0], R->t_parse);
  if (o->time_sigma) printf("; one product %.3f ms (--time-sigma: median of 5, timed %.3f s apart)", R->sigma_ms, R->t_timing);
  printf("\n");
}

int cli_dist_ci(int argc, char **argv) {
  const char *file = NULL;
  cli_json json = {0};
  int mpi = 0, rc;
  cis_ci_solve_opts o = cis_ci_solve_opts_default(); /* method auto: full CI over GPUs goes direct */
  cis_ci_result *R = NULL;
  cis_dist_comm *c = NULL;
  cli_mpi m = {0};
  cis_status st = CIS_OK;
  m.on = cli_mpi_wanted(argc, argv);
  cli_mpi_parse_begin(&m);
  rc = parse_ci(argc, argv, &o, &file, &json, &mpi);
  cli_mpi_parse_end(&m);
  if (rc || cli_parse_only) return rc;
  if (cli_mpi_start(&m)) return 1;
  if (mpi) { /* this process's part */
    CIS_TRY(cli_mpi_comm(&m, o.gpus != 0, &c));
    o.comm = c;
    if (o.gpus) o.gpus = m.size;
    else o.cpu_parts = m.size;
    if (m.rank != 0) o.verbose = 0; /* Davidson's lines once */
    /* the flags the driver does not see, compared before it compares the
     * integrals and its options (cis_ci_solve: ci_ranks_agree) */
    const uint64_t flags = json.path ? 1 + (uint64_t)cli_json_stdout(&json) : 0;
    int differ = 0;
    CIS_TRY(cis_dist_comm_agree(c, &flags, 1, &differ));
    if (differ) CIS_TRY(cis_error(CIS_ERR_INVALID, "ranks disagree on the options (--json)"));
  }
  CIS_TRY(cis_ci_solve_file(file, &o, &R));
  if (!cli_json_stdout(&json)) print_ci_text(file, &o, R);
  if (json.path && m.rank == 0) { /* one file, written by the first rank */
    FILE *f = cli_json_open(&json, 0);
    if (!f) CIS_TRY(CIS_ERR_IO);
    print_ci_json(f, file, &o, R);
    CIS_TRY(cli_json_close(&json, f));
  }
cleanup:
  cis_ci_result_free(R);
  cis_dist_comm_free(c);
  return cli_mpi_finish(&m, st);
}
