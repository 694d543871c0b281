/* cmd_bench.c: `cisparse bench` -- time every SpMV kernel and every cuSPARSE
 * baseline on one matrix (the paper's Tables 6-10, the SELL report's slice
 * study). On a GPU: the device's streaming read bandwidth is measured in the
 * same run; each kernel: median of >= runs CUDA-event timings after warm-up,
 * y = A*x (beta = 0), GFLOP/s = 2*nnz/t, GB/s = (format bytes + x once + y
 * once)/t, % of the measured bandwidth, speedup over the fastest cuSPARSE
 * algorithm, relative error against cis_csr_spmv in double (one more run on
 * a NaN-poisoned y). x is not rotated: it is read through the cache by every
 * kernel alike and is small beside the matrix (both sizes are printed, and a
 * matrix that fits in L2 is flagged). Without a GPU: the CPU kernels of every
 * format (OpenMP), wall-clock median, and the output says so. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "cli/bench.h"
#include "cli/bench_spmm.h"
#include "cli/run.h"


typedef struct entry {
  char label[48];
  const char *format, *kernel, *cus_alg;
  int block;
  cis_int slice;
  int float_values; /* sell16-f32v: float values, double vectors */
} entry;

typedef struct opts {
  const char *matrix, *kernels, *csv, *plot;
  cli_json json;
  cis_dtype t;
  long long runs, warmup;
  int sweep_block, sweep_slice, symmetric;
  long long spmm;
} opts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: cisparse bench FILE|SPEC [--precision double|float] [--runs 50] [--warmup 5]\n"
          "       [--kernels a,b,...] [--sweep-block] [--sweep-slice] [--csv FILE] [--json [FILE]]\n"
          "       [--plot PREFIX] [--symmetric] [--spmm K]\n"
          "matrix: a file, a generator spec, or an FCIDUMP file (its full-CI Hamiltonian, built on the host)\n"
          "  --precision P    values and vectors in double (default) or float\n"
          "  --runs N         timed runs per kernel, the median reported (default 50; 10 by `run` on the CPU)\n"
          "  --warmup N       untimed runs first (default 5)\n"
          "  --kernels LIST   only these (names below; on the CPU the format names)\n"
          "  --sweep-block    GPU: also hyb-paper at every block size (Algorithm 7); not run on the CPU\n"
          "  --sweep-slice    GPU: also sell at every slice size S; not run on the CPU\n"
          "  --csv FILE       the table as CSV (empty where a value does not apply)\n"
          "  --json [FILE]    the table as JSON (ms per SpMV, GB/s; null where a value does not apply:\n"
          "                   pct_bw without a measured bandwidth, speedup_vs_cusparse without cuSPARSE)\n"
          "                   in FILE (--json=FILE, or a word after --json beside the matrix), or alone on\n"
          "                   stdout (no FILE, or '-'; the table and the rest then on stderr)\n"
          "  --plot PREFIX    PREFIX_*.png through `python3 -m cisparse.plot spmv JSON PREFIX` (needs the\n"
          "                   Python package and matplotlib; else a \"plot: not run\" line with that command)\n"
          "  --symmetric      GPU: also csr-sym, csr-sym-det, csr-sym-win and sym-seg (upper triangle; refused\n"
          "                   if A is not symmetric); on the CPU only the check\n"
          "  --spmm K         GPU: SpMM for k = 1, 2, 4, ... K (K <= 16) beside cuSPARSE SpMM; not run on the CPU\n"
          "kernels: csr-scalar csr-vector ell ellr sell sell-row sellr sellcs sellcs-row sell16 csb csr5\n"
          "         sell16-f32v (sell16, float values, double vectors and sums: only when named, double runs)\n"
          "         hyb-paper hyb auto (cis_format_auto's choice)\n"
          "         cusparse-csr-alg1 cusparse-csr-alg2 cusparse-coo-alg1 cusparse-coo-alg2\n"
          "         cusparse-sell-alg1 cusparse-bsr\n"
          "       cisparse bench FILE|SPEC --gpus N | --cpu-parts N [--format F] [--kernel K]\n"
          "       [--exchange auto|allgather|p2p|gather] [--runs 50]: the distributed SpMV over N GPUs\n"
          "       (NCCL, N = 0: all) or N CPU parts, with its exchange volume and time share;\n"
          "       `mpirun -np N cisparse bench ... --mpi [--device cpu|gpu]`: one part per process\n"
          "       cisparse bench FILE|SPEC --solvers [solve's options] [--plot PREFIX]: the paper's Figure-4\n"
          "       grid of CG, BiCG, BiCGStab (time and energy per iteration; cisparse bench --solvers --help)\n");
}

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->t = CIS_F64;
  o->runs = 50;
  o->warmup = 5;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
    if (cli_stray_value(argv, i)) return 2;
    if ((rc = cli_json_option(argc, argv, &i, &o->json)) >= 0) {
      if (rc) return rc;
      continue;
    }
    rc = 0;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return -1; }
    else if (!strcmp(a, "--precision")) rc = cli_dtype(v, &o->t), i++;
    else if (!strcmp(a, "--runs")) rc = cli_int(a, v, &o->runs), i++;
    else if (!strcmp(a, "--warmup")) rc = cli_int(a, v, &o->warmup), i++;
    else if (!strcmp(a, "--kernels")) o->kernels = v, i++;
    else if (!strcmp(a, "--csv")) o->csv = v, i++;
    else if (!strcmp(a, "--plot")) o->plot = v, i++;
    else if (!strcmp(a, "--sweep-block")) o->sweep_block = 1;
    else if (!strcmp(a, "--sweep-slice")) o->sweep_slice = 1;
    else if (!strcmp(a, "--symmetric")) o->symmetric = 1;
    else if (!strcmp(a, "--spmm")) rc = cli_int(a, v, &o->spmm), i++;
    else if (a[0] == '-') return cli_usage("bench: unknown option '%s' (see --help)", a);
    else if (o->matrix) return cli_usage("bench: one matrix only ('%s' and '%s')", o->matrix, a);
    else o->matrix = a;
    if (rc) return rc;
    if ((!strcmp(a, "--kernels") || !strcmp(a, "--csv") || !strcmp(a, "--plot")) && !v)
      return cli_usage("%s needs a value", a);
  }
  cli_json_settle(&o->json, &o->matrix);
  if (!o->matrix) { usage(stderr); return 2; }
  if (o->runs < 1 || o->runs > 100000) return cli_usage("--runs must be 1..100000, got %lld", o->runs);
  if (o->warmup < 0 || o->warmup > 100000) return cli_usage("--warmup must be 0..100000, got %lld", o->warmup);
  if (o->spmm < 0 || o->spmm > 16) return cli_usage("--spmm must be 1..16 vectors, got %lld", o->spmm);
  return 0;
}

/* 1 if label is in the comma-separated list (NULL list = all). */
static int selected(const char *list, const char *label) {
  size_t n = strlen(label);
  if (!list) return 1;
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, label, n)) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

static int add(entry *E, int n, const char *label, const char *format, const char *kernel,
               const char *cus, int block, cis_int slice) {
  snprintf(E[n].label, sizeof E[n].label, "%s", label);
  E[n].format = format;
  E[n].kernel = kernel;
  E[n].cus_alg = cus;
  E[n].block = block;
  E[n].slice = slice;
  E[n].float_values = 0;
  return n + 1;
}

/* The kernel list: every kernel, every cuSPARSE algorithm, then the sweeps. */
static int entries(const opts *o, entry *E) {
  static const char *fk[][2] = {{"csr", "csr-scalar"}, {"csr", "csr-vector"}, {"ell", "ell"},
                                {"ellr", "ellr"},      {"sell", "sell"},       {"sell", "sell-row"},
                                {"sellr", "sellr"},    {"sellcs", "sellcs"},   {"sellcs", "sellcs-row"},
                                {"sell16", "sell16"},  {"csb", "csb"},         {"csr5", "csr5"},
                                {"hyb", "hyb-paper"},  {"hyb", "hyb"}};
  static const char *cus[] = {"csr-alg1", "csr-alg2", "coo-alg1", "coo-alg2", "sell-alg1", "bsr"};
  char label[48];
  int n = 0;
  if (o->symmetric) { /* always, whatever --kernels selects */
    for (int k = 0; k < CLI_SYM_KERNELS; ++k)
      n = add(E, n, cli_sym_kernels[k], "csr-sym", cli_sym_kernels[k], NULL, 0, 0);
  }
  for (size_t k = 0; k < sizeof fk / sizeof *fk; ++k)
    if (selected(o->kernels, fk[k][1])) n = add(E, n, fk[k][1], fk[k][0], fk[k][1], NULL, 0, 0);
  if (o->kernels && selected(o->kernels, "sell16-f32v") && o->t == CIS_F64) { /* opt-in: named only, never in "all" */
    n = add(E, n, "sell16-f32v", "sell16", "sell16", NULL, 0, 0);
    E[n - 1].float_values = 1;
  }
  if (selected(o->kernels, "auto")) n = add(E, n, "auto", "auto", NULL, NULL, 0, 0);
  for (size_t k = 0; k < sizeof cus / sizeof *cus; ++k) {
    snprintf(label, sizeof label, "cusparse-%s", cus[k]);
    if (selected(o->kernels, label)) n = add(E, n, label, "cusparse", NULL, cus[k], 0, 0);
  }
  for (int b = 16; o->sweep_block && b <= 1024; b *= 2)
    n = add(E, n, "hyb-paper", "hyb", "hyb-paper", NULL, b, 0);
  for (int f = 0; f < 2; ++f)
    for (int s = 16; o->sweep_slice && s <= 1024; s *= 2) {
      snprintf(label, sizeof label, "%s S=%d", f ? "sellcs" : "sell", s);
      n = add(E, n, label, f ? "sellcs" : "sell", f ? "sellcs" : "sell", NULL, 0, s);
    }
  return n;
}

static double rel_err(const void *y, cis_dtype t, const double *ref, cis_int n) {
  double num = 0, den = 0;
  for (cis_int i = 0; i < n; ++i) {
    double u = t == CIS_F64 ? ((const double *)y)[i] : ((const float *)y)[i];
    if (!isfinite(u)) return INFINITY;
    num += (u - ref[i]) * (u - ref[i]);
    den += ref[i] * ref[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void fill_row(bench_row *w, const cis_csr *A, cis_dtype t, double ms, cis_int mbytes) {
  size_t vs = cis_dtype_size(t);
  w->ms = ms;
  w->matrix_bytes = mbytes;
  w->bytes = mbytes + (A->cols + A->rows) * (cis_int)vs;
  w->gflops = 2.0 * (double)A->nnz / (ms * 1e-3) / 1e9;
  w->gbs = (double)w->bytes / (ms * 1e-3) / 1e9;
}

typedef struct ctx {
  const cis_csr *A;
  const cis_csr *U; /* --symmetric: the upper triangle in the run's dtype */
  cis_dtype t;
  const opts *o;
  const double *ref;
  void *hy, *dx, *dy;
} ctx;

/* One GPU row: build, upload, time, check. A failure becomes the row's note. */
static void gpu_row(const ctx *c, const entry *e, bench_row *w) {
  cis_format_params fp = cis_format_params_default();
  cis_matrix *M = NULL;
  cis_gpu_plan *p = NULL;
  cis_status st;
  double ms = 0;
  size_t vs = cis_dtype_size(c->t);
  fp.dtype = c->t;
  if (e->slice) fp.slice = e->slice;
  fp.float_values = e->float_values;
  if (e->cus_alg) {
    st = cis_gpu_plan_create_cusparse(c->A, c->t, e->cus_alg, &p);
  } else if (!strcmp(e->format, "csr-sym")) {
    st = cis_gpu_plan_create_symmetric(c->U, e->kernel, e->block, &p);
  } else if (!strcmp(e->format, "auto")) { /* cis_format_auto's choice, named in the label */
    cis_format_choice ch;
    st = cis_format_auto(c->A, c->t, &ch);
    if (st == CIS_OK) st = cis_matrix_create(c->A, ch.format, &ch.params, &M);
    if (st == CIS_OK) st = cis_gpu_plan_create(M, ch.kernel, 0, &p);
    if (st == CIS_OK) snprintf(w->label, sizeof w->label, "auto (%s)", ch.kernel);
    cis_matrix_free(M);
  } else {
    st = cis_matrix_create(c->A, e->format, &fp, &M);
    if (st == CIS_OK) st = cis_gpu_plan_create(M, e->kernel, e->block, &p);
    cis_matrix_free(M); /* the device copy is all the timing needs */
  }
  if (st == CIS_OK) st = cis_gpu_time_spmv(p, c->dx, 0.0, c->dy, (int)c->o->warmup, (int)c->o->runs, &ms);
  if (st == CIS_OK) st = cis_gpu_fill_nan(c->dy, c->t, c->A->rows);
  if (st == CIS_OK) st = cis_gpu_spmv(p, 1.0, c->dx, 0.0, c->dy, NULL);
  if (st == CIS_OK) st = cis_gpu_sync();
  if (st == CIS_OK) st = cis_gpu_download(c->hy, c->dy, vs * (size_t)c->A->rows);
  if (st == CIS_OK) {
    fill_row(w, c->A, c->t, ms, cis_gpu_plan_bytes(p));
    w->rel_err = rel_err(c->hy, c->t, c->ref, c->A->rows);
  } else {
    snprintf(w->note, sizeof w->note, "not run: %s", cis_last_error());
  }
  cis_gpu_plan_free(p);
}

/* One CPU row: the format's OpenMP SpMV, wall-clock median. */
static void cpu_row(const ctx *c, const char *format, bench_row *w) {
  cis_format_params fp = cis_format_params_default();
  cis_matrix *M = NULL;
  cis_status st;
  double *ms = NULL;
  fp.dtype = c->t;
  cis_format_choice ch;
  if (!strcmp(format, "auto") && cis_format_auto_cpu(c->A, c->t, &ch) == CIS_OK) { /* the CPU rule's pick */
    format = ch.format;
    fp = ch.params;
    fp.dtype = c->t;
    snprintf(w->label, sizeof w->label, "auto (%s)", ch.format);
  }
  st = cis_matrix_create(c->A, format, &fp, &M);
  if (st == CIS_OK && !(ms = malloc(sizeof(double) * (size_t)c->o->runs)))
    st = cis_error(CIS_ERR_ALLOC, "cannot allocate timings");
  for (long long r = 0; st == CIS_OK && r < c->o->warmup; ++r)
    st = cis_matrix_spmv(M, 1.0, c->dx, 0.0, c->hy);
  for (long long r = 0; st == CIS_OK && r < c->o->runs; ++r) {
    double t0 = cis_wtime();
    st = cis_matrix_spmv(M, 1.0, c->dx, 0.0, c->hy);
    ms[r] = (cis_wtime() - t0) * 1e3;
  }
  if (st == CIS_OK) {
    for (long long i = 1; i < c->o->runs; ++i) /* insertion sort: runs is small */
      for (long long j = i; j > 0 && ms[j - 1] > ms[j]; --j) {
        double s = ms[j]; ms[j] = ms[j - 1]; ms[j - 1] = s;
      }
    long long n = c->o->runs;
    fill_row(w, c->A, c->t, n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]), cis_matrix_bytes(M));
    w->rel_err = rel_err(c->hy, c->t, c->ref, c->A->rows);
  } else {
    snprintf(w->note, sizeof w->note, "not run: %s", cis_last_error());
  }
  free(ms);
  cis_matrix_free(M);
}

/* Speedup of every row over the fastest cuSPARSE algorithm (0 if none ran). */
static void speedups(bench_run *r) {
  double best = 0;
  for (int i = 0; i < r->n; ++i)
    if (r->rows_out[i].is_cusparse && !r->rows_out[i].note[0] && (best == 0 || r->rows_out[i].ms < best))
      best = r->rows_out[i].ms;
  for (int i = 0; i < r->n; ++i)
    if (best > 0 && !r->rows_out[i].note[0]) r->rows_out[i].speedup = best / r->rows_out[i].ms;
}

static cis_status gpu_context(ctx *c, bench_run *r, const cis_gpu_info *info) {
  size_t vs = cis_dtype_size(c->t);
  size_t probe = (size_t)4 << 30;
  cis_status st;
  if ((size_t)info->free_mem / 3 < probe) probe = (size_t)info->free_mem / 3;
  snprintf(r->device, sizeof r->device, "%s (%d SMs, %.0f MB L2, CUDA driver %d.%d, runtime %d.%d)",
           info->name, info->sm_count, info->l2_bytes / 1e6, info->driver_version / 1000,
           info->driver_version % 1000 / 10, info->runtime_version / 1000,
           info->runtime_version % 1000 / 10);
  if ((st = cis_gpu_read_bandwidth(probe, 20, &r->bw_gbs)) != CIS_OK) return st;
  if ((st = cis_gpu_malloc(&c->dx, vs * (size_t)(c->A->cols ? c->A->cols : 1))) != CIS_OK) return st;
  if ((st = cis_gpu_upload(c->dx, c->hy, vs * (size_t)c->A->cols)) != CIS_OK) return st;
  return cis_gpu_malloc(&c->dy, vs * (size_t)(c->A->rows ? c->A->rows : 1));
}

/* Measure every selected kernel on A into r (r->rows_out allocated here). */
static cis_status bench_matrix(const opts *o, const cis_csr *A, bench_run *r) {
  cis_status st = CIS_OK;
  cis_gpu_info info;
  entry *E = NULL;
  double *xd = NULL, *ref = NULL;
  char why[120];
  int ne = 0;
  size_t vs = cis_dtype_size(o->t);
  cis_csr *U64 = NULL, *U = NULL;
  ctx c = {A, NULL, o->t, o, NULL, NULL, NULL, NULL};
  if (o->symmetric) { /* refused here, before any timing, if A is not symmetric */
    CIS_TRY(cis_csr_upper_symmetric(A, CLI_SYM_TOL, &U64));
    CIS_TRY(cis_csr_copy(U64, o->t, &U));
    c.U = U;
    printf("symmetric storage: upper triangle %lld of %lld nonzeros\n", (long long)U->nnz, (long long)A->nnz);
  }
  r->rows = A->rows;
  r->cols = A->cols;
  r->nnz = A->nnz;
  r->dtype = o->t;
  r->runs = (int)o->runs;
  r->warmup = (int)o->warmup;
  r->gpu = cis_gpu_count(why, sizeof why) > 0;
  E = calloc(64, sizeof *E);
  xd = malloc(sizeof(double) * (size_t)(A->cols + 1));
  ref = malloc(sizeof(double) * (size_t)(A->rows + 1));
  c.hy = malloc(vs * (size_t)((A->rows > A->cols ? A->rows : A->cols) + 1));
  c.ref = ref;
  if (!E || !xd || !c.hy || !ref) {
    st = cis_error(CIS_ERR_ALLOC, "bench: cannot allocate vectors for %lld rows", (long long)A->rows);
    goto cleanup;
  }
  /* x: fixed values of the run's precision; the reference in double from the same x */
  for (cis_int j = 0; j < A->cols; ++j) {
    cis_set(c.hy, o->t, j, sin(0.7 * (double)j + 0.3));
    xd[j] = cis_get(c.hy, o->t, j);
  }
  CIS_TRY(cis_csr_spmv(A, 1.0, xd, 0.0, ref));
  if (r->gpu) {
    CIS_TRY(cis_gpu_get_info(&info));
    CIS_TRY(gpu_context(&c, r, &info));
    ne = entries(o, E);
    printf("GPU %s\nx: one vector (%.2f MB), not rotated; matrix CSR %.1f MB; L2 %.0f MB%s\n",
           r->device, (double)A->cols * vs / 1e6, (double)A->nnz * (vs + 4) / 1e6,
           info.l2_bytes / 1e6,
           (double)A->nnz * (vs + 4) < 2.0 * info.l2_bytes
               ? " -- the matrix fits in L2: these timings measure the cache, not DRAM" : "");
  } else {
    snprintf(r->device, sizeof r->device, "no GPU (%s): CPU kernels, OpenMP %d threads, wall clock",
             why, omp_get_max_threads());
    if (!(c.dx = malloc(vs * (size_t)(A->cols + 1)))) {
      st = cis_error(CIS_ERR_ALLOC, "bench: cannot allocate x");
      goto cleanup;
    }
    memcpy(c.dx, c.hy, vs * (size_t)A->cols);
    for (int i = 0; i < cis_format_count() && ne < 64; ++i)
      if (selected(o->kernels, cis_format_name(i)))
        ne = add(E, ne, cis_format_name(i), cis_format_name(i), NULL, NULL, 0, 0);
    if (selected(o->kernels, "auto")) ne = add(E, ne, "auto", "auto", NULL, NULL, 0, 0); /* cis_format_auto_cpu's pick */
  }
  if (ne == 0) {
    st = cis_error(CIS_ERR_INVALID, "bench: --kernels '%s' selects nothing", o->kernels);
    goto cleanup;
  }
  if (!(r->rows_out = calloc((size_t)ne, sizeof *r->rows_out))) {
    st = cis_error(CIS_ERR_ALLOC, "bench: cannot allocate results");
    goto cleanup;
  }
  for (int i = 0; i < ne; ++i) {
    bench_row *w = &r->rows_out[i];
    snprintf(w->label, sizeof w->label, "%s", E[i].label);
    snprintf(w->format, sizeof w->format, "%s", E[i].format);
    w->block = E[i].block;
    w->is_cusparse = E[i].cus_alg != NULL;
    if (r->gpu) gpu_row(&c, &E[i], w); else cpu_row(&c, E[i].format, w);
    if (!w->note[0] && r->gpu) w->pct_bw = 100.0 * w->gbs / r->bw_gbs;
    fprintf(stderr, "  %-22s %s\n", w->label, w->note[0] ? w->note : "done");
    r->n = i + 1;
  }
  speedups(r);
  if (r->gpu && U) {
    bench_print_table(stdout, r);
    r->printed = 1;
    cli_bench_determinism(U, o->t, c.dx, c.dy);
  }
  if (!r->gpu) { /* the GPU-only options: each said, none dropped without a word */
    const char *gpu_only[] = {o->spmm > 0 ? "--spmm" : NULL, o->sweep_block ? "--sweep-block" : NULL,
                              o->sweep_slice ? "--sweep-slice" : NULL};
    for (int k = 0; k < 3; ++k)
      if (gpu_only[k]) printf("%s not run: needs a GPU (%s)\n", gpu_only[k], why);
    if (U) printf("--symmetric: the matrix checked symmetric; its kernels not run: they need a GPU (%s)\n", why);
  }
  if (r->gpu && o->spmm > 0) {
    if (!r->printed) bench_print_table(stdout, r);
    r->printed = 1;
    CIS_TRY(cli_bench_spmm(A, U, o->t, (int)o->spmm, (int)o->warmup, (int)o->runs));
  }
cleanup:
  cis_csr_free(U64);
  cis_csr_free(U);
  if (r->gpu) {
    cis_gpu_free(c.dx);
    cis_gpu_free(c.dy);
  } else {
    free(c.dx);
  }
  free(E);
  free(xd);
  free(ref);
  free(c.hy);
  return st;
}

int cli_bench_compare(const cis_csr *A, const char *name, cis_dtype t) {
  opts o;
  bench_run r;
  cis_status st;
  memset(&o, 0, sizeof o);
  memset(&r, 0, sizeof r);
  o.matrix = name;
  o.t = t;
  o.runs = cis_gpu_count(NULL, 0) > 0 ? 50 : 10; /* the CPU fallback: 10 wall-clock runs */
  o.warmup = o.runs == 50 ? 5 : 1;
  r.matrix = name;
  snprintf(r.command, sizeof r.command, "cisparse run (%s)", name);
  st = bench_matrix(&o, A, &r);
  if (st == CIS_OK) bench_print_table(stdout, &r);
  free(r.rows_out);
  return st == CIS_OK ? 0 : cli_fail(st);
}

int cli_run_table9(const cis_csr *A, const char *spec) {
  printf("\nTable 9: every SpMV kernel against cuSPARSE on %s (double; median of 50 runs;\n"
         "speedup = fastest cuSPARSE time / kernel time)\n", spec);
  return cli_bench_compare(A, spec, CIS_F64);
}

/* The JSON on f (NULL: opened from j) and closed. */
static cis_status write_json(const cli_json *j, FILE *f, const bench_run *r) {
  if (!f && !(f = cli_json_open(j, 0))) return CIS_ERR_IO;
  bench_write_json(f, r);
  return cli_json_close(j, f);
}

int cis_cmd_bench(int argc, char **argv) {
  opts o;
  bench_run r;
  cis_csr *A = NULL;
  FILE *out = NULL; /* the JSON's stream when it goes to stdout */
  char json[1024];
  if (cli_bench_solvers_wanted(argc, argv)) return cli_bench_sweep(argc, argv); /* the solvers' grid: bench_sweep.c */
  if (cli_dist_wanted(argc, argv)) return cli_dist_bench(argc, argv); /* --gpus N: cmd_dist.c */
  int rc = parse(argc, argv, &o);
  cis_status st;
  if (rc) return rc < 0 ? 0 : rc;
  if (cli_parse_only) return 0;
  memset(&r, 0, sizeof r);
  for (int i = 0, len = 0; i < argc && len < (int)sizeof r.command - 2; ++i)
    len += snprintf(r.command + len, sizeof r.command - (size_t)len, "%s%s", i ? " " : "cisparse ", argv[i]);
  /* the JSON alone on stdout: taken before anything is printed, the report going to stderr */
  if (cli_json_stdout(&o.json) && !(out = cli_json_open(&o.json, 1))) return cli_fail(CIS_ERR_IO);
  if (cli_is_fcidump(o.matrix)) st = cli_bench_fcidump(o.matrix, &A);
  else st = cis_load(o.matrix, CIS_F64, &A);
  if (st != CIS_OK) goto fail;
  r.matrix = o.matrix;
  if ((st = bench_matrix(&o, A, &r)) != CIS_OK) goto fail;
  if (!r.printed) bench_print_table(stdout, &r);
  if (o.csv && (st = bench_write_csv(o.csv, &r)) != CIS_OK) goto fail;
  if (o.json.path) {
    st = write_json(&o.json, out, &r);
    out = NULL;
    if (st != CIS_OK) goto fail;
  }
  if (o.plot) { /* the plot reads a file: --json's, else PREFIX.json */
    const cli_json file = {json, 0};
    snprintf(json, sizeof json, "%s", o.json.path && !cli_json_stdout(&o.json) ? o.json.path : "");
    if (!json[0]) {
      snprintf(json, sizeof json, "%s.json", o.plot);
      if ((st = write_json(&file, NULL, &r)) != CIS_OK) goto fail;
    }
    cli_plot("spmv", json, o.plot, stdout);
  }
  rc = 0;
  goto done;
fail:
  rc = cli_fail(st);
done:
  if (out) fclose(out);
  free(r.rows_out);
  cis_csr_free(A);
  return rc;
}
