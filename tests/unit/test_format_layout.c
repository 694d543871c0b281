/* test_format_layout.c: tiny hand-checked layouts (Ginkgo style): the dump
 * of a 4x4 example in hyb (both BOUNDARY readings), sell, sellcs, ellr and
 * csb compared with arrays written out by hand; the hybrid format's BOUNDARY
 * choice rules. */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"

/*   [1 0 2 3]
 *   [0 4 0 0]
 *   [5 6 7 0]
 *   [0 0 0 8]   row lengths 3 1 3 1, every column holds 2 entries */
static cis_csr *example4(cis_dtype t) {
  static const double d[16] = {1, 0, 2, 3, 0, 4, 0, 0, 5, 6, 7, 0, 0, 0, 0, 8};
  return test_csr_from_dense(4, 4, d, t);
}

static void check_dump(const char *name, cis_format_params p, const char *expect) {
  cis_csr *A = example4(p.dtype);
  cis_matrix *M = NULL;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  CHECK_OK(cis_matrix_create(A, name, &p, &M));
  if (M && f) CHECK_OK(cis_matrix_dump(M, f));
  if (f) fclose(f);
  CHECK(text && !strcmp(text, expect), "%s dump differs:\n--- got\n%s--- expected\n%s", name, text ? text : "",
        expect);
  free(text);
  cis_matrix_free(M);
  cis_csr_free(A);
}

static void test_hyb_count_mode(void) {
  cis_format_params p = cis_format_params_default();
  p.boundary = 2; /* first two nonzeros of each row -> ELLPACK */
  check_dump("hyb", p,
             "# hyb rows=4 cols=4 nnz=8 mode=count boundary=2 width=2 csr_nnz=2 offset_bits=32 "
             "(ELLPACK row-major: slot k of row i at i*width+k)\n"
             "ELLPACK_Column 0 2 1 -1 0 1 3 -1\n"
             "NonZerosEntries 1 2 4 0 5 6 8 0\n"
             "AllNonZerosCount 3 1 3 1\n"
             "StartArr 0 1 1 2\n"
             "EndArr 1 1 2 2\n"
             "CSR_Column 3 2\n"
             "Value 3 7\n");
}

static void test_hyb_column_mode(void) {
  cis_format_params p = cis_format_params_default();
  p.boundary_mode = CIS_BOUNDARY_COLUMN;
  p.boundary = 2; /* columns 0 and 1 -> ELLPACK */
  p.dtype = CIS_F32;
  check_dump("hyb", p,
             "# hyb rows=4 cols=4 nnz=8 mode=column boundary=2 width=2 csr_nnz=4 offset_bits=32 "
             "(ELLPACK row-major: slot k of row i at i*width+k)\n"
             "ELLPACK_Column 0 -1 1 -1 0 1 -1 -1\n"
             "NonZerosEntries 1 0 4 0 5 6 0 0\n"
             "AllNonZerosCount 3 1 3 1\n"
             "StartArr 0 2 2 3\n"
             "EndArr 2 2 3 4\n"
             "CSR_Column 2 3 2 3\n"
             "Value 2 3 7 8\n");
}

static void test_hyb_boundary_past_longest_row(void) {
  cis_format_params p = cis_format_params_default();
  p.boundary = 10; /* everything in ELLPACK, width = longest row 3 */
  check_dump("hyb", p,
             "# hyb rows=4 cols=4 nnz=8 mode=count boundary=10 width=3 csr_nnz=0 offset_bits=32 "
             "(ELLPACK row-major: slot k of row i at i*width+k)\n"
             "ELLPACK_Column 0 2 3 1 -1 -1 0 1 2 3 -1 -1\n"
             "NonZerosEntries 1 2 3 4 0 0 5 6 7 8 0 0\n"
             "AllNonZerosCount 3 1 3 1\n"
             "StartArr 0 0 0 0\n"
             "EndArr 0 0 0 0\n"
             "CSR_Column\n"
             "Value\n");
}

static void test_sell_last_slice_padded(void) {
  cis_format_params p = cis_format_params_default();
  p.slice = 3; /* slices {0,1,2} width 3 and {3} width 1, padded to 3 rows */
  check_dump("sell", p,
             "# sell rows=4 cols=4 nnz=8 S=3 sigma=1 nslices=2 slots=12 "
             "(slot k of local row r of slice s at slice_ptr[s]+k*S+r)\n"
             "slice_ptr 0 9 12\n"
             "Column 0 1 0 2 -1 1 3 -1 2 3 -1 -1\n"
             "NonZerosEntries 1 4 5 2 0 6 3 0 7 8 0 0\n");
}

static void test_sellcs_sorted(void) {
  cis_format_params p = cis_format_params_default();
  p.slice = 2;
  p.sigma = 4; /* lengths 3 1 3 1 -> order 0 2 1 3 */
  check_dump("sellcs", p,
             "# sellcs rows=4 cols=4 nnz=8 S=2 sigma=4 nslices=2 slots=8 "
             "(slot k of local row r of slice s at slice_ptr[s]+k*S+r)\n"
             "slice_ptr 0 6 8\n"
             "Column 0 0 2 1 3 2 1 3\n"
             "NonZerosEntries 1 5 2 6 3 7 4 8\n"
             "perm 0 2 1 3\n");
}

static void test_ellr_column_major(void) {
  check_dump("ellr", cis_format_params_default(),
             "# ellr rows=4 cols=4 nnz=8 width=3 (column-major: slot k of row i at k*rows+i)\n"
             "Column 0 1 0 3 2 -1 1 -1 3 -1 2 -1\n"
             "NonZerosEntries 1 4 5 8 2 0 6 0 3 0 7 0\n"
             "NonZerosCount 3 1 3 1\n");
}

static void test_csb_morton(void) {
  cis_format_params p = cis_format_params_default();
  p.block = 4; /* one block; Morton keys (r,c): (0,0)0 (1,1)3 (0,2)4 (0,3)5 (2,0)8 (2,1)9 (2,2)12 (3,3)15 */
  check_dump("csb", p,
             "# csb rows=4 cols=4 nnz=8 z=4 nbr=1 nbc=1 (blocks row-major, entries of a block in Z-Morton order)\n"
             "Block_ptr 0 8\n"
             "row_idx 0 1 0 0 2 2 2 3\n"
             "col_idx 0 1 2 3 0 1 2 3\n"
             "Value 1 4 2 3 5 6 7 8\n");
  p.block = 2; /* four 2x2 blocks, two entries each */
  check_dump("csb", p,
             "# csb rows=4 cols=4 nnz=8 z=2 nbr=2 nbc=2 (blocks row-major, entries of a block in Z-Morton order)\n"
             "Block_ptr 0 2 4 6 8\n"
             "row_idx 0 1 0 0 0 0 0 1\n"
             "col_idx 0 1 0 1 0 1 0 1\n"
             "Value 1 4 2 3 5 6 7 8\n");
}

/* ---- BOUNDARY choice ------------------------------------------------------ */

static cis_int chosen(cis_int rows, cis_int cols, const double *d, cis_boundary_mode mode) {
  cis_csr *A = test_csr_from_dense(rows, cols, d, CIS_F64);
  cis_int b = A ? cis_hyb_choose_boundary(A, mode) : -2;
  cis_csr_free(A);
  return b;
}

static void test_choose_boundary(void) {
  const double ex[16] = {1, 0, 2, 3, 0, 4, 0, 0, 5, 6, 7, 0, 0, 0, 0, 8};
  double lead[8 * 10] = {0}, dense[9], diag[100 * 100] = {0}, empty[30] = {0}, late[4 * 5] = {0},
         one_col[8 * 3] = {0};
  for (int i = 0; i < 8; ++i) {
    lead[i * 10 + 0] = lead[i * 10 + 1] = lead[i * 10 + 2] = 1; /* dense leading block of 3 columns */
    if (i < 7) lead[i * 10 + 3 + i] = 2;                        /* one entry per later column */
    one_col[i * 3] = 1;
  }
  for (int i = 0; i < 9; ++i) dense[i] = i + 1;
  for (int i = 0; i < 100; ++i) diag[i * 101] = 1;
  for (int i = 0; i < 4; ++i)
    for (int j = 1; j < 5; ++j) late[i * 5 + j] = 1; /* column 0 empty, then dense */
  /* count mode: the minimum row length */
  CHECK(chosen(4, 4, ex, CIS_BOUNDARY_COUNT) == 1, "count: example");
  CHECK(chosen(8, 10, lead, CIS_BOUNDARY_COUNT) == 3, "count: leading block");
  CHECK(chosen(5, 6, empty, CIS_BOUNDARY_COUNT) == 0, "count: empty matrix");
  CHECK(chosen(3, 3, dense, CIS_BOUNDARY_COUNT) == 3, "count: dense");
  /* column mode: end of the dense leading column block */
  CHECK(chosen(8, 10, lead, CIS_BOUNDARY_COLUMN) == 3, "column: leading block of 3 -> %lld",
        (long long)chosen(8, 10, lead, CIS_BOUNDARY_COLUMN));
  CHECK(chosen(4, 4, ex, CIS_BOUNDARY_COLUMN) == 4, "column: uniform columns -> cols");
  CHECK(chosen(3, 3, dense, CIS_BOUNDARY_COLUMN) == 3, "column: all dense -> cols");
  CHECK(chosen(100, 100, diag, CIS_BOUNDARY_COLUMN) == 100, "column: diagonal -> cols");
  CHECK(chosen(5, 6, empty, CIS_BOUNDARY_COLUMN) == 6, "column: empty matrix -> cols");
  CHECK(chosen(4, 5, late, CIS_BOUNDARY_COLUMN) == 5, "column: empty first column is not the end");
  CHECK(chosen(8, 3, one_col, CIS_BOUNDARY_COLUMN) == 1, "column: at least 1");
  CHECK(chosen(4, 0, empty, CIS_BOUNDARY_COLUMN) == 0, "column: no columns -> 0");
  CHECK(chosen(0, 5, empty, CIS_BOUNDARY_COLUMN) == 5 && chosen(0, 5, empty, CIS_BOUNDARY_COUNT) == 0,
        "no rows");
  CHECK(cis_hyb_choose_boundary(NULL, CIS_BOUNDARY_COUNT) == -1, "NULL matrix accepted");
  cis_csr *A = test_csr_from_dense(4, 4, ex, CIS_F64);
  CHECK(cis_hyb_choose_boundary(A, (cis_boundary_mode)7) == -1 && strstr(cis_last_error(), "mode"),
        "unknown mode accepted");
  cis_csr_free(A);
}

int main(void) {
  test_hyb_count_mode();
  test_hyb_column_mode();
  test_hyb_boundary_past_longest_row();
  test_sell_last_slice_padded();
  test_sellcs_sorted();
  test_ellr_column_major();
  test_csb_morton();
  test_choose_boundary();
  return test_summary("test_format_layout");
}
