/* test_threads.c: how many OpenMP threads a kernel takes (src/core/threads.c):
 *  - cis_cpu_limit: >= 1, no more than the affinity mask's CPUs;
 *  - cis_threads: no more than omp_get_max_threads, nor than the limit
 *    unless OMP_NUM_THREADS is set;
 *  - cis_threads_for: 1 for work up to one grain, then one per grain up to
 *    cis_threads(); a grain < 1 gives 1;
 *  - cis_threads_limit / cis_threads_restore: the next region's team size,
 *    then the caller's setting back;
 *  - a format's SpMV through cis_matrix_spmv (which limits the threads):
 *    the reference's result, the caller's setting unchanged after it. */
#define _GNU_SOURCE
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include "core/internal.h"
#include "test_util.h"

int main(void) {
  cpu_set_t set;
  CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
  const int lim = cis_cpu_limit(), cpus = CPU_COUNT(&set);
  CHECK(lim >= 1 && lim <= cpus, "cis_cpu_limit %d, affinity %d CPUs", lim, cpus);
  CHECK(cis_cpu_limit() == lim, "cis_cpu_limit not stable");

  const int max = omp_get_max_threads(), t = cis_threads();
  CHECK(t >= 1 && t <= max, "cis_threads %d, max %d", t, max);
  if (!getenv("OMP_NUM_THREADS")) CHECK(t <= lim, "cis_threads %d above the limit %d", t, lim);

  CHECK(cis_threads_for(0, CIS_GRAIN_VECTOR) == 1, "no work: 1 thread");
  CHECK(cis_threads_for(CIS_GRAIN_VECTOR, CIS_GRAIN_VECTOR) == 1, "one grain: 1 thread");
  CHECK(cis_threads_for(1000, CIS_GRAIN_VECTOR) == 1, "1000 values: 1 thread");
  CHECK(cis_threads_for(5, 0) == 1 && cis_threads_for(5, -3) == 1, "grain < 1: 1 thread");
  CHECK(cis_threads_for((int64_t)1 << 40, 1) == t, "huge work: cis_threads() = %d, got %d", t,
        cis_threads_for((int64_t)1 << 40, 1));
  omp_set_num_threads(4);
  if (getenv("OMP_NUM_THREADS") || lim >= 4) { /* 4 allowed: one per grain up to 4 */
    CHECK(cis_threads_for(3 * 1000, 1000) == 3, "3 grains: %d threads", cis_threads_for(3 * 1000, 1000));
    CHECK(cis_threads_for(9 * 1000, 1000) == 4, "9 grains, 4 threads: %d", cis_threads_for(9 * 1000, 1000));
  } else {
    CHECK(cis_threads_for(9 * 1000, 1000) == (lim < 4 ? lim : 4), "9 grains, limit %d: %d", lim,
          cis_threads_for(9 * 1000, 1000));
  }

  /* the team size inside the next region, then the setting restored */
  const int prev = cis_threads_limit(10, CIS_GRAIN_NNZ);
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  cis_threads_restore(prev);
  CHECK(team == 1, "cis_threads_limit on small work: team of %d", team);
  CHECK(prev == 4 && omp_get_max_threads() == 4, "restored %d, now %d (expected 4)", prev, omp_get_max_threads());
  omp_set_num_threads(max);

  /* a small SpMV through a format on one thread: the result still right */
  cis_csr *A = NULL;
  cis_matrix *M = NULL;
  CHECK_OK(cis_generate("laplace3d:size=6", CIS_F64, &A));
  if (A) CHECK_OK(cis_matrix_create(A, "csr", NULL, &M));
  if (M) {
    double x[216], y[216], ref[216];
    for (int i = 0; i < 216; ++i) x[i] = 1.0 + i % 7;
    CHECK_OK(cis_matrix_spmv(M, 1.0, x, 0.0, y));
    CHECK_OK(cis_csr_spmv(A, 1.0, x, 0.0, ref));
    CHECK(test_rel_err(y, ref, CIS_F64, 216) == 0, "small SpMV differs from the reference");
    CHECK(omp_get_max_threads() == max, "cis_matrix_spmv left %d threads set (was %d)", omp_get_max_threads(), max);
  }
  cis_matrix_free(M);
  cis_csr_free(A);

  /* the threaded nonzero scan and non-finite search, on a vector of many
   * grains: the nonzeros in index order, the cap honoured, the first bad
   * entry found whichever thread holds it */
  const int64_t big = 40 * (int64_t)CIS_GRAIN_VECTOR + 17;
  double *v = calloc((size_t)big, sizeof(double)), val[8];
  int64_t idx[8];
  if (v) {
    const int64_t at[5] = {0, 5, CIS_GRAIN_VECTOR, 31 * (int64_t)CIS_GRAIN_VECTOR + 3, big - 1};
    for (int k = 0; k < 5; ++k) v[at[k]] = k - 2.5;
    for (int k = 0; k < 8; ++k) idx[k] = -7, val[k] = NAN;
    CHECK(cis_nonzeros(v, big, 8, idx, val) == 5, "5 nonzeros found");
    for (int k = 0; k < 5; ++k)
      CHECK(idx[k] == at[k] && val[k] == k - 2.5, "nonzero %d: %lld %g, expected %lld %g", k, (long long)idx[k], val[k],
            (long long)at[k], k - 2.5);
    CHECK(cis_nonzeros(v, big, 4, idx, val) == -1, "more nonzeros than the cap: -1");
    CHECK(cis_first_nonfinite(v, big) == -1, "a finite vector: -1");
    v[big - 2] = INFINITY;
    v[30 * (int64_t)CIS_GRAIN_VECTOR] = NAN;
    CHECK(cis_first_nonfinite(v, big) == 30 * (int64_t)CIS_GRAIN_VECTOR, "the first non-finite entry: %lld",
          (long long)cis_first_nonfinite(v, big));
  }
  free(v);
  return test_summary("test_threads");
}
