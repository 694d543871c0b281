/* mm_write.c: Matrix Market writers (NISTIR 5935 §3) for matrices
 * (`coordinate real general`) and dense vectors (`array real general`), and
 * plain-text vectors. Doubles are written with 17 significant digits and
 * floats with 9: both are the shortest counts that always read back to the
 * identical binary value (IEEE 754-2008 §5.12.2). */
#include <stdio.h>
#include "io/io_internal.h"

static const char *value_format(cis_dtype t) { return t == CIS_F64 ? "%.17g\n" : "%.9g\n"; }

cis_status io_mm_write(const char *path, const cis_csr *A) {
  FILE *f = NULL;
  cis_status st = CIS_OK;
  if (!A || !A->rowptr) return cis_error(CIS_ERR_INVALID, "io_mm_write: no matrix given");
  if ((st = cis_io_open_write(path, &f)) != CIS_OK) return st;
  const char *vf = A->dtype == CIS_F64 ? "%lld %d %.17g\n" : "%lld %d %.9g\n";
  fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%% written by cisparse\n%lld %lld %lld\n",
          (long long)A->rows, (long long)A->cols, (long long)A->nnz);
  for (cis_int i = 0; i < A->rows && !ferror(f); ++i)
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k)
      fprintf(f, vf, (long long)i + 1, A->colind[k] + 1, cis_get(A->val, A->dtype, k));
  return cis_io_close_write(f, path, st);
}

/* Header lines (may be NULL), then n values, one per line. */
static cis_status write_values(const char *path, const char *header, const void *x, cis_dtype t, cis_int n) {
  FILE *f = NULL;
  cis_status st;
  if ((!x && n > 0) || n < 0) return cis_error(CIS_ERR_INVALID, "%s: no vector given (n = %lld)", path, (long long)n);
  if ((st = cis_io_open_write(path, &f)) != CIS_OK) return st;
  if (header) fputs(header, f);
  const char *vf = value_format(t);
  for (cis_int i = 0; i < n && !ferror(f); ++i) fprintf(f, vf, cis_get(x, t, i));
  return cis_io_close_write(f, path, CIS_OK);
}

cis_status cis_mm_write_vector(const char *path, const void *x, cis_dtype t, cis_int n) {
  char header[128];
  snprintf(header, sizeof header, "%%%%MatrixMarket matrix array real general\n%lld 1\n", (long long)n);
  return write_values(path, header, x, t, n);
}

cis_status cis_text_write_vector(const char *path, const void *x, cis_dtype t, cis_int n) {
  return write_values(path, NULL, x, t, n);
}
