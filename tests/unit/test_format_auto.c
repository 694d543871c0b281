/* test_format_auto.c: cis_format_auto's rule (src/formats/auto.c) on one
 * matrix of each kind -- small (csr), equal rows (sell), lengths that sorting
 * evens out (sellcs), power-law rows (hyb), an empty matrix (csr) -- the statistics it
 * reports, that its choice builds, and its errors. */
#include <string.h>
#include "test_util.h"

static void expect_choice(const char *spec, const char *format, const char *kernel) {
  cis_csr *A = NULL;
  cis_format_choice ch;
  cis_matrix *M = NULL;
  CHECK_OK(cis_generate(spec, CIS_F64, &A));
  if (!A) return;
  CHECK_OK(cis_format_auto(A, CIS_F32, &ch));
  CHECK(!strcmp(ch.format, format) && !strcmp(ch.kernel, kernel), "%s: chose %s/%s (%s), expected %s/%s",
        spec, ch.format, ch.kernel, ch.reason, format, kernel);
  CHECK(ch.params.dtype == CIS_F32, "%s: dtype %d", spec, (int)ch.params.dtype);
  CHECK(ch.sell_fill >= 1.0 && ch.sellcs_fill >= 1.0 && ch.sellcs_fill <= ch.sell_fill + 1e-12,
        "%s: fills %g %g", spec, ch.sell_fill, ch.sellcs_fill);
  CHECK(ch.mean_row > 0 && ch.max_row >= ch.mean_row && strlen(ch.reason) > 0, "%s: stats", spec);
  CHECK_OK(cis_matrix_create(A, ch.format, &ch.params, &M));
  cis_matrix_free(M);
  cis_csr_free(A);
}

int main(void) {
  cis_format_choice ch;
  cis_csr *A = NULL;

  expect_choice("laplace3d:size=20", "csr", "csr-vector"); /* 53,600 nonzeros: small */
  expect_choice("laplace3d:size=60", "sell", "sell");
  expect_choice("ci:rows=2048,seed=1", "sellcs", "sellcs");
  expect_choice("powerlaw:rows=200000,seed=3", "hyb", "hyb");

  static const double zero[12] = {0};
  A = test_csr_from_dense(3, 4, zero, CIS_F64);
  CHECK(A != NULL, "empty 3x4 matrix");
  if (A) {
    CHECK_OK(cis_format_auto(A, CIS_F64, &ch));
    CHECK(!strcmp(ch.format, "csr"), "empty matrix: %s", ch.format);
    CHECK(cis_format_auto(A, (cis_dtype)7, &ch) == CIS_ERR_INVALID, "bad dtype accepted");
    CHECK(cis_format_auto(A, CIS_F64, NULL) == CIS_ERR_INVALID, "NULL output accepted");
  }
  CHECK(cis_format_auto(NULL, CIS_F64, &ch) == CIS_ERR_INVALID, "NULL matrix accepted");
  cis_csr_free(A);
  return test_summary("test_format_auto");
}
