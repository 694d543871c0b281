/* bench_spmm.h: symmetric storage and SpMM parts of `cisparse bench`
 * (bench_spmm.c). */
#ifndef CISPARSE_CLI_BENCH_SPMM_H
#define CISPARSE_CLI_BENCH_SPMM_H

#include "cli/cli.h"

/* The symmetric-storage kernels bench --symmetric times (cisparse/gpu.h). */
#define CLI_SYM_KERNELS 4
extern const char *const cli_sym_kernels[CLI_SYM_KERNELS];
/* The full-CI Hamiltonian of an FCIDUMP file (double), built on the host. */
cis_status cli_bench_fcidump(const char *path, cis_csr **A);
/* Print whether each of cli_sym_kernels gives bitwise-equal y over repeated
 * products on U (dtype t; d_x, d_y device vectors). */
void cli_bench_determinism(const cis_csr *U, cis_dtype t, const void *d_x, void *d_y);
/* The SpMM table (k = 1, 2, 4, ..., kmax) on A (and U when not NULL),
 * cuSPARSE SpMM beside it. */
cis_status cli_bench_spmm(const cis_csr *A, const cis_csr *U, cis_dtype t, int kmax, int warmup, int runs);

#endif
