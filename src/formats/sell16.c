/* sell16.c: SELL-C-sigma with 16-bit column offsets (layout in
 * format_types.h): the sliced ELLPACK of Kreutzer, Hager, Wellein, Fehske,
 * Bishop (SIAM J. Sci. Comput. 36(5) 2014, Sec. 2) with each slot's column
 * stored as a 16-bit offset from its slice's window start, and the nonzeros
 * outside the 64K-column window moved to a CSR "far" part (an escape). A
 * stored SpMV is bandwidth-bound; this cuts 2 of the 12 bytes per nonzero in
 * double (2 of 8 in float) wherever a slice's columns span < 65535 -- every
 * matrix with fewer than 65535 columns, stencils whose bandwidth is below it
 * (laplace3d to size 180), and the Reference region of CI matrices.
 * Parameters: C = p->slice (1 ... 2^31-1; the GPU kernel takes C <= 1024),
 * sigma = p->sigma (1 = no sort, no perm; or a positive multiple of C), as
 * sellcs. */
#include <stdlib.h>
#include "core/internal.h"
#include "formats/format_util.h"

enum { PAD = 0xFFFF, SPAN = 0xFFFE }; /* off = PAD: padding; off <= SPAN: near */

static void sell16_destroy(void *impl) {
  cis_fmt_sell16 *F = impl;
  if (!F) return;
  cis_free(F->slice_ptr);
  cis_free(F->base);
  cis_free(F->off);
  cis_free(F->val);
  cis_free(F->perm);
  cis_offsets_free(&F->far_ptr);
  cis_free(F->far_col);
  cis_free(F->far_val);
  cis_free(F);
}

static int near(int32_t base, cis_idx c) { return c >= base && (int64_t)c - base <= SPAN; }

void cis_sell16_scan(const cis_csr *A, cis_int C, cis_int nslices, const cis_idx *perm, int32_t *base,
                     int64_t *width, int64_t *far) {
#pragma omp parallel for schedule(static)
  for (cis_int s = 0; s < nslices; ++s) {
    cis_idx lo = CIS_IDX_MAX;
    int64_t w = 0;
    const cis_int end = (s + 1) * C < A->rows ? (s + 1) * C : A->rows;
    for (cis_int pos = s * C; pos < end; ++pos) {
      const cis_int i = perm ? perm[pos] : pos;
      for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) lo = A->colind[k] < lo ? A->colind[k] : lo;
    }
    base[s] = lo == CIS_IDX_MAX ? 0 : lo;
    for (cis_int pos = s * C; pos < end; ++pos) {
      const cis_int i = perm ? perm[pos] : pos;
      int64_t n = 0;
      for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) n += near(base[s], A->colind[k]);
      w = n > w ? n : w;
      far[pos] = (A->rowptr[i + 1] - A->rowptr[i]) - n;
    }
    width[s] = w;
  }
}

static cis_status sell16_build(const cis_csr *A, const cis_format_params *p, void **impl) {
  cis_status st;
  cis_int slots, width_sum = 0;
  const size_t vs = cis_dtype_size(p->dtype);
  cis_fmt_sell16 *F = NULL;
  int64_t *fp = NULL; /* far counts, then offsets, before the 32/64-bit copy */
  if (p->slice < 1 || p->slice > CIS_IDX_MAX)
    return cis_error(CIS_ERR_INVALID, "sell16: chunk height C must be in [1, %d], got %lld", CIS_IDX_MAX,
                     (long long)p->slice);
  if (p->sigma < 1 || (p->sigma != 1 && p->sigma % p->slice != 0))
    return cis_error(CIS_ERR_INVALID, "sell16: sort window sigma must be 1 or a positive multiple of C = %lld, got %lld",
                     (long long)p->slice, (long long)p->sigma);
  F = cis_calloc(1, sizeof *F);
  if (!F) return cis_error(CIS_ERR_ALLOC, "cannot allocate sell16 format header");
  F->h = (cis_fmt_head){A->rows, A->cols, A->nnz, p->dtype};
  F->C = p->slice;
  F->sigma = p->sigma;
  F->nslices = (A->rows + F->C - 1) / F->C;
  if (F->sigma > 1) {
    CIS_TRY(cis_alloc_array((void **)&F->perm, A->rows, sizeof(cis_idx), "sell16 permutation"));
    CIS_TRY(cis_sell_sort_windows(A, F->sigma, F->perm));
  }
  CIS_TRY(cis_alloc_array((void **)&F->slice_ptr, F->nslices + 1, sizeof(int64_t), "sell16 slice pointers"));
  CIS_TRY(cis_alloc_array((void **)&F->base, F->nslices, sizeof(int32_t), "sell16 slice windows"));
  CIS_TRY(cis_alloc_array((void **)&fp, A->rows + 1, sizeof(int64_t), "sell16 far-part counts"));
  F->slice_ptr[0] = 0;
  fp[0] = 0;
  cis_sell16_scan(A, F->C, F->nslices, F->perm, F->base, F->slice_ptr + 1, fp + 1);
  for (cis_int s = 0; s < F->nslices; ++s) width_sum += F->slice_ptr[s + 1];
  CIS_TRY(cis_fmt_check_size("sell16", "padded slots (C x sum of slice widths)", F->C, width_sum,
                             (cis_int)(vs + sizeof(uint16_t)), &slots));
  for (cis_int s = 0; s < F->nslices; ++s) F->slice_ptr[s + 1] = F->slice_ptr[s] + F->C * F->slice_ptr[s + 1];
  for (cis_int pos = 0; pos < A->rows; ++pos) fp[pos + 1] += fp[pos];
  F->far_nnz = fp[A->rows];
  CIS_TRY(cis_offsets_alloc(&F->far_ptr, A->rows + 1, F->far_nnz));
  for (cis_int pos = 0; pos <= A->rows; ++pos) cis_off_set(&F->far_ptr, pos, fp[pos]);
  CIS_TRY(cis_alloc_array((void **)&F->off, slots, sizeof(uint16_t), "sell16 column offsets"));
  CIS_TRY(cis_alloc_zeroed(&F->val, slots, vs, "sell16 values"));
  CIS_TRY(cis_alloc_array((void **)&F->far_col, F->far_nnz, sizeof(cis_idx), "sell16 far columns"));
  CIS_TRY(cis_alloc_zeroed(&F->far_val, F->far_nnz, vs, "sell16 far values"));
  for (cis_int q = 0; q < slots; ++q) F->off[q] = PAD;
#pragma omp parallel for schedule(dynamic, 64)
  for (cis_int pos = 0; pos < A->rows; ++pos) {
    const cis_int i = F->perm ? F->perm[pos] : pos, s = pos / F->C, r = pos % F->C;
    const int32_t b = F->base[s];
    int64_t k_near = 0, q_far = fp[pos];
    for (cis_int k = A->rowptr[i]; k < A->rowptr[i + 1]; ++k) {
      const double v = cis_get(A->val, A->dtype, k);
      if (near(b, A->colind[k])) {
        const int64_t slot = F->slice_ptr[s] + k_near++ * F->C + r;
        F->off[slot] = (uint16_t)(A->colind[k] - b);
        cis_set(F->val, p->dtype, slot, v);
      } else {
        F->far_col[q_far] = A->colind[k];
        cis_set(F->far_val, p->dtype, q_far++, v);
      }
    }
  }
  cis_free(fp);
  *impl = F;
  return CIS_OK;
cleanup:
  cis_free(fp);
  sell16_destroy(F);
  return st;
}

static cis_int sell16_bytes(const void *impl) {
  const cis_fmt_sell16 *F = impl;
  const cis_int vs = (cis_int)cis_dtype_size(F->h.dtype);
  return (F->nslices + 1) * 8 + F->nslices * 4 + F->slice_ptr[F->nslices] * (vs + 2) +
         (F->perm ? F->h.rows * 4 : 0) + cis_offsets_bytes(&F->far_ptr, F->h.rows + 1) + F->far_nnz * (vs + 4);
}

/* The CPU reference: row by row in sorted order, near slots then far part. */
#define SELL16_SPMV(T)                                                                      \
  do {                                                                                      \
    const T *val = F->val, *fv = F->far_val, *xx = x;                                      \
    T *yy = y;                                                                              \
    _Pragma("omp parallel for schedule(dynamic, 64)")                                       \
    for (cis_int pos = 0; pos < F->h.rows; ++pos) {                                        \
      const cis_int s = pos / F->C, r = pos % F->C, i = F->perm ? F->perm[pos] : pos;                       \
      const int64_t w = (F->slice_ptr[s + 1] - F->slice_ptr[s]) / F->C;                     \
      T sum = 0;                                                                            \
      for (int64_t k = 0; k < w; ++k) {                                                     \
        const int64_t q = F->slice_ptr[s] + k * F->C + r;                                   \
        if (F->off[q] != PAD) sum += val[q] * xx[F->base[s] + F->off[q]];                   \
      }                                                                                     \
      for (int64_t q = cis_off_get(&F->far_ptr, pos), e = cis_off_get(&F->far_ptr, pos + 1); q < e; ++q) sum += fv[q] * xx[F->far_col[q]]; \
      yy[i] = beta == 0.0 ? (T)alpha * sum : (T)alpha * sum + (T)beta * yy[i];              \
    }                                                                                       \
  } while (0)

static cis_status sell16_spmv(const void *impl, double alpha, const void *x, double beta, void *y) {
  const cis_fmt_sell16 *F = impl;
  if (F->h.dtype == CIS_F64) SELL16_SPMV(double);
  else SELL16_SPMV(float);
  return CIS_OK;
}

static cis_status sell16_dump(const void *impl, FILE *f) {
  const cis_fmt_sell16 *F = impl;
  const cis_int slots = F->slice_ptr[F->nslices];
  fprintf(f, "# sell16 rows=%lld cols=%lld nnz=%lld C=%lld sigma=%lld nslices=%lld slots=%lld far=%lld "
             "(slot k of local row r of slice s at slice_ptr[s]+k*C+r; column = base[s] + offset, 65535 = padding)\n",
          (long long)F->h.rows, (long long)F->h.cols, (long long)F->h.nnz, (long long)F->C, (long long)F->sigma,
          (long long)F->nslices, (long long)slots, (long long)F->far_nnz);
  cis_dump_i64(f, "slice_ptr", F->slice_ptr, F->nslices + 1);
  cis_dump_idx(f, "base", F->base, F->nslices);
  cis_dump_u16(f, "offset", F->off, slots);
  cis_dump_vals(f, "NonZerosEntries", F->val, F->h.dtype, slots);
  if (F->perm) cis_dump_idx(f, "perm", F->perm, F->h.rows);
  cis_dump_offsets(f, "far_ptr", &F->far_ptr, F->h.rows + 1);
  cis_dump_idx(f, "far_col", F->far_col, F->far_nnz);
  cis_dump_vals(f, "far_val", F->far_val, F->h.dtype, F->far_nnz);
  return cis_dump_done(f, "sell16");
}

const cis_format_ops cis_format_sell16 = {
    .name = "sell16",
    .citation = "Kreutzer et al., SIAM J. Sci. Comput. 2014 (SELL-C-sigma), 16-bit column offsets per slice window + CSR escape (issue 10)",
    .build = sell16_build,
    .bytes = sell16_bytes,
    .spmv = sell16_spmv,
    .dump = sell16_dump,
    .destroy = sell16_destroy};
