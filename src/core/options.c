/* options.c: the library's tuning options (cisparse/util.h), one table set
 * by name: the kernels read them by id (core/options.h), the environment is
 * read only by cis_options_from_env (the one variable CISPARSE_OPTIONS),
 * which programs call once at start. Each option remembers whether it was
 * read since it was set (cis_options_unused). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "core/options.h"

typedef struct option_row {
  const char *name;
  cis_option_kind kind;
  const char *words; /* CIS_OPTION_WORD: the accepted words, space-separated */
  long lo, hi;       /* CIS_OPTION_INT: the range */
  const char *def;   /* the default, in words */
  const char *help;
} option_row;

#define INT_ROW(name, lo, hi, def, help) {name, CIS_OPTION_INT, NULL, lo, hi, def, help}
#define WORD_ROW(name, words, def, help) {name, CIS_OPTION_WORD, words, 0, 0, def, help}
#define TEXT_ROW(name, def, help) {name, CIS_OPTION_TEXT, NULL, 0, 0, def, help}

/* In cis_opt's order. */
static const option_row table[CIS_OPT_COUNT] = {
    INT_ROW("hyb_g", 1, 32, "from the mean row length", "hyb kernel: threads a row"),
    INT_ROW("hyb_unroll", 1, 8, "4", "hyb kernel: loads in flight a lane"),
    INT_ROW("hyb_lock", 0, 1024, "by x's size", "hyb kernel: phase-locked block size 32..1024, 0 unlocked"),
    INT_ROW("fused_ell_lb", 0, 1, "0", "fused Krylov ELL kernel: 1 the 32-register build"),
    INT_ROW("sell_p", 1, 1024, "from the rows and the SMs", "sell, sell16 kernels: threads a row"),
    INT_ROW("sell_u", 1, 16, "4 double, 8 float", "sell kernel: unroll"),
    INT_ROW("sell_bpsm", 0, 64, "0", "sell kernel: blocks a multiprocessor, 0 no cap"),
    INT_ROW("sym_seg_r", 32, 1L << 20, "32 KiB of x", "sym-seg format: rows a window"),
    INT_ROW("sym_seg_chunks", 1, 1L << 20, "8", "sym-seg on the GPU: chunks a block slot"),
    WORD_ROW("sym_seg_layout", "device host", "device", "sym-seg on the GPU: where its layout is built"),
    WORD_ROW("sigma", "auto fused unfused", "auto", "direct CI sigma on the GPU: its kernels"),
    WORD_ROW("half_scatter", "auto all reached", "auto", "direct CI half sigma on the GPU: its scatter"),
    WORD_ROW("dist_sum", "rank collective", "the caller's", "summed operator over parts: how rows are summed"),
    WORD_ROW("dist_resplit", "auto always never", "auto", "direct CI over parts: the alpha split rebalanced"),
    INT_ROW("host_vectors_pin", 0, 1, "1", "host Davidson vectors over GPUs page-locked"),
    INT_ROW("exchange_priority", 0, 1, "1", "NCCL exchange streams at the top priority"),
    INT_ROW("dist_trace", 0, 1, "0", "distributed products' trace on stderr"),
    WORD_ROW("sci_half", "auto on off", "auto", "selected-CI sigma of equal sets (MS = 0): the alpha <-> beta half sigma"),
    TEXT_ROW("energy_nvml", "libnvidia-ml.so.1", "the tool's GPU energy meter: the NVML library, none to disable"),
    TEXT_ROW("energy_rapl", "/sys/class/powercap", "the tool's CPU energy meter: the RAPL folder, none to disable"),
};

#define VALUE_MAX 256
static char value[CIS_OPT_COUNT][VALUE_MAX]; /* "" while the default holds */
static atomic_int was_read[CIS_OPT_COUNT];  /* read since it was set */

static int find(const char *name, size_t len) {
  for (int i = 0; name && i < CIS_OPT_COUNT; ++i)
    if (strlen(table[i].name) == len && !strncmp(name, table[i].name, len)) return i;
  return -1;
}

/* 1 when w is one of the space-separated words. */
static int one_of(const char *words, const char *w) {
  const size_t n = strlen(w);
  for (const char *p = words; n && (p = strstr(p, w)) != NULL; p += n)
    if ((p == words || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
  return 0;
}

/* Checks v for row r (NULL: the default); what names it in a message. */
static cis_status check_row(int r, const char *v, const char *what) {
  const option_row *o = &table[r];
  if (!v) return CIS_OK;
  if (o->kind == CIS_OPTION_WORD) {
    if (!one_of(o->words, v)) return cis_error(CIS_ERR_INVALID, "%s = '%s': expected one of %s", what, v, o->words);
  } else if (o->kind == CIS_OPTION_INT) {
    char *end = NULL;
    errno = 0;
    const long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < o->lo || x > o->hi)
      return cis_error(CIS_ERR_INVALID, "%s = '%s': expected an integer %ld..%ld", what, v, o->lo, o->hi);
  }
  if (strlen(v) >= sizeof value[r]) return cis_error(CIS_ERR_INVALID, "%s = '%s': too long", what, v);
  return CIS_OK;
}

/* check_row, then v stored (not yet read). */
static cis_status set_row(int r, const char *v, const char *what) {
  const cis_status st = check_row(r, v, what);
  if (st != CIS_OK) return st;
  strcpy(value[r], v ? v : "");
  atomic_store(&was_read[r], 0);
  return CIS_OK;
}

static cis_status unknown(const char *origin, const char *name, size_t len) {
  char known[512];
  size_t k = 0;
  for (int i = 0; i < CIS_OPT_COUNT && k + 24 < sizeof known; ++i)
    k += (size_t)snprintf(known + k, sizeof known - k, "%s%s", i ? ", " : "", table[i].name);
  return cis_error(CIS_ERR_INVALID, "%s%sunknown option '%.*s' (known: %s)", origin ? origin : "", origin ? ": " : "",
                   name ? (int)len : 6, name ? name : "(null)", known);
}

cis_status cis_option_set(const char *name, const char *v) {
  const int r = find(name, name ? strlen(name) : 0);
  return r < 0 ? unknown(NULL, name, name ? strlen(name) : 0) : set_row(r, v, name);
}

/* "name=value[,name=value...]" checked (apply 0) or set in order (apply 1);
 * origin (may be NULL) leads a message. */
static cis_status pairs_pass(const char *pairs, const char *origin, int apply) {
  char item[VALUE_MAX + 64], what[96];
  if (!pairs) return cis_error(CIS_ERR_INVALID, "cis_option_set_pairs: NULL list");
  for (const char *p = pairs; *p;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len >= sizeof item)
      return cis_error(CIS_ERR_INVALID, "%s%s'%.40s...': too long", origin ? origin : "", origin ? ": " : "", p);
    memcpy(item, p, len);
    item[len] = '\0';
    p += len + (end != NULL);
    if (!len) continue; /* "a=1,,b=2" or a trailing comma */
    char *eq = strchr(item, '=');
    if (!eq || eq == item)
      return cis_error(CIS_ERR_INVALID, "%s%s'%s' is not name=value", origin ? origin : "", origin ? ": " : "", item);
    const int r = find(item, (size_t)(eq - item));
    if (r < 0) return unknown(origin, item, (size_t)(eq - item));
    snprintf(what, sizeof what, "%s%s%s", origin ? origin : "", origin ? ": " : "", table[r].name);
    const char *v = eq[1] ? eq + 1 : NULL; /* name=: the default */
    const cis_status st = apply ? set_row(r, v, what) : check_row(r, v, what);
    if (st != CIS_OK) return st;
  }
  return CIS_OK;
}

/* All or nothing: every pair checked before any is set. */
static cis_status set_pairs(const char *pairs, const char *origin) {
  const cis_status st = pairs_pass(pairs, origin, 0);
  return st == CIS_OK ? pairs_pass(pairs, origin, 1) : st;
}

cis_status cis_option_set_pairs(const char *pairs) { return set_pairs(pairs, NULL); }

const char *cis_option_get(const char *name) {
  const int r = find(name, name ? strlen(name) : 0);
  return r < 0 ? NULL : cis_opt_str((cis_opt)r);
}

int cis_option_describe(int i, cis_option_desc *d) {
  if (i < 0 || i >= CIS_OPT_COUNT || !d) return 0;
  const option_row *o = &table[i];
  *d = (cis_option_desc){o->name, o->kind, o->words, o->lo, o->hi, o->def, o->help, value[i][0] ? value[i] : NULL};
  return 1;
}

int cis_options_unused(char *names, size_t n) {
  int count = 0;
  size_t k = 0;
  if (names && n) names[0] = '\0';
  for (int r = 0; r < CIS_OPT_COUNT; ++r) {
    if (!value[r][0] || atomic_load(&was_read[r])) continue;
    if (names && k < n) k += (size_t)snprintf(names + k, n - k, "%s%s", count ? ", " : "", table[r].name);
    ++count;
  }
  return count;
}

cis_status cis_options_from_env(void) {
  const char *e = getenv(CIS_OPTIONS_ENV); /* the library's one variable: docs/options.md */
  return e && *e ? set_pairs(e, CIS_OPTIONS_ENV) : CIS_OK;
}

const char *cis_opt_str(cis_opt id) {
  if (id < 0 || id >= CIS_OPT_COUNT) return NULL;
  atomic_store(&was_read[id], 1);
  return value[id][0] ? value[id] : NULL;
}

long cis_opt_int(cis_opt id, long def) {
  const char *v = cis_opt_str(id);
  return v ? strtol(v, NULL, 10) : def;
}

int cis_opt_is(cis_opt id, const char *w) {
  const char *v = cis_opt_str(id);
  return v && !strcmp(v, w);
}
