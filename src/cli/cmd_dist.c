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

int cli_parts_consistent(const char *cmd, int mpi, int gpus_given, int cpu_given, int device_given) {
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
  if ((rc = cli_parts_consistent(o->cmd, o->mpi, o->gpus_given, o->cpu_given, o->device_given))) return rc;
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
