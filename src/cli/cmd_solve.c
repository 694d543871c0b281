/* cmd_solve.c: `cisparse solve MATRIX|SPEC`: solve A x = b with CG, BiCG or
 * BiCGStab (± Jacobi) on the CPU or the GPU, in one of the device versions
 * of Aliaga, Perez, Quintana-Orti, "Systematic Fusion of CUDA Kernels for
 * Iterative Sparse Linear System Solvers", Euro-Par 2015 §4, and report what
 * the paper reports: time and energy per iteration; `--sweep` runs the
 * paper's grid (3 solvers x {none, jacobi} x every version x {spin, blocking})
 * and prints the Figure-4 table relative to cublasL in spin (polling) mode.
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
#include <time.h>
#include "cisparse/cisparse.h"
#include "cli/cli.h"
#include "cli/cli_matrix.h"

enum { DEV_AUTO = 0, DEV_CPU = 1, DEV_GPU = 2 };
enum { PREC_DOUBLE = 0, PREC_SINGLE = 1, PREC_MIXED = 2 };
#define MAX_RUNS 10000 /* a configuration repeats at most this often to fill its energy window */
/* Energy over a shorter window is not reported: NVML's counter advances in
 * steps of tens of milliseconds (an H100 showed 0 J over 35 ms windows), RAPL
 * every ~1 ms; --energy-seconds repeats the solve to fill a window. */
#define ENERGY_MIN_WINDOW 0.25

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
    "  --repeat R                   solves per configuration, median ms/iteration (default 1;\n"
    "                               3 with --sweep)\n"
    "  --energy-seconds S           repeat the solve until the energy window lasts S seconds\n"
    "                               (default 0.5 where the device's energy counter is readable,\n"
    "                               else 0; energy over windows under 0.25 s is n/a)\n"
    "  --json [FILE]                results as JSON in FILE, or alone on stdout (no FILE, or '-'), the\n"
    "                               report then on stderr; FILE: --json=FILE, or a word after --json\n"
    "                               beside the MATRIX\n"
    "  --sweep [--plot PREFIX]\n"
    "                               the paper's grid (§4, Figure 4): every solver, preconditioner,\n"
    "                               version and sync mode (options given above narrow it); each\n"
    "                               configuration runs >= R times and >= S seconds; --plot writes\n"
    "                               PNGs via python3 -m cisparse.plot\n"
    "The problem: x* = ones, b = A x*, x0 = 0. Exit 0 converged, 1 error or no convergence, 2 usage.";

typedef struct solve_opts {
  const char *matrix, *format, *kernel, *cusparse, *rhs, *write_x, *plot;
  cli_json json;
  int device, precision, sweep;
  int method, precond, version, sync; /* -1: not given */
  double tol, inner_tol, energy_seconds;
  long long maxit, repeat, check_every, stagnation;
  int format_given, repeat_given, symmetric;
  cis_format_params fp;
} solve_opts;

/* ---- small helpers --------------------------------------------------------- */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of this process (all threads): what the host spends waiting
 * for the device, the paper's polling vs blocking difference even where no
 * CPU energy counter is readable. */
static double cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


static const char *precond_name(int p) { return p == CIS_PRECOND_JACOBI ? "jacobi" : "none"; }
static const char *sync_name(int s) { return s == CIS_SYNC_BLOCKING ? "blocking" : "spin"; }
static const char *precision_name(int p) {
  return p == PREC_SINGLE ? "single" : p == PREC_MIXED ? "mixed" : "double";
}

/* ---- options ---------------------------------------------------------------- */

static int parse_choice(const char *opt, const char *val, const char *const *names, int n, int *out) {
  for (int i = 0; val && i < n; ++i)
    if (!strcmp(val, names[i])) { *out = i; return 0; }
  {
    char list[200] = "";
    for (int i = 0, len = 0; i < n; ++i)
      len += snprintf(list + len, sizeof list - (size_t)len, "%s%s", i ? "|" : "", names[i]);
    return cli_usage("solve: %s must be %s, got '%s'", opt, list, val ? val : "(nothing)");
  }
}

static int parse(int argc, char **argv, solve_opts *o) {
  static const char *const devices[] = {"cpu", "gpu"}; /* DEV_CPU - 1, DEV_GPU - 1 */
  static const char *const preconds[] = {"none", "jacobi"};
  static const char *const precisions[] = {"double", "single", "mixed"};
  static const char *const syncs[] = {"spin", "blocking"};
  int rc;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    const char **str = !strcmp(a, "--format") ? &o->format : !strcmp(a, "--kernel") ? &o->kernel
                     : !strcmp(a, "--cusparse") ? &o->cusparse : !strcmp(a, "--rhs") ? &o->rhs : !strcmp(a, "--write-x") ? &o->write_x
                     : !strcmp(a, "--plot") ? &o->plot : NULL;
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
      printf("%s\n", usage_text);
      return -1;
    }
    if (str) {
      if (!val) return cli_usage("solve: %s needs a value", a);
      *str = val;
      if (str == &o->format) o->format_given = 1;
    } else if (intopt) {
      if ((rc = cli_int(a, val, intopt))) return rc;
      if (intopt == &o->repeat) o->repeat_given = 1;
    } else if (dblopt) {
      if ((rc = cli_double(a, val, dblopt))) return rc;
    } else if (!strcmp(a, "--device")) {
      if ((rc = parse_choice(a, val, devices, 2, &o->device))) return rc;
      o->device += 1;
    } else if (!strcmp(a, "--method")) {
      cis_krylov_method m;
      if (!val) return cli_usage("solve: --method needs a value");
      if (cis_krylov_method_parse(val, &m) != CIS_OK) return cli_usage("solve: --method '%s': %s", val, cis_last_error());
      o->method = (int)m;
    } else if (!strcmp(a, "--version")) {
      cis_solver_version v;
      if (!val) return cli_usage("solve: --version needs a value");
      if (cis_solver_version_parse(val, &v) != CIS_OK) return cli_usage("solve: --version '%s': %s", val, cis_last_error());
      o->version = (int)v;
    } else if (!strcmp(a, "--precond")) {
      if ((rc = parse_choice(a, val, preconds, 2, &o->precond))) return rc;
    } else if (!strcmp(a, "--precision")) {
      if ((rc = parse_choice(a, val, precisions, 3, &o->precision))) return rc;
    } else if (!strcmp(a, "--sync")) {
      if ((rc = parse_choice(a, val, syncs, 2, &o->sync))) return rc;
    } else if (!strcmp(a, "--sweep")) {
      o->sweep = 1;
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
      return cli_usage("solve: unknown option '%s' (cisparse solve --help)", a);
    } else if (o->matrix) {
      return cli_usage("solve: more than one matrix given ('%s', '%s')", o->matrix, a);
    } else {
      o->matrix = a;
      continue;
    }
    ++i; /* the option's value */
  }
  cli_json_settle(&o->json, &o->matrix);
  if (!o->matrix) return cli_usage("solve: no matrix given (cisparse solve --help)");
  if (!(o->tol > 0)) return cli_usage("solve: --tol must be > 0, got %g", o->tol);
  if (o->maxit < 1 || o->maxit > 2000000000LL) return cli_usage("solve: --maxit must be 1..2e9, got %lld", o->maxit);
  if (o->repeat < 1 || o->repeat > MAX_RUNS) return cli_usage("solve: --repeat must be 1..%d, got %lld", MAX_RUNS, o->repeat);
  if (o->check_every < 0 || o->check_every > 1000000) return cli_usage("solve: --check-every must be 0..1e6, got %lld", o->check_every);
  if (o->stagnation > 2000000000LL || o->stagnation < -1) return cli_usage("solve: --stagnation must be -1..2e9, got %lld", o->stagnation);
  if (o->inner_tol < 0 || o->inner_tol >= 1) return cli_usage("solve: --inner-tol must be in [0, 1), got %g", o->inner_tol);
  if (o->energy_seconds < 0 || o->energy_seconds > 600) /* NaN (not given) passes */
    return cli_usage("solve: --energy-seconds must be 0..600, got %g", o->energy_seconds);
  if (o->kernel && o->cusparse) return cli_usage("solve: --kernel and --cusparse exclude each other");
  if (o->symmetric && (o->cusparse || (o->format_given && strcmp(o->format, "csr"))))
    return cli_usage("solve: --symmetric stores the upper triangle in csr: no --cusparse or other --format");
  if (o->format_given && o->cusparse) return cli_usage("solve: --cusparse builds its own format from CSR; drop --format");
  if (o->inner_tol > 0 && o->precision != PREC_MIXED) return cli_usage("solve: --inner-tol applies to --precision mixed only");
  if (o->plot && !o->sweep) return cli_usage("solve: --plot needs --sweep");
  if (o->sweep && o->precision == PREC_MIXED) return cli_usage("solve: --sweep runs single or double precision, not mixed");
  if (o->sweep && (o->rhs || o->write_x)) return cli_usage("solve: --sweep solves the paper's problem (b = A*ones): no --rhs or --write-x");
  if (o->device == DEV_CPU) {
    const char *gpu_only = o->version >= 0 ? "--version" : o->sync >= 0 ? "--sync" : o->kernel ? "--kernel"
                         : o->cusparse ? "--cusparse" : NULL;
    if (gpu_only) return cli_usage("solve: %s applies to --device gpu only (the CPU solve has one version: OpenMP)", gpu_only);
  }
  return 0;
}

/* ---- the problem: A, b = A x*, x*, diag(A), A^T, a host double operator ---- */

typedef struct problem {
  cis_csr *A, *At;       /* double */
  double *b, *xstar;     /* host double; xstar NULL with --rhs */
  double *diag;
  cis_int zero_diag;     /* first row with A(i,i) = 0, -1 if none */
  cis_operator *host64;  /* cis_operator_from_csr(A): the true residual of single-precision solves */
} problem;

static void problem_free(problem *pb) {
  cis_operator_free(pb->host64);
  cis_csr_free(pb->A);
  cis_csr_free(pb->At);
  free(pb->b);
  free(pb->xstar);
  free(pb->diag);
  memset(pb, 0, sizeof *pb);
}

static cis_status problem_make(const solve_opts *o, int need_transpose, problem *pb) {
  cis_status st;
  size_t n;
  memset(pb, 0, sizeof *pb);
  pb->zero_diag = -1;
  if ((st = cli_load(o->matrix, CIS_F64, &pb->A)) != CIS_OK) return st;
  if (pb->A->rows != pb->A->cols)
    return cis_error(CIS_ERR_INVALID, "%s is %lld x %lld: the Krylov solvers need a square matrix", o->matrix,
                     (long long)pb->A->rows, (long long)pb->A->cols);
  if (pb->A->rows == 0) return cis_error(CIS_ERR_INVALID, "%s is empty (0 rows)", o->matrix);
  n = (size_t)pb->A->rows;
  pb->b = malloc(n * sizeof(double));
  pb->diag = malloc(n * sizeof(double));
  if (!o->rhs) pb->xstar = malloc(n * sizeof(double));
  if (!pb->b || !pb->diag || (!o->rhs && !pb->xstar))
    return cis_error(CIS_ERR_ALLOC, "cannot allocate host vectors for %zu rows", n);
  if ((st = cis_csr_diagonal(pb->A, pb->diag)) != CIS_OK) return st;
  for (size_t i = 0; i < n && pb->zero_diag < 0; ++i)
    if (pb->diag[i] == 0) pb->zero_diag = (cis_int)i;
  if (o->rhs) {
    void *v = NULL;
    if ((st = cis_vector_read(o->rhs, CIS_F64, (cis_int)n, &v)) != CIS_OK) return st;
    memcpy(pb->b, v, n * sizeof(double));
    cis_free(v);
  } else {
    for (size_t i = 0; i < n; ++i) pb->xstar[i] = 1.0;
    if ((st = cis_csr_spmv(pb->A, 1.0, pb->xstar, 0.0, pb->b)) != CIS_OK) return st;
  }
  for (size_t i = 0; i < n; ++i)
    if (!isfinite(pb->b[i]))
      return cis_error(CIS_ERR_NUMERIC, "b = A*ones has a non-finite entry in row %zu (the matrix holds NaN or Inf)", i + 1);
  if (need_transpose && (st = cis_csr_transpose(pb->A, &pb->At)) != CIS_OK) return st;
  return cis_operator_from_csr(pb->A, &pb->host64);
}

/* ---- one precision's operators and vectors -------------------------------- */

typedef struct opset {
  cis_dtype t;
  cis_memspace where;
  cis_matrix *M, *Mt;      /* CPU formats */
  cis_csr *U, *Ut;         /* --symmetric: the upper triangle in the set's dtype */
  cis_gpu_plan *P, *Pt;    /* GPU plans */
  cis_operator *op, *opt;
  void *b, *x, *xstar;     /* op's dtype and memory space; xstar NULL with --rhs */
  void *zeros;             /* host zeros of n values (to reset x) */
  char desc[160];          /* "gpu csr-vector" ... */
} opset;

static void vec_free(cis_memspace where, void *p) {
  if (where == CIS_MEM_DEVICE) cis_gpu_free(p);
  else free(p);
}

/* A vector of n values of type t in `where`, from host doubles (NULL: zeros). */
static cis_status vec_make(cis_memspace where, cis_dtype t, const double *src, cis_int n, void **out) {
  size_t vs = cis_dtype_size(t), bytes = vs * (size_t)n;
  cis_status st = CIS_OK;
  void *h = calloc((size_t)n, vs);
  *out = NULL;
  if (!h) return cis_error(CIS_ERR_ALLOC, "cannot allocate a host vector of %lld values", (long long)n);
  for (cis_int i = 0; src && i < n; ++i) {
    if (t == CIS_F64) ((double *)h)[i] = src[i];
    else ((float *)h)[i] = (float)src[i];
  }
  if (where == CIS_MEM_HOST) {
    *out = h;
    return CIS_OK;
  }
  if ((st = cis_gpu_malloc(out, bytes)) == CIS_OK) st = cis_gpu_upload(*out, h, bytes);
  if (st != CIS_OK) {
    cis_gpu_free(*out);
    *out = NULL;
  }
  free(h);
  return st;
}

/* x (the set's dtype and space) -> host doubles. */
static cis_status vec_to_host64(const opset *s, const void *x, cis_int n, double *dst) {
  size_t vs = cis_dtype_size(s->t);
  const void *h = x;
  void *tmp = NULL;
  cis_status st;
  if (s->where == CIS_MEM_DEVICE) {
    if (!(tmp = malloc(vs * (size_t)n))) return cis_error(CIS_ERR_ALLOC, "cannot allocate a host copy of x");
    if ((st = cis_gpu_download(tmp, x, vs * (size_t)n)) != CIS_OK) {
      free(tmp);
      return st;
    }
    h = tmp;
  }
  for (cis_int i = 0; i < n; ++i)
    dst[i] = s->t == CIS_F64 ? ((const double *)h)[i] : (double)((const float *)h)[i];
  free(tmp);
  return CIS_OK;
}

static cis_status vec_reset(opset *s, cis_int n, void *x) {
  size_t bytes = cis_dtype_size(s->t) * (size_t)n;
  if (s->where == CIS_MEM_DEVICE) return cis_gpu_upload(x, s->zeros, bytes);
  memset(x, 0, bytes);
  return CIS_OK;
}

static void opset_free(opset *s) {
  cis_operator_free(s->op);
  cis_operator_free(s->opt);
  vec_free(s->where, s->b);
  vec_free(s->where, s->x);
  vec_free(s->where, s->xstar);
  free(s->zeros);
  cis_gpu_plan_free(s->P);
  cis_gpu_plan_free(s->Pt);
  cis_matrix_free(s->M);
  cis_matrix_free(s->Mt);
  cis_csr_free(s->U);
  cis_csr_free(s->Ut);
  memset(s, 0, sizeof *s);
}

/* One operator (and its transpose when pb->At is set) of A in precision t. */
static cis_status build_one(const solve_opts *o, const cis_csr *A, cis_dtype t, int gpu, cis_matrix **M,
                            cis_csr **U, cis_gpu_plan **P, cis_operator **op) {
  cis_status st;
  cis_format_params fp = o->fp;
  fp.dtype = t;
  if (o->symmetric) { /* symmetric storage: refused unless A is symmetric */
    cis_csr *U64 = NULL;
    if ((st = cis_csr_upper_symmetric(A, CLI_SYM_TOL, &U64)) != CIS_OK) return st;
    st = cis_csr_copy(U64, t, U);
    cis_csr_free(U64);
    if (st != CIS_OK) return st;
    if (!gpu) return cis_operator_from_csr(*U, op);
    if ((st = cis_gpu_plan_create_symmetric(*U, o->kernel, 0, P)) != CIS_OK) return st;
    return cis_operator_from_gpu_plan(*P, op);
  }
  if (gpu && o->cusparse) {
    if ((st = cis_gpu_plan_create_cusparse(A, t, o->cusparse, P)) != CIS_OK) return st;
    return cis_operator_from_gpu_plan(*P, op);
  }
  const char *format = o->format, *kernel = o->kernel;
  if ((st = cli_format_auto(A, gpu, o->format_given, &format, &fp, &kernel)) != CIS_OK) return st;
  if ((st = cis_matrix_create(A, format, &fp, M)) != CIS_OK) return st;
  if (!gpu) return cis_operator_from_matrix(*M, op);
  st = cis_gpu_plan_create(*M, kernel, 0, P);
  cis_matrix_free(*M); /* the plan holds the device copy */
  *M = NULL;
  return st == CIS_OK ? cis_operator_from_gpu_plan(*P, op) : st;
}

static cis_status opset_make(const solve_opts *o, const problem *pb, cis_dtype t, int gpu, opset *s) {
  cis_status st;
  cis_int n = pb->A->rows;
  memset(s, 0, sizeof *s);
  s->t = t;
  s->where = gpu ? CIS_MEM_DEVICE : CIS_MEM_HOST;
  if ((st = build_one(o, pb->A, t, gpu, &s->M, &s->U, &s->P, &s->op)) != CIS_OK) return st;
  if ((st = cis_operator_set_diagonal(s->op, pb->diag)) != CIS_OK) return st;
  if (pb->At) {
    double *dt = malloc(sizeof(double) * (size_t)n);
    if (!dt) return cis_error(CIS_ERR_ALLOC, "cannot allocate the transpose's diagonal");
    st = build_one(o, pb->At, t, gpu, &s->Mt, &s->Ut, &s->Pt, &s->opt);
    if (st == CIS_OK) st = cis_csr_diagonal(pb->At, dt);
    if (st == CIS_OK) st = cis_operator_set_diagonal(s->opt, dt);
    free(dt);
    if (st == CIS_OK) st = cis_operator_set_transpose(s->op, s->opt);
    if (st != CIS_OK) return st;
  }
  if ((st = vec_make(s->where, t, pb->b, n, &s->b)) != CIS_OK) return st;
  if ((st = vec_make(s->where, t, NULL, n, &s->x)) != CIS_OK) return st;
  if (pb->xstar && (st = vec_make(s->where, t, pb->xstar, n, &s->xstar)) != CIS_OK) return st;
  if (!(s->zeros = calloc((size_t)n, cis_dtype_size(t))))
    return cis_error(CIS_ERR_ALLOC, "cannot allocate a zero vector");
  snprintf(s->desc, sizeof s->desc, "%s%s%s", cis_operator_name(s->op),
           gpu && !o->cusparse ? " from format " : "",
           gpu && !o->cusparse ? (o->symmetric ? "csr (symmetric, upper triangle)" : o->format) : "");
  return CIS_OK;
}

/* ---- one configuration: repeated solves, energy window, true residual ------ */

typedef struct run_result {
  cis_status st;
  cis_krylov_info info;   /* the last run's */
  int runs;
  int64_t total_its;
  double ms_it;           /* median over the runs of loop seconds / iterations */
  double window_s, gpu_j, cpu_j; /* energy window: wall seconds and joules (NaN = n/a) */
  double host_cpu_s;      /* process CPU seconds over the window */
  char gpu_note[200], cpu_note[200]; /* why gpu_j / cpu_j are NaN ("" when measured) */
  double relres, xerr;    /* true relative residual, error vs x* (NaN = n/a) */
  char msg[400];          /* why it failed (without "cisparse: "), "" if it converged */
} run_result;

/* The one line for a solve that did not converge. */
static void end_message(const char *method, const cis_krylov_info *in, double tol, char *buf, size_t len) {
  const char *why;
  char tmp[200];
  switch (in->end) {
    case CIS_END_MAXIT:
      snprintf(tmp, sizeof tmp, "maxit: %d iterations reached with relative residual %.3g > tol %.3g (raise --maxit)",
               in->iterations, in->rel_residual, tol);
      why = tmp;
      break;
    case CIS_END_BREAK_RHO: /* each method's rho in its own terms */
      why = !strcmp(method, "cg") ? "breakdown: (r, M^-1 r) = 0 with r != 0, the Jacobi preconditioner M = diag(A) "
                                    "is not positive definite (CG needs an SPD preconditioner; try bicgstab)"
            : !strcmp(method, "bicg") ? "breakdown: rho = (z, r~) = 0"
                                      : "breakdown: rho = (r^, r) = 0";
      break;
    case CIS_END_BREAK_OMEGA: why = "breakdown: omega = (t, s) / (t, t) = 0"; break;
    case CIS_END_BREAK_RV:
      why = !strcmp(method, "bicg") ? "breakdown: (p~, q) = 0" : "breakdown: (r^, v) = 0";
      break;
    case CIS_END_BREAK_PAP:
      why = "breakdown: p^T A p <= 0, A is not positive definite (CG needs an SPD matrix; try bicgstab)";
      break;
    case CIS_END_STAGNATION:
      snprintf(tmp, sizeof tmp, "stagnation: the residual stopped decreasing (relative residual %.3g > tol %.3g)",
               in->rel_residual, tol);
      why = tmp;
      break;
    case CIS_END_NONFINITE: why = "NaN or Inf in the recurrence"; break;
    default: why = cis_krylov_end_name(in->end); break;
  }
  if (in->end == CIS_END_MAXIT || in->end == CIS_END_STAGNATION)
    snprintf(buf, len, "%s did not converge after %d iterations: %s", method, in->iterations, why);
  else
    snprintf(buf, len, "%s broke down in iteration %d: %s", method, in->iterations + 1, why);
}

/* 1 if st is how a solve reports ending without convergence (info->end set). */
static int is_end_status(cis_status st, const cis_krylov_info *in) {
  return (st == CIS_ERR_NOT_CONVERGED || st == CIS_ERR_BREAKDOWN || st == CIS_ERR_NUMERIC) &&
         in->end != CIS_END_CONVERGED;
}

/* The true relative residual and error of x in s (double, see the top). */
static cis_status true_residual(const problem *pb, opset *s, const void *x, double *relres, double *xerr) {
  cis_status st;
  cis_int n = pb->A->rows;
  double *x64;
  *relres = *xerr = NAN;
  if (s->t == CIS_F64)
    return cis_true_residual(s->op, s->b, x, s->xstar, relres, s->xstar ? xerr : NULL);
  if (!(x64 = malloc(sizeof(double) * (size_t)n))) return cis_error(CIS_ERR_ALLOC, "cannot allocate x in double");
  st = vec_to_host64(s, x, n, x64);
  if (st == CIS_OK) st = cis_true_residual(pb->host64, pb->b, x64, pb->xstar, relres, pb->xstar ? xerr : NULL);
  free(x64);
  return st;
}

/* Joules of one counter over the window, or NaN with the reason in note. */
static double window_joules(double before, double after, const char *why, double window, char *note, size_t len) {
  double j = after - before;
  note[0] = '\0';
  if (!isfinite(j)) snprintf(note, len, "%s", *why ? why : "counter unreadable");
  else if (window < ENERGY_MIN_WINDOW)
    snprintf(note, len, "the %.0f ms window is too short for the counter (>= %.2f s: --energy-seconds)",
             window * 1e3, ENERGY_MIN_WINDOW);
  else if (!(j > 0)) snprintf(note, len, "the counter did not advance over the %.2f s window", window);
  else return j;
  return NAN;
}

static void energy_window(run_result *r, cis_energy_sample e0, cis_energy_sample e1) {
  r->window_s = e1.seconds - e0.seconds;
  r->gpu_j = window_joules(e0.gpu_joules, e1.gpu_joules, cis_energy_gpu_why(), r->window_s, r->gpu_note,
                           sizeof r->gpu_note);
  r->cpu_j = window_joules(e0.cpu_joules, e1.cpu_joules, cis_energy_cpu_why(), r->window_s, r->cpu_note,
                           sizeof r->cpu_note);
}

/* Solve at least min_runs times and for at least min_seconds (energy window). */
static void run_config(const problem *pb, opset *s, const cis_krylov_opts *ko, int min_runs, double min_seconds,
                       run_result *r) {
  double *ms = malloc(sizeof(double) * MAX_RUNS), t0, c0;
  cis_energy_sample e0, e1;
  memset(r, 0, sizeof *r);
  r->ms_it = r->relres = r->xerr = r->gpu_j = r->cpu_j = NAN;
  if (!ms) {
    r->st = cis_error(CIS_ERR_ALLOC, "cannot allocate timings");
    snprintf(r->msg, sizeof r->msg, "%s", cis_last_error());
    return;
  }
  e0 = cis_energy_read(0);
  t0 = now_s();
  c0 = cpu_s();
  while (r->runs < MAX_RUNS) {
    if ((r->st = vec_reset(s, pb->A->rows, s->x)) != CIS_OK) break;
    memset(&r->info, 0, sizeof r->info);
    r->st = cis_krylov_solve(s->op, s->b, s->x, ko, &r->info);
    if (r->st != CIS_OK) break;
    ms[r->runs++] = r->info.iterations > 0 ? r->info.seconds * 1e3 / r->info.iterations : NAN;
    r->total_its += r->info.iterations;
    if (r->runs >= min_runs && now_s() - t0 >= min_seconds) break;
  }
  r->host_cpu_s = cpu_s() - c0;
  e1 = cis_energy_read(0);
  energy_window(r, e0, e1);
  if (r->st == CIS_OK) {
    r->ms_it = cis_median(ms, r->runs);
    r->st = true_residual(pb, s, s->x, &r->relres, &r->xerr);
    if (r->st == CIS_OK && !isfinite(r->relres))
      r->st = cis_error(CIS_ERR_NUMERIC, "the solve reported convergence but the true residual is %g", r->relres);
  }
  if (r->st != CIS_OK) {
    if (is_end_status(r->st, &r->info))
      end_message(cis_krylov_method_name(ko->method), &r->info, ko->tol, r->msg, sizeof r->msg);
    else
      snprintf(r->msg, sizeof r->msg, "%s", *cis_last_error() ? cis_last_error() : cis_status_name(r->st));
  }
  free(ms);
}

/* J per iteration of one counter over the window (NaN = n/a). */
static double per_it(double joules, const run_result *r) {
  return r->total_its > 0 && isfinite(joules) ? joules / (double)r->total_its : NAN;
}
/* The energy the device's counter measures: the GPU's for GPU runs, the CPU
 * package's for CPU runs. */
static double device_j(const run_result *r, int gpu) { return gpu ? r->gpu_j : r->cpu_j; }

/* ---- setup shared by the single solve and the sweep ----------------------- */

static int resolve_device(solve_opts *o) {
  char why[256] = "";
  int ngpu = cis_gpu_count(why, sizeof why);
  if (o->device == DEV_GPU && ngpu == 0) {
    fprintf(stderr, "cisparse: --device gpu: no usable GPU (%s)\n", why[0] ? why : "none found");
    return 1;
  }
  if (o->device == DEV_AUTO) {
    o->device = ngpu > 0 ? DEV_GPU : DEV_CPU;
    if (o->device == DEV_CPU) {
      const char *gpu_only = o->version >= 0 ? "--version" : o->sync >= 0 ? "--sync" : o->kernel ? "--kernel"
                           : o->cusparse ? "--cusparse" : NULL;
      if (gpu_only) {
        fprintf(stderr, "cisparse: %s needs a GPU: none is usable (%s)\n", gpu_only, why[0] ? why : "none found");
        return 1;
      }
    }
  }
  return 0;
}

/* --energy-seconds when not given: a 0.5 s window when the device's counter
 * (NVML on the GPU, RAPL on the CPU) can be read, else none. */
static double default_energy_seconds(int gpu) {
  cis_energy_sample e = cis_energy_read(0);
  return isfinite(gpu ? e.gpu_joules : e.cpu_joules) ? 0.5 : 0.0;
}

static cis_krylov_opts krylov_opts(const solve_opts *o, int method, int precond, int version) {
  cis_krylov_opts k = cis_krylov_opts_default();
  k.method = (cis_krylov_method)method;
  k.precond = (cis_precond)precond;
  if (version >= 0) k.version = (cis_solver_version)version;
  k.tol = o->tol;
  k.maxit = (int)o->maxit;
  k.check_every = (int)o->check_every;
  k.stagnation = (int)o->stagnation;
  return k;
}

static void print_energy(FILE *f, const run_result *r, int gpu) {
  double g = per_it(r->gpu_j, r), c = per_it(r->cpu_j, r), d = per_it(device_j(r, gpu), r);
  if (isfinite(g)) fprintf(f, "energy      GPU %.4g J per iteration (NVML, %.3f s window)\n", g, r->window_s);
  else fprintf(f, "energy      GPU n/a: %s\n", *r->gpu_note ? r->gpu_note : "no iterations");
  if (isfinite(c)) fprintf(f, "            CPU package %.4g J per iteration (RAPL)\n", c);
  else fprintf(f, "            CPU package n/a: %s\n", *r->cpu_note ? r->cpu_note : "no iterations");
  if (r->total_its > 0)
    fprintf(f, "host CPU    %.4f ms process CPU time per iteration (%.0f%% of one core over the window)\n",
            r->host_cpu_s * 1e3 / (double)r->total_its, r->window_s > 0 ? 100.0 * r->host_cpu_s / r->window_s : 0.0);
  if (isfinite(d) && r->window_s > 0)
    fprintf(f, "power       %.1f W average (%s, %d solve%s)\n", device_j(r, gpu) / r->window_s,
            gpu ? "GPU" : "CPU package", r->runs, r->runs == 1 ? "" : "s");
  else
    fprintf(f, "power       n/a\n");
}

static void json_energy(FILE *f, const run_result *r, int gpu) {
  double d = device_j(r, gpu);
  cli_json_num(f, "joules_per_iteration", per_it(d, r), "%.10g", ", ");
  cli_json_num(f, "gpu_joules_per_iteration", per_it(r->gpu_j, r), "%.10g", ", ");
  cli_json_num(f, "cpu_joules_per_iteration", per_it(r->cpu_j, r), "%.10g", ", ");
  cli_json_num(f, "average_power_w", isfinite(d) && r->window_s > 0 ? d / r->window_s : NAN, "%.10g", ", ");
  cli_json_num(f, "energy_window_s", r->window_s, "%.10g", ", ");
  cli_json_num(f, "host_cpu_ms_per_iteration", r->total_its > 0 ? r->host_cpu_s * 1e3 / (double)r->total_its : NAN, "%.10g", ", ");
  cli_json_str(f, "gpu_energy_note", r->gpu_note, ", ");
  cli_json_str(f, "cpu_energy_note", r->cpu_note, ", ");
}


/* ---- the single solve ----------------------------------------------------- */

static void json_head(FILE *f, const solve_opts *o, const problem *pb, const opset *s, int gpu, int method,
                      int precond, const char *version) {
  fprintf(f, "{");
  cli_json_str(f, "command", "solve", ", ");
  cli_json_str(f, "matrix", o->matrix, ", ");
  fprintf(f, "\"rows\": %lld, \"nnz\": %lld, ", (long long)pb->A->rows, (long long)pb->A->nnz);
  cli_json_str(f, "device", gpu ? "gpu" : "cpu", ", ");
  cli_json_str(f, "method", cis_krylov_method_name((cis_krylov_method)method), ", ");
  cli_json_str(f, "precond", precond_name(precond), ", ");
  cli_json_str(f, "version", version, ", ");
  if (gpu) cli_json_str(f, "sync", o->sync >= 0 ? sync_name(o->sync) : "default", ", ");
  else fprintf(f, "\"sync\": null, "); /* the host loop has no device sync mode */
  cli_json_str(f, "precision", precision_name(o->precision), ", ");
  cli_json_str(f, "operator", s->desc, ", ");
  cli_json_num(f, "tol", o->tol, "%.10g", ", ");
  fprintf(f, "\"maxit\": %lld, ", o->maxit);
}

/* The run's fields: status, iterations, residuals, time, energy, launches. */
static void json_run(FILE *f, const run_result *r, int gpu) {
  cli_json_str(f, "status", r->st == CIS_OK ? "converged"
                        : is_end_status(r->st, &r->info) ? cis_krylov_end_name(r->info.end) : "error", ", ");
  if (r->st != CIS_OK) cli_json_str(f, "error_message", r->msg, ", ");
  fprintf(f, "\"iterations\": %d, \"runs\": %d, ", r->info.iterations, r->runs);
  cli_json_num(f, "recurrence_relative_residual", r->info.rel_residual, "%.10g", ", ");
  cli_json_num(f, "true_relative_residual", r->relres, "%.10g", ", ");
  cli_json_num(f, "error", r->xerr, "%.10g", ", ");
  cli_json_num(f, "ms_per_iteration", r->ms_it, "%.10g", ", ");
  cli_json_num(f, "loop_seconds", r->info.seconds, "%.10g", ", ");
  cli_json_num(f, "setup_seconds", r->info.setup_seconds, "%.10g", ", ");
  json_energy(f, r, gpu);
  cli_json_num(f, "launches_per_iteration", gpu && r->st == CIS_OK ? r->info.launches_per_iteration : NAN, "%.10g", NULL);
}

static cis_status write_x(const solve_opts *o, const problem *pb, const opset *s, const void *x, FILE *out) {
  cis_status st;
  double *h = malloc(sizeof(double) * (size_t)pb->A->rows);
  if (!h) return cis_error(CIS_ERR_ALLOC, "cannot allocate a host copy of x");
  st = vec_to_host64(s, x, pb->A->rows, h);
  if (st == CIS_OK) st = cis_mm_write_vector(o->write_x, h, CIS_F64, pb->A->rows);
  free(h);
  if (st == CIS_OK) fprintf(out, "x           written to %s\n", o->write_x);
  return st;
}

static void print_run(FILE *out, const solve_opts *o, const run_result *r, int gpu) {
  fprintf(out, "iterations  %d (%s)\n", r->info.iterations, cis_krylov_end_name(r->info.end));
  fprintf(out, "true relative residual ||b - A x|| / ||b|| = %.3e (double; recurrence %.3e, tol %.3g)\n",
          r->relres, r->info.rel_residual, o->tol);
  if (r->relres > 10 * o->tol)
    fprintf(out, "note        the true residual is above 10 x tol: the recurrence residual drifted "
                 "from it (precision %s)\n", precision_name(o->precision));
  if (isfinite(r->xerr)) fprintf(out, "error       ||x - x*|| / ||x*|| = %.3e\n", r->xerr);
  else fprintf(out, "error       n/a (no x* with --rhs)\n");
  if (isfinite(r->ms_it))
    fprintf(out, "time        %.4f ms per iteration (%s%d run%s; loop %.3f ms, setup %.3f ms)\n", r->ms_it,
            r->runs > 1 ? "median of " : "", r->runs, r->runs > 1 ? "s" : "", r->info.seconds * 1e3,
            r->info.setup_seconds * 1e3);
  else
    fprintf(out, "time        n/a per iteration: no iterations (b = 0 or x0 already solves it)\n");
  print_energy(out, r, gpu);
  if (gpu) fprintf(out, "launches    %.2f kernel launches and library calls per iteration\n",
                   r->info.launches_per_iteration);
  else fprintf(out, "launches    n/a on the CPU\n");
}

/* --precision mixed: refinement in double around float inner solves
 * (cis_krylov_solve_mixed), then the plain double solve it is compared with. */
static int solve_mixed(const solve_opts *o, const problem *pb, const opset *s, const opset *s32,
                       const cis_krylov_opts *ko, int gpu, FILE *out) {
  run_result m, d;
  void *x = NULL;
  double t0, c0, solve_s;
  int outer = 0, rc = 1;
  cis_energy_sample e0, e1;
  cis_status st;
  memset(&m, 0, sizeof m);
  m.ms_it = m.relres = m.xerr = NAN;
  if ((st = vec_make(s->where, CIS_F64, NULL, pb->A->rows, &x)) != CIS_OK) return cli_fail(st);
  e0 = cis_energy_read(0);
  t0 = now_s();
  c0 = cpu_s();
  m.st = cis_krylov_solve_mixed(s->op, s32->op, s->b, x, ko, o->inner_tol, &m.info, &outer);
  m.host_cpu_s = cpu_s() - c0;
  solve_s = now_s() - t0;
  e1 = cis_energy_read(0);
  m.runs = 1;
  m.total_its = m.info.iterations;
  energy_window(&m, e0, e1); /* one solve: energy only when it lasts >= ENERGY_MIN_WINDOW */
  if (m.st == CIS_OK) {
    m.ms_it = m.info.iterations > 0 ? solve_s * 1e3 / m.info.iterations : NAN;
    m.st = true_residual(pb, (opset *)s, x, &m.relres, &m.xerr);
    if (m.st == CIS_OK && !isfinite(m.relres))
      m.st = cis_error(CIS_ERR_NUMERIC, "mixed precision reported convergence but the true residual is %g", m.relres);
  }
  if (m.st != CIS_OK) {
    if (is_end_status(m.st, &m.info))
      end_message("mixed-precision refinement", &m.info, o->tol, m.msg, sizeof m.msg);
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
    print_energy(out, &m, gpu);
    if (o->write_x && (st = write_x(o, pb, s, x, out)) != CIS_OK) rc = cli_fail(st);
  }
  vec_free(s->where, x);
  /* the plain double solve, for the iteration count */
  run_config(pb, (opset *)s, ko, (int)o->repeat, 0.0, &d);
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
    json_head(f, o, pb, s, gpu, ko->method, ko->precond, gpu ? cis_solver_version_name(ko->version) : "host");
    fprintf(f, "\"refinement_steps\": %d, \"inner_iterations\": %d, ", outer, m.info.iterations);
    cli_json_num(f, "inner_tol", o->inner_tol > 0 ? o->inner_tol : 1e-4, "%.10g", ", ");
    fprintf(f, "\"double\": {");
    json_run(f, &d, gpu);
    fprintf(f, "}, ");
    json_run(f, &m, gpu);
    fprintf(f, "}\n");
    if ((st = cli_json_close(&o->json, f)) != CIS_OK && rc == 0) rc = cli_fail(st);
  }
  return rc;
}

static int solve_single(const solve_opts *o, const problem *pb, FILE *out) {
  const int gpu = o->device == DEV_GPU, mixed = o->precision == PREC_MIXED;
  const cis_dtype t = o->precision == PREC_SINGLE ? CIS_F32 : CIS_F64;
  const int method = o->method < 0 ? CIS_CG : o->method, precond = o->precond < 0 ? 0 : o->precond;
  cis_krylov_opts ko = krylov_opts(o, method, precond, o->version);
  const char *vname = gpu ? cis_solver_version_name(ko.version) : "host";
  opset s = {0}, s32 = {0};
  run_result r;
  int rc = 1;
  cis_status st;

  if (gpu && o->sync >= 0 && (st = cis_gpu_set_sync_mode((cis_sync_mode)o->sync)) != CIS_OK) return cli_fail(st);
  if ((st = opset_make(o, pb, t, gpu, &s)) != CIS_OK) goto fail;
  if (mixed && (st = opset_make(o, pb, CIS_F32, gpu, &s32)) != CIS_OK) goto fail;
  fprintf(out, "matrix      %s (%lld rows, %lld nnz)\n", o->matrix, (long long)pb->A->rows, (long long)pb->A->nnz);
  fprintf(out, "solve       %s + %s, %s, %s, version %s%s%s, tol %.3g, maxit %lld\n",
          cis_krylov_method_name(ko.method), precond_name(precond), precision_name(o->precision), s.desc,
          gpu ? vname : "host (OpenMP)", gpu ? ", sync " : "", gpu ? (o->sync >= 0 ? sync_name(o->sync) : "default") : "",
          o->tol, o->maxit);
  if (o->rhs) fprintf(out, "rhs         %s (no x*: the error is n/a)\n", o->rhs);
  if (mixed) {
    rc = solve_mixed(o, pb, &s, &s32, &ko, gpu, out);
    goto done;
  }
  run_config(pb, &s, &ko, (int)o->repeat,
             isnan(o->energy_seconds) ? default_energy_seconds(gpu) : o->energy_seconds, &r);
  if (r.st != CIS_OK) {
    fprintf(stderr, "cisparse: %s\n", r.msg);
  } else {
    rc = 0;
    print_run(out, o, &r, gpu);
    if (o->write_x && (st = write_x(o, pb, &s, s.x, out)) != CIS_OK) goto fail;
  }
  if (o->json.path) {
    FILE *f = cli_json_open(&o->json, 0);
    if (!f) {
      st = CIS_ERR_IO;
      goto fail;
    }
    json_head(f, o, pb, &s, gpu, ko.method, precond, vname);
    json_run(f, &r, gpu);
    fprintf(f, "}\n");
    if ((st = cli_json_close(&o->json, f)) != CIS_OK) goto fail;
  }
  goto done;
fail:
  rc = cli_fail(st);
done:
  opset_free(&s);
  opset_free(&s32);
  return rc;
}

/* ---- the sweep (§4, Figure 4) --------------------------------------------- */

typedef struct sweep_row {
  int method, precond, version, sync;
  run_result r;
  double time_rel, energy_rel; /* against cublasL, spin, same solver and preconditioner */
} sweep_row;

/* Energy of a row for the relative column: GPU + CPU package when both are
 * measured (what the paper's meter saw: both supply lines), else the GPU's
 * (the CPU package's on the CPU); NaN if none. */
static double row_joules(const sweep_row *w, int gpu) {
  double g = per_it(w->r.gpu_j, &w->r), c = per_it(w->r.cpu_j, &w->r);
  if (!gpu) return c;
  return isfinite(g) && isfinite(c) ? g + c : g;
}

/* The sweep's JSON: the run, then one object per row. */
static cis_status write_sweep_json(const cli_json *j, const solve_opts *o, const problem *pb, const sweep_row *rows,
                                   int n, int gpu, int repeat, double min_s) {
  FILE *f = cli_json_open(j, 0);
  if (!f) return CIS_ERR_IO;
  fprintf(f, "{");
  cli_json_str(f, "command", "solve --sweep", ", ");
  cli_json_str(f, "matrix", o->matrix, ", ");
  fprintf(f, "\"rows\": %lld, \"nnz\": %lld, ", (long long)pb->A->rows, (long long)pb->A->nnz);
  cli_json_str(f, "device", gpu ? "gpu" : "cpu", ", ");
  cli_json_str(f, "precision", precision_name(o->precision), ", ");
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
    cli_json_str(f, "precond", precond_name(w->precond), ", ");
    cli_json_str(f, "version", gpu ? cis_solver_version_name(w->version) : "host", ", ");
    if (gpu) cli_json_str(f, "sync", sync_name(w->sync), ", ");
    else fprintf(f, "\"sync\": null, "); /* the host loop has no device sync mode */
    cli_json_num(f, "joules_per_iteration_total", row_joules(w, gpu), "%.10g", ", ");
    cli_json_num(f, "time_vs_cublasL_spin", w->time_rel, "%.10g", ", ");
    cli_json_num(f, "energy_vs_cublasL_spin", w->energy_rel, "%.10g", ", ");
    json_run(f, &w->r, gpu);
    fprintf(f, "}%s\n", i + 1 < n ? "," : "");
  }
  fprintf(f, "]}\n");
  return cli_json_close(j, f);
}

static int solve_sweep(const solve_opts *o, const problem *pb, FILE *out) {
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
  if (isnan(min_s)) min_s = default_energy_seconds(gpu);
  fprintf(out, "sweep       %s (%lld rows, %lld nnz), %s, %s%s, tol %.3g, maxit %lld\n", o->matrix,
          (long long)pb->A->rows, (long long)pb->A->nnz, precision_name(o->precision),
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
    if ((st = opset_make(o, pb, t, gpu, &s)) != CIS_OK) goto fail;
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
          ko = krylov_opts(o, m, p, gpu ? v : -1);
          if (p == CIS_PRECOND_JACOBI && pb->zero_diag >= 0) {
            memset(&w->r, 0, sizeof w->r);
            w->r.st = CIS_ERR_INVALID;
            w->r.ms_it = w->r.relres = w->r.xerr = w->r.gpu_j = w->r.cpu_j = NAN;
            snprintf(w->r.msg, sizeof w->r.msg, "jacobi: A(%lld,%lld) = 0", (long long)pb->zero_diag + 1,
                     (long long)pb->zero_diag + 1);
          } else {
            run_config(pb, &s, &ko, repeat, min_s, &w->r);
          }
          fprintf(stderr, "  %-8s %-6s %-8s %-8s %s\n", cis_krylov_method_name(m), precond_name(p),
                  gpu ? cis_solver_version_name(v) : "host", gpu ? sync_name(sync) : "-",
                  w->r.st == CIS_OK ? "done" : w->r.msg);
        }
      }
    }
    opset_free(&s);
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
      fprintf(out, "%-8s %-6s %-8s %-8s  %s\n", cis_krylov_method_name(w->method), precond_name(w->precond),
              gpu ? cis_solver_version_name(w->version) : "host", gpu ? sync_name(w->sync) : "-", w->r.msg);
      continue;
    }
    snprintf(a, sizeof a, isfinite(per_it(w->r.gpu_j, &w->r)) ? "%.4g" : "n/a", per_it(w->r.gpu_j, &w->r));
    snprintf(b, sizeof b, isfinite(per_it(w->r.cpu_j, &w->r)) ? "%.4g" : "n/a", per_it(w->r.cpu_j, &w->r));
    snprintf(c, sizeof c, isfinite(w->time_rel) ? "%+.1f%%" : "n/a", 100.0 * (w->time_rel - 1));
    snprintf(d, sizeof d, isfinite(w->energy_rel) ? "%+.1f%%" : "n/a", 100.0 * (w->energy_rel - 1));
    snprintf(e, sizeof e, gpu ? "%.1f" : "n/a", w->r.info.launches_per_iteration);
    fprintf(out, "%-8s %-6s %-8s %-8s %6d %10.4f %10.4f %10s %10s %8s %8s %7s %.1e\n",
            cis_krylov_method_name(w->method), precond_name(w->precond),
            gpu ? cis_solver_version_name(w->version) : "host", gpu ? sync_name(w->sync) : "-", w->r.info.iterations,
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
  opset_free(&s);
  free(rows);
  return rc;
}

int cis_cmd_solve(int argc, char **argv) {
  solve_opts o;
  problem pb;
  cis_status st;
  FILE *out;
  int rc, need_t;
  if (cli_dist_wanted(argc, argv)) return cli_dist_solve(argc, argv); /* --gpus N: cmd_dist.c */
  memset(&o, 0, sizeof o);
  o.method = o.precond = o.version = o.sync = -1;
  o.tol = 1e-8;
  o.maxit = 1000;
  o.repeat = 1;
  o.energy_seconds = NAN; /* not given */
  o.format = "auto";
  o.fp = cis_format_params_default();
  if ((rc = parse(argc, argv, &o))) return rc < 0 ? 0 : rc;
  if (cli_parse_only) return 0;
  if ((rc = resolve_device(&o))) return rc;
  out = cli_json_stdout(&o.json) ? stderr : stdout;
  need_t = o.sweep ? (o.method < 0 || o.method == CIS_BICG) : o.method == CIS_BICG;
  if ((st = problem_make(&o, need_t, &pb)) != CIS_OK) {
    rc = cli_fail(st);
    problem_free(&pb);
    return rc;
  }
  if (!o.sweep && o.precond == CIS_PRECOND_JACOBI && pb.zero_diag >= 0) {
    fprintf(stderr, "cisparse: --precond jacobi: %s has a zero diagonal entry A(%lld,%lld) (1-based): "
                    "use --precond none\n", o.matrix, (long long)pb.zero_diag + 1, (long long)pb.zero_diag + 1);
    problem_free(&pb);
    return 1;
  }
  rc = o.sweep ? solve_sweep(&o, &pb, out) : solve_single(&o, &pb, out);
  problem_free(&pb);
  return rc;
}
