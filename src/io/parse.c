/* parse.c: tokens and numbers for the text readers. Integers are parsed by
 * hand with an overflow check; reals take Clinger's exact fast path
 * (W. D. Clinger, "How to read floating point numbers accurately", PLDI 1990,
 * §5: a mantissa below 2^53 times an exactly representable power of ten
 * 10^0..10^22 is one correctly rounded IEEE operation) and fall back to
 * strtod for everything else, so every result is correctly rounded. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"

/* Character classes for the tokenizer: 1 white space, 2 end of line, 0 token. */
static const unsigned char char_class[256] = {['\0'] = 2, [' '] = 1, ['\t'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1};

char *cis_token(char **p) {
  unsigned char *s = (unsigned char *)*p;
  while (char_class[*s] == 1) s++;
  if (!*s) {
    *p = (char *)s;
    return NULL;
  }
  char *tok = (char *)s;
  while (!char_class[*s]) s++;
  if (*s) *s++ = '\0';
  *p = (char *)s;
  return tok;
}

int cis_parse_int(const char *tok, int64_t *v) {
  const char *s = tok;
  int neg = 0;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  if (*s < '0' || *s > '9') return 1;
  uint64_t x = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  int big = 0;
  for (; *s >= '0' && *s <= '9'; ++s) {
    unsigned d = (unsigned)(*s - '0');
    if (x > (limit - d) / 10) big = 1;
    else x = x * 10 + d;
  }
  if (*s) return 1;
  if (big) return 2;
  *v = neg ? (int64_t)(0 - x) : (int64_t)x;
  return 0;
}

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Clinger's fast path; 0 if the token needs the general algorithm. */
static int parse_fast(const char *s, double *v) {
  int neg = 0, digits = 0, e10 = 0;
  uint64_t m = 0;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  const char *start = s;
  for (; *s >= '0' && *s <= '9'; ++s) {
    if (m == 0 && *s == '0') continue; /* leading zeros carry no digits */
    if (++digits > 19) return 0;
    m = m * 10 + (uint64_t)(*s - '0');
  }
  if (*s == '.') {
    for (++s; *s >= '0' && *s <= '9'; ++s) {
      e10--;
      if (m == 0 && *s == '0') continue;
      if (++digits > 19) return 0;
      m = m * 10 + (uint64_t)(*s - '0');
    }
  }
  if (s == start || (s == start + 1 && *start == '.')) return 0;
  if (*s == 'e' || *s == 'E') {
    int eneg = 0, e = 0;
    ++s;
    if (*s == '+' || *s == '-') eneg = *s++ == '-';
    if (*s < '0' || *s > '9') return 0;
    for (; *s >= '0' && *s <= '9'; ++s)
      if ((e = e * 10 + (*s - '0')) > 400) return 0;
    e10 += eneg ? -e : e;
  }
  if (*s || m > ((uint64_t)1 << 53) || e10 < -22 || e10 > 22) return 0;
  double x = (double)m;
  x = e10 >= 0 ? x * exact_pow10[e10] : x / exact_pow10[-e10];
  *v = neg ? -x : x;
  return 1;
}

int cis_parse_real(const char *tok, double *v) {
  if (parse_fast(tok, v)) return 0;
  if (strpbrk(tok, "xX")) return 1; /* strtod's hexadecimal floats: decimal only */
  char *end;
  double x = strtod(tok, &end); /* ERANGE: +-Inf or a (sub)normal, both kept */
  if (end == tok || *end) return 1;
  *v = x;
  return 0;
}
