/* gen_spec.c: "kind:key=value,key=value" parsing with typed, range-checked
 * getters. Every problem is one line naming the spec and the key. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/gen_internal.h"

static cis_status bad(const gen_spec *sp, const char *what) {
  return cis_error(CIS_ERR_INVALID, "generator spec '%s': %s", sp->text, what);
}

/* Copy [b, e) into dst of size n; 0 if it does not fit or is empty. */
static int copy_token(char *dst, size_t n, const char *b, const char *e) {
  size_t len = (size_t)(e - b);
  if (len == 0 || len >= n) return 0;
  memcpy(dst, b, len);
  dst[len] = '\0';
  return 1;
}

cis_status gen_spec_parse(const char *text, gen_spec *sp) {
  char msg[160];
  memset(sp, 0, sizeof *sp);
  sp->text = text ? text : "";
  const char *colon = text ? strchr(text, ':') : NULL;
  if (!colon || colon == text)
    return bad(sp, "expected KIND:key=value,... (e.g. ci:rows=32768,seed=1)");
  if (!copy_token(sp->kind, sizeof sp->kind, text, colon)) /* longer than any kind */
    return cis_error(CIS_ERR_NOT_FOUND, "generator spec '%s': unknown kind '%.*s'", sp->text,
                     (int)(colon - text), text);
  for (const char *p = colon + 1; *p;) {
    const char *end = strchr(p, ','), *eq;
    if (!end) end = p + strlen(p);
    eq = memchr(p, '=', (size_t)(end - p));
    if (sp->nkeys == GEN_MAX_KEYS) return bad(sp, "too many keys");
    if (!eq || !copy_token(sp->kv[sp->nkeys].key, sizeof sp->kv[0].key, p, eq) ||
        !copy_token(sp->kv[sp->nkeys].val, sizeof sp->kv[0].val, eq + 1, end)) {
      snprintf(msg, sizeof msg, "malformed item '%.*s' (expected key=value)", (int)(end - p), p);
      return bad(sp, msg);
    }
    for (int i = 0; i < sp->nkeys; ++i)
      if (!strcmp(sp->kv[i].key, sp->kv[sp->nkeys].key)) {
        snprintf(msg, sizeof msg, "key '%s' given twice", sp->kv[i].key);
        return bad(sp, msg);
      }
    sp->nkeys++;
    p = *end ? end + 1 : end;
    if (*end && !*p) return bad(sp, "trailing comma");
  }
  return CIS_OK;
}

/* The value of key, or NULL. */
static const char *lookup(const gen_spec *sp, const char *key) {
  for (int i = 0; i < sp->nkeys; ++i)
    if (!strcmp(sp->kv[i].key, key)) return sp->kv[i].val;
  return NULL;
}

int gen_spec_has(const gen_spec *sp, const char *key) { return lookup(sp, key) != NULL; }

cis_status gen_spec_int(const gen_spec *sp, const char *key, int required, int64_t def, int64_t lo,
                        int64_t hi, int64_t *v) {
  char msg[200], *end;
  const char *s = lookup(sp, key);
  if (!s) {
    if (!required) { *v = def; return CIS_OK; }
    snprintf(msg, sizeof msg, "missing %s=", key);
    return bad(sp, msg);
  }
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (*end || end == s) {
    snprintf(msg, sizeof msg, "%s='%s' is not an integer", key, s);
    return bad(sp, msg);
  }
  if (errno == ERANGE || x < lo || x > hi) {
    snprintf(msg, sizeof msg, "%s=%s is out of range [%lld, %lld]", key, s, (long long)lo,
             (long long)hi);
    return cis_error(errno == ERANGE || x > hi ? CIS_ERR_OVERFLOW : CIS_ERR_INVALID,
                     "generator spec '%s': %s", sp->text, msg);
  }
  *v = x;
  return CIS_OK;
}

cis_status gen_spec_double(const gen_spec *sp, const char *key, double def, double lo, int lo_open,
                           double hi, int hi_open, double *v) {
  char msg[200], *end;
  const char *s = lookup(sp, key);
  if (!s) { *v = def; return CIS_OK; }
  errno = 0;
  double x = strtod(s, &end);
  if (*end || end == s || errno == ERANGE || !isfinite(x)) {
    snprintf(msg, sizeof msg, "%s='%s' is not a finite number", key, s);
    return bad(sp, msg);
  }
  if (x < lo || (lo_open && x == lo) || x > hi || (hi_open && x == hi)) {
    snprintf(msg, sizeof msg, "%s=%s is outside %c%g, %g%c", key, s, lo_open ? '(' : '[', lo, hi,
             hi_open ? ')' : ']');
    return bad(sp, msg);
  }
  *v = x;
  return CIS_OK;
}

cis_status gen_spec_check_keys(const gen_spec *sp, const char *keys) {
  char msg[200];
  for (int i = 0; i < sp->nkeys; ++i) {
    size_t len = strlen(sp->kv[i].key);
    const char *k = keys;
    while ((k = strstr(k, sp->kv[i].key)) && !((k == keys || k[-1] == ' ') && (k[len] == ',' || !k[len])))
      k += len;
    if (!k) {
      snprintf(msg, sizeof msg, "unknown key '%s' for %s (keys: %s)", sp->kv[i].key, sp->kind, keys);
      return bad(sp, msg);
    }
  }
  return CIS_OK;
}
