/* ell.c: ELLPACK (Mahmoud et al. 2018, §3.2, Algorithm 2) and ELLPACK-R
 * (§3.3, Algorithm 3; Vázquez et al. 2011). One struct (cis_fmt_ell): every
 * row padded to the longest row, column-major (slot k of row i at
 * [k*rows + i]) for coalesced thread-per-row kernels; padding is column -1,
 * value 0. ELLPACK-R adds the row lengths (NonZerosCount).
 * bytes = rows*width*(vs+4) [+ rows*4 for ellr]. A padded array larger than
 * this machine's memory is refused (CIS_ERR_TOO_LARGE), e.g. one dense row in
 * a tall matrix. */
#include "core/internal.h"
#include "formats/format_util.h"

#define ELL_BLOCK_ROWS 256 /* rows per OpenMP task in the CPU SpMV */

static void ell_destroy(void *impl) {
  cis_fmt_ell *F = impl;
  if (!F) return;
  cis_free(F->col);
  cis_free(F->val);
  cis_free(F->rowlen);
  cis_free(F);
}

static cis_status ell_build_any(const cis_csr *A, const cis_format_params *p, int with_rowlen,
                                const char *name, void **impl) {
  cis_status st;
  cis_int slots;
  cis_fmt_ell *F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate %s format header", name);
  F->h = (cis_fmt_head){A->rows, A->cols, A->nnz, p->dtype};
  F->width = csr_max_row(A, NULL);
  CIS_TRY(cis_fmt_check_size(name, "padded slots (rows x longest row)", A->rows, F->width,
                             (cis_int)(cis_dtype_size(p->dtype) + sizeof(cis_idx)), &slots));
  CIS_TRY(cis_fmt_alloc_slots(&F->col, &F->val, slots, p->dtype, "ELLPACK slots"));
  if (with_rowlen)
    CIS_TRY(cis_alloc_array((void **)&F->rowlen, A->rows, sizeof(cis_idx), "ELLPACK-R row lengths"));
#pragma omp parallel for schedule(dynamic, 256)
  for (cis_int i = 0; i < A->rows; ++i) {
    const cis_int s = A->rowptr[i], len = A->rowptr[i + 1] - s;
    for (cis_int k = 0; k < len; ++k) {
      F->col[k * A->rows + i] = A->colind[s + k];
      cis_set(F->val, p->dtype, k * A->rows + i, cis_get(A->val, A->dtype, s + k));
    }
    if (F->rowlen) F->rowlen[i] = (cis_idx)len;
  }
  *impl = F;
  return CIS_OK;
cleanup:
  ell_destroy(F);
  return st;
}

static cis_status ell_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  return ell_build_any(A, p, 0, "ell", impl);
}

static cis_status ellr_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  return ell_build_any(A, p, 1, "ellr", impl);
}

static cis_int ell_bytes(const void *impl) {
  const cis_fmt_ell *F = impl;
  return F->h.rows * F->width * (cis_int)(cis_dtype_size(F->h.dtype) + sizeof(cis_idx)) +
         (F->rowlen ? F->h.rows * (cis_int)sizeof(cis_idx) : 0);
}

static cis_status ell_spmv(const void *impl, double alpha, const void *x, double beta, void *y) {
  const cis_fmt_ell *F = impl;
  const cis_ellpack_view v = {
      .dtype = F->h.dtype,
      .rows = F->h.rows,
      .nblocks = (F->h.rows + ELL_BLOCK_ROWS - 1) / ELL_BLOCK_ROWS,
      .H = ELL_BLOCK_ROWS,
      .ld = F->h.rows,
      .width = F->width,
      .col = F->col,
      .val = F->val,
      .rowlen = F->rowlen,
  };
  return cis_ellpack_spmv(&v, alpha, x, beta, y);
}

static cis_status ell_dump(const void *impl, FILE *f) {
  const cis_fmt_ell *F = impl;
  const cis_int slots = F->h.rows * F->width;
  const char *name = F->rowlen ? "ellr" : "ell";
  fprintf(f, "# %s rows=%lld cols=%lld nnz=%lld width=%lld (column-major: slot k of row i at k*rows+i)\n",
          name, (long long)F->h.rows, (long long)F->h.cols, (long long)F->h.nnz, (long long)F->width);
  cis_dump_idx(f, "Column", F->col, slots);
  cis_dump_vals(f, "NonZerosEntries", F->val, F->h.dtype, slots);
  if (F->rowlen) cis_dump_idx(f, "NonZerosCount", F->rowlen, F->h.rows);
  return cis_dump_done(f, name);
}

const cis_format_ops cis_format_ell = {
    .name = "ell",
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 3.2, Algorithm 2",
    .build = ell_build,
    .bytes = ell_bytes,
    .spmv = ell_spmv,
    .dump = ell_dump,
    .destroy = ell_destroy,
};

const cis_format_ops cis_format_ellr = {
    .name = "ellr",
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 3.3, Algorithm 3 (Vazquez et al. 2011)",
    .build = ellr_build,
    .bytes = ell_bytes,
    .spmv = ell_spmv,
    .dump = ell_dump,
    .destroy = ell_destroy,
};
