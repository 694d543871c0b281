/* hyb.c: the hybrid ELLPACK + CSR format for CI matrices (Mahmoud, Hoffmann,
 * Reza 2018, §4.1, Algorithm 6; layout read by Algorithm 7's warp-per-row
 * kernel). Every row is split at BOUNDARY: its first part goes to a
 * row-major ELLPACK array (NonZerosEntries / ELLPACK_Column, `width` slots
 * per row, padding column -1), the rest to CSR (Value / CSR_Column) with
 * per-row StartArr/EndArr (start == end for a row without CSR part) and
 * AllNonZerosCount (rownnz).
 *
 * BOUNDARY has two readings in the paper; p->boundary_mode picks one:
 *   COUNT (default; Algorithm 6, the memory equation, Algorithm 7): the
 *     first BOUNDARY nonzeros of each row go to ELLPACK;
 *   COLUMN (Figure 2, §4.1 text): nonzeros with column < BOUNDARY go to
 *     ELLPACK; 0 <= BOUNDARY <= cols.
 * width = the largest ELLPACK part of any row (in count mode
 * min(BOUNDARY, longest row): slots past the longest row would only hold
 * padding). bytes = rows*4 + 2*rows*(4|8) + rows*width*(vs+4) + csr_nnz*(vs+4),
 * which is the paper's equation 3*ROWS*4 + ROWS*BOUNDARY*12 + CSRNonZeros*12
 * in double when width = BOUNDARY and csr_nnz < 2^32.
 *
 * BOUNDARY < 0 means "choose" (cis_hyb_choose_boundary):
 *   COUNT: the minimum row length, the largest BOUNDARY with no padding at
 *     all (bytes = 3*rows*4 + nnz*(vs+4)), putting the most entries in the
 *     coalesced ELLPACK part; 0 if some row is empty or rows == 0.
 *   COLUMN: the end of the dense leading column block (the Reference
 *     region): with n_c the nonzeros of column c, the first c >= 1 where
 *     n_c < mean(n_0 .. n_{c-1}) / 4 (exactly: 4*c*n_c < sum n_0..n_{c-1});
 *     cols if no column drops (all-dense, banded, empty matrices); 0 when
 *     cols == 0. So 1 <= BOUNDARY <= cols whenever cols >= 1. */
#include <string.h>
#include "core/internal.h"
#include "formats/format_util.h"

static cis_int min_row_length(const cis_csr *A) {
  cis_int m = A->rows > 0 ? A->rowptr[1] - A->rowptr[0] : 0;
  for (cis_int i = 1; i < A->rows; ++i)
    if (A->rowptr[i + 1] - A->rowptr[i] < m) m = A->rowptr[i + 1] - A->rowptr[i];
  return m;
}

static cis_int reference_region_end(const cis_csr *A) {
  uint32_t *count = NULL;
  cis_int end = A->cols, sum;
  if (A->cols == 0) return 0;
  if (cis_alloc_zeroed((void **)&count, A->cols, sizeof *count, "hyb column counts") != CIS_OK) return -1;
  for (cis_int k = 0; k < A->nnz; ++k) count[A->colind[k]]++;
  sum = count[0];
  for (cis_int c = 1; c < A->cols; ++c) {
    if (sum > 0 && (cis_int)count[c] <= (sum - 1) / (4 * c)) {
      end = c;
      break;
    }
    sum += count[c];
  }
  cis_free(count);
  return end;
}

cis_int cis_hyb_choose_boundary(const cis_csr *A, cis_boundary_mode mode) {
  if (!A) {
    cis_error(CIS_ERR_INVALID, "cis_hyb_choose_boundary: NULL matrix");
    return -1;
  }
  if (mode == CIS_BOUNDARY_COUNT) return min_row_length(A);
  if (mode == CIS_BOUNDARY_COLUMN) return reference_region_end(A);
  cis_error(CIS_ERR_INVALID, "hyb: unknown boundary mode %d (0 = count, 1 = column)", (int)mode);
  return -1;
}

/* Nonzeros of row i that go to the ELLPACK part. */
static cis_int ell_part(const cis_csr *A, cis_boundary_mode mode, cis_int B, cis_int i) {
  const cis_int len = A->rowptr[i + 1] - A->rowptr[i];
  if (mode == CIS_BOUNDARY_COUNT) return len < B ? len : B;
  return cis_csr_row_count_below(A, i, B);
}

static void hyb_destroy(void *impl) {
  cis_fmt_hyb *F = impl;
  if (!F) return;
  cis_free(F->ell_col);
  cis_free(F->ell_val);
  cis_free(F->rownnz);
  cis_offsets_free(&F->start);
  cis_offsets_free(&F->end);
  cis_free(F->csr_col);
  cis_free(F->csr_val);
  cis_free(F);
}

static cis_status boundary_of(const cis_csr *A, const cis_format_params *p, cis_int *B) {
  if (p->boundary_mode != CIS_BOUNDARY_COUNT && p->boundary_mode != CIS_BOUNDARY_COLUMN)
    return cis_error(CIS_ERR_INVALID, "hyb: unknown boundary mode %d (0 = count, 1 = column)", (int)p->boundary_mode);
  if (p->boundary < 0) {
    *B = cis_hyb_choose_boundary(A, p->boundary_mode);
    return *B < 0 ? CIS_ERR_ALLOC : CIS_OK; /* the message is recorded */
  }
  if (p->boundary_mode == CIS_BOUNDARY_COLUMN && p->boundary > A->cols)
    return cis_error(CIS_ERR_INVALID, "hyb: column-mode BOUNDARY %lld is beyond the last column (cols = %lld)",
                     (long long)p->boundary, (long long)A->cols);
  *B = p->boundary;
  return CIS_OK;
}

static cis_status hyb_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  cis_status st;
  cis_int B, slots, ell_nnz = 0, width = 0;
  const size_t vs = cis_dtype_size(p->dtype);
  cis_fmt_hyb *F = NULL;
  CIS_TRY(boundary_of(A, p, &B));
  for (cis_int i = 0; i < A->rows; ++i) {
    const cis_int e = ell_part(A, p->boundary_mode, B, i);
    ell_nnz += e;
    if (e > width) width = e;
  }
  CIS_TRY(cis_fmt_check_size("hyb", "ELLPACK slots (rows x width)", A->rows, width,
                             (cis_int)(vs + sizeof(cis_idx)), &slots));
  F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate hyb format header");
  F->h = (cis_fmt_head){A->rows, A->cols, A->nnz, p->dtype};
  F->mode = p->boundary_mode;
  F->boundary = B;
  F->width = width;
  F->csr_nnz = A->nnz - ell_nnz;
  CIS_TRY(cis_fmt_alloc_slots(&F->ell_col, &F->ell_val, slots, p->dtype, "hyb ELLPACK slots"));
  CIS_TRY(cis_alloc_array((void **)&F->rownnz, A->rows, sizeof(uint32_t), "hyb AllNonZerosCount"));
  CIS_TRY(cis_offsets_alloc(&F->start, A->rows, F->csr_nnz));
  CIS_TRY(cis_offsets_alloc(&F->end, A->rows, F->csr_nnz));
  CIS_TRY(cis_alloc_array((void **)&F->csr_col, F->csr_nnz, sizeof(cis_idx), "hyb CSR_Column"));
  CIS_TRY(cis_alloc_array(&F->csr_val, F->csr_nnz, vs, "hyb CSR Value"));
  for (cis_int i = 0, at = 0; i < A->rows; ++i) { /* StartArr/EndArr: Algorithm 6's Index */
    cis_off_set(&F->start, i, at);
    at += A->rowptr[i + 1] - A->rowptr[i] - ell_part(A, F->mode, B, i);
    cis_off_set(&F->end, i, at);
  }
#pragma omp parallel for schedule(dynamic, 256)
  for (cis_int i = 0; i < A->rows; ++i) {
    const cis_int s = A->rowptr[i], len = A->rowptr[i + 1] - s, e = ell_part(A, F->mode, B, i);
    const int64_t c0 = cis_off_get(&F->start, i) - e; /* CSR slot of row entry k >= e is c0 + k */
    F->rownnz[i] = (uint32_t)len;
    for (cis_int k = 0; k < len; ++k) {
      const double v = cis_get(A->val, A->dtype, s + k);
      if (k < e) {
        F->ell_col[i * width + k] = A->colind[s + k];
        cis_set(F->ell_val, p->dtype, i * width + k, v);
      } else {
        F->csr_col[c0 + k] = A->colind[s + k];
        cis_set(F->csr_val, p->dtype, c0 + k, v);
      }
    }
  }
  *impl = F;
  return CIS_OK;
cleanup:
  hyb_destroy(F);
  return st;
}

static cis_int hyb_bytes(const void *impl) {
  const cis_fmt_hyb *F = impl;
  const cis_int entry = (cis_int)(cis_dtype_size(F->h.dtype) + sizeof(cis_idx));
  return F->h.rows * (cis_int)sizeof(uint32_t) + 2 * cis_offsets_bytes(&F->start, F->h.rows) +
         F->h.rows * F->width * entry + F->csr_nnz * entry;
}

/* Per row: the ELLPACK part (stops at the first padding slot) then the CSR part. */
static cis_status hyb_spmv(const void *impl, double alpha, const void *x, double beta, void *y) {
  const cis_fmt_hyb *F = impl;
  CIS_FOR_DTYPE(F->h.dtype, {
    const REAL *xv = x, *ev = F->ell_val, *cv = F->csr_val;
    REAL *yv = y;
    const REAL a = (REAL)alpha, b = (REAL)beta;
    CIS_PRAGMA(omp parallel for schedule(dynamic, 256))
    for (cis_int i = 0; i < F->h.rows; ++i) {
      REAL sum = 0;
      for (cis_int k = i * F->width; k < (i + 1) * F->width && F->ell_col[k] >= 0; ++k)
        sum += ev[k] * xv[F->ell_col[k]];
      for (int64_t k = cis_off_get(&F->start, i), e = cis_off_get(&F->end, i); k < e; ++k)
        sum += cv[k] * xv[F->csr_col[k]];
      yv[i] = (beta == 0.0) ? a * sum : a * sum + b * yv[i];
    }
  });
  return CIS_OK;
}

static cis_status hyb_dump(const void *impl, FILE *f) {
  const cis_fmt_hyb *F = impl;
  fprintf(f, "# hyb rows=%lld cols=%lld nnz=%lld mode=%s boundary=%lld width=%lld csr_nnz=%lld offset_bits=%d "
             "(ELLPACK row-major: slot k of row i at i*width+k)\n",
          (long long)F->h.rows, (long long)F->h.cols, (long long)F->h.nnz,
          F->mode == CIS_BOUNDARY_COUNT ? "count" : "column", (long long)F->boundary, (long long)F->width,
          (long long)F->csr_nnz, F->start.wide ? 64 : 32);
  cis_dump_idx(f, "ELLPACK_Column", F->ell_col, F->h.rows * F->width);
  cis_dump_vals(f, "NonZerosEntries", F->ell_val, F->h.dtype, F->h.rows * F->width);
  cis_dump_u32(f, "AllNonZerosCount", F->rownnz, F->h.rows);
  cis_dump_offsets(f, "StartArr", &F->start, F->h.rows);
  cis_dump_offsets(f, "EndArr", &F->end, F->h.rows);
  cis_dump_idx(f, "CSR_Column", F->csr_col, F->csr_nnz);
  cis_dump_vals(f, "Value", F->csr_val, F->h.dtype, F->csr_nnz);
  return cis_dump_done(f, "hyb");
}

const cis_format_ops cis_format_hyb = {
    .name = "hyb",
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 4.1, Algorithm 6 (kernel: Algorithm 7)",
    .build = hyb_build,
    .bytes = hyb_bytes,
    .spmv = hyb_spmv,
    .dump = hyb_dump,
    .destroy = hyb_destroy,
};

cis_status cis_matrix_hyb_split(const cis_matrix *M, cis_hyb_split *out) {
  if (!M || !out) return cis_error(CIS_ERR_INVALID, "cis_matrix_hyb_split: NULL argument");
  if (strcmp(cis_matrix_format_name(M), "hyb") != 0)
    return cis_error(CIS_ERR_INVALID, "cis_matrix_hyb_split: the matrix is %s, not hyb", cis_matrix_format_name(M));
  const cis_fmt_hyb *F = cis_matrix_impl(M);
  out->boundary = F->boundary;
  out->mode = F->mode;
  out->width = F->width;
  out->csr_nnz = F->csr_nnz;
  return CIS_OK;
}
