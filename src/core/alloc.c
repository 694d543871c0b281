/* alloc.c: checked allocation with failure injection for tests. */
#include <stdio.h>
#include <string.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "core/internal.h"

static _Atomic int64_t fail_at = 0;   /* 0: never fail */
static _Atomic int64_t alloc_count = 0;

int64_t cis_alloc_fail_after(int64_t n) {
  int64_t made = atomic_exchange(&alloc_count, 0);
  atomic_store(&fail_at, n);
  return made;
}

static _Atomic int poison_byte = -1; /* cis_alloc_poison: -1 none */

int cis_alloc_poison(int b) { return atomic_exchange(&poison_byte, b < 0 ? -1 : b & 0xff); }

/* p (n new bytes) filled with the poison byte, if one is set. */
static void *poisoned(void *p, size_t n) {
  const int b = atomic_load(&poison_byte);
  if (p && b >= 0) memset(p, b, n);
  return p;
}

static int injected_failure(void) {
  int64_t k = atomic_fetch_add(&alloc_count, 1) + 1;
  int64_t f = atomic_load(&fail_at);
  return f > 0 && k == f;
}

void *cis_malloc(size_t n) {
  if (injected_failure()) return NULL;
  return poisoned(malloc(n ? n : 1), n);
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
