/* ci_build_cpu_time.c: process CPU time and wall time of the stored CI
 * Hamiltonian build (cis_ci_hamiltonian) and of the space, best and median of
 * R repetitions in one process: CPU time (with OMP_NUM_THREADS=1 above all)
 * is what the other processes on a shared machine disturb least. Public API only, so the same source links
 * against the library before and after a change (bench/ci_words_overhead.sh).
 * usage: ci_build_cpu_time FILE.FCIDUMP LEVEL R */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "cisparse/cisparse.h"

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double wall_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: %s FILE LEVEL R\n", argv[0]); return 2; }
  int level = atoi(argv[2]), reps = atoi(argv[3]);
  cis_fcidump *F = NULL;
  uint64_t a, b;
  if (cis_fcidump_read(argv[1], &F) || cis_ci_find_reference(F, &a, &b)) { fprintf(stderr, "%s\n", cis_last_error()); return 1; }
  double *tb = malloc(sizeof(double) * reps), *ts = malloc(sizeof(double) * reps), *tw = malloc(sizeof(double) * reps);
  long long nnz = 0, n = 0;
  for (int r = 0; r < reps; ++r) {
    cis_ci_space *S = NULL;
    cis_csr *H = NULL;
    double t0 = cpu_now();
    if (cis_ci_space_create(F, level, a, b, &S)) { fprintf(stderr, "%s\n", cis_last_error()); return 1; }
    double t1 = cpu_now(), w1 = wall_now();
    if (cis_ci_hamiltonian(F, S, 0, &H)) { fprintf(stderr, "%s\n", cis_last_error()); return 1; }
    double t2 = cpu_now();
    tw[r] = wall_now() - w1;
    ts[r] = t1 - t0;
    tb[r] = t2 - t1;
    nnz = H->nnz;
    n = cis_ci_space_size(S);
    cis_csr_free(H);
    cis_ci_space_free(S);
  }
  qsort(tb, reps, sizeof(double), cmp_d);
  qsort(ts, reps, sizeof(double), cmp_d);
  qsort(tw, reps, sizeof(double), cmp_d);
  printf("%s level %d: %lld determinants, %lld nonzeros; build cpu best %.4f median %.4f s, wall best %.4f median %.4f s; "
         "space cpu best %.4f median %.4f s\n",
         argv[1], level, n, nnz, tb[0], tb[reps / 2], tw[0], tw[reps / 2], ts[0], ts[reps / 2]);
  cis_fcidump_free(F);
  free(tb);
  free(ts);
  free(tw);
  return 0;
}
