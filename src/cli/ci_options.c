/* ci_options.c: `cisparse ci`'s options, one table for one process and for
 * the run over parts (--gpus N, --cpu-parts N, --mpi): each option's value
 * is checked once, as it enters (its range, its names), by the entry's
 * setter; then the options are checked against each other, for the layout
 * that runs. Over parts the options the parts do not take are refused, and
 * the parts-only options (--gpus, --cpu-parts, --mpi, --exchange,
 * --host-vectors) need one of them. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "cli/ci_cmd.h"

void ci_usage(FILE *f) {
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
             "  --strings FILE  selected CI: the space is the product of the alpha and beta string sets in\n"
             "                FILE (lines 'a N', 'b N', 'ab N'; N a string's bits, bit p = orbital p, in\n"
             "                decimal, 0x or 0b; '#' comments), as SQD and PySCF's selected_ci pose it;\n"
             "                on the CPU, with --roots --tol --max-iter --subspace --no-s2 --json (docs/sci.md)\n"
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

/* An integer option in lo..hi into the int at a + at, else "OPT must be
 * WHAT, got V" (2). */
static int int_in(ci_args *a, size_t at, const char *opt, const char *val, long long lo, long long hi,
                  const char *what) {
  long long v;
  if (cli_int(opt, val, &v)) return 2;
  if (v < lo || v > hi) return cli_usage("%s must be %s, got %lld", opt, what, v);
  const int iv = (int)v;
  memcpy((char *)a + at, &iv, sizeof iv);
  return 0;
}

/* A choice of two names, n0 or n1: *out = 1 for the name yes, else 0. */
static int two_names(const char *opt, const char *val, const char *n0, const char *n1, const char *yes, int *out) {
  if (strcmp(val, n0) && strcmp(val, n1)) return cli_usage("%s must be %s or %s, got '%s'", opt, n0, n1, val);
  *out = !strcmp(val, yes);
  return 0;
}

#define AT(field) offsetof(ci_args, field)

/* The setters: argv's value val (NULL for a flag) into a; 0, or 2 after a
 * usage error printed. */
static int set_level(ci_args *a, const char *opt, const char *val) {
  if (!strcmp(val, "full")) { a->o.level = -1; return 0; }
  return int_in(a, AT(o.level), opt, val, 0, 128, "0..128 or full");
}
static int set_roots(ci_args *a, const char *opt, const char *val) { return int_in(a, AT(o.roots), opt, val, 1, 64, "1..64"); }
static int set_isym(ci_args *a, const char *opt, const char *val) {
  return int_in(a, AT(o.isym), opt, val, 1, 8, "an irrep 1..8, 1-based as FCIDUMP's ISYM (1: totally symmetric; a PySCF "
                                              "irrep id k is k + 1)");
}
static int set_max_iter(ci_args *a, const char *opt, const char *val) {
  return int_in(a, AT(o.max_iter), opt, val, 1, 100000, "1..100000");
}
static int set_subspace(ci_args *a, const char *opt, const char *val) {
  return int_in(a, AT(o.max_sub), opt, val, 2, 4096, "2..4096 vectors");
}
static int set_repeat(ci_args *a, const char *opt, const char *val) {
  return int_in(a, AT(o.repeat), opt, val, 1, CIS_CI_MAX_REPEAT, "1..20");
}
static int set_pspace(ci_args *a, const char *opt, const char *val) { return int_in(a, AT(o.pspace), opt, val, 1, 2000, "1..2000"); }
static int set_gpus(ci_args *a, const char *opt, const char *val) {
  a->gpus_given = 1;
  return int_in(a, AT(gpus), opt, val, 0, 4096, "0 (every GPU) .. the GPU count");
}
static int set_cpu_parts(ci_args *a, const char *opt, const char *val) {
  a->cpu_given = 1;
  return int_in(a, AT(cpu_parts), opt, val, 1, 64, "1..64");
}
static int set_tol(ci_args *a, const char *opt, const char *val) {
  if (cli_double(opt, val, &a->o.tol)) return 2;
  return a->o.tol > 0 ? 0 : cli_usage("--tol must be > 0");
}
static int set_spin(ci_args *a, const char *opt, const char *val) {
  double s;
  if (cli_double(opt, val, &s)) return 2;
  if (!(s >= 0) || s > 64 || fabs(2 * s - floor(2 * s + 0.5)) > 1e-9)
    return cli_usage("--spin must be 0, 0.5, 1, 1.5, ..., got '%s'", val);
  a->o.spin = s;
  return 0;
}
static int set_format(ci_args *a, const char *opt, const char *val) {
  char names[256];
  size_t len = 0;
  (void)opt;
  a->o.format = val;
  a->format_set = 1;
  if (!strcmp(val, "auto") || cis_format_is_symmetric(val)) return 0;
  for (int f = 0; f < cis_format_count(); ++f)
    if (!strcmp(val, cis_format_name(f))) return 0;
  for (int f = 0; f < cis_format_count() && len < sizeof names; ++f)
    len += (size_t)snprintf(names + len, sizeof names - len, " %s", cis_format_name(f));
  return cli_usage("--format must be auto,%s, csr-sym or sym-seg; got '%s'", names, val);
}
static int set_method(ci_args *a, const char *opt, const char *val) {
  (void)opt;
  if (!strcmp(val, "stored")) a->o.method = CIS_CI_METHOD_STORED;
  else if (!strcmp(val, "direct")) a->o.method = CIS_CI_METHOD_DIRECT;
  else if (!strcmp(val, "auto")) a->o.method = CIS_CI_METHOD_AUTO;
  else return cli_usage("--method must be direct, stored or auto, got '%s'", val);
  return 0;
}
static int set_values(ci_args *a, const char *opt, const char *val) { return two_names(opt, val, "float", "double", "float", &a->o.float_values); }
static int set_device(ci_args *a, const char *opt, const char *val) {
  a->device_given = 1;
  return two_names(opt, val, "cpu", "gpu", "gpu", &a->o.gpu);
}
static int set_build(ci_args *a, const char *opt, const char *val) { return two_names(opt, val, "cpu", "gpu", "gpu", &a->o.build); }
static int set_save(ci_args *a, const char *opt, const char *val) {
  (void)opt;
  if (!strcmp(val, "-") || !val[0])
    return cli_usage("--save needs a file name (the Hamiltonian is not written to standard output), got '%s'", val);
  a->o.save = val;
  return 0;
}
static int set_kernel(ci_args *a, const char *opt, const char *val) { (void)opt; a->o.kernel = val; return 0; }
static int set_occ(ci_args *a, const char *opt, const char *val) { (void)opt; a->o.occ = val; return 0; }
static int set_strings(ci_args *a, const char *opt, const char *val) { (void)opt; a->strings = val; return 0; }
static int set_host_vectors(ci_args *a, const char *opt, const char *val) {
  (void)opt;
  if (!strcmp(val, "auto")) a->o.host_vectors = 0;
  else if (!strcmp(val, "always")) a->o.host_vectors = 1;
  else if (!strcmp(val, "never")) a->o.host_vectors = -1;
  else return cli_usage("ci: --host-vectors must be auto, always or never, got '%s'", val);
  return 0;
}
static int set_exchange(ci_args *a, const char *opt, const char *val) {
  cis_dist_exchange xk;
  (void)opt;
  if (cis_dist_exchange_parse(val, &xk) != CIS_OK) return cli_usage("ci: --exchange: %s", cis_last_error());
  a->o.exchange = val;
  return 0;
}

/* Where an option may go: one process only, over parts too, parts only. */
enum { ONE = 1, PARTS = 2, BOTH = ONE | PARTS };

typedef struct ci_option {
  const char *name;
  int where;                                           /* ONE, PARTS or BOTH */
  size_t flag;                                         /* a flag: the int set to 1 (offset in ci_args) */
  int (*set)(ci_args *a, const char *opt, const char *val); /* an option with a value; NULL for a flag */
} ci_option;

static const ci_option OPTIONS[] = {
    {"--symmetric", ONE, AT(o.symmetric), NULL},
    {"--time-sigma", BOTH, AT(o.time_sigma), NULL},
    {"--no-time-reversal", ONE, AT(o.no_time_reversal), NULL},
    {"--symmetry-projection", ONE, AT(o.symmetry_projection), NULL},
    {"--no-s2", ONE, AT(o.no_s2), NULL},
    {"--verbose", BOTH, AT(o.verbose), NULL},
    {"--quiet", ONE, AT(quiet), NULL},
    {"--progress", ONE, AT(progress), NULL},
    {"--block-products", ONE, AT(o.block_products), NULL},
    {"--count", BOTH, AT(o.count_only), NULL},
    {"--mpi", PARTS, AT(mpi), NULL},
    {"--level", BOTH, 0, set_level},
    {"--roots", BOTH, 0, set_roots},
    {"--format", BOTH, 0, set_format},
    {"--values", ONE, 0, set_values},
    {"--save", ONE, 0, set_save},
    {"--device", BOTH, 0, set_device},
    {"--build", ONE, 0, set_build},
    {"--kernel", ONE, 0, set_kernel},
    {"--method", BOTH, 0, set_method},
    {"--occ", ONE, 0, set_occ},
    {"--strings", ONE, 0, set_strings},
    {"--spin", ONE, 0, set_spin},
    {"--isym", ONE, 0, set_isym},
    {"--max-iter", BOTH, 0, set_max_iter},
    {"--subspace", BOTH, 0, set_subspace},
    {"--repeat", ONE, 0, set_repeat},
    {"--pspace", ONE, 0, set_pspace},
    {"--tol", BOTH, 0, set_tol},
    {"--gpus", PARTS, 0, set_gpus},
    {"--cpu-parts", PARTS, 0, set_cpu_parts},
    {"--host-vectors", PARTS, 0, set_host_vectors},
    {"--exchange", PARTS, 0, set_exchange},
};

/* The options one process checks against each other, and the method they
 * imply (auto becomes stored where only stored can do what was asked);
 * 0, or 2 after a usage error. */
static int settle_one(ci_args *a) {
  if (a->quiet && (a->progress || a->o.verbose)) return cli_usage("--quiet cannot be combined with --progress or --verbose");
  if (a->strings && (a->o.method != CIS_CI_METHOD_AUTO || a->o.level >= 0 || a->o.gpu || a->o.spin >= 0 ||
                     a->o.count_only || a->o.symmetric || a->o.save || a->format_set || a->o.kernel || a->o.build >= 0 ||
                     a->o.float_values || a->o.occ || a->o.isym > 0 || a->o.repeat > 1 || a->o.time_sigma))
    return cli_usage("--strings (selected CI in string sets, on the CPU) takes --roots --tol --max-iter --subspace "
                     "--pspace --no-s2 --verbose --quiet --progress --json only");
  if (a->o.count_only && a->o.save) return cli_usage("--count builds no Hamiltonian: --save cannot be combined with it");
  const int stored_opt = a->o.symmetric || a->o.save || a->format_set || a->o.kernel || a->o.build >= 0 || a->o.float_values;
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

/* The parts' options against each other, and the driver's gpus / cpu_parts
 * from them (with --mpi --device names the parts' device, not the solve's);
 * <S^2> is not computed over parts. 0, or 2 after a usage error. */
static int settle_parts(ci_args *a) {
  int rc;
  if ((rc = cli_parts_consistent("ci", a->mpi, a->gpus_given, a->cpu_given, a->device_given))) return rc;
  if (a->json.path && a->o.count_only) return cli_usage("ci: --json prints a run's result over parts, not --count's");
  const int mpi_gpu = a->o.gpu;
  a->o.gpu = 0;
  a->o.gpus = a->mpi ? mpi_gpu : a->cpu_given ? 0 : a->gpus == 0 ? CIS_CI_ALL_GPUS : a->gpus;
  a->o.cpu_parts = a->mpi ? !mpi_gpu : a->cpu_parts;
  a->o.no_s2 = 1;
  return 0;
}

int ci_parse(int argc, char **argv, ci_args *a) {
  int rc;
  memset(a, 0, sizeof *a);
  a->o = cis_ci_solve_opts_default();
  a->parts = cli_dist_wanted(argc, argv);
  for (int i = 1; i < argc; ++i) {
    const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    const ci_option *e = NULL;
    if (cli_stray_value(argv, i)) return 2;
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) { ci_usage(stdout); return -1; }
    if ((rc = cli_json_option(argc, argv, &i, &a->json)) >= 0) { if (rc) return rc; continue; }
    if (o[0] != '-' || o[1] != '-') { /* the FCIDUMP file */
      if (a->file) return cli_usage("ci: more than one FCIDUMP file given ('%s', '%s')", a->file, o);
      a->file = o;
      continue;
    }
    for (size_t k = 0; k < sizeof OPTIONS / sizeof *OPTIONS && !e; ++k)
      if (!strcmp(o, OPTIONS[k].name)) e = &OPTIONS[k];
    if (a->parts && (!e || !(e->where & PARTS)))
      return cli_usage("ci: option '%s' is not available with --gpus / --cpu-parts / --mpi (these take --method --level "
                       "--roots --tol --max-iter --subspace --host-vectors --count --verbose --time-sigma --format "
                       "--exchange --json, and --device with --mpi)", o);
    if (!e) return cli_usage("ci: unknown option '%s' (cisparse ci --help)", o);
    if (!(e->where & ONE) && !a->parts) return cli_usage("ci: %s goes with --gpus / --cpu-parts / --mpi", o);
    if (!e->set) {
      const int one = 1;
      memcpy((char *)a + e->flag, &one, sizeof one);
      continue;
    }
    if (!val) return cli_usage("%s needs a value", o);
    ++i;
    if ((rc = e->set(a, o, val))) return rc;
  }
  cli_json_settle(&a->json, &a->file);
  if (!a->file) return cli_usage("ci: no FCIDUMP file given (cisparse ci --help)");
  return a->parts ? settle_parts(a) : settle_one(a);
}
