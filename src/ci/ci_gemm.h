/* ci_gemm.h: the dense product of the direct CI sigma (sigma.c):
 * C = A B, row-major, A m x k (lda k), B k x n (ldb n), C m x n (ldc n),
 * m and k the orbital-pair count, n the (large) string-block width. BLAS
 * dgemm when CMake found one (CISPARSE_HAVE_BLAS), else a cache-blocked
 * OpenMP loop over column tiles (each C element summed by one thread in
 * k order: deterministic for any thread count). Call it outside parallel
 * regions (the BLAS threads itself). */
#ifndef CISPARSE_CI_GEMM_H
#define CISPARSE_CI_GEMM_H

#include "cisparse/types.h"

void ci_gemm_rm(int m, cis_int n, int k, const double *A, const double *B, double *C);
/* "OpenBLAS (libopenblas.so)", "BLAS (libblas.so)" or "built-in blocked OpenMP GEMM". */
const char *ci_gemm_name(void);
/* Largest n a single call accepts (BLAS takes 32-bit dimensions). */
cis_int ci_gemm_max_n(void);

#endif
