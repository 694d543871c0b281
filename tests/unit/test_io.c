/* test_io.c: Matrix Market and .cisb round trips, symmetric/skew/pattern
 * expansion checked entry by entry, explicit zeros, duplicates, NaN flags,
 * vectors, number parsing, and allocation failure on every allocation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "test_files.h"
#include "test_util.h"
#include "core/internal.h"

/* Value of A at (i,j) as double; NAN if the entry is not stored. */
static double entry(const cis_csr *A, cis_int i, cis_idx j) {
  for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k)
    if (A->colind[k] == j) return csr_value(A, k);
  return NAN;
}

/* Same size, structure and (bitwise, after conversion to double) values. */
static int csr_equal(const cis_csr *A, const cis_csr *B) {
  if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz) return 0;
  if (memcmp(A->rowptr, B->rowptr, (size_t)(A->rows + 1) * sizeof(cis_int))) return 0;
  if (A->nnz && memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(cis_idx))) return 0;
  for (cis_int k = 0; k < A->nnz; ++k) {
    double a = csr_value(A, k), b = csr_value(B, k);
    if (memcmp(&a, &b, sizeof a)) return 0;
  }
  return 1;
}

/* A random rows x cols matrix with awkward values (tiny, huge, negative zero). */
static cis_csr *random_matrix(cis_int rows, cis_int cols, cis_dtype t, unsigned long long seed) {
  double *d = calloc((size_t)(rows * cols), sizeof *d);
  double r[64];
  test_fill_random(r, CIS_F64, 64, seed);
  for (cis_int k = 0; k < rows * cols; ++k) {
    double u = r[k % 64];
    if (fabs(u) < 0.4) d[k] = u * pow(10.0, (double)(k % 37) - 18.0) + (double)k / 3.0;
  }
  d[0] = 1e-300;
  d[1] = -1.0 / 3.0;
  cis_csr *A = test_csr_from_dense(rows, cols, d, t);
  free(d);
  return A;
}

static void test_mm_round_trip(cis_dtype t) {
  cis_csr *A = random_matrix(37, 23, t, 7), *B = NULL;
  const char *p = scratch_path(t == CIS_F64 ? "rt64.mtx" : "rt32.mtx");

  CHECK_OK(io_mm_write(p, A));
  CHECK_OK(io_mm_read(p, t, &B));

  CHECK(B && csr_equal(A, B), "%s Matrix Market round trip is not exact", cis_dtype_name(t));
  CHECK(B && B->flags == 0, "flags %d on a plain general matrix", B ? B->flags : -1);
  cis_csr_free(A);
  cis_csr_free(B);
}

static void test_bin_round_trip(cis_dtype t) {
  cis_csr *A = random_matrix(41, 50, t, 11), *B = NULL, *C = NULL;
  const char *p = scratch_path(t == CIS_F64 ? "rt64.cisb" : "rt32.cisb");
  A->flags = CIS_FLAG_SYMMETRIC | CIS_FLAG_PATTERN;
  cis_dtype other = t == CIS_F64 ? CIS_F32 : CIS_F64;

  CHECK_OK(cis_save(p, A));
  CHECK_OK(cis_load(p, t, &B));
  CHECK_OK(io_bin_read(p, other, &C));

  CHECK(B && csr_equal(A, B), "%s binary round trip is not exact", cis_dtype_name(t));
  CHECK(B && B->flags == A->flags, "flags %d, saved %d", B ? B->flags : -1, A->flags);
  CHECK(C && C->dtype == other && C->nnz == A->nnz, "binary read into %s", cis_dtype_name(other));
  for (cis_int k = 0; C && k < A->nnz; ++k)
    if (csr_value(C, k) != (other == CIS_F32 ? (double)(float)csr_value(A, k) : csr_value(A, k))) {
      CHECK(0, "value %lld converted wrongly to %s", (long long)k, cis_dtype_name(other));
      break;
    }
  cis_csr_free(A);
  cis_csr_free(B);
  cis_csr_free(C);
}

/* Review findings: more entries than declared spread over many parallel
 * chunks (once a heap overflow), and a symmetric file storing both (i,j) and
 * (j,i) (once silently summed twice). */
static void test_excess_entries_and_symmetric_pairs(void) {
  const char *many = scratch_path("many.mtx");
  FILE *f = fopen(many, "w");
  fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n10 10 1\n");
  for (int k = 0; k < 200000; ++k) fprintf(f, "%d %d 1.0\n", k % 10 + 1, k / 10 % 10 + 1);
  fclose(f);
  cis_csr *A = NULL;
  CHECK(io_mm_read(many, CIS_F64, &A) == CIS_ERR_PARSE && !A &&
            strstr(cis_last_error(), "many.mtx:4: more entries than the 1 declared"),
        "200000 entries for 1 declared: %s", cis_last_error());
  const char *both = scratch_write("both.mtx",
      "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 5\n1 2 5\n");
  CHECK(io_mm_read(both, CIS_F64, &A) == CIS_ERR_PARSE && !A &&
            strstr(cis_last_error(), "stores the pair (2,1)/(1,2) more than once"),
        "symmetric pair stored twice: %s", cis_last_error());
}

static void test_symmetric_skew_pattern(void) {
  /* 4x4: lower triangle stored, one entry above the diagonal (mirrored too) */
  const char *sym = scratch_write("sym.mtx",
      "%%MatrixMarket matrix coordinate real symmetric\n% comment\n\n4 4 5\n1 1 2.0\n3 1 -1.5\n4 2 0.25\n4 4 7\n2 3 9\n");
  const char *skew = scratch_write("skew.mtx",
      "%%MatrixMarket matrix coordinate real skew-symmetric\n4 4 3\n2 1 3.0\n4 3 -2.0\n3 3 0\n");
  const char *pat = scratch_write("pat.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n3 1\n3 2\n");
  const char *integer = scratch_write("int.mtx", "%%MATRIXMARKET Matrix Coordinate Integer General\n2 3 2\n1 3 -4\n2 1 12\n");
  cis_csr *S = NULL, *K = NULL, *P = NULL, *I = NULL;

  CHECK_OK(io_mm_read(sym, CIS_F64, &S));
  CHECK_OK(io_mm_read(skew, CIS_F32, &K));
  CHECK_OK(io_mm_read(pat, CIS_F64, &P));
  CHECK_OK(io_mm_read(integer, CIS_F64, &I));

  if (S) {
    const double want[4][4] = {{2, NAN, -1.5, NAN}, {NAN, NAN, 9, 0.25}, {-1.5, 9, NAN, NAN}, {NAN, 0.25, NAN, 7}};
    CHECK(S->nnz == 8 && cis_csr_check(S) == CIS_OK, "symmetric nnz %lld, expected 8", (long long)S->nnz);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        double got = entry(S, i, j);
        CHECK(isnan(want[i][j]) ? isnan(got) : got == want[i][j], "symmetric (%d,%d) = %g, expected %g", i, j, got,
              want[i][j]);
      }
    CHECK(S->flags == CIS_FLAG_SYMMETRIC, "symmetric flags %d", S->flags);
  }
  if (K) {
    CHECK(K->nnz == 5 && K->dtype == CIS_F32, "skew nnz %lld, expected 5", (long long)K->nnz);
    CHECK(entry(K, 1, 0) == 3.0 && entry(K, 0, 1) == -3.0, "skew (2,1)/(1,2) = %g/%g", entry(K, 1, 0), entry(K, 0, 1));
    CHECK(entry(K, 3, 2) == -2.0 && entry(K, 2, 3) == 2.0, "skew (4,3)/(3,4) = %g/%g", entry(K, 3, 2), entry(K, 2, 3));
    CHECK(entry(K, 2, 2) == 0.0, "explicit zero diagonal of the skew file not kept");
    CHECK(K->flags == CIS_FLAG_SKEW, "skew flags %d", K->flags);
  }
  if (P) {
    CHECK(P->nnz == 5 && P->flags == (CIS_FLAG_PATTERN | CIS_FLAG_SYMMETRIC), "pattern nnz %lld flags %d",
          (long long)P->nnz, P->flags);
    CHECK(entry(P, 0, 2) == 1.0 && entry(P, 2, 0) == 1.0 && entry(P, 1, 2) == 1.0 && entry(P, 0, 0) == 1.0,
          "pattern values are not 1.0");
  }
  if (I) CHECK(I->nnz == 2 && entry(I, 0, 2) == -4.0 && entry(I, 1, 0) == 12.0, "integer values wrong");
  cis_csr_free(S); cis_csr_free(K); cis_csr_free(P); cis_csr_free(I);
}

/* 0 x 0 and 3 x 2 with no entries survive both formats. */
static void test_empty_matrices(void) {
  const char *mm[2] = {scratch_write("e0.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n"),
                       scratch_write("e1.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 2 0\n% end\n")};
  for (int k = 0; k < 2; ++k) {
    cis_csr *A = NULL, *B = NULL;
    const char *bin = scratch_path("empty.cisb");
    CHECK_OK(io_mm_read(mm[k], CIS_F64, &A));
    CHECK(A && A->nnz == 0 && A->rows == 3 * k && A->cols == 2 * k && cis_csr_check(A) == CIS_OK, "empty matrix %d", k);
    if (A) CHECK_OK(io_bin_write(bin, A));
    CHECK_OK(io_bin_read(bin, CIS_F32, &B));
    CHECK(B && B->nnz == 0 && B->rows == 3 * k, "empty .cisb %d", k);
    cis_csr_free(A);
    cis_csr_free(B);
  }
}

static void test_zeros_duplicates_nonfinite(void) {
  const char *p = scratch_write("zdn.mtx",
      "%%MatrixMarket matrix coordinate real general\n3 3 6\n1 1 0\n2 2 1.5\n2 2 2.5\n3 1 nan\n3 3 -inf\n1 3 0.0e0\r\n");
  const char *big = scratch_write("big.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e300\n");
  cis_csr *A = NULL, *F = NULL, *D = NULL;

  CHECK_OK(io_mm_read(p, CIS_F64, &A));
  CHECK_OK(io_mm_read(big, CIS_F32, &F));
  CHECK_OK(io_mm_read(big, CIS_F64, &D));

  if (A) {
    CHECK(A->nnz == 5, "nnz %lld, expected 5 (duplicates summed, zeros kept)", (long long)A->nnz);
    CHECK(entry(A, 0, 0) == 0.0 && entry(A, 0, 2) == 0.0, "explicit zeros dropped");
    CHECK(entry(A, 1, 1) == 4.0, "duplicate (2,2) summed to %g, expected 4", entry(A, 1, 1));
    CHECK(isnan(entry(A, 2, 0)) && entry(A, 2, 2) == -INFINITY, "NaN/-Inf not read as such");
    CHECK(A->flags & CIS_FLAG_NONFINITE, "NaN not flagged");
  }
  CHECK(F && (F->flags & CIS_FLAG_NONFINITE), "1e300 in float is Inf but not flagged");
  CHECK(D && !(D->flags & CIS_FLAG_NONFINITE) && entry(D, 0, 0) == 1e300, "1e300 in double wrong or flagged");
  cis_csr_free(A); cis_csr_free(F); cis_csr_free(D);
}

static void test_vectors(cis_dtype t) {
  double x[5] = {1.0 / 3.0, -2.5e-310, 7, -0.0, 1e22};
  float xf[5];
  for (int i = 0; i < 5; ++i) xf[i] = (float)x[i];
  const void *v = t == CIS_F64 ? (const void *)x : (const void *)xf;
  const char *mm = scratch_path("v.mtx"), *txt = scratch_path("v.txt");
  void *a = NULL, *b = NULL, *c = NULL, *bad = NULL;

  CHECK_OK(cis_mm_write_vector(mm, v, t, 5));
  CHECK_OK(cis_text_write_vector(txt, v, t, 5));
  CHECK_OK(cis_vector_read(mm, t, 5, &a));
  CHECK_OK(cis_vector_read(txt, t, 5, &b));
  const char *row = scratch_write("row.mtx", "%%MatrixMarket matrix array real general\n% c\n1 3\n1\n2\n3\n");
  CHECK_OK(cis_vector_read(row, t, 3, &c));

  size_t bytes = 5 * cis_dtype_size(t);
  CHECK(a && !memcmp(a, v, bytes), "Matrix Market vector round trip not exact (%s)", cis_dtype_name(t));
  CHECK(b && !memcmp(b, v, bytes), "text vector round trip not exact (%s)", cis_dtype_name(t));
  CHECK(c && cis_get(c, t, 2) == 3.0, "1 x n array vector");
  struct { const char *name, *text; cis_int n; cis_status st; const char *error; } bad_cases[] = {
      {"v.txt", NULL, 6, CIS_ERR_PARSE, "v.txt: found 5 values, expected 6"},
      {"v.txt", NULL, 4, CIS_ERR_PARSE, "v.txt:5: more than the 4 values"},
      {"v.mtx", NULL, 4, CIS_ERR_PARSE, "v.mtx:2: vector of length 5, expected 4"},
      {"nan.txt", "# values\n1\n2\n\nNaN\n", 3, CIS_ERR_NUMERIC, "nan.txt:5: non-finite value 'NaN'"},
      {"word.txt", "1\n2 x\n", 3, CIS_ERR_PARSE, "word.txt:2: 'x' is not a number"},
      {"mat.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 4, CIS_ERR_PARSE,
       "mat.mtx:2: a 2 x 2 array is not a vector"},
      {"coo.mtx", "%%MatrixMarket matrix coordinate real general\n2 1 1\n1 1 1\n", 2, CIS_ERR_PARSE,
       "coo.mtx:1: a vector file must start"},
  };
  for (size_t k = 0; k < sizeof bad_cases / sizeof *bad_cases; ++k) {
    const char *path = bad_cases[k].text ? scratch_write(bad_cases[k].name, bad_cases[k].text) : scratch_path(bad_cases[k].name);
    cis_status st = cis_vector_read(path, t, bad_cases[k].n, &bad);
    CHECK(st == bad_cases[k].st && strstr(cis_last_error(), bad_cases[k].error), "vector %s: %s \"%s\", expected \"%s\"",
          bad_cases[k].name, cis_status_name(st), cis_last_error(), bad_cases[k].error);
  }
  CHECK(!bad, "failed vector read returned memory");
  cis_free(a); cis_free(b); cis_free(c);
}

static void test_binary_corruption(void) {
  cis_csr *A = random_matrix(30, 30, CIS_F64, 3), *B = NULL;
  const char *p = scratch_path("good.cisb"), *q = scratch_path("cut.cisb");
  CHECK_OK(io_bin_write(p, A));
  long long n = file_size(p);
  CHECK(n == 48 + 31 * 8 + A->nnz * 12 + 8, "file size %lld", n);

  /* a flipped byte anywhere in the arrays or the checksum */
  for (long long off = 48; off < n; off += 97) {
    file_flip_byte(p, off, 0x10);
    cis_status st = io_bin_read(p, CIS_F64, &B);
    CHECK(st == CIS_ERR_PARSE && !B && strstr(cis_last_error(), "good.cisb: checksum mismatch (stored "),
          "flip at %lld: %s %s", off, cis_status_name(st), cis_last_error());
    file_flip_byte(p, off, 0x10);
  }
  /* cut anywhere: header, arrays, checksum */
  const long long cuts[] = {3, 20, 47, 48, 100, n - 9, n - 1};
  for (size_t c = 0; c < sizeof cuts / sizeof *cuts; ++c) {
    file_copy_prefix(p, q, cuts[c]);
    cis_status st = io_bin_read(q, CIS_F64, &B);
    CHECK(st == CIS_ERR_PARSE && !B && strstr(cis_last_error(), "cut.cisb: truncated file"), "cut at %lld: %s %s",
          cuts[c], cis_status_name(st), cis_last_error());
  }
  /* header fields: flip, read, flip back */
  struct { long long offset; unsigned char mask; cis_status st; const char *error; } header_cases[] = {
      {0, 0x20, CIS_ERR_PARSE, "not a cisparse binary file"},
      {12, 0x07, CIS_ERR_PARSE, "unknown value type code 7"},
      {39, 0x80, CIS_ERR_PARSE, "negative size"},             /* nnz < 0 */
      {38, 0x40, CIS_ERR_PARSE, "truncated file"},            /* nnz ~ 2^54: file far too short */
      {39, 0x40, CIS_ERR_OVERFLOW, "overflows 64 bits"},      /* nnz ~ 2^62: byte count overflows */
      {19, 0x01, CIS_ERR_PARSE, "truncated file"},            /* rows + 2^24 */
      {19, 0x80, CIS_ERR_OVERFLOW, "rows and columns must be below 2^31"},
  };
  for (size_t k = 0; k < sizeof header_cases / sizeof *header_cases; ++k) {
    file_flip_byte(p, header_cases[k].offset, header_cases[k].mask);
    cis_status st = io_bin_read(p, CIS_F64, &B);
    CHECK(st == header_cases[k].st && !B && strstr(cis_last_error(), header_cases[k].error),
          "header byte %lld ^ 0x%02x: %s \"%s\", expected \"%s\"", header_cases[k].offset, header_cases[k].mask,
          cis_status_name(st), cis_last_error(), header_cases[k].error);
    file_flip_byte(p, header_cases[k].offset, header_cases[k].mask);
  }
  FILE *f = fopen(p, "ab");
  fputc(0, f);
  fclose(f);
  CHECK(io_bin_read(p, CIS_F64, &B) == CIS_ERR_PARSE && strstr(cis_last_error(), "trailing data"),
        "trailing byte: %s", cis_last_error());
  cis_csr_free(A);
}

/* A structurally wrong matrix with a valid checksum is still refused. */
static void test_binary_bad_structure(void) {
  cis_csr *A = random_matrix(5, 5, CIS_F64, 5), *B = NULL;
  const char *p = scratch_path("structure.cisb");
  A->colind[1] = 9;
  CHECK_OK(io_bin_write(p, A));
  CHECK(io_bin_read(p, CIS_F64, &B) == CIS_ERR_RANGE && !B && strstr(cis_last_error(), "structure.cisb: CSR column 9 out of range"),
        "bad column: %s", cis_last_error());
  A->colind[1] = 1;
  A->rowptr[2] = A->rowptr[1] - 1;
  CHECK_OK(io_bin_write(p, A));
  CHECK(io_bin_read(p, CIS_F64, &B) == CIS_ERR_INVALID && strstr(cis_last_error(), "row pointer decreases"),
        "decreasing rowptr: %s", cis_last_error());
  /* a row pointer far past nnz (then back down): refused before any column is read */
  cis_int keep = A->rowptr[2];
  A->rowptr[2] = keep;
  A->rowptr[1] = (cis_int)1 << 30;
  CHECK_OK(io_bin_write(p, A));
  CHECK(io_bin_read(p, CIS_F64, &B) == CIS_ERR_INVALID && !B && strstr(cis_last_error(), "exceeds nnz at row 1"),
        "rowptr past nnz: %s", cis_last_error());
  cis_csr_free(A);
}

/* cis_parse_real agrees bit for bit with strtod (correct rounding). */
static void test_number_parsing(void) {
  unsigned long long s = 12345;
  char tok[64];
  int mismatches = 0;
  for (int k = 0; k < 200000; ++k) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    unsigned long long m = (s >> 11) % (k % 3 ? 10000000000000000ull : 1000000ull);
    int e = (int)((s >> 3) % 61) - 30, form = (int)(s % 4);
    if (form == 0) snprintf(tok, sizeof tok, "%llue%d", m, e);
    else if (form == 1) snprintf(tok, sizeof tok, "-%llu.%03llu", m, (s >> 20) % 1000);
    else if (form == 2) snprintf(tok, sizeof tok, "0.%017llu", m);
    else snprintf(tok, sizeof tok, "%.17g", (double)m * pow(10.0, e));
    double a, b = strtod(tok, NULL);
    if (cis_parse_real(tok, &a) || memcmp(&a, &b, sizeof a)) mismatches++;
  }
  CHECK(mismatches == 0, "%d of 200000 numbers parsed differently from strtod", mismatches);
  double v;
  const char *bad[] = {"", "-", ".", "e5", "1e", "1.5x", "0x", "1..2", "--1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) CHECK(cis_parse_real(bad[i], &v), "'%s' accepted as a number", bad[i]);
  int64_t n;
  CHECK(cis_parse_int("9223372036854775807", &n) == 0 && n == INT64_MAX, "INT64_MAX");
  CHECK(cis_parse_int("-9223372036854775808", &n) == 0 && n == INT64_MIN, "INT64_MIN");
  CHECK(cis_parse_int("9223372036854775808", &n) == 2, "2^63 accepted");
  CHECK(cis_parse_int("12a", &n) == 1 && cis_parse_int("", &n) == 1 && cis_parse_int("+", &n) == 1, "bad integers accepted");
}

/* Write a general n x n file with `entries` entry lines (entry k at row
 * k % n + 1, column k / n + 1, value k + 0.5), a comment line after entry
 * `comment_after`, entry `bad` replaced by `bad_text` (if bad >= 0), and
 * declaring `declared` entries. Entry k is on line k + 3 (+1 after the
 * comment). */
static const char *write_big(const char *name, int64_t n, int64_t entries, int64_t declared, int64_t comment_after,
                             int64_t bad, const char *bad_text) {
  const char *p = scratch_path(name);
  FILE *f = fopen(p, "w");
  fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n", (long long)n, (long long)n,
          (long long)declared);
  for (int64_t k = 0; k < entries; ++k) {
    if (k == bad) fprintf(f, "%s\n", bad_text);
    else fprintf(f, "%lld %lld %.1f%s", (long long)(k % n + 1), (long long)(k / n + 1), k + 0.5,
                 k + 1 < entries ? "\n" : ""); /* the last line has no "\n" */
    if (k == comment_after) fprintf(f, "%% a comment in the middle\n   \n");
  }
  fclose(f);
  return p;
}

/* Files spanning several read blocks and parallel chunks: every entry in
 * place, and errors name the same line a sequential reader would. */
static void test_large_file_line_numbers(void) {
  const int64_t n = 1000, m = 400000, c = 250000;
  cis_csr *A = NULL;
  char want[128];

  CHECK_OK(io_mm_read(write_big("big.mtx", n, m, m, c, -1, NULL), CIS_F64, &A));

  CHECK(A && A->nnz == m, "large file nnz %lld", A ? (long long)A->nnz : -1LL);
  int wrong = 0;
  for (int64_t k = 0; A && k < m; k += 997) wrong += entry(A, k % n, (cis_idx)(k / n)) != k + 0.5;
  CHECK(wrong == 0, "%d sampled entries of the large file are wrong", wrong);
  cis_csr_free(A);
  A = NULL;
  const int64_t bads[] = {5, 199999, 330000, m - 1};
  for (size_t b = 0; b < sizeof bads / sizeof *bads; ++b) {
    CHECK(io_mm_read(write_big("bigbad.mtx", n, m, m, c, bads[b], "7 7 seven"), CIS_F64, &A) == CIS_ERR_PARSE && !A,
          "bad token at entry %lld accepted", (long long)bads[b]);
    snprintf(want, sizeof want, "bigbad.mtx:%lld: value 'seven' is not a number", (long long)(bads[b] + 3 + 2 * (bads[b] > c)));
    CHECK(strstr(cis_last_error(), want) != NULL, "got \"%s\", expected \"%s\"", cis_last_error(), want);
  }
  CHECK(io_mm_read(write_big("bigmore.mtx", n, m, m - 10, c, -1, NULL), CIS_F64, &A) == CIS_ERR_PARSE, "extra entries");
  snprintf(want, sizeof want, "bigmore.mtx:%lld: more entries than the %lld declared", (long long)(m - 10 + 3 + 2),
           (long long)(m - 10));
  CHECK(strstr(cis_last_error(), want) != NULL, "got \"%s\", expected \"%s\"", cis_last_error(), want);
  CHECK(io_mm_read(write_big("bigless.mtx", n, m, m + 1, c, -1, NULL), CIS_F64, &A) == CIS_ERR_PARSE, "missing entries");
  snprintf(want, sizeof want, "bigless.mtx:%lld: file ends after %lld of %lld declared", (long long)(m + 2 + 2),
           (long long)m, (long long)m + 1);
  CHECK(strstr(cis_last_error(), want) != NULL, "got \"%s\", expected \"%s\"", cis_last_error(), want);
}

/* One reader of test_alloc_failures: which (0 Matrix Market, 1 and 2
 * .cisb in double and float, 3 a vector) on path. */
typedef struct read_call { int which; const char *path; cis_csr *A; void *x; } read_call;

static cis_status reader_run(void *ctx) {
  read_call *r = ctx;
  cis_status st;
  if (r->which == 3) st = cis_vector_read(r->path, CIS_F64, 3, &r->x);
  else if (r->which == 0) st = io_mm_read(r->path, CIS_F64, &r->A);
  else st = io_bin_read(r->path, r->which == 1 ? CIS_F64 : CIS_F32, &r->A);
  CHECK((st == CIS_OK) == (r->A != NULL || r->x != NULL), "reader %d: %s, output %s", r->which,
        cis_status_name(st), r->A || r->x ? "set" : "missing");
  return st;
}

static void reader_undo(void *ctx) {
  read_call *r = ctx;
  cis_csr_free(r->A), cis_free(r->x), r->A = NULL, r->x = NULL;
}

/* Make allocation n fail for every n of each reader: CIS_ERR_ALLOC each
 * time, then success. */
static void test_alloc_failures(void) {
  const char *mm = scratch_write("alloc.mtx",
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 1\n2 1 2\n3 2 3\n3 3 4\n");
  cis_csr *A = NULL;
  const char *bin = scratch_path("alloc.cisb"), *vec = scratch_write("alloc.txt", "1\n2\n3\n");
  static const char *const names[4] = {"io_mm_read", "io_bin_read double", "io_bin_read float", "cis_vector_read"};
  CHECK_OK(io_mm_read(mm, CIS_F64, &A));
  CHECK_OK(io_bin_write(bin, A));
  cis_csr_free(A);
  for (int k = 0; k < 4; ++k) {
    read_call r = {k, k == 0 ? mm : k == 3 ? vec : bin, NULL, NULL};
    test_alloc_every(names[k], reader_run, reader_undo, &r);
  }
}

/* cis_load hands a generator spec to cis_generate, and a missing file that is
 * not a spec is an I/O error naming it. */
static void test_load_dispatch(void) {
  const char *spec = "laplace3d:size=4,points=7";
  cis_csr *A = NULL, *G = NULL;
  if (cis_gen_is_spec(spec)) {
    CHECK_OK(cis_load(spec, CIS_F64, &A));
    CHECK_OK(cis_generate(spec, CIS_F64, &G));
    CHECK(A && G && csr_equal(A, G), "cis_load(spec) differs from cis_generate(spec)");
    cis_csr_free(A);
    cis_csr_free(G);
    A = NULL;
  }
  CHECK(cis_load("no-such-file.mtx", CIS_F64, &A) == CIS_ERR_IO && !A &&
            strstr(cis_last_error(), "no-such-file.mtx: cannot open: No such file or directory"),
        "missing file: %s", cis_last_error());
  CHECK(cis_load("", CIS_F64, &A) == CIS_ERR_INVALID && !A, "empty name accepted");
}

static void test_write_errors(void) {
  cis_csr *A = random_matrix(3, 3, CIS_F64, 1);
  double x[2] = {1, 2};
  CHECK(io_mm_write("/nonexistent-dir/a.mtx", A) == CIS_ERR_IO && strstr(cis_last_error(), "/nonexistent-dir/a.mtx: cannot create"),
        "unwritable MM path: %s", cis_last_error());
  CHECK(cis_save("/nonexistent-dir/a.cisb", A) == CIS_ERR_IO, "unwritable binary path");
  CHECK(cis_text_write_vector("/nonexistent-dir/x.txt", x, CIS_F64, 2) == CIS_ERR_IO, "unwritable vector path");
  CHECK(io_mm_write("/dev/full", A) == CIS_ERR_IO && strstr(cis_last_error(), "/dev/full: write error"),
        "full disk not reported: %s", cis_last_error());
  CHECK(io_bin_write("/dev/full", A) == CIS_ERR_IO, "full disk not reported for .cisb");
  cis_csr_free(A);
}

int main(void) {
  test_mm_round_trip(CIS_F64);
  test_mm_round_trip(CIS_F32);
  test_bin_round_trip(CIS_F64);
  test_bin_round_trip(CIS_F32);
  test_symmetric_skew_pattern();
  test_excess_entries_and_symmetric_pairs();
  test_zeros_duplicates_nonfinite();
  test_empty_matrices();
  test_vectors(CIS_F64);
  test_vectors(CIS_F32);
  test_binary_corruption();
  test_binary_bad_structure();
  test_number_parsing();
  test_large_file_line_numbers();
  test_alloc_failures();
  test_write_errors();
  test_load_dispatch();
  scratch_remove();
  return test_summary("test_io");
}
