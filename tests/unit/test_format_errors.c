/* test_format_errors.c: bad parameters give one clear error each; padded
 * arrays larger than memory are refused with CIS_ERR_TOO_LARGE naming both
 * sizes; a failing allocation anywhere in a build gives CIS_ERR_ALLOC and
 * nothing else (leaks are caught by the sanitizer build). */
#include <string.h>
#include "core/internal.h"
#include "formats/format_util.h"
#include "format_cases.h"

static cis_csr *example(void) {
  static const double d[16] = {1, 0, 2, 3, 0, 4, 0, 0, 5, 6, 7, 0, 0, 0, 0, 8};
  return test_csr_from_dense(4, 4, d, CIS_F64);
}

/* Build `name` with p; expect status `want` and a message containing `word`. */
static void expect(const cis_csr *A, const char *name, cis_format_params p, cis_status want, const char *word,
                   const char *what) {
  cis_matrix *M = NULL;
  cis_status st = cis_matrix_create(A, name, &p, &M);
  CHECK(st == want, "%s %s: got %s (%s), expected %s", name, what, cis_status_name(st), cis_last_error(),
        cis_status_name(want));
  CHECK(st == CIS_OK || (M == NULL && strstr(cis_last_error(), word)), "%s %s: message '%s' lacks '%s'", name,
        what, cis_last_error(), word);
  cis_matrix_free(M);
}

static void test_parameter_errors(void) {
  cis_csr *A = example();
  cis_format_params p = cis_format_params_default();
  const char *sliced[] = {"sell", "sellr", "sellcs", "sell16"};
  for (int k = 0; k < 4; ++k) {
    p = cis_format_params_default();
    p.slice = 0;
    expect(A, sliced[k], p, CIS_ERR_INVALID, "height", "slice 0");
    p.slice = -3;
    expect(A, sliced[k], p, CIS_ERR_INVALID, "-3", "slice -3");
    p.slice = (cis_int)1 << 40;
    expect(A, sliced[k], p, CIS_ERR_INVALID, "height", "slice 2^40");
  }
  p = cis_format_params_default();
  p.sigma = 0;
  expect(A, "sellcs", p, CIS_ERR_INVALID, "sigma", "sigma 0");
  p.sigma = -32;
  expect(A, "sellcs", p, CIS_ERR_INVALID, "sigma", "sigma -32");
  p.sigma = 48; /* C = 32 */
  expect(A, "sellcs", p, CIS_ERR_INVALID, "multiple of C", "sigma 48");
  p.sigma = 48;
  expect(A, "sell", p, CIS_OK, "", "sell ignores sigma");
  p = cis_format_params_default();
  const cis_int bad_z[] = {3, -2, 131072, 96};
  for (int k = 0; k < 4; ++k) {
    p.block = bad_z[k];
    expect(A, "csb", p, CIS_ERR_INVALID, "power of two", "bad block");
  }
  p.block = 1;
  expect(A, "csb", p, CIS_OK, "", "z = 1");
  p = cis_format_params_default();
  p.boundary_mode = CIS_BOUNDARY_COLUMN;
  p.boundary = 5; /* cols = 4 */
  expect(A, "hyb", p, CIS_ERR_INVALID, "beyond the last column", "column boundary past cols");
  p.boundary = 4;
  expect(A, "hyb", p, CIS_OK, "", "column boundary = cols");
  p.boundary_mode = (cis_boundary_mode)3;
  expect(A, "hyb", p, CIS_ERR_INVALID, "boundary mode", "unknown mode");
  p = cis_format_params_default();
  p.dtype = (cis_dtype)9;
  expect(A, "ell", p, CIS_ERR_INVALID, "value type", "unknown dtype");
  expect(A, "ellpack", cis_format_params_default(), CIS_ERR_NOT_FOUND, "unknown format", "unknown name");
  cis_csr_free(A);
}

/* A tall matrix (4 million rows, 2^31-1 columns) whose only nonzeros are one
 * dense row of 100,000 entries: ELLPACK would need 4e6 x 1e5 x 12 bytes
 * (4.4 TiB). */
static void test_too_large(void) {
  const cis_int rows = 4000000, wide = 100000;
  cis_csr *A = NULL;
  if (cis_phys_memory() <= 0) {
    printf("physical memory unknown: TOO_LARGE checks skipped\n");
    return;
  }
  CHECK_OK(cis_csr_alloc(rows, CIS_IDX_MAX, wide, CIS_F64, &A));
  if (!A) return;
  for (cis_int k = 0; k < wide; ++k) {
    A->colind[k] = (cis_idx)(k * 20000);
    ((double *)A->val)[k] = 1.0;
  }
  for (cis_int i = 1; i <= rows; ++i) A->rowptr[i] = wide; /* row 0 holds everything */
  cis_format_params p = cis_format_params_default();
  expect(A, "ell", p, CIS_ERR_TOO_LARGE, "GiB, more than the", "one dense row");
  CHECK(strstr(cis_last_error(), "4000000 x 100000") != NULL, "message lacks the sizes: %s", cis_last_error());
  expect(A, "ellr", p, CIS_ERR_TOO_LARGE, "GiB", "one dense row");
  p.boundary = wide;
  expect(A, "hyb", p, CIS_ERR_TOO_LARGE, "GiB", "count boundary = dense row");
  p = cis_format_params_default();
  p.slice = (cis_int)1 << 30;
  expect(A, "sell", p, CIS_ERR_TOO_LARGE, "GiB", "slice 2^30");
  p.block = 1;
  expect(A, "csb", p, CIS_ERR_TOO_LARGE, "GiB", "z = 1 on 4e6 x 2^31");
  cis_csr_free(A);
}

/* The size check itself: 64-bit overflow, more than memory, fits. */
static void test_size_check(void) {
  cis_int total = -1;
  CHECK(cis_fmt_check_size("x", "slots", INT64_MAX / 2, 3, 12, &total) == CIS_ERR_OVERFLOW &&
            strstr(cis_last_error(), "overflow"), "a*b overflow: %s", cis_last_error());
  CHECK(cis_fmt_check_size("x", "slots", (cis_int)1 << 31, (cis_int)1 << 31, 12, &total) == CIS_ERR_OVERFLOW,
        "a*b*unit overflow: %s", cis_last_error());
  if (cis_phys_memory() > 0)
    CHECK(cis_fmt_check_size("x", "slots", (cis_int)1 << 30, (cis_int)1 << 20, 12, &total) == CIS_ERR_TOO_LARGE &&
              strstr(cis_last_error(), "12582912.0 GiB"), "too large: %s", cis_last_error());
  CHECK(cis_fmt_check_size("x", "slots", 10, 7, 12, &total) == CIS_OK && total == 70, "10 x 7 slots: %lld",
        (long long)total);
}

/* Make the n-th allocation of each build fail, for every n: CIS_ERR_ALLOC
 * each time, then success (test_alloc_every). */
static void test_alloc_failures(void) {
  cis_csr *A = fc_build(&fc_cases[6], 5, CIS_F64); /* long and short rows mixed */
  const int nf = cis_format_count();
  for (int f = 0; f < nf && A; ++f)
    for (int mode = 0; mode < 2; ++mode) {
      const char *name = cis_format_name(f);
      cis_format_params p = cis_format_params_default();
      p.boundary_mode = mode ? CIS_BOUNDARY_COLUMN : CIS_BOUNDARY_COUNT;
      if (mode && strcmp(name, "hyb")) continue;
      if (!strcmp(name, "sellcs")) p.sigma = 64;
      test_alloc_every_build(A, name, &p);
    }
  cis_csr_free(A);
}

/* cis_matrix_hyb_split: the hyb split as built; other formats and NULL refused. */
static void test_hyb_split(void) {
  cis_csr *A = example();
  cis_matrix *H = NULL, *C = NULL;
  cis_format_params p = cis_format_params_default();
  cis_hyb_split s = {-7, CIS_BOUNDARY_COLUMN, -7, -7};
  p.boundary = 2;
  CHECK_OK(cis_matrix_create(A, "hyb", &p, &H));
  CHECK_OK(cis_matrix_create(A, "csr", NULL, &C));
  CHECK_OK(cis_matrix_hyb_split(H, &s));
  /* rows of 3, 1, 3, 1 nonzeros, first 2 of each in ELLPACK: 2 left to CSR */
  CHECK(s.boundary == 2 && s.mode == CIS_BOUNDARY_COUNT && s.width == 2 && s.csr_nnz == 2,
        "hyb split boundary %lld mode %d width %lld csr_nnz %lld", (long long)s.boundary, (int)s.mode,
        (long long)s.width, (long long)s.csr_nnz);
  CHECK(cis_matrix_hyb_split(C, &s) == CIS_ERR_INVALID && strstr(cis_last_error(), "csr"), "csr split accepted");
  CHECK(cis_matrix_hyb_split(NULL, &s) == CIS_ERR_INVALID, "NULL matrix accepted");
  CHECK(cis_matrix_hyb_split(H, NULL) == CIS_ERR_INVALID, "NULL output accepted");
  cis_matrix_free(H);
  cis_matrix_free(C);
  cis_csr_free(A);
}

int main(void) {
  test_hyb_split();
  test_parameter_errors();
  test_too_large();
  test_size_check();
  test_alloc_failures();
  return test_summary("test_format_errors");
}
