/* format_util.c: see format_util.h. The ELLPACK-family SpMV is the CPU
 * reference of Algorithms 2-5 (Mahmoud et al. 2018, §3.2-3.5) and of
 * SELL-C-sigma (Kreutzer et al. 2014): each block of rows is processed in
 * chunks of up to 64 rows, slot column by slot column, so the column-major
 * arrays are read contiguously. */
#include <string.h>
#include "core/internal.h"
#include "formats/format_util.h"

#define GIB(b) ((double)(b) / (1024.0 * 1024.0 * 1024.0))
#define ELL_CHUNK 64

cis_status cis_fmt_check_size(const char *fmt, const char *what, cis_int a, cis_int b,
                              cis_int unit_bytes, cis_int *total) {
  cis_int n, bytes;
  int64_t mem = cis_phys_memory();
  if (cis_mul_overflows(a, b, &n) || cis_mul_overflows(n, unit_bytes, &bytes))
    return cis_error(CIS_ERR_OVERFLOW, "%s: %lld x %lld %s of %lld bytes overflow 64 bits", fmt,
                     (long long)a, (long long)b, what, (long long)unit_bytes);
  if (mem > 0 && bytes > mem)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "%s: %lld x %lld %s need %.1f GiB, more than the %.1f GiB of memory of this machine",
                     fmt, (long long)a, (long long)b, what, GIB(bytes), GIB(mem));
  *total = n;
  return CIS_OK;
}

cis_status cis_fmt_alloc_slots(cis_idx **col, void **val, cis_int slots, cis_dtype t,
                               const char *what) {
  cis_status st;
  *col = NULL;
  *val = NULL;
  CIS_TRY(cis_alloc_array((void **)col, slots, sizeof(cis_idx), what));
  CIS_TRY(cis_alloc_zeroed(val, slots, cis_dtype_size(t), what));
  for (cis_int s = 0; s < slots; ++s) (*col)[s] = -1;
  return CIS_OK;
cleanup:
  cis_free(*col);
  *col = NULL;
  return st;
}

cis_status cis_ellpack_spmv(const cis_ellpack_view *v, double alpha, const void *x, double beta,
                            void *y) {
  CIS_FOR_DTYPE(v->dtype, {
    const REAL *xv = x, *av = v->val;
    REAL *yv = y;
    const REAL a = (REAL)alpha, b = (REAL)beta;
    CIS_PRAGMA(omp parallel for schedule(dynamic, 1))
    for (cis_int blk = 0; blk < v->nblocks; ++blk) {
      const int64_t base = v->block_ptr ? v->block_ptr[blk] : blk * v->H;
      const cis_int width = v->block_ptr ? (v->block_ptr[blk + 1] - base) / v->H : v->width;
      for (cis_int r0 = 0; r0 < v->H && blk * v->H + r0 < v->rows; r0 += ELL_CHUNK) {
        const cis_int p0 = blk * v->H + r0;
        cis_int n = v->H - r0 < ELL_CHUNK ? v->H - r0 : ELL_CHUNK, kend = width;
        if (v->rows - p0 < n) n = v->rows - p0;
        REAL acc[ELL_CHUNK];
        cis_int row[ELL_CHUNK];
        for (cis_int r = 0; r < n; ++r) {
          acc[r] = 0;
          row[r] = v->perm ? v->perm[p0 + r] : p0 + r;
        }
        if (v->rowlen) { /* ELLPACK-R: stop at the chunk's longest row */
          kend = 0;
          for (cis_int r = 0; r < n; ++r)
            if (v->rowlen[row[r]] > kend) kend = v->rowlen[row[r]];
        }
        for (cis_int k = 0; k < kend; ++k) {
          const int64_t s = base + k * v->ld + r0;
          for (cis_int r = 0; r < n; ++r) {
            const cis_idx c = v->col[s + r];
            if (c >= 0) acc[r] += av[s + r] * xv[c];
          }
        }
        for (cis_int r = 0; r < n; ++r)
          yv[row[r]] = (beta == 0.0) ? a * acc[r] : a * acc[r] + b * yv[row[r]];
      }
    }
  });
  return CIS_OK;
}

#define DUMP_ARRAY(f, label, a, n, fmt, cast)                   \
  do {                                                          \
    fputs(label, f);                                            \
    for (cis_int i_ = 0; i_ < (n); ++i_) fprintf(f, fmt, (cast)(a)[i_]); \
    fputc('\n', f);                                             \
  } while (0)

void cis_dump_idx(FILE *f, const char *label, const cis_idx *a, cis_int n) {
  DUMP_ARRAY(f, label, a, n, " %d", int);
}
void cis_dump_i64(FILE *f, const char *label, const int64_t *a, cis_int n) {
  DUMP_ARRAY(f, label, a, n, " %lld", long long);
}
void cis_dump_u16(FILE *f, const char *label, const uint16_t *a, cis_int n) {
  DUMP_ARRAY(f, label, a, n, " %u", unsigned);
}
void cis_dump_u32(FILE *f, const char *label, const uint32_t *a, cis_int n) {
  DUMP_ARRAY(f, label, a, n, " %lu", unsigned long);
}
void cis_dump_offsets(FILE *f, const char *label, const cis_offsets *o, cis_int n) {
  fputs(label, f);
  for (cis_int i = 0; i < n; ++i) fprintf(f, " %lld", (long long)cis_off_get(o, i));
  fputc('\n', f);
}
void cis_dump_vals(FILE *f, const char *label, const void *v, cis_dtype t, cis_int n) {
  fputs(label, f);
  for (cis_int i = 0; i < n; ++i) fprintf(f, " %.17g", cis_get(v, t, i));
  fputc('\n', f);
}

cis_status cis_dump_done(FILE *f, const char *fmt) {
  return ferror(f) ? cis_error(CIS_ERR_IO, "write error while dumping %s", fmt) : CIS_OK;
}

/* Whether 2p threads per row still fit a block's slice and one wave. */
static int sell_can_double(cis_int rows_padded, cis_int S, int p, double wave) {
  return p < 32 && S * 2 * p <= 1024 && (double)rows_padded * 2 * p <= wave;
}

int cis_sell_threads_per_row(cis_int rows_padded, cis_int S, cis_int slots, int sms) {
  int p = 1;
  const double width = rows_padded > 0 ? (double)slots / (double)rows_padded : 0;
  const double wave = (double)sms * 2048.0;
  while (sell_can_double(rows_padded, S, p, wave) && width >= 16.0 * 2 * p) p *= 2;
  /* latency regime: while twice the threads still fit in the wave, split
     rows that one thread would walk in more than one round of 4 loads */
  while (sell_can_double(rows_padded, S, p, wave) && width > 4.0 * p) p *= 2;
  return p;
}
