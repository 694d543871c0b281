/* bench.h: one benchmark row and the report writers of `cisparse bench`
 * (measurement in cmd_bench.c, output in bench_report.c). */
#ifndef CISPARSE_CLI_BENCH_H
#define CISPARSE_CLI_BENCH_H

#include "cli/cli.h"

typedef struct bench_row {
  char label[48];    /* kernel name, "cusparse-<alg>", or "sell-S64" in sweeps */
  char format[16];   /* host format, or "cusparse" */
  char note[160];    /* why a row has no result ("" if it has one) */
  int block;         /* threads per block (0 = kernel default) */
  int is_cusparse;
  double ms, gflops, gbs, pct_bw, speedup, rel_err;
  cis_int bytes;     /* format bytes + x read once + y written once */
  cis_int matrix_bytes;
} bench_row;

typedef struct bench_run {
  const char *matrix;
  cis_int rows, cols, nnz;
  cis_dtype dtype;
  int gpu;               /* 1: GPU kernels; 0: CPU kernels (no GPU) */
  char device[200];      /* device name, driver / runtime, or the CPU note */
  double bw_gbs;         /* measured streaming read bandwidth (GPU only) */
  int runs, warmup;
  bench_row *rows_out;
  int n;
  char command[1024];
  int printed;           /* the table was printed already (before the --symmetric/--spmm parts) */
} bench_run;

/* The Table 9 comparison on a loaded matrix (every kernel and cuSPARSE
 * algorithm on the GPU, or every format's CPU kernel without one), printed
 * to stdout; for `cisparse run`. Returns the exit status (0 ok, 1 error). */
int cli_bench_compare(const cis_csr *A, const char *name, cis_dtype t);

/* Terminal table in the shape of the paper's Table 9. */
void bench_print_table(FILE *f, const bench_run *r);
/* CSV (one header line + one line per row) to path, JSON (run + rows) on f. */
cis_status bench_write_csv(const char *path, const bench_run *r);
void bench_write_json(FILE *f, const bench_run *r);

#endif
