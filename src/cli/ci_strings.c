/* ci_strings.c: `cisparse ci --strings FILE`: the alpha and beta string sets
 * of selected CI (cis_ci_solver_set_strings) read from a text file, one
 * string a line:
 *
 *   # comment
 *   a 7          an alpha string: bit p = orbital p (decimal, 0x hex or 0b binary)
 *   b 0b1011     a beta string
 *   ab 0x0e      a string of both sets
 *
 * Blank lines and text after '#' are skipped; repeats are allowed (the
 * library drops them). One line naming the file and line for anything
 * else: an unknown tag, a number that is not one, negative or above 64 bits,
 * an empty set. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/ci_cmd.h"

/* s (a string of one set) appended to *v (*n of them, room *cap). */
static int push(uint64_t **v, cis_int *n, cis_int *cap, uint64_t s) {
  if (*n == *cap) {
    const cis_int c = *cap ? 2 * *cap : 64;
    uint64_t *p = realloc(*v, (size_t)c * sizeof *p);
    if (!p) return -1;
    *v = p, *cap = c;
  }
  (*v)[(*n)++] = s;
  return 0;
}

/* The number in text t (decimal, 0x, 0b) into *s; 0 ok. */
static int parse_string(const char *t, uint64_t *s) {
  int base = 10;
  if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) base = 16, t += 2;
  else if (t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) base = 2, t += 2;
  if (!isxdigit((unsigned char)t[0])) return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(t, &end, base);
  while (isspace((unsigned char)*end)) ++end;
  if (errno || *end) return -1;
  *s = (uint64_t)v;
  return 0;
}

cis_status ci_read_strings(const char *path, uint64_t **alpha, cis_int *na, uint64_t **beta, cis_int *nb) {
  FILE *f = fopen(path, "r");
  cis_status st = CIS_OK;
  cis_int ca = 0, cb = 0;
  char line[512];
  long ln = 0;
  *alpha = *beta = NULL, *na = *nb = 0;
  if (!f) return cis_error(CIS_ERR_IO, "--strings: cannot open '%s'", path);
  while (st == CIS_OK && fgets(line, sizeof line, f)) {
    ++ln;
    if (!strchr(line, '\n') && !feof(f)) { st = cis_error(CIS_ERR_PARSE, "%s:%ld: line too long", path, ln); break; }
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char tag[8], num[128];
    int got = sscanf(line, " %7s %127s", tag, num);
    if (got <= 0) continue; /* blank */
    uint64_t s;
    const int a = !strcmp(tag, "a") || !strcmp(tag, "ab"), b = !strcmp(tag, "b") || !strcmp(tag, "ab");
    char rest[8];
    if (got < 2 || (!a && !b) || sscanf(line, " %*s %*s %7s", rest) == 1 || parse_string(num, &s))
      st = cis_error(CIS_ERR_PARSE, "%s:%ld: expected 'a N', 'b N' or 'ab N' with N a string's bits (decimal, 0x or 0b), "
                     "got '%.60s'", path, ln, strtok(line, "\r\n") ? line : "");
    else if ((a && push(alpha, na, &ca, s)) || (b && push(beta, nb, &cb, s)))
      st = cis_error(CIS_ERR_ALLOC, "--strings: out of memory at %s:%ld", path, ln);
  }
  if (st == CIS_OK && ferror(f)) st = cis_error(CIS_ERR_IO, "--strings: cannot read '%s'", path);
  fclose(f);
  if (st == CIS_OK && (!*na || !*nb))
    st = cis_error(CIS_ERR_PARSE, "--strings: '%s' has %lld alpha and %lld beta strings; both sets need at least one",
                   path, (long long)*na, (long long)*nb);
  if (st != CIS_OK) {
    free(*alpha), free(*beta);
    *alpha = *beta = NULL, *na = *nb = 0;
  }
  return st;
}
