/* vector_read.c: dense vectors from Matrix Market `array` files (NISTIR 5935
 * §3: banner, size line "n 1" or "1 n", then the values in column order) or
 * plain text (values separated by white space, '#'/'%' comment lines). */
#include <math.h>
#include <string.h>
#include <strings.h>
#include "io/io_internal.h"

static int is_comment_or_blank(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  return !*s || *s == '%' || *s == '#';
}

/* Banner "%%MatrixMarket matrix array real|integer general" and size line. */
static cis_status mm_vector_header(cis_reader *r, char *banner, cis_int n) {
  char *p = banner, *line;
  const char *words[5] = {"%%MatrixMarket", "matrix", "array", NULL, "general"};
  for (int w = 0; w < 5; ++w) {
    char *tok = cis_token(&p);
    int ok = tok && (words[w] ? !strcasecmp(tok, words[w]) : (!strcasecmp(tok, "real") || !strcasecmp(tok, "integer")));
    if (!ok || (w == 4 && cis_token(&p)))
      return cis_error(CIS_ERR_PARSE, "%s:%lld: a vector file must start '%%%%MatrixMarket matrix array real general'",
                       r->path, (long long)r->line);
  }
  cis_status st;
  do {
    if ((st = cis_reader_next(r, &line)) != CIS_OK) return st;
  } while (line && is_comment_or_blank(line));
  if (!line) return cis_error(CIS_ERR_PARSE, "%s:%lld: missing size line 'n 1'", r->path, (long long)r->line);
  int64_t a, b;
  char *ta = cis_token(&line), *tb = cis_token(&line);
  if (!ta || !tb || cis_parse_int(ta, &a) || cis_parse_int(tb, &b) || cis_token(&line) || a < 0 || b < 0)
    return cis_error(CIS_ERR_PARSE, "%s:%lld: size line must be 'n 1' or '1 n'", r->path, (long long)r->line);
  if (a != 1 && b != 1)
    return cis_error(CIS_ERR_PARSE, "%s:%lld: a %lld x %lld array is not a vector", r->path, (long long)r->line,
                     (long long)a, (long long)b);
  int64_t len = a == 1 ? b : a;
  if (len != n)
    return cis_error(CIS_ERR_PARSE, "%s:%lld: vector of length %lld, expected %lld", r->path, (long long)r->line,
                     (long long)len, (long long)n);
  return CIS_OK;
}

/* Values from the current position to the end of the file into x[0..n). */
static cis_status read_values(cis_reader *r, char *line, void *x, cis_dtype t, cis_int n) {
  cis_status st;
  cis_int found = 0;
  while (line) {
    char *p = line, *tok;
    if (is_comment_or_blank(line)) *p = '\0';
    while ((tok = cis_token(&p))) {
      double v;
      if (cis_parse_real(tok, &v))
        return cis_error(CIS_ERR_PARSE, "%s:%lld: '%s' is not a number", r->path, (long long)r->line, tok);
      if (!isfinite(v) || (t == CIS_F32 && !isfinite((float)v)))
        return cis_error(CIS_ERR_NUMERIC, "%s:%lld: non-finite value '%s' in a %s vector", r->path, (long long)r->line, tok,
                         cis_dtype_name(t));
      if (found == n)
        return cis_error(CIS_ERR_PARSE, "%s:%lld: more than the %lld values expected", r->path, (long long)r->line,
                         (long long)n);
      cis_set(x, t, found++, v);
    }
    if ((st = cis_reader_next(r, &line)) != CIS_OK) return st;
  }
  if (found < n)
    return cis_error(CIS_ERR_PARSE, "%s: found %lld values, expected %lld", r->path, (long long)found, (long long)n);
  return CIS_OK;
}

cis_status cis_vector_read(const char *path, cis_dtype t, cis_int n, void **out) {
  cis_status st;
  cis_reader r;
  char *line;
  void *x = NULL;
  *out = NULL;
  if (n < 0) return cis_error(CIS_ERR_INVALID, "%s: negative vector length %lld requested", path, (long long)n);
  CIS_TRY(cis_reader_open(&r, path));
  CIS_TRY(cis_alloc_array(&x, n, cis_dtype_size(t), "vector"));
  CIS_TRY(cis_reader_next(&r, &line));
  if (line && !strncasecmp(line, "%%MatrixMarket", 14)) {
    CIS_TRY(mm_vector_header(&r, line, n));
    CIS_TRY(cis_reader_next(&r, &line));
  }
  CIS_TRY(read_values(&r, line, x, t, n));
  *out = x;
  x = NULL;
cleanup:
  cis_reader_close(&r);
  cis_free(x);
  return st;
}
