/* ci_gemm.h: the dense product of the direct CI sigma (sigma.c):
 * C = A B, row-major, A m x k (lda k), B k x n (ldb n), C m x n (ldc n),
 * m and k the orbital-pair count, n the (large) string-block width. BLAS
 * dgemm when CMake found one (CISPARSE_HAVE_BLAS), else a cache-blocked
 * loop over column tiles. Single-threaded: sigma.c calls it from
 * each OpenMP thread on its own block (ci_gemm_init sets a threaded OpenBLAS
 * to one thread). */
#ifndef CISPARSE_CI_GEMM_H
#define CISPARSE_CI_GEMM_H

#include "cisparse/types.h"

/* Once before ci_gemm_rm is called from parallel regions: a threaded
 * OpenBLAS is set to one thread (each OpenMP thread runs its own GEMM). */
void ci_gemm_init(void);
void ci_gemm_rm(int m, cis_int n, int k, const double *A, const double *B, double *C);
/* The built-in loop, also when a BLAS is used (tests compare the two). */
void ci_gemm_rm_builtin(int m, cis_int n, int k, const double *A, const double *B, double *C);
/* "BLAS dgemm (libopenblas.so)" or "built-in blocked GEMM (no BLAS found)". */
const char *ci_gemm_name(void);
/* Largest n a single call accepts (BLAS takes 32-bit dimensions). */
cis_int ci_gemm_max_n(void);

#endif
