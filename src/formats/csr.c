/* csr.c: the CSR storage format (Mahmoud et al. 2018, §3.1, Algorithm 1):
 * Value, Column, RowPtr; RowPtr in 32 bits while nnz < 2^32 (the paper's
 * unsigned int), else 64. The layout the GPU CSR kernels read. */
#include <string.h>
#include "core/internal.h"
#include "formats/format_types.h"
#include "formats/format_util.h"

static void csr_destroy(void *impl) {
  cis_fmt_csr *F = impl;
  if (!F) return;
  cis_offsets_free(&F->rowptr);
  cis_free(F->col);
  cis_free(F->val);
  cis_free(F);
}

static cis_status csr_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  cis_status st;
  cis_fmt_csr *F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate CSR format header");
  F->h = (cis_fmt_head){A->rows, A->cols, A->nnz, p->dtype};
  CIS_TRY(cis_offsets_alloc(&F->rowptr, A->rows + 1, A->nnz));
  CIS_TRY(cis_alloc_array((void **)&F->col, A->nnz, sizeof(cis_idx), "CSR format columns"));
  CIS_TRY(cis_alloc_array(&F->val, A->nnz, cis_dtype_size(p->dtype), "CSR format values"));
  for (cis_int i = 0; i <= A->rows; ++i) cis_off_set(&F->rowptr, i, A->rowptr[i]);
  if (A->nnz) memcpy(F->col, A->colind, (size_t)A->nnz * sizeof(cis_idx));
  for (cis_int k = 0; k < A->nnz; ++k) cis_set(F->val, p->dtype, k, cis_get(A->val, A->dtype, k));
  *impl = F;
  return CIS_OK;
cleanup:
  csr_destroy(F);
  return st;
}

static cis_int csr_bytes(const void *impl) {
  const cis_fmt_csr *F = impl;
  return cis_offsets_bytes(&F->rowptr, F->h.rows + 1) +
         F->h.nnz * (cis_int)(sizeof(cis_idx) + cis_dtype_size(F->h.dtype));
}

static cis_status csr_spmv(const void *impl, double alpha, const void *x, double beta, void *y) {
  const cis_fmt_csr *F = impl;
  CIS_FOR_DTYPE(F->h.dtype, {
    const REAL *xv = x, *av = F->val;
    REAL *yv = y;
    CIS_PRAGMA(omp parallel for schedule(dynamic, 256))
    for (cis_int i = 0; i < F->h.rows; ++i) {
      REAL sum = 0;
      for (int64_t k = cis_off_get(&F->rowptr, i), e = cis_off_get(&F->rowptr, i + 1); k < e; ++k)
        sum += av[k] * xv[F->col[k]];
      yv[i] = (beta == 0.0) ? (REAL)alpha * sum : (REAL)alpha * sum + (REAL)beta * yv[i];
    }
  });
  return CIS_OK;
}

static cis_status csr_dump(const void *impl, FILE *f) {
  const cis_fmt_csr *F = impl;
  fprintf(f, "# csr rows=%lld cols=%lld nnz=%lld rowptr_bits=%d\n", (long long)F->h.rows,
          (long long)F->h.cols, (long long)F->h.nnz, F->rowptr.wide ? 64 : 32);
  cis_dump_offsets(f, "RowPtr", &F->rowptr, F->h.rows + 1);
  cis_dump_idx(f, "Column", F->col, F->h.nnz);
  cis_dump_vals(f, "Value", F->val, F->h.dtype, F->h.nnz);
  return cis_dump_done(f, "CSR");
}

const cis_format_ops cis_format_csr = {
    .name = "csr",
    .citation = "Mahmoud, Hoffmann, Reza 2018, Sec. 3.1, Algorithm 1",
    .build = csr_build,
    .bytes = csr_bytes,
    .spmv = csr_spmv,
    .dump = csr_dump,
    .destroy = csr_destroy,
};
