/* csr_sym.c: the symmetric CSR storage format "csr-sym" (format_list.h,
 * CIS_STORE_UPPER): a symmetric matrix as its upper triangle U (diagonal
 * included) in CSR with 64-bit row pointers, the layout the GPU kernels
 * csr-sym, csr-sym-det and csr-sym-win read (src/gpu/csr_sym_gpu.c; Buluc
 * et al. SPAA 2009, symmetric case). bytes = (rows+1)*8 + nnz(U)*(4+vs),
 * about half of csr's. The CPU product is cis_csr_symv. Also the one step
 * both symmetric formats build from: cis_fmt_upper_of. */
#include "core/internal.h"
#include "formats/format_util.h"

/* Values mirrored within this relative tolerance count as symmetric (the
 * CLI's --symmetric check, CLI_SYM_TOL). */
#define SYMMETRY_TOL 1e-12

cis_status cis_fmt_upper_of(const cis_csr *A, cis_dtype t, cis_csr **U, cis_int *full_nnz) {
  cis_status st;
  cis_csr *T = NULL;
  cis_int diag = 0;
  *U = NULL;
  CIS_TRY(cis_csr_upper_symmetric(A, SYMMETRY_TOL, &T));
  if (T->dtype != t) {
    CIS_TRY(cis_csr_copy(T, t, U));
    cis_csr_free(T);
  } else {
    *U = T;
  }
  T = NULL;
  for (cis_int i = 0; i < (*U)->rows; ++i)
    diag += (*U)->rowptr[i + 1] > (*U)->rowptr[i] && (*U)->colind[(*U)->rowptr[i]] == i;
  *full_nnz = 2 * (*U)->nnz - diag;
  return CIS_OK;
cleanup:
  cis_csr_free(T);
  return st;
}

typedef struct cis_fmt_csr_sym {
  cis_fmt_head h; /* nnz: the whole matrix's */
  cis_csr *U;     /* the upper triangle, CIS_FLAG_UPPER */
} cis_fmt_csr_sym;

static void csr_sym_destroy(void *impl) {
  cis_fmt_csr_sym *F = impl;
  if (!F) return;
  cis_csr_free(F->U);
  cis_free(F);
}

static cis_status csr_sym_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  cis_status st;
  cis_fmt_csr_sym *F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate csr-sym format header");
  F->h = (cis_fmt_head){A->rows, A->cols, 0, p->dtype};
  CIS_TRY(cis_fmt_upper_of(A, p->dtype, &F->U, &F->h.nnz));
  *impl = F;
  return CIS_OK;
cleanup:
  csr_sym_destroy(F);
  return st;
}

static cis_int csr_sym_bytes(const void *impl) {
  const cis_fmt_csr_sym *F = impl;
  return (F->h.rows + 1) * 8 + F->U->nnz * (cis_int)(sizeof(cis_idx) + cis_dtype_size(F->h.dtype));
}

static cis_status csr_sym_spmv(const void *impl, double alpha, const void *x, double beta, void *y) {
  return cis_csr_symv(((const cis_fmt_csr_sym *)impl)->U, alpha, x, beta, y);
}

static cis_status csr_sym_dump(const void *impl, FILE *f) {
  const cis_fmt_csr_sym *F = impl;
  fprintf(f, "# csr-sym rows=%lld cols=%lld nnz=%lld stored=%lld (upper triangle)\n", (long long)F->h.rows,
          (long long)F->h.cols, (long long)F->h.nnz, (long long)F->U->nnz);
  cis_dump_i64(f, "RowPtr", F->U->rowptr, F->h.rows + 1);
  cis_dump_idx(f, "Column", F->U->colind, F->U->nnz);
  cis_dump_vals(f, "Value", F->U->val, F->h.dtype, F->U->nnz);
  return cis_dump_done(f, "csr-sym");
}

const cis_format_ops cis_format_csr_sym = {
    .name = "csr-sym",
    .citation = "Buluc, Fineman, Frigo, Gilbert, Leiserson SPAA 2009 (symmetric case)",
    .build = csr_sym_build,
    .bytes = csr_sym_bytes,
    .spmv = csr_sym_spmv,
    .dump = csr_sym_dump,
    .destroy = csr_sym_destroy,
};
