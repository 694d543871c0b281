/* stats.c: the matrix statistics `cisparse info` prints (Mahmoud et al.
 * 2018, §4.2; Tables 3-4), public as cis_csr_stats_get (types.h). The
 * Reference region defaults to the hybrid format's column boundary, hence
 * this file sits with the formats. */
#include <math.h>
#include <string.h>
#include "cisparse/format.h"
#include "core/internal.h"

static double sparsity(cis_int nnz, double cells) { return cells > 0 ? 1.0 - (double)nnz / cells : NAN; }

cis_status cis_csr_stats_get(const cis_csr *A, cis_int ref_cols, cis_csr_stats *s) {
  if (!A || !s) return cis_error(CIS_ERR_INVALID, "cis_csr_stats_get: NULL argument");
  if (ref_cols > A->cols)
    return cis_error(CIS_ERR_INVALID, "cis_csr_stats_get: Reference region of %lld columns in a matrix of %lld",
                     (long long)ref_cols, (long long)A->cols);
  memset(s, 0, sizeof *s);
  s->rows = A->rows;
  s->cols = A->cols;
  s->nnz = A->nnz;
  if (ref_cols < 0) {
    ref_cols = cis_hyb_choose_boundary(A, CIS_BOUNDARY_COLUMN);
    if (ref_cols < 0) return CIS_ERR_ALLOC; /* message recorded */
  }
  s->ref_cols = ref_cols;
  s->row_min = A->rows ? A->rowptr[1] - A->rowptr[0] : 0;
  for (cis_int i = 0; i < A->rows; ++i) {
    cis_int len = A->rowptr[i + 1] - A->rowptr[i];
    if (len < s->row_min) s->row_min = len;
    if (len > s->row_max) { s->row_max = len; s->row_max_at = i; }
  }
  s->row_avg = A->rows ? (double)A->nnz / (double)A->rows : 0.0;
  cis_int nref = 0, bad = 0;
  const cis_int ref = ref_cols;
#pragma omp parallel for reduction(+ : nref) schedule(static)
  for (cis_int i = 0; i < A->rows; ++i) nref += cis_csr_row_count_below(A, i, ref);
#pragma omp parallel for reduction(+ : bad) schedule(static)
  for (cis_int k = 0; k < A->nnz; ++k) bad += !isfinite(csr_value(A, k));
  s->nonfinite = bad;
  double rows = (double)A->rows;
  s->sp_total = sparsity(A->nnz, rows * (double)A->cols);
  s->nnz_ref = nref;
  s->nnz_exp = A->nnz - nref;
  s->sp_ref = sparsity(nref, rows * (double)ref);
  s->sp_exp = sparsity(A->nnz - nref, rows * (double)(A->cols - ref));
  return CIS_OK;
}
