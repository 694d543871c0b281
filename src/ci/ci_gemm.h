/* ci_gemm.h: the dense products of the direct CI sigma (sigma.c,
 * sigma_irrep.c) and of the density matrices (rdm.c):
 * C = A B, row-major, A m x k (lda k), B k x n (ldb n), C m x n (ldc n),
 * m and k the orbital-pair count, n the (large) string-block width.
 * An optimised BLAS's dgemm when CMake found one (OpenBLAS, BLIS, MKL:
 * CISPARSE_HAVE_BLAS), else the project's own packed GEMM (ci_gemm_own.c),
 * also when only the netlib reference BLAS is installed (several times
 * slower than either). Single-threaded inside a parallel region: sigma.c
 * calls it from each OpenMP thread on its own block (ci_gemm_init sets a
 * threaded OpenBLAS to one thread). */
#ifndef CISPARSE_CI_GEMM_H
#define CISPARSE_CI_GEMM_H

#include "cisparse/types.h"

/* Once before ci_gemm_rm is called from parallel regions: a threaded
 * OpenBLAS is set to one thread (each OpenMP thread runs its own GEMM). */
void ci_gemm_init(void);
void ci_gemm_rm(int m, cis_int n, int k, const double *A, const double *B, double *C);
/* The same on sub-blocks: A m x k (row stride lda), B k x n (ldb), C m x n
 * (ldc), k >= 1 (the selected-CI half sigma's column panels). */
void ci_gemm_rm_ld(int m, int n, int k, const double *A, int lda, const double *B, int ldb, double *C, int ldc);
/* "BLAS dgemm (libopenblas.so)" or "own packed GEMM, avx512 kernel (reference
 * libblas.so found, not used)". */
const char *ci_gemm_name(void);
/* Largest n a single call accepts (BLAS takes 32-bit dimensions). */
cis_int ci_gemm_max_n(void);

/* The own GEMM, row-major: C = A op(B) (accumulate 0: C is only written, never
 * read) or C += A op(B) (accumulate 1). A m x k (row stride lda); op(B) k x n:
 * B (row stride ldb) or, transb, the transpose of the n x k matrix B. Fans
 * out over OpenMP threads (column panels) when called outside a parallel
 * region with enough work; each element is summed in the same order
 * whatever the thread count. Cannot fail (stack workspace). */
void ci_gemm_own(int transb, cis_int m, cis_int n, cis_int k, const double *A, cis_int lda, const double *B,
                 cis_int ldb, int accumulate, double *C, cis_int ldc);
/* Micro-kernels: 0 generic (vector extensions, any CPU), 1 AVX2+FMA, 2 AVX-512. */
#define CI_GEMM_OWN_KERNELS 3
/* 1 if this CPU (and build) can run the kernel. */
int ci_gemm_own_supported(int kernel);
/* The kernel in use: the widest supported unless set. */
int ci_gemm_own_kernel(void);
const char *ci_gemm_own_kernel_name(void);
/* Use kernel (tests); 0 (and no change) if not supported. Not thread-safe. */
int ci_gemm_own_set_kernel(int kernel);

#endif
