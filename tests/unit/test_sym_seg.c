/* test_sym_seg.c: the sym-seg layout (src/formats/sym_seg.h) and its CPU
 * reference, the reference of the GPU kernel sym-seg:
 *  - the layout recounted from U: every strict-upper entry once, in its
 *    block, segments in increasing column order with their rows distinct
 *    (their order is the builder's, for the kernel's banks), one head per
 *    segment, padding only at a block's end, piece_heads and
 *    block_piece consistent, the diagonal, each block's bound (the largest
 *    absolute sum reaching one row of its window) recomputed from U;
 *  - cis_sym_seg_spmv against cis_csr_symv (beta 0 over a NaN-poisoned y,
 *    and beta 0.5), float and double, blocks of 32, 64, 1000 and the
 *    default rows, on matrices larger than a warp: random symmetric, empty
 *    rows, one very long row (and column), a CI-structured matrix, a 3D
 *    Laplacian, 1x1, diagonal only;
 *  - refusals: not upper, not square, entries below the diagonal or out of
 *    order, block rows out of range; every allocation failure is an error
 *    with nothing leaked (run under ASan). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "formats/sym_seg.h"
#include "test_util.h"

/* The strict upper triangle of a symmetric n x n random matrix with rows of
 * about len entries, row `longrow` (if >= 0) with every column. */
static cis_csr *upper_random(cis_int n, int len, cis_int longrow, unsigned long long seed, cis_dtype t) {
  cis_coo *C = NULL;
  cis_csr *A = NULL, *U = NULL, *Ut = NULL;
  unsigned long long s = seed;
  if (coo_alloc(n, n, 16, CIS_F64, &C) != CIS_OK) return NULL;
  for (cis_int i = 0; i < n; ++i) {
    int m = i == longrow ? (int)n : len;
    for (int k = 0; k < m; ++k) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      cis_idx j = i == longrow ? (cis_idx)k : (cis_idx)((s >> 33) % (unsigned long long)n);
      double v = (double)((s >> 11) % 2000001) / 1e6 - 1.0;
      if (j < i) continue;
      coo_push(C, (cis_idx)i, j, v);
    }
  }
  coo_to_csr(C, &A);
  coo_free(C);
  if (A) A->flags |= CIS_FLAG_UPPER;
  if (A) cis_csr_copy(A, t, &Ut);
  if (Ut) Ut->flags |= CIS_FLAG_UPPER;
  cis_csr_free(A);
  cis_csr_free(U);
  return Ut;
}

static cis_csr *upper_of(const char *spec, cis_dtype t) {
  cis_csr *A = NULL, *U = NULL;
  CHECK_OK(cis_generate(spec, t, &A));
  if (A) CHECK_OK(csr_upper(A, &U)); /* the stored triangle of a symmetric matrix */
  cis_csr_free(A);
  return U;
}

/* The layout recounted from U. */
static void check_layout(const cis_csr *U, const cis_sym_seg *S, const char *what) {
  cis_int strict = 0, heads = 0, bad = 0;
  int64_t *seen = calloc((size_t)S->R, sizeof *seen); /* the segment (+1) that last held each row */
  CHECK(seen != NULL, "%s: out of memory", what);
  if (!seen) return;
  for (cis_int i = 0; i < U->rows; ++i)
    for (cis_int k = U->rowptr[i]; k < U->rowptr[i + 1]; ++k) strict += U->colind[k] != i;
  CHECK(S->strict == strict, "%s: %lld strict entries, U has %lld", what, (long long)S->strict, (long long)strict);
  CHECK(S->entries == S->pieces * CIS_SYM_SEG_PIECE, "%s: entries not whole pieces", what);
  CHECK(S->block_piece[0] == 0 && S->block_piece[S->blocks] == S->pieces, "%s: block_piece ends", what);
  /* Every entry found in U with its value; segments ordered. */
  for (cis_int b = 0; b < S->blocks && !bad; ++b) {
    int64_t seg = -1, padded = 0;
    cis_idx lastcol = -1;
    for (int64_t p = S->block_piece[b]; p < S->block_piece[b + 1]; ++p) {
      if (S->piece_heads[p] != heads) bad = 1;
      for (int64_t q = p * CIS_SYM_SEG_PIECE; q < (p + 1) * CIS_SYM_SEG_PIECE; ++q) {
        const unsigned code = S->lr[q];
        if (code == CIS_SYM_SEG_PAD) { padded = 1; continue; }
        if (padded || (q == S->block_piece[b] * CIS_SYM_SEG_PIECE && !(code & CIS_SYM_SEG_HEAD))) bad = 2;
        if (code & CIS_SYM_SEG_HEAD) {
          ++seg, ++heads;
          if (S->segcol[S->piece_heads[S->block_piece[b]] + seg] <= lastcol) bad = 3;
          lastcol = S->segcol[S->piece_heads[S->block_piece[b]] + seg];
        }
        const int r = (int)(code & CIS_SYM_SEG_PAD);
        const cis_int i = b * S->R + r;
        if (r >= S->R || seen[r] == heads || i >= U->rows || lastcol <= i) { bad = 4; continue; }
        seen[r] = heads;
        /* find (i, lastcol) in U */
        cis_int lo = U->rowptr[i], hi = U->rowptr[i + 1];
        while (lo < hi && U->colind[lo] != lastcol) ++lo;
        if (lo == hi || cis_get(U->val, U->dtype, lo) != cis_get(S->val, S->dtype, q)) bad = 5;
      }
    }
  }
  free(seen);
  CHECK(!bad, "%s: layout check %lld failed", what, (long long)bad);
  CHECK(heads == S->segments, "%s: %lld heads, %lld segments", what, (long long)heads, (long long)S->segments);
  for (cis_int i = 0; i < U->rows; ++i) {
    double d = U->rowptr[i + 1] > U->rowptr[i] && U->colind[U->rowptr[i]] == i
                   ? cis_get(U->val, U->dtype, U->rowptr[i]) : 0.0;
    if (cis_get(S->diag, S->dtype, i) != d) { CHECK(0, "%s: diagonal %lld", what, (long long)i); break; }
  }
}

/* block_bound[b] recomputed from U: per row w of block b, the sum of |U_wj|
 * (j > w) and of |U_iw| over the block's rows i < w. */
static void check_bounds(const cis_csr *U, const cis_sym_seg *S, const char *what) {
  double *sum = calloc((size_t)S->R, sizeof(double));
  cis_int bad = -1;
  for (cis_int b = 0; sum && b < S->blocks && bad < 0; ++b) {
    const cis_int i0 = b * S->R, i1 = i0 + S->R < U->rows ? i0 + S->R : U->rows;
    double most = 0.0;
    memset(sum, 0, (size_t)S->R * sizeof(double));
    for (cis_int i = i0; i < i1; ++i)
      for (cis_int k = U->rowptr[i]; k < U->rowptr[i + 1]; ++k) {
        const cis_idx j = U->colind[k];
        const double a = fabs(cis_get(U->val, U->dtype, k));
        if (j == i) continue;
        sum[i - i0] += a;
        if (j < i1) sum[j - i0] += a;
      }
    for (cis_int w = 0; w < i1 - i0; ++w) most = sum[w] > most ? sum[w] : most;
    if (!(fabs(S->block_bound[b] - most) <= 1e-12 * most)) bad = b;
  }
  CHECK(sum && bad < 0, "%s: block %lld bound %g", what, (long long)bad, bad >= 0 ? S->block_bound[bad] : 0.0);
  free(sum);
}

static void check_product(const cis_csr *U, const cis_sym_seg *S, double beta, const char *what) {
  const cis_dtype t = U->dtype;
  const size_t vs = cis_dtype_size(t), n = (size_t)U->rows;
  void *x = malloc(vs * n + 8), *y = malloc(vs * n + 8), *ref = malloc(vs * n + 8);
  test_fill_random(x, t, U->rows, 3);
  test_fill_random(y, t, U->rows, 4);
  if (beta == 0.0) test_fill_nan(y, t, U->rows);
  memcpy(ref, y, vs * n);
  CHECK_OK(cis_csr_symv(U, -0.75, x, beta, ref));
  CHECK_OK(cis_sym_seg_spmv(S, -0.75, x, beta, y));
  double e = test_rel_err(y, ref, t, U->rows);
  CHECK(e <= test_tol(t), "%s, beta %g: rel err %g against cis_csr_symv (NaN never passes)", what, beta, e);
  free(x); free(y); free(ref);
}

static void check_case(const char *name, cis_csr *U) {
  const cis_int Rs[] = {32, 64, 1000, 0};
  CHECK(U != NULL, "%s: no matrix", name);
  if (!U) return;
  for (size_t r = 0; r < sizeof Rs / sizeof *Rs; ++r) {
    cis_sym_seg *S = NULL;
    char what[200];
    const cis_int R = Rs[r] ? Rs[r] : cis_sym_seg_rows(U->rows, U->dtype);
    snprintf(what, sizeof what, "%s, %s, R %lld", name, cis_dtype_name(U->dtype), (long long)R);
    CHECK_OK(cis_sym_seg_build(U, R, &S));
    if (!S) continue;
    CHECK(S->R == R && S->blocks == (U->rows + R - 1) / R, "%s: %lld blocks", what, (long long)S->blocks);
    check_layout(U, S, what);
    check_bounds(U, S, what);
    check_product(U, S, 0.0, what);
    check_product(U, S, 0.5, what);
    cis_sym_seg_free(S);
  }
  cis_csr_free(U);
}

/* The build refusals() makes fail at every allocation. */
typedef struct seg_call { const cis_csr *U; cis_sym_seg *S; } seg_call;

static cis_status seg_run(void *ctx) {
  seg_call *c = ctx;
  const cis_status st = cis_sym_seg_build(c->U, 32, &c->S);
  CHECK(st == CIS_OK || !c->S, "%s with a layout made", cis_status_name(st));
  return st;
}

static void seg_undo(void *ctx) {
  seg_call *c = ctx;
  cis_sym_seg_free(c->S), c->S = NULL;
}

static void refusals(void) {
  const double d[9] = {2, 1, 0, 1, 3, 4, 0, 4, 5};
  cis_csr *A = test_csr_from_dense(3, 3, d, CIS_F64), *R = test_csr_from_dense(2, 3, d, CIS_F64), *U = NULL;
  cis_sym_seg *S = NULL;
  CHECK(cis_sym_seg_build(A, 64, &S) == CIS_ERR_INVALID && !S, "a full matrix accepted");
  A->flags |= CIS_FLAG_UPPER; /* entries below the diagonal now */
  CHECK(cis_sym_seg_build(A, 64, &S) == CIS_ERR_INVALID && !S, "lower entries accepted");
  CHECK(strstr(cis_last_error(), "below the diagonal") != NULL, "message: %s", cis_last_error());
  R->flags |= CIS_FLAG_UPPER;
  CHECK(cis_sym_seg_build(R, 64, &S) == CIS_ERR_INVALID && !S, "2x3 accepted");
  A->flags &= ~CIS_FLAG_UPPER;
  CHECK_OK(cis_csr_upper_symmetric(A, 0.0, &U));
  CHECK(cis_sym_seg_build(U, 16, &S) == CIS_ERR_INVALID && !S, "R = 16 accepted");
  CHECK(cis_sym_seg_build(U, CIS_SYM_SEG_MAX_R + 1, &S) == CIS_ERR_INVALID && !S, "R above the most accepted");
  if (U && U->nnz >= 3) { /* row 1: columns 1, 2 swapped */
    cis_idx c = U->colind[0];
    U->colind[0] = U->colind[1];
    U->colind[1] = c;
    CHECK(cis_sym_seg_build(U, 64, &S) == CIS_ERR_INVALID && !S, "unsorted columns accepted");
    CHECK(strstr(cis_last_error(), "out of order") || strstr(cis_last_error(), "below"), "message: %s",
          cis_last_error());
  }
  cis_csr_free(U);
  cis_csr_free(A);
  cis_csr_free(R);
  /* every allocation failure: CIS_ERR_ALLOC, nothing leaked, then success */
  U = upper_of("laplace3d:size=6", CIS_F64);
  seg_call c = {U, NULL};
  if (U) CHECK(test_alloc_every("cis_sym_seg_build", seg_run, seg_undo, &c) >= 8, "fewer than 8 allocations");
  cis_csr_free(U);
}

int main(void) {
  for (int t = 0; t < 2; ++t) {
    const cis_dtype dt = (cis_dtype)t;
    check_case("random 1000", upper_random(1000, 12, -1, 1, dt));
    check_case("empty rows 999", upper_random(999, 0, -1, 2, dt)); /* diagonal-free, nothing stored */
    check_case("one full row (n 3001)", upper_random(3001, 6, 0, 3, dt));
    check_case("last rows long (n 2050)", upper_random(2050, 40, 2000, 4, dt));
    check_case("ci:rows=4096", upper_of("ci:rows=4096,seed=1", dt));
    check_case("laplace3d:size=12", upper_of("laplace3d:size=12", dt));
    check_case("1x1", upper_random(1, 1, -1, 5, dt));
  }
  refusals();
  return test_summary("test_sym_seg");
}
