/* cmd_ci.c: `cisparse ci FILE.FCIDUMP ...`: CI ground (and excited) states:
 * read the integrals, find the reference, build the determinant space and the
 * Slater-Condon Hamiltonian, store it in a format, run Davidson on the CPU or
 * with the SpMV on the GPU, print energies, sizes and timings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

typedef struct ci_args {
  const char *file, *format, *occ, *kernel, *save;
  int level, roots, gpu, symmetric, json, verbose, count;
  int build; /* 0 cpu, 1 gpu, -1 not given (gpu with --device gpu, else cpu) */
  int format_set;
  int method; /* CI_STORED, CI_DIRECT, CI_AUTO */
  double tol;
} ci_args;

enum { CI_STORED = 0, CI_DIRECT = 1, CI_AUTO = 2 };

typedef struct ci_run {
  cis_fcidump *F;
  cis_ci_space *S;
  cis_csr *H;             /* host build */
  cis_gpu_plan *plan;     /* device build (csr on the GPU) */
  cis_int nnz;
  cis_matrix *M;
  double *diag, *evals;
  uint64_t ref_a, ref_b;
  double e_rhf, t_build, t_total;
  cis_int fmt_bytes[16], fmt_est[16];
  cis_int boundary;
  cis_davidson_info info;
  cis_ci_gpu_stats gpu;
  cis_int count_nnz, count_max_row;
  cis_ci_direct *D;       /* --method direct: the matrix-free sigma */
  cis_operator *op;       /* D as an operator */
  cis_ci_direct_info dinfo;
  int direct;             /* the method that ran: 1 direct, 0 stored */
  const char *why;        /* why auto chose what it chose */
} ci_run;

static void usage(FILE *f) {
  fprintf(f, "usage: cisparse ci FILE.FCIDUMP [--level N|full] [--roots k] [--format NAME] [--device cpu|gpu]\n"
             "                  [--build cpu|gpu] [--symmetric] [--occ LIST] [--tol X] [--json] [--verbose]\n"
             "  --level N     excitation level relative to the reference (2 = CISD); default full CI\n"
             "  --roots k     lowest k eigenvalues (default 1)\n"
             "  --format F    storage format for the SpMV (default hyb; csr ell ellr sell sellr sellcs csb csr5)\n"
             "  --device      cpu (default) or gpu (Davidson on the device: cis_gpu_spmv + cuBLAS)\n"
             "  --build       where the Hamiltonian is built: gpu (default with --device gpu: in device\n"
             "                memory as CSR, SpMV csr-vector) or cpu (OpenMP, then --format, uploaded)\n"
             "  --kernel K    GPU kernel of the format (cisparse/gpu.h; default: the format's default)\n"
             "  --symmetric   store only the upper triangle, symmetric CSR SpMV (CPU)\n"
             "  --occ LIST    reference occupation, 1-based: 1,2,3 (doubly occupied) or ALPHA/BETA lists\n"
             "  --tol X       Davidson residual norm tolerance (default 1e-8; energies to 1e-10)\n"
             "  --count       only count: determinants, nonzeros, longest row and CSR/ELLPACK bytes\n"
             "                (the counting pass of the build), to size memory before a large run\n"
             "  --save FILE   also write the Hamiltonian (.cisb binary, else Matrix Market), e.g. for\n"
             "                `cisparse bench FILE` against cuSPARSE on the same matrix\n"
             "  --method M    stored (default: build H, then SpMV), direct (matrix-free string-driven\n"
             "                sigma on the CPU: full CI of the file's orbitals, no H built; point group\n"
             "                by projection at the C1 cost) or auto\n"
             "                (direct for full CI in C1 with 1-2 roots, or when the stored H would take\n"
             "                over half the host memory; else stored)\n");
}

static int parse_args(int argc, char **argv, ci_args *a) {
  long long v;
  *a = (ci_args){NULL, "hyb", NULL, NULL, NULL, -1, 1, 0, 0, 0, 0, 0, -1, 0, CI_STORED, 1e-8};
  int stored_opt = 0; /* an option that needs the stored matrix */
  for (int i = 1; i < argc; ++i) {
    const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) { usage(stdout); return -1; }
    if (!strcmp(o, "--symmetric")) { a->symmetric = 1; continue; }
    if (!strcmp(o, "--json")) { a->json = 1; continue; }
    if (!strcmp(o, "--verbose")) { a->verbose = 1; continue; }
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
  stored_opt = a->symmetric || a->count || a->save || a->format_set || a->kernel || a->gpu || a->build >= 0;
  if (a->method == CI_DIRECT) {
    if (a->level >= 0)
      return cli_usage("--method direct is full CI only (--level full); truncated CI needs --method stored");
    if (a->gpu) return cli_usage("--method direct runs on the CPU (the GPU direct sigma is not implemented yet)");
    if (stored_opt)
      return cli_usage("--method direct stores no matrix: --format, --symmetric, --count, --save, --kernel and "
                       "--build need --method stored");
  }
  if (a->method == CI_AUTO && (a->level >= 0 || stored_opt)) a->method = CI_STORED; /* only stored can do these */
  if (a->kernel && !a->gpu) return cli_usage("--kernel needs --device gpu");
  if (a->symmetric && a->gpu) return cli_usage("--symmetric is the CPU symmetric-CSR SpMV; it does not run on --device gpu");
  if (a->build == 1 && !a->gpu) return cli_usage("--build gpu needs --device gpu (the matrix stays on the device)");
  if (a->build < 0) a->build = a->gpu && !a->symmetric;
  if (a->build == 1 && a->format_set && strcmp(a->format, "csr"))
    return cli_usage("--format %s needs --build cpu (the GPU build stores CSR on the device)", a->format);
  if (a->build == 1 && a->kernel) return cli_usage("--kernel needs --build cpu (the GPU build runs csr-vector)");
  if (a->build == 1 && a->save) return cli_usage("--save needs --build cpu (the GPU-built matrix stays on the device)");
  return 0;
}

static void run_free(ci_run *r) {
  cis_operator_free(r->op);
  cis_ci_direct_free(r->D);
  cis_matrix_free(r->M);
  cis_gpu_plan_free(r->plan);
  cis_csr_free(r->H);
  cis_ci_space_free(r->S);
  cis_fcidump_free(r->F);
  free(r->diag);
  free(r->evals);
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
static int auto_direct(const cis_fcidump *F, int roots, const char **why) {
  const int n = F->norb, na = cis_fcidump_nalpha(F), nb = cis_fcidump_nbeta(F);
  int sym = F->isym != 1;
  for (int p = 0; p < n; ++p) sym |= F->orbsym[p] != 1;
  if (sym) { *why = "point-group symmetry (direct would project at the C1 cost): stored"; return 0; }
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

static cis_status compute_direct(const ci_args *a, ci_run *r, double t0) {
  cis_status st;
  cis_ci_direct_opts dopt = cis_ci_direct_opts_default();
  cis_davidson_opts o = cis_davidson_opts_default();
  o.roots = a->roots;
  o.tol = a->tol;
  o.verbose = a->verbose;
  int max_sub = o.max_sub > 0 ? o.max_sub : (8 * a->roots > 24 ? 8 * a->roots : 24);
  dopt.vectors = 2 * max_sub + 2 * a->roots + 2; /* subspace, its products, Ritz vectors, residuals */
  double tb = cis_wtime();
  CIS_TRY(cis_ci_direct_create(r->F, &dopt, &r->D));
  cis_ci_direct_get_info(r->D, &r->dinfo);
  cis_int n = cis_ci_direct_size(r->D);
  if (a->roots > n) return cis_error(CIS_ERR_INVALID, "--roots %d exceeds the %lld determinants", a->roots, (long long)n);
  CIS_TRY(cis_ci_direct_operator(r->D, &r->op));
  r->t_build = cis_wtime() - tb; /* strings, links, pair matrix, diagonal */
  r->evals = malloc((size_t)a->roots * sizeof(double));
  if (!r->evals) return cis_error(CIS_ERR_ALLOC, "cannot allocate %d eigenvalues", a->roots);
  st = cis_davidson_operator(r->op, cis_operator_diagonal(r->op), &o, r->evals, NULL, &r->info);
  r->t_total = cis_wtime() - t0;
  return st;
cleanup:
  return st;
}

static cis_status compute(const ci_args *a, ci_run *r) {
  cis_status st;
  double t0 = cis_wtime();
  CIS_TRY(cis_fcidump_read(a->file, &r->F));
  if (a->occ) CIS_TRY(cis_ci_parse_occ(r->F, a->occ, &r->ref_a, &r->ref_b));
  else CIS_TRY(cis_ci_find_reference(r->F, &r->ref_a, &r->ref_b));
  r->e_rhf = cis_ci_diagonal(r->F, r->ref_a, r->ref_b) + r->F->ecore;
  r->direct = a->method == CI_DIRECT || (a->method == CI_AUTO && auto_direct(r->F, a->roots, &r->why));
  if (r->direct) return compute_direct(a, r, t0);
  CIS_TRY(cis_ci_space_create(r->F, a->level, r->ref_a, r->ref_b, &r->S));
  cis_int n = cis_ci_space_size(r->S);
  if (a->roots > n) return cis_error(CIS_ERR_INVALID, "--roots %d exceeds the %lld determinants", a->roots, (long long)n);
  double tb = cis_wtime();
  if (a->count) {
    CIS_TRY(cis_ci_hamiltonian_nnz(r->F, r->S, a->symmetric, &r->count_nnz, &r->count_max_row));
    r->t_build = cis_wtime() - tb;
    return CIS_OK;
  }
  if (a->build) {
    CIS_TRY(cis_ci_hamiltonian_gpu(r->F, r->S, &r->plan, &r->nnz));
    r->t_build = cis_wtime() - tb;
  } else {
    CIS_TRY(cis_ci_hamiltonian(r->F, r->S, a->symmetric, &r->H));
    r->t_build = cis_wtime() - tb;
    r->nnz = r->H->nnz;
    if (a->save) CIS_TRY(cis_save(a->save, r->H));
  }
  if (r->H && !a->symmetric) {
    cis_format_params p = cis_format_params_default(); /* hyb: BOUNDARY < 0 = chosen from the matrix */
    CIS_TRY(cis_matrix_create(r->H, a->format, &p, &r->M));
    cis_hyb_split h;
    if (!strcmp(cis_matrix_format_name(r->M), "hyb")) {
      CIS_TRY(cis_matrix_hyb_split(r->M, &h));
      r->boundary = h.boundary;
    }
  }
  if (r->H) format_memory(r, a);
  r->diag = malloc((size_t)n * sizeof(double));
  r->evals = malloc((size_t)a->roots * sizeof(double));
  if (!r->diag || !r->evals)
    return cis_error(CIS_ERR_ALLOC, "cannot allocate the Hamiltonian diagonal (%lld doubles)", (long long)n);
  CIS_TRY(cis_ci_diagonal_all(r->F, r->S, r->diag));
  cis_davidson_opts o = cis_davidson_opts_default();
  o.roots = a->roots;
  o.tol = a->tol;
  o.verbose = a->verbose;
  if (r->plan) {
    st = cis_ci_davidson_gpu_plan(r->plan, r->diag, &o, r->evals, NULL, &r->info, &r->gpu);
  } else if (a->gpu) {
    st = cis_ci_davidson_gpu(r->M, a->kernel, r->diag, &o, r->evals, NULL, &r->info, &r->gpu);
  } else {
    cpu_op op = {r->M, a->symmetric ? r->H : NULL};
    st = cis_davidson(n, r->diag, cpu_apply, &op, &o, r->evals, NULL, &r->info);
  }
  r->t_total = cis_wtime() - t0;
  return st;
cleanup:
  return st;
}

static const char *level_name(int level) {
  static const char *names[] = {"reference only", "CIS", "CISD", "CISDT", "CISDTQ"};
  return level < 0 ? "full CI" : level <= 4 ? names[level] : "truncated CI";
}

static void print_occ(FILE *f, uint64_t s) {
  int first = 1;
  for (int p = 0; p < 64; ++p)
    if (s >> p & 1) { fprintf(f, first ? "%d" : ",%d", p + 1); first = 0; }
}

/* --method direct: what was built instead of H, and the sigma timings. */
static void print_text_direct(const ci_args *a, const ci_run *r) {
  const cis_fcidump *F = r->F;
  const cis_ci_direct_info *d = &r->dinfo;
  printf("FCIDUMP       %s\n", a->file);
  printf("orbitals      %d, electrons %d (%d alpha, %d beta), MS2 %d, ISYM %d, core energy %.10f\n", F->norb,
         F->nelec, cis_fcidump_nalpha(F), cis_fcidump_nbeta(F), F->ms2, F->isym, F->ecore);
  printf("reference     alpha ");
  print_occ(stdout, r->ref_a);
  printf(" / beta ");
  print_occ(stdout, r->ref_b);
  printf(", E_RHF %.10f%s\n", r->e_rhf, a->occ ? " (--occ)" : "");
  if (d->projected)
    printf("space         full CI: %lld determinants of symmetry ISYM %d, in vectors of all %lld (%lld alpha x %lld "
           "beta strings; point group by projection, at the C1 cost)\n",
           (long long)d->symmetry_determinants, F->isym, (long long)d->determinants, (long long)d->alpha_strings,
           (long long)d->beta_strings);
  else
    printf("space         full CI: %lld determinants from %lld alpha x %lld beta strings (C1)\n",
           (long long)d->determinants, (long long)d->alpha_strings, (long long)d->beta_strings);
  printf("method        direct%s%s%s: matrix-free sigma (string-driven, %lld orbital pairs), no Hamiltonian stored\n",
         a->method == CI_AUTO ? " (auto: " : "", a->method == CI_AUTO ? r->why : "", a->method == CI_AUTO ? ")" : "",
         (long long)d->npair);
  printf("gemm          %s, blocks of %lld alpha strings\n", d->gemm, (long long)d->block);
  printf("memory        links %.3f MiB (%d + %d per string), workspace %.3f MiB, Davidson vectors <= %.3f MiB\n",
         d->link_bytes / 1048576.0, d->alpha_links, d->beta_links, d->work_bytes / 1048576.0,
         d->vector_bytes / 1048576.0);
  printf("setup         strings, links, pair matrix and diagonal in %.3f s\n", r->t_build);
  printf("davidson      %d iterations, %lld products, %.6f s per sigma, max residual %.2e\n", r->info.iterations,
         (long long)r->info.products, r->info.products ? r->info.op_seconds / r->info.products : 0.0,
         r->info.max_residual);
  if (r->D) {
    cis_ci_direct_info now;
    cis_ci_direct_get_info(r->D, &now);
    double per = now.sigma_vectors ? 1.0 / (double)now.sigma_vectors : 0.0;
    printf("sigma         %d threads: gather + GEMM + beta scatter %.6f s, alpha scatter %.6f s per vector; "
           "%lld of %lld by the time-reversal half sigma\n",
           now.threads, now.phase1_seconds * per, now.phase2_seconds * per, (long long)now.half_sigmas,
           (long long)now.sigma_vectors);
  }
  printf("time          solve %.3f s, to solution %.3f s (read, setup, solve)\n", r->info.total_seconds, r->t_total);
  for (int k = 0; k < a->roots; ++k)
    printf("root %-3d      E = %.10f   E_corr = %.10f\n", k, r->evals[k] + F->ecore, r->evals[k] + F->ecore - r->e_rhf);
}

static void print_text(const ci_args *a, const ci_run *r) {
  const cis_fcidump *F = r->F;
  if (r->direct) { print_text_direct(a, r); return; }
  cis_int n = cis_ci_space_size(r->S);
  printf("FCIDUMP       %s\n", a->file);
  printf("orbitals      %d, electrons %d (%d alpha, %d beta), MS2 %d, ISYM %d, core energy %.10f\n", F->norb,
         F->nelec, cis_fcidump_nalpha(F), cis_fcidump_nbeta(F), F->ms2, F->isym, F->ecore);
  printf("reference     alpha ");
  print_occ(stdout, r->ref_a);
  printf(" / beta ");
  print_occ(stdout, r->ref_b);
  printf(", E_RHF %.10f%s\n", r->e_rhf, a->occ ? " (--occ)" : "");
  if (a->method == CI_AUTO) printf("method        stored (auto: %s)\n", r->why);
  printf("space         %s", level_name(a->level));
  if (a->level >= 0) printf(" (excitation level <= %d)", a->level);
  printf(": %lld determinants from %lld alpha x %lld beta strings\n", (long long)n,
         (long long)cis_ci_space_nalpha_strings(r->S), (long long)cis_ci_space_nbeta_strings(r->S));
  printf("hamiltonian   %lld nonzeros%s (%.1f per row), built on the %s in %.3f s\n", (long long)r->nnz,
         a->symmetric ? " in the upper triangle" : "", (double)r->nnz / (double)n, r->plan ? "GPU" : "CPU",
         r->t_build);
  if (r->plan) printf("memory        device CSR %.3f MiB", cis_gpu_plan_bytes(r->plan) / 1048576.0);
  else printf("memory        host CSR %.3f MiB", cis_csr_bytes(r->H) / 1048576.0);
  for (int f = 0; r->H && f < cis_format_count() && f < 16; ++f)
    if (r->fmt_bytes[f] >= 0) printf(", %s %.3f MiB", cis_format_name(f), r->fmt_bytes[f] / 1048576.0);
    else if (r->fmt_est[f] >= 0) printf(", %s %.3f MiB (formula, not built)", cis_format_name(f), r->fmt_est[f] / 1048576.0);
  printf("\n");
  if (r->plan) printf("format        csr (built in device memory), SpMV on the GPU\n");
  else if (r->M) printf("format        %s, SpMV on the %s\n", cis_matrix_format_name(r->M), a->gpu ? "GPU" : "CPU");
  else printf("format        symmetric CSR (upper triangle) on the CPU\n");
  if (r->M && !strcmp(cis_matrix_format_name(r->M), "hyb")) printf("              BOUNDARY %lld (chosen from the matrix)\n", (long long)r->boundary);
  printf("davidson      %d iterations, %lld products, %.6f s per SpMV, max residual %.2e\n", r->info.iterations,
         (long long)r->info.products, r->info.products ? r->info.op_seconds / r->info.products : 0.0,
         r->info.max_residual);
  if (a->gpu)
    printf("gpu           kernel %s, device bytes %.3f MiB, upload %.3f s\n", r->gpu.kernel,
           r->gpu.device_bytes / 1048576.0, r->gpu.upload_seconds);
  printf("time          solve %.3f s, to solution %.3f s (read, space, build, format, solve)\n",
         r->info.total_seconds, r->t_total);
  for (int k = 0; k < a->roots; ++k)
    printf("root %-3d      E = %.10f   E_corr = %.10f\n", k, r->evals[k] + F->ecore, r->evals[k] + F->ecore - r->e_rhf);
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
  cis_ci_direct_info now;
  cis_ci_direct_get_info(r->D, &now);
  return now.half_sigmas;
}

static void print_json_direct(const ci_args *a, const ci_run *r) {
  const cis_fcidump *F = r->F;
  const cis_ci_direct_info *d = &r->dinfo;
  printf("{\"file\": ");
  json_string(a->file);
  printf(", \"norb\": %d, \"nelec\": %d, \"ms2\": %d, \"level\": -1, \"method\": \"direct\", \"determinants\": %lld, \"vector_length\": %lld, "
         "\"alpha_strings\": %lld, \"beta_strings\": %lld, \"npair\": %lld, \"block\": %lld, \"gemm\": ",
         F->norb, F->nelec, F->ms2, (long long)d->symmetry_determinants, (long long)d->determinants,
         (long long)d->alpha_strings,
         (long long)d->beta_strings, (long long)d->npair, (long long)d->block);
  json_string(d->gemm);
  printf(", \"device\": \"cpu\", \"setup_seconds\": %.6f, \"iterations\": %d, \"products\": %lld, "
         "\"sigma_seconds\": %.9f, \"half_sigmas\": %lld, \"solve_seconds\": %.6f, \"total_seconds\": %.6f, \"e_rhf\": %.12f, "
         "\"ecore\": %.12f, \"memory\": {\"links\": %lld, \"workspace\": %lld, \"vectors\": %lld}, \"roots\": [",
         r->t_build, r->info.iterations, (long long)r->info.products,
         r->info.products ? r->info.op_seconds / r->info.products : 0.0, (long long)direct_half(r),
         r->info.total_seconds, r->t_total, r->e_rhf, F->ecore, (long long)d->link_bytes, (long long)d->work_bytes, (long long)d->vector_bytes);
  for (int k = 0; k < a->roots; ++k)
    printf("%s{\"energy\": %.12f, \"correlation\": %.12f}", k ? ", " : "", r->evals[k] + F->ecore,
           r->evals[k] + F->ecore - r->e_rhf);
  printf("]}\n");
}

static void print_json(const ci_args *a, const ci_run *r) {
  const cis_fcidump *F = r->F;
  if (r->direct) { print_json_direct(a, r); return; }
  printf("{\"file\": ");
  json_string(a->file);
  printf(", \"norb\": %d, \"nelec\": %d, \"ms2\": %d, \"level\": %d, \"method\": \"stored\", \"determinants\": %lld, "
         "\"nnz\": %lld, \"symmetric\": %s, \"format\": \"%s\", \"device\": \"%s\", \"build\": \"%s\", \"build_seconds\": %.6f, "
         "\"iterations\": %d, \"products\": %lld, \"spmv_seconds\": %.9f, \"solve_seconds\": %.6f, "
         "\"total_seconds\": %.6f, \"e_rhf\": %.12f, \"ecore\": %.12f, ",
         F->norb, F->nelec, F->ms2, a->level, (long long)cis_ci_space_size(r->S), (long long)r->nnz,
         a->symmetric ? "true" : "false", r->plan ? "csr" : r->M ? cis_matrix_format_name(r->M) : "csr-upper",
         a->gpu ? "gpu" : "cpu", r->plan ? "gpu" : "cpu", r->t_build, r->info.iterations, (long long)r->info.products,
         r->info.products ? r->info.op_seconds / r->info.products : 0.0, r->info.total_seconds, r->t_total, r->e_rhf,
         F->ecore);
  if (a->gpu)
    printf("\"gpu\": {\"kernel\": \"%s\", \"device_bytes\": %lld, \"upload_seconds\": %.6f}, ", r->gpu.kernel,
           (long long)r->gpu.device_bytes, r->gpu.upload_seconds);
  if (r->plan) printf("\"memory\": {\"device_csr\": %lld", (long long)cis_gpu_plan_bytes(r->plan));
  else printf("\"memory\": {\"host_csr\": %lld", (long long)cis_csr_bytes(r->H));
  for (int f = 0; r->H && f < cis_format_count() && f < 16; ++f)
    if (r->fmt_bytes[f] >= 0) printf(", \"%s\": %lld", cis_format_name(f), (long long)r->fmt_bytes[f]);
  printf("}, \"roots\": [");
  for (int k = 0; k < a->roots; ++k)
    printf("%s{\"energy\": %.12f, \"correlation\": %.12f}", k ? ", " : "", r->evals[k] + F->ecore,
           r->evals[k] + F->ecore - r->e_rhf);
  printf("]}\n");
}

/* --count: sizes without building (CSR: 12 bytes per nonzero + 4|8 per row
 * pointer; ELLPACK: rows x longest row x 12). */
static void print_count(const ci_args *a, const ci_run *r) {
  cis_int n = cis_ci_space_size(r->S), nnz = r->count_nnz;
  double csr = (double)nnz * 12 + (double)(n + 1) * (nnz >= ((int64_t)1 << 32) ? 8 : 4);
  double ell = (double)n * (double)r->count_max_row * 12;
  if (a->json) {
    printf("{\"file\": ");
    json_string(a->file);
    printf(", \"determinants\": %lld, \"nnz\": %lld, \"max_row\": %lld, \"symmetric\": %s, \"count_seconds\": %.6f, "
           "\"memory\": {\"csr\": %.0f, \"ell\": %.0f}}\n", (long long)n, (long long)nnz, (long long)r->count_max_row,
           a->symmetric ? "true" : "false", r->t_build, csr, ell);
    return;
  }
  printf("determinants  %lld\nnonzeros      %lld%s, longest row %lld (counted in %.3f s)\n", (long long)n,
         (long long)nnz, a->symmetric ? " in the upper triangle" : "", (long long)r->count_max_row, r->t_build);
  printf("memory        csr %.3f GiB, ell %.3f GiB (formulas)\n", csr / 1073741824.0, ell / 1073741824.0);
}

int cis_cmd_ci(int argc, char **argv) {
  ci_args a;
  ci_run r;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  memset(&r, 0, sizeof r);
  cis_status st = compute(&a, &r);
  if (st == CIS_OK && a.count) {
    print_count(&a, &r);
  } else if (st == CIS_OK || (st == CIS_ERR_NOT_CONVERGED && r.evals)) {
    if (a.json) print_json(&a, &r); else print_text(&a, &r);
  }
  rc = st == CIS_OK ? 0 : cli_fail(st);
  run_free(&r);
  return rc;
}
