/* options.c: the library's tuning options (cisparse/util.h), one table set
 * by name: the kernels read them by id (core/options.h), the environment is
 * read only by cis_options_from_env, which programs call once at start. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "core/options.h"

typedef struct option_row {
  const char *name;
  const char *words; /* accepted words, space-separated; NULL: a decimal integer in [lo, hi] */
  long lo, hi;
  const char *help;
} option_row;

/* In cis_opt's order. */
static const option_row table[CIS_OPT_COUNT] = {
    {"hyb_g", NULL, 1, 32, "hyb kernel: threads a row (default from the mean row length)"},
    {"hyb_unroll", NULL, 1, 8, "hyb kernel: loads in flight a lane (default 4)"},
    {"hyb_lock", NULL, 0, 1024, "hyb kernel: phase-locked block size 32..1024, 0 unlocked (default by x's size)"},
    {"fused_ell_lb", NULL, 0, 1, "fused Krylov ELL kernel: 1 the 32-register build (default 0)"},
    {"sell_p", NULL, 1, 1024, "sell, sell16 kernels: threads a row (default from the rows and the SMs)"},
    {"sell_u", NULL, 1, 16, "sell kernel: unroll (default 4 double, 8 float)"},
    {"sell_bpsm", NULL, 0, 64, "sell kernel: blocks a multiprocessor, 0 no cap (default 0)"},
    {"sym_seg_r", NULL, 32, 1L << 20, "sym-seg format: rows a window (default 32 KiB of x)"},
    {"sym_seg_chunks", NULL, 1, 1L << 20, "sym-seg on the GPU: chunks a block slot (default 8)"},
    {"sym_seg_layout", "device host", 0, 0, "sym-seg on the GPU: where its layout is built (default device)"},
    {"sigma", "auto fused unfused", 0, 0, "direct CI sigma on the GPU: its kernels (default auto)"},
    {"half_scatter", "auto all reached", 0, 0, "direct CI half sigma on the GPU: its scatter (default auto)"},
    {"dist_sum", "rank collective", 0, 0, "summed operator over parts: how rows are summed (default the caller's)"},
    {"dist_resplit", "auto always never", 0, 0, "direct CI over parts: the alpha split rebalanced (default auto)"},
    {"host_vectors_pin", NULL, 0, 1, "host Davidson vectors over GPUs page-locked (default 1)"},
    {"exchange_priority", NULL, 0, 1, "NCCL exchange streams at the top priority (default 1)"},
    {"dist_trace", NULL, 0, 1, "distributed products' trace on stderr (default 0)"},
    {"sci_half", "auto on off", 0, 0, "selected-CI sigma of equal sets (MS = 0): the alpha <-> beta half sigma (default auto)"},
};

static char value[CIS_OPT_COUNT][32]; /* "" while the default holds */

static int find(const char *name) {
  for (int i = 0; name && i < CIS_OPT_COUNT; ++i)
    if (!strcmp(name, table[i].name)) return i;
  return -1;
}

/* 1 when w is one of the space-separated words. */
static int one_of(const char *words, const char *w) {
  const size_t n = strlen(w);
  for (const char *p = words; n && (p = strstr(p, w)) != NULL; p += n)
    if ((p == words || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  return 0;
}

/* Checks v for row r and stores it; what names it in a message. */
static cis_status set_row(int r, const char *v, const char *what) {
  const option_row *o = &table[r];
  if (!v) {
    value[r][0] = '\0';
    return CIS_OK;
  }
  if (o->words) {
    if (!one_of(o->words, v)) return cis_error(CIS_ERR_INVALID, "%s = '%s': expected one of %s", what, v, o->words);
  } else {
    char *end = NULL;
    errno = 0;
    const long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < o->lo || x > o->hi)
      return cis_error(CIS_ERR_INVALID, "%s = '%s': expected an integer %ld..%ld", what, v, o->lo, o->hi);
  }
  if (strlen(v) >= sizeof value[r]) return cis_error(CIS_ERR_INVALID, "%s = '%s': too long", what, v);
  strcpy(value[r], v);
  return CIS_OK;
}

cis_status cis_option_set(const char *name, const char *v) {
  const int r = find(name);
  if (r < 0) {
    char known[512];
    size_t len = 0;
    for (int i = 0; i < CIS_OPT_COUNT && len + 24 < sizeof known; ++i)
      len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", i ? ", " : "", table[i].name);
    return cis_error(CIS_ERR_INVALID, "unknown option '%s' (known: %s)", name ? name : "(null)", known);
  }
  return set_row(r, v, name);
}

const char *cis_option_get(const char *name) {
  const int r = find(name);
  return r < 0 ? NULL : cis_opt_str((cis_opt)r);
}

int cis_option_list(int i, const char **name, const char **help) {
  if (i < 0 || i >= CIS_OPT_COUNT) return 0;
  if (name) *name = table[i].name;
  if (help) *help = table[i].help;
  return 1;
}

cis_status cis_options_from_env(void) {
  for (int r = 0; r < CIS_OPT_COUNT; ++r) {
    char var[64] = "CISPARSE_";
    size_t k = strlen(var);
    for (const char *c = table[r].name; *c && k + 1 < sizeof var; ++c) var[k++] = (char)toupper((unsigned char)*c);
    var[k] = '\0';
    const char *e = getenv(var);
    if (e && *e) {
      const cis_status st = set_row(r, e, var);
      if (st != CIS_OK) return st;
    }
  }
  return CIS_OK;
}

const char *cis_opt_str(cis_opt id) { return id >= 0 && id < CIS_OPT_COUNT && value[id][0] ? value[id] : NULL; }

long cis_opt_int(cis_opt id, long def) {
  const char *v = cis_opt_str(id);
  return v ? strtol(v, NULL, 10) : def;
}

int cis_opt_is(cis_opt id, const char *w) {
  const char *v = cis_opt_str(id);
  return v && !strcmp(v, w);
}
