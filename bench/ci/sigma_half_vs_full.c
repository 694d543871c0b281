/* sigma_half_vs_full.c: one H2O 6-31G-sized sigma on a symmetric vector, the
 * time-reversal half sigma and the full one (opts.no_time_reversal)
 * alternating, wall and process CPU time and the two phases.
 * gcc -O2 -fopenmp -Iinclude bench/ci/sigma_half_vs_full.c build/libcisparse.a -lopenblas -lm -o /tmp/s
 * /tmp/s ../shared/ci/h2o_631g.FCIDUMP 6 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <omp.h>
#include "cisparse/cisparse.h"
int main(int argc, char **argv) {
  cis_fcidump *F; cis_ci_direct *Dh, *Df;
  cis_fcidump_read(argv[1], &F);
  cis_ci_direct_opts o = cis_ci_direct_opts_default();
  cis_ci_direct_create(F, NULL, &Dh);
  o.no_time_reversal = 1;
  cis_ci_direct_create(F, &o, &Df);
  cis_int n = cis_ci_direct_size(Dh); cis_ci_direct_info in; cis_ci_direct_get_info(Dh, &in);
  cis_int ns = in.alpha_strings;
  double *x = malloc(n * 8), *y = malloc(n * 8);
  for (cis_int A = 0; A < ns; ++A) for (cis_int B = 0; B <= A; ++B) x[A*ns+B] = x[B*ns+A] = (double)(((A*131+B*7919) % 1000)) / 1000.0 - 0.5;
  int reps = atoi(argv[2]);
  for (int r = 0; r < reps; ++r) {
    cis_ci_direct *D = r % 2 ? Df : Dh;
    cis_ci_direct_info a, b; cis_ci_direct_get_info(D, &a);
    double w = omp_get_wtime(); clock_t c = clock();
    cis_ci_direct_sigma(D, 1, x, y);
    cis_ci_direct_get_info(D, &b);
    printf("%s wall %.3f cpu %.3f  phase1 %.3f phase2 %.3f\n", r % 2 ? "full" : "half", omp_get_wtime() - w, (double)(clock() - c) / CLOCKS_PER_SEC,
      b.phase1_seconds - a.phase1_seconds, b.phase2_seconds - a.phase2_seconds);
  }
  return 0;
}
