/* gpu_view.c: cis_gpu_plan_view (gpu_view.h): the plan's kernel body and
 * device arrays, read from the format tables' device structs (the host
 * format structs with device pointers, src/formats/format_types.h). */
#include <string.h>
#include "gpu/gpu_internal.h"
#include "gpu/gpu_view.h"

void cis_gpu_plan_view(const cis_gpu_plan *p, cis_spmv_view *v) {
  memset(v, 0, sizeof *v);
  v->kind = CIS_SPMV_NONE;
  if (!p || !p->dev) return;
  v->t = p->dtype;
  v->rows = p->rows;
  v->cols = p->cols;
  v->nnz = p->nnz;
  v->block = p->block;
  if (p->ops == &cis_gpu_format_csr) {
    const cis_fmt_csr *D = p->dev;
    v->kind = strcmp(p->kernel, "csr-scalar") ? CIS_SPMV_CSR_VECTOR : CIS_SPMV_CSR_SCALAR;
    v->wide = D->rowptr.wide;
    v->rowptr = cis_off_data(&D->rowptr);
    v->col = D->col;
    v->val = D->val;
  } else if (p->ops == &cis_gpu_format_ell || p->ops == &cis_gpu_format_ellr) {
    const cis_fmt_ell *D = p->dev;
    v->kind = CIS_SPMV_ELL;
    v->width = D->width;
    v->col = D->col;
    v->val = D->val;
    v->rowlen = D->rowlen;
  } else if (p->ops == &cis_gpu_format_sell || p->ops == &cis_gpu_format_sellr ||
             p->ops == &cis_gpu_format_sellcs) {
    const cis_fmt_sell *D = p->dev;
    v->kind = CIS_SPMV_SELL;
    v->S = D->S;
    v->nslices = D->nslices;
    v->slice_ptr = D->slice_ptr;
    v->col = D->col;
    v->val = D->val;
    v->rowlen = D->rowlen;
    v->perm = D->perm;
  } else if (p->ops == &cis_gpu_format_hyb && !strcmp(p->kernel, "hyb")) {
    const cis_fmt_hyb *D = p->dev;
    cis_hyb_dev k = {D->h.dtype, D->start.wide, D->mode == CIS_BOUNDARY_COLUMN, D->h.rows,
                     D->h.cols, D->width, D->h.nnz, D->ell_col, D->ell_val, D->rownnz,
                     cis_off_data(&D->start), cis_off_data(&D->end), D->csr_col, D->csr_val};
    v->kind = CIS_SPMV_HYB;
    v->hyb = k;
  }
  /* csb, csr5, hyb-paper, cuSPARSE: NONE */
}
