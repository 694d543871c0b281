/* host.c: the monotonic clock, the median of timings and this machine's
 * memory limits (util/host.h). libc only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "util/host.h"

int64_t cis_phys_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return (int64_t)pages * (int64_t)page;
}

/* The first integer of a file, -1 if absent or "max". */
static int64_t read_limit_file(const char *path) {
  FILE *f = fopen(path, "r");
  long long v = -1;
  if (!f) return -1;
  if (fscanf(f, "%lld", &v) != 1) v = -1;
  fclose(f);
  return v;
}

int64_t cis_host_memory_limit(char *why, size_t len) {
  int64_t best = cis_phys_memory();
  const char *name = "physical memory";
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (best <= 0 || (int64_t)rl.rlim_cur < best)) {
    best = (int64_t)rl.rlim_cur;
    name = "RLIMIT_AS";
  }
  /* the process's cgroup: "0::/path" (v2) or "N:memory:/path" (v1) */
  char line[512], path[768];
  FILE *f = fopen("/proc/self/cgroup", "r");
  while (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2) continue;
    int64_t v = -1;
    const char *what = NULL;
    if (c1[1] == ':') { /* v2 */
      snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", strcmp(c2 + 1, "/") ? c2 + 1 : "");
      v = read_limit_file(path);
      if (v < 0) v = read_limit_file("/sys/fs/cgroup/memory.max");
      what = "cgroup memory.max";
    } else if (!strncmp(c1 + 1, "memory", (size_t)(c2 - c1 - 1)) && c2 - c1 - 1 == 6) {
      snprintf(path, sizeof path, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", strcmp(c2 + 1, "/") ? c2 + 1 : "");
      v = read_limit_file(path);
      if (v < 0) v = read_limit_file("/sys/fs/cgroup/memory/memory.limit_in_bytes");
      what = "cgroup memory.limit_in_bytes";
    }
    if (v > 0 && v < ((int64_t)1 << 60) && (best <= 0 || v < best)) { best = v; name = what; }
  }
  if (f) fclose(f);
  if (why && len) snprintf(why, len, "%s", name);
  return best > 0 ? best : 0;
}

double cis_wtime(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double cis_median(double *v, int n) {
  if (!v || n < 1) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const char *cis_host_env(const char *name) {
  if (!name || !strncmp(name, "CISPARSE_", 9)) return NULL;
  return getenv(name);
}
