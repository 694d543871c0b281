/* threads.c: how many OpenMP threads a kernel takes: no more than the cores
 * this process may run on (its CPU affinity and its cgroup's CPU quota,
 * which OpenMP runtimes do not read), and one for work too small to repay a
 * fork/join (on a loaded machine a thread that waits at a barrier for a
 * descheduled peer costs a scheduler time slice, milliseconds). */
#define _GNU_SOURCE
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"

/* CPUs of the cgroup quota in the file: v2 "QUOTA PERIOD" ("max PERIOD": none),
 * or v1 with its period file; 0 when there is none or it cannot be read. */
static int quota_v2(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char q[32] = {0};
  double period = 0;
  const int got = fscanf(f, "%31s %lf", q, &period);
  fclose(f);
  if (got != 2 || !strcmp(q, "max") || period <= 0) return 0;
  const double quota = atof(q);
  return quota > 0 ? (int)ceil(quota / period) : 0;
}

static int quota_v1(const char *dir) {
  char p[512];
  long long quota = -1, period = 0;
  snprintf(p, sizeof p, "%s/cpu.cfs_quota_us", dir);
  FILE *f = fopen(p, "r");
  if (!f) return 0;
  if (fscanf(f, "%lld", &quota) != 1) quota = -1;
  fclose(f);
  snprintf(p, sizeof p, "%s/cpu.cfs_period_us", dir);
  if (!(f = fopen(p, "r"))) return 0;
  if (fscanf(f, "%lld", &period) != 1) period = 0;
  fclose(f);
  return quota > 0 && period > 0 ? (int)((quota + period - 1) / period) : 0;
}

/* The smallest CPU quota of this process's cgroup (v2: its own folder from
 * /proc/self/cgroup and the root of the mount, which is the container's), 0: none. */
static int cgroup_cpus(void) {
  int best = 0;
  const int roots[2] = {quota_v2("/sys/fs/cgroup/cpu.max"), quota_v1("/sys/fs/cgroup/cpu")};
  for (int i = 0; i < 2; ++i)
    if (roots[i] > 0 && (best == 0 || roots[i] < best)) best = roots[i];
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (!f) return best;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "0::", 3)) continue; /* the v2 line */
    line[strcspn(line, "\n")] = 0;
    char p[600];
    snprintf(p, sizeof p, "/sys/fs/cgroup%s/cpu.max", line + 3);
    const int c = quota_v2(p);
    if (c > 0 && (best == 0 || c < best)) best = c;
  }
  fclose(f);
  return best;
}

int cis_cpu_limit(void) {
  static int cached = 0; /* the same value from any thread that races here */
  if (cached > 0) return cached;
  int n = 0;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  if (n < 1) n = omp_get_num_procs();
  const int quota = cgroup_cpus();
  if (quota > 0 && quota < n) n = quota;
  cached = n < 1 ? 1 : n;
  return cached;
}

int cis_threads(void) {
  const int max = omp_get_max_threads();
  if (cis_host_env("OMP_NUM_THREADS")) return max; /* the user's choice stands */
  const int lim = cis_cpu_limit();
  return max < lim ? max : lim;
}

int cis_threads_for(int64_t work, int64_t grain) {
  const int t = cis_threads();
  if (grain < 1 || work <= grain) return 1;
  const int64_t by_work = work / grain;
  return by_work < t ? (int)by_work : t;
}

int cis_threads_limit(int64_t work, int64_t grain) {
  const int prev = omp_get_max_threads();
  omp_set_num_threads(cis_threads_for(work, grain));
  return prev;
}

void cis_threads_restore(int prev) { omp_set_num_threads(prev); }

void cis_first_touch(double *x, int64_t n) {
#pragma omp parallel for schedule(static) num_threads(cis_threads_for(n, CIS_GRAIN_VECTOR))
  for (int64_t i = 0; i < n; ++i) x[i] = 0.0;
}

void cis_copy_doubles(double *dst, const double *src, int64_t n) {
#pragma omp parallel for schedule(static) num_threads(cis_threads_for(n, CIS_GRAIN_VECTOR))
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

/* Chunks of the nonzero scan: each counts its nonzeros, then writes them
 * from its prefix offset, so the list comes out in index order. */
#define NZ_CHUNKS 256

int64_t cis_nonzeros(const double *x, int64_t n, int64_t max, int64_t *idx, double *val) {
  int64_t cnt[NZ_CHUNKS + 1] = {0};
  const int nt = cis_threads_for(n, CIS_GRAIN_VECTOR);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int c = 0; c < NZ_CHUNKS; ++c) {
    const int64_t lo = n * c / NZ_CHUNKS, hi = n * (c + 1) / NZ_CHUNKS;
    int64_t k = 0;
    for (int64_t i = lo; i < hi; ++i) k += x[i] != 0.0;
    cnt[c + 1] = k;
  }
  for (int c = 0; c < NZ_CHUNKS; ++c) cnt[c + 1] += cnt[c];
  if (cnt[NZ_CHUNKS] > max) return -1;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int c = 0; c < NZ_CHUNKS; ++c) {
    const int64_t lo = n * c / NZ_CHUNKS, hi = n * (c + 1) / NZ_CHUNKS;
    int64_t k = cnt[c];
    for (int64_t i = lo; i < hi; ++i)
      if (x[i] != 0.0) idx[k] = i, val[k++] = x[i];
  }
  return cnt[NZ_CHUNKS];
}

int64_t cis_first_nonfinite(const double *x, int64_t n) {
  int64_t first = n;
#pragma omp parallel for schedule(static) reduction(min : first) num_threads(cis_threads_for(n, CIS_GRAIN_VECTOR))
  for (int64_t i = 0; i < n; ++i)
    if (!isfinite(x[i]) && i < first) first = i;
  return first < n ? first : -1;
}
