/* ci_report.c: `cisparse ci`'s text report, one printer for one process
 * and for the run over parts (--gpus, --cpu-parts, --mpi): the header
 * before the work, the result, --count's sizes, the progress lines and the
 * options a run did not use. The JSON report is ci_report_json.c. */
#include <math.h>
#include <string.h>
#include "cli/ci_cmd.h"

static double gib(double bytes) { return bytes / 1073741824.0; }

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

int ci_multiplicity(double s2) { return (int)floor(2 * cis_ci_spin_from_s2(s2) + 1.5); }

const char *ci_irrep_text(const cis_fcidump *F, int k, char buf[24]) {
  const char *name = cis_fcidump_irrep_name(F, k);
  if (name) snprintf(buf, 24, "%d (%s)", k, name);
  else snprintf(buf, 24, "%d", k);
  return buf;
}

/* How ORBSYM and ISYM were read. */
static void print_symmetry(FILE *f, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  char k[24];
  fprintf(f, "symmetry      ORBSYM numbering %s", cis_fcidump_numbering_name(F->sym_numbering));
  if (F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF) fprintf(f, ", irreps shown 1-based (id + 1)");
  if (F->isym_assumed)
    fprintf(f, "; ISYM=1 read as the totally symmetric irrep (PySCF writes ISYM=1 always; --isym N to choose)");
  else if (F->sym_numbering != CIS_FCIDUMP_SYM_NONE)
    fprintf(f, "; target irrep ISYM=%s", ci_irrep_text(F, F->isym, k));
  fprintf(f, "\n");
}

/* The file, orbitals, symmetry and reference lines. */
static void print_reference(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  char k[24];
  fprintf(f, "FCIDUMP       %s\n", a->file);
  fprintf(f, "orbitals      %d, electrons %d (%d alpha, %d beta), MS2 %d, ISYM %s, core energy %.10f Eh\n", F->norb,
          F->nelec, cis_fcidump_nalpha(F), cis_fcidump_nbeta(F), F->ms2, ci_irrep_text(F, F->isym, k), F->ecore);
  print_symmetry(f, R);
  if (R->no_reference) {
    fprintf(f, "reference     none of symmetry ISYM near the aufbau determinant (full CI needs none);\n"
               "              E_corr below is relative to the lowest determinant, %.10f Eh\n", R->e_reference);
  } else {
    fprintf(f, "reference     alpha ");
    print_occ(f, R->ref_alpha);
    fprintf(f, " / beta ");
    print_occ(f, R->ref_beta);
    fprintf(f, ", E_RHF %.10f Eh%s\n", R->e_reference, a->o.occ ? " (--occ)" : "");
  }
}

/* The guess and --spin lines. */
static void print_guess_spin(const ci_args *a, const cis_ci_result *R) {
  printf("guess         P-space of %d determinants (lowest diagonal elements), diagonalised exactly, in %.3f s\n",
         R->pspace_used, R->t_guess);
  if (a->o.spin >= 0)
    printf("spin          --spin %g: %d roots computed, those with <S^2> = %g kept\n", a->o.spin, R->computed,
           a->o.spin * (a->o.spin + 1));
}


/* One line per reported root: energy; for root 0 its correlation energy
 * (against the reference), for root k > 0 its excitation energy E_k - E_0
 * (Eh and eV); <S^2>, S, multiplicity. */
static void print_roots(const ci_args *a, const cis_ci_result *R) {
  for (int k = 0; k < a->o.roots; ++k) {
    const int q = R->state[k];
    const double e = R->energies[k], de = e - R->energies[0];
    printf("root %-3d      E = %.10f Eh   ", k, e);
    if (k == 0) printf("E_corr = %.10f Eh", e - R->e_reference);
    else printf("E - E0 = %.10f Eh = %.4f eV", de, de * CI_EV_PER_EH);
    if (a->o.no_s2) printf("   <S^2> not computed (--no-s2)");
    else printf("   <S^2> = %.6f  S = %.2f  %s", R->s2[k], cis_ci_spin_from_s2(R->s2[k]),
                multiplicity_name(ci_multiplicity(R->s2[k])));
    if (q != k) printf("  (state %d of this Ms)", q);
    printf("\n");
  }
}

/* The direct path's header: the space, the method and why, and on the CPU
 * the GEMM and the memory (known once the strings and links are made). */
static void print_header_direct(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  const cis_ci_direct_info *d = &R->direct;
  char k[24];
  if (d->projected)
    fprintf(f, "space         full CI: %lld determinants of symmetry ISYM %s, in vectors of all %lld (%lld alpha x %lld "
               "beta strings; point group %s)\n",
            (long long)d->symmetry_determinants, ci_irrep_text(F, F->isym, k), (long long)d->determinants, (long long)d->alpha_strings,
            (long long)d->beta_strings,
            d->blocked ? "blocked by irreps: sigma and Davidson on the ISYM determinants only"
                       : "by projection, at the C1 cost");
  else
    fprintf(f, "space         full CI: %lld determinants from %lld alpha x %lld beta strings (C1)\n",
            (long long)d->determinants, (long long)d->alpha_strings, (long long)d->beta_strings);
  fprintf(f, "method        direct (%s%s): matrix-free sigma (string-driven, %lld orbital pairs), no Hamiltonian stored\n",
          a->method_auto ? "auto: " : "", a->method_auto ? R->why : a->method_why, (long long)d->npair);
  if (R->gpu) return; /* the gpu line after the setup says what the device holds */
  if (d->blocked)
    fprintf(f, "gemm          %s, one per (alpha string, beta irrep) on the pair-irrep block of g\n", d->gemm);
  else
    fprintf(f, "gemm          %s, blocks of %lld alpha strings\n", d->gemm, (long long)d->block);
  fprintf(f, "memory        links %.3f MiB (%d + %d per string), workspace %.3f MiB, Davidson vectors <= %.3f MiB\n",
          d->link_bytes / 1048576.0, d->alpha_links, d->beta_links, d->work_bytes / 1048576.0,
          d->vector_bytes / 1048576.0);
}

/* The stored path's header: the method and why, the space, and the
 * Hamiltonian's size estimated from sampled rows (before it is built). */
static void print_header_stored(FILE *f, const ci_args *a, const cis_ci_result *R) {
  cis_int n = R->determinants;
  fprintf(f, "method        stored (%s%s): the Hamiltonian built and kept, Davidson by SpMV\n",
          a->method_auto ? "auto: " : "", a->method_auto ? R->why : a->method_why);
  fprintf(f, "space         %s", level_name(a->o.level));
  if (a->o.level >= 0) fprintf(f, " (excitation level <= %d)", a->o.level);
  fprintf(f, ": %lld determinants from %lld alpha x %lld beta strings\n", (long long)n,
          (long long)R->alpha_strings, (long long)R->beta_strings);
  if (R->nnz_estimate > 0)
    fprintf(f, "estimate      about %.4g nonzeros%s (from %lld sampled rows), CSR about %.3f MiB; this process may use "
               "%.1f GiB (%s)\n",
            R->nnz_estimate, a->o.symmetric ? " in the upper triangle" : "", (long long)R->nnz_sampled,
            (R->nnz_estimate * 12 + 4.0 * (double)(n + 1)) / 1048576.0, gib((double)R->mem_limit), R->mem_why);
  if (R->build_estimate > 0)
    fprintf(f, "              build about %.2g s (two passes over the rows at the sampled rows' pace)\n", R->build_estimate);
}

/* Selected CI (--strings): the sets' product, the method. */
static void print_header_selected(FILE *f, const ci_args *a, const cis_ci_result *R) {
  fprintf(f, "space         selected CI: %lld determinants from %lld alpha x %lld beta strings (--strings %s: sorted, "
             "repeats dropped)\n", (long long)R->determinants, (long long)R->alpha_strings, (long long)R->beta_strings,
          a->strings);
  fprintf(f, "method        selected: the sets' P H P by the string-driven sigma on the CPU, ORBSYM not used\n");
}

void ci_report_header(FILE *f, const ci_args *a, const cis_ci_result *R) {
  print_reference(f, a, R);
  if (R->method == CIS_CI_METHOD_SELECTED) print_header_selected(f, a, R);
  else if (R->method == CIS_CI_METHOD_DIRECT) print_header_direct(f, a, R);
  else print_header_stored(f, a, R);
  fflush(f);
}

/* --time-sigma: the sigma timed apart from the solve (direct). */
static void print_sigma_timing(const cis_ci_result *R) {
  const double(*sp)[3] = R->direct_gpu.split_ms;
  printf("timing        one sigma %.3f ms", R->sigma_ms);
  if (R->gpu) printf(", half sigma %.3f ms", R->sigma_half_ms);
  printf(" (--time-sigma: medians of 5 on a pseudo-random vector, %.3f s apart from the solve%s)\n", R->t_timing,
         R->gpu ? "; 0 = no half sigma here" : "");
  if (R->gpu && !R->direct.blocked)
    printf("kernels       %s; one sigma gather %.3f + DGEMM %.3f + scatter %.3f ms, half sigma %.3f + %.3f + %.3f ms "
           "(CUDA events, one timed run; fused: gather + product in the first)\n",
           R->direct_gpu.sigma_kernel, sp[0][0], sp[0][1], sp[0][2], sp[1][0], sp[1][1], sp[1][2]);
}

/* --method direct: what was built instead of H, and the sigma timings. */
static void print_text_direct(const ci_args *a, const cis_ci_result *R) {
  const cis_ci_direct_info *d = &R->direct;
  const cis_ci_direct_gpu_info *g = &R->direct_gpu;
  const int fused = R->gpu && !strncmp(g->sigma_kernel, "fused", 5);
  if (R->gpu && d->blocked)
    printf("gpu           %s: blocked by irreps, gather + one cuBLAS DGEMM per pair irrep + scatter on compact "
           "vectors, %lld alpha strings per pass, %lld passes per sigma; lists %.3f MiB, D + X %.3f GiB of %.3f GiB "
           "free\n", g->device, (long long)g->block, (long long)g->passes, g->link_bytes / 1048576.0,
           g->work_bytes / 1073741824.0, g->free_bytes / 1073741824.0);
  else if (R->gpu)
    printf("gpu           %s: %s + scatter, %lld (vector, alpha string) rows per pass, %lld "
           "passes per sigma; lists %.3f MiB, %s %.3f GiB of %.3f GiB free\n",
           g->device, fused ? "fused gather + FP64 MMA" : "gather + cuBLAS DGEMM", (long long)g->block,
           (long long)g->passes, g->link_bytes / 1048576.0, fused ? "X" : "D + X", g->work_bytes / 1073741824.0,
           g->free_bytes / 1073741824.0);
  printf("setup         strings, links, pair matrix and diagonal in %.3f s\n", R->t_build);
  printf("davidson      %d iterations, %lld products, %.6f s per sigma, max residual %.2e, subspace %d", R->davidson.iterations,
         (long long)R->davidson.products, R->davidson.products ? R->davidson.op_seconds / R->davidson.products : 0.0,
         R->davidson.max_residual, R->subspace);
  if (R->subspace_reduced_from > 0) printf(" (lowered from %d to fit the free memory)", R->subspace_reduced_from);
  if (R->one_parity) printf("; one alpha<->beta parity searched (no memory for both parities' guesses and watches)");
  printf("\n");
  print_guess_spin(a, R);
  if (!R->gpu) {
    const cis_ci_direct_info now = R->direct;
    double per = now.sigma_vectors ? 1.0 / (double)now.sigma_vectors : 0.0;
    printf("sigma         %d threads: gather + GEMM + beta scatter %.6f s, alpha scatter %.6f s per vector; "
           "%lld of %lld by the time-reversal half sigma\n",
           now.threads, now.phase1_seconds * per, now.phase2_seconds * per, (long long)now.half_sigmas,
           (long long)now.sigma_vectors);
  }
  if (a->o.time_sigma) print_sigma_timing(R);
  printf("time          solve %.3f s, to solution %.3f s after the parse (setup, guess, solve; then <S^2> %.3f s; "
         "%.3f s in all with the read%s)\n", R->davidson.total_seconds, R->to_solution[a->o.repeat - 1], R->t_s2,
         R->t_total, a->o.time_sigma ? " and the sigma timing" : "");
  if (a->o.repeat > 1) {
    printf("repeats       to solution");
    for (int k = 0; k < a->o.repeat; ++k) printf(" %.3f", R->to_solution[k]);
    printf(" s (--repeat %d in one process; the first pays CUDA's lazy module loading)\n", a->o.repeat);
  }
  print_roots(a, R);
}

/* Selected CI: Davidson and the times, then the roots. */
static void print_text_selected(const ci_args *a, const cis_ci_result *R) {
  printf("setup         space (sets, links, same-spin matrices) and diagonal in %.3f s\n", R->t_build);
  printf("davidson      %d iterations, %lld products, %.6f s per sigma, max residual %.2e, subspace %d\n",
         R->davidson.iterations, (long long)R->davidson.products,
         R->davidson.products ? R->davidson.op_seconds / R->davidson.products : 0.0, R->davidson.max_residual,
         R->subspace);
  printf("time          solve %.3f s, to solution %.3f s (space, guess, solve; then <S^2> %.3f s; %.3f s in all)\n",
         R->davidson.total_seconds, R->to_solution[0], R->t_s2, R->t_total);
  print_roots(a, R);
}

/* The text report: the header (unless it went out before the work), then the rest. */
static void print_text(const ci_args *a, const cis_ci_result *R) {
  if (!a->header_printed) ci_report_header(stdout, a, R);
  if (R->method == CIS_CI_METHOD_SELECTED) { print_text_selected(a, R); return; }
  if (R->method == CIS_CI_METHOD_DIRECT) { print_text_direct(a, R); return; }
  cis_int n = R->determinants;
  const int plan = R->build_gpu || R->symmetric_plan, host = !R->build_gpu, matrix = host && !a->o.symmetric;
  printf("hamiltonian   %lld nonzeros%s (%.1f per row), built on the %s in %.3f s\n", (long long)R->nnz,
         a->o.symmetric ? " in the upper triangle" : "", (double)R->nnz / (double)n, R->build_gpu ? "GPU" : "CPU",
         R->t_build);
  printf("memory        %s CSR %.3f MiB", plan ? "device" : "host", R->matrix_bytes / 1048576.0);
  for (int f = 0; host && f < cis_format_count() && f < CIS_CI_MAX_FORMATS; ++f)
    if (R->format_bytes[f] >= 0) printf(", %s %.3f MiB", cis_format_name(f), R->format_bytes[f] / 1048576.0);
    else if (R->format_estimate[f] >= 0) printf(", %s %.3f MiB (formula, not built)", cis_format_name(f), R->format_estimate[f] / 1048576.0);
  printf("\n");
  if (R->symmetric_plan)
    printf("format        symmetric CSR (upper triangle, built on the %s), SpMV on the GPU (%s)\n",
           R->build_gpu ? "GPU" : "CPU", R->kernel);
  else if (plan) printf("format        csr (built in device memory), SpMV on the GPU\n");
  else if (matrix) printf("format        %s, SpMV on the %s\n", R->format, a->o.gpu ? "GPU" : "CPU");
  else printf("format        symmetric CSR (upper triangle) on the CPU\n");
  if (matrix && !strcmp(R->format, "hyb")) printf("              BOUNDARY %lld (chosen from the matrix)\n", (long long)R->boundary);
  printf("davidson      %d iterations, %lld products, %.6f s per SpMV, max residual %.2e, subspace %d\n",
         R->davidson.iterations, (long long)R->davidson.products,
         R->davidson.products ? R->davidson.op_seconds / R->davidson.products : 0.0, R->davidson.max_residual, R->subspace);
  print_guess_spin(a, R);
  if (a->o.gpu)
    printf("gpu           kernel %s, device bytes %.3f MiB, upload %.3f s\n", R->gpu_stats.kernel,
           R->gpu_stats.device_bytes / 1048576.0, R->gpu_stats.upload_seconds);
  printf("time          solve %.3f s, to solution %.3f s (read, space, build, format, solve)\n",
         R->davidson.total_seconds, R->t_total);
  print_roots(a, R);
}

/* --count's figures: sizes in closed form (determinants by level and
 * irrep), the nonzeros counted exactly where that is quick (else estimated
 * from sampled rows, else the Slater-Condon bound), csr's and ell's bytes by
 * formula, and the memory each method needs (cis_ci_memory). */
void ci_count_sizes(const ci_args *a, const cis_ci_result *R, ci_count *s) {
  const cis_ci_counts *c = &R->counts;
  const double n = c->determinants,
               nnz = R->nnz_counted ? (double)R->count_nnz : R->nnz_estimate > 0 ? R->nnz_estimate : c->nnz_bound;
  s->n = n;
  s->nnz = nnz;
  s->csr = nnz * 12 + (n + 1) * (nnz >= 4294967296.0 ? 8 : 4);
  s->ell = R->nnz_counted ? n * (double)R->count_max_row * 12 : n * c->row_bound * 12;
  cis_ci_memory(c, a->o.roots, R->subspace, nnz, &s->m);
}

/* --count as text on stdout: the sizes, the nonzeros and the memory each
 * method needs against what this process may use. */
static void print_count(const ci_args *a, const cis_ci_result *R) {
  const cis_ci_counts *c = &R->counts;
  ci_count s;
  ci_count_sizes(a, R, &s);
  const double n = s.n, nnz = s.nnz, csr = s.csr, ell = s.ell;
  const cis_ci_memory_need m = s.m;
  const int nr = a->o.roots;
  if (n < 9007199254740992.0)
    printf("determinants  %.0f (closed form; %.0f alpha x %.0f beta strings kept)\n", n, c->alpha_strings, c->beta_strings);
  else
    printf("determinants  %.6e (closed form; %.0f alpha x %.0f beta strings kept)\n", n, c->alpha_strings, c->beta_strings);
  if (a->o.level >= 0) {
    printf("by level     ");
    for (int l = 0; l <= c->level; ++l) printf(" %d: %.0f", l, c->per_level[l]);
    printf("\n");
  }
  if (R->fcidump->sym_numbering != CIS_FCIDUMP_SYM_NONE) {
    char k[24];
    const char *sep = " ";
    printf("by irrep     ");
    for (int g = 0; g < 8; ++g)
      if (c->per_irrep[g] > 0) printf("%s%s: %.0f", sep, ci_irrep_text(R->fcidump, g + 1, k), c->per_irrep[g]), sep = ", ";
    printf("; ISYM %s\n", ci_irrep_text(R->fcidump, R->fcidump->isym, k));
  }
  if (R->nnz_counted)
    printf("nonzeros      %lld%s, longest row %lld (counted in %.3f s)\n", (long long)R->count_nnz,
           a->o.symmetric ? " in the upper triangle" : "", (long long)R->count_max_row, R->t_build);
  else if (R->nnz_estimate > 0)
    printf("nonzeros      about %.4g (from %lld sampled rows; at most %.4g, %.0f per row)\n", R->nnz_estimate,
           (long long)R->nnz_sampled, c->nnz_bound, c->row_bound);
  else
    printf("nonzeros      at most %.4g (%.0f per row: 1 + singles + doubles; not counted, too large to count quickly)\n",
           nnz, c->row_bound);
  printf("memory        csr %.3f GiB, ell %.3f GiB (formulas)\n", gib(csr), gib(ell));
  printf("              stored Hamiltonian: %.3f GiB (space %.3f + Davidson vectors for %d root%s %.3f + matrix %.3f)\n",
         gib(m.stored), gib(m.space), nr, nr > 1 ? "s" : "", gib(m.vectors), gib(m.matrix));
  printf("              matrix-free: %.3f GiB (space + vectors, the guesses sparse)\n", gib(m.direct));
  printf("              Davidson: subspace %d for %d root%s, its vectors %.3f GiB%s", m.subspace, nr, nr > 1 ? "s" : "",
         gib(m.davidson), R->subspace_reduced_from > 0 ? " (lowered to fit)" : "");
  cis_gpu_info gi;
  if (R->method == CIS_CI_METHOD_DIRECT && R->gpu && cis_gpu_get_info(&gi) == CIS_OK)
    printf(" on one GPU (%s, %.3f GiB free: %s; the direct method runs on one GPU)", gi.name, gib((double)gi.free_mem),
           m.davidson <= (double)gi.free_mem ? "fits" : "does not fit, refused");
  printf("\n");
  printf("              this process may use %.3f GiB (%s); runs that do not fit are refused\n", gib((double)R->mem_limit),
         R->mem_why);
}

/* A line on stderr for each option the method that ran does not read (the
 * method auto chose may not be the one an option was meant for). */
void ci_report_unused(const ci_args *a, const cis_ci_result *R) {
  const int stored = R->method == CIS_CI_METHOD_STORED;
  if (a->o.block_products && !(stored && R->gpu && R->computed > 1))
    fprintf(stderr, "cisparse: --block-products not used: it needs the stored H on the GPU and more than one root "
                    "(this run: %s on the %s, %d root%s)\n", stored ? "stored" : "direct", R->gpu ? "GPU" : "CPU",
            R->computed, R->computed > 1 ? "s" : "");
  if (stored && a->o.no_time_reversal) fprintf(stderr, "cisparse: --no-time-reversal not used: the stored method ran\n");
  if (stored && a->o.symmetry_projection)
    fprintf(stderr, "cisparse: --symmetry-projection not used: the stored method ran\n");
}

/* One line of the stored H's build on stderr (the form --help documents). */
static void print_build_line(const cis_ci_progress *p) {
  fprintf(stderr, "build pass %d/2 (%s)  %lld/%lld rows (%.0f%%)  %.4g nonzeros  %.1f s", p->pass,
          p->pass == 1 ? "count" : "fill, sort", (long long)p->rows_done, (long long)p->rows,
          p->rows ? 100.0 * (double)p->rows_done / (double)p->rows : 100.0, (double)p->nnz, p->seconds);
  if (p->eta >= 0 && p->rows_done < p->rows) fprintf(stderr, "  ETA ~%.1f s", p->eta);
  fputc('\n', stderr);
}

/* One progress line on stderr (the form --help documents). */
static void print_progress_line(const cis_ci_progress *p) {
  fprintf(stderr, "iteration %3d  E %.10f Eh  residual %.2e  %.3f s/it", p->iteration, p->energy, p->max_residual,
          p->seconds);
  if (p->roots > 1) fprintf(stderr, "  converged %d/%d", p->converged, p->roots);
  if (p->eta >= 0) fprintf(stderr, "  ETA ~%.1f s", p->eta);
  fputc('\n', stderr);
}

void ci_report_progress(const cis_ci_progress *p) {
  if (p->event == CIS_CI_PROGRESS_BUILD) print_build_line(p);
  else print_progress_line(p);
}

/* The text report of a distributed ci run (or of --count). */
static void print_parts_text(const ci_args *a, const cis_ci_result *R) {
  const char *file = a->file;
  const cis_ci_solve_opts *o = &a->o;
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


void ci_report_text(ci_args *a, const cis_ci_result *R) {
  if (a->parts) print_parts_text(a, R);
  else if (a->o.count_only) print_count(a, R);
  else print_text(a, R);
}
