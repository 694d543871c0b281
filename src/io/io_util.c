/* io_util.c: size checks, flags and checked writing shared by the I/O code. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include "io/io_internal.h"

#define GIB(x) ((double)(x) / (1024.0 * 1024.0 * 1024.0))

cis_status cis_io_memory_check(const char *where, int64_t count, int64_t bytes_each, const char *what) {
  int64_t bytes, mem = cis_phys_memory();
  if (cis_mul_overflows(count, bytes_each, &bytes))
    return cis_error(CIS_ERR_OVERFLOW, "%s: %lld %s overflow 64-bit sizes (%lld bytes each)", where,
                     (long long)count, what, (long long)bytes_each);
  if (mem > 0 && bytes > mem)
    return cis_error(CIS_ERR_TOO_LARGE, "%s: %lld %s need %.1f GiB, more than the %.1f GiB of memory",
                     where, (long long)count, what, GIB(bytes), GIB(mem));
  return CIS_OK;
}

void cis_io_flag_nonfinite(cis_csr *A) {
  int bad = 0;
  CIS_FOR_DTYPE(A->dtype, {
    const REAL *v = A->val;
    CIS_PRAGMA(omp parallel for reduction(| : bad) if (A->nnz > 100000))
    for (cis_int k = 0; k < A->nnz; ++k) bad |= !isfinite(v[k]);
  });
  A->flags = bad ? (A->flags | CIS_FLAG_NONFINITE) : (A->flags & ~CIS_FLAG_NONFINITE);
}

cis_status cis_io_open_write(const char *path, FILE **f) {
  *f = NULL;
  if (!path || !*path) return cis_error(CIS_ERR_INVALID, "no output file name given");
  *f = fopen(path, "wb");
  if (!*f) return cis_error(CIS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
  setvbuf(*f, NULL, _IOFBF, (size_t)1 << 20);
  return CIS_OK;
}

cis_status cis_io_close_write(FILE *f, const char *path, cis_status st) {
  if (!f) return st;
  int failed = ferror(f);
  int e = errno;
  if (fclose(f) != 0 && !failed) {
    failed = 1;
    e = errno;
  }
  if (st != CIS_OK) return st;
  if (failed) return cis_error(CIS_ERR_IO, "%s: write error: %s", path, strerror(e));
  return CIS_OK;
}
