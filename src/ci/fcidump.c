/* fcidump.c: the FCIDUMP reader (Knowles & Handy, Comput. Phys. Commun. 54,
 * 75 (1989)): namelist header, then `value i j k l` lines in any order.
 * Two-electron integrals are stored once in an 8-fold symmetric packed array;
 * a repeated integral is accepted when it agrees to 1e-12, else refused
 * naming both lines. An integral that ORBSYM forbids is refused
 * (check_symmetry). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ci/ci_internal.h"
#include "core/internal.h"

typedef struct reader {
  const char *path;
  FILE *f;
  char *line;
  size_t cap;
  long lineno;
  /* header */
  char key[64];
  int have_norb, have_nelec, norbsym;
  char seen[32][64]; /* keys given so far (a repeated key is refused) */
  int nseen;
  /* integrals: line of first definition, 0 = not yet seen */
  int32_t *h1_line, *eri_line, core_line;
  double *h1p; /* packed h_ij */
} reader;

static cis_status fail(const reader *r, cis_status st, const char *what) {
  return cis_error(st, "%s:%ld: %s", r->path, r->lineno, what);
}

/* The next line into r->line (at most CIS_FCIDUMP_MAX_LINE characters,
 * newline included): 1 read, 0 end of file, -1 refused (*st set): a line
 * too long, or a NUL byte (binary input: fgets and strlen would read NUL
 * bytes as empty lines and never reach the length check, so /dev/zero on
 * standard input would be read for ever). Byte by byte, under one lock. */
static int next_line(reader *r, cis_status *st) {
  char msg[160];
  size_t n = 0;
  int c = EOF, refused = 0;
  if (!r->line) {
    r->cap = CIS_FCIDUMP_MAX_LINE + 1;
    if (!(r->line = malloc(r->cap))) {
      *st = cis_error(CIS_ERR_ALLOC, "cannot allocate the FCIDUMP line buffer");
      return -1;
    }
  }
  flockfile(r->f);
  while ((c = getc_unlocked(r->f)) != EOF) {
    if (c == '\0' || n == r->cap - 1) { refused = c == '\0' ? 1 : 2; break; }
    r->line[n++] = (char)c;
    if (c == '\n') break;
  }
  funlockfile(r->f);
  if (!n && !refused) return 0;
  r->line[n] = '\0';
  r->lineno++;
  if (!refused) return 1;
  if (refused == 1)
    snprintf(msg, sizeof msg, "NUL byte at column %zu (binary data, not an FCIDUMP file?)", n + 1);
  else
    snprintf(msg, sizeof msg, "line longer than %d characters (not an FCIDUMP file?)", CIS_FCIDUMP_MAX_LINE);
  *st = fail(r, CIS_ERR_PARSE, msg);
  return -1;
}

static int parse_long(const char *s, long *v) {
  char *end;
  errno = 0;
  *v = strtol(s, &end, 10);
  return !errno && end != s && *end == '\0';
}

/* A Fortran real: E or D exponent; decimal only (strtod's hexadecimal
 * floats are refused). */
static int parse_real(const char *s, double *v) {
  char buf[96], *end;
  size_t n = strlen(s);
  if (n == 0 || n >= sizeof buf || strpbrk(s, "xX")) return 0;
  for (size_t i = 0; i <= n; ++i) buf[i] = (s[i] == 'D' || s[i] == 'd') ? 'E' : s[i];
  errno = 0;
  *v = strtod(buf, &end);
  return end != buf && *end == '\0';
}

static int parse_logical(const char *s, int *v) {
  char u[16];
  size_t n = strlen(s);
  if (n >= sizeof u) return 0;
  for (size_t i = 0; i <= n; ++i) u[i] = (char)toupper((unsigned char)s[i]);
  if (!strcmp(u, ".TRUE.") || !strcmp(u, "T") || !strcmp(u, "TRUE") || !strcmp(u, "1")) { *v = 1; return 1; }
  if (!strcmp(u, ".FALSE.") || !strcmp(u, "F") || !strcmp(u, "FALSE") || !strcmp(u, "0")) { *v = 0; return 1; }
  return 0;
}

/* One value token of the current key. */
static cis_status header_value(reader *r, cis_fcidump *F, const char *tok) {
  char msg[160];
  long v;
  if (!r->key[0]) {
    snprintf(msg, sizeof msg, "header value '%.40s' has no KEY= before it", tok);
    return fail(r, CIS_ERR_PARSE, msg);
  }
  if (!strcmp(r->key, "IUHF")) { /* Molpro's UHF flag (alpha and beta integrals in separate blocks) */
    if (!parse_long(tok, &v)) {
      snprintf(msg, sizeof msg, "IUHF: '%.40s' is not an integer", tok);
      return fail(r, CIS_ERR_PARSE, msg);
    }
    F->uhf = F->uhf || v != 0;
    r->key[0] = '\0';
    return CIS_OK;
  }
  if (!strcmp(r->key, "UHF")) {
    int u;
    if (!parse_logical(tok, &u)) {
      snprintf(msg, sizeof msg, "UHF must be .TRUE. or .FALSE., got '%.40s'", tok);
      return fail(r, CIS_ERR_PARSE, msg);
    }
    F->uhf = F->uhf || u;
    return CIS_OK;
  }
  int *dst = !strcmp(r->key, "NORB") ? &F->norb : !strcmp(r->key, "NELEC") ? &F->nelec
           : !strcmp(r->key, "MS2") ? &F->ms2 : !strcmp(r->key, "ISYM") ? &F->isym : NULL;
  int is_orbsym = !strcmp(r->key, "ORBSYM");
  if (!dst && !is_orbsym) return CIS_OK; /* other keys (PNTGRP, ...) are ignored */
  if (!parse_long(tok, &v)) {
    snprintf(msg, sizeof msg, "%s: '%.40s' is not an integer", r->key, tok);
    return fail(r, CIS_ERR_PARSE, msg);
  }
  if (is_orbsym) {
    if (r->norbsym >= CIS_CI_MAX_ORB) {
      snprintf(msg, sizeof msg, "ORBSYM lists more than %d orbitals", CIS_CI_MAX_ORB);
      return fail(r, CIS_ERR_UNSUPPORTED, msg);
    }
    if (v >= 10 && v % 10 <= 7) { /* PySCF's Dooh/Coov id 10 k + (D2h id), as fcidump.from_integrals writes it */
      snprintf(msg, sizeof msg,
               "ORBSYM entry %ld is PySCF's linear-molecule id (Dooh/Coov); FCIDUMP symmetry is D2h: "
               "write ORBSYM %% 10, as pyscf.tools.fcidump.from_mo does",
               v);
      return fail(r, CIS_ERR_RANGE, msg);
    }
    if (v < 0 || v > 8) {
      snprintf(msg, sizeof msg, "ORBSYM entry %ld is not an irrep (1..8 Molpro, 0..7 PySCF)", v);
      return fail(r, CIS_ERR_RANGE, msg);
    }
    F->orbsym[r->norbsym++] = (int)v;
    return CIS_OK;
  }
  if (v < -100000 || v > 100000) {
    snprintf(msg, sizeof msg, "%s = %ld is out of range", r->key, v);
    return fail(r, CIS_ERR_RANGE, msg);
  }
  *dst = (int)v;
  if (dst == &F->norb) r->have_norb = 1;
  if (dst == &F->nelec) r->have_nelec = 1;
  r->key[0] = '\0'; /* scalar keys take one value */
  return CIS_OK;
}

/* 1 if the current line reads as an integral line `value i j k l` (a real
 * with a decimal point or exponent, then four integers): inside the header
 * it means &END is missing. */
static int looks_like_integral(const char *line) {
  char buf[256], *tok[6];
  int nt = 0;
  double v;
  long ix;
  if (strlen(line) >= sizeof buf || strpbrk(line, "=,&$/")) return 0;
  strcpy(buf, line);
  for (char *s = strtok(buf, " \t\r\n"); s && nt < 6; s = strtok(NULL, " \t\r\n")) tok[nt++] = s;
  if (nt != 5 || !strpbrk(tok[0], ".eEdD") || !parse_real(tok[0], &v)) return 0;
  for (int q = 1; q < 5; ++q)
    if (!parse_long(tok[q], &ix)) return 0;
  return 1;
}

/* Remember KEY (refusing a repeat: which of two values was meant?). */
static cis_status new_key(reader *r, const char *key) {
  char msg[160];
  for (int k = 0; k < r->nseen; ++k)
    if (!strcmp(r->seen[k], key)) {
      snprintf(msg, sizeof msg, "key %.40s= given twice in the header", key);
      return fail(r, CIS_ERR_PARSE, msg);
    }
  if (r->nseen < (int)(sizeof r->seen / sizeof *r->seen)) snprintf(r->seen[r->nseen++], sizeof *r->seen, "%s", key);
  snprintf(r->key, sizeof r->key, "%s", key);
  return CIS_OK;
}

/* Scan one header line; *done = 1 once &END or / is seen. */
static cis_status header_line(reader *r, cis_fcidump *F, int *started, int *done) {
  cis_status st;
  char tok[64];
  const char *p = r->line;
  if (*started && looks_like_integral(p))
    return fail(r, CIS_ERR_PARSE, "header not terminated: &END (or /) is missing before the integrals");
  while (*p && !*done) {
    if (isspace((unsigned char)*p) || *p == ',') { p++; continue; }
    if (*p == '/') { *done = 1; break; }
    size_t n = 0;
    const char *s = p;
    if (*p == '&' || *p == '$') p++;
    while (*p && !isspace((unsigned char)*p) && *p != ',' && *p != '=' && *p != '/') p++;
    n = (size_t)(p - s);
    if (n >= sizeof tok) return fail(r, CIS_ERR_PARSE, "header token too long");
    memcpy(tok, s, n);
    tok[n] = '\0';
    for (size_t i = 0; i < n; ++i) tok[i] = (char)toupper((unsigned char)tok[i]);
    if (tok[0] == '&' || tok[0] == '$') {
      if (!strcmp(tok + 1, "FCI") && !*started) { *started = 1; continue; }
      if (!strcmp(tok + 1, "END") || tok[1] == '\0') { *done = 1; break; }
      return fail(r, CIS_ERR_PARSE, "unexpected namelist marker in the header");
    }
    if (!*started) return fail(r, CIS_ERR_PARSE, "expected the &FCI namelist header");
    const char *q = p;
    while (*q == ' ' || *q == '\t') q++;
    if (*q == '=') {
      if (!isalpha((unsigned char)tok[0])) return fail(r, CIS_ERR_PARSE, "malformed KEY= in the header");
      CIS_TRY(new_key(r, tok));
      if (!strcmp(r->key, "ORBSYM")) r->norbsym = 0;
      p = q + 1;
      continue;
    }
    /* a value token: original case for numbers */
    memcpy(tok, s, n);
    tok[n] = '\0';
    CIS_TRY(header_value(r, F, tok));
  }
  return CIS_OK;
cleanup:
  return st;
}

static cis_status check_header(reader *r, cis_fcidump *F) {
  char msg[200];
  cis_status st;
  if (!r->have_norb) return fail(r, CIS_ERR_PARSE, "header has no NORB");
  if (!r->have_nelec) return fail(r, CIS_ERR_PARSE, "header has no NELEC");
  if ((st = ci_fcidump_counts_problem(F->norb, F->nelec, F->ms2, F->uhf, &ci_fcidump_file_names, msg, sizeof msg)))
    return fail(r, st, msg);
  if (r->norbsym && r->norbsym != F->norb) {
    snprintf(msg, sizeof msg, "ORBSYM has %d entries, NORB = %d", r->norbsym, F->norb);
    return fail(r, CIS_ERR_PARSE, msg);
  }
  F->isym_file = F->isym;
  if (!r->norbsym) {
    for (int i = 0; i < F->norb; ++i) F->orbsym[i] = 1;
    F->sym_numbering = CIS_FCIDUMP_SYM_NONE;
  } else {
    int zero = 0, eight = 0;
    for (int i = 0; i < F->norb; ++i) { zero |= F->orbsym[i] == 0; eight |= F->orbsym[i] == 8; }
    if (zero && eight) return fail(r, CIS_ERR_RANGE, "ORBSYM has both 0 (PySCF's 0-based ids) and 8 (Molpro's 1..8)");
    F->sym_numbering = zero ? CIS_FCIDUMP_SYM_PYSCF : CIS_FCIDUMP_SYM_MOLPRO;
    if (zero) for (int i = 0; i < F->norb; ++i) F->orbsym[i] += 1;
  }
  if (F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF) {
    /* PySCF writes the literal ISYM=1 whatever the state: totally symmetric */
    if (F->isym < 0 || F->isym > 7) {
      snprintf(msg, sizeof msg, "ISYM = %d is not an irrep id 0..7 (0-based ORBSYM)", F->isym);
      return fail(r, CIS_ERR_RANGE, msg);
    }
    if (F->isym == 1) { F->isym = 1; F->isym_assumed = 1; }
    else F->isym += 1;
  } else if (F->isym < 1 || F->isym > 8) {
    snprintf(msg, sizeof msg, "ISYM = %d is not an irrep 1..8", F->isym);
    return fail(r, CIS_ERR_RANGE, msg);
  }
  return CIS_OK;
}

/* Store v at slot k, remembering the line; a repeat must agree to 1e-12. */
static cis_status store(reader *r, double *slot, int32_t *line, double v, const char *what) {
  char msg[256];
  if (*line) {
    if (fabs(*slot - v) <= 1e-12 * fmax(1.0, fabs(v))) return CIS_OK;
    snprintf(msg, sizeof msg, "%s = %.15g conflicts with line %d (= %.15g)", what, v, (int)*line, *slot);
    return fail(r, CIS_ERR_PARSE, msg);
  }
  *slot = v;
  *line = (int32_t)(r->lineno > INT32_MAX ? INT32_MAX : r->lineno);
  return CIS_OK;
}

static cis_status integral_line(reader *r, cis_fcidump *F) {
  char *tok[6], msg[200], what[64];
  int nt = 0;
  for (char *s = strtok(r->line, " \t\r\n"); s; s = strtok(NULL, " \t\r\n")) {
    if (nt < 6) tok[nt] = s;
    nt++;
  }
  if (nt == 0) return CIS_OK;
  if (nt != 5) {
    snprintf(msg, sizeof msg, "expected 'value i j k l' (5 fields), found %d", nt);
    return fail(r, CIS_ERR_PARSE, msg);
  }
  double v;
  long ix[4];
  if (!parse_real(tok[0], &v)) {
    snprintf(msg, sizeof msg, "integral value '%.40s' is not a number", tok[0]);
    return fail(r, CIS_ERR_PARSE, msg);
  }
  if (!isfinite(v)) return fail(r, CIS_ERR_NUMERIC, "integral value is not finite");
  for (int q = 0; q < 4; ++q) {
    if (!parse_long(tok[q + 1], &ix[q])) {
      snprintf(msg, sizeof msg, "orbital index '%.40s' is not an integer", tok[q + 1]);
      return fail(r, CIS_ERR_PARSE, msg);
    }
    if (ix[q] < 0 || ix[q] > F->norb) {
      snprintf(msg, sizeof msg, "orbital index %ld out of range 0..NORB=%d", ix[q], F->norb);
      return fail(r, CIS_ERR_RANGE, msg);
    }
  }
  long i = ix[0], j = ix[1], k = ix[2], l = ix[3];
  if (i && j && k && l) {
    snprintf(what, sizeof what, "integral (%ld %ld|%ld %ld)", i, j, k, l);
    int64_t at = ci_pair(ci_pair(i - 1, j - 1), ci_pair(k - 1, l - 1));
    return store(r, &F->eri[at], &r->eri_line[at], v, what);
  }
  if (i && j && !k && !l) {
    snprintf(what, sizeof what, "h(%ld,%ld)", i, j);
    int64_t at = ci_pair(i - 1, j - 1);
    return store(r, &r->h1p[at], &r->h1_line[at], v, what);
  }
  if (!i && !j && !k && !l) return store(r, &F->ecore, &r->core_line, v, "core energy");
  if (i && !j && !k && !l) return CIS_OK; /* orbital energy: not needed */
  snprintf(msg, sizeof msg, "index pattern %ld %ld %ld %ld is not (ij|kl), h_ij, orbital energy or core",
           i, j, k, l);
  return fail(r, CIS_ERR_PARSE, msg);
}

/* Irreps of D2h and its subgroups multiply as the XOR of their 0-based ids:
 * h_pq and (pq|rs) vanish unless the product of their orbitals' irreps is
 * the totally symmetric one. An integral beyond CI_SYM_TOL of the largest
 * one that couples other irreps means ORBSYM does not describe these
 * orbitals, and the symmetry-blocked CI would silently drop its couplings (a
 * wrong full-CI energy). The file is refused, not run in C1 with a warning:
 * the target irrep ISYM (and every per-irrep count) is meaningless without a
 * valid ORBSYM, so a C1 run would answer another question than the one
 * asked; removing ORBSYM is the user's explicit choice of C1. The scan is
 * ci_fcidump_forbidden's (fcidump_check runs it on a caller's struct);
 * here it is reported in the file's words, at the integral's line. */
static cis_status check_symmetry(reader *r, const cis_fcidump *F) {
  char msg[320], what[64], irr[48];
  cis_status st;
  ci_forbidden bad;
  if ((st = ci_fcidump_forbidden(F, &bad)) != CIS_OK || !bad.kind) return st;
  int shift = F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF ? 1 : 0, len = 0;
  for (int q = 0; q < 4 && bad.o[q] >= 0; ++q)
    len += snprintf(irr + len, sizeof irr - (size_t)len, "%s%d", q ? " " : "", F->orbsym[bad.o[q]] - shift);
  if (bad.kind == 2)
    snprintf(what, sizeof what, "integral (%d %d|%d %d)", bad.o[0] + 1, bad.o[1] + 1, bad.o[2] + 1, bad.o[3] + 1);
  else snprintf(what, sizeof what, "h(%d,%d)", bad.o[0] + 1, bad.o[1] + 1);
  snprintf(msg, sizeof msg,
           "%s = %.6g couples orbitals of ORBSYM irreps %s (product irrep %d, not totally symmetric): "
           "ORBSYM does not fit these integrals; remove ORBSYM to solve without symmetry",
           what, bad.v, irr, bad.prod + 1 - shift);
  r->lineno = bad.kind == 2 ? r->eri_line[bad.at] : r->h1_line[bad.at];
  return fail(r, CIS_ERR_PARSE, msg);
}

cis_status cis_fcidump_read(const char *path, cis_fcidump **out) {
  cis_status st;
  reader r;
  cis_fcidump *F = NULL;
  int started = 0, done = 0;
  memset(&r, 0, sizeof r);
  if (!out) return cis_error(CIS_ERR_INVALID, "cis_fcidump_read: NULL output");
  *out = NULL;
  if (!path) return cis_error(CIS_ERR_INVALID, "cis_fcidump_read: NULL path");
  r.path = path;
  if (!strcmp(path, "-")) { /* standard input (a copy, closed like a file) */
    int fd = dup(STDIN_FILENO);
    r.path = "<stdin>";
    r.f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!r.f && fd >= 0) close(fd);
  } else {
    struct stat sb;
    if (stat(path, &sb) != 0) return cis_error(CIS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return cis_error(CIS_ERR_IO, "%s: is a directory, not an FCIDUMP file", path);
    if (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) || S_ISSOCK(sb.st_mode))
      return cis_error(CIS_ERR_IO, "%s: is not a regular file (%s device)", path,
                       S_ISCHR(sb.st_mode) ? "a character" : S_ISBLK(sb.st_mode) ? "a block" : "a socket, not a");
    r.f = fopen(path, "r");
  }
  if (!r.f) return cis_error(CIS_ERR_IO, "%s: cannot open: %s", r.path, strerror(errno));
  F = cis_calloc(1, sizeof *F);
  if (!F) { st = cis_error(CIS_ERR_ALLOC, "cannot allocate FCIDUMP header"); goto cleanup; }
  F->isym = 1;
  int got = 0;
  while (!done && (got = next_line(&r, &st)) > 0) CIS_TRY(header_line(&r, F, &started, &done));
  if (got < 0) goto cleanup;
  if (!started) { st = fail(&r, CIS_ERR_PARSE, "no &FCI namelist header"); goto cleanup; }
  if (!done) { st = fail(&r, CIS_ERR_PARSE, "header not terminated (&END or /) before end of file"); goto cleanup; }
  CIS_TRY(check_header(&r, F));
  F->npair = (cis_int)F->norb * (F->norb + 1) / 2;
  F->neri = F->npair * (F->npair + 1) / 2;
  CIS_TRY(cis_alloc_zeroed((void **)&F->eri, F->neri, sizeof(double), "two-electron integrals"));
  CIS_TRY(cis_alloc_zeroed((void **)&r.eri_line, F->neri, sizeof(int32_t), "integral line marks"));
  CIS_TRY(cis_alloc_zeroed((void **)&r.h1p, F->npair, sizeof(double), "one-electron integrals"));
  CIS_TRY(cis_alloc_zeroed((void **)&r.h1_line, F->npair, sizeof(int32_t), "integral line marks"));
  CIS_TRY(cis_alloc_zeroed((void **)&F->h1, (cis_int)F->norb * F->norb, sizeof(double), "one-electron integrals"));
  while ((got = next_line(&r, &st)) > 0) CIS_TRY(integral_line(&r, F));
  if (got < 0) goto cleanup;
  if (ferror(r.f)) { st = cis_error(CIS_ERR_IO, "%s: read error", r.path); goto cleanup; }
  for (int i = 0; i < F->norb; ++i)
    for (int j = 0; j < F->norb; ++j) F->h1[i * F->norb + j] = r.h1p[ci_pair(i, j)];
  CIS_TRY(check_symmetry(&r, F));
  *out = F;
  F = NULL;
  st = CIS_OK;
cleanup:
  if (r.f) fclose(r.f);
  free(r.line);
  cis_free(r.eri_line);
  cis_free(r.h1_line);
  cis_free(r.h1p);
  cis_fcidump_free(F);
  return st;
}

void cis_fcidump_free(cis_fcidump *F) {
  if (!F) return;
  cis_free(F->h1);
  cis_free(F->eri);
  cis_free(F);
}

const char *cis_fcidump_numbering_name(int numbering) {
  return numbering == CIS_FCIDUMP_SYM_MOLPRO ? "1-based (Molpro)"
       : numbering == CIS_FCIDUMP_SYM_PYSCF ? "0-based (PySCF)" : "none (no ORBSYM)";
}

cis_status fcidump_set_isym(cis_fcidump *F, int isym) {
  if (!F) return cis_error(CIS_ERR_INVALID, "fcidump_set_isym: NULL integrals");
  int zero = F->sym_numbering == CIS_FCIDUMP_SYM_PYSCF;
  if (isym < (zero ? 0 : 1) || isym > (zero ? 7 : 8))
    return cis_error(CIS_ERR_RANGE, "isym %d is not an irrep %s of this file's numbering (%s)", isym,
                     zero ? "0..7" : "1..8", cis_fcidump_numbering_name(F->sym_numbering));
  F->isym = zero ? isym + 1 : isym;
  F->isym_assumed = 0;
  return CIS_OK;
}

double fcidump_eri(const cis_fcidump *F, int i, int j, int k, int l) { return ci_eri(F, i, j, k, l); }
int cis_fcidump_nalpha(const cis_fcidump *F) { return (F->nelec + F->ms2) / 2; }
int cis_fcidump_nbeta(const cis_fcidump *F) { return (F->nelec - F->ms2) / 2; }
