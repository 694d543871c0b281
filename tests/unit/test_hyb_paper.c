/* test_hyb_paper.c: the hybrid format on a paper-like CI matrix (Mahmoud et
 * al. 2018, §4.1, Tables 3-4): 32,768 x 32,768, each row with exactly 655
 * nonzeros in the first 3,277 columns (the Reference region) and 170-420
 * more after them (the Expansion Space region). Count mode with BOUNDARY =
 * 655 and column mode with the chosen BOUNDARY (3,277) must give the same
 * split, width 655 and the paper's storage equation in double; count mode
 * with the chosen BOUNDARY (minimum row length) has no padding at all. */
#include <string.h>
#include "formats/format_types.h"
#include "format_cases.h"

#define ROWS 32768
#define REF_COLS 3277
#define REF_PER_ROW 655

/* Reference part by selection sampling; the expansion part one column per
 * stratum of [REF_COLS, ROWS), 170..420 strata per row: distinct and sorted. */
static cis_csr *paper_matrix(void) {
  uint64_t s = 2018;
  cis_int *extra = malloc(ROWS * sizeof *extra), nnz = 0;
  cis_csr *A = NULL;
  for (cis_int i = 0; i < ROWS; ++i) nnz += REF_PER_ROW + (extra[i] = 170 + (cis_int)(fc_next(&s) % 251));
  if (cis_csr_alloc(ROWS, ROWS, nnz, CIS_F64, &A) != CIS_OK) goto done;
  for (cis_int i = 0, at = 0; i < ROWS; ++i) {
    cis_int need = REF_PER_ROW;
    for (cis_int j = 0; j < REF_COLS && need > 0; ++j)
      if ((cis_int)(fc_next(&s) % (uint64_t)(REF_COLS - j)) < need) A->colind[at++] = (cis_idx)j, need--;
    for (cis_int k = 0; k < extra[i]; ++k) {
      const cis_int lo = REF_COLS + k * (ROWS - REF_COLS) / extra[i], hi = REF_COLS + (k + 1) * (ROWS - REF_COLS) / extra[i];
      A->colind[at++] = (cis_idx)(lo + (cis_int)(fc_next(&s) % (uint64_t)(hi - lo)));
    }
    A->rowptr[i + 1] = at;
  }
  test_fill_random(A->val, CIS_F64, nnz, 3);
done:
  free(extra);
  return A;
}

static cis_matrix *build(const cis_csr *A, cis_boundary_mode mode, cis_int boundary) {
  cis_format_params p = cis_format_params_default();
  cis_matrix *M = NULL;
  p.boundary_mode = mode;
  p.boundary = boundary;
  CHECK_OK(cis_matrix_create(A, "hyb", &p, &M));
  return M;
}

static void check_spmv(const cis_csr *A, const cis_matrix *M, const char *label) {
  double *x = malloc(ROWS * sizeof *x), *y = malloc(ROWS * sizeof *y), *yref = malloc(ROWS * sizeof *y);
  test_fill_random(x, CIS_F64, ROWS, 4);
  test_fill_nan(y, CIS_F64, ROWS);
  CHECK_OK(cis_csr_spmv(A, 1.0, x, 0.0, yref));
  CHECK_OK(cis_matrix_spmv(M, 1.0, x, 0.0, y));
  double err = test_rel_err(y, yref, CIS_F64, ROWS);
  CHECK(err <= 1e-12, "%s: SpMV rel err %.3g", label, err);
  free(x); free(y); free(yref);
}

int main(void) {
  cis_csr *A = paper_matrix();
  CHECK(A != NULL, "cannot build the paper-like matrix");
  if (!A) return test_summary("test_hyb_paper");
  const cis_int nnz = A->nnz, paper = cis_paper_bytes_hyb(ROWS, REF_PER_ROW, nnz - ROWS * REF_PER_ROW);

  cis_matrix *C = build(A, CIS_BOUNDARY_COUNT, REF_PER_ROW);
  CHECK(cis_hyb_choose_boundary(A, CIS_BOUNDARY_COLUMN) == REF_COLS, "column mode chooses %lld, expected %d",
        (long long)cis_hyb_choose_boundary(A, CIS_BOUNDARY_COLUMN), REF_COLS);
  cis_matrix *K = build(A, CIS_BOUNDARY_COLUMN, -1);
  if (C && K) {
    const cis_fmt_hyb *c = cis_matrix_impl(C), *k = cis_matrix_impl(K);
    CHECK(c->width == REF_PER_ROW && k->width == REF_PER_ROW, "widths %lld %lld, expected 655", (long long)c->width,
          (long long)k->width);
    CHECK(cis_matrix_bytes(C) == paper && cis_matrix_bytes(K) == paper, "bytes %lld / %lld, paper %lld",
          (long long)cis_matrix_bytes(C), (long long)cis_matrix_bytes(K), (long long)paper);
    CHECK(!memcmp(c->ell_col, k->ell_col, (size_t)ROWS * REF_PER_ROW * sizeof(cis_idx)) &&
              !memcmp(c->csr_col, k->csr_col, (size_t)c->csr_nnz * sizeof(cis_idx)),
          "count and column readings split the rows differently");
    check_spmv(A, C, "count B=655");
    check_spmv(A, K, "column B=chosen");
  }
  cis_matrix_free(C);
  cis_matrix_free(K);

  /* count mode, chosen: BOUNDARY = minimum row length, no padding */
  cis_matrix *Z = build(A, CIS_BOUNDARY_COUNT, -1);
  if (Z) {
    const cis_fmt_hyb *z = cis_matrix_impl(Z);
    cis_int minrow = nnz;
    for (cis_int i = 0; i < ROWS; ++i) minrow = A->rowptr[i + 1] - A->rowptr[i] < minrow ? A->rowptr[i + 1] - A->rowptr[i] : minrow;
    CHECK(z->boundary == minrow && z->width == minrow && minrow >= REF_PER_ROW + 170, "count chosen %lld, min row %lld",
          (long long)z->boundary, (long long)minrow);
    CHECK(cis_matrix_bytes(Z) == 3 * ROWS * 4 + nnz * 12 &&
              cis_matrix_bytes(Z) == cis_paper_bytes_hyb(ROWS, minrow, nnz - ROWS * minrow),
          "zero-padding bytes %lld", (long long)cis_matrix_bytes(Z));
    check_spmv(A, Z, "count B=chosen");
  }
  cis_matrix_free(Z);
  cis_csr_free(A);
  return test_summary("test_hyb_paper");
}
