/* test_format_auto.c: cis_format_auto's rule (src/formats/auto.c) on one
 * matrix of each kind -- small (csr); columns less than 64K apart, equal rows
 * or rows that sorting evens out (sell16); columns further apart, equal rows
 * (sell) or random lengths (sellcs); power-law rows (csr5); an empty matrix
 * (csr) -- the statistics it reports, that its choice builds, and its
 * errors; and the split SELL kernel's threads per row
 * (cis_sell_threads_per_row) on the shapes its rule names.
 * The CPU rule (cis_format_auto_cpu): csr on the same matrices (where the GPU
 * rule picks sell16, sell, sellcs or csr5), csr5 when one 256-row chunk holds
 * more than 2 nnz / threads, csr again on one thread; its errors. */
#include <string.h>
#include "formats/format_util.h"
#include "test_util.h"

/* P for rows (padded) of `width` slots each, slices of 32, 132 SMs. */
static void expect_p(cis_int rows, double width, int want, const char *what) {
  const int p = cis_sell_threads_per_row(rows, 32, (cis_int)(width * (double)rows), 132);
  CHECK(p == want, "%s: %d threads per row, expected %d", what, p, want);
}

/* rows x 32 with row i's columns (i * 7919 + k * 250007) mod cols, k < 32:
 * equal lengths, columns about cols / 32 apart. */
static cis_csr *spread_rows(cis_int rows, cis_int cols) {
  cis_csr *A = NULL;
  if (cis_csr_alloc(rows, cols, rows * 32, CIS_F64, &A) != CIS_OK) return NULL;
  double *v = A->val;
  A->rowptr[0] = 0;
  for (cis_int i = 0; i < rows; ++i) {
    cis_idx c[32];
    for (int k = 0; k < 32; ++k) c[k] = (cis_idx)((i * 7919 + (cis_int)k * 250007) % cols);
    for (int k = 1; k < 32; ++k) /* sorted columns, as a CSR needs */
      for (int m = k; m > 0 && c[m - 1] > c[m]; --m) {
        const cis_idx t = c[m];
        c[m] = c[m - 1];
        c[m - 1] = t;
      }
    for (int k = 0; k < 32; ++k) {
      A->colind[i * 32 + k] = c[k];
      v[i * 32 + k] = 1.0 + k;
    }
    A->rowptr[i + 1] = (i + 1) * 32;
  }
  return A;
}

static void expect_choice_of(cis_csr *A, const char *spec, const char *format, const char *kernel) {
  cis_format_choice ch;
  cis_matrix *M = NULL;
  CHECK(A != NULL, "%s: no matrix", spec);
  if (!A) return;
  CHECK_OK(cis_format_auto(A, CIS_F32, &ch));
  CHECK(!strcmp(ch.format, format) && !strcmp(ch.kernel, kernel), "%s: chose %s/%s (%s), expected %s/%s",
        spec, ch.format, ch.kernel, ch.reason, format, kernel);
  CHECK(ch.params.dtype == CIS_F32, "%s: dtype %d", spec, (int)ch.params.dtype);
  CHECK(ch.sell_fill >= 1.0 && ch.sellcs_fill >= 1.0 && ch.sellcs_fill <= ch.sell_fill + 1e-12,
        "%s: fills %g %g", spec, ch.sell_fill, ch.sellcs_fill);
  CHECK(ch.mean_row > 0 && ch.max_row >= ch.mean_row && strlen(ch.reason) > 0, "%s: stats", spec);
  const int sliced = !strcmp(format, "sell") || !strcmp(format, "sellcs") || !strcmp(format, "sell16");
  CHECK(sliced ? ch.sell16_ratio > 0 && (ch.sell16_ratio <= 0.85 && ch.mean_row >= 32) == !strcmp(format, "sell16") &&
                     ch.sell16_escaped >= 0 && ch.sell16_escaped <= 1
               : ch.sell16_ratio == 0 && ch.sell16_escaped == 0,
        "%s: sell16 ratio %g for %s", spec, ch.sell16_ratio, format);
  CHECK_OK(cis_matrix_create(A, ch.format, &ch.params, &M));
  if (M && sliced) { /* the ratio is that of the built formats' bytes, to 1% (the estimate leaves out headers and slice arrays) */
    cis_format_params p = ch.params;
    cis_matrix *M16 = NULL, *Mo = NULL;
    CHECK_OK(cis_matrix_create(A, "sell16", &p, &M16));
    CHECK_OK(cis_matrix_create(A, p.sigma > 1 ? "sellcs" : "sell", &p, &Mo));
    if (M16 && Mo) {
      const double r = (double)cis_matrix_bytes(M16) / (double)cis_matrix_bytes(Mo);
      CHECK(r > ch.sell16_ratio - 1e-2 && r < ch.sell16_ratio + 1e-2, "%s: built ratio %g, estimated %g", spec, r,
            ch.sell16_ratio);
    }
    cis_matrix_free(M16);
    cis_matrix_free(Mo);
  }
  cis_matrix_free(M);
  cis_csr_free(A);
}

static void expect_choice(const char *spec, const char *format, const char *kernel) {
  cis_csr *A = NULL;
  CHECK_OK(cis_generate(spec, CIS_F64, &A));
  expect_choice_of(A, spec, format, kernel);
}

/* The CPU rule on spec (threads given) picks format, and the pick builds. */
static void expect_cpu_of(cis_csr *A, const char *spec, int threads, const char *format) {
  cis_format_choice ch;
  cis_matrix *M = NULL;
  CHECK(A != NULL, "%s: no matrix", spec);
  if (!A) return;
  CHECK_OK(cis_format_auto_cpu_threads(A, CIS_F64, threads, &ch));
  CHECK(!strcmp(ch.format, format) && !strcmp(ch.kernel, format) && strstr(ch.reason, "CPU"),
        "CPU, %d threads, %s: chose %s (%s), expected %s", threads, spec, ch.format, ch.reason, format);
  CHECK(ch.params.dtype == CIS_F64 && ch.max_row >= ch.mean_row && ch.sell_fill == 0, "CPU %s: stats", spec);
  CHECK_OK(cis_matrix_create(A, ch.format, &ch.params, &M));
  cis_matrix_free(M);
}

static void expect_cpu(const char *spec, const char *format) {
  cis_csr *A = NULL;
  CHECK_OK(cis_generate(spec, CIS_F64, &A));
  expect_cpu_of(A, spec, 2, format);
  cis_csr_free(A);
}

/* One row of `dense` nonzeros among `rows` rows of one (a diagonal). */
static cis_csr *one_heavy_row(cis_int rows, cis_int dense) {
  cis_csr *A = NULL;
  if (cis_csr_alloc(rows, dense, rows - 1 + dense, CIS_F64, &A) != CIS_OK) return NULL;
  double *v = A->val;
  cis_int k = 0;
  for (cis_int i = 0; i < rows; ++i) {
    A->rowptr[i] = k;
    const cis_int len = i == rows / 2 ? dense : 1;
    for (cis_int j = 0; j < len; ++j, ++k) {
      A->colind[k] = (cis_idx)(len == 1 ? i % dense : j);
      v[k] = 1.0;
    }
  }
  A->rowptr[rows] = k;
  return A;
}

static void test_cpu_rule(void) {
  cis_format_choice ch;
  expect_cpu("laplace3d:size=20", "csr");
  expect_cpu("laplace3d:size=60", "csr");
  expect_cpu("ci:rows=2048,seed=1", "csr"); /* the GPU rule: sell16, the slowest CPU kernel */
  expect_cpu("random:rows=100000,cols=5000000,density=0.000004,seed=2", "csr");
  expect_cpu("powerlaw:rows=200000,seed=3", "csr");
  cis_csr *A = NULL;
  CHECK_OK(cis_generate("laplace3d:size=20", CIS_F64, &A)); /* 53,600 nonzeros: one thread whatever the machine */
  expect_cpu_of(A, "laplace3d:size=20", 64, "csr");
  cis_csr_free(A);
  A = one_heavy_row(100000, 200000); /* 299,999 nonzeros, 200,255 in one chunk; 9 threads' worth */
  expect_cpu_of(A, "one row of 200000 among 100000", 8, "csr5");
  expect_cpu_of(A, "one row of 200000 among 100000", 2, "csr"); /* two threads: at most 2x the even share */
  expect_cpu_of(A, "one row of 200000 among 100000", 1, "csr"); /* one thread: nothing to share */
  CHECK(cis_format_auto_cpu(A, (cis_dtype)7, &ch) == CIS_ERR_INVALID, "CPU rule: bad dtype accepted");
  CHECK(cis_format_auto_cpu(A, CIS_F64, NULL) == CIS_ERR_INVALID, "CPU rule: NULL output accepted");
  CHECK(cis_format_auto_cpu(NULL, CIS_F64, &ch) == CIS_ERR_INVALID, "CPU rule: NULL matrix accepted");
  CHECK_OK(cis_format_auto_cpu(A, CIS_F32, &ch));
  CHECK(ch.params.dtype == CIS_F32, "CPU rule: dtype %d", (int)ch.params.dtype);
  cis_csr_free(A);
  static const double zero[12] = {0};
  A = test_csr_from_dense(3, 4, zero, CIS_F64);
  CHECK(A != NULL, "empty 3x4 matrix");
  if (A) {
    CHECK_OK(cis_format_auto_cpu(A, CIS_F64, &ch));
    CHECK(!strcmp(ch.format, "csr"), "CPU rule, empty matrix: %s", ch.format);
  }
  cis_csr_free(A);
}

int main(void) {
  cis_format_choice ch;
  cis_csr *A = NULL;

  expect_p(32768, 950, 8, "ci 32k (few long rows: one wave)");
  expect_p(524288, 950, 1, "ci 524k (more rows than a wave)");
  expect_p(4096000, 7, 1, "laplace3d 160");
  expect_p(13440, 9, 4, "bayer10 (small: a thread walks at most 4 slots)");
  expect_p(100000, 7, 2, "100k rows of 7 (twice the threads fit the wave once)");
  expect_p(1024, 3, 1, "1024 rows of 3 (one round of loads already)");
  expect_p(1024, 40000, 32, "1024 rows of 40000 (at most 32)");

  expect_choice("laplace3d:size=20", "csr", "csr-vector"); /* 53,600 nonzeros: small */
  expect_choice("laplace3d:size=60", "sell", "sell"); /* sell16 0.83 of the bytes (float), but 7 per row */
  expect_choice("ci:rows=2048,seed=1", "sell16", "sell16"); /* 2048 columns */
  /* gaps between a row's columns beyond 16 bits: sell16 escapes most of them */
  expect_choice_of(spread_rows(40000, 8000000), "32 columns per row, 250K apart", "sell", "sell");
  expect_choice("random:rows=100000,cols=5000000,density=0.000004,seed=2", "sellcs", "sellcs");
  expect_choice("powerlaw:rows=200000,seed=3", "csr5", "csr5");

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
  test_cpu_rule();
  return test_summary("test_format_auto");
}
