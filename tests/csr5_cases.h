/* csr5_cases.h: the awkward matrices the CSR5 tests (CPU and GPU) run on,
 * generated from a seed: empty rows (leading, trailing, runs), rows spanning
 * many tiles, rows aligned to tile boundaries, nnz below one tile, nnz = 0,
 * a single row, and random matrices of a few thousand rows. */
#ifndef CIS_TEST_CSR5_CASES_H
#define CIS_TEST_CSR5_CASES_H

#include <stdint.h>
#include <stdlib.h>
#include "test_util.h"

typedef struct csr5_case {
  const char *name;
  cis_int rows, cols;
  int kind; /* how row lengths are drawn, see csr5_case_length */
} csr5_case;

static const csr5_case CSR5_CASES[] = {
    {"nnz=0", 7, 5, 0},
    {"rows=1 long row", 1, 5000, 1},
    {"nnz below one tile", 6, 9, 2},
    {"empty runs, leading and trailing", 3000, 2500, 3},
    {"rows of 32*16 (tile-aligned at sigma 16)", 40, 600, 4},
    {"one dense row among empties", 2000, 3000, 5},
    {"random short rows", 4000, 3500, 6},
    {"random long rows", 600, 4000, 7},
};
#define CSR5_NCASES ((int)(sizeof CSR5_CASES / sizeof *CSR5_CASES))

static inline uint64_t csr5_rand(uint64_t *s) {
  *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
  return *s;
}

static inline cis_int csr5_case_length(const csr5_case *c, cis_int r, uint64_t *s) {
  switch (c->kind) {
    case 0: return 0;
    case 1: return c->cols;
    case 2: return (r == 0 || r == 3 || r == 5) ? 0 : 2 + r;
    case 3: { /* first 17 and last 23 rows empty, runs of empties, some long rows */
      if (r < 17 || r >= c->rows - 23 || (r / 50) % 3 == 1) return 0;
      uint64_t u = csr5_rand(s) % 100;
      return u < 30 ? 0 : u < 95 ? (cis_int)(csr5_rand(s) % 12) : 200 + (cis_int)(csr5_rand(s) % 1800);
    }
    case 4: return 32 * 16;
    case 5: return r == 1000 ? c->cols : 0;
    case 6: return (cis_int)(csr5_rand(s) % 21);
    default: return 40 + (cis_int)(csr5_rand(s) % 300);
  }
}

/* The case's matrix in dtype t: sorted distinct columns by selection
 * sampling, values in [-1, 1). NULL on allocation failure. */
static inline cis_csr *csr5_case_matrix(const csr5_case *c, cis_dtype t, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 7;
  cis_int *len = malloc((size_t)c->rows * sizeof *len), nnz = 0;
  cis_csr *A = NULL;
  if (!len) return NULL;
  for (cis_int r = 0; r < c->rows; ++r) nnz += len[r] = csr5_case_length(c, r, &s);
  if (cis_csr_alloc(c->rows, c->cols, nnz, t, &A) != CIS_OK) { free(len); return NULL; }
  cis_int k = 0;
  for (cis_int r = 0; r < c->rows; ++r) {
    cis_int need = len[r];
    for (cis_int j = 0; j < c->cols && need > 0; ++j)
      if ((cis_int)(csr5_rand(&s) % (uint64_t)(c->cols - j)) < need) {
        A->colind[k++] = (cis_idx)j;
        need--;
      }
    A->rowptr[r + 1] = k;
  }
  test_fill_random(A->val, t, nnz, seed + 1);
  free(len);
  return A;
}

#ifdef CISPARSE_CSR5_H
/* Switch rowptr and empty_ptr of a built CSR5 matrix to the 64-bit offsets
 * used when nnz >= 2^32, so the wide code paths run on small matrices.
 * Returns 0 on allocation failure (matrix unchanged). */
static inline int csr5_widen_offsets(cis_fmt_csr5 *F) {
  int64_t *r = malloc((size_t)(F->h.rows + 1) * sizeof *r), *e = malloc((size_t)(F->ntiles + 1) * sizeof *e);
  if (!r || !e) { free(r); free(e); return 0; }
  for (cis_int i = 0; i <= F->h.rows; ++i) r[i] = cis_off_get(&F->rowptr, i);
  for (cis_int t = 0; t <= F->ntiles; ++t) e[t] = cis_off_get(&F->empty_ptr, t);
  cis_offsets_free(&F->rowptr);
  cis_offsets_free(&F->empty_ptr);
  F->rowptr = (cis_offsets){1, NULL, r};
  F->empty_ptr = (cis_offsets){1, NULL, e};
  return 1;
}
#endif

#endif
