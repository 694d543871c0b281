/* sym_seg_format.c: the sym-seg layout (sym_seg.h) as a storage format of
 * the registry (format_list.h, CIS_STORE_UPPER): built from a symmetric
 * matrix's upper triangle with cis_sym_seg_rows rows per block, its bytes
 * cis_sym_seg_bytes, its CPU product the reference cis_sym_seg_spmv (the
 * GPU kernel sym-seg's, src/kernels/sym_seg.cu). No dump. */
#include "core/internal.h"
#include "formats/format_util.h"
#include "formats/sym_seg.h"

typedef struct cis_fmt_sym_seg {
  cis_fmt_head h; /* nnz: the whole matrix's */
  cis_sym_seg *S;
} cis_fmt_sym_seg;

static void sym_seg_destroy(void *impl) {
  cis_fmt_sym_seg *F = impl;
  if (!F) return;
  cis_sym_seg_free(F->S);
  cis_free(F);
}

static cis_status sym_seg_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  cis_status st;
  cis_csr *U = NULL;
  cis_fmt_sym_seg *F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate sym-seg format header");
  F->h = (cis_fmt_head){A->rows, A->cols, 0, p->dtype};
  CIS_TRY(cis_fmt_upper_of(A, p->dtype, &U, &F->h.nnz));
  CIS_TRY(cis_sym_seg_build(U, cis_sym_seg_rows(U->rows, p->dtype), &F->S));
  cis_csr_free(U);
  *impl = F;
  return CIS_OK;
cleanup:
  cis_csr_free(U);
  sym_seg_destroy(F);
  return st;
}

static cis_int sym_seg_bytes(const void *impl) { return cis_sym_seg_bytes(((const cis_fmt_sym_seg *)impl)->S); }

static cis_status sym_seg_spmv(const void *impl, double alpha, const void *x, double beta, void *y) {
  return cis_sym_seg_spmv(((const cis_fmt_sym_seg *)impl)->S, alpha, x, beta, y);
}

const cis_format_ops cis_format_sym_seg = {
    .name = "sym-seg",
    .citation = "Buluc et al. SPAA 2009 (symmetric case); Sengupta et al. GH 2007 (segmented scan)",
    .build = sym_seg_build,
    .bytes = sym_seg_bytes,
    .spmv = sym_seg_spmv,
    .destroy = sym_seg_destroy,
};
