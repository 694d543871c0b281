/* gemm_bench.c: the CPU CI's GEMM shapes (row-major C = A B, A m x k, B k x n)
 * through the own packed GEMM (each micro-kernel this CPU runs) and through
 * BLAS dgemm_ from shared libraries named on the command line (dlopen; the
 * symbol name may be given as LIB:SYMBOL, e.g. scipy-openblas's scipy_dgemm_),
 * one thread, the best of 5 rounds of CPU time.
 * Build (from the source root, after a CPU build in build-cpu):
 *   cc -O2 -fopenmp -Isrc -Iinclude -Ibuild-cpu/include bench/gemm_bench.c \
 *      build-cpu/libcisparse.a -llapack -lblas -ldl -lm -o gemm_bench
 * usage: OMP_NUM_THREADS=1 ./gemm_bench M N K [LIB[:SYMBOL] ...] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ci/ci_gemm.h"

typedef void (*dgemm_fn)(const char *, const char *, const int *, const int *, const int *, const double *,
                         const double *, const int *, const double *, const int *, const double *, double *,
                         const int *);

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* GFLOP/s of reps products, best of 5 rounds; dgemm NULL: the own GEMM. */
static double rate(dgemm_fn dgemm, int m, int n, int k, const double *A, const double *B, double *C, int reps) {
  double best = 1e30;
  const double one = 1.0, zero = 0.0;
  for (int round = 0; round < 5; ++round) {
    const double t0 = cpu_seconds();
    for (int r = 0; r < reps; ++r) {
      if (dgemm) dgemm("N", "N", &n, &m, &k, &one, B, &n, A, &k, &zero, C, &n); /* C^T = B^T A^T */
      else ci_gemm_own(0, m, n, k, A, k, B, n, 0, C, n);
    }
    const double t = cpu_seconds() - t0;
    if (t < best) best = t;
  }
  return 2.0 * m * (double)n * k * reps / best / 1e9;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s M N K [LIB[:SYMBOL] ...]\n", argv[0]);
    return 2;
  }
  const int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
  if (m < 1 || n < 1 || k < 1) {
    fprintf(stderr, "gemm_bench: M, N, K must be positive\n");
    return 2;
  }
  double *A = malloc(sizeof(double) * m * k), *B = malloc(sizeof(double) * k * n), *C = malloc(sizeof(double) * m * n);
  if (!A || !B || !C) return 1;
  for (long i = 0; i < (long)m * k; ++i) A[i] = (double)rand() / RAND_MAX - 0.5;
  for (long i = 0; i < (long)k * n; ++i) B[i] = (double)rand() / RAND_MAX - 0.5;
  const int reps = (int)(2e9 / (2.0 * m * (double)n * k)) + 1;
  printf("C = A B, m %d n %d k %d, one thread, GFLOP/s (best of 5 rounds of %d products, CPU time)\n", m, n, k, reps);
  for (int kern = 0; kern < CI_GEMM_OWN_KERNELS; ++kern) {
    if (!ci_gemm_own_set_kernel(kern)) continue;
    printf("  own GEMM, %-8s kernel     %7.2f\n", ci_gemm_own_kernel_name(), rate(NULL, m, n, k, A, B, C, reps));
  }
  for (int a = 4; a < argc; ++a) {
    char lib[512];
    snprintf(lib, sizeof lib, "%s", argv[a]);
    char *colon = strchr(lib, ':');
    const char *sym = "dgemm_";
    if (colon) {
      *colon = 0;
      sym = colon + 1;
    }
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    dgemm_fn f = h ? (dgemm_fn)dlsym(h, sym) : NULL;
    if (!f) {
      printf("  %s: %s\n", argv[a], dlerror());
      continue;
    }
    void (*set_threads)(int) = (void (*)(int))dlsym(h, "openblas_set_num_threads");
    if (!set_threads) set_threads = (void (*)(int))dlsym(h, "scipy_openblas_set_num_threads");
    if (set_threads) set_threads(1);
    printf("  %-30s %7.2f\n", argv[a], rate(f, m, n, k, A, B, C, reps / 4 + 1));
  }
  free(A);
  free(B);
  free(C);
  return 0;
}
