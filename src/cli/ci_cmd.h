/* ci_cmd.h: the pieces of `cisparse ci` (one command, one process or over
 * parts): the options as parsed (ci_options.c: one option table, each value
 * checked once as it enters), the run (cmd_ci.c) and the report, text
 * (ci_report.c) and JSON (ci_report_json.c), for both layouts. */
#ifndef CISPARSE_CLI_CI_CMD_H
#define CISPARSE_CLI_CI_CMD_H

#include "cli/cli.h"

typedef struct ci_args {
  const char *file;
  cli_json json;          /* --json [FILE] */
  int format_set;
  int method_auto;        /* the method was left to the driver (printed with its reason) */
  const char *method_why; /* not auto: what chose it */
  int quiet, progress;    /* --quiet: no progress lines; --progress: a line per iteration however short the run */
  int header_printed;     /* the header went out before the work (cmd_ci.c's progress) */
  int parts;              /* --gpus, --cpu-parts or --mpi: the run over parts (cisparse/dist.h) */
  int mpi;                /* --mpi: one part per process of mpirun */
  int gpus, cpu_parts;    /* --gpus N (0: every GPU), --cpu-parts N, as given */
  int gpus_given, cpu_given, device_given;
  const char *strings;    /* --strings FILE: selected CI in its alpha and beta string sets (ci_strings.c) */
  cis_ci_solve_opts o;    /* what the driver gets (cis_ci_solve_file) */
} ci_args;

/* --strings FILE's sets (format in ci_strings.c) into *alpha (*na) and *beta
 * (*nb), malloc'd (free both); CIS_ERR_IO / CIS_ERR_PARSE / CIS_ERR_ALLOC
 * with one line naming the file and line. */
cis_status ci_read_strings(const char *path, uint64_t **alpha, cis_int *na, uint64_t **beta, cis_int *nb);

/* argv (argv[0] the command's name) into *a through the one option table;
 * over parts the options the parts do not take are refused, and o's gpus /
 * cpu_parts are set (with --mpi: gpus 1 for --device gpu, else cpu_parts 1;
 * the caller sets the rank count and the communicator). Returns 0 ok, -1
 * after --help (printed on stdout), 2 after a usage error (one line). */
int ci_parse(int argc, char **argv, ci_args *a);
/* The usage text of `cisparse ci` on f. */
void ci_usage(FILE *f);

/* The text report on stdout: --count's sizes, or the run's result (one
 * process: the header first unless it went out before the work; over
 * parts: the parts' set-up, exchange and times). */
void ci_report_text(ci_args *a, const cis_ci_result *R);
/* The header (space, method and why, memory) on f: what is known before
 * the long work (one process). */
void ci_report_header(FILE *f, const ci_args *a, const cis_ci_result *R);
/* The result (or --count's sizes, one process) as one JSON object on f. */
void ci_report_json(FILE *f, const ci_args *a, const cis_ci_result *R);
/* A line on stderr for each option the method that ran does not read (one
 * process: the method auto chose may not be the one an option was meant for). */
void ci_report_unused(const ci_args *a, const cis_ci_result *R);
/* One progress line on stderr: the stored H's build (p->event
 * CIS_CI_PROGRESS_BUILD) or a Davidson iteration, in the form --help documents. */
void ci_report_progress(const cis_ci_progress *p);

/* Helpers the two report files share (ci_report.c). */
/* 2S+1 from <S^2> (rounded). */
int ci_multiplicity(double s2);
/* Irrep k (1..8, FCIDUMP's 1-based ISYM numbering) as the report prints it:
 * "6 (B1u)", or "6" where no D2h name is known; buf's text returned. */
const char *ci_irrep_text(const cis_fcidump *F, int k, char buf[24]);
/* --count's figures (ci_count_sizes): determinants, nonzeros (counted,
 * estimated or bounded), csr's and ell's bytes by formula, and the memory
 * each method needs. */
typedef struct ci_count {
  double n, nnz, csr, ell;
  cis_ci_memory_need m;
} ci_count;
void ci_count_sizes(const ci_args *a, const cis_ci_result *R, ci_count *s);
/* Hartree in electronvolts (CODATA 2018). */
#define CI_EV_PER_EH 27.211386245988

#endif
