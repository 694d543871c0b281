/* cli.h: the cisparse command-line tool's commands and shared helpers.
 * Each command lives in its own cmd_<name>.c and returns the process exit
 * status (0 ok, 1 error after printing one line "cisparse: ..." to stderr,
 * 2 usage error). */
#ifndef CISPARSE_CLI_H
#define CISPARSE_CLI_H

#include <stdio.h>
#include "cisparse/cisparse.h"
#include "tool/tool.h"

int cis_cmd_info(int argc, char **argv);
int cis_cmd_gen(int argc, char **argv);
int cis_cmd_spmv(int argc, char **argv);
int cis_cmd_bench(int argc, char **argv);
int cis_cmd_ci(int argc, char **argv);
int cis_cmd_run(int argc, char **argv);
int cis_cmd_solve(int argc, char **argv);
int cis_cmd_options(int argc, char **argv);
/* `cisparse bench MATRIX --solvers ...` (bench_sweep.c): the paper's grid
 * (§4, Figure 4); the exit status. */
int cli_bench_sweep(int argc, char **argv);
/* 1 when argv holds --solvers (bench runs the sweep). */
int cli_bench_solvers_wanted(int argc, char **argv);
/* The tool: `cisparse COMMAND ...` dispatched to the commands above; returns
 * the process exit status (src/cli/entry.c's main calls it). */
int cli_main(int argc, char **argv);
/* Unless the user set OMP_WAIT_POLICY, exec the tool again (argv, from
 * /proc/self/exe) with it passive: OpenMP reads it as it loads, before main;
 * returns where the exec is not possible. For the tool's main only. */
void cli_passive_waits(char **argv);
/* Nonzero: each command returns its option parser's status (0 ok or --help,
 * 2 usage error) before any work (no file read, no matrix built): the option
 * parser's fuzz target (fuzz/fuzz_cli_options.c) sets it. 0 in the tool. */
extern int cli_parse_only;
/* --gpus N / --cpu-parts N / --mpi in argv: bench and solve take the
 * distributed path of cmd_dist.c (cisparse/dist.h), ci its run over parts. */
int cli_dist_wanted(int argc, char **argv);
int cli_dist_bench(int argc, char **argv);
int cli_dist_solve(int argc, char **argv);
/* The parts' options against each other (cmd being bench, solve or ci):
 * --gpus and --cpu-parts exclude each other, --mpi takes its parts from
 * mpirun, --device goes with --mpi only; 0 ok, 2 after a usage error. */
int cli_parts_consistent(const char *cmd, int mpi, int gpus_given, int cpu_given, int device_given);

/* --mpi (cli_mpi.c): one part per process of `mpirun -np N cisparse ...`.
 * A command with --mpi calls, in order: cli_mpi_parse_begin / _end around
 * its option parser (only the launcher's rank 0 prints usage errors),
 * cli_mpi_start (MPI started; stdout of ranks other than 0 silenced; 1 with
 * one line printed when the binary has no MPI), cli_mpi_comm (its part's
 * communicator, the ranks agreeing on failure), its work, then, after
 * freeing every cisparse object, cli_mpi_finish: the exit status (0, or 1
 * on every rank with one line from the lowest failing rank), MPI finalised.
 * With on = 0 each step does nothing (finish: cli_fail on error). */
typedef struct cli_mpi {
  int on, started, rank, size;
  int follow;                 /* this rank stopped because another failed */
  int saved_stdout, saved_stderr;
} cli_mpi;
int cli_mpi_wanted(int argc, char **argv); /* --mpi in argv */
void cli_mpi_parse_begin(cli_mpi *m);
void cli_mpi_parse_end(cli_mpi *m);
int cli_mpi_start(cli_mpi *m);
/* gpu: NCCL on one GPU per process (cis_dist_comm_mpi), else host parts
 * over MPI (cis_dist_comm_mpi_host). */
cis_status cli_mpi_comm(cli_mpi *m, int gpu, cis_dist_comm **c);
int cli_mpi_finish(cli_mpi *m, cis_status st);
/* --name=value: cli_main splits each such word into --name and value before
 * the dispatch (main.c). cli_split_value: 1 when s is a value split off so.
 * cli_stray_value: an option parser's loop calls it on each word it reaches
 * (a word no option took as its value): 2 with "--quiet takes no value, got
 * '--quiet=1'" printed when argv[i] was split off an option that takes none,
 * else 0. */
int cli_split_value(const char *s);
int cli_stray_value(char **argv, int i);

/* --json [FILE] (ci, info, solve, spmv, bench alike; cli_json.c): the JSON
 * alone on stdout (no FILE, or '-'; the report, where the command prints one
 * beside it, goes to stderr), or in FILE with the report on stdout as without
 * --json. FILE is the next word when it was joined (--json=FILE), or when it
 * does not start with '-' and the command has its input besides it: `ci
 * X.FCIDUMP --json out.json` writes out.json, `ci --json X.FCIDUMP` reads
 * X.FCIDUMP and prints the JSON. */
typedef struct cli_json {
  const char *path; /* NULL: no --json; "-": stdout; else the file */
  int guessed;      /* path is a plain next word: the input if no other is given */
} cli_json;
/* argv[*i] is --json: -1 when it is not, 0 when taken (*i past a FILE),
 * 2 after a usage error. */
int cli_json_option(int argc, char **argv, int *i, cli_json *j);
/* After the parse: a guessed FILE with no input given is the input. */
void cli_json_settle(cli_json *j, const char **input);
/* 1 when the JSON goes to stdout. */
int cli_json_stdout(const cli_json *j);
/* The JSON's stream: stdout, or FILE opened for writing (NULL, the error
 * set, when it cannot be). report_aside: with stdout, what the command prints
 * on stdout from here on goes to stderr instead (its file descriptor moved),
 * the returned stream being the real stdout. */
FILE *cli_json_open(const cli_json *j, int report_aside);
/* Flush or close what cli_json_open returned; CIS_ERR_IO when writing failed. */
cis_status cli_json_close(const cli_json *j, FILE *f);
/* A JSON string literal on f (quotes, backslashes, control characters
 * escaped); null for NULL (a value that does not apply). */
void cli_json_string(FILE *f, const char *s);
/* "key": v on f, v printed with the printf format fmt (one double), or null
 * where v is not finite (NaN: not measured or not applicable; JSON has no
 * NaN or infinity); then after (NULL: nothing), e.g. ", ". */
void cli_json_num(FILE *f, const char *key, double v, const char *fmt, const char *after);
/* "key": "s" on f (cli_json_string), then after (NULL: nothing). */
void cli_json_str(FILE *f, const char *key, const char *s, const char *after);
/* `ci --verbose`: R's phases (the library's: parse, space, build: rows, ..., davidson, <S^2>), then output
 * (the report's printing, seconds) and other (the command's wall time, total, less all those), one a line
 * on f, and the total (ci_phases.c). */
void cli_ci_phases(FILE *f, const cis_ci_result *R, double output, double total);

/* Call, and on failure jump to the function's single `cleanup:` with the
 * status in `st`: the library's idiom (src/core/internal.h), restated here
 * because the tool sees the public headers only. */
#ifndef CIS_TRY
#define CIS_TRY(call)               \
  do {                              \
    st = (call);                    \
    if (st != CIS_OK) goto cleanup; \
  } while (0)
#endif

/* Print "cisparse: <cis_last_error()>" (or the status name) and return 1. */
int cli_fail(cis_status st);
/* Print "cisparse: <message>" and return 2 (usage errors). */
int cli_usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Parse a whole decimal integer / floating number; 0 on success, else prints a
 * usage error naming opt and returns 2. */
int cli_int(const char *opt, const char *s, long long *v);
int cli_double(const char *opt, const char *s, double *v);
/* 1 when path is an FCIDUMP file: its name ends in FCIDUMP or its first word
 * is &FCI (any case). cli_load: cis_load, an FCIDUMP refused in words (it
 * holds integrals: `cisparse ci` solves it, `cisparse bench` times its
 * Hamiltonian) instead of as a file without a Matrix Market banner. */
int cli_is_fcidump(const char *path);
cis_status cli_load(const char *name, cis_dtype t, cis_csr **A);
/* "double"/"float" -> dtype; 0 ok, 2 on an unknown name (message printed). */
int cli_dtype(const char *s, cis_dtype *t);

/* --plot PREFIX: draw JSON (written by `bench` for kind "spmv", by `bench
 * --solvers` for "solvers") as PREFIX_*.png through `python3 -m cisparse.plot`
 * when python3 imports it and matplotlib; otherwise one line on out naming the
 * JSON and the command that draws it. Never changes the exit status. */
void cli_plot(const char *kind, const char *json, const char *prefix, FILE *out);

/* Relative tolerance of the symmetry check behind --symmetric (spmv, solve,
 * bench): A(i,j) and A(j,i) may differ by rounding in a computed matrix. */
#define CLI_SYM_TOL 1e-12

#endif
