/* test_ci_gpu_rows.c: the CI Hamiltonian's rows r0..r1-1 built on the GPU
 * (ci_hamiltonian_gpu_rows, the one-GPU builder with a row range) equal
 * the host's rows (ci_hamiltonian_rows, the CPU reference) entry by
 * entry: row pointers, columns and values bit for bit, full rows and upper
 * triangle, counted on the device or from the host's counts, over ranges
 * that are empty (at the start, inside, at the end), one row, the last row,
 * more than a warp of rows, and all rows; for H2O STO-3G FCI (441
 * determinants) and H2O 6-31G CISD (a truncated space: the binary-search
 * lookup). The device counts (ci_hamiltonian_gpu_row_nnz) equal the
 * host's, entries outside the range untouched (poisoned with -7 first).
 * Errors: ranges outside the space, NULL output, counts that do not match
 * the rows (one row's count one more, one less: CIS_ERR_INVALID, nothing
 * written past). */
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "ci/ci_internal.h"

static void free_dev(cis_gpu_csr *G) {
  cis_gpu_free(G->rowptr);
  cis_gpu_free(G->colind);
  cis_gpu_free(G->val);
  memset(G, 0, sizeof *G);
}

/* The device rows on the host (a CSR of the same shape). */
static cis_csr *download(const cis_gpu_csr *G) {
  cis_csr *A = NULL;
  if (cis_csr_alloc(G->rows, G->cols, G->nnz, G->dtype, &A) != CIS_OK) return NULL;
  CHECK_OK(cis_gpu_download(A->rowptr, G->rowptr, (size_t)(G->rows + 1) * sizeof(int64_t)));
  CHECK_OK(cis_gpu_download(A->colind, G->colind, (size_t)G->nnz * sizeof(cis_idx)));
  CHECK_OK(cis_gpu_download(A->val, G->val, (size_t)G->nnz * sizeof(double)));
  return A;
}

/* Rows r0..r1-1 (upper or not; counted on the device, or from counts)
 * against the host's. */
static void case_range(const char *name, const cis_fcidump *F, const cis_ci_space *S, cis_int r0, cis_int r1, int upper,
                       const cis_int *counts) {
  cis_csr *H = NULL, *A = NULL;
  cis_gpu_csr G;
  memset(&G, 0x5a, sizeof G); /* poisoned: every field must be set */
  CHECK_OK(ci_hamiltonian_rows(F, S, r0, r1, upper, NULL, &H));
  CHECK_OK(ci_hamiltonian_gpu_rows(F, S, r0, r1, upper, counts, &G));
  if (!H) return;
  CHECK(G.rows == r1 - r0 && G.cols == ci_space_size(S) && G.nnz == H->nnz && G.dtype == CIS_F64,
        "%s rows %lld..%lld upper %d: device %lldx%lld/%lld, host %lldx%lld/%lld", name, (long long)r0,
        (long long)r1, upper, (long long)G.rows, (long long)G.cols, (long long)G.nnz, (long long)H->rows,
        (long long)H->cols, (long long)H->nnz);
  if (G.rows == H->rows && G.nnz == H->nnz && (A = download(&G))) {
    CHECK(!memcmp(A->rowptr, H->rowptr, (size_t)(H->rows + 1) * sizeof(cis_int)), "%s %lld..%lld upper %d: row pointers differ",
          name, (long long)r0, (long long)r1, upper);
    CHECK(!memcmp(A->colind, H->colind, (size_t)H->nnz * sizeof(cis_idx)), "%s %lld..%lld upper %d: columns differ", name,
          (long long)r0, (long long)r1, upper);
    long differ = 0;
    for (cis_int k = 0; k < H->nnz; ++k) differ += ((double *)A->val)[k] != ((double *)H->val)[k]; /* NaN differs */
    CHECK(differ == 0, "%s %lld..%lld upper %d: %ld of %lld values differ", name, (long long)r0, (long long)r1, upper,
          differ, (long long)H->nnz);
  }
  free_dev(&G);
  cis_csr_free(A);
  cis_csr_free(H);
}

/* Counts that do not match the rows: refused, nothing written past. */
static void case_bad_counts(const cis_fcidump *F, const cis_ci_space *S, const cis_int *counts, cis_int n) {
  cis_int *wrong = malloc((size_t)n * sizeof *wrong);
  cis_gpu_csr G;
  for (int delta = -1; delta <= 1; delta += 2) {
    memcpy(wrong, counts, (size_t)n * sizeof *wrong);
    wrong[n / 2] += delta;
    cis_status st = ci_hamiltonian_gpu_rows(F, S, 0, n, 0, wrong, &G);
    CHECK(st == CIS_ERR_INVALID && strstr(cis_last_error(), "differ from its count"),
          "a row count off by %d: status %d (%s)", delta, (int)st, cis_last_error());
    CHECK(G.rowptr == NULL && G.colind == NULL && G.val == NULL, "a refused build handed back device arrays");
    free_dev(&G);
  }
  wrong[0] = -1;
  CHECK(ci_hamiltonian_gpu_rows(F, S, 0, n, 0, wrong, &G) == CIS_ERR_INVALID, "a negative count accepted");
  free(wrong);
}

static void case_molecule(const char *name, int level) {
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  CHECK_OK(test_ci_load(name, level, &F, &S));
  if (!S) {
    cis_fcidump_free(F);
    return;
  }
  const cis_int n = ci_space_size(S);
  cis_int *hc = malloc((size_t)n * sizeof *hc), *dc = malloc((size_t)n * sizeof *dc);
  for (int upper = 0; upper <= 1; ++upper) {
    /* device counts of a middle range: equal to the host's, the rest untouched */
    const cis_int m0 = n / 3, m1 = n / 3 + 45;
    CHECK_OK(ci_hamiltonian_row_nnz(F, S, upper, hc));
    for (cis_int i = 0; i < n; ++i) dc[i] = -7;
    CHECK_OK(ci_hamiltonian_gpu_row_nnz(F, S, m0, m1, upper, dc));
    long bad = 0;
    for (cis_int i = 0; i < n; ++i) bad += (i >= m0 && i < m1) ? dc[i] != hc[i] : dc[i] != -7;
    CHECK(bad == 0, "%s upper %d: %ld device row counts wrong or written outside %lld..%lld", name, upper, bad,
          (long long)m0, (long long)m1);
    CHECK_OK(ci_hamiltonian_gpu_row_nnz(F, S, 0, n, upper, dc));
    CHECK(!memcmp(dc, hc, (size_t)n * sizeof *dc), "%s upper %d: device row counts differ from the host's", name, upper);
    const cis_int ranges[][2] = {{0, 0}, {0, n}, {0, 1}, {0, 37}, {37, 37 + 70}, {n / 2, n / 2}, {n - 1, n},
                                 {n - 33, n}, {n, n}};
    for (size_t k = 0; k < sizeof ranges / sizeof *ranges; ++k) {
      case_range(name, F, S, ranges[k][0], ranges[k][1], upper, NULL);
      case_range(name, F, S, ranges[k][0], ranges[k][1], upper, hc);
    }
  }
  CHECK_OK(ci_hamiltonian_row_nnz(F, S, 0, hc));
  case_bad_counts(F, S, hc, n);
  free(hc);
  free(dc);
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

static void case_errors(void) {
  cis_fcidump *F = NULL;
  cis_ci_space *S = NULL;
  cis_gpu_csr G;
  cis_int c[4];
  CHECK_OK(test_ci_load("h2o_sto3g", -1, &F, &S));
  if (!S) return;
  const cis_int n = ci_space_size(S);
  CHECK(ci_hamiltonian_gpu_rows(F, S, 0, n + 1, 0, NULL, &G) == CIS_ERR_INVALID &&
            strstr(cis_last_error(), "outside the space"),
        "rows past the space accepted: %s", cis_last_error());
  CHECK(ci_hamiltonian_gpu_rows(F, S, 5, 4, 0, NULL, &G) == CIS_ERR_INVALID, "a reversed range accepted");
  CHECK(ci_hamiltonian_gpu_rows(F, S, -1, 4, 0, NULL, &G) == CIS_ERR_INVALID, "a negative start accepted");
  CHECK(ci_hamiltonian_gpu_rows(F, S, 0, 4, 0, NULL, NULL) == CIS_ERR_INVALID, "a NULL output accepted");
  CHECK(ci_hamiltonian_gpu_rows(NULL, S, 0, 4, 0, NULL, &G) == CIS_ERR_INVALID, "NULL integrals accepted");
  CHECK(ci_hamiltonian_gpu_row_nnz(F, S, 0, n + 1, 0, c) == CIS_ERR_INVALID, "counts past the space accepted");
  CHECK(ci_hamiltonian_gpu_row_nnz(F, S, 0, 4, 0, NULL) == CIS_ERR_INVALID, "NULL counts accepted");
  cis_ci_space_free(S);
  cis_fcidump_free(F);
}

int main(void) {
  char why[256];
  if (cis_gpu_count(why, sizeof why) == 0) return test_skip(why);
  case_molecule("h2o_sto3g", -1);
  case_molecule("h2o_631g", 2);
  case_errors();
  return test_summary("test_ci_gpu_rows");
}
