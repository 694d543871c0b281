/* test_io_shared.c: the 19 SuiteSparse matrices in shared/matrices read with
 * the size, expanded nnz, longest row and explicit-zero count that the
 * folder's README table lists (measured there by an independent script),
 * and each survives .cisb and Matrix Market round trips bit for bit. */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "test_files.h"
#include "test_util.h"

typedef struct {
  char file[64];
  long long rows, cols, nnz, max_row, zeros;
} readme_row;

/* Cells of a markdown table row "| a | b | ... |" into cell[0..n). */
static int split_cells(char *line, char **cell, int max) {
  int n = 0;
  char *save = NULL;
  for (char *c = strtok_r(line, "|", &save); c && n < max; c = strtok_r(NULL, "|", &save)) {
    while (*c == ' ') c++;
    char *e = c + strlen(c);
    while (e > c && (e[-1] == ' ' || e[-1] == '\n')) *--e = '\0';
    cell[n++] = c;
  }
  return n;
}

/* The "Matrix properties" table: file | group | kind | rows | cols | stored |
 * expanded | symmetry | field | SPD | row min / avg / max | zeros | bytes. */
static int read_readme(readme_row *rows, int max) {
  char path[1024], line[2048];
  FILE *f = fopen(test_shared_path(path, sizeof path, "matrices/README.md"), "r");
  int n = 0;
  if (!f) return -1;
  while (n < max && fgets(line, sizeof line, f)) {
    char *cell[16];
    if (strncmp(line, "| ", 2) || split_cells(line, cell, 16) < 13 || !strstr(cell[0], ".mtx")) continue;
    if (!strchr(cell[1], '/')) continue;
    readme_row *r = &rows[n++];
    snprintf(r->file, sizeof r->file, "%s", cell[0]);
    r->rows = atoll(cell[3]);
    r->cols = atoll(cell[4]);
    r->nnz = atoll(cell[6]);
    const char *mx = strrchr(cell[10], '/');
    r->max_row = mx ? atoll(mx + 1) : -1;
    r->zeros = atoll(cell[11]);
  }
  fclose(f);
  return n;
}

static long long count_zeros(const cis_csr *A) {
  long long z = 0;
  for (cis_int k = 0; k < A->nnz; ++k) z += csr_value(A, k) == 0.0;
  return z;
}

static int same(const cis_csr *A, const cis_csr *B) {
  return A->rows == B->rows && A->nnz == B->nnz &&
         !memcmp(A->rowptr, B->rowptr, (size_t)(A->rows + 1) * sizeof(cis_int)) &&
         !memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(cis_idx)) &&
         !memcmp(A->val, B->val, (size_t)A->nnz * cis_dtype_size(A->dtype));
}

static void check_matrix(const readme_row *r) {
  char path[1024];
  cis_csr *A = NULL, *B = NULL, *M = NULL, *F = NULL;
  test_shared_path(path, sizeof path, "matrices/");
  strncat(path, r->file, sizeof path - strlen(path) - 1);

  double t0 = cis_wtime();
  CHECK_OK(cis_load(path, CIS_F64, &A));
  double secs = cis_wtime() - t0;
  CHECK_OK(cis_load(path, CIS_F32, &F));
  if (!A || !F) return;

  CHECK(A->rows == r->rows && A->cols == r->cols, "%s: %lld x %lld, README %lld x %lld", r->file, (long long)A->rows,
        (long long)A->cols, r->rows, r->cols);
  CHECK(A->nnz == r->nnz && F->nnz == r->nnz, "%s: nnz %lld, README expanded nnz %lld", r->file, (long long)A->nnz, r->nnz);
  CHECK(csr_max_row(A, NULL) == r->max_row, "%s: longest row %lld, README %lld", r->file,
        (long long)csr_max_row(A, NULL), r->max_row);
  CHECK(count_zeros(A) == r->zeros, "%s: %lld explicit zeros, README %lld", r->file, count_zeros(A), r->zeros);
  CHECK(cis_csr_check(A) == CIS_OK && !(A->flags & CIS_FLAG_NONFINITE), "%s: %s", r->file, cis_last_error());

  const char *bin = scratch_path("m.cisb"), *mm = scratch_path("m.mtx");
  CHECK_OK(cis_save(bin, A));
  CHECK_OK(cis_load(bin, CIS_F64, &B));
  CHECK_OK(cis_save(mm, A));
  CHECK_OK(cis_load(mm, CIS_F64, &M));
  CHECK(B && same(A, B), "%s: .cisb round trip differs", r->file);
  CHECK(M && same(A, M), "%s: Matrix Market round trip differs", r->file);
  printf("  %-18s %6lld x %-6lld nnz %7lld  read %6.1f ms\n", r->file, (long long)A->rows, (long long)A->cols,
         (long long)A->nnz, 1e3 * secs);
  cis_csr_free(A); cis_csr_free(B); cis_csr_free(M); cis_csr_free(F);
}

int main(void) {
  readme_row rows[32];
  int n = read_readme(rows, 32);
  if (n < 0) return test_skip("shared/matrices/README.md not found (set CISPARSE_SHARED_DIR)");
  CHECK(n == 19, "README table lists %d matrices, expected 19", n);
  for (int i = 0; i < n; ++i) check_matrix(&rows[i]);
  scratch_remove();
  return test_summary("test_io_shared");
}
