/* main.c: `cisparse COMMAND ...` dispatch to the cis_cmd_* functions (cli.h):
 * cli_main, called by entry.c's main (and by the option parser's fuzz target). */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"

typedef struct { const char *name; int (*fn)(int, char **); const char *help; } command;

static void usage(FILE *f, const command *cmds, size_t n) {
  fprintf(f, "usage: cisparse [-o NAME=VALUE]... COMMAND [options]   (cisparse --version)\n\ncommands:\n");
  for (size_t i = 0; i < n; ++i)
    fprintf(f, "  %-7s %s\n", cmds[i].name, cmds[i].help);
  fprintf(f, "\nA matrix is a Matrix Market file, a .cisb file or a generator spec\n"
             "(ci:rows=32768,seed=1  laplace3d:size=64,points=7  powerlaw:rows=100000,seed=3\n"
             " random:rows=1000,cols=800,density=0.01,seed=2). `cisparse COMMAND --help` for options;\n"
             "an option's value may follow it (--roots 3) or be joined to it (--roots=3).\n"
             "-o NAME=VALUE (repeatable, before the command) sets one of the library's tuning options,\n"
             "as CISPARSE_OPTIONS=NAME=VALUE,... does; `cisparse options` lists them.\n");
}

/* OpenMP reads OMP_WAIT_POLICY when its runtime starts (libgomp: as it is
 * loaded, before main). Unless the user chose a policy, the tool runs itself
 * again with passive waits: idle threads sleep instead of spinning, which on
 * a shared or busy machine takes the cores the working threads need. If the
 * exec fails (no /proc) the run goes on with the runtime's default. */
void cli_passive_waits(char **argv) {
  if (cis_host_env("OMP_WAIT_POLICY") || setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);
}

int cli_parse_only = 0;

/* --name=value is --name value in every command: cli_main splits such words
 * in two before the dispatch and keeps the values it split off here, so that
 * an option that takes no value refuses one (cli_stray_value) and --json
 * knows its file (cli_json_option). */
static const char **split_values;
static int split_count;

int cli_split_value(const char *s) {
  for (int k = 0; k < split_count; ++k)
    if (s == split_values[k]) return 1;
  return 0;
}

int cli_stray_value(char **argv, int i) {
  if (i < 1 || !cli_split_value(argv[i])) return 0;
  return cli_usage("%s takes no value, got '%s=%s'", argv[i - 1], argv[i - 1], argv[i]);
}

/* argv with each --name=value word as two words (the names copied into
 * names, the values pointing into argv's words); NULL when out of memory. */
static char **split_args(int argc, char **argv, int *n, char **names) {
  size_t bytes = 1;
  for (int i = 0; i < argc; ++i) bytes += strlen(argv[i]) + 1;
  char **out = malloc((2 * (size_t)argc + 1) * sizeof *out), *p = *names = malloc(bytes);
  split_values = malloc(((size_t)argc + 1) * sizeof *split_values);
  split_count = *n = 0;
  if (!out || !p || !split_values) return NULL;
  for (int i = 0; i < argc; ++i) {
    const char *a = argv[i], *eq = strchr(a, '=');
    if (i < 2 || strncmp(a, "--", 2) || !eq || eq == a + 2) { /* the program, the command, a plain word */
      out[(*n)++] = argv[i];
      continue;
    }
    memcpy(p, a, (size_t)(eq - a));
    p[eq - a] = '\0';
    out[(*n)++] = p;
    p += eq - a + 1;
    out[(*n)++] = (char *)(split_values[split_count++] = eq + 1);
  }
  out[*n] = NULL;
  return out;
}

static int dispatch(int argc, char **argv) {
  /* no more threads than the cores this process may use (affinity, cgroup quota) */
  if (!cis_host_env("OMP_NUM_THREADS")) omp_set_num_threads(cis_cpu_limit());
  const command cmds[] = {
      {"run", cis_cmd_run, "the paper's experiment on the embedded default CI matrix"},
      {"info", cis_cmd_info, "statistics and memory of every format (Tables 3-5)"},
      {"gen", cis_cmd_gen, "write a generated matrix to .cisb or .mtx"},
      {"spmv", cis_cmd_spmv, "one product y = alpha*A*x + beta*y in a chosen format"},
      {"bench", cis_cmd_bench, "time every kernel and cuSPARSE (Tables 6-10); --solvers: the solvers' grid (Figure 4)"},
      {"ci", cis_cmd_ci, "CI ground states from an FCIDUMP file"},
      {"solve", cis_cmd_solve, "A x = b by CG, BiCG or BiCGStab on the CPU or GPU, time and energy per iteration"},
      {"options", cis_cmd_options, "the library's tuning options: name, type, default, value, range, help"},
  };
  size_t n = sizeof cmds / sizeof *cmds;
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout, cmds, n);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("cisparse %s (CUDA kernels %s)\n", cis_version(), cis_built_with_cuda() ? "built" : "not built");
    printf("%s\n", cis_blas_info());
    printf("openmp: %d threads (cores this process may use: %d), OMP_WAIT_POLICY=%s\n", omp_get_max_threads(),
           cis_cpu_limit(), cis_host_env("OMP_WAIT_POLICY") ? cis_host_env("OMP_WAIT_POLICY") : "unset");
    return 0;
  }
  for (size_t i = 0; i < n; ++i)
    if (!strcmp(argv[1], cmds[i].name)) return cmds[i].fn(argc - 1, argv + 1);
  return cli_usage("unknown command '%s' (try cisparse --help)", argv[1]);
}

/* -o NAME=VALUE (or -o=NAME=VALUE, --option NAME=VALUE), repeatable,
 * between the program and the command: each set through
 * cis_option_set_pairs, after CISPARSE_OPTIONS (the command line wins).
 * Returns how many words were taken, or -1 after a one-line refusal (*rc
 * 2, a usage error). */
static int global_options(int argc, char **argv, int *rc) {
  int i = 1;
  while (i < argc && (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--option") || !strncmp(argv[i], "-o=", 3) ||
                      !strncmp(argv[i], "--option=", 9))) {
    const char *eq = strchr(argv[i], '='), *pair = eq ? eq + 1 : i + 1 < argc ? argv[i + 1] : NULL;
    if (!pair || !*pair) {
      *rc = cli_usage("%s needs NAME=VALUE (cisparse options lists the names)", argv[i]);
      return -1;
    }
    if (cis_option_set_pairs(pair) != CIS_OK) { /* a bad argument: a usage error, one line */
      *rc = cli_usage("-o %s: %s", pair, cis_last_error());
      return -1;
    }
    i += eq ? 1 : 2;
  }
  return i - 1;
}

/* One warning line for the options set and never read by the command. */
static void report_unused(void) {
  char names[512];
  const int n = cis_options_unused(names, sizeof names);
  if (n > 0)
    fprintf(stderr, "cisparse: warning: option%s set but not used by this command: %s\n", n == 1 ? "" : "s", names);
}

int cli_main(int argc, char **argv) {
  char *names = NULL;
  int n, rc, taken;
  /* NVLink multicast off (docs/multi-gpu.md): NCCL reads its own variable
   * when its communicators are made, and the library sets no environment,
   * so the tool sets it, unless the user did */
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  if (cis_options_from_env() != CIS_OK) return cli_fail(CIS_ERR_INVALID); /* the library's tuning options, once */
  if ((taken = global_options(argc, argv, &rc)) < 0) return rc;
  argv[taken] = argv[0]; /* the program's name before the command */
  argc -= taken;
  argv += taken;
  char **args = split_args(argc, argv, &n, &names);
  rc = args ? dispatch(n, args) : cli_fail(cis_error(CIS_ERR_ALLOC, "out of memory for the command line"));
  if (rc == 0 && !cli_parse_only && n > 1 && strcmp(args[1], "options")) report_unused(); /* the listing reads none */
  free(args);
  free(names);
  free(split_values);
  split_values = NULL;
  split_count = 0;
  return rc;
}

int cli_fail(cis_status st) {
  const char *m = cis_last_error();
  fprintf(stderr, "cisparse: %s\n", (m && *m) ? m : cis_status_name(st));
  return 1;
}

int cli_usage(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cis_error(CIS_ERR_INVALID, "%s", msg); /* one line, raw bytes of an argument escaped */
  fprintf(stderr, "cisparse: %s\n", cis_last_error());
  return 2;
}

int cli_int(const char *opt, const char *s, long long *v) {
  char *end;
  if (!s) return cli_usage("%s needs a value", opt);
  errno = 0;
  *v = strtoll(s, &end, 10);
  if (errno || end == s || *end) return cli_usage("%s: '%s' is not an integer", opt, s);
  return 0;
}

int cli_double(const char *opt, const char *s, double *v) {
  char *end;
  if (!s) return cli_usage("%s needs a value", opt);
  errno = 0;
  *v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(*v)) return cli_usage("%s: '%s' is not a finite number", opt, s);
  return 0;
}

int cli_dtype(const char *s, cis_dtype *t) {
  if (s && !strcmp(s, "double")) { *t = CIS_F64; return 0; }
  if (s && !strcmp(s, "float")) { *t = CIS_F32; return 0; }
  return cli_usage("--precision must be double or float, got '%s'", s ? s : "(nothing)");
}
