/* run.h: the parts of `cisparse run` (the paper's experiment on the
 * embedded default CI matrix, DEFAULT_RUN_SPEC). */
#ifndef CISPARSE_CLI_RUN_H
#define CISPARSE_CLI_RUN_H

#include "cli/cli.h"

#define DEFAULT_RUN_SPEC "ci:rows=32768,seed=1"

/* Tables 3, 4 and 5 for A (generated from spec) beside the paper's figures
 * (cmd_run.c). Returns 0, or 1 after printing an error. */
int cli_run_tables_345(const cis_csr *A, const char *spec);

/* Table 9: every GPU kernel and cuSPARSE on A (cmd_bench.c), after Tables
 * 3-5. Same return. */
int cli_run_table9(const cis_csr *A, const char *spec);

#endif
