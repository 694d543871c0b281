/* solve.h: the pieces `cisparse solve` (cmd_solve.c) and the paper's sweep
 * (`cisparse bench MATRIX --solvers`, bench_sweep.c) share: the options, the
 * problem (x* = ones, b = A x*, x0 = 0), one precision's operators and
 * vectors, one configuration's repeated solves with their energy window
 * (solve_ops.c; the windows: bench_energy.c) and the report (solve_report.c). */
#ifndef CISPARSE_CLI_SOLVE_H
#define CISPARSE_CLI_SOLVE_H

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

typedef struct solve_opts {
  const char *cmd, *usage; /* "solve" or "bench" (--solvers): the name in usage errors; the --help text */
  const char *matrix, *format, *kernel, *cusparse, *rhs, *write_x, *plot;
  cli_json json;
  int device, precision, sweep;
  int method, precond, version, sync; /* -1: not given */
  double tol, inner_tol, energy_seconds;
  long long maxit, repeat, check_every, stagnation;
  int format_given, repeat_given, symmetric;
  cis_format_params fp;
} solve_opts;


/* argv (argv[0] the command's name) into *o, whose defaults and cmd, usage
 * and sweep the caller set (sweep: bench --solvers, which also takes --plot);
 * each value checked as it enters, then the options against each other.
 * 0 ok, -1 after --help (o->usage printed), 2 after a usage error. */
int solve_parse(int argc, char **argv, solve_opts *o);
/* *o's defaults (method, preconditioner, version, sync: -1, not given; tol
 * 1e-8; maxit 1000; repeat 1; energy seconds NaN, not given; format auto),
 * cmd and usage as solve_parse prints them. */
void solve_opts_init(solve_opts *o, const char *cmd, const char *usage);

typedef struct problem {
  cis_csr *A, *At;       /* double */
  double *b, *xstar;     /* host double; xstar NULL with --rhs */
  double *diag;
  cis_int zero_diag;     /* first row with A(i,i) = 0, -1 if none */
  cis_operator *host64;  /* cis_operator_from_csr(A): the true residual of single-precision solves */
} problem;
/* Free what solve_problem_make made (pb may be half made). */
void solve_problem_free(problem *pb);
/* A, b (= A*ones, or --rhs), x* (NULL with --rhs), diag(A) and its first zero,
 * A^T when need_transpose, and a host double operator (pb zeroed first):
 * CIS_OK, or the loader's / a one-line status for a non-square, empty or
 * non-finite problem. */
cis_status solve_problem_make(const solve_opts *o, int need_transpose, problem *pb);

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
/* One precision's operators (A and, for BiCG, A^T: a CPU format, the
 * symmetric upper triangle, a GPU plan or cuSPARSE, as the options say) and
 * vectors b, x, x*, in the device's memory (s zeroed first); CIS_OK or the
 * failing call's status. solve_opset_free frees what it made. */
cis_status solve_opset_make(const solve_opts *o, const problem *pb, cis_dtype t, int gpu, opset *s);
void solve_opset_free(opset *s);
/* A vector of n values of type t in `where`, from host doubles (NULL:
 * zeros); solve_vec_free frees it. */
cis_status solve_vec_make(cis_memspace where, cis_dtype t, const double *src, cis_int n, void **out);
void solve_vec_free(cis_memspace where, void *p);
/* x (the set's dtype and space) -> n host doubles. */
cis_status solve_vec_to_host64(const opset *s, const void *x, cis_int n, double *dst);

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

/* The one line for a solve that did not converge, into buf. */
void solve_end_message(const char *method, const cis_krylov_info *in, double tol, char *buf, size_t len);
/* 1 if st is how a solve reports ending without convergence (info->end set). */
int solve_is_end_status(cis_status st, const cis_krylov_info *in);
/* The true relative residual and error of x in s (in double: the solve's
 * operator for double, the host CSR for single). */
cis_status solve_true_residual(const problem *pb, opset *s, const void *x, double *relres, double *xerr);
/* Solve at least min_runs times and for at least min_seconds (the energy
 * window), into *r: the median ms per iteration, the window's joules, the
 * true residual; r->st and r->msg say how it ended. */
void solve_run_config(const problem *pb, opset *s, const cis_krylov_opts *ko, int min_runs, double min_seconds,
                      run_result *r);
/* --device auto resolved (gpu when one is usable); 1 with one line printed
 * when a GPU is asked for or a GPU-only option is given and none is usable. */
int solve_resolve_device(solve_opts *o);
/* The Krylov options of one configuration (version -1: the default). */
cis_krylov_opts solve_krylov_opts(const solve_opts *o, int method, int precond, int version);
/* Names as the report and the JSON print them. */
const char *solve_precond_name(int p);
const char *solve_sync_name(int s);
const char *solve_precision_name(int p);

/* The report (solve_report.c): the JSON object's opening and the run's
 * settings; the run's fields (status, iterations, residuals, time, energy,
 * launches); --write-x (a line on out); the text report of one run. */
void solve_json_head(FILE *f, const solve_opts *o, const problem *pb, const opset *s, int gpu, int method,
                     int precond, const char *version);
void solve_json_run(FILE *f, const run_result *r, int gpu);
cis_status solve_write_x(const solve_opts *o, const problem *pb, const opset *s, const void *x, FILE *out);
void solve_print_run(FILE *out, const solve_opts *o, const run_result *r, int gpu);
/* --precision mixed (solve_mixed.c): refinement in double around float
 * inner solves, then the plain double solve it is compared with; the exit
 * status (0 converged, 1 with one line printed). */
int solve_mixed(const solve_opts *o, const problem *pb, const opset *s, const opset *s32, const cis_krylov_opts *ko,
                int gpu, FILE *out);

/* The energy windows (bench_energy.c): NVML's and RAPL's counters read
 * around a configuration's solves. */
/* Monotonic wall seconds; CPU seconds of this process (all threads: what
 * the host spends waiting for the device, polling vs blocking). */
double bench_wall_s(void);
double bench_cpu_s(void);
/* r's window (seconds, GPU and CPU joules, or NaN with the reason in the
 * notes) from two readings. */
void bench_energy_window(run_result *r, cis_energy_sample e0, cis_energy_sample e1);
/* J per iteration of one counter over the window (NaN = n/a). */
double bench_per_it(double joules, const run_result *r);
/* --energy-seconds when not given: a 0.5 s window when the device's counter
 * (NVML on the GPU, RAPL on the CPU) can be read, else none. */
double bench_default_energy_seconds(int gpu);
/* The energy lines of the text report; the energy fields of the JSON. */
void bench_print_energy(FILE *f, const run_result *r, int gpu);
void bench_json_energy(FILE *f, const run_result *r, int gpu);

#endif
