/* test_csr5.c: the CSR5 layout on a hand-derived tile, the CPU CSR5 SpMV
 * (which walks tiles, bit flags, segmented sums and calibration) against the
 * CSR reference on awkward and random matrices in both precisions and several
 * sigma, the byte formula, bad sigma, and allocation failure at every step. */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "formats/csr5.h"
#include "csr5_cases.h"
#include "test_util.h"

/* 8 x 64, row lengths 0 3 0 0 60 4 1 0 (nnz 68): at sigma 2 one tile of 64
 * entries (rows 1, 4 and the start of 5; empty rows 0, 2, 3 inside it) and a
 * tail of 4 entries (rest of row 5, row 6, trailing empty row 7).
 * Values: entry k holds k + 1. */
static cis_csr *hand_matrix(cis_dtype t) {
  static const cis_int len[8] = {0, 3, 0, 0, 60, 4, 1, 0};
  static const cis_idx first_col[8] = {0, 0, 0, 0, 0, 10, 63, 0};
  cis_csr *A = NULL;
  if (cis_csr_alloc(8, 64, 68, t, &A) != CIS_OK) return NULL;
  cis_int k = 0;
  for (int r = 0; r < 8; ++r) {
    for (cis_int j = 0; j < len[r]; ++j, ++k) {
      A->colind[k] = first_col[r] + (cis_idx)j;
      cis_set(A->val, t, k, (double)(k + 1));
    }
    A->rowptr[r + 1] = k;
  }
  return A;
}

static cis_matrix *build(const cis_csr *A, cis_dtype t, cis_int sigma) {
  cis_format_params p = cis_format_params_default();
  cis_matrix *M = NULL;
  p.dtype = t;
  p.csr5_sigma = sigma;
  CHECK_OK(cis_matrix_create(A, "csr5", &p, &M));
  return M;
}

static void test_hand_tile_layout(void) {
  cis_csr *A = hand_matrix(CIS_F64);
  cis_matrix *M = A ? build(A, CIS_F64, 2) : NULL;
  if (!M) { CHECK(0, "hand matrix not built"); cis_csr_free(A); return; }
  const cis_fmt_csr5 *F = cis_matrix_impl(M);

  CHECK(F->sigma == 2 && F->ntiles == 1 && F->tail_start == 64, "sigma %lld tiles %lld tail %lld",
        (long long)F->sigma, (long long)F->ntiles, (long long)F->tail_start);
  CHECK(F->tile_ptr[0] == (CIS_CSR5_EMPTY_FLAG | 1u), "tile_ptr[0] = %#x, expected row 1 + empty flag", F->tile_ptr[0]);
  CHECK(F->tile_ptr[1] == 5u, "tile_ptr[1] (tail first row) = %u, expected 5", F->tile_ptr[1]);
  /* row starts: row 1 at position 0 (lane 0, i 0), row 4 at 3 (lane 1, i 1), row 5 at 63 (lane 31, i 1) */
  for (int lane = 0; lane < 32; ++lane) {
    uint32_t bits = lane == 0 ? 1u : (lane == 1 || lane == 31) ? 2u : 0u;
    unsigned yoff = lane < 2 ? 0u : 1u;
    unsigned soff = (lane == 0 || lane == 31) ? 0u : 30u - (unsigned)lane; /* start-less lanes up to 30 */
    CHECK(F->bit_flag[lane] == bits, "bit_flag[%d] = %#x, expected %#x", lane, F->bit_flag[lane], bits);
    CHECK(F->y_offset[lane] == yoff, "y_offset[%d] = %u, expected %u", lane, F->y_offset[lane], yoff);
    CHECK(F->seg_offset[lane] == soff, "seg_offset[%d] = %u, expected %u", lane, F->seg_offset[lane], soff);
  }
  CHECK(F->n_empty_offset == 3 && cis_off_get(&F->empty_ptr, 0) == 0 && cis_off_get(&F->empty_ptr, 1) == 3,
        "empty_ptr / count wrong (%lld)", (long long)F->n_empty_offset);
  if (F->n_empty_offset == 3)
    CHECK(F->empty_offset[0] == 1 && F->empty_offset[1] == 4 && F->empty_offset[2] == 5,
          "empty_offset %d %d %d, expected 1 4 5", F->empty_offset[0], F->empty_offset[1], F->empty_offset[2]);
  /* slot i*32 + lane holds CSR entry lane*2 + i; entry k has value k + 1 */
  const struct { int slot, col; double val; } slots[] = {
      {0, 0, 1}, {1, 2, 3}, {2, 1, 5}, {31, 59, 63}, {32, 1, 2}, {33, 0, 4}, {63, 10, 64},
      {64, 11, 65}, {66, 13, 67}, {67, 63, 68}};
  for (size_t s = 0; s < sizeof slots / sizeof *slots; ++s)
    CHECK(F->col[slots[s].slot] == slots[s].col && ((double *)F->val)[slots[s].slot] == slots[s].val,
          "slot %d: col %d val %g, expected %d %g", slots[s].slot, F->col[slots[s].slot],
          ((double *)F->val)[slots[s].slot], slots[s].col, slots[s].val);
  /* rowptr 9*4 + tile_ptr 2*4 + descriptor 32*7 + empty_ptr 2*4 + empty_offset 3*4 + 68*(4+8) */
  CHECK(cis_matrix_bytes(M) == 1104, "bytes %lld, expected 1104", (long long)cis_matrix_bytes(M));

  char text[4096] = "";
  FILE *f = tmpfile();
  CHECK(f != NULL, "tmpfile");
  if (f) {
    CHECK_OK(cis_matrix_dump(M, f));
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
  }
  CHECK(strstr(text, "\nRowPtr 0 0 3 3 3 63 67 68 68\n"), "dump RowPtr line missing");
  CHECK(strstr(text, "\nTilePtr 1* 5\n"), "dump TilePtr line missing");
  CHECK(strstr(text, "\nEmptyPtr 0 3\nEmptyOffset 1 4 5\n"), "dump EmptyPtr/EmptyOffset lines missing");
  CHECK(strstr(text, "\nBitFlag 1 2 0 "), "dump BitFlag line missing");
  cis_matrix_free(M);
  cis_csr_free(A);
}

static void test_hand_tile_spmv(cis_dtype t) {
  cis_csr *A = hand_matrix(t);
  cis_matrix *M = A ? build(A, t, 2) : NULL;
  double xd[64], y[8], yref[8];
  float xf[64], yf[8], yreff[8];
  for (int j = 0; j < 64; ++j) xf[j] = (float)(xd[j] = 1.0 + (j % 5));
  void *x = t == CIS_F64 ? (void *)xd : (void *)xf, *yv = t == CIS_F64 ? (void *)y : (void *)yf,
       *yr = t == CIS_F64 ? (void *)yref : (void *)yreff;
  if (!M) { CHECK(0, "hand matrix not built"); cis_csr_free(A); return; }

  test_fill_nan(yv, t, 8);
  CHECK_OK(cis_matrix_spmv(M, 1.0, x, 0.0, yv));
  CHECK_OK(cis_csr_spmv(A, 1.0, x, 0.0, yr));
  CHECK(test_rel_err(yv, yr, t, 8) <= test_tol(t), "%s hand tile: rel err %g", cis_dtype_name(t),
        test_rel_err(yv, yr, t, 8));
  static const int empty_rows[] = {0, 2, 3, 7};
  for (int e = 0; e < 4; ++e)
    CHECK(cis_get(yv, t, empty_rows[e]) == 0.0, "empty row %d: %g, expected 0", empty_rows[e],
          cis_get(yv, t, empty_rows[e]));

  for (int r = 0; r < 8; ++r) { cis_set(yv, t, r, r - 3.0); cis_set(yr, t, r, r - 3.0); }
  CHECK_OK(cis_matrix_spmv(M, -0.5, x, 2.0, yv));
  CHECK_OK(cis_csr_spmv(A, -0.5, x, 2.0, yr));
  CHECK(test_rel_err(yv, yr, t, 8) <= test_tol(t), "%s hand tile beta: rel err %g", cis_dtype_name(t),
        test_rel_err(yv, yr, t, 8));
  cis_matrix_free(M);
  cis_csr_free(A);
}

/* CSR5 CPU SpMV equals CSR SpMV for (alpha, beta) = (1, 0) on a NaN-poisoned
 * y and (-0.5, 2) on a random y. */
static void check_against_csr(const cis_csr *A, const cis_matrix *M, cis_dtype t, const char *what) {
  size_t vs = cis_dtype_size(t);
  void *x = malloc((size_t)(A->cols + 1) * vs), *y = malloc((size_t)(A->rows + 1) * vs),
       *yref = malloc((size_t)(A->rows + 1) * vs);
  if (!x || !y || !yref) { CHECK(0, "out of memory"); free(x); free(y); free(yref); return; }
  test_fill_random(x, t, A->cols, 11);
  test_fill_nan(y, t, A->rows);
  CHECK_OK(cis_matrix_spmv(M, 1.0, x, 0.0, y));
  CHECK_OK(cis_csr_spmv(A, 1.0, x, 0.0, yref));
  double e = test_rel_err(y, yref, t, A->rows);
  CHECK(e <= test_tol(t), "%s: y = A*x rel err %g", what, e);

  test_fill_random(y, t, A->rows, 12);
  memcpy(yref, y, (size_t)A->rows * vs);
  CHECK_OK(cis_matrix_spmv(M, -0.5, x, 2.0, y));
  CHECK_OK(cis_csr_spmv(A, -0.5, x, 2.0, yref));
  e = test_rel_err(y, yref, t, A->rows);
  CHECK(e <= test_tol(t), "%s: y = -0.5*A*x + 2*y rel err %g", what, e);
  free(x); free(y); free(yref);
}

static void test_cases_against_csr(cis_dtype t) {
  static const cis_int sigmas[] = {0, 1, 2, 4, 7, 16, 32};
  for (int c = 0; c < CSR5_NCASES; ++c) {
    cis_csr *A = csr5_case_matrix(&CSR5_CASES[c], t, 100 + (uint64_t)c);
    CHECK(A != NULL, "case %s not generated", CSR5_CASES[c].name);
    if (!A) continue;
    for (size_t s = 0; s < sizeof sigmas / sizeof *sigmas; ++s) {
      cis_matrix *M = build(A, t, sigmas[s]);
      if (!M) continue;
      const cis_fmt_csr5 *F = cis_matrix_impl(M);
      char what[160];
      snprintf(what, sizeof what, "%s, %s, sigma %lld (asked %lld), %lld tiles", CSR5_CASES[c].name,
               cis_dtype_name(t), (long long)F->sigma, (long long)sigmas[s], (long long)F->ntiles);
      CHECK(sigmas[s] == 0 || F->sigma == sigmas[s], "%s: sigma not honoured", what);
      CHECK(F->tail_start == F->ntiles * 32 * F->sigma && A->nnz - F->tail_start < 32 * F->sigma,
            "%s: tail_start %lld", what, (long long)F->tail_start);
      check_against_csr(A, M, t, what);
      cis_matrix_free(M);
    }
    cis_csr_free(A);
  }
}

static void test_wide_offsets(cis_dtype t) {
  /* the 64-bit rowptr/empty_ptr path (nnz >= 2^32) on the empty-run case */
  cis_csr *A = csr5_case_matrix(&CSR5_CASES[3], t, 77);
  cis_matrix *M = A ? build(A, t, 4) : NULL;
  if (M) {
    cis_fmt_csr5 *F = (cis_fmt_csr5 *)cis_matrix_impl(M);
    cis_int narrow = cis_matrix_bytes(M);
    CHECK(csr5_widen_offsets(F), "widen: out of memory");
    CHECK(cis_matrix_bytes(M) == narrow + 4 * (A->rows + 1) + 4 * (F->ntiles + 1), "wide bytes %lld",
          (long long)cis_matrix_bytes(M));
    check_against_csr(A, M, t, t == CIS_F64 ? "64-bit offsets, double" : "64-bit offsets, float");
  }
  cis_matrix_free(M);
  cis_csr_free(A);
}

static void test_sigma_choice_and_limits(void) {
  CHECK(cis_csr5_choose_sigma(100, 300) == 4, "avg 3 -> 4");
  CHECK(cis_csr5_choose_sigma(100, 1000) == 10, "avg 10 -> 10");
  CHECK(cis_csr5_choose_sigma(100, 10000) == 32, "avg 100 -> 32");
  CHECK(cis_csr5_choose_sigma(100, 30000) == 6, "avg 300 -> 6");
  CHECK(cis_csr5_choose_sigma(0, 0) == 4, "no rows -> 4");

  cis_csr *A = hand_matrix(CIS_F64);
  cis_format_params p = cis_format_params_default();
  cis_matrix *M = NULL;
  p.csr5_sigma = 33;
  CHECK(cis_matrix_create(A, "csr5", &p, &M) == CIS_ERR_INVALID && M == NULL, "sigma 33 accepted");
  CHECK(strstr(cis_last_error(), "sigma 33") != NULL, "message does not name sigma: %s", cis_last_error());
  p.csr5_sigma = -1; /* < 0 = choose: avg 8 per row -> 8 */
  CHECK_OK(cis_matrix_create(A, "csr5", &p, &M));
  if (M) CHECK(((const cis_fmt_csr5 *)cis_matrix_impl(M))->sigma == 8, "sigma -1 did not choose 8");
  cis_matrix_free(M);
  cis_csr_free(A);
}

static void test_no_rows(void) {
  /* 0 x 3: no tiles, no tail rows; SpMV succeeds and touches nothing */
  cis_csr *A = NULL;
  CHECK_OK(cis_csr_alloc(0, 3, 0, CIS_F64, &A));
  cis_matrix *M = A ? build(A, CIS_F64, 0) : NULL;
  double x[3] = {1, 2, 3}, y[1] = {NAN};
  if (M) {
    const cis_fmt_csr5 *F = cis_matrix_impl(M);
    CHECK(F->ntiles == 0 && cis_csr5_tile_row(F, 0) == 0, "0 rows: %lld tiles", (long long)F->ntiles);
    CHECK(cis_matrix_bytes(M) == 4 + 4 + 4, "0 rows: bytes %lld", (long long)cis_matrix_bytes(M));
    CHECK_OK(cis_matrix_spmv(M, 1.0, x, 0.0, y));
    CHECK(isnan(y[0]), "0 rows: y beyond the matrix written");
  }
  cis_matrix_free(M);
  cis_csr_free(A);
}

static void test_bytes_formula_float(void) {
  cis_csr *A = hand_matrix(CIS_F32);
  cis_matrix *M = A ? build(A, CIS_F32, 2) : NULL;
  if (M) CHECK(cis_matrix_bytes(M) == 1104 - 68 * 4, "float bytes %lld", (long long)cis_matrix_bytes(M));
  cis_matrix_free(M);
  cis_csr_free(A);
}

typedef struct csr5_call { const cis_csr *A; const double *x; double *y; cis_matrix *M; } csr5_call;

static cis_status csr5_run(void *ctx) {
  csr5_call *c = ctx;
  cis_format_params p = cis_format_params_default();
  p.csr5_sigma = 4;
  cis_status st = cis_matrix_create(c->A, "csr5", &p, &c->M);
  if (st == CIS_OK) st = cis_matrix_spmv(c->M, 1.0, c->x, 0.0, c->y);
  CHECK(st == CIS_OK || strlen(cis_last_error()) > 0, "%s: no message", cis_status_name(st));
  return st;
}

static void csr5_undo(void *ctx) {
  csr5_call *c = ctx;
  cis_matrix_free(c->M), c->M = NULL;
}

static void test_alloc_failure_every_n(void) {
  /* build + SpMV with the n-th allocation failing, for every n: CIS_ERR_ALLOC, then success */
  cis_csr *A = csr5_case_matrix(&CSR5_CASES[3], CIS_F64, 5);
  double *x = calloc((size_t)A->cols, sizeof *x), *y = calloc((size_t)A->rows, sizeof *y);
  csr5_call c = {A, x, y, NULL};
  test_alloc_every("csr5 build + SpMV", csr5_run, csr5_undo, &c);
  free(x); free(y);
  cis_csr_free(A);
}

int main(void) {
  test_hand_tile_layout();
  test_hand_tile_spmv(CIS_F64);
  test_hand_tile_spmv(CIS_F32);
  test_cases_against_csr(CIS_F64);
  test_cases_against_csr(CIS_F32);
  test_wide_offsets(CIS_F64);
  test_wide_offsets(CIS_F32);
  test_sigma_choice_and_limits();
  test_no_rows();
  test_bytes_formula_float();
  test_alloc_failure_every_n();
  return test_summary("test_csr5");
}
