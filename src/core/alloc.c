/* alloc.c: checked allocation with failure injection for tests. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "core/internal.h"

static _Atomic int64_t fail_at = 0;   /* 0: never fail */
static _Atomic int64_t alloc_count = 0;

int64_t cis_alloc_fail_after(int64_t n) {
  int64_t made = atomic_exchange(&alloc_count, 0);
  atomic_store(&fail_at, n);
  return made;
}

static int injected_failure(void) {
  int64_t k = atomic_fetch_add(&alloc_count, 1) + 1;
  int64_t f = atomic_load(&fail_at);
  return f > 0 && k == f;
}

void *cis_malloc(size_t n) {
  if (injected_failure()) return NULL;
  return malloc(n ? n : 1);
}

void *cis_calloc(size_t count, size_t size) {
  if (injected_failure()) return NULL;
  return calloc(count ? count : 1, size ? size : 1);
}

void *cis_realloc(void *p, size_t n) {
  if (injected_failure()) return NULL;
  return realloc(p, n ? n : 1);
}

void cis_free(void *p) { free(p); }

int cis_mul_overflows(int64_t a, int64_t b, int64_t *r) {
  if (a < 0 || b < 0) return 1;
  return __builtin_mul_overflow(a, b, r);
}

static cis_status alloc_impl(void **p, int64_t count, size_t size, const char *what, int zero) {
  int64_t bytes;
  *p = NULL;
  if (count < 0 || cis_mul_overflows(count, (int64_t)size, &bytes) || (uint64_t)bytes > SIZE_MAX)
    return cis_error(CIS_ERR_OVERFLOW, "%s: %lld elements of %zu bytes overflow 64 bits",
                     what, (long long)count, size);
  *p = zero ? cis_calloc((size_t)count, size) : cis_malloc((size_t)bytes);
  if (!*p)
    return cis_error(CIS_ERR_ALLOC, "%s: cannot allocate %.3f GiB of host memory", what,
                     (double)bytes / (1024.0 * 1024.0 * 1024.0));
  return CIS_OK;
}

cis_status cis_alloc_array(void **p, int64_t count, size_t size, const char *what) {
  return alloc_impl(p, count, size, what, 0);
}

cis_status cis_alloc_zeroed(void **p, int64_t count, size_t size, const char *what) {
  return alloc_impl(p, count, size, what, 1);
}

int64_t cis_available_memory(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  long long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb > 0 ? (int64_t)kb * 1024 : cis_phys_memory();
}

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
