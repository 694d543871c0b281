/* mm_read.c: Matrix Market coordinate reader (R. F. Boisvert, R. Pozo,
 * K. Remington, "The Matrix Market Exchange Formats: Initial Design",
 * NISTIR 5935, 1996, §3: banner, comments, size line, one entry per line).
 * Entries go straight into a preallocated COO (mirrored for symmetric and
 * skew-symmetric files), then coo_to_csr sorts and sums duplicates. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "io/io_internal.h"
#include "core/internal.h"

typedef enum { MM_REAL, MM_INTEGER, MM_PATTERN } mm_field;
typedef enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW } mm_symmetry;

typedef struct {
  mm_field field;
  mm_symmetry symmetry;
  int64_t rows, cols, nnz;
} mm_header;

static int word_is(const char *tok, const char *word) { return tok && !strcasecmp(tok, word); }

/* "%%MatrixMarket matrix coordinate FIELD SYMMETRY" (case-insensitive words). */
static cis_status parse_banner(const cis_reader *r, char *line, mm_header *h) {
  const char *P = r->path;
  long long L = (long long)r->line;
  char *p = line, *banner = cis_token(&p), *object = cis_token(&p), *format = cis_token(&p);
  char *field = cis_token(&p), *sym = cis_token(&p), *extra = cis_token(&p);
  if (!banner || strcasecmp(banner, "%%MatrixMarket") != 0)
    return cis_error(CIS_ERR_PARSE, "%s:%lld: missing %%%%MatrixMarket banner (not a Matrix Market file?)", P, L);
  if (!sym)
    return cis_error(CIS_ERR_PARSE, "%s:%lld: incomplete banner (expected '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY')", P, L);
  if (extra) return cis_error(CIS_ERR_PARSE, "%s:%lld: unexpected '%s' after the banner's symmetry", P, L, extra);
  if (!word_is(object, "matrix"))
    return cis_error(CIS_ERR_PARSE, "%s:%lld: unknown object '%s' (expected matrix)", P, L, object);
  if (word_is(format, "array"))
    return cis_error(CIS_ERR_UNSUPPORTED, "%s:%lld: dense 'array' matrices are not supported (use coordinate)", P, L);
  if (!word_is(format, "coordinate"))
    return cis_error(CIS_ERR_PARSE, "%s:%lld: unknown format '%s' (expected coordinate)", P, L, format);
  if (word_is(field, "complex"))
    return cis_error(CIS_ERR_UNSUPPORTED, "%s:%lld: complex matrices are not supported (real, integer or pattern only)", P, L);
  if (word_is(field, "real") || word_is(field, "double")) h->field = MM_REAL;
  else if (word_is(field, "integer")) h->field = MM_INTEGER;
  else if (word_is(field, "pattern")) h->field = MM_PATTERN;
  else return cis_error(CIS_ERR_PARSE, "%s:%lld: unknown field '%s' (expected real, integer, pattern or complex)", P, L, field);
  if (word_is(sym, "hermitian"))
    return cis_error(CIS_ERR_UNSUPPORTED, "%s:%lld: hermitian matrices are not supported (real matrices only)", P, L);
  if (word_is(sym, "general")) h->symmetry = MM_GENERAL;
  else if (word_is(sym, "symmetric")) h->symmetry = MM_SYMMETRIC;
  else if (word_is(sym, "skew-symmetric")) h->symmetry = MM_SKEW;
  else return cis_error(CIS_ERR_PARSE, "%s:%lld: unknown symmetry '%s' (expected general, symmetric, skew-symmetric or hermitian)", P, L, sym);
  if (h->field == MM_PATTERN && h->symmetry == MM_SKEW)
    return cis_error(CIS_ERR_PARSE, "%s:%lld: a pattern matrix cannot be skew-symmetric", P, L);
  return CIS_OK;
}

/* Next line that is not a comment ('%') or blank; *line = NULL at end of file. */
static cis_status next_data_line(cis_reader *r, char **line) {
  for (;;) {
    cis_status st = cis_reader_next(r, line);
    if (st != CIS_OK || !*line) return st;
    const char *s = *line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s && *s != '%') return CIS_OK;
  }
}

/* One size token: a non-negative integer. */
static cis_status size_token(const cis_reader *r, char *tok, const char *what, int64_t *v) {
  const char *P = r->path;
  long long L = (long long)r->line;
  if (!tok) return cis_error(CIS_ERR_PARSE, "%s:%lld: size line needs 'rows cols nnz', %s is missing", P, L, what);
  int bad = cis_parse_int(tok, v);
  if (bad == 2) return cis_error(CIS_ERR_OVERFLOW, "%s:%lld: %s '%s' does not fit in 64 bits", P, L, what, tok);
  if (bad) return cis_error(CIS_ERR_PARSE, "%s:%lld: %s '%s' is not an integer", P, L, what, tok);
  if (*v < 0) return cis_error(CIS_ERR_PARSE, "%s:%lld: %s %lld is negative", P, L, what, (long long)*v);
  return CIS_OK;
}

static cis_status parse_size(cis_reader *r, mm_header *h) {
  char *line, *p;
  cis_status st = next_data_line(r, &line);
  if (st != CIS_OK) return st;
  if (!line) return cis_error(CIS_ERR_PARSE, "%s:%lld: missing size line 'rows cols nnz' (file ends after the header)",
                              r->path, (long long)r->line);
  p = line;
  if ((st = size_token(r, cis_token(&p), "rows", &h->rows)) != CIS_OK) return st;
  if ((st = size_token(r, cis_token(&p), "cols", &h->cols)) != CIS_OK) return st;
  if ((st = size_token(r, cis_token(&p), "nnz", &h->nnz)) != CIS_OK) return st;
  char *extra = cis_token(&p);
  if (extra) return cis_error(CIS_ERR_PARSE, "%s:%lld: unexpected '%s' after 'rows cols nnz'", r->path, (long long)r->line, extra);
  if (h->rows > CIS_IDX_MAX || h->cols > CIS_IDX_MAX)
    return cis_error(CIS_ERR_OVERFLOW, "%s:%lld: matrix size %lld x %lld: rows and columns must be below 2^31",
                     r->path, (long long)r->line, (long long)h->rows, (long long)h->cols);
  if (h->symmetry != MM_GENERAL && h->rows != h->cols)
    return cis_error(CIS_ERR_PARSE, "%s:%lld: a %s matrix must be square, got %lld x %lld", r->path,
                     (long long)r->line, h->symmetry == MM_SKEW ? "skew-symmetric" : "symmetric",
                     (long long)h->rows, (long long)h->cols);
  return CIS_OK;
}

/* What the declared sizes cost before a single entry is read:
 *  - peak host memory per declared entry: the COO triplet + sort order + CSR
 *    entry, doubled when a stored triangle is mirrored (against the
 *    physical memory, cis_io_memory_check);
 *  - with the rows and columns, against the memory available now
 *    (MemAvailable; the physical memory where it cannot be read): per row
 *    the CSR row pointer and the conversion's row starts (8 + 8 bytes), one
 *    value of y and a storage format's per-row arrays (up to 12 bytes: hyb),
 *    per column one value of x (a loaded matrix is there to be multiplied).
 *    A size line of 700000000 rows and no entries asks for 23.5 GiB and is
 *    refused where that is not available instead of taking minutes. */
static cis_status check_memory(const cis_reader *r, const mm_header *h, cis_dtype t) {
  char where[4200];
  int64_t vs = (int64_t)cis_dtype_size(t);
  int64_t each = (2 * (int64_t)sizeof(cis_idx) + vs) + (int64_t)sizeof(cis_int) + ((int64_t)sizeof(cis_idx) + vs);
  if (h->symmetry != MM_GENERAL) each *= 2;
  snprintf(where, sizeof where, "%s:%lld", r->path, (long long)r->line);
  cis_status st = cis_io_memory_check(where, h->nnz, each, "declared entries");
  if (st != CIS_OK) return st;
  int64_t rows, total = h->nnz * each; /* no overflow: checked above */
  if (cis_mul_overflows(h->rows + 1, 28 + vs, &rows) || __builtin_add_overflow(total, rows, &total) ||
      __builtin_add_overflow(total, h->cols * vs, &total))
    return cis_error(CIS_ERR_OVERFLOW, "%s: %lld x %lld with %lld entries overflows 64-bit sizes", where,
                     (long long)h->rows, (long long)h->cols, (long long)h->nnz);
  int64_t mem = cis_available_memory();
  if (mem > 0 && total > mem)
    return cis_error(CIS_ERR_TOO_LARGE,
                     "%s: a %lld x %lld matrix with %lld declared entries needs %.1f GiB to load and use, more than "
                     "the %.1f GiB of available memory",
                     where, (long long)h->rows, (long long)h->cols, (long long)h->nnz,
                     (double)total / (1 << 30), (double)mem / (1 << 30));
  return CIS_OK;
}

/* Entries to reserve room for: the declared count, but never more than the
 * rest of a regular file can hold (an entry line takes at least 4 bytes,
 * "i j\n" for pattern, else 6, "i j v\n"): a 60-byte file declaring 563
 * million entries reserves room for one and then reports where it ends. */
static int64_t entries_to_reserve(const cis_reader *r, const mm_header *h) {
  int64_t left = cis_reader_bytes_left(r), fit = (left + 1) / (h->field == MM_PATTERN ? 4 : 6);
  return left >= 0 && fit < h->nnz ? fit : h->nnz;
}

/* 1-based index token -> 0-based, range-checked. P:L names file and line. */
static cis_status index_token(const char *P, long long L, char *tok, const char *what, int64_t n, cis_idx *out) {
  int64_t v;
  if (cis_parse_int(tok, &v)) return cis_error(CIS_ERR_PARSE, "%s:%lld: %s index '%s' is not an integer", P, L, what, tok);
  if (v < 1 || v > n)
    return cis_error(CIS_ERR_RANGE, "%s:%lld: %s index %lld out of range 1..%lld", P, L, what, (long long)v, (long long)n);
  *out = (cis_idx)(v - 1);
  return CIS_OK;
}

static cis_status value_token(const char *P, long long L, char *tok, mm_field field, double *v) {
  if (field == MM_INTEGER) {
    int64_t k;
    if (cis_parse_int(tok, &k))
      return cis_error(CIS_ERR_PARSE, "%s:%lld: value '%s' is not an integer (field integer)", P, L, tok);
    *v = (double)k;
    return CIS_OK;
  }
  if (cis_parse_real(tok, v)) return cis_error(CIS_ERR_PARSE, "%s:%lld: value '%s' is not a number", P, L, tok);
  return CIS_OK;
}

static void coo_store(cis_coo *C, int64_t k, cis_idx i, cis_idx j, double v) {
  C->row[k] = i;
  C->col[k] = j;
  cis_set(C->val, C->dtype, k, v);
}

/* Parse entry line L (NUL-terminated) into position k of C. */
static cis_status parse_entry(const char *P, long long L, char *line, const mm_header *h, cis_coo *C, int64_t k) {
  char *p = line, *ti = cis_token(&p), *tj = cis_token(&p), *tv = h->field == MM_PATTERN ? NULL : cis_token(&p);
  const char *expect = h->field == MM_PATTERN ? "2 tokens (row col)" : "3 tokens (row col value)";
  cis_status st;
  cis_idx i = 0, j = 0;
  double v = 1.0;
  if (!tj || (h->field != MM_PATTERN && !tv))
    return cis_error(CIS_ERR_PARSE, "%s:%lld: expected %s, found %d", P, L, expect, !ti ? 0 : !tj ? 1 : 2);
  char *extra = cis_token(&p);
  if (extra) return cis_error(CIS_ERR_PARSE, "%s:%lld: expected %s, found extra token '%s'", P, L, expect, extra);
  if ((st = index_token(P, L, ti, "row", h->rows, &i)) != CIS_OK) return st;
  if ((st = index_token(P, L, tj, "column", h->cols, &j)) != CIS_OK) return st;
  if (tv && (st = value_token(P, L, tv, h->field, &v)) != CIS_OK) return st;
  if (h->symmetry == MM_SKEW && i == j && v != 0.0)
    return cis_error(CIS_ERR_PARSE, "%s:%lld: skew-symmetric matrix has a nonzero diagonal entry (%d,%d) = %s", P, L,
                     i + 1, j + 1, tv);
  coo_store(C, k, i, j, v);
  return CIS_OK;
}

/* ---- entries, parsed in parallel one buffer block at a time ------------
 * Pass 1 counts lines and entry lines per chunk of the block, a prefix sum
 * gives each chunk its first line number and entry slot, pass 2 parses.
 * Errors are kept per chunk (the message is thread-local) and the first in
 * file order is reported, so the result is the same as a sequential read. */

#define MM_MAX_CHUNKS 64

typedef struct {
  char *begin, *end;
  int64_t lines, entries;          /* pass 1 */
  int64_t first_line, first_entry; /* prefix sums */
  cis_status st;                   /* pass 2: first error, */
  int64_t excess_line;             /* or first line beyond the declared nnz */
  char msg[512];
} mm_chunk;

static int is_entry_line(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return *s && *s != '\n' && *s != '\r' && *s != '%';
}

static char *line_end(char *s, char *end) {
  char *nl = memchr(s, '\n', (size_t)(end - s));
  return nl ? nl : end;
}

static void count_lines(mm_chunk *c) {
  c->lines = c->entries = 0;
  for (char *s = c->begin; s < c->end;) {
    char *e = line_end(s, c->end);
    c->lines++;
    c->entries += is_entry_line(s);
    s = e + 1;
  }
}

static void parse_chunk(mm_chunk *c, const char *path, const mm_header *h, cis_coo *C) {
  int64_t line = c->first_line, k = c->first_entry;
  c->st = CIS_OK;
  c->excess_line = 0;
  for (char *s = c->begin; s < c->end; line++) {
    char *e = line_end(s, c->end);
    if (is_entry_line(s)) {
      if (k >= h->nnz) { /* a later chunk may start past the declared count */
        c->excess_line = line;
        return;
      }
      if (k >= (h->symmetry == MM_GENERAL ? C->cap : C->cap / 2)) {
        /* beyond the room the file's size allows: an earlier line is too
         * short to be an entry, and its error is reported first */
        c->st = cis_error(CIS_ERR_PARSE, "%s:%lld: more entry lines than the file's size allows", path, (long long)line);
        snprintf(c->msg, sizeof c->msg, "%s", cis_last_error());
        return;
      }
      *e = '\0';
      c->st = parse_entry(path, (long long)line, s, h, C, k++);
      if (c->st != CIS_OK) {
        snprintf(c->msg, sizeof c->msg, "%s", cis_last_error());
        return;
      }
    }
    s = e + 1;
  }
}

/* Split [begin,end) into chunks that start at line starts. */
static int split_block(char *begin, char *end, mm_chunk *c) {
  int want = 1;
#ifdef _OPENMP
  if (end - begin > (1 << 16)) want = 4 * omp_get_max_threads();
#endif
  if (want > MM_MAX_CHUNKS) want = MM_MAX_CHUNKS;
  int n = 0;
  char *s = begin;
  for (int k = 1; k <= want && s < end; ++k) {
    char *e = k == want ? end : begin + (end - begin) / want * k;
    if (e < s) e = s;
    if (e < end) e = line_end(e, end) + (line_end(e, end) < end);
    c[n].begin = s;
    c[n].end = e;
    n++;
    s = e;
  }
  return n;
}

/* Parse one block of whole lines; *found entries so far, r->line lines so far. */
static cis_status parse_block(cis_reader *r, char *begin, char *end, const mm_header *h, cis_coo *C, int64_t *found) {
  mm_chunk c[MM_MAX_CHUNKS];
  if (end > begin && end[-1] != '\n') *end = '\0'; /* last line of the file */
  int n = split_block(begin, end, c);
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < n; ++k) count_lines(&c[k]);
  int64_t line = r->line + 1, entry = *found;
  for (int k = 0; k < n; ++k) {
    c[k].first_line = line;
    c[k].first_entry = entry;
    line += c[k].lines;
    entry += c[k].entries;
  }
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < n; ++k) parse_chunk(&c[k], r->path, h, C);
  r->line = line - 1;
  *found = entry < h->nnz ? entry : h->nnz;
  for (int k = 0; k < n; ++k) {
    if (c[k].st != CIS_OK) return cis_error(c[k].st, "%s", c[k].msg);
    if (c[k].excess_line)
      return cis_error(CIS_ERR_PARSE, "%s:%lld: more entries than the %lld declared on the size line", r->path,
                       (long long)c[k].excess_line, (long long)h->nnz);
  }
  return CIS_OK;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Append the mirror image of every off-diagonal stored entry (negated for
 * skew-symmetric files). Entries may sit on either side of the diagonal, but
 * each off-diagonal pair {i,j} only once: (i,j) and (j,i) both stored (or one
 * of them twice) would be summed with the mirror, so the file is refused. */
static cis_status mirror(const char *path, cis_coo *C, int skew) {
  int64_t n = C->nnz, m = 0;
  uint64_t *key = NULL;
  cis_status st = cis_alloc_array((void **)&key, n, sizeof *key, "symmetric pair check");
  if (st != CIS_OK) return st;
  for (int64_t k = 0; k < n; ++k)
    if (C->row[k] != C->col[k]) {
      uint64_t i = (uint64_t)C->row[k], j = (uint64_t)C->col[k];
      key[m++] = i > j ? i << 32 | j : j << 32 | i;
    }
  qsort(key, (size_t)m, sizeof *key, cmp_u64);
  for (int64_t k = 1; k < m; ++k)
    if (key[k] == key[k - 1]) {
      unsigned long long i = key[k] >> 32, j = key[k] & 0xffffffffu;
      st = cis_error(CIS_ERR_PARSE,
                     "%s: a %ssymmetric file stores the pair (%llu,%llu)/(%llu,%llu) more than once "
                     "(store one triangle)",
                     path, skew ? "skew-" : "", i + 1, j + 1, j + 1, i + 1);
      break;
    }
  cis_free(key);
  if (st != CIS_OK) return st;
  for (int64_t k = 0; k < n; ++k)
    if (C->row[k] != C->col[k]) {
      double v = cis_get(C->val, C->dtype, k);
      coo_store(C, C->nnz++, C->col[k], C->row[k], skew ? -v : v);
    }
  return CIS_OK;
}

static int header_flags(const mm_header *h) {
  return (h->symmetry == MM_SYMMETRIC ? CIS_FLAG_SYMMETRIC : 0) | (h->symmetry == MM_SKEW ? CIS_FLAG_SKEW : 0) |
         (h->field == MM_PATTERN ? CIS_FLAG_PATTERN : 0);
}

cis_status io_mm_read(const char *path, cis_dtype t, cis_csr **out) {
  cis_reader r;
  *out = NULL;
  cis_status st = cis_reader_open(&r, path);
  if (st != CIS_OK) return st;
  return cis_mm_read_reader(&r, t, out);
}

cis_status cis_mm_read_reader(cis_reader *rp, cis_dtype t, cis_csr **out) {
  cis_status st;
  cis_reader r = *rp;
  const char *path = r.path;
  cis_coo *C = NULL;
  mm_header h;
  char *line;
  int64_t found = 0;
  *out = NULL;
  CIS_TRY(cis_reader_next(&r, &line));
  if (!line) {
    st = cis_error(CIS_ERR_PARSE, "%s: empty file (expected a %%%%MatrixMarket banner)", path);
    goto cleanup;
  }
  CIS_TRY(parse_banner(&r, line, &h));
  CIS_TRY(parse_size(&r, &h));
  CIS_TRY(check_memory(&r, &h, t));
  int64_t reserve = entries_to_reserve(&r, &h);
  CIS_TRY(coo_alloc(h.rows, h.cols, h.symmetry == MM_GENERAL ? reserve : 2 * reserve, t, &C));
  C->flags = header_flags(&h);
  for (;;) {
    char *begin, *end;
    CIS_TRY(cis_reader_block(&r, &begin, &end));
    if (begin == end) break;
    CIS_TRY(parse_block(&r, begin, end, &h, C, &found));
  }
  if (found < h.nnz) {
    st = cis_error(CIS_ERR_PARSE, "%s:%lld: file ends after %lld of %lld declared entries (truncated?)", path,
                   (long long)r.line, (long long)found, (long long)h.nnz);
    goto cleanup;
  }
  C->nnz = found;
  if (h.symmetry != MM_GENERAL) CIS_TRY(mirror(path, C, h.symmetry == MM_SKEW));
  CIS_TRY(coo_to_csr(C, out));
  cis_io_flag_nonfinite(*out);
cleanup:
  cis_reader_close(&r);
  *rp = r;
  coo_free(C);
  return st;
}
