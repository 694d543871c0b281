/* cmd_ci.c: `cisparse ci FILE.FCIDUMP ...`: CI ground (and excited) states.
 * The options become a cis_ci_solve_opts, the work is one cis_ci_solve_file
 * call (the library's CI driver, cisparse/ci_solve.h: the same one Python's
 * cisparse.fci.FCISolver calls), and the result is printed as text or JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"

typedef struct ci_args {
  const char *file;
  cli_json json;         /* --json [FILE] */
  int format_set;
  int method_auto;       /* the method was left to the driver (printed with its reason) */
  const char *method_why;/* not auto: what chose it */
  int quiet, progress;   /* --quiet: no progress lines; --progress: a line per iteration however short the run */
  int header_printed;    /* the header went out before the work (ci_progress) */
  cis_ci_solve_opts o;
} ci_args;

/* Seconds after which a run counts as long: its progress lines are shown
 * even when stderr is not a terminal (the help text says 2 s). */
#define CI_LONG_RUN_SECONDS 2.0

static void usage(FILE *f) {
  fprintf(f, "usage: cisparse ci FILE.FCIDUMP [--level N|full] [--roots k] [--format NAME] [--device cpu|gpu]\n"
             "                  [--build cpu|gpu] [--symmetric] [--occ LIST] [--tol X] [--json] [--verbose]\n"
             "                  [--quiet|--progress] [more options below]\n"
             "Energies are in hartree (Eh), total (the FCIDUMP's core energy included); E_corr is relative to\n"
             "the reference determinant. The header (space, method and why, memory) is printed before the\n"
             "work starts, the rest when Davidson has converged.\n"
             "  --json        the result as one JSON object (energies in Eh, \"units\" names them; null for\n"
             "                values that do not apply) alone on stdout, the header then on stderr with\n"
             "                the progress lines; --json FILE (--json=FILE, or a word after --json beside\n"
             "                the FCIDUMP) writes it to FILE, the text report on stdout as without --json\n"
             "  --time-sigma  direct: also time one sigma (and on the GPU one half sigma) on a pseudo-random\n"
             "                vector apart from the solve, medians of 5 (a benchmark: not done otherwise)\n"
             "  --verbose     Davidson's own line per iteration on stderr instead of the progress line:\n"
             "                iteration, subspace size, E0 (lowest total energy, Eh, core energy included),\n"
             "                max residual, roots converged, seconds for the iteration; then the seconds\n"
             "                per phase (setup, products, Rayleigh matrix, Ritz vectors, corrections); and\n"
             "                the run's phases after the report (stderr with --json), summing to the\n"
             "                command's wall time: parse, space, build: rows / sort / format, guess,\n"
             "                davidson, <S^2>, output, other (what no phase covers), total; the stored\n"
             "                H built on the CPU is also built in every other format for the memory\n"
             "                line's bytes (phase \"formats compared\"; without --verbose only the one\n"
             "                that runs, csr/ell/ellr by formula)\n"
             "  --quiet       no progress lines (and no header on stderr with --json)\n"
             "  --progress    a progress line per Davidson iteration on stderr however short the run;\n"
             "                by default they are shown when stderr is a terminal or after 2 s:\n"
             "                  iteration N  E -75.0125782412 Eh  residual 3.24e-05  0.012 s/it  ETA ~0.1 s\n"
             "                (the lowest root's energy; \"converged k/n\" with several roots; the ETA,\n"
             "                from the residual's decrease so far, once it falls); while the stored H\n"
             "                is built on the CPU, a line a tenth of its rows (or 5 s) per pass:\n"
             "                  build pass 1/2 (count)  250962/501924 rows (50%%)  6.9e+07 nonzeros  40.1 s  ETA ~40.1 s\n"
             "  --level N     excitation level relative to the reference (2 = CISD); default full CI\n"
             "  --roots k     lowest k eigenvalues (default 1)\n"
             "  --format F    storage format for the SpMV: auto (default: cis_format_auto's rule from the\n"
             "                row lengths, docs/formats.md), csr ell ellr sell sellr sellcs sell16 csb csr5 hyb\n"
             "  --device      cpu (default) or gpu (Davidson on the device: cis_gpu_spmv + cuBLAS)\n"
             "  --build       where the Hamiltonian is built: gpu (default with --device gpu: in device\n"
             "                memory as CSR, SpMV csr-vector) or cpu (OpenMP, then --format, uploaded)\n"
             "  --kernel K    GPU kernel of the format (cisparse/gpu.h; default: the format's default)\n"
             "  --values float  sell16 with its values stored in float (x, y and the sums double): 6\n"
             "                instead of 10 bytes per nonzero; opt-in, the energy moves by the\n"
             "                values' rounding (docs/formats.md, \"Float values\")\n"
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
             "  --isym N      target irrep 1..8, 1-based as FCIDUMP's ISYM (1: totally symmetric) in any file:\n"
             "                a PySCF file's 0-based irrep id k is k + 1 (B1g, id 1, is --isym 2); the report\n"
             "                and --count number irreps so too, with the D2h name where the file is D2h's;\n"
             "                PySCF's literal ISYM=1 is read as totally symmetric;\n"
             "                symmetry is D2h's: a linear molecule's file (ORBSYM %% 10, as PySCF\n"
             "                writes it) is a D2h calculation, its raw Dooh/Coov ids are refused\n"
             "  --max-iter N  Davidson iterations (default 200); a root not converged is an error\n"
             "  --subspace N  Davidson subspace: vectors kept before a collapse to the Ritz vectors\n"
             "                (default max(8 x roots, 24), lowered to what fits the free memory of\n"
             "                the device or the process; --count prints it); with MS2 = 0 at\n"
             "                least 2 x (roots + 2), raised to it: room to search both alpha<->beta parities\n"
             "  --block-products  Davidson multiplies an iteration's new vectors in one SpMM pass\n"
             "                (GPU csr or --symmetric plans; more than one root)\n"
             "  --pspace N    determinants in the P-space of the initial guess (default 400)\n"
             "  --repeat N    direct: everything after the parse N times in this process (1..20), each\n"
             "                run's time to solution reported (a library user's warm process; the\n"
             "                first run also pays CUDA's lazy loading of the kernels it launches)\n"
             "  --gpus N      CI over N GPUs (NCCL, 0 = all; --cpu-parts N: CPU parts). Full CI goes\n"
             "                direct (auto): the sigma split by alpha strings, each part a range, the\n"
             "                vector gathered whole on every part and the partial sigmas summed onto\n"
             "                their owners; --method stored (or --level): the stored Hamiltonian, each\n"
             "                part's rows built on their own; with a symmetric --format (sym-seg,\n"
             "                the GPUs' default, or csr-sym) and no --exchange each entry is stored\n"
             "                once (the upper triangle's rows, mirror terms summed onto their\n"
             "                owners). Takes --method --level --roots --tol\n"
             "                --max-iter --subspace --host-vectors --format --exchange --json --time-sigma\n"
             "                (docs/multi-gpu.md)\n"
             "  --host-vectors auto|always|never  direct over GPUs: Davidson's vectors in host memory,\n"
             "                the GPUs holding each product's whole vectors and the sigma's workspace\n"
             "                (auto: when a share of the smallest subspace does not fit the GPUs)\n"
             "  --mpi         one part per process: `mpirun -np N cisparse ci FILE --mpi`, --device cpu\n"
             "                (default: host parts over MPI) or gpu (one GPU per process, NCCL); the\n"
             "                options of --gpus; only rank 0 prints; needs cisparse built with MPI\n"
             "  --method M    auto (default), stored (build H, then SpMV), direct (matrix-free string-driven\n"
             "                sigma: full CI of the file's orbitals, no H built; point group (ORBSYM)\n"
             "                blocked by irreps on the CPU and the GPU: Davidson on vectors of the ISYM\n"
             "                determinants only, GEMMs on the pair-irrep blocks of g (on the GPU one\n"
             "                per pair irrep over all alpha strings); with --device gpu gather/DGEMM/\n"
             "                scatter on the device and Davidson's vectors there); auto (cis_ci_solve's rule):\n"
             "                direct for every full CI of at most 64 orbitals, on the CPU and the GPU, any\n"
             "                symmetry and any number of roots (it builds nothing: measured faster on every\n"
             "                shape, docs/ci.md); stored for --level, NORB > 64 and the stored-matrix options\n"
             "  --no-time-reversal  direct: never the MS2 = 0 half sigma (alpha <-> beta symmetry)\n"
             "  --symmetry-projection  direct: point group by projection (C1 sigma masked, C1 cost)\n"
             "                instead of blocked by irreps; same results\n"
             "  --no-s2       do not compute <S^2> of the roots (printed as not computed; not with --spin)\n");
}

static int parse_args(int argc, char **argv, ci_args *a) {
  long long v;
  memset(a, 0, sizeof *a);
  a->o = cis_ci_solve_opts_default();
  int stored_opt = 0, rc; /* an option that needs the stored matrix */
  for (int i = 1; i < argc; ++i) {
    const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (cli_stray_value(argv, i)) return 2;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) { usage(stdout); return -1; }
    if (!strcmp(o, "--symmetric")) { a->o.symmetric = 1; continue; }
    if ((rc = cli_json_option(argc, argv, &i, &a->json)) >= 0) { if (rc) return rc; continue; }
    if (!strcmp(o, "--time-sigma")) { a->o.time_sigma = 1; continue; }
    if (!strcmp(o, "--no-time-reversal")) { a->o.no_time_reversal = 1; continue; }
    if (!strcmp(o, "--symmetry-projection")) { a->o.symmetry_projection = 1; continue; }
    if (!strcmp(o, "--no-s2")) { a->o.no_s2 = 1; continue; }
    if (!strcmp(o, "--verbose")) { a->o.verbose = 1; continue; }
    if (!strcmp(o, "--quiet")) { a->quiet = 1; continue; }
    if (!strcmp(o, "--progress")) { a->progress = 1; continue; }
    if (!strcmp(o, "--block-products")) { a->o.block_products = 1; continue; }
    if (!strcmp(o, "--count")) { a->o.count_only = 1; continue; }
    if (o[0] == '-' && o[1] == '-') {
      if (!val) return cli_usage("%s needs a value", o);
      i++;
      if (!strcmp(o, "--level")) {
        if (!strcmp(val, "full")) { a->o.level = -1; continue; }
        if (cli_int(o, val, &v)) return 2;
        if (v < 0 || v > 128) return cli_usage("--level must be 0..128 or full, got %lld", v);
        a->o.level = (int)v;
      } else if (!strcmp(o, "--roots")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 1 || v > 64) return cli_usage("--roots must be 1..64, got %lld", v);
        a->o.roots = (int)v;
      } else if (!strcmp(o, "--format")) {
        if (cli_ci_format(val)) return 2;
        a->o.format = val;
        a->format_set = 1;
      } else if (!strcmp(o, "--values")) {
        if (strcmp(val, "float") && strcmp(val, "double")) return cli_usage("--values must be float or double, got '%s'", val);
        a->o.float_values = !strcmp(val, "float");
      } else if (!strcmp(o, "--save")) {
        if (!strcmp(val, "-") || !val[0])
          return cli_usage("--save needs a file name (the Hamiltonian is not written to standard output), got '%s'", val);
        a->o.save = val;
      } else if (!strcmp(o, "--device")) {
        if (strcmp(val, "cpu") && strcmp(val, "gpu")) return cli_usage("--device must be cpu or gpu, got '%s'", val);
        a->o.gpu = !strcmp(val, "gpu");
      } else if (!strcmp(o, "--build")) {
        if (strcmp(val, "cpu") && strcmp(val, "gpu")) return cli_usage("--build must be cpu or gpu, got '%s'", val);
        a->o.build = !strcmp(val, "gpu");
      } else if (!strcmp(o, "--kernel")) {
        a->o.kernel = val;
      } else if (!strcmp(o, "--method")) {
        if (cli_ci_method(val, &a->o.method)) return 2;
      } else if (!strcmp(o, "--occ")) {
        a->o.occ = val;
      } else if (!strcmp(o, "--spin")) {
        if (cli_double(o, val, &a->o.spin)) return 2;
        if (!(a->o.spin >= 0) || a->o.spin > 64 || fabs(2 * a->o.spin - floor(2 * a->o.spin + 0.5)) > 1e-9)
          return cli_usage("--spin must be 0, 0.5, 1, 1.5, ..., got '%s'", val);
      } else if (!strcmp(o, "--isym")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 1 || v > 8)
          return cli_usage("--isym must be an irrep 1..8, 1-based as FCIDUMP's ISYM (1: totally symmetric; a PySCF "
                           "irrep id k is k + 1), got %lld", v);
        a->o.isym = (int)v;
      } else if (!strcmp(o, "--max-iter")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 1 || v > 100000) return cli_usage("--max-iter must be 1..100000, got %lld", v);
        a->o.max_iter = (int)v;
      } else if (!strcmp(o, "--subspace")) {
        if (cli_ci_subspace(val, &a->o.max_sub)) return 2;
      } else if (!strcmp(o, "--repeat")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 1 || v > CIS_CI_MAX_REPEAT) return cli_usage("--repeat must be 1..%d, got %lld", CIS_CI_MAX_REPEAT, v);
        a->o.repeat = (int)v;
      } else if (!strcmp(o, "--pspace")) {
        if (cli_int(o, val, &v)) return 2;
        if (v < 1 || v > 2000) return cli_usage("--pspace must be 1..2000, got %lld", v);
        a->o.pspace = (int)v;
      } else if (!strcmp(o, "--tol")) {
        if (cli_double(o, val, &a->o.tol)) return 2;
        if (!(a->o.tol > 0)) return cli_usage("--tol must be > 0");
      } else {
        return cli_usage("ci: unknown option '%s' (cisparse ci --help)", o);
      }
      continue;
    }
    if (a->file) return cli_usage("ci: more than one FCIDUMP file given ('%s', '%s')", a->file, o);
    a->file = o;
  }
  cli_json_settle(&a->json, &a->file);
  if (!a->file) return cli_usage("ci: no FCIDUMP file given (cisparse ci --help)");
  if (a->quiet && (a->progress || a->o.verbose)) return cli_usage("--quiet cannot be combined with --progress or --verbose");
  if (a->o.count_only && a->o.save) return cli_usage("--count builds no Hamiltonian: --save cannot be combined with it");
  stored_opt = a->o.symmetric || a->o.save || a->format_set || a->o.kernel || a->o.build >= 0 || a->o.float_values;
  if (a->o.method == CIS_CI_METHOD_DIRECT) {
    if (a->o.level >= 0)
      return cli_usage("--method direct is full CI only (--level full); truncated CI needs --method stored");
    if (stored_opt)
      return cli_usage("--method direct stores no matrix: --format, --symmetric, --save, --kernel and "
                       "--build need --method stored");
  }
  if (a->o.no_s2 && a->o.spin >= 0) return cli_usage("--no-s2 cannot be combined with --spin (roots are selected by <S^2>)");
  a->method_why = a->o.method == CIS_CI_METHOD_DIRECT ? "--method direct" : "--method stored";
  if (a->o.method == CIS_CI_METHOD_AUTO && (a->o.level >= 0 || stored_opt || a->o.count_only)) { /* only stored can do these */
    a->o.method = CIS_CI_METHOD_STORED;
    a->method_why = a->o.level >= 0 ? "--level: truncated CI needs the stored H" : a->o.count_only ? "--count: the stored H's sizes (--method direct for a direct run's)" : "a stored-matrix option";
  }
  a->method_auto = a->o.method == CIS_CI_METHOD_AUTO;
  if (a->o.repeat > 1 && a->o.method == CIS_CI_METHOD_STORED) return cli_usage("--repeat needs --method direct (or auto)");
  if (a->o.method == CIS_CI_METHOD_DIRECT || a->o.method == CIS_CI_METHOD_AUTO) {
    if (a->o.method == CIS_CI_METHOD_DIRECT && a->o.build >= 0) return cli_usage("--build needs --method stored");
    if (a->o.method == CIS_CI_METHOD_DIRECT) return 0;
  }
  if (a->o.kernel && !a->o.gpu) return cli_usage("--kernel needs --device gpu");
  if (a->o.build == 1 && !a->o.gpu) return cli_usage("--build gpu needs --device gpu (the matrix stays on the device)");
  if (a->o.build < 0) a->o.build = a->o.gpu;
  if (a->o.build == 1 && a->format_set && strcmp(a->o.format, "csr"))
    return cli_usage("--format %s needs --build cpu (the GPU build stores CSR on the device)", a->o.format);
  if (a->o.build == 1 && a->o.kernel && !a->o.symmetric)
    return cli_usage("--kernel needs --build cpu (the GPU build runs csr-vector; with --symmetric a symmetric kernel)");
  if (a->o.float_values && (a->o.symmetric || a->o.build == 1 || (a->format_set && strcmp(a->o.format, "sell16") &&
                                                            strcmp(a->o.format, "auto"))))
    return cli_usage("--values float stores sell16 built on the CPU (--build cpu; not with --symmetric)");
  if (a->o.symmetric && a->format_set && strcmp(a->o.format, "csr"))
    return cli_usage("--symmetric stores the upper triangle in csr; got --format %s", a->o.format);
  if (a->o.build == 1 && a->o.save) return cli_usage("--save needs --build cpu (the GPU-built matrix stays on the device)");
  return 0;
}

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

/* 2S+1 from <S^2> (rounded). */
static int multiplicity(double s2) { return (int)floor(2 * cis_ci_spin_from_s2(s2) + 1.5); }

/* Irrep k (1..8, FCIDUMP's 1-based ISYM numbering: a PySCF file's id + 1) as
 * the report prints it: "6 (B1u)", or "6" where no D2h name is known. */
static const char *irrep_text(const cis_fcidump *F, int k, char buf[24]) {
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
    fprintf(f, "; target irrep ISYM=%s", irrep_text(F, F->isym, k));
  fprintf(f, "\n");
}

/* The file, orbitals, symmetry and reference lines. */
static void print_reference(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  char k[24];
  fprintf(f, "FCIDUMP       %s\n", a->file);
  fprintf(f, "orbitals      %d, electrons %d (%d alpha, %d beta), MS2 %d, ISYM %s, core energy %.10f Eh\n", F->norb,
          F->nelec, cis_fcidump_nalpha(F), cis_fcidump_nbeta(F), F->ms2, irrep_text(F, F->isym, k), F->ecore);
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

/* Hartree in electronvolts (CODATA 2018). */
#define CI_EV_PER_EH 27.211386245988

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
                multiplicity_name(multiplicity(R->s2[k])));
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
            (long long)d->symmetry_determinants, irrep_text(F, F->isym, k), (long long)d->determinants, (long long)d->alpha_strings,
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

/* What is known before the long work, on f. */
static void print_header(FILE *f, const ci_args *a, const cis_ci_result *R) {
  print_reference(f, a, R);
  if (R->method == CIS_CI_METHOD_DIRECT) print_header_direct(f, a, R);
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

/* The text report: the header (unless it went out before the work), then the rest. */
static void print_text(const ci_args *a, const cis_ci_result *R) {
  if (!a->header_printed) print_header(stdout, a, R);
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

/* The units of the JSON figures (energies in hartree, as in the text's Eh). */
#define CI_JSON_UNITS "\"units\": {\"energies\": \"hartree\", \"times\": \"s\", \"memory\": \"bytes\"}"

/* "isym_name": the D2h name of the target irrep (cis_fcidump_irrep_name; "isym"
 * is 1-based as FCIDUMP's ISYM) or null, then ", ". */
static void json_isym_name(FILE *f, const cis_fcidump *F) {
  const char *name = cis_fcidump_irrep_name(F, F->isym);
  fprintf(f, "\"isym_name\": ");
  if (name) cli_json_string(f, name);
  else fprintf(f, "null");
  fprintf(f, ", ");
}

/* Root k of the report (state q of the run) as a JSON object: "correlation"
 * against the reference; "excitation" E_k - E_0 (Eh, and "excitation_ev"),
 * null for root 0. */
static void print_json_root(FILE *f, const cis_ci_result *R, int k) {
  const double e = R->energies[k], de = e - R->energies[0];
  fprintf(f, "%s{\"energy\": %.12f, \"correlation\": %.12f, ", k ? ", " : "", e, e - R->e_reference);
  cli_json_num(f, "excitation", k > 0 ? de : NAN, "%.12f", NULL);
  fprintf(f, ", ");
  cli_json_num(f, "excitation_ev", k > 0 ? de * CI_EV_PER_EH : NAN, "%.8f", NULL);
  if (isnan(R->s2[k])) /* --no-s2 */
    fprintf(f, ", \"s2\": null, \"spin\": null, \"multiplicity\": null");
  else
    fprintf(f, ", \"s2\": %.8f, \"spin\": %.4f, \"multiplicity\": %d", R->s2[k], cis_ci_spin_from_s2(R->s2[k]),
            multiplicity(R->s2[k]));
  fprintf(f, ", \"state\": %d}", R->state[k]);
}

/* The file's symmetry and the P-space, as both JSON reports write them. */
static void print_json_symmetry(FILE *f, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  fprintf(f, "\"orbsym_numbering\": \"%s\", \"isym\": %d, \"isym_assumed\": %s, \"pspace\": %d, ",
          F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF ? "pyscf" : F->sym_numbering == CIS_FCIDUMP_SYM_MOLPRO ? "molpro" : "none",
          F->isym, F->isym_assumed ? "true" : "false", R->pspace_used);
  json_isym_name(f, F);
}

static void print_json_direct(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  const cis_ci_direct_info *d = &R->direct;
  fprintf(f, "{\"file\": ");
  cli_json_string(f, a->file);
  fprintf(f, ", " CI_JSON_UNITS ", \"norb\": %d, \"nelec\": %d, \"ms2\": %d, \"level\": null, \"method\": \"direct\", \"determinants\": %lld, \"vector_length\": %lld, "
         "\"alpha_strings\": %lld, \"beta_strings\": %lld, \"npair\": %lld, \"block\": %lld, \"symmetry\": \"%s\", \"gemm\": ",
         F->norb, F->nelec, F->ms2, (long long)d->symmetry_determinants, (long long)d->determinants,
         (long long)d->alpha_strings,
         (long long)d->beta_strings, (long long)d->npair, (long long)d->block,
         !d->projected ? "c1" : d->blocked && !R->gpu ? "blocked" : "projected");
  cli_json_string(f, d->gemm);
  fprintf(f, ", \"blas\": ");
  cli_json_string(f, cis_blas_info());
  fprintf(f, ", \"device\": \"%s\", \"setup_seconds\": %.6f, \"iterations\": %d, \"products\": %lld, "
         "\"sigma_seconds\": %.9f, \"half_sigmas\": %lld, \"solve_seconds\": %.6f, \"total_seconds\": %.6f, "
         "\"parse_seconds\": %.6f, \"to_solution_seconds\": %.6f, \"s2_seconds\": %.6f, \"guess_seconds\": %.6f, "
         "\"e_rhf\": %.12f, \"ecore\": %.12f, \"memory\": {\"links\": %lld, \"workspace\": %lld, \"vectors\": %lld}, "
         "\"subspace\": %d, ",
         R->gpu ? "gpu" : "cpu", R->t_build, R->davidson.iterations, (long long)R->davidson.products,
         R->davidson.products ? R->davidson.op_seconds / R->davidson.products : 0.0, (long long)R->half_sigmas,
         R->davidson.total_seconds, R->t_total, R->t_parse, R->to_solution[a->o.repeat - 1], R->t_s2, R->t_guess, R->e_reference,
         F->ecore, (long long)d->link_bytes, (long long)d->work_bytes, (long long)d->vector_bytes, R->subspace);
  print_json_symmetry(f, R);
  if (R->subspace_reduced_from > 0) fprintf(f, "\"subspace_lowered_from\": %d, ", R->subspace_reduced_from);
  else fprintf(f, "\"subspace_lowered_from\": null, ");
  fprintf(f, "\"one_parity\": %s, ", R->one_parity ? "true" : "false");
  cli_json_num(f, "sigma_ms", a->o.time_sigma ? R->sigma_ms : NAN, "%.6f", NULL); /* null: not timed (no --time-sigma) */
  fprintf(f, ", ");
  fprintf(f, "\"to_solution_runs\": [");
  for (int k = 0; k < a->o.repeat; ++k) fprintf(f, "%s%.6f", k ? ", " : "", R->to_solution[k]);
  fprintf(f, "], ");
  if (R->gpu) {
    const cis_ci_direct_gpu_info *g = &R->direct_gpu;
    fprintf(f, "\"gpu\": {\"name\": ");
    cli_json_string(f, g->device);
    fprintf(f, ", ");
    cli_json_num(f, "sigma_ms", a->o.time_sigma ? R->sigma_ms : NAN, "%.6f", NULL); /* null: not timed */
    fprintf(f, ", ");
    cli_json_num(f, "sigma_half_ms", R->sigma_half_ms > 0 ? R->sigma_half_ms : NAN, "%.6f", NULL); /* null: not timed, or no half sigma here */
    fprintf(f, ", \"link_bytes\": %lld, \"work_bytes\": %lld, \"free_bytes\": %lld, \"block\": %lld, \"passes\": %lld, "
           "\"sigma_kernel\": ",
           (long long)g->link_bytes, (long long)g->work_bytes, (long long)g->free_bytes, (long long)g->block,
           (long long)g->passes);
    cli_json_string(f, g->sigma_kernel);
    fprintf(f, ", \"split_ms\": {\"sigma\": [%.6f, %.6f, %.6f], \"half\": [%.6f, %.6f, %.6f]}}, ", g->split_ms[0][0],
           g->split_ms[0][1], g->split_ms[0][2], g->split_ms[1][0], g->split_ms[1][1], g->split_ms[1][2]);
  }
  fprintf(f, "\"roots\": [");
  for (int k = 0; k < a->o.roots; ++k)
    print_json_root(f, R, k);
  fprintf(f, "]}\n");
}

static void print_json(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_fcidump *F = R->fcidump;
  if (R->method == CIS_CI_METHOD_DIRECT) { print_json_direct(f, a, R); return; }
  fprintf(f, "{\"file\": ");
  cli_json_string(f, a->file);
  fprintf(f, ", " CI_JSON_UNITS ", \"norb\": %d, \"nelec\": %d, \"ms2\": %d, ", F->norb, F->nelec, F->ms2);
  cli_json_num(f, "level", a->o.level >= 0 ? (double)(a->o.level) : NAN, "%.0f", NULL);
  fprintf(f, ", \"method\": \"stored\", \"determinants\": %lld, "
         "\"nnz\": %lld, \"symmetric\": %s, \"format\": \"%s\", \"values\": \"%s\", \"device\": \"%s\", \"build\": \"%s\", \"build_seconds\": %.6f, "
         "\"iterations\": %d, \"products\": %lld, \"spmv_seconds\": %.9f, \"solve_seconds\": %.6f, "
         "\"total_seconds\": %.6f, \"e_rhf\": %.12f, \"ecore\": %.12f, \"reference\": \"%s\", "
         "\"roots_computed\": %d, \"subspace\": %d, ",
         (long long)R->determinants, (long long)R->nnz,
         a->o.symmetric ? "true" : "false", R->format,
         a->o.float_values ? "float" : "double", a->o.gpu ? "gpu" : "cpu", R->build_gpu ? "gpu" : "cpu", R->t_build, R->davidson.iterations, (long long)R->davidson.products,
         R->davidson.products ? R->davidson.op_seconds / R->davidson.products : 0.0, R->davidson.total_seconds, R->t_total, R->e_reference,
         F->ecore, R->no_reference ? "lowest determinant" : a->o.occ ? "occ" : "aufbau", R->computed, R->subspace);
  print_json_symmetry(f, R);
  cli_json_num(f, "spin_filter", a->o.spin >= 0 ? a->o.spin : NAN, "%g", NULL); /* --spin S, null: every state */
  fprintf(f, ", ");
  if (a->o.gpu)
    fprintf(f, "\"gpu\": {\"kernel\": \"%s\", \"device_bytes\": %lld, \"upload_seconds\": %.6f}, ", R->gpu_stats.kernel,
           (long long)R->gpu_stats.device_bytes, R->gpu_stats.upload_seconds);
  fprintf(f, "\"memory\": {\"%s\": %lld", R->build_gpu || R->symmetric_plan ? "device_csr" : "host_csr",
         (long long)R->matrix_bytes);
  for (int g = 0; !R->build_gpu && g < cis_format_count() && g < CIS_CI_MAX_FORMATS; ++g)
    if (R->format_bytes[g] >= 0) fprintf(f, ", \"%s\": %lld", cis_format_name(g), (long long)R->format_bytes[g]);
  fprintf(f, "}, \"roots\": [");
  for (int k = 0; k < a->o.roots; ++k) print_json_root(f, R, k);
  fprintf(f, "]}\n");
}

/* --count: sizes in closed form (determinants by level and irrep), the
 * nonzeros counted exactly where that is quick (else the Slater-Condon
 * bound), and the memory each method needs against what this process may use;
 * as JSON on f, or (f NULL) as text on stdout. */
static void print_count(FILE *f, const ci_args *a, const cis_ci_result *R) {
  const cis_ci_counts *c = &R->counts;
  double n = c->determinants,
         nnz = R->nnz_counted ? (double)R->count_nnz : R->nnz_estimate > 0 ? R->nnz_estimate : c->nnz_bound;
  double csr = nnz * 12 + (n + 1) * (nnz >= 4294967296.0 ? 8 : 4);
  double ell = R->nnz_counted ? n * (double)R->count_max_row * 12 : n * c->row_bound * 12;
  cis_ci_memory_need m;
  int nr = a->o.roots;
  cis_ci_memory(c, nr, R->subspace, nnz, &m);
  if (f) {
    fprintf(f, "{\"file\": ");
    cli_json_string(f, a->file);
    fprintf(f, ", " CI_JSON_UNITS ", \"determinants\": %.0f, \"alpha_strings\": %.0f, \"beta_strings\": %.0f, ", n,
           c->alpha_strings, c->beta_strings);
    cli_json_num(f, "level", a->o.level >= 0 ? (double)(a->o.level) : NAN, "%.0f", NULL);
    fprintf(f, ", \"isym\": %d, \"orbsym_numbering\": \"%s\", ", R->fcidump->isym,
            cis_fcidump_numbering_name(R->fcidump->sym_numbering));
    json_isym_name(f, R->fcidump);
    fprintf(f, "\"by_irrep\": [");
    for (int g = 0; g < 8; ++g) fprintf(f, "%s%.0f", g ? ", " : "", c->per_irrep[g]);
    fprintf(f, "], \"by_level\": [");
    for (int l = 0; l <= c->level; ++l) fprintf(f, "%s%.0f", l ? ", " : "", c->per_level[l]);
    fprintf(f, "], \"nnz\": %.0f, \"nnz_exact\": %s, \"nnz_estimated\": %s, \"max_row\": %.0f, \"symmetric\": %s, ",
           nnz, R->nnz_counted ? "true" : "false", !R->nnz_counted && R->nnz_estimate > 0 ? "true" : "false",
           R->nnz_counted ? (double)R->count_max_row : c->row_bound, a->o.symmetric ? "true" : "false");
    cli_json_num(f, "count_seconds", R->nnz_counted ? R->t_build : NAN, "%.6f", NULL); /* null: not counted */
    fprintf(f, ", \"memory\": {\"csr\": %.0f, \"ell\": %.0f, \"space\": %.0f, \"vectors\": %.0f, \"stored\": %.0f, "
           "\"direct\": %.0f, ", csr, ell, m.space, m.vectors, m.stored, m.direct);
    cli_json_num(f, "limit", R->mem_limit > 0 ? (double)R->mem_limit : NAN, "%.0f", NULL); /* null: unknown */
    fprintf(f, ", \"limit_from\": \"%s\", \"davidson\": %.0f, \"subspace\": %d}}\n", R->mem_why, m.davidson, m.subspace);
    return;
  }
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
      if (c->per_irrep[g] > 0) printf("%s%s: %.0f", sep, irrep_text(R->fcidump, g + 1, k), c->per_irrep[g]), sep = ", ";
    printf("; ISYM %s\n", irrep_text(R->fcidump, R->fcidump->isym, k));
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
static void say_unused(const ci_args *a, const cis_ci_result *R) {
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

/* The driver's progress: the header before the work (stdout with the text
 * report; stderr with the JSON on stdout unless --quiet), then a line per Davidson
 * iteration when asked (--progress), on a terminal, or once the run is long;
 * none with --quiet, and --verbose prints Davidson's own lines instead. */
static void ci_progress(void *user, const cis_ci_progress *p) {
  ci_args *a = user;
  if (p->event == CIS_CI_PROGRESS_HEADER) {
    if (!cli_json_stdout(&a->json)) { print_header(stdout, a, p->result); a->header_printed = 1; }
    else if (!a->quiet) print_header(stderr, a, p->result);
    return;
  }
  const int shown = !a->quiet && (a->progress || isatty(2) || p->elapsed > CI_LONG_RUN_SECONDS);
  if (p->event == CIS_CI_PROGRESS_BUILD) { if (shown) print_build_line(p); return; }
  if (a->quiet || a->o.verbose) return;
  if (shown) print_progress_line(p);
}

int cis_cmd_ci(int argc, char **argv) {
  const double t_start = cis_wtime();
  ci_args a;
  cis_ci_result *R = NULL;
  if (cli_dist_wanted(argc, argv)) return cli_dist_ci(argc, argv); /* --gpus N: cmd_dist.c */
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  if (cli_parse_only) return 0;
  if (!a.o.count_only) {
    a.o.progress = ci_progress;
    a.o.progress_user = &a;
  }
  cis_status st = cis_ci_solve_file(a.file, &a.o, &R);
  const double t_output = cis_wtime();
  if (st == CIS_OK && R->format_reason[0] && !a.quiet) fprintf(stderr, "--format auto: %s\n", R->format_reason);
  if (st == CIS_OK && !a.o.count_only) say_unused(&a, R);
  if (st == CIS_OK && !cli_json_stdout(&a.json)) { /* the text report */
    if (a.o.count_only) print_count(NULL, &a, R);
    else print_text(&a, R);
  }
  if (st == CIS_OK && a.json.path) { /* an unconverged root is an error, not a result */
    FILE *f = cli_json_open(&a.json, 0);
    if (!f) st = CIS_ERR_IO;
    else if (a.o.count_only) print_count(f, &a, R);
    else print_json(f, &a, R);
    if (f) st = cli_json_close(&a.json, f);
  }
  if (st == CIS_OK && a.o.verbose && !a.o.count_only)
    cli_ci_phases(cli_json_stdout(&a.json) ? stderr : stdout, R, cis_wtime() - t_output, cis_wtime() - t_start);
  rc = st == CIS_OK ? 0 : cli_fail(st);
  cis_ci_result_free(R);
  return rc;
}
