/* cmd_ci.c: `cisparse ci FILE.FCIDUMP ...`: CI ground (and excited) states:
 * read the integrals, find the reference, build the determinant space and the
 * Slater-Condon Hamiltonian, store it in a format, run Davidson on the CPU or
 * with the SpMV on the GPU, print energies, sizes and timings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/cli_matrix.h"

typedef struct ci_args {
  const char *file, *format, *occ, *kernel, *save;
  int level, roots, gpu, symmetric, json, verbose, count;
  int build; /* 0 cpu, 1 gpu, -1 not given (gpu with --device gpu, else cpu) */
  int format_set;
  int method; /* CI_STORED, CI_DIRECT, CI_AUTO */
  double tol;
  double spin;      /* --spin S: only roots of total spin S (< 0: all) */
  int isym, isym_set; /* --isym N in the file's numbering */
  int max_iter, pspace;
  int block_products; /* --block-products: Davidson's new vectors by one SpMM */
  int no_time_reversal; /* --no-time-reversal: never the half sigma (direct) */
  int symmetry_projection; /* --symmetry-projection: direct sigma masked at the C1 cost */
  int no_s2; /* --no-s2: <S^2> of the roots not computed */
  int repeat;         /* --repeat N: the direct solve N times in this process */
  int float_values;   /* --values float: sell16 with float values, double vectors and sums */
} ci_args;

#define CI_MAX_REPEAT 20

enum { CI_STORED = 0, CI_DIRECT = 1, CI_AUTO = 2 };

typedef struct ci_run {
  cis_fcidump *F;
  cis_ci_space *S;
  cis_csr *H;             /* host build */
  cis_gpu_plan *plan;     /* device build (csr on the GPU), or --symmetric on the GPU (csr-sym) */
  cis_int nnz;
  cis_matrix *M;
  double *diag, *evals;
  cis_ci_bits ref_a, ref_b; /* strings of ceil(NORB/64) words */
  double e_rhf, t_build, t_total;
  cis_int fmt_bytes[16], fmt_est[16];
  cis_int boundary;
  const char *kernel;       /* the GPU kernel of the stored format (--kernel, or --format auto's) */
  cis_davidson_info info;
  cis_ci_gpu_stats gpu;
  cis_int count_nnz, count_max_row;
  int no_ref;               /* full CI without a reference of symmetry ISYM: E_RHF is the lowest determinant's */
  int nroots;               /* roots computed (more than asked with --spin) */
  int *pick;                /* the reported roots: indices into evals */
  double *evecs, *s2;       /* host CI vectors (n * nroots) and <S^2> per root */
  int np_used;              /* P-space size of the guess */
  cis_ci_counts counts;
  cis_ci_memory_need need;
  int64_t mem_limit;
  char mem_why[64];
  int nnz_counted;          /* --count: exact count done (else the estimate or the bound) */
  double nnz_est;           /* nonzeros estimated from sampled rows (0: not estimated) */
  cis_int nnz_sampled;      /* rows the estimate counted */
  cis_ci_direct *D;       /* --method direct: the matrix-free sigma */
  cis_operator *op;       /* D (or G) as an operator */
  cis_operator *opc;      /* point group blocked by irreps: H on the ISYM determinants only (CPU or GPU) */
  cis_ci_direct_gpu *G;   /* --method direct --device gpu: the sigma on the device */
  cis_ci_direct_gpu_info ginfo;
  double sigma_ms;        /* --device gpu: median of 5 synchronized sigmas on a random vector */
  double sigma_half_ms;   /* the same on a symmetric one (MS2 = 0: the half sigma; else 0) */
  double t_parse;         /* seconds to read the FCIDUMP (before the solve's clock) */
  double t_s2;            /* seconds of <S^2> of the roots (host) */
  double t_guess;         /* seconds of the P-space guesses (host) */
  double t_timing;        /* seconds of the separate one-sigma timing (--device gpu) */
  cis_ci_direct_info dinfo;
  int direct;             /* the method that ran: 1 direct, 0 stored */
  double rep_s[CI_MAX_REPEAT]; /* direct: seconds to solution (setup, guess, solve) of every --repeat run */
  const char *why;        /* why auto chose what it chose */
} ci_run;

static void usage(FILE *f) {
  fprintf(f, "usage: cisparse ci FILE.FCIDUMP [--level N|full] [--roots k] [--format NAME] [--device cpu|gpu]\n"
             "                  [--build cpu|gpu] [--symmetric] [--occ LIST] [--tol X] [--json] [--verbose]\n"
             "  --level N     excitation level relative to the reference (2 = CISD); default full CI\n"
             "  --roots k     lowest k eigenvalues (default 1)\n"
             "  --format F    storage format for the SpMV: auto (default: cis_format_auto's rule from the\n"
             "                row lengths, README), csr ell ellr sell sellr sellcs sell16 csb csr5 hyb\n"
             "  --device      cpu (default) or gpu (Davidson on the device: cis_gpu_spmv + cuBLAS)\n"
             "  --build       where the Hamiltonian is built: gpu (default with --device gpu: in device\n"
             "                memory as CSR, SpMV csr-vector) or cpu (OpenMP, then --format, uploaded)\n"
             "  --kernel K    GPU kernel of the format (cisparse/gpu.h; default: the format's default)\n"
             "  --values float  sell16 with its values stored in float (x, y and the sums double): 6\n"
             "                instead of 10 bytes per nonzero; opt-in, the energy moves by the\n"
             "                values' rounding (README \"Float values\")\n"
             "  --symmetric   store only the upper triangle (half the bytes): symmetric CSR SpMV on\n"
             "                the CPU, or on the GPU (kernels sym-seg, default: mirror sums per column\n"
             "                segment; csr-sym; csr-sym-det: deterministic), built on the GPU with\n"
             "                --build gpu\n"
             "  --occ LIST    reference occupation, 1-based: 1,2,3 (doubly occupied) or ALPHA/BETA lists\n"
             "  --tol X       Davidson residual norm tolerance (default 1e-8; energies to 1e-10)\n"
             "  --count       only count, at once for any size: determinants (closed form, by level and\n"
             "                irrep), nonzeros (exact when quick, else a bound), memory per method\n"
             "  --save FILE   also write the Hamiltonian (.cisb binary, else Matrix Market), e.g. for\n"
             "                `cisparse bench FILE` against cuSPARSE on the same matrix\n"
             "  --spin S      report only roots of total spin S (0, 0.5, 1, ...): more roots are computed\n"
             "                and those whose <S^2> is not S(S+1) are dropped (never relabelled)\n"
             "  --isym N      target irrep in the file's numbering (0..7 for PySCF's 0-based ORBSYM,\n"
             "                1..8 for Molpro's); PySCF's literal ISYM=1 is read as totally symmetric\n"
             "  --max-iter N  Davidson iterations (default 200); a root not converged is an error\n"
             "  --block-products  Davidson multiplies an iteration's new vectors in one SpMM pass\n"
             "                (GPU csr or --symmetric plans; more than one root)\n"
             "  --pspace N    determinants in the P-space of the initial guess (default 400)\n"
             "  --repeat N    direct: everything after the parse N times in this process (1..20), each\n"
             "                run's time to solution reported (a library user's warm process; the\n"
             "                first run also pays CUDA's lazy loading of the kernels it launches)\n"
             "  --gpus N      the stored Hamiltonian over N GPUs (NCCL, 0 = all; --cpu-parts N: CPU parts),\n"
             "                each part's rows built on their own (the whole matrix is never held),\n"
             "                Davidson on the distributed operator; takes --level --roots --tol --max-iter\n"
             "                --format --exchange (README \"Several GPUs\")\n"
             "  --method M    stored (default: build H, then SpMV), direct (matrix-free string-driven\n"
             "                sigma: full CI of the file's orbitals, no H built; point group (ORBSYM)\n"
             "                blocked by irreps on the CPU and the GPU: Davidson on vectors of the ISYM\n"
             "                determinants only, GEMMs on the pair-irrep blocks of g (on the GPU one\n"
             "                per pair irrep over all alpha strings); with --device gpu gather/DGEMM/\n"
             "                scatter on the device and Davidson's vectors there) or auto: with\n"
             "                --device gpu, direct for full CI (it builds nothing); on the CPU, direct\n"
             "                for full CI in C1 with 1-2 roots, or when the stored H would take over\n"
             "                half the host memory; else stored\n"
             "  --no-time-reversal  direct: never the MS2 = 0 half sigma (alpha <-> beta symmetry)\n"
             "  --symmetry-projection  direct: point group by projection (C1 sigma masked, C1 cost)\n"
             "                instead of blocked by irreps; same results\n"
             "  --no-s2       do not compute <S^2> of the roots (printed as not computed; not with --spin)\n");
}

/* The GPU kernel of --symmetric: --kernel, else sym-seg (on the H2O 6-31G
 * FCI Hamiltonian 2x faster than csr-sym, bench/results/sym-seg-2026-11-23). */
static const char *cli_sym_kernel(const ci_args *a) { return a->kernel ? a->kernel : "sym-seg"; }

static int parse_args(int argc, char **argv, ci_args *a) {
  long long v;
  *a = (ci_args){NULL, "auto", NULL, NULL, NULL, -1, 1, 0, 0, 0, 0, 0, -1, 0, CI_STORED, 1e-8, -1, 0, 0, 200, 0, 0, 0, 0, 0, 1, 0};
  int stored_opt = 0; /* an option that needs the stored matrix */
  for (int i = 1; i < argc; ++i) {
    const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) { usage(stdout); return -1; }
    if (!strcmp(o, "--symmetric")) { a->symmetric = 1; continue; }
    if (!strcmp(o, "--json")) { a->json = 1; continue; }
    if (!strcmp(o, "--no-time-reversal")) { a->no_time_reversal = 1; continue; }
    if (!strcmp(o, "--symmetry-projection")) { a->symmetry_projection = 1; continue; }
    if (!strcmp(o, "--no-s2")) { a->no_s2 = 1; continue; }
    if (!strcmp(o, "--verbose")) { a->verbose = 1; continue; }
    if (!strcmp(o, "--block-products")) { a->block_products = 1; continue; }
    if (!strcmp(o, "--count")) { a->count = 1; continue; }
    if (o[0] == '-' && o[1] == '-') {
      if (!val) return cli_usage("%s needs a value", o);
      i++;
      if (!strcmp(o, "--level")) {
        if (!strcmp(val, "full")) { a->level = -1; continue; }
        if (cli_int(o, val, &v)) return 2;
        if (v < 0 || v > 128) return cli_usage("--level must be 0..128 or full, got %lld", v);
        a->level = (int)v;
      } else if (!strcmp(o, "--roots")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 1 || v > 64) return cli_usage("--roots must be 1..64, got %lld", v);
        a->roots = (int)v;
      } else if (!strcmp(o, "--format")) {
        a->format = val;
        a->format_set = 1;
      } else if (!strcmp(o, "--values")) {
        if (strcmp(val, "float") && strcmp(val, "double")) return cli_usage("--values must be float or double, got '%s'", val);
        a->float_values = !strcmp(val, "float");
      } else if (!strcmp(o, "--save")) {
        a->save = val;
      } else if (!strcmp(o, "--device")) {
        if (strcmp(val, "cpu") && strcmp(val, "gpu")) return cli_usage("--device must be cpu or gpu, got '%s'", val);
        a->gpu = !strcmp(val, "gpu");
      } else if (!strcmp(o, "--build")) {
        if (strcmp(val, "cpu") && strcmp(val, "gpu")) return cli_usage("--build must be cpu or gpu, got '%s'", val);
        a->build = !strcmp(val, "gpu");
      } else if (!strcmp(o, "--kernel")) {
        a->kernel = val;
      } else if (!strcmp(o, "--method")) {
        if (!strcmp(val, "stored")) a->method = CI_STORED;
        else if (!strcmp(val, "direct")) a->method = CI_DIRECT;
        else if (!strcmp(val, "auto")) a->method = CI_AUTO;
        else return cli_usage("--method must be direct, stored or auto, got '%s'", val);
      } else if (!strcmp(o, "--occ")) {
        a->occ = val;
      } else if (!strcmp(o, "--spin")) {
        if (cli_double(o, val, &a->spin)) return 2;
        if (!(a->spin >= 0) || a->spin > 64 || fabs(2 * a->spin - floor(2 * a->spin + 0.5)) > 1e-9)
          return cli_usage("--spin must be 0, 0.5, 1, 1.5, ..., got '%s'", val);
      } else if (!strcmp(o, "--isym")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 0 || v > 8) return cli_usage("--isym must be an irrep 0..8, got %lld", v);
        a->isym = (int)v;
        a->isym_set = 1;
      } else if (!strcmp(o, "--max-iter")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 1 || v > 100000) return cli_usage("--max-iter must be 1..100000, got %lld", v);
        a->max_iter = (int)v;
      } else if (!strcmp(o, "--repeat")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 1 || v > CI_MAX_REPEAT) return cli_usage("--repeat must be 1..%d, got %lld", CI_MAX_REPEAT, v);
        a->repeat = (int)v;
      } else if (!strcmp(o, "--pspace")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 1 || v > 2000) return cli_usage("--pspace must be 1..2000, got %lld", v);
        a->pspace = (int)v;
      } else if (!strcmp(o, "--tol")) {
        if (cli_double(o, val, &a->tol)) return 2;
        if (!(a->tol > 0)) return cli_usage("--tol must be > 0");
      } else {
        return cli_usage("ci: unknown option '%s' (cisparse ci --help)", o);
      }
      continue;
    }
    if (a->file) return cli_usage("ci: more than one FCIDUMP file given ('%s', '%s')", a->file, o);
    a->file = o;
  }
  if (!a->file) return cli_usage("ci: no FCIDUMP file given (cisparse ci --help)");
  stored_opt = a->symmetric || a->count || a->save || a->format_set || a->kernel || a->build >= 0 || a->float_values;
  if (a->method == CI_DIRECT) {
    if (a->level >= 0)
      return cli_usage("--method direct is full CI only (--level full); truncated CI needs --method stored");
    if (stored_opt)
      return cli_usage("--method direct stores no matrix: --format, --symmetric, --count, --save, --kernel and "
                       "--build need --method stored");
  }
  if (a->no_s2 && a->spin >= 0) return cli_usage("--no-s2 cannot be combined with --spin (roots are selected by <S^2>)");
  if (a->method == CI_AUTO && (a->level >= 0 || stored_opt)) a->method = CI_STORED; /* only stored can do these */
  if (a->repeat > 1 && a->method == CI_STORED) return cli_usage("--repeat needs --method direct (or auto)");
  if (a->method == CI_DIRECT || a->method == CI_AUTO) {
    if (a->method == CI_DIRECT && a->build >= 0) return cli_usage("--build needs --method stored");
    if (a->method == CI_DIRECT) return 0;
  }
  if (a->kernel && !a->gpu) return cli_usage("--kernel needs --device gpu");
  if (a->build == 1 && !a->gpu) return cli_usage("--build gpu needs --device gpu (the matrix stays on the device)");
  if (a->build < 0) a->build = a->gpu;
  if (a->build == 1 && a->format_set && strcmp(a->format, "csr"))
    return cli_usage("--format %s needs --build cpu (the GPU build stores CSR on the device)", a->format);
  if (a->build == 1 && a->kernel && !a->symmetric)
    return cli_usage("--kernel needs --build cpu (the GPU build runs csr-vector; with --symmetric a symmetric kernel)");
  if (a->float_values && (a->symmetric || a->build == 1 || (a->format_set && strcmp(a->format, "sell16") &&
                                                            strcmp(a->format, "auto"))))
    return cli_usage("--values float stores sell16 built on the CPU (--build cpu; not with --symmetric)");
  if (a->symmetric && a->format_set && strcmp(a->format, "csr"))
    return cli_usage("--symmetric stores the upper triangle in csr; got --format %s", a->format);
  if (a->build == 1 && a->save) return cli_usage("--save needs --build cpu (the GPU-built matrix stays on the device)");
  return 0;
}

static void run_free(ci_run *r) {
  cis_operator_free(r->op);
  cis_operator_free(r->opc);
  cis_ci_direct_gpu_free(r->G);
  cis_ci_direct_free(r->D);
  cis_matrix_free(r->M);
  cis_gpu_plan_free(r->plan);
  cis_csr_free(r->H);
  cis_ci_space_free(r->S);
  cis_fcidump_free(r->F);
  free(r->diag);
  free(r->evals);
  free(r->evecs);
  free(r->s2);
  free(r->pick);
}

/* Bytes of every format small enough to build here (at most 1/32 of the
 * memory or 1 GiB: building the others would cost more than the CI run);
 * for csr, ell and ellr not built, the exact layout formulas of
 * format_types.h instead (fmt_est). -1 = neither. */
static void format_memory(ci_run *r, const ci_args *a) {
  int64_t limit = cis_phys_memory() / 32;
  cis_int maxrow = cis_csr_max_row(r->H, NULL), rows = r->H->rows, nnz = r->H->nnz;
  if (limit < ((int64_t)1 << 30)) limit = (int64_t)1 << 30;
  for (int f = 0; f < cis_format_count() && f < 16; ++f) {
    const char *name = cis_format_name(f);
    int ell = !strcmp(name, "ell") || !strcmp(name, "ellr");
    double est = ell ? (double)rows * (double)maxrow * 12 + (name[3] ? 4.0 * rows : 0) : (double)nnz * 12 + (double)rows * 24;
    r->fmt_bytes[f] = r->fmt_est[f] = -1;
    if (r->M && !strcmp(name, cis_matrix_format_name(r->M))) { r->fmt_bytes[f] = cis_matrix_bytes(r->M); continue; }
    if (a->symmetric) continue;
    if (est > (double)limit) {
      if (ell) r->fmt_est[f] = (cis_int)est;
      if (!strcmp(name, "csr")) r->fmt_est[f] = nnz * 12 + (rows + 1) * (nnz >= ((int64_t)1 << 32) ? 8 : 4);
      continue;
    }
    cis_matrix *M = NULL;
    if (cis_matrix_create(r->H, name, NULL, &M) == CIS_OK) r->fmt_bytes[f] = cis_matrix_bytes(M);
    cis_matrix_free(M);
  }
}

typedef struct cpu_op { const cis_matrix *M; const cis_csr *U; } cpu_op;
static cis_status cpu_apply(void *c, const double *x, double *y) {
  cpu_op *o = c;
  return o->U ? cis_csr_symv_upper(o->U, x, y) : cis_matrix_spmv(o->M, 1.0, x, 0.0, y);
}

static double gib(double bytes) { return bytes / 1073741824.0; }

/* Davidson for nr roots from P-space guesses, then <S^2> of each root.
 * Blocked by irreps (r->opc): the diagonal, the P-space guesses and the roots
 * are compact (ISYM determinants only, no C1-length vector before <S^2>);
 * the roots are expanded to C1 order for <S^2> (counted in t_s2). */
static cis_status solve_roots(const ci_args *a, ci_run *r, int nr) {
  cis_status st;
  cis_int n = r->D ? cis_ci_direct_size(r->D) : cis_ci_space_size(r->S);
  const int compact = r->opc != NULL;
  const cis_int ng = compact ? cis_ci_direct_compact_size(r->D) : n; /* length of the guesses and Davidson's roots */
  const double *diag = compact ? cis_operator_diagonal(r->opc) : r->D && r->op ? cis_operator_diagonal(r->op) : r->diag;
  double *guess = NULL, *vc = NULL;
  free(r->evals); free(r->evecs); free(r->s2);
  r->evecs = NULL;
  r->evals = malloc((size_t)nr * sizeof(double));
  if (!compact || !a->no_s2) r->evecs = malloc((size_t)nr * (size_t)n * sizeof(double));
  r->s2 = malloc((size_t)nr * sizeof(double));
  int nvec = nr + 4 < 2 * nr + 2 ? nr + 4 : 2 * nr + 2, np = a->pspace > 0 ? a->pspace : CIS_CI_PSPACE_DEFAULT;
  if (r->G) nvec = nr; /* on the GPU every extra guess costs a sigma of the first iteration */
  if (nvec > ng) nvec = (int)ng;
  if (np < nvec) np = nvec;
  const int cap = r->D ? 2 * nvec : nvec; /* room for the antisymmetric parts (cis_ci_direct_pure_guesses) */
  guess = malloc((size_t)cap * (size_t)ng * sizeof(double));
  if (compact) vc = malloc((size_t)nr * (size_t)ng * sizeof(double));
  if (!r->evals || (!r->evecs && (!compact || !a->no_s2)) || !r->s2 || !guess || (compact && !vc))
    { st = cis_error(CIS_ERR_ALLOC, "cannot allocate %d CI vectors of %lld determinants", nr + nvec, (long long)n); goto cleanup; }
  double t_guess = cis_wtime();
  if (compact) CIS_TRY(cis_ci_pspace_guess_compact(r->F, r->D, diag, np, nvec, guess, &r->np_used, NULL));
  else if (r->D) CIS_TRY(cis_ci_pspace_guess_direct(r->F, r->D, diag, np, nvec, guess, &r->np_used, NULL));
  else CIS_TRY(cis_ci_pspace_guess(r->F, r->S, diag, np, nvec, guess, &r->np_used, NULL));
  if (r->D) /* exactly (anti)symmetric guesses: every product can be a half sigma */
    CIS_TRY(compact ? cis_ci_direct_compact_pure_guesses(r->D, guess, nvec, cap, &nvec)
                    : cis_ci_direct_pure_guesses(r->D, guess, nvec, cap, &nvec));
  r->t_guess = cis_wtime() - t_guess;
  cis_davidson_opts o = cis_davidson_opts_default();
  o.roots = nr;
  o.tol = a->tol;
  o.verbose = a->verbose;
  o.max_iter = a->max_iter;
  o.block_products = a->block_products;
  o.guess = guess;
  o.nguess = nvec;
  /* corrections kept exactly alpha <-> beta pure (every product a half sigma);
   * compact vectors on the GPU have no device projection yet */
  if (r->D && !(compact && r->G)) {
    o.correct = r->G ? cis_ci_direct_gpu_correct : compact ? cis_ci_direct_correct_compact : cis_ci_direct_correct_c1;
    o.correct_ctx = r->G ? (void *)r->G : (void *)r->D;
  }
  if (compact) {
    CIS_TRY(cis_davidson_operator(r->opc, diag, &o, r->evals, vc, &r->info));
  } else if (r->D) {
    CIS_TRY(cis_davidson_operator(r->op, diag, &o, r->evals, r->evecs, &r->info));
  } else if (r->plan) {
    CIS_TRY(cis_ci_davidson_gpu_plan(r->plan, r->diag, &o, r->evals, r->evecs, &r->info, &r->gpu));
  } else if (a->gpu) {
    CIS_TRY(cis_ci_davidson_gpu(r->M, r->kernel, r->diag, &o, r->evals, r->evecs, &r->info, &r->gpu));
  } else {
    cpu_op op = {r->M, a->symmetric ? r->H : NULL};
    CIS_TRY(cis_davidson(n, r->diag, cpu_apply, &op, &o, r->evals, r->evecs, &r->info));
  }
  double t_s2 = cis_wtime();
  for (int k = 0; k < nr; ++k) {
    r->s2[k] = NAN;
    if (a->no_s2) continue;
    if (compact) cis_ci_direct_expand(r->D, vc + (size_t)k * (size_t)ng, r->evecs + (size_t)k * (size_t)n);
    CIS_TRY(r->D ? cis_ci_s2_direct(r->F, r->D, r->evecs + (size_t)k * (size_t)n, &r->s2[k])
                 : cis_ci_s2(r->F, r->S, r->evecs + (size_t)k * (size_t)n, &r->s2[k]));
  }
  r->t_s2 = cis_wtime() - t_s2;
  r->nroots = nr;
  st = CIS_OK;
cleanup:
  free(guess);
  free(vc);
  return st;
}

/* The reported roots: all (no --spin) or those with <S^2> = S(S+1); returns
 * how many of the a->roots asked for were found. */
static int select_roots(const ci_args *a, ci_run *r) {
  int got = 0;
  for (int k = 0; k < r->nroots && got < a->roots; ++k)
    if (a->spin < 0 || fabs(r->s2[k] - a->spin * (a->spin + 1)) < 1e-3) r->pick[got++] = k;
  return got;
}

/* Davidson for nr roots, then more (up to cap) until a->roots of spin
 * --spin are among them; r->pick lists the reported ones. */
static cis_status roots_loop(const ci_args *a, ci_run *r, int nr, int cap) {
  cis_status st;
  cis_int n = r->D ? cis_ci_direct_size(r->D) : cis_ci_space_size(r->S);
  if (nr > n) nr = (int)n;
  free(r->pick);
  r->pick = malloc((size_t)a->roots * sizeof(int));
  if (!r->pick) return cis_error(CIS_ERR_ALLOC, "cannot allocate %d root indices", a->roots);
  for (;;) { /* --spin: more roots until a->roots of spin S are among them */
    CIS_TRY(solve_roots(a, r, nr));
    int got = select_roots(a, r);
    if (got == a->roots) break;
    if (nr >= cap || nr >= n) {
      char list[512];
      size_t len = 0;
      for (int k = 0; k < r->nroots && len + 24 < sizeof list; ++k)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%.4f", k ? " " : "", r->s2[k]);
      return cis_error(CIS_ERR_NOT_FOUND, "only %d root(s) of spin S=%g among the lowest %d (<S^2>: %s)", got, a->spin,
                       r->nroots, list);
    }
    nr = 2 * nr < cap ? 2 * nr : cap;
  }
  return CIS_OK;
cleanup:
  return st;
}

/* Rows to sample for the nonzero estimate: 4096, fewer when rows are long
 * (about 3e7 connections looked at in all: a fraction of a second). */
static cis_int sample_rows(const cis_ci_counts *c) {
  double s = 3e7 / (c->row_bound > 1 ? c->row_bound : 1);
  return s > 4096 ? 4096 : s < 256 ? 256 : (cis_int)s;
}

/* --method auto (measured on the 2-core CI machine, bench/results/ci_direct_cpu.md):
 * full CI in C1 goes direct for one or two roots (direct was the faster to
 * solution on every file of shared/ci, 36 to 1.66 M determinants, since it
 * builds nothing) and for any number of roots when the stored H would take
 * more than half the host memory (12 bytes per nonzero; nonzeros bounded by
 * the determinants connected to each by singles and doubles); with more roots
 * the stored SpMV, cheaper per product than a sigma at these sizes, wins
 * (N2 STO-3G, 8 roots, 175 products: stored 6.9 s, direct 11.6 s or more).
 * Point-group symmetry (ORBSYM/ISYM), truncated CI and the stored-matrix
 * options stay stored. */
static int auto_direct(const cis_fcidump *F, int roots, int gpu, const char **why) {
  const int n = F->norb, na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  /* On the GPU (bench/results/ci_direct_gpu.md): a whole direct solve takes
   * less time than the stored path's build alone at every size measured. */
  if (n > CIS_CI_DIRECT_MAX_ORB) { *why = "NORB > 64 (direct keeps one-word strings): stored"; return 0; }
  if (gpu) { *why = "full CI on the GPU: direct (no build)"; return 1; }
  int sym = F->isym != 1;
  for (int p = 0; p < n; ++p) sym |= F->orbsym[p] != 1;
  if (sym) { *why = "point-group symmetry (the rule is measured in C1 only): stored"; return 0; }
  double sa = (double)na * (n - na), sb = (double)nb * (n - nb);
  double daa = (double)na * (na - 1) / 2 * (double)(n - na) * (n - na - 1) / 2;
  double dbb = (double)nb * (nb - 1) / 2 * (double)(n - nb) * (n - nb - 1) / 2;
  double row = 1 + sa + sb + daa + dbb + sa * sb, dets = 1;
  for (int k = 1; k <= na; ++k) dets = dets * (n - na + k) / k;
  for (int k = 1; k <= nb; ++k) dets = dets * (n - nb + k) / k;
  if (dets * row * 12.0 > 0.5 * (double)cis_phys_memory()) { *why = "stored H above half the host memory: direct"; return 1; }
  if (roots <= 2) { *why = "full CI, 1-2 roots: direct"; return 1; }
  *why = "full CI, more than 2 roots, stored H fits: stored";
  return 0;
}

/* --method direct: the matrix-free sigma as the operator; Davidson runs in
 * roots_loop with P-space guesses and <S^2> on the direct space. */
static cis_status setup_direct(const ci_args *a, ci_run *r, int nr) {
  cis_status st;
  cis_ci_direct_opts dopt = cis_ci_direct_opts_default();
  dopt.no_time_reversal = a->no_time_reversal;
  dopt.symmetry_projection = a->symmetry_projection;
  /* guesses: solve_roots' P-space vectors, up to twice as many once split
   * into pure parts (cis_ci_direct_pure_guesses) */
  int nvec = 2 * (nr + 4 < 2 * nr + 2 ? nr + 4 : 2 * nr + 2);
  int max_sub = 8 * nr > 24 ? 8 * nr : 24;
  if (max_sub < nvec + nr) max_sub = nvec + nr;
  const int dav = 2 * max_sub + 3 * nr + 1; /* subspace, its products, Ritz vectors, residuals, diagonal */
  double *diag = NULL;
  /* on the GPU the host holds the guesses, the results and the diagonal only;
   * blocked by irreps (ORBSYM/ISYM not all 1, no projection) only the roots in
   * C1 order (for <S^2>), the rest compact */
  int sym = r->F->isym != 1;
  for (int p = 0; p < r->F->norb; ++p) sym |= r->F->orbsym[p] != 1;
  const int blocked = sym && !a->symmetry_projection;
  dopt.vectors = a->gpu ? (blocked ? nr + 1 : nvec + nr + 1) : dav;
  double tb = cis_wtime();
  CIS_TRY(cis_ci_direct_create(r->F, &dopt, &r->D));
  cis_ci_direct_get_info(r->D, &r->dinfo);
  cis_int n = cis_ci_direct_size(r->D);
  if (a->roots > n) return cis_error(CIS_ERR_INVALID, "--roots %d exceeds the %lld determinants", a->roots, (long long)n);
  if (a->gpu) {
    cis_ci_direct_gpu_opts go = cis_ci_direct_gpu_opts_default();
    go.vectors = dav;
    CIS_TRY(cis_ci_direct_gpu_create(r->D, &go, &r->G));
    if (r->dinfo.blocked) { /* blocked by irreps: Davidson on compact device vectors (ISYM determinants), */
      CIS_TRY(cis_ci_direct_gpu_compact_operator(r->G, NULL, &r->opc)); /* its compact diagonal */
    } else {
      diag = malloc((size_t)n * sizeof(double));
      if (!diag) { st = cis_error(CIS_ERR_ALLOC, "cannot allocate the diagonal of %lld determinants", (long long)n); goto cleanup; }
      CIS_TRY(cis_ci_direct_diagonal(r->D, diag));
      CIS_TRY(cis_ci_direct_gpu_operator(r->G, diag, &r->op));
    }
    r->t_build = cis_wtime() - tb; /* strings, links, pair matrix, diagonal, uploads */
    /* one sigma, timed apart (not part of the time to solution) */
    double t_sig = cis_wtime();
    CIS_TRY(cis_ci_direct_gpu_time_sigma(r->G, NULL, 5, &r->sigma_ms));
    const cis_int na = r->dinfo.alpha_strings, nb = r->dinfo.beta_strings;
    if (r->dinfo.blocked && na == nb && !a->no_time_reversal) { /* a symmetric compact vector */
      const cis_int nc = cis_ci_direct_compact_size(r->D);
      double *c = malloc((size_t)nc * sizeof(double));
      int one = 1;
      if (!c) { st = cis_error(CIS_ERR_ALLOC, "cannot allocate a vector of %lld determinants", (long long)nc); goto cleanup; }
      uint64_t x = 0x2545f4914f6cdd1dull;
      for (cis_int i = 0; i < nc; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c[i] = (double)(x >> 11) / 9007199254740992.0 - 0.5;
      }
      st = cis_ci_direct_compact_pure_guesses(r->D, c, 1, 1, &one); /* (c + c^T) / 2: exactly symmetric */
      if (st == CIS_OK) st = cis_ci_direct_gpu_time_compact_sigma(r->G, c, 5, &r->sigma_half_ms);
      free(c);
      if (st != CIS_OK) goto cleanup;
    } else if (na == nb && !a->no_time_reversal && cis_fcidump_nalpha(r->F) == cis_fcidump_nbeta(r->F)) {
      double *c = malloc((size_t)n * sizeof(double)); /* a symmetric pseudo-random vector */
      if (!c) { st = cis_error(CIS_ERR_ALLOC, "cannot allocate a vector of %lld determinants", (long long)n); goto cleanup; }
      uint64_t x = 0x2545f4914f6cdd1dull;
      for (cis_int A = 0; A < na; ++A)
        for (cis_int B = 0; B <= A; ++B) {
          x ^= x << 13, x ^= x >> 7, x ^= x << 17;
          c[A * nb + B] = c[B * nb + A] = (double)(x >> 11) / 9007199254740992.0 - 0.5;
        }
      st = cis_ci_direct_gpu_time_sigma(r->G, c, 5, &r->sigma_half_ms);
      free(c);
      if (st != CIS_OK) goto cleanup;
    }
    r->t_timing = cis_wtime() - t_sig; /* excluded from the time to solution */
    cis_ci_direct_gpu_get_info(r->G, &r->ginfo);
  } else {
    CIS_TRY(cis_ci_direct_operator(r->D, &r->op));
    /* blocked by irreps: Davidson on the ISYM determinants (compact vectors) */
    if (r->dinfo.blocked) CIS_TRY(cis_ci_direct_compact_operator(r->D, &r->opc));
    r->t_build = cis_wtime() - tb; /* strings, links, pair matrix, diagonal */
  }
  st = CIS_OK;
cleanup:
  free(diag);
  return st;
}

static cis_status compute(const ci_args *a, ci_run *r) {
  cis_status st;
  /* --device gpu: the CUDA context is made here, before the clock starts
   * (a library user pays it once per process, not per solve) */
  if (a->gpu && cis_gpu_count(NULL, 0) > 0) cis_gpu_sync();
  double t0 = cis_wtime();
  CIS_TRY(cis_fcidump_read(a->file, &r->F));
  r->t_parse = cis_wtime() - t0;
  if (a->isym_set) CIS_TRY(cis_fcidump_set_isym(r->F, a->isym));
  if (a->spin >= 0) {
    int twos = (int)floor(2 * a->spin + 0.5), ms2 = abs(r->F->ms2);
    if (twos < ms2 || (twos - ms2) % 2)
      return cis_error(CIS_ERR_INVALID, "--spin %g is impossible with MS2=%d: S >= |MS2|/2 and 2S - MS2 even", a->spin,
                       r->F->ms2);
  }
  if (a->occ) {
    CIS_TRY(cis_ci_parse_occ_bits(r->F, a->occ, &r->ref_a, &r->ref_b));
  } else if ((st = cis_ci_find_reference_bits(r->F, &r->ref_a, &r->ref_b)) != CIS_OK) {
    if (a->level >= 0) return st; /* truncated CI needs a reference of symmetry ISYM */
    /* full CI needs none: any determinant with the right counts spans it */
    int na = cis_fcidump_nalpha(r->F), nb = cis_fcidump_nbeta(r->F);
    memset(&r->ref_a, 0, sizeof r->ref_a);
    memset(&r->ref_b, 0, sizeof r->ref_b);
    for (int p = 0; p < na; ++p) r->ref_a.w[p / 64] |= 1ull << (p % 64);
    for (int p = 0; p < nb; ++p) r->ref_b.w[p / 64] |= 1ull << (p % 64);
    r->no_ref = 1;
  }
  r->e_rhf = cis_ci_diagonal_bits(r->F, &r->ref_a, &r->ref_b) + r->F->ecore;
  /* sizes in closed form, before anything is allocated */
  CIS_TRY(cis_ci_count_bits(r->F, a->level, &r->ref_a, &r->ref_b, &r->counts));
  r->mem_limit = cis_host_memory_limit(r->mem_why, sizeof r->mem_why);
  int cap = r->counts.determinants < 64 ? (int)r->counts.determinants : 64;
  int nr = a->spin < 0 ? a->roots : (2 * a->roots + 4 < cap ? 2 * a->roots + 4 : cap);
  cis_ci_memory(&r->counts, nr, r->counts.nnz_bound, &r->need);
  double dets = r->counts.determinants;
  if (a->count) { /* exact nonzeros only where the counting pass is quick */
    r->nnz_counted = r->counts.nnz_bound <= 5e7 && dets <= 2e6;
    if (r->nnz_counted) {
      CIS_TRY(cis_ci_space_create_bits(r->F, a->level, &r->ref_a, &r->ref_b, &r->S));
      double tb = cis_wtime();
      CIS_TRY(cis_ci_hamiltonian_nnz(r->F, r->S, a->symmetric, &r->count_nnz, &r->count_max_row));
      r->t_build = cis_wtime() - tb;
    } else if (dets <= 5e7) { /* estimate from sampled rows: the space is quick to build at this size */
      CIS_TRY(cis_ci_space_create_bits(r->F, a->level, &r->ref_a, &r->ref_b, &r->S));
      CIS_TRY(cis_ci_hamiltonian_nnz_estimate(r->F, r->S, a->symmetric, sample_rows(&r->counts), &r->nnz_est, &r->nnz_sampled));
    }
    return CIS_OK;
  }
  if (dets > (double)INT32_MAX)
    return cis_error(CIS_ERR_TOO_LARGE, "%.4g determinants exceed the 32-bit index range (2^31 - 1); `--count` gives the sizes",
                     dets);
  if (a->method == CI_DIRECT && r->F->norb > CIS_CI_DIRECT_MAX_ORB)
    return cis_error(CIS_ERR_UNSUPPORTED,
                     "--method direct (matrix-free full CI) supports NORB <= %d, the file has NORB = %d; "
                     "--method stored runs up to NORB = %d", CIS_CI_DIRECT_MAX_ORB, r->F->norb, CIS_CI_MAX_ORB);
  r->direct = a->method == CI_DIRECT || (a->method == CI_AUTO && auto_direct(r->F, a->roots, a->gpu, &r->why));
  /* the direct GPU path keeps Davidson's vectors on the device (checked there) */
  if (r->mem_limit > 0 && !(r->direct && a->gpu) && r->need.direct > (double)r->mem_limit)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "%.4g determinants need %.1f GiB before the Hamiltonian (space %.1f GiB + Davidson vectors %.1f GiB "
                     "for %d roots), this process may use %.1f GiB (%s)",
                     dets, gib(r->need.direct), gib(r->need.space), gib(r->need.vectors), nr, gib((double)r->mem_limit),
                     r->mem_why);
  cis_gpu_info gi;
  if (a->gpu && cis_gpu_get_info(&gi) == CIS_OK && gi.free_mem > 0 && r->need.vectors > (double)gi.free_mem)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "%.4g determinants need %.1f GiB of Davidson vectors on the GPU for %d roots (before the "
                     "Hamiltonian); %s has %.1f GiB free",
                     dets, gib(r->need.vectors), nr, gi.name, gib((double)gi.free_mem));
  if (!r->direct && a->repeat > 1) return cis_error(CIS_ERR_INVALID, "--repeat needs the direct method (auto chose stored: %s)", r->why ? r->why : "");
  if (r->direct) {
    for (int rep = 0; rep < a->repeat; ++rep) {
      if (rep) { /* everything after the parse made again: a warm process */
        cis_operator_free(r->op); cis_operator_free(r->opc);
        cis_ci_direct_gpu_free(r->G); cis_ci_direct_free(r->D);
        r->op = r->opc = NULL; r->G = NULL; r->D = NULL;
      }
      double t_rep = cis_wtime();
      CIS_TRY(setup_direct(a, r, nr));
      CIS_TRY(roots_loop(a, r, nr, cap));
      r->rep_s[rep] = cis_wtime() - t_rep - r->t_timing - r->t_s2;
    }
    r->t_total = cis_wtime() - t0;
    return CIS_OK;
  }
  CIS_TRY(cis_ci_space_create_bits(r->F, a->level, &r->ref_a, &r->ref_b, &r->S));
  cis_int n = cis_ci_space_size(r->S);
  if (a->roots > n) return cis_error(CIS_ERR_INVALID, "--roots %d exceeds the %lld determinants", a->roots, (long long)n);
  /* the stored matrix from sampled rows: refuse now rather than after a
   * counting pass over every row (90% of the estimate, as it is one) */
  CIS_TRY(cis_ci_hamiltonian_nnz_estimate(r->F, r->S, a->symmetric, sample_rows(&r->counts), &r->nnz_est, &r->nnz_sampled));
  double mat = 0.9 * r->nnz_est * 12 + 8.0 * (double)(n + 1);
  if (!a->build && r->mem_limit > 0 && r->need.direct + mat > (double)r->mem_limit)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "the stored Hamiltonian of %lld determinants, about %.4g nonzeros (from %lld sampled rows), needs "
                     "%.1f GiB with the space and vectors; this process may use %.1f GiB (%s)",
                     (long long)n, r->nnz_est, (long long)r->nnz_sampled, gib(r->need.direct + mat),
                     gib((double)r->mem_limit), r->mem_why);
  if (a->build && cis_gpu_get_info(&gi) == CIS_OK && gi.free_mem > 0 && mat + r->need.vectors > (double)gi.free_mem)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "the Hamiltonian of %lld determinants, about %.4g nonzeros (from %lld sampled rows), and the "
                     "Davidson vectors need %.1f GiB on the GPU; %s has %.1f GiB free",
                     (long long)n, r->nnz_est, (long long)r->nnz_sampled, gib(mat + r->need.vectors), gi.name,
                     gib((double)gi.free_mem));
  double tb = cis_wtime();
  if (a->build) {
    if (a->symmetric) CIS_TRY(cis_ci_hamiltonian_gpu_upper(r->F, r->S, cli_sym_kernel(a), &r->plan, &r->nnz));
    else CIS_TRY(cis_ci_hamiltonian_gpu(r->F, r->S, &r->plan, &r->nnz));
    r->t_build = cis_wtime() - tb;
  } else {
    CIS_TRY(cis_ci_hamiltonian(r->F, r->S, a->symmetric, &r->H));
    r->t_build = cis_wtime() - tb;
    r->nnz = r->H->nnz;
    if (a->save) CIS_TRY(cis_save(a->save, r->H));
    /* symmetric storage on the GPU from the host-built upper triangle */
    if (a->gpu && a->symmetric) CIS_TRY(cis_gpu_plan_create_symmetric(r->H, cli_sym_kernel(a), 0, &r->plan));
  }
  if (r->H && !a->symmetric) {
    cis_format_params p = cis_format_params_default(); /* hyb: BOUNDARY < 0 = chosen from the matrix */
    const char *format = a->format;
    p.float_values = a->float_values;
    r->kernel = a->kernel;
    CIS_TRY(cli_format_auto(r->H, &format, &p, &r->kernel)); /* the default --format auto */
    CIS_TRY(cis_matrix_create(r->H, format, &p, &r->M));
    cis_hyb_split h;
    if (!strcmp(cis_matrix_format_name(r->M), "hyb")) {
      CIS_TRY(cis_matrix_hyb_split(r->M, &h));
      r->boundary = h.boundary;
    }
  }
  if (r->H) format_memory(r, a);
  r->diag = malloc((size_t)n * sizeof(double));
  if (!r->diag)
    return cis_error(CIS_ERR_ALLOC, "cannot allocate the Hamiltonian diagonal (%lld doubles)", (long long)n);
  CIS_TRY(cis_ci_diagonal_all(r->F, r->S, r->diag));
  if (r->no_ref) { /* E_corr relative to the lowest determinant */
    double lo = r->diag[0];
    for (cis_int i = 1; i < n; ++i) if (r->diag[i] < lo) lo = r->diag[i];
    r->e_rhf = lo + r->F->ecore;
  }
  CIS_TRY(roots_loop(a, r, nr, cap));
  r->t_total = cis_wtime() - t0;
  return CIS_OK;
cleanup:
  return st;
}

static const char *level_name(int level) {
  static const char *names[] = {"reference only", "CIS", "CISD", "CISDT", "CISDTQ"};
  return level < 0 ? "full CI" : level <= 4 ? names[level] : "truncated CI";
}

static void print_occ(FILE *f, cis_ci_bits s) {
  int first = 1;
  for (int p = 0; p < 64 * CIS_CI_WORDS; ++p)
    if (s.w[p / 64] >> (p % 64) & 1) { fprintf(f, first ? "%d" : ",%d", p + 1); first = 0; }
}

static const char *multiplicity_name(int mult) {
  static const char *names[] = {"?", "singlet", "doublet", "triplet", "quartet", "quintet", "sextet", "septet", "octet"};
  return mult >= 1 && mult <= 8 ? names[mult] : "multiplet";
}

/* 2S+1 from <S^2> (rounded). */
static int multiplicity(double s2) { return (int)floor(2 * cis_ci_spin_from_s2(s2) + 1.5); }

/* How ORBSYM and ISYM were read. */
static void print_symmetry(const ci_run *r) {
  const cis_fcidump *F = r->F;
  printf("symmetry      ORBSYM numbering %s", cis_fcidump_numbering_name(F->sym_numbering));
  if (F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF) {
    if (F->isym_assumed)
      printf("; ISYM=1 read as the totally symmetric irrep (PySCF writes ISYM=1 always; --isym ID to choose)");
    else printf("; target irrep id %d (1-based %d)", F->isym - 1, F->isym);
  } else if (F->sym_numbering == CIS_FCIDUMP_SYM_MOLPRO) {
    printf("; target irrep ISYM=%d", F->isym);
  }
  printf("\n");
}

/* The reference line(s). */
static void print_reference(const ci_args *a, const ci_run *r) {
  print_symmetry(r);
  if (r->no_ref) {
    printf("reference     none of symmetry ISYM near the aufbau determinant (full CI needs none);\n"
           "              E_corr below is relative to the lowest determinant, %.10f\n", r->e_rhf);
  } else {
    printf("reference     alpha ");
    print_occ(stdout, r->ref_a);
    printf(" / beta ");
    print_occ(stdout, r->ref_b);
    printf(", E_RHF %.10f%s\n", r->e_rhf, a->occ ? " (--occ)" : "");
  }
}

/* The guess and --spin lines. */
static void print_guess_spin(const ci_args *a, const ci_run *r) {
  printf("guess         P-space of %d determinants (lowest diagonal elements), diagonalised exactly, in %.3f s\n",
         r->np_used, r->t_guess);
  if (a->spin >= 0)
    printf("spin          --spin %g: %d roots computed, those with <S^2> = %g kept\n", a->spin, r->nroots,
           a->spin * (a->spin + 1));
}

/* One line per reported root: energy, correlation, <S^2>, S, multiplicity. */
static void print_roots(const ci_args *a, const ci_run *r) {
  const cis_fcidump *F = r->F;
  for (int k = 0; k < a->roots; ++k) {
    int q = r->pick[k];
    if (a->no_s2)
      printf("root %-3d      E = %.10f   E_corr = %.10f   <S^2> not computed (--no-s2)", k, r->evals[q] + F->ecore,
             r->evals[q] + F->ecore - r->e_rhf);
    else
      printf("root %-3d      E = %.10f   E_corr = %.10f   <S^2> = %.6f  S = %.2f  %s", k, r->evals[q] + F->ecore,
             r->evals[q] + F->ecore - r->e_rhf, r->s2[q], cis_ci_spin_from_s2(r->s2[q]),
             multiplicity_name(multiplicity(r->s2[q])));
    if (q != k) printf("  (state %d of this Ms)", q);
    printf("\n");
  }
}

/* --method direct: what was built instead of H, and the sigma timings. */
static void print_text_direct(const ci_args *a, const ci_run *r) {
  const cis_fcidump *F = r->F;
  const cis_ci_direct_info *d = &r->dinfo;
  printf("FCIDUMP       %s\n", a->file);
  printf("orbitals      %d, electrons %d (%d alpha, %d beta), MS2 %d, ISYM %d, core energy %.10f\n", F->norb,
         F->nelec, cis_fcidump_nalpha(F), cis_fcidump_nbeta(F), F->ms2, F->isym, F->ecore);
  print_reference(a, r);
  if (d->projected)
    printf("space         full CI: %lld determinants of symmetry ISYM %d, in vectors of all %lld (%lld alpha x %lld "
           "beta strings; point group %s)\n",
           (long long)d->symmetry_determinants, F->isym, (long long)d->determinants, (long long)d->alpha_strings,
           (long long)d->beta_strings,
           d->blocked ? "blocked by irreps: sigma and Davidson on the ISYM determinants only"
                      : "by projection, at the C1 cost");
  else
    printf("space         full CI: %lld determinants from %lld alpha x %lld beta strings (C1)\n",
           (long long)d->determinants, (long long)d->alpha_strings, (long long)d->beta_strings);
  printf("method        direct%s%s%s: matrix-free sigma (string-driven, %lld orbital pairs), no Hamiltonian stored\n",
         a->method == CI_AUTO ? " (auto: " : "", a->method == CI_AUTO ? r->why : "", a->method == CI_AUTO ? ")" : "",
         (long long)d->npair);
  if (r->G && d->blocked)
    printf("gpu           %s: blocked by irreps, gather + one cuBLAS DGEMM per pair irrep + scatter on compact "
           "vectors, %lld alpha strings per pass, %lld passes per sigma; lists %.3f MiB, D + X %.3f GiB of %.3f GiB "
           "free; one sigma %.3f ms, half sigma %.3f ms (medians of 5; 0 = not applicable)\n",
           r->ginfo.device, (long long)r->ginfo.block, (long long)r->ginfo.passes, r->ginfo.link_bytes / 1048576.0,
           r->ginfo.work_bytes / 1073741824.0, r->ginfo.free_bytes / 1073741824.0, r->sigma_ms, r->sigma_half_ms);
  else if (r->G)
    printf("gpu           %s: gather + cuBLAS DGEMM + scatter, %lld (vector, alpha string) rows per pass, %lld "
           "passes per sigma; lists %.3f MiB, D + X %.3f GiB of %.3f GiB free; one sigma %.3f ms, half sigma %.3f ms "
           "(medians of 5; 0 = not applicable)\n",
           r->ginfo.device, (long long)r->ginfo.block, (long long)r->ginfo.passes, r->ginfo.link_bytes / 1048576.0,
           r->ginfo.work_bytes / 1073741824.0, r->ginfo.free_bytes / 1073741824.0, r->sigma_ms, r->sigma_half_ms);
  else if (d->blocked)
    printf("gemm          %s, one per (alpha string, beta irrep) on the pair-irrep block of g\n", d->gemm);
  else
    printf("gemm          %s, blocks of %lld alpha strings\n", d->gemm, (long long)d->block);
  if (!r->G) /* (on the GPU the gpu line above says what the device holds) */
    printf("memory        links %.3f MiB (%d + %d per string), workspace %.3f MiB, Davidson vectors <= %.3f MiB\n",
           d->link_bytes / 1048576.0, d->alpha_links, d->beta_links, d->work_bytes / 1048576.0,
           d->vector_bytes / 1048576.0);
  printf("setup         strings, links, pair matrix and diagonal in %.3f s\n", r->t_build);
  printf("davidson      %d iterations, %lld products, %.6f s per sigma, max residual %.2e\n", r->info.iterations,
         (long long)r->info.products, r->info.products ? r->info.op_seconds / r->info.products : 0.0,
         r->info.max_residual);
  print_guess_spin(a, r);
  if (r->D && !r->G) {
    cis_ci_direct_info now;
    cis_ci_direct_get_info(r->D, &now);
    double per = now.sigma_vectors ? 1.0 / (double)now.sigma_vectors : 0.0;
    printf("sigma         %d threads: gather + GEMM + beta scatter %.6f s, alpha scatter %.6f s per vector; "
           "%lld of %lld by the time-reversal half sigma\n",
           now.threads, now.phase1_seconds * per, now.phase2_seconds * per, (long long)now.half_sigmas,
           (long long)now.sigma_vectors);
  }
  printf("time          solve %.3f s, to solution %.3f s after the parse (setup, guess, solve; then <S^2> %.3f s; "
         "%.3f s in all with the read and the sigma timing)\n", r->info.total_seconds, r->rep_s[a->repeat - 1], r->t_s2,
         r->t_total);
  if (a->repeat > 1) {
    printf("repeats       to solution");
    for (int k = 0; k < a->repeat; ++k) printf(" %.3f", r->rep_s[k]);
    printf(" s (--repeat %d in one process; the first pays CUDA's lazy module loading)\n", a->repeat);
  }
  print_roots(a, r);
}

static void print_text(const ci_args *a, const ci_run *r) {
  const cis_fcidump *F = r->F;
  if (r->direct) { print_text_direct(a, r); return; }
  cis_int n = cis_ci_space_size(r->S);
  printf("FCIDUMP       %s\n", a->file);
  printf("orbitals      %d, electrons %d (%d alpha, %d beta), MS2 %d, ISYM %d, core energy %.10f\n", F->norb,
         F->nelec, cis_fcidump_nalpha(F), cis_fcidump_nbeta(F), F->ms2, F->isym, F->ecore);
  print_reference(a, r);
  if (a->method == CI_AUTO) printf("method        stored (auto: %s)\n", r->why);
  printf("space         %s", level_name(a->level));
  if (a->level >= 0) printf(" (excitation level <= %d)", a->level);
  printf(": %lld determinants from %lld alpha x %lld beta strings\n", (long long)n,
         (long long)cis_ci_space_nalpha_strings(r->S), (long long)cis_ci_space_nbeta_strings(r->S));
  printf("hamiltonian   %lld nonzeros%s (%.1f per row), built on the %s in %.3f s\n", (long long)r->nnz,
         a->symmetric ? " in the upper triangle" : "", (double)r->nnz / (double)n, a->build ? "GPU" : "CPU",
         r->t_build);
  if (r->plan) printf("memory        device CSR %.3f MiB", cis_gpu_plan_bytes(r->plan) / 1048576.0);
  else printf("memory        host CSR %.3f MiB", cis_csr_bytes(r->H) / 1048576.0);
  for (int f = 0; r->H && f < cis_format_count() && f < 16; ++f)
    if (r->fmt_bytes[f] >= 0) printf(", %s %.3f MiB", cis_format_name(f), r->fmt_bytes[f] / 1048576.0);
    else if (r->fmt_est[f] >= 0) printf(", %s %.3f MiB (formula, not built)", cis_format_name(f), r->fmt_est[f] / 1048576.0);
  printf("\n");
  if (r->plan && cis_gpu_plan_is_symmetric(r->plan))
    printf("format        symmetric CSR (upper triangle, built on the %s), SpMV on the GPU (%s)\n",
           a->build ? "GPU" : "CPU", cis_gpu_plan_kernel(r->plan));
  else if (r->plan) printf("format        csr (built in device memory), SpMV on the GPU\n");
  else if (r->M) printf("format        %s, SpMV on the %s\n", cis_matrix_format_name(r->M), a->gpu ? "GPU" : "CPU");
  else printf("format        symmetric CSR (upper triangle) on the CPU\n");
  if (r->M && !strcmp(cis_matrix_format_name(r->M), "hyb")) printf("              BOUNDARY %lld (chosen from the matrix)\n", (long long)r->boundary);
  printf("davidson      %d iterations, %lld products, %.6f s per SpMV, max residual %.2e\n", r->info.iterations,
         (long long)r->info.products, r->info.products ? r->info.op_seconds / r->info.products : 0.0,
         r->info.max_residual);
  print_guess_spin(a, r);
  if (a->gpu)
    printf("gpu           kernel %s, device bytes %.3f MiB, upload %.3f s\n", r->gpu.kernel,
           r->gpu.device_bytes / 1048576.0, r->gpu.upload_seconds);
  printf("time          solve %.3f s, to solution %.3f s (read, space, build, format, solve)\n",
         r->info.total_seconds, r->t_total);
  print_roots(a, r);
}

/* A JSON string literal (quotes, backslashes and control characters escaped). */
static void json_string(const char *s) {
  putchar('"');
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20) printf("\\u%04x", (unsigned char)*s);
    else putchar(*s);
  }
  putchar('"');
}

static cis_int direct_half(const ci_run *r) {
  if (r->G) {
    cis_ci_direct_gpu_info g;
    cis_ci_direct_gpu_get_info(r->G, &g);
    return g.half_sigmas;
  }
  cis_ci_direct_info now;
  cis_ci_direct_get_info(r->D, &now);
  return now.half_sigmas;
}

/* Root k of the report (state q of the run) as a JSON object. */
static void print_json_root(const ci_run *r, int k, int q) {
  const cis_fcidump *F = r->F;
  if (isnan(r->s2[q])) { /* --no-s2 */
    printf("%s{\"energy\": %.12f, \"correlation\": %.12f, \"s2\": null, \"spin\": null, \"multiplicity\": null, "
           "\"state\": %d}", k ? ", " : "", r->evals[q] + F->ecore, r->evals[q] + F->ecore - r->e_rhf, q);
    return;
  }
  printf("%s{\"energy\": %.12f, \"correlation\": %.12f, \"s2\": %.8f, \"spin\": %.4f, \"multiplicity\": %d, "
         "\"state\": %d}", k ? ", " : "", r->evals[q] + F->ecore, r->evals[q] + F->ecore - r->e_rhf, r->s2[q],
         cis_ci_spin_from_s2(r->s2[q]), multiplicity(r->s2[q]), q);
}

static void print_json_direct(const ci_args *a, const ci_run *r) {
  const cis_fcidump *F = r->F;
  const cis_ci_direct_info *d = &r->dinfo;
  printf("{\"file\": ");
  json_string(a->file);
  printf(", \"norb\": %d, \"nelec\": %d, \"ms2\": %d, \"level\": -1, \"method\": \"direct\", \"determinants\": %lld, \"vector_length\": %lld, "
         "\"alpha_strings\": %lld, \"beta_strings\": %lld, \"npair\": %lld, \"block\": %lld, \"symmetry\": \"%s\", \"gemm\": ",
         F->norb, F->nelec, F->ms2, (long long)d->symmetry_determinants, (long long)d->determinants,
         (long long)d->alpha_strings,
         (long long)d->beta_strings, (long long)d->npair, (long long)d->block,
         !d->projected ? "c1" : d->blocked && !r->G ? "blocked" : "projected");
  json_string(d->gemm);
  printf(", \"device\": \"%s\", \"setup_seconds\": %.6f, \"iterations\": %d, \"products\": %lld, "
         "\"sigma_seconds\": %.9f, \"half_sigmas\": %lld, \"solve_seconds\": %.6f, \"total_seconds\": %.6f, "
         "\"parse_seconds\": %.6f, \"to_solution_seconds\": %.6f, \"s2_seconds\": %.6f, \"guess_seconds\": %.6f, "
         "\"e_rhf\": %.12f, \"ecore\": %.12f, \"memory\": {\"links\": %lld, \"workspace\": %lld, \"vectors\": %lld}, ",
         r->G ? "gpu" : "cpu", r->t_build, r->info.iterations, (long long)r->info.products,
         r->info.products ? r->info.op_seconds / r->info.products : 0.0, (long long)direct_half(r),
         r->info.total_seconds, r->t_total, r->t_parse, r->rep_s[a->repeat - 1], r->t_s2, r->t_guess, r->e_rhf,
         F->ecore, (long long)d->link_bytes, (long long)d->work_bytes, (long long)d->vector_bytes);
  printf("\"to_solution_runs\": [");
  for (int k = 0; k < a->repeat; ++k) printf("%s%.6f", k ? ", " : "", r->rep_s[k]);
  printf("], ");
  if (r->G) {
    const cis_ci_direct_gpu_info *g = &r->ginfo;
    printf("\"gpu\": {\"name\": ");
    json_string(g->device);
    printf(", \"sigma_ms\": %.6f, \"sigma_half_ms\": %.6f, \"link_bytes\": %lld, \"work_bytes\": %lld, \"free_bytes\": %lld, \"block\": %lld, "
           "\"passes\": %lld}, ",
           r->sigma_ms, r->sigma_half_ms, (long long)g->link_bytes, (long long)g->work_bytes, (long long)g->free_bytes,
           (long long)g->block, (long long)g->passes);
  }
  printf("\"roots\": [");
  for (int k = 0; k < a->roots; ++k)
    print_json_root(r, k, r->pick[k]);
  printf("]}\n");
}

static void print_json(const ci_args *a, const ci_run *r) {
  const cis_fcidump *F = r->F;
  if (r->direct) { print_json_direct(a, r); return; }
  printf("{\"file\": ");
  json_string(a->file);
  printf(", \"norb\": %d, \"nelec\": %d, \"ms2\": %d, \"level\": %d, \"method\": \"stored\", \"determinants\": %lld, "
         "\"nnz\": %lld, \"symmetric\": %s, \"format\": \"%s\", \"values\": \"%s\", \"device\": \"%s\", \"build\": \"%s\", \"build_seconds\": %.6f, "
         "\"iterations\": %d, \"products\": %lld, \"spmv_seconds\": %.9f, \"solve_seconds\": %.6f, "
         "\"total_seconds\": %.6f, \"e_rhf\": %.12f, \"ecore\": %.12f, \"reference\": \"%s\", "
         "\"orbsym_numbering\": \"%s\", \"isym\": %d, \"isym_assumed\": %s, \"pspace\": %d, \"spin_filter\": %g, "
         "\"roots_computed\": %d, ",
         F->norb, F->nelec, F->ms2, a->level, (long long)cis_ci_space_size(r->S), (long long)r->nnz,
         a->symmetric ? "true" : "false", a->symmetric ? "csr-upper" : r->plan ? "csr" : r->M ? cis_matrix_format_name(r->M) : "csr-upper",
         a->float_values ? "float" : "double", a->gpu ? "gpu" : "cpu", a->build ? "gpu" : "cpu", r->t_build, r->info.iterations, (long long)r->info.products,
         r->info.products ? r->info.op_seconds / r->info.products : 0.0, r->info.total_seconds, r->t_total, r->e_rhf,
         F->ecore, r->no_ref ? "lowest determinant" : a->occ ? "occ" : "aufbau",
         F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF ? "pyscf" : F->sym_numbering == CIS_FCIDUMP_SYM_MOLPRO ? "molpro" : "none",
         F->isym, F->isym_assumed ? "true" : "false", r->np_used, a->spin, r->nroots);
  if (a->gpu)
    printf("\"gpu\": {\"kernel\": \"%s\", \"device_bytes\": %lld, \"upload_seconds\": %.6f}, ", r->gpu.kernel,
           (long long)r->gpu.device_bytes, r->gpu.upload_seconds);
  if (r->plan) printf("\"memory\": {\"device_csr\": %lld", (long long)cis_gpu_plan_bytes(r->plan));
  else printf("\"memory\": {\"host_csr\": %lld", (long long)cis_csr_bytes(r->H));
  for (int f = 0; r->H && f < cis_format_count() && f < 16; ++f)
    if (r->fmt_bytes[f] >= 0) printf(", \"%s\": %lld", cis_format_name(f), (long long)r->fmt_bytes[f]);
  printf("}, \"roots\": [");
  for (int k = 0; k < a->roots; ++k) print_json_root(r, k, r->pick[k]);
  printf("]}\n");
}

/* --count: sizes in closed form (determinants by level and irrep), the
 * nonzeros counted exactly where that is quick (else the Slater-Condon
 * bound), and the memory each method needs against what this process may use. */
static void print_count(const ci_args *a, const ci_run *r) {
  const cis_ci_counts *c = &r->counts;
  double n = c->determinants,
         nnz = r->nnz_counted ? (double)r->count_nnz : r->nnz_est > 0 ? r->nnz_est : c->nnz_bound;
  double csr = nnz * 12 + (n + 1) * (nnz >= 4294967296.0 ? 8 : 4);
  double ell = r->nnz_counted ? n * (double)r->count_max_row * 12 : n * c->row_bound * 12;
  cis_ci_memory_need m;
  int nr = a->roots;
  cis_ci_memory(c, nr, nnz, &m);
  if (a->json) {
    printf("{\"file\": ");
    json_string(a->file);
    printf(", \"determinants\": %.0f, \"alpha_strings\": %.0f, \"beta_strings\": %.0f, \"level\": %d, \"isym\": %d, "
           "\"orbsym_numbering\": \"%s\", \"by_irrep\": [", n, c->alpha_strings, c->beta_strings, a->level, r->F->isym,
           cis_fcidump_numbering_name(r->F->sym_numbering));
    for (int g = 0; g < 8; ++g) printf("%s%.0f", g ? ", " : "", c->per_irrep[g]);
    printf("], \"by_level\": [");
    for (int l = 0; l <= c->level; ++l) printf("%s%.0f", l ? ", " : "", c->per_level[l]);
    printf("], \"nnz\": %.0f, \"nnz_exact\": %s, \"nnz_estimated\": %s, \"max_row\": %.0f, \"symmetric\": %s, \"count_seconds\": %.6f, "
           "\"memory\": {\"csr\": %.0f, \"ell\": %.0f, \"space\": %.0f, \"vectors\": %.0f, \"stored\": %.0f, \"direct\": %.0f, "
           "\"limit\": %lld, \"limit_from\": \"%s\"}}\n",
           nnz, r->nnz_counted ? "true" : "false", !r->nnz_counted && r->nnz_est > 0 ? "true" : "false", r->nnz_counted ? (double)r->count_max_row : c->row_bound,
           a->symmetric ? "true" : "false", r->t_build, csr, ell, m.space, m.vectors, m.stored, m.direct,
           (long long)r->mem_limit, r->mem_why);
    return;
  }
  if (n < 9007199254740992.0)
    printf("determinants  %.0f (closed form; %.0f alpha x %.0f beta strings kept)\n", n, c->alpha_strings, c->beta_strings);
  else
    printf("determinants  %.6e (closed form; %.0f alpha x %.0f beta strings kept)\n", n, c->alpha_strings, c->beta_strings);
  if (a->level >= 0) {
    printf("by level     ");
    for (int l = 0; l <= c->level; ++l) printf(" %d: %.0f", l, c->per_level[l]);
    printf("\n");
  }
  if (r->F->sym_numbering != CIS_FCIDUMP_SYM_NONE) {
    printf("by irrep      (1-based)");
    for (int g = 0; g < 8; ++g) if (c->per_irrep[g] > 0) printf(" %d: %.0f", g + 1, c->per_irrep[g]);
    printf("; ISYM %d\n", r->F->isym);
  }
  if (r->nnz_counted)
    printf("nonzeros      %lld%s, longest row %lld (counted in %.3f s)\n", (long long)r->count_nnz,
           a->symmetric ? " in the upper triangle" : "", (long long)r->count_max_row, r->t_build);
  else if (r->nnz_est > 0)
    printf("nonzeros      about %.4g (from %lld sampled rows; at most %.4g, %.0f per row)\n", r->nnz_est,
           (long long)r->nnz_sampled, c->nnz_bound, c->row_bound);
  else
    printf("nonzeros      at most %.4g (%.0f per row: 1 + singles + doubles; not counted, too large to count quickly)\n",
           nnz, c->row_bound);
  printf("memory        csr %.3f GiB, ell %.3f GiB (formulas)\n", gib(csr), gib(ell));
  printf("              stored Hamiltonian: %.3f GiB (space %.3f + Davidson vectors for %d root%s %.3f + matrix %.3f)\n",
         gib(m.stored), gib(m.space), nr, nr > 1 ? "s" : "", gib(m.vectors), gib(m.matrix));
  printf("              matrix-free: %.3f GiB (space + vectors)\n", gib(m.direct));
  printf("              this process may use %.3f GiB (%s); runs that do not fit are refused\n", gib((double)r->mem_limit),
         r->mem_why);
}

int cis_cmd_ci(int argc, char **argv) {
  ci_args a;
  ci_run r;
  if (cli_dist_wanted(argc, argv)) return cli_dist_ci(argc, argv); /* --gpus N: cmd_dist.c */
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  memset(&r, 0, sizeof r);
  cis_status st = compute(&a, &r);
  if (st == CIS_OK && a.count) {
    print_count(&a, &r);
  } else if (st == CIS_OK) { /* an unconverged root is an error, not a result */
    if (a.json) print_json(&a, &r); else print_text(&a, &r);
  }
  rc = st == CIS_OK ? 0 : cli_fail(st);
  run_free(&r);
  return rc;
}
