/* gen_internal.h: what the generators share (not public).
 *
 *  - gen_rng: a counter-based stream per row: splitmix64 seeded from
 *    (seed, row), so a row's entries depend on nothing but the spec and the
 *    row index (same matrix for any thread count or schedule);
 *  - gen_spec: "kind:key=value,..." parsed once, unknown keys refused
 *    first, then typed getters that check ranges;
 *  - gen_build: the two-pass driver every generator uses (row lengths, then
 *    fill, straight into cis_csr; OpenMP over rows; memory checked first);
 *  - gen_sample_sorted: k distinct sorted columns from a range (Floyd). */
#ifndef CISPARSE_GEN_INTERNAL_H
#define CISPARSE_GEN_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include "cisparse/gen.h"
#include "core/internal.h"

/* ---- random numbers ------------------------------------------------------ */

typedef struct gen_rng { uint64_t s; } gen_rng;

/* Steele, Lea, Flood 2014 (SplitMix64): the finalizer mixes one word. */
static inline uint64_t gen_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/* The stream of row `row` for seed `seed`: independent of every other row. */
static inline gen_rng gen_rng_row(uint64_t seed, uint64_t row) {
  gen_rng r = {gen_mix64(gen_mix64(seed ^ 0x6A09E667F3BCC909ull) + row * 0x9E3779B97F4A7C15ull)};
  return r;
}
static inline uint64_t gen_next(gen_rng *r) {
  r->s += 0x9E3779B97F4A7C15ull;
  return gen_mix64(r->s);
}
/* Uniform in (0, 1): (k + 0.5) / 2^53, never 0 or 1. */
static inline double gen_uniform(gen_rng *r) {
  return ((double)(gen_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
/* Uniform in (-1, 1) and never 0 (odd multiple of 2^-53): matrix values. */
static inline double gen_value(gen_rng *r) { return 2.0 * gen_uniform(r) - 1.0; }
/* Uniform integer in [0, n), n >= 1 (bias below 2^-22 for n < 2^31). */
static inline int64_t gen_below(gen_rng *r, int64_t n) {
  int64_t t = (int64_t)(gen_uniform(r) * (double)n);
  return t < n ? t : n - 1;
}
/* Standard normal (Box-Muller, one of the pair). */
static inline double gen_normal(gen_rng *r) {
  double u1 = gen_uniform(r), u2 = gen_uniform(r);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
/* Nearest integer to x clamped to [lo, hi]. */
static inline int64_t gen_clamp_round(double x, int64_t lo, int64_t hi) {
  if (!(x > (double)lo)) return lo;
  if (x >= (double)hi) return hi;
  int64_t v = (int64_t)llround(x);
  return v < lo ? lo : v > hi ? hi : v;
}

/* ---- spec parsing -------------------------------------------------------- */

#define GEN_MAX_KEYS 16
typedef struct gen_spec {
  const char *text;     /* the whole spec, for messages */
  char kind[16];
  int nkeys;
  struct { char key[24]; char val[40]; } kv[GEN_MAX_KEYS];
} gen_spec;

/* Split "kind:key=value,..." (CIS_ERR_INVALID naming the problem). */
cis_status gen_spec_parse(const char *text, gen_spec *sp);
/* Integer key in [lo, hi]; *v = def when absent and !required. */
cis_status gen_spec_int(const gen_spec *sp, const char *key, int required, int64_t def, int64_t lo,
                        int64_t hi, int64_t *v);
/* Number key in the interval lo..hi, each end open when *_open != 0. */
cis_status gen_spec_double(const gen_spec *sp, const char *key, double def, double lo, int lo_open,
                           double hi, int hi_open, double *v);
/* 1 if key was given. */
int gen_spec_has(const gen_spec *sp, const char *key);
/* Refuse keys not in `keys` ("a, b, c"), naming the accepted ones. */
cis_status gen_spec_check_keys(const gen_spec *sp, const char *keys);

/* ---- sampling ------------------------------------------------------------ */

/* Per-thread scratch of gen_build: a bitmap over the columns (or a hash set
 * when the matrix is too wide for one) and a row of values. */
typedef struct gen_ws {
  uint64_t *bits;  /* cols bits, all zero between calls; NULL in hash mode */
  uint64_t *hash;  /* hcap slots: generation << 32 | value */
  int64_t hcap;    /* power of two >= 2 * longest row */
  uint32_t hgen;   /* current generation, >= 1 (slots start at 0 = empty) */
  double *val;     /* longest row */
} gen_ws;

/* Write k distinct integers of [lo, lo + n), ascending, to out (k <= n).
 * Floyd's algorithm: k draws whatever n is. */
void gen_sample_sorted(gen_rng *r, int64_t lo, int64_t n, int64_t k, cis_idx *out, gen_ws *ws);

/* fill_row of gen_def for rows of `len` distinct uniform columns over
 * [0, cols) with values uniform in (-1, 1); g must start with cis_int cols. */
void gen_fill_uniform_row(const void *g, cis_int i, int64_t len, gen_rng *r, cis_idx *col, double *val,
                          gen_ws *ws);

/* ---- the two-pass driver ------------------------------------------------- */

/* A generator seen by the driver. row_len draws the row's length from r;
 * fill_row gets r in the state row_len left it and writes `len` sorted
 * columns and values (as double) for row i. */
typedef struct gen_def {
  const char *kind;
  cis_int rows, cols;
  double expected_nnz; /* estimate, to refuse hopeless sizes before pass 1 */
  uint64_t seed;
  int64_t (*row_len)(const void *g, cis_int i, gen_rng *r);
  void (*fill_row)(const void *g, cis_int i, int64_t len, gen_rng *r, cis_idx *col, double *val,
                   gen_ws *ws);
  const void *g; /* the generator's parameters */
} gen_def;

/* Generate the matrix: checks sizes and memory, counts rows, allocates
 * exactly, fills (OpenMP over rows, dynamic schedule, deterministic). */
cis_status gen_build(const gen_def *d, cis_dtype t, cis_csr **out);

/* Generators, one file each: parse their keys from sp and build. */
cis_status gen_ci(const gen_spec *sp, cis_dtype t, cis_csr **out);
cis_status gen_laplace3d(const gen_spec *sp, cis_dtype t, cis_csr **out);
cis_status gen_powerlaw(const gen_spec *sp, cis_dtype t, cis_csr **out);
cis_status gen_random(const gen_spec *sp, cis_dtype t, cis_csr **out);
/* ci: Reference-region column count for cols columns from the spec's ref_frac. */
cis_status gen_ci_reference_cols(const gen_spec *sp, cis_int cols, cis_int *ref);

#endif
