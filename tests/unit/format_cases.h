/* format_cases.h: matrices for the storage-format tests, generated from a
 * seed (header-only; included by tests/unit/test_format*.c). */
#ifndef CIS_FORMAT_CASES_H
#define CIS_FORMAT_CASES_H

#include <stdint.h>
#include <stdlib.h>
#include "test_util.h"

static inline uint64_t fc_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* rows x cols CSR; row i has len[i] distinct columns drawn uniformly from
 * [first_col, cols) (Knuth's selection sampling, so columns come sorted),
 * values random in [-1, 1) of dtype t. NULL if the allocation fails. */
static inline cis_csr *fc_from_lengths(cis_int rows, cis_int cols, const cis_int *len, cis_int first_col,
                                unsigned long long seed, cis_dtype t) {
  cis_int nnz = 0;
  cis_csr *A = NULL;
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
  for (cis_int i = 0; i < rows; ++i) nnz += len[i];
  if (cis_csr_alloc(rows, cols, nnz, t, &A) != CIS_OK) return NULL;
  for (cis_int i = 0, at = 0; i < rows; ++i) {
    cis_int need = len[i];
    for (cis_int j = first_col; j < cols && need > 0; ++j)
      if ((cis_int)(fc_next(&s) % (uint64_t)(cols - j)) < need) {
        A->colind[at++] = (cis_idx)j;
        need--;
      }
    A->rowptr[i + 1] = at;
  }
  test_fill_random(A->val, t, nnz, seed + 1);
  return A;
}

/* Row lengths: uniform in [lo, hi], except every `long_every`-th row (if > 0)
 * which gets long_len; rows with i % empty_every == 0 (if > 0) are empty.
 * Lengths are clamped to cols - first_col. */
typedef struct {
  const char *name;
  cis_int rows, cols, lo, hi, long_every, long_len, empty_every, first_col;
} fc_case;

static inline cis_csr *fc_build(const fc_case *c, unsigned long long seed, cis_dtype t) {
  cis_int *len = malloc((size_t)(c->rows + 1) * sizeof *len);
  uint64_t s = seed + 12345;
  cis_csr *A;
  if (!len) return NULL;
  for (cis_int i = 0; i < c->rows; ++i) {
    cis_int l = c->lo + (cis_int)(fc_next(&s) % (uint64_t)(c->hi - c->lo + 1));
    if (c->long_every > 0 && i % c->long_every == c->long_every / 2) l = c->long_len;
    if (c->empty_every > 0 && i % c->empty_every == 0) l = 0;
    if (l > c->cols - c->first_col) l = c->cols - c->first_col;
    len[i] = l < 0 ? 0 : l;
  }
  A = fc_from_lengths(c->rows, c->cols, len, c->first_col, seed, t);
  free(len);
  return A;
}

/* The cases every format is checked on. */
static const fc_case fc_cases[] = {
    {"1x1", 1, 1, 1, 1, 0, 0, 0, 0},
    {"empty rows", 50, 40, 1, 10, 0, 0, 3, 1},
    {"single dense row", 70, 60, 0, 3, 70, 60, 0, 0},
    {"rows < cols", 20, 300, 0, 40, 0, 0, 0, 2},
    {"rows > cols", 300, 20, 0, 20, 0, 0, 7, 0},
    {"rows not a multiple of the slice", 101, 101, 1, 12, 0, 0, 0, 0},
    {"long and short rows mixed", 500, 800, 0, 4, 7, 250, 0, 1},
    {"random, rows longer than a warp", 3000, 2500, 0, 100, 0, 0, 0, 0},
    {"columns beyond 16 bits", 200, 150000, 0, 30, 9, 2000, 5, 0},
    {"columns far apart (sell16 escapes)", 40, 2000000, 1, 12, 0, 0, 7, 0},
    {"all rows empty", 10, 10, 0, 0, 0, 0, 0, 0},
    {"no rows", 0, 7, 0, 0, 0, 0, 0, 0},
    {"no columns", 4, 0, 0, 0, 0, 0, 0, 0},
};
#define FC_NCASES ((int)(sizeof fc_cases / sizeof fc_cases[0]))

#endif
